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

import re
from bisect import bisect_left
from collections.abc import Sequence
from functools import lru_cache

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
    r"(?:[A-Za-z]{0,12}(?:password|passwd)|passphrase|pwd|secret|secret[_-]?key|token"
    r"|api[_-]?key|private[_-]?key|access[_-]?key)"  # PGPASSWORD, MYSQL_PASSWORD
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
    r"(?:密码|密碼|口令|密钥|密鑰|令牌|验证码|驗證碼)[ \t]{0,3}(?:是|为|為|：|:|=)?[ \t]{0,3}"
    + _OPEN_QUOTE
    + _VALUE
)

_PEM = (
    r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    # The body stops at the next five dashes (END, or the BEGIN of another key).
    r"(?:(?:[^-]|-(?!----)){0,16384}+-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    # A key pasted without its END line: the base64 lines that follow.
    r"|(?:\r?\n[ \t>]{0,8}+[A-Za-z0-9+/=]{1,256}+){0,1000}+)"
)
_AWS_SECRET = (
    r"(?<![A-Za-z0-9])(?i:aws[_. -]?secret[_. -]?(?:access[_. -]?)?key)[\"'`]?\*{0,2}"
    r"[ \t]{0,4}(?:=>|:=|[=:：])[ \t]{0,4}\*{0,2}[\"'`]?"
    r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)
_URL_PASSWORD = (
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}+://[^\s:/?#@\[\]\"'<>]{0,256}+:"
    r"(?!\[REDACTED\]@|\*+@|\$\{?[A-Za-z_]|(?i:password|passwd|pass|pwd|secret|pw)@)"
    r"(?P<secret>[^\s/?@\"'<>]{1,256}+)@(?=[A-Za-z0-9\[_.-])"  # a "#" is a password's too
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
    r"(?i:seed[ \t]?phrase|recovery[ \t]?(?:phrase|words)|mnemonic(?:[ \t]?phrase)?|"
    r"wallet[ \t]?words|secret[ \t]?recovery[ \t]?phrase)|助记词|助記詞"
)
_SEED = (
    r"(?:" + _SEED_PHRASE + r")[^\n:：]{0,24}?[:：是为]?[ \t]{0,4}[\"'“]?"
    r"(?P<secret>(?-i:[a-z]{3,8}(?:[ \t]{1,2}[a-z]{3,8}){11,23}))(?![a-z])"
)
_AZURE = r"(?i:\b(?:AccountKey|SharedAccessKey))=(?P<secret>[A-Za-z0-9+/]{20,}+={0,2})"

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
    ("wallet seed phrase", _SEED),
    ("aws secret key (bare)", _AWS_BARE),
    ("generated value assignment", _ENV_ASSIGNMENT),
    ("token header", _TOKEN_HEADER),
    ("curl user password", _CURL_USER),
    ("bearer token", _BEARER),
    ("basic auth header", _BASIC),
    ("url password", _URL_PASSWORD),
    ("secret assignment", _LABELLED),
    ("secret phrase (zh)", _LABELLED_ZH),
)

_Compiled = tuple[tuple[str, re.Pattern[str], tuple[int, ...]], ...]


def _prepare(name: str, pattern: re.Pattern[str]) -> tuple[str, re.Pattern[str], tuple[int, ...]]:
    groups = tuple(i for g, i in pattern.groupindex.items() if g.startswith("secret"))
    return name, pattern, tuple(sorted(groups))


_BUILTIN: _Compiled = tuple(_prepare(name, re.compile(src)) for name, src in FAMILIES)


@lru_cache(maxsize=32)
def _compiled(extra: tuple[str, ...]) -> _Compiled:
    return _BUILTIN + tuple(_prepare(CUSTOM, re.compile(src)) for src in extra)


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


def _scan(text: str, extra: Sequence[str]) -> list[tuple[int, int, str]]:
    """(start, end, family) of each secret, in the order found (family by family)."""
    protected = _protected(text)
    starts = [s for s, _ in protected]
    found: list[tuple[int, int, str]] = []
    for name, pattern, groups in _compiled(tuple(extra)):
        for m in pattern.finditer(text):
            start, end = next((m.span(g) for g in groups if m.start(g) >= 0), m.span())
            if start < end and not _overlaps(protected, starts, start, end):
                found.append((start, end, name))
    return found


def redact(text: str, extra: Sequence[str] = ()) -> tuple[str, int]:
    """The text with every secret replaced by [REDACTED], and how many were replaced.

    `extra` are more regular expressions (validated by the config); a match of one is
    replaced whole, or only its group named `secret` if it has one."""
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


def redact_lines(text: str, first: int, last: int, extra: Sequence[str] = ()) -> str:
    """Lines first..last (1-based) of `text`, redacted as part of the whole: a secret that
    only the whole shows (the middle lines of a PEM key, whose BEGIN line is not asked for)
    is hidden in the lines that hold part of it."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    spans = [(s, e) for s, e, _ in _scan(text, extra)]
    out = []
    for n in range(first - 1, min(last, len(lines))):
        lo, hi = starts[n], starts[n] + len(lines[n])
        line = lines[n]
        cuts = sorted((max(s, lo) - lo, min(e, hi) - lo) for s, e in spans if s < hi and e > lo)
        if cuts:
            pieces, at = [], 0
            for a, b in cuts:
                if a >= at:
                    pieces += (line[at:a], REDACTED)
                    at = b
                else:
                    at = max(at, b)
            line = "".join(pieces) + line[at:]
        out.append(redact(line.removesuffix("\r"), extra)[0])
    return "\n".join(out)


def has_secret(text: str, extra: Sequence[str] = ()) -> bool:
    return bool(_scan(text, extra))


def find(text: str, extra: Sequence[str] = ()) -> list[str]:
    """The names of the families of secret in the text (never the secrets themselves), in
    the order of FAMILIES, each once; `extra` patterns are named "custom pattern"."""
    names = {name for _, _, name in _scan(text, extra)}
    order = [name for name, _ in FAMILIES] + [CUSTOM]
    return [name for name in order if name in names]
