"""Plain-text helpers every layer shares: which characters are CJK, how many LLM tokens a
text is about, and counted nouns that read right ("1 entry", "2 entries")."""

from __future__ import annotations

import re

# Han (BMP and supplementary), kana, Hangul: scripts written without spaces between words.
CJK = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\uf900-\ufaff\U00020000-\U0003134f"
)
CJK_RE = re.compile(f"[{CJK}]")


def cjk_share(text: str) -> float:
    """The share of a text's letters that are CJK: 0 for English, 1 for Chinese, between
    for a mix (0 without letters)."""
    letters = sum(c.isalpha() for c in text)
    cjk = sum(c.isalpha() for c in CJK_RE.findall(text))  # "・", "゛" are no letters
    return cjk / letters if letters else 0.0


def estimate_tokens(text: str) -> int:
    """LLM tokens, roughly: a CJK character is about one token, other text about four
    characters a token. Good enough to size chunks, prompts and budgets."""
    cjk = len(CJK_RE.findall(text))
    return cjk + (len(text) - cjk + 3) // 4


_IRREGULAR = {"entry": "entries", "batch": "batches", "day file": "day files"}


def article(noun: str) -> str:
    """'an openai key', 'a github token': by the first letter, enough for the names we print."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def plural(n: int, noun: str) -> str:
    """`1 entry`, `3 entries`, `0 lines`."""
    if n == 1:
        return f"{n} {noun}"
    if noun in _IRREGULAR:
        return f"{n} {_IRREGULAR[noun]}"
    if noun.endswith(("s", "x", "ch", "sh")):
        return f"{n} {noun}es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return f"{n} {noun[:-1]}ies"
    return f"{n} {noun}s"


def camel_keys(data):
    """JSON for people and programs in one key style, OpenClaw's camelCase (`startLine`):
    every snake_case key of nested dicts (`dry_run`, `already_there`) becomes camelCase.
    Keys that are data, not names (`recall.mmr_threshold`, a path, a date), are left alone:
    only keys of lower-case words joined by `_` change."""
    if isinstance(data, dict):
        return {_camel(k) if isinstance(k, str) else k: camel_keys(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [camel_keys(v) for v in data]
    return data


def _camel(key: str) -> str:
    parts = key.split("_")
    if len(parts) < 2 or not all(p and p.isascii() and p.isalnum() and p.islower() for p in parts):
        return key
    return parts[0] + "".join(p.title() for p in parts[1:])
