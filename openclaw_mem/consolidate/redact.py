"""Secrets never leave the machine and never reach MEMORY.md, USER.md or AGENTS.md."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

REDACTED = "[REDACTED]"

# A value after a label: `password: hunter2`, `密码是 abc123`, `api_key=...`.
_LABELLED = (
    r"(?i)(?P<label>\b(?:password|passwd|passphrase|pwd|secret|token|api[_ -]?key|access[_ -]?key)"
    r"|密码|口令|密钥|令牌)(?P<sep>\s*(?:is|was|=|:|：|是|为)\s*)(?P<value>[^\s,，;；。]{4,})"
)
PATTERNS: tuple[str, ...] = (
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----",
    r"\bsk-[A-Za-z0-9_-]{16,}",  # OpenAI, Anthropic (sk-ant-), DeepSeek
    r"\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}",
    r"\bAKIA[0-9A-Z]{16}\b",
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}",
    r"\bAIza[0-9A-Za-z_-]{35}",
    r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",  # JWT
    r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*",
)


@lru_cache(maxsize=32)
def _compiled(extra: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in (*PATTERNS, *extra))


_LABELLED_RE = re.compile(_LABELLED)


def redact(text: str, extra: Sequence[str] = ()) -> tuple[str, int]:
    """The text with secrets replaced by [REDACTED], and how many were replaced."""
    count = 0

    def labelled(m: re.Match[str]) -> str:
        nonlocal count
        if m["value"] == REDACTED:
            return m[0]
        count += 1
        return f"{m['label']}{m['sep']}{REDACTED}"

    for pattern in _compiled(tuple(extra)):
        text, n = pattern.subn(REDACTED, text)
        count += n
    text = _LABELLED_RE.sub(labelled, text)
    return text, count


def has_secret(text: str, extra: Sequence[str] = ()) -> bool:
    return redact(text, extra)[1] > 0
