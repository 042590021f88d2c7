"""Whether a text could hold a secret at all, decided without compiling the secret families:
`mem log` runs on every agent turn and warns when an entry holds a secret, and compiling
secrets.py's patterns costs about as much as the rest of the append.

Sound, not exact: every built-in family (secrets.FAMILIES) either needs one of `WORDS`
(its label: password, token, 密码, cvv, card, ://, ...) or matches a run of 15 or more
printable ASCII characters without a space, a line break allowed (every vendor key, JWT,
base64 line and generated value is at least that long), or 13 digits or more in a row (a
card number found by its shape). tests/test_secret_gate.py holds it to every
secret in the fixtures and to each family's gate; a text it lets through is scanned for real.
"""

from __future__ import annotations

from .gating import fold

# What a labelled family cannot match without (case-insensitive, as re folds it).
WORDS = (
    "pass", "pw", "secret", "token", "key", "seed", "phrase", "recovery", "backup",
    "mnemonic", "wallet", "code", "auth", "bearer", "mysql", "mariadb", "redis", "-u",
    "sudo", "contrase", "clave", "kennwort", "mdp", "schl", "2fa", "totp", "mfa", "otp",
    "pin", "login", "cred", "cvv", "cvc", "cid", "csc", "security", "iban", "://",
    "card", "ssn", "卡号", "卡號", "银行卡", "銀行卡", "信用卡", "借记卡", "借記卡",
    "身份证", "身份證",
    "密码", "密碼", "口令", "密钥", "密鑰", "秘钥", "祕鑰", "授权码", "授權碼", "令牌",
    "验证码", "驗證碼", "助记词", "助記詞",
    "种子词", "種子詞", "恢复码", "恢復碼", "备用码", "備用碼", "安全码", "安全碼",
)  # fmt: skip
RUN = 15  # the shortest unlabelled secret: `xoxb-` and ten characters
CARD_DIGITS = 13  # the fewest digits of a card number found by its shape (no label)
_NOT_DIGITS = str.maketrans("", "", "0123456789")


def may_hold_secret(text: str) -> bool:
    """False only for a text no built-in family can match (custom patterns aside). Without
    `re`: a plain note's `mem log` imports no regular expression at all."""
    folded = fold(text)
    if any(word in folded for word in WORDS):
        return True
    if len(text) - len(text.translate(_NOT_DIGITS)) >= CARD_DIGITS and _digit_run(text):
        return True
    # Lines joined as a key pasted in pieces would be (secrets._BREAK), then every run of
    # printable ASCII between spaces and other characters measured.
    joined = "".join(line.lstrip(" \t>") for line in text.split("\n"))
    for token in joined.split():
        if len(token) < RUN:
            continue
        if token.isascii():
            return True
        run = 0
        for char in token:
            run = run + 1 if "!" <= char <= "~" else 0
            if run >= RUN:
                return True
    return False


def _digit_run(text: str) -> bool:
    """Whether the text holds CARD_DIGITS digits or more in a row, one space or dash
    allowed between two of them (4111 1111 1111 1111)."""
    run, gap = 0, False
    for char in text:
        if "0" <= char <= "9":
            run, gap = run + 1, False
            if run >= CARD_DIGITS:
                return True
        elif char in " -" and run and not gap:
            gap = True
        else:
            run, gap = 0, False
    return False
