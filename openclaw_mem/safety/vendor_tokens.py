"""Secret shapes that name themselves: vendor tokens by their prefix, a PEM key in base64,
webhook URLs whose path is the secret. Patterns only (secrets.py compiles and applies them);
kept apart so that secrets.py stays a size one can read."""

# Tokens whose prefix names their vendor (issue 40): Vault service, batch and recovery tokens
# (and the older `s.` ones), Shopify, PyPI, DigitalOcean, Docker Hub, Notion and Atlassian
# tokens, Tailscale keys, age file-encryption identities.
VENDOR = (
    r"(?<![A-Za-z0-9_.-])(?:hv[sbr]\.[A-Za-z0-9_-]{24,}+"
    r"|s\.(?=[A-Za-z0-9]{0,23}[0-9])(?=[A-Za-z0-9]{0,23}[A-Z])[A-Za-z0-9]{24}(?![A-Za-z0-9])"
    r"|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}(?![A-Za-z0-9])"
    r"|pypi-AgE[A-Za-z0-9_-]{50,}+"
    r"|do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])"
    r"|dckr_pat_[A-Za-z0-9_-]{20,}+"
    r"|ntn_[A-Za-z0-9]{40,}+"
    r"|ATATT3[A-Za-z0-9_=-]{60,}+"
    r"|tskey-(?:auth|api|client|webhook|scim)-[A-Za-z0-9-]{10,}+"
    r"|AGE-SECRET-KEY-1[0-9A-Z]{40,}+"
    # Databricks, Doppler, Linear, Groq, Replicate, LangSmith, Grafana service accounts,
    # Sentry, Postman, Google OAuth client secrets, Heroku, Microsoft Entra client secrets.
    r"|dapi[a-f0-9]{32}(?:-[0-9])?(?![A-Za-z0-9])"
    r"|dp\.(?:st|ct|sa|scim|audit)\.[A-Za-z0-9_-]{2,40}\.[A-Za-z0-9]{40,}+"
    r"|lin_(?:api|oauth)_[A-Za-z0-9]{40}(?![A-Za-z0-9])"
    r"|gsk_[A-Za-z0-9]{48,}+"
    r"|r8_[A-Za-z0-9]{37}(?![A-Za-z0-9])"
    r"|lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}(?![A-Za-z0-9])"
    r"|glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}(?![A-Za-z0-9])"
    r"|sntry[us]_[A-Za-z0-9_=+/-]{40,}+"
    r"|[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}(?![A-Za-z0-9-])"  # Mailgun
    r"|PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?![A-Za-z0-9])"
    r"|GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])"
    r"|HRKU-[A-Za-z0-9_-]{20,}+"
    r"|[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-]))"
)
# A PEM private key in base64 (kubeconfig's client-key-data, a Kubernetes secret's data):
# "-----BEGIN", then "PRIVATE KEY" at any of base64's three alignments.
PEM_BASE64 = (
    r"(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]{0,60}?"
    r"(?:UFJJVkFURSBLRVk|BSSVZBVEUgS0VZ|QUklWQVRFIEtFW)[A-Za-z0-9+/=]{0,65536}+"
)
# Webhook URLs whose path is the secret: Discord's and Microsoft Teams'.
WEBHOOK = (
    r"(?i:discord(?:app)?\.com/api/webhooks/)[0-9]{17,20}/(?P<secret>[A-Za-z0-9_-]{60,}+)"
    r"|(?i:\.webhook\.office\.com/webhookb2/)[^\s]{0,200}?/IncomingWebhook/"
    r"(?P<secret_ms>[A-Za-z0-9/_-]{32,}+)"
)
