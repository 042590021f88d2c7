"""Find and redact secrets: keys, tokens, passwords and private keys, in English and Chinese.

Secrets never leave the machine and never reach MEMORY.md, USER.md or AGENTS.md, so every
log entry goes through `redact` before it is sent anywhere. Each built-in family in
`FAMILIES` is a (name, regex) pair. A family's regex either matches the secret itself
(`AKIAIOSFODNN7EXAMPLE`) or has groups named `secret...` that mark the part to hide, so a
label, a separator, quotes, a URL's scheme, user and host stay readable:

    password=hunter2hunter2                 -> password=[REDACTED]
    密码是 abc12345                          -> 密码是 [REDACTED]
    postgres://admin:S3cretPassw0rd@db/app  -> postgres://admin:[REDACTED]@db/app

Every family (and every `extra` pattern) is matched against the original text; overlapping
matches become one [REDACTED]. A match that touches a [REDACTED] already there is not
counted, so running `redact` twice changes nothing the second time.

The regexes run on every log entry, so they stay linear: each starts at a literal or behind
a lookbehind that lets a run of characters start a match only once, repetitions in the
middle of a pattern are bounded, and runs at the end of one are possessive (`{20,}+`, never
backtracked into).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from .numbers import CARD_NUMBER, CARD_WITH_CVV, IBAN, NATIONAL_ID, PIN
from .numbers import CHECKS as _VALID
from .prebuilt import pattern as _compile
from .vendor_tokens import PEM_BASE64 as _PEM_BASE64
from .vendor_tokens import VENDOR as _VENDOR
from .vendor_tokens import WEBHOOK as _WEBHOOK

TYPE_CHECKING = False  # `mem log` scans a note that names a password: no typing, no re
if TYPE_CHECKING:
    import re
    from collections.abc import Sequence

REDACTED = "[REDACTED]"
CUSTOM = "custom pattern"  # the family name `find` gives a match of an `extra` pattern

# --- building blocks of the labelled families --------------------------------------------
# A value character: printable ASCII other than space and quotes (a value stops at a space,
# a quote, or a Chinese character or punctuation mark).
_V = r"[!#-&(-_a-z{-~]"
# Punctuation that ends a sentence rather than a password: `password=hunter2.` keeps the dot.
_TRAILING = r"[.,;:)\]}>]"
# The value ends here: at a space, a quote, a bracket, a comma, or the end of the text.
_END = r"(?=[\s\"'`(\[),;]|$)"
# Things after a label that are not secrets: a value already redacted, variables and
# templates, code that reads the secret from elsewhere, placeholders, names, paths, URLs.
_NOT_A_VALUE = (
    "(?!"
    + "|".join(
        (
            r"\[REDACTED\]",
            r"[$%<{]",  # $VAR ${VAR} %VAR% <your-key> {{ secrets.X }}
            r"(?:~|\.{1,2})?/[^\s/]{1,64}/",  # /home/alice/..., ~/.ssh/...
            r"[A-Za-z][A-Za-z0-9+.-]{1,30}://",  # a URL
            r"[A-Za-z_][A-Za-z0-9_.]{0,128}[(\[]",  # os.getenv("X"), get_token(), ENV["X"]
            # self.token, process.env.X, settings.API_KEY
            r"(?i:self|this|cls|os|sys|process|config|conf|cfg|settings|env|environ|args|opts"
            r"|options|params|request|req|ctx|context|app|secrets|creds|credentials|vault|auth"
            r"|session|props|state|data|payload|user|form)\.[A-Za-z_]",
            r"(?-i:[A-Z][A-Z0-9]{0,40}_[A-Z0-9_]{1,80})" + _END,  # OPENAI_API_KEY, a name
            r"(?-i:[a-z]{1,40}_[a-z_]{1,80})" + _END,  # api_key, an identifier
            r"(?i:true|false|null|none|nil|undefined|required|optional|string|str|bytes|int"
            r"|password|passwd|secret|token|redacted|hidden|masked|example|placeholder"
            r"|x{3,}|\*{3,}|\.{3,}|•{3,})" + _END,  # placeholders
        )
    )
    + ")"
)
# A value: quoted (kept quotes, spaces allowed) or a run of value characters, 4 or more.
_VALUE = (
    _NOT_A_VALUE + r"(?:\"" + _NOT_A_VALUE + r"(?P<secret_dq>[^\"\r\n]{4,4096}+)\""
    r"|'" + _NOT_A_VALUE + r"(?P<secret_sq>[^'\r\n]{4,4096}+)'"
    r"|`" + _NOT_A_VALUE + r"(?P<secret_bq>[^`\r\n]{4,4096}+)`"
    # Unquoted, a lowercase word and then another is prose: "API key: stored in the keychain".
    r"|(?!(?-i:[a-z]{1,24}[ \t]+[A-Za-z]))(?P<secret>" + _V + r"{4,}(?<!" + _TRAILING + r")))"
)
_OPEN_QUOTE = r"[“‘「『]?"  # 密码是“abc123”: the closing mark is not a value character
# After ` is `, prose is likely ("the password is correct"): the value must look made up,
# with a digit or a symbol inside it (or quotes around it), and not be a short number.
_MADE_UP = (
    r"(?=[\"'`“‘「『]|[A-Za-z]{0,256}+(?:[^A-Za-z\s.,;:!?)]|[.,;:!?)]" + _V + r"))"
    r"(?![0-9]{1,5}(?![0-9A-Za-z]))"
)
_LABEL = (
    r"(?<![A-Za-z0-9_])(?:(?:[A-Za-z0-9]{1,40}[_.-]){0,4}"  # client_, AWS_, spring.datasource.
    # camelCase: clientSecret, accessToken, accessKeySecret, AppSecret, SessionToken.
    r"(?-i:[A-Za-z][a-z0-9]{0,20}(?:[A-Z][a-z0-9]{1,20}){0,2}(?=[A-Z]))?"
    r"(?:[A-Za-z]{0,12}(?:password|passwd)|passphrase|passcode|pwd|secret"
    r"|secret[ _-]?key(?:[_-]base)?|token|api[ _-]?key|private[ _-]?key|access[ _-]?key)"
    r"|(?:[A-Za-z0-9]{1,40}[_.-]){1,4}pass(?![A-Za-z]))"  # DB_PASS, SMTP.PASS
)
_LABELLED = (
    r"(?i)" + _LABEL + r"[\"'`]?\*{0,2}"  # "password": ... or **Password:** ...
    r"(?:[ \t]{0,4}(?:=>|:=|[=:：是为])[ \t]{0,4}\*{0,2}[ \t]{0,4}"
    + _OPEN_QUOTE
    + r"|[ \t]{1,4}(?:is|was):?[ \t]{1,4}\*{0,2}"
    + _OPEN_QUOTE
    + _MADE_UP
    + r")"
    + _VALUE
)
_LABELLED_ZH = (
    r"(?:密码|密碼|口令|密钥|密鑰|秘钥|祕鑰|令牌|验证码|驗證碼|授权码|授權碼)"
    r"[ \t]{0,3}(?:是|为|為|：|:|=)?[ \t]{0,3}" + _OPEN_QUOTE + _VALUE
)

_PEM = (
    r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    # The body stops at the next five dashes (END, or the BEGIN of another key).
    r"(?:(?:[^-]|-(?!----)){0,16384}+-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    # A key pasted without its END line: the base64 lines that follow.
    r"|(?:\r?\n[ \t>]{0,8}+[A-Za-z0-9+/=]{1,256}+){0,1000}+)"
)
_AWS_SECRET = (
    # "aws_secret_access_key = …", and "SecretAccessKey": "…" as `aws iam
    # create-access-key` prints it.
    r"(?<![A-Za-z0-9])(?i:aws[_. -]?secret[_. -]?(?:access[_. -]?)?key|"
    r"secret[_. -]?access[_. -]?key)[\"'`]?\*{0,2}"
    r"[ \t]{0,4}(?:=>|:=|[=:：])[ \t]{0,4}\*{0,2}[\"'`]?"
    r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)
_URL_PASSWORD = (
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}+://[^\s:/?#@\[\]\"'<>]{0,256}+:"
    r"(?!\[REDACTED\]@|\*+@|\$\{?[A-Za-z_]|(?i:password|passwd|pass|pwd|secret|pw)@)"
    # A "#" is a password's too, and so is an "@" before the last one: the host has none.
    r"(?P<secret>[^\s/?\"'<>]{1,256}?)@(?=[A-Za-z0-9\[_.-][^\s@/?#\"'<>]{0,256}+(?![^\s/?#\"'<>]))"
)
_TOKEN_CHARS = r"[A-Za-z0-9._~+/=-]"
_BEARER = (
    r"(?i:\bbearer)[ \t]{1,4}"
    # Not a word or a PLACEHOLDER_NAME: "Bearer authentication", "Bearer YOUR_TOKEN_HERE".
    r"(?![a-z._-]{16,}+(?!" + _TOKEN_CHARS + r"|_)|[A-Z._-]{16,}+(?!" + _TOKEN_CHARS + r"|_))"
    r"(?P<secret>[A-Za-z0-9._~+/_-]{16,}+=*+)"
)
_BASIC = (
    r"(?i:\bauthorization[ \t]{0,4}:[ \t]{0,4}basic)[ \t]{1,4}(?P<secret>[A-Za-z0-9+/]{8,}+={0,2})"
)

_TOKEN_HEADER = (
    r"(?i:\bauthorization[ \t]{0,4}:[ \t]{0,4}(?:token|apikey|api-key|key|sso-key))[ \t]{1,4}"
    r"(?P<secret>[A-Za-z0-9._~+/:-]{8,}+=*+)"
)
_CURL_USER = (
    r"(?<![A-Za-z0-9_-])(?:-u|--user)[ \t]{1,4}[\"']?[^\s:\"'$]{1,64}:"
    r"(?P<secret>[^\s\"']{3,256}+)"
)
# A key id and, later on its line, 40 base64 characters: the pair as people paste it ("aws
# key AKIA… secret …"), whatever characters the secret happens to hold (about a quarter of
# them have no / or + for the bare shape below to go by).
_AWS_PAIR = (
    r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])[^\n]{0,120}?"
    r"(?<![A-Za-z0-9/+=])(?P<secret>(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])"
    r"[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)
# A 40-character base64 run with upper and lower case, a digit and a / or +: the shape of an
# AWS secret access key, found without its label or key id. Lookaheads scan at most 40.
_AWS_BARE = (
    r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=]))"
    r"(?=[A-Za-z0-9]{0,39}[/+])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])"
    r"(?=[A-Za-z0-9/+]{0,39}[0-9])[A-Za-z0-9/+]{40}"
)
# NAME=value where NAME looks like an environment variable and the value like a generated
# key (20+ characters mixing upper and lower case and digits, not a path): a credential of a
# shape no family names.
_ENV_ASSIGNMENT = (
    r"(?<![A-Za-z0-9_])(?-i:[A-Z][A-Z0-9]{1,20}(?:_[A-Z0-9]{1,20}){0,4})[ \t]{0,2}=[ \t]{0,2}"
    r"[\"']?(?P<secret>(?=[A-Za-z0-9+=_.-]{0,200}[A-Z])(?=[A-Za-z0-9+=_.-]{0,200}[a-z])"
    r"(?=[A-Za-z0-9+=_.-]{0,200}[0-9])[A-Za-z0-9+/=_.-]{20,200}+)"
)
# A wallet's recovery words after the label that says what they are (12 to 24 lowercase
# words): no word list needed to know what "seed phrase: …" holds.
_SEED_PHRASE = (
    r"(?i:(?<![A-Za-z])seed(?:[ \t]?(?:phrase|words))?(?![A-Za-z])"
    r"|recovery[ \t]?(?:phrase|words|seed)|backup[ \t]?phrase|mnemonic(?:[ \t]?phrase)?"
    r"|wallet[ \t]?words"
    r"|secret[ \t]?recovery[ \t]?phrase)|助记词|助記詞|种子词|種子詞"
)
_SEED = (
    r"(?:" + _SEED_PHRASE + r")[^\n:：]{0,24}?[:：是为]?[ \t]{0,4}[\"'“]?"
    r"(?P<secret>(?-i:[a-z]{3,8}(?:(?:[ \t]{1,2}|,[ \t]?)[a-z]{3,8}){11,23}))(?![a-z])"
)
_AZURE = r"(?i:\b(?:AccountKey|SharedAccessKey))=(?P<secret>[A-Za-z0-9+/]{20,}+={0,2})"
# A URL's query parameter that carries a credential: an Azure SAS `sig=`, a presigned S3 or
# GCS signature, an access token or key in the link. The value is generated (a letter and a
# digit in it), so `?key=name-of-a-setting` passes.
_URL_QUERY = (
    r"[?&;](?i:sig|signature|x-amz-signature|x-goog-signature|x-amz-security-token|"
    r"access_token|id_token|refresh_token|api[_-]?key|apikey|key|client_secret|secret|auth"
    r"|token|code|password|passwd|pwd)="
    r"(?P<secret>(?=[A-Za-z0-9%+/=_.~-]{0,1024}[0-9])(?=[A-Za-z0-9%+/=_.~-]{0,1024}[A-Za-z])"
    r"[A-Za-z0-9%+/=_.~-]{16,}+)"
)
# A Telegram bot token: the bot's numeric id, a colon, 35 characters (in a bot API URL too:
# api.telegram.org/bot<token>/sendMessage).
_TELEGRAM = (
    r"(?:(?<=bot)|(?<![A-Za-z0-9_:]))[0-9]{8,10}:(?=[A-Za-z0-9_-]{0,34}[a-z])"
    r"(?=[A-Za-z0-9_-]{0,34}[A-Z])[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"
)
# A Discord bot token: the bot id's digits in base64 (so it starts M, N or O), a timestamp,
# an HMAC, joined by dots.
_DISCORD = (
    r"(?<![A-Za-z0-9_.-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}"
    r"(?![A-Za-z0-9_-])"
)
# The database and remote-shell clients whose command line takes a password: `mysql -pX`
# and `-p'X'` (glued to the flag: `-p` alone asks for it), `sshpass -p X`, `redis-cli -a X`.
_CLI_PASSWORD = (
    r"(?:(?<![A-Za-z0-9_-])(?:mysql(?:dump|admin|import|check|show|pump|sh)?|mariadb(?:-dump"
    r"|-admin)?)(?![A-Za-z0-9_-])[^\n|;&]{0,200}?(?<=[ \t])-p"
    r"|(?<![A-Za-z0-9_-])sshpass[ \t]{1,4}-p[ \t]{0,4}"
    r"|(?<![A-Za-z0-9_-])redis-cli(?![A-Za-z0-9_-])[^\n|;&]{0,200}?(?<=[ \t])-a[ \t]{1,4}"
    # Any tool's long option, its value after a space ("--password Zq8v…"; the "=" form is
    # an assignment's): quoted, or made up (a digit or a symbol: not "the --password flag").
    r"|(?<![A-Za-z0-9_-])--(?:password|passwd|pass|pwd|secret|token|api-key|apikey)"
    r"[ \t]{1,4}(?!-)(?=['\"]|[^\s'\"]{0,255}[0-9!@#^&*()_+=~./:])"
    # openssl's `-passout pass:X`, and `docker login -p X`.
    r"|(?<![A-Za-z0-9_-])-pass(?:in|out)?[ \t]{1,4}pass:"
    r"|(?<![A-Za-z0-9_-])docker[ \t]{1,4}login(?![A-Za-z0-9_-])[^\n|;&]{0,200}?"
    r"(?<=[ \t])-p[ \t]{1,4})"
    r"(?![$%<{])(?:'(?P<secret_sq>[^'\r\n]{1,256}+)'|\"(?P<secret_dq>[^\"\r\n]{1,256}+)\""
    r"|(?P<secret>[^\s'\"]{1,256}+))"
)
# A password said in a sentence, the label a few words before its value: "the password is
# the same as before: X", "password for the NAS is X", "密码还是和之前一样：X", "pw: X".
# The words in between start with a small word (is, for, of, we ...): "password manager:"
# and "密码管理器：" name a thing, not its password. Past the label, the value must look made
# up (a digit or a symbol in it).
_GAP_START = (
    r"is|was|are|were|for|of|to|on|at|in|from|we|i|you|they|here|there|still|again|now"
    r"|remains|stays|the|that|which|used|set|has|had|stayed"
)
_PROSE_PASSWORD = (
    r"(?i)(?<![A-Za-z0-9_])(?:"
    r"(?:pass(?:word|wd|code|phrase)s?)"
    r"(?:[ \t](?:" + _GAP_START + r")(?![A-Za-z])[^\n.!?。！？:：=]{0,48}?)?"
    r"(?:[ \t]{0,4}[:：=][ \t]{0,4}|[ \t]{1,4}(?:is|was|remains|stays|are|were|to"
    r"|(?:changed|set|reset|updated)[ \t]{1,4}to)[ \t]{1,4}(?:now[ \t]{1,4})?)"
    r"|pwd?[ \t]{0,4}[:：=][ \t]{0,4}"
    r"|(?:密码|密碼|口令)(?!管理|策略|长度|長度|提示|规则|規則|学|學|强度|強度|重置|找回|错误|錯誤"
    r"|复杂度|要求|保护|保護|本|框)[^\n。！？，,：:=]{0,16}?"
    r"(?:是|为|為|：|:|=|改成了?|改为|改為|换成了?|換成了?|設為|设为)[ \t]{0,4})"
    + _OPEN_QUOTE
    + _MADE_UP
    + _VALUE
)
# A password that is one plain word, said as the end of its clause: "the wifi password is
# sunshine.", "the password for the VPN is BlueElephantSky, don't share it". Prose goes on
# past its word ("the password is in the vault") or says what the password is like (a
# word of `_SAID_OF_A_PASSWORD`, or one ending in -ed, -ing or -ly: "expired", "missing").
_SAID_OF_A_PASSWORD = (
    r"correct|incorrect|wrong|right|fine|ok|okay|good|bad|weak|strong|long|short|simple|easy"
    r"|hard|secure|insecure|safe|unsafe|valid|invalid|required|optional|mandatory|needed"
    r"|necessary|important|same|different|new|old|empty|blank|unknown|known|public|private"
    r"|secret|there|here|gone|visible|hidden|broken|sensitive|temporary|permanent|random"
    r"|unique|mine|yours|his|hers|theirs|ours|it|this|that|what|which|none|nothing"
    r"|something|enough|fixed|unset|null|true|false|blank|default|obvious|weird|annoying"
)
_PLAIN_WORD_PASSWORD = (
    r"(?i)(?<![A-Za-z0-9_])pass(?:word|code|phrase)"
    r"(?:[ \t](?:for|of|to|on|at|in)(?![A-Za-z])[^\n.!?。！？:：=,]{0,40}?)?"
    r"[ \t]{1,4}(?:is|was)(?:[ \t]{1,4}(?:now|still))?[ \t]{1,4}"
    r"(?!(?:" + _SAID_OF_A_PASSWORD + r")(?![A-Za-z]))(?![A-Za-z]{0,60}(?:ed|ing|ly)(?![A-Za-z]))"
    r"(?P<secret>[A-Za-z]{4,64}+)(?=[ \t]*(?:[.,;!)\r\n]|$))"  # its clause ends, or its line
)
# "the admin login is admin / S3cr3tP@ssw0rd!": a user and a made-up password after a slash.
_LOGIN_PAIR = (
    r"(?i)(?<![A-Za-z0-9_])(?:login|credentials|creds)"
    r"(?:[ \t]{1,4}(?:is|are)|[ \t]{0,4}[:：])[ \t]{1,4}"
    r"(?!(?:in|at|on|under|from|to)[ \t])[A-Za-z0-9._@-]{1,64}+[ \t]{0,4}/[ \t]{0,4}"
    + _MADE_UP
    + r"(?P<secret>[^\s]{6,128}+)"
)
# A line that is one run of base64 and nothing else, 40 characters or more with upper and
# lower case and a digit: a line of a PEM key's body, or of a key pasted in pieces. Seen
# without its BEGIN line (a snippet that starts inside the block) it is still key material.
_KEY_LINE = (
    r"(?m)^[ \t>]{0,8}(?P<secret>(?=[A-Za-z0-9+/]{0,256}[a-z])(?=[A-Za-z0-9+/]{0,256}[A-Z])"
    r"(?=[A-Za-z0-9+/]{0,256}[0-9])[A-Za-z0-9+/]{40,}+={0,2})[ \t]*\r?$"
)

# A label and its value with only a space between (.netrc's `password X`, "with secret X"),
# or the two as a call's arguments (PHP's define('DB_PASSWORD', 'X')), or an XML element:
# the value made up of letters and digits, 8 characters or more.
_LABEL_SPACE_VALUE = (
    r"(?i)" + _LABEL + r"(?:[ \t]{1,4}(?!(?:is|was|for|of|to|in|on|at|and|or|the|with|from|by)"
    r"(?![A-Za-z0-9]))(?=[^\s'\"<>]{0,255}[0-9])(?=[^\s'\"<>]{0,255}[A-Za-z])"
    r"(?P<secret>[^\s'\"<>]{8,256}+)"
    r"|['\"][ \t]{0,4},[ \t]{0,4}['\"](?P<secret_arg>[^'\"\r\n]{4,256}+)['\"])"
    r"|<" + _LABEL + r">(?P<secret_xml>[^<\r\n]{1,256}+)</"
)
# A password said in Spanish, German or French: the label, a few words (of the thing it
# opens), then `:`, or is / ist / est; the value must look made up, as in English.
_PROSE_PASSWORD_EU = (
    r"(?i)(?<![A-Za-z0-9_])(?:contrase(?:ñ|n)a|clave[ \t]de[ \t]acceso|passwort|kennwort"
    r"|mot[ \t]de[ \t]passe|mdp)"
    r"(?:[ \t][^\s:：=.!?]{1,24}){0,4}?"
    r"(?:[ \t]{0,4}[:：=][ \t]{0,4}|[ \t]{1,4}(?:es|era|ist|lautet|war|est|était|sera)"
    r"[ \t]{1,4}(?::[ \t]{0,4})?)" + _OPEN_QUOTE + _MADE_UP + _VALUE
)
# A wifi key: "WPA2 key X", "WiFi password: X", "WLAN-Schlüssel: X".
_WIFI = (
    r"(?i)(?<![A-Za-z0-9_])(?:wpa[23]?(?:-psk)?|wi-?fi|wlan|psk)[ \t-]?"
    r"(?:key|password|passwort|pass|passphrase|pw|code|schlüssel|kennwort|clave|contraseña)"
    r"(?:[ \t]{0,4}(?:[:：=]|is|ist|es|est)?[ \t]{1,4}|[ \t]{0,4}[:：=][ \t]{0,4})"
    + _OPEN_QUOTE
    + _MADE_UP
    + _VALUE
)
# 2FA recovery (backup) codes after their label: the rest of the line is the codes.
_RECOVERY = (
    r"(?i)(?<![A-Za-z])(?:(?:recovery|backup|2fa|two-factor|scratch|emergency)[ \t-]codes?"
    r"|恢复码|恢復碼|备用码|備用碼)(?:[ \t][^\n:：]{0,30}?)?[ \t]{0,2}[:：][ \t]{0,4}"
    r"(?P<secret>(?=[^\n]{0,12}[0-9])[^\n]{4,600}+)"
)
# A TOTP seed: base32 after a label that says so ("2FA seed …: JBSW…", "TOTP secret …").
_TOTP = (
    r"(?i:(?<![A-Za-z])(?:totp|2fa|mfa|otp|two-factor|authenticator))[^\n]{0,40}?"
    r"(?i:seed|secret|key)[^\n]{0,30}?(?<![A-Za-z0-9])(?P<secret>[A-Z2-7]{16,}+=*)"
    r"(?![A-Za-z0-9])"
)
# "the NAS login is the same as the router one: X": a credential named, then what it is
# the same as, then the value after a colon.
_SAME_AS = (
    r"(?i)(?<![A-Za-z])(?:login|password|passwd|pw|pwd|pin|passcode|credentials?|creds)"
    r"(?:[ \t][^\n:：]{0,40}?)?[ \t]same[ \t]as[ \t][^\n:：]{1,60}?[:：][ \t]{0,4}"
    + _OPEN_QUOTE
    + _MADE_UP
    + _VALUE
)
# A password piped into `sudo -S` (or --stdin): `echo 'X' | sudo -S …`, `printf "%s\n" X | …`.
_SUDO_STDIN = (
    r"(?<![A-Za-z0-9_-])(?:echo|printf)(?:[ \t]{1,4}-[A-Za-z]{1,3})?"
    r"(?:[ \t]{1,4}(?:\"[^\"\n]{0,8}%s[^\"\n]{0,8}\"|'[^'\n]{0,8}%s[^'\n]{0,8}'))?[ \t]{1,4}"
    r"(?:'(?P<secret_sq>[^'\n]{1,256}+)'|\"(?P<secret_dq>[^\"\n]{1,256}+)\""
    r"|(?P<secret>[^\s'\"|]{1,256}+))[ \t]{0,4}\|[ \t]{0,4}sudo[ \t]{1,4}"
    r"(?:-[A-Za-z]{0,4}S|--stdin)"
)
# A passphrase is words: "wifi passphrase: correct horse battery staple", "my password is
# correct horse battery staple", "passphrase for the vault = …". Three to eight lower-case
# words after the label's colon, "=" or "is", to the end of the clause; none of them a word
# prose is made of ("stored in the vault", "ask Bob Hansen"), the first not a participle,
# an adverb or a verb's -s ("reset yesterday", "expires Friday", "saved somewhere safe").
_PROSE_WORDS = (
    r"a|an|the|and|or|but|nor|so|yet|to|of|in|on|at|by|for|with|from|into|onto|as|than|then"
    r"|that|this|these|those|it|its|is|are|was|were|be|been|am|do|does|did|not|no|too|very"
    r"|just|still|also|now|here|there|my|your|our|their|his|her|me|you|we|they|i|he|she"
    r"|them|us|what|which|who|when|where|why|how|if|because|about|like|some|any|all|each"
    r"|every|one|same|such|enough|only|even|really|quite|rather|pretty|thanks|please|ok"
    r"|okay|yes|maybe|probably|again|anymore|always|never|somewhere|since|until|after|before"
    r"|ask|see|check|use|call|get|set|reset|change|find|look|try|need|tomorrow|today|later"
)
_A_WORD = r"(?!(?:" + _PROSE_WORDS + r")(?![A-Za-z]))(?-i:[a-z]{2,24}+)"
_PASSPHRASE = (
    r"(?i)(?<![A-Za-z0-9_])(?:pass[ \t-]?phrase|password|passcode)"
    r"(?:[ \t](?:for|of|to|on|at)(?![A-Za-z])[^\n.!?:：=]{0,40}?)?"
    r"(?:[ \t]{0,4}[:：=][ \t]{0,4}|[ \t]{1,4}(?:is|was)[ \t]{1,4})"
    r"(?![A-Za-z]{0,60}(?:ed|ing|ly|es|s)(?![A-Za-z]))"
    r"(?P<secret>" + _A_WORD + r"(?:[ \t-]" + _A_WORD + r"){2,7})"
    r"(?=[ \t]*(?:[.,;!?)\r\n]|$))"
)
FAMILIES: tuple[tuple[str, str], ...] = (
    ("private key", _PEM),
    ("aws access key id", r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("aws secret key", _AWS_SECRET),
    (
        "github token",
        r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}+|github_pat_[A-Za-z0-9_]{30,}+)",
    ),
    ("gitlab token", r"(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,}+"),
    (
        "slack token",
        r"(?<![A-Za-z0-9_-])(?:xox[abeoprs]-[A-Za-z0-9-]{10,}+|xapp-[0-9]-[A-Za-z0-9-]{10,}+)"
        r"|hooks\.slack\.com/services/T[A-Za-z0-9]{6,20}/B[A-Za-z0-9]{6,20}/[A-Za-z0-9]{16,}+",
    ),
    (
        "stripe key",
        r"(?<![A-Za-z0-9_])"
        r"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}+|whsec_[A-Za-z0-9+/=]{20,}+)",
    ),
    ("openai/anthropic api key", r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}+"),
    ("google api key", r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    (
        "jwt",
        r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4096}+\.[A-Za-z0-9_-]{4,16384}+\.[A-Za-z0-9_-]{8,}+",
    ),
    ("npm token", r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    ("hugging face token", r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}+"),
    ("azure storage key", _AZURE),
    ("url query secret", _URL_QUERY),
    ("telegram bot token", _TELEGRAM),
    (
        "sendgrid key",
        r"(?<![A-Za-z0-9_.-])SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}(?![A-Za-z0-9_-])",
    ),
    ("discord bot token", _DISCORD),
    ("command-line password", _CLI_PASSWORD),
    ("key material line", _KEY_LINE),
    ("wallet seed phrase", _SEED),
    ("aws secret key (bare)", _AWS_BARE),
    ("aws secret key (beside its key id)", _AWS_PAIR),
    ("generated value assignment", _ENV_ASSIGNMENT),
    ("token header", _TOKEN_HEADER),
    ("curl user password", _CURL_USER),
    ("bearer token", _BEARER),
    ("basic auth header", _BASIC),
    ("url password", _URL_PASSWORD),
    ("secret assignment", _LABELLED),
    ("secret phrase (zh)", _LABELLED_ZH),
    ("password in a sentence", _PROSE_PASSWORD),
    ("password said as a word", _PLAIN_WORD_PASSWORD),
    ("login and password", _LOGIN_PAIR),
    ("vendor token", _VENDOR),
    ("webhook url", _WEBHOOK),
    ("private key in base64", _PEM_BASE64),
    ("secret beside its label", _LABEL_SPACE_VALUE),
    ("password in a sentence (es/de/fr)", _PROSE_PASSWORD_EU),
    ("wifi key", _WIFI),
    ("recovery codes", _RECOVERY),
    ("totp seed", _TOTP),
    ("password same as another", _SAME_AS),
    ("password piped to sudo", _SUDO_STDIN),
    ("payment card with cvv", CARD_WITH_CVV),
    ("iban", IBAN),
    ("pin", PIN),
    ("passphrase of words", _PASSPHRASE),
    ("payment card number", CARD_NUMBER),
    ("national id number", NATIONAL_ID),
)


# What the three costliest families (30 of the ~38 ms compiling all of them takes) need
# before they can match: (case-insensitive, clauses), one string of each clause in the text
# (folded as re folds it, when case-insensitive). Each clause is one tests/regex_gate.py
# reads off the family's pattern, so a family is never skipped on a text it matches
# (tests/test_secret_gate.py holds them to it); a text that passes no gate never compiles
# them, and a recall's snippets rarely name a password.
GATES: dict[str, tuple[bool, tuple[tuple[str, ...], ...]]] = {
    "secret assignment": (
        True,
        (
            (":", ":=", "=", "=>", "is", "was", "为", "是", "："),
            (
                *("access", "key", "pass", "passcode", "passphrase", "passw", "private", "pwd"),
                *("secret", "token"),
            ),
        ),
    ),
    "secret phrase (zh)": (
        False,
        (
            (
                *("令牌", "口令", "密码", "密碼", "密鑰", "密钥", "秘钥", "祕鑰"),
                *("驗證碼", "验证码", "授权码", "授權碼"),
            ),
        ),
    ),
    "password in a sentence": (True, (("pass", "pw", "口令", "密码", "密碼"),)),
    "password in a sentence (es/de/fr)": (
        True,
        (("acceso", "contrase", "kennwort", "mdp", "passe", "passwort"),),
    ),
    "wifi key": (
        True,
        (
            ("psk", "wi", "wlan", "wpa"),
            (
                "clave",
                "code",
                "contraseña",
                "kennwort",
                "key",
                "pass",
                "passphrase",
                "password",
                "passwort",
                "pw",
                "schlüssel",
            ),
        ),
    ),
    "password same as another": (True, (("same",), (":", "："))),
}


class _Family:
    """A family's pattern, compiled the first time a text passes its gate (if it has one),
    and the groups that mark the part to hide."""

    __slots__ = ("_groups", "_pattern", "gate", "icase", "name", "source")

    def __init__(self, name: str, source: str, gate=(False, ())) -> None:
        self.name, self.source = name, source
        self.icase, self.gate = gate
        self._pattern: re.Pattern[str] | None = None
        self._groups: tuple[int, ...] = ()
        if not self.gate:
            self._compile()

    def _compile(self) -> re.Pattern[str]:
        pattern = self._pattern = _compile(self.source)
        index = pattern.groupindex
        self._groups = tuple(sorted(i for g, i in index.items() if g.startswith("secret")))
        return pattern

    @property
    def pattern(self) -> re.Pattern[str]:
        return self._pattern if self._pattern is not None else self._compile()

    @property
    def groups(self) -> tuple[int, ...]:
        self.pattern  # noqa: B018 -- compiled first: the groups are read from it
        return self._groups


_Compiled = tuple[_Family, ...]
_BUILTIN: _Compiled = tuple(
    _Family(name, src, GATES.get(name, (False, ()))) for name, src in FAMILIES
)


_WITH_EXTRA: dict[tuple[str, ...], _Compiled] = {}


def _compiled(extra: tuple[str, ...]) -> _Compiled:
    """The families with these custom patterns (functools.lru_cache without importing
    functools, which a `mem log` does not otherwise need)."""
    got = _WITH_EXTRA.get(extra)
    if got is None:
        if len(_WITH_EXTRA) >= 32:
            _WITH_EXTRA.clear()
        got = _WITH_EXTRA[extra] = _BUILTIN + tuple(_Family(CUSTOM, src) for src in extra)
    return got


def _protected(text: str) -> list[tuple[int, int]]:
    """Where [REDACTED] already stands."""
    spans, at = [], text.find(REDACTED)
    while at >= 0:
        spans.append((at, at + len(REDACTED)))
        at = text.find(REDACTED, at + len(REDACTED))
    return spans


def _overlaps(spans: list[tuple[int, int]], starts: list[int], start: int, end: int) -> bool:
    i = bisect_left(starts, end)  # the protected spans that start before `end`
    return i > 0 and spans[i - 1][1] > start


def _matches(
    text: str, compiled: _Compiled, protected: list[tuple[int, int]], starts: list[int]
) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    folded: str | None = None
    for family in compiled:
        if family.gate:
            from .gating import fold, holds

            folded = fold(text) if folded is None else folded
            if not holds(folded if family.icase else text, family.gate):
                continue  # it cannot match this text: never compiled, never run
        name, pattern, groups = family.name, family.pattern, family.groups
        valid = _VALID.get(name)
        for m in pattern.finditer(text):
            # A check reads the part to hide (a card's digits), else the whole match.
            said = next((m[g] for g in groups if m.start(g) >= 0), m[0])
            if valid is not None and not valid(said):
                continue
            start, end = next((m.span(g) for g in groups if m.start(g) >= 0), m.span())
            if start < end and not _overlaps(protected, starts, start, end):
                found.append((start, end, name))
    return found


def _scan(text: str, extra: Sequence[str]) -> list[tuple[int, int, str]]:
    """(start, end, family) of each secret, in the order found (family by family); a key
    split over two lines is found in pieces, one on each line."""
    protected = _protected(text)
    starts = [s for s, _ in protected]
    compiled = _compiled(tuple(extra))
    found = _matches(text, compiled, protected, starts)
    found += _pem_tails(text, protected, starts)
    if "\n" in text:
        found += _split_keys(text, compiled, protected, starts, found)
    if "-----BEGIN" in text:
        # The body of a certificate or a public key looks like a private key's and is not
        # one: what only its shape gave away is left alone inside such a block.
        public = [m.span() for m in _PUBLIC_BLOCK.finditer(text)]
        if public:
            found = [
                f
                for f in found
                if f[2] not in _BY_SHAPE or not any(a <= f[0] and f[1] <= b for a, b in public)
            ]
    return found


_BY_SHAPE = frozenset({"key material line", "aws secret key (bare)"})
_PUBLIC_BLOCK = _compile(
    r"-----BEGIN (?![A-Z0-9 ]{0,40}PRIVATE)[A-Z0-9 ]{1,40}-----"
    r"(?:[^-]|-(?!----)){0,16384}+-----END [A-Z0-9 ]{1,40}-----"
)


# --- a private key's body seen from its END line -----------------------------------------
_PEM_END = _compile(r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_BODY_LINE = _compile(r"[ \t>]{0,8}([A-Za-z0-9+/=]{1,256})[ \t]*\r?")
_PEM_HEADER = _compile(r"[ \t>]{0,8}(?:Proc-Type|DEK-Info|Comment):.{0,256}\r?|[ \t>]{0,8}\r?")
_MAX_BODY_LINES = 1000


def _pem_tails(
    text: str, protected: list[tuple[int, int]], starts: list[int]
) -> list[tuple[int, int, str]]:
    """The body of a private key whose END line is there and whose BEGIN line is not (a
    recall snippet that starts inside the block): the base64 lines just above END."""
    found = []
    for m in _PEM_END.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text[line_start : m.start()].strip(" \t>"):
            continue  # END in the middle of a line: not a key's last line
        first = last = None
        end = line_start - 1  # the newline that ends the line above
        for _ in range(_MAX_BODY_LINES):
            if end < 0:
                break
            begin = text.rfind("\n", 0, end) + 1
            line = text[begin:end]
            body = _BODY_LINE.fullmatch(line)
            if body is None:
                break  # a BEGIN line (the block family has it whole), a sentence, a list item
            if last is None:
                last = begin + body.end(1)
            first = begin + body.start(1)
            end = begin - 1
        if (
            first is not None
            and last is not None
            and first < last
            and not _overlaps(protected, starts, first, last)
        ):
            found.append((first, last, "private key"))
    return found


# --- a key split over two lines ---------------------------------------------------------
# The line break between two pieces of one token: a run of token characters ends a line and
# another begins the next (after an indent or a quote mark).
_TOKEN_CHAR = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=.-")
_BREAK = _compile(r"(?<=[A-Za-z0-9_+/=.-]{6})\r?\n[ \t>]{0,8}(?=[A-Za-z0-9_+/.-]{6})")
_WORD = _compile(r"[A-Z]?[a-z]+[.]?|[A-Z]+[.]?")  # "Meanwhile", "the", "README"
_JOINING = frozenset("-_/+.")  # a token that ends a line on one of these goes on
_REACH = 512  # how far a piece (and the label before it) may reach from the break


def _run(text: str, at: int, step: int) -> str:
    """The token characters from `at` on, forwards (step 1) or backwards (step -1)."""
    out = []
    i = at
    while 0 <= i < len(text) and text[i] in _TOKEN_CHAR and len(out) < _REACH:
        out.append(text[i])
        i += step
    return "".join(out if step > 0 else reversed(out))


def _random_looking(token: str) -> bool:
    """16 characters or more of all three kinds (lower, upper, digit) that change kind
    almost every other character, as drawn at random (about 0.6 of the time), where an
    identifier changes once a word (0.3)."""
    kinds = [c.islower() + 2 * c.isupper() + 3 * c.isdigit() for c in token]
    if len(token) < 16 or not {1, 2, 3} <= set(kinds):
        return False
    changes = sum(kinds[i] != kinds[i + 1] for i in range(len(kinds) - 1))
    return changes >= 0.45 * (len(token) - 1)


def _mixed(token: str) -> bool:
    """Generated-looking: two of lower case, upper case and digits."""
    kinds = (
        any(c.islower() for c in token),
        any(c.isupper() for c in token),
        any(c.isdigit() for c in token),
    )
    return sum(kinds) >= 2


def _split_keys(
    text: str,
    compiled: _Compiled,
    protected: list[tuple[int, int]],
    starts: list[int],
    found: list[tuple[int, int, str]],
) -> list[tuple[int, int, str]]:
    """Secrets that only the two lines read as one show: the break between the halves is
    left out, the families run again around it, and a match that crosses it is kept, as a
    piece on each line, unless part of it was a secret already (then the key was whole)."""
    breaks = []
    for m in _BREAK.finditer(text):
        before, after = _run(text, m.start() - 1, -1), _run(text, m.end(), 1)
        if "=" in after.rstrip("=.") or _WORD.fullmatch(after):
            continue  # the next line assigns (NAME=value) or starts with a word: not a tail
        if len(before) + len(after) >= 16 and _mixed(before + after):
            breaks.append(m.span())
    if not breaks:
        return []
    # Regions around the breaks, from the line before to the line after, merged.
    regions: list[list] = []
    for a, b in breaks:
        lo = max(text.rfind("\n", 0, a) + 1, a - _REACH)
        hi = text.find("\n", b)
        hi = min(len(text) if hi < 0 else hi, b + _REACH)
        if regions and lo <= regions[-1][1]:
            regions[-1][1] = max(regions[-1][1], hi)
            regions[-1][2].append((a, b))
        else:
            regions.append([lo, hi, [(a, b)]])
    by_family: dict[str, list[tuple[int, int]]] = {}
    for x, y, name in found:
        by_family.setdefault(name, []).append((x, y))
    for spans in by_family.values():
        spans.sort()
    family_starts = {name: [x for x, _ in spans] for name, spans in by_family.items()}
    out = []
    for lo, hi, cuts in regions:
        pieces, joins, at = [], [], lo  # pieces: (joined start, original start, length)
        length = 0
        for a, b in cuts:
            pieces.append((length, at, a - at))
            length += a - at
            joins.append(length)
            at = b
        pieces.append((length, at, hi - at))
        piece_starts = [j for j, _, _ in pieces]
        joined = "".join(text[o : o + n] for _, o, n in pieces)
        for s, e, name in _matches(joined, compiled, [], []):
            k = bisect_right(joins, s)
            if k == len(joins) or joins[k] >= e:
                continue  # on one line: the first scan saw it
            spans = []
            for j, o, n in pieces[bisect_right(piece_starts, s) - 1 :]:
                if j >= e:
                    break
                x, y = o + max(s, j) - j, o + min(e, j + n) - j
                if x < y:
                    spans.append((x, y))
            same, same_starts = by_family.get(name, []), family_starts.get(name, [])
            # A first half long enough to pass as a whole key still goes on when the next
            # line is key material itself (not "DeployedToProd2026").
            goes_on = _random_looking(text[spans[-1][0] : spans[-1][1]])
            if any(_overlaps(same, same_starts, x, y) for x, y in spans[1:]) or (
                text[spans[0][1] - 1] not in _JOINING
                and not goes_on
                and _overlaps(same, same_starts, *spans[0])
            ):
                continue  # that kind of secret was found whole on one line: not cut in two
            if any(_overlaps(protected, starts, x, y) for x, y in spans):
                continue
            out += [(x, y, name) for x, y in spans]
    return out


def redact(text: str, extra: Sequence[str] = ()) -> tuple[str, int]:
    """The text with every secret replaced by [REDACTED], and how many were replaced.

    `extra` are more regular expressions (validated by the config); a match of one is
    replaced whole, or only its group named `secret` if it has one. Redacted again until
    nothing more is found: a key glued to one just hidden (`-----sk-…`) stands alone once
    its neighbour is [REDACTED], and a second call must change nothing."""
    total = 0
    for _ in range(4):
        text, n = _redact_once(text, extra)
        total += n
        if not n:
            break
    return text, total


def _redact_once(text: str, extra: Sequence[str]) -> tuple[str, int]:
    spans = sorted((s, e) for s, e, _ in _scan(text, extra))
    if not spans:
        return text, 0
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, at = [], 0
    for start, end in merged:
        out += (text[at:start], REDACTED)
        at = end
    out.append(text[at:])
    return "".join(out), len(merged)


def scan_lines(
    text: str, first: int = 1, last: int | None = None, extra: Sequence[str] = ()
) -> list[tuple[str, list[str]]]:
    """Lines first..last (1-based; all by default) of `text`, each redacted as part of the
    whole, with the families of secret that touch it: a secret only the whole shows (the
    middle lines of a PEM key whose BEGIN line is not asked for, half of a key split over
    two lines) is hidden, and named, in each line that holds part of it."""
    lines = text.split("\n")
    last = len(lines) if last is None else min(last, len(lines))
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    cuts: dict[int, list[tuple[int, int]]] = {}
    names: dict[int, set[str]] = {}
    for s, e, name in _scan(text, extra):
        for n in range(max(first - 1, bisect_right(starts, s) - 1), min(last, len(lines))):
            lo = starts[n]
            if lo >= e:
                break
            a, b = max(s, lo), min(e, lo + len(lines[n]))
            if a < b:
                cuts.setdefault(n, []).append((a - lo, b - lo))
                names.setdefault(n, set()).add(name)
    order = {name: i for i, (name, _) in enumerate((*FAMILIES, (CUSTOM, "")))}
    out = []
    for n in range(first - 1, last):
        line = lines[n]
        if n in cuts:
            pieces, at = [], 0
            for a, b in sorted(cuts[n]):
                if a >= at:
                    pieces += (line[at:a], REDACTED)
                    at = b
                else:
                    at = max(at, b)
            line = "".join(pieces) + line[at:]
        line, more = redact(line.removesuffix("\r"), extra)
        found = names.get(n, set())
        if more:
            found |= set(find(lines[n], extra))
        out.append((line, sorted(found, key=order.__getitem__)))
    return out


def redact_lines(text: str, first: int, last: int, extra: Sequence[str] = ()) -> str:
    """Lines first..last (1-based) of `text`, redacted as part of the whole (scan_lines)."""
    return "\n".join(line for line, _ in scan_lines(text, first, last, extra))


def redact_excerpt(
    lines: Sequence[str], first: int, last: int, extra: Sequence[str] = ()
) -> list[str]:
    """Lines first..last (1-based) of a file's `lines`, redacted as `redact_lines` would
    with the whole file, reading only as far around them as a secret over several lines
    reaches: the line on each side (a key split in two), and a key's base64 body up to its
    BEGIN and END lines (a recall snippet that starts or ends inside the block)."""
    lo, hi = max(0, first - 2), min(len(lines), last + 1)
    for _ in range(_MAX_BODY_LINES):
        if lo == 0 or not _BODY_LINE.fullmatch(lines[lo]):
            break
        lo -= 1
    for _ in range(_MAX_BODY_LINES):
        if hi >= len(lines) or not _BODY_LINE.fullmatch(lines[hi - 1]):
            break
        hi += 1
    shown = redact_lines("\n".join(lines[lo:hi]), first - lo, last - lo, extra)
    return shown.split("\n")


def has_secret(text: str, extra: Sequence[str] = ()) -> bool:
    return bool(_scan(text, extra))


def find(text: str, extra: Sequence[str] = ()) -> list[str]:
    """The names of the families of secret in the text (never the secrets themselves), in
    the order of FAMILIES, each once; `extra` patterns are named "custom pattern"."""
    names = {name for _, _, name in _scan(text, extra)}
    order = [name for name, _ in FAMILIES] + [CUSTOM]
    return [name for name in order if name in names]
