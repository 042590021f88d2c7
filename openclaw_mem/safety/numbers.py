"""Secrets that are numbers: a payment card (with its CVV, after its label, or by its shape),
an IBAN, a PIN after its label, identity numbers after theirs; and the checks that confirm
what a regex cannot tell (Luhn, ISO 13616's mod-97). Patterns only (secrets.py compiles and
applies them); kept apart so that secrets.py stays a size one can read."""

from __future__ import annotations

# A card number (13 to 19 digits, spaces or dashes between) with its CVV within a line: the
# number must pass the Luhn check (`CHECKS`), so an order number with a "CVV" near is not.
CARD_WITH_CVV = (
    r"(?<![0-9])(?<![0-9][ -])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])[^\n]{0,40}?"
    r"(?i:cvv2?|cvc2?|cid|csc|security[ \t]code|安全码|安全碼)[ \t:：#=]{0,4}[0-9]{3,4}(?![0-9])"
)
# An IBAN (country, check digits, 12 to 30 letters and digits): written whole, or in groups
# of four after its label (secret_hint.py sees one or the other). It must pass ISO 13616's
# mod-97 check (`CHECKS`), so a product code of that shape is not one.
IBAN = (
    r"(?<![A-Za-z0-9])(?:(?P<secret>[A-Z]{2}[0-9]{2}[A-Z0-9]{12,30})"
    r"|(?i:iban)[ \t:：#=]{0,4}(?P<secret_grouped>[A-Z]{2}[0-9]{2}(?:[ ]?[A-Z0-9]{4}){3,7}"
    r"(?:[ ]?[A-Z0-9]{1,3})?))(?![A-Za-z0-9])"
)
# A PIN after its label: "my PIN is 4711", "card pin: 0000", "PIN码 8264", "PIN 1234" (a
# lower-case "pin 2025 goals" with only a space between is the verb).
PIN = (
    r"(?i)(?<![A-Za-z])(?:pin(?:[ \t-]?code)?(?:码|碼)?(?:[ \t]{1,4}(?:is|was)[ \t]{1,4}"
    r"|[ \t]{0,4}[:：=是][ \t]{0,4})|(?-i:PIN)(?:[ \t-]?(?i:code)|码|碼)?[ \t]{1,4})"
    r"(?P<secret>[0-9]{4,8})(?![0-9.:/-])"
)

# A payment card number: right after its label (12 to 19 digits), or written as cards are,
# in groups (4-4-4-4, 4-4-4-4-3, Amex's 4-6-5) or whole, with a card network's first
# digits; either way it must pass the Luhn check (`CHECKS`): "credit card charge: order
# 112-3456789-1234567" or 银行卡交易流水号 is no card.
CARD_NUMBER = (
    r"(?i)(?:(?:card[ \t]?(?:number|num|no\.?|#)|(?:credit|debit|bank)[ \t]card"
    r"|卡号|卡號|银行卡号?|銀行卡號?|信用卡号?|信用卡號?|借记卡号?|借記卡號?)"
    r"(?:[ \t]{1,4}(?:is|was)[ \t]{1,4}|[ \t]{0,4}(?:[:：#=]|是|为|為)?[ \t]{0,4})"
    r"(?P<secret_labelled>(?<![0-9])[0-9](?:[ -]?[0-9]){11,18})(?![0-9])"
    r"|(?<![0-9])(?<![0-9][ -])(?P<secret>(?:4[0-9]{3}|5[1-5][0-9]{2}|2[2-7][0-9]{2}"
    r"|6(?:011|5[0-9]{2}|4[4-9][0-9]|2[0-9]{2})|35[0-9]{2})"
    r"(?:([ -])[0-9]{4}\3[0-9]{4}\3[0-9]{4}(?:\3[0-9]{3})?|[0-9]{12})"
    r"|3[47][0-9]{2}(?:([ -])[0-9]{6}\4[0-9]{5}|[0-9]{11}))(?![0-9]|[ -][0-9]))"
)
# National identity numbers after their label: a US social security number, a Chinese
# resident identity card number (18 characters, the last may be X).
NATIONAL_ID = (
    r"(?i)(?:(?<![A-Za-z])(?:ssn|social[ \t]security(?:[ \t](?:number|no\.?|#))?)"
    r"(?:[ \t]{1,4}(?:is|was)[ \t]{1,4}|[ \t]{0,4}[:：#=][ \t]{0,4}|[ \t]{1,4})"
    r"(?P<secret>[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4})"
    r"|(?:身份证|身份證)(?:号码|號碼|号|號)?[ \t]{0,3}(?:是|为|為|：|:)?[ \t]{0,3}"
    r"(?P<secret_zh>[0-9]{17}[0-9Xx]))(?![0-9])"
)


def luhn(match: str) -> bool:
    """Whether the card number a match starts with passes the Luhn check."""
    digits = []
    for c in match:
        if c.isdigit():
            digits.append(int(c))
        elif c not in " -":
            break
    total = sum(
        d if i % 2 == 0 else (d * 2 - 9 if d > 4 else d * 2) for i, d in enumerate(reversed(digits))
    )
    return 13 <= len(digits) <= 19 and total % 10 == 0


def iban(match: str) -> bool:
    """ISO 13616: the account moved behind its country and check digits, letters as 10-35,
    is 1 modulo 97."""
    code = "".join(match.split())
    if code[:4].upper() == "IBAN":  # the label the grouped form is written after
        code = code[4:].lstrip(":：#=")
    if not 15 <= len(code) <= 34 or not code.isalnum() or not code.isascii():
        return False
    moved = code[4:] + code[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


# Families whose matches a check confirms (a shape a regex cannot tell on its own).
CHECKS = {"payment card with cvv": luhn, "iban": iban, "payment card number": luhn}
