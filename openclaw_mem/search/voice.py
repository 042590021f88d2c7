"""What an entry says in its writer's own voice, for the rules that read facts out of it
(the offline consolidation, what supersedes what): a person who pastes a customer's ticket,
forwards an email or shows a stack trace is not saying "I live in Leeds" or "I'm allergic
to nulls" of themselves.

Left out: a quoted block (`> …`), a fenced code block, a quotation of two words or more
("…", “…”, 「…」) after "said", "wrote" or a colon, and every line after one that
introduces someone else's words ("the customer wrote:", "Here's the email from Bob:",
"---------- Forwarded message", 他说：).
The log keeps all of it verbatim; recall still finds it by its words.
"""

from __future__ import annotations

from ..text import IGNORECASE, MULTILINE, Lazy

_FENCE = Lazy(r"^[ \t]{0,3}(?:```|~~~)")
_QUOTED_LINE = Lazy(r"^[ \t]{0,3}>")
_INTRO = Lazy(
    r"\b(?:wrote|writes|said|says|asked|asks|replied|replies|posted|commented|reported)"
    r"(?:\s+(?:in|on|to)\s+[^\n:]{1,60})?\s*:\s*$"
    r"|\b(?:here(?:'s|’s|\s+is|\s+are)|this\s+is|below\s+is|pasting|pasted|forwarding"
    r"|forwarded|copying|quoting)\b[^\n]{0,80}?\b(?:e-?mails?|mail|message|ticket|comment|post"
    r"|reply|text|letter|review|transcript|chat|log|note|thread|slack|issue|persona)s?\b"
    r"[^\n]{0,60}:\s*$"
    r"|^\s*-{2,}\s*(?:forwarded|original)\s+message"
    r"|(?:写道|说|问|回复|留言|邮件如下|原文如下|原话是|转发)[:：]\s*$",
    IGNORECASE | MULTILINE,
)
# A quotation someone is reported to have said ("she said: "…"", 他说：「…」); a title in
# quotes ("reading "The Lean Startup"") is the writer's own words.
_QUOTATION = Lazy(
    r"(?P<intro>\b(?:wrote|writes|said|says|asked|asks|replied|replies|told\s+\w+)\s*[:,]?\s*"
    r"|[:：]\s*|(?:说|写道|问)[:：]?\s*)"
    r"(?:\"[^\"\n]*\s[^\"\n]*\"|“[^”\n]*\s[^”\n]*”|「[^」\n]*」|『[^』\n]*』)",
    IGNORECASE,
)


def own_voice(text: str) -> str:
    """`text` without what it quotes of others (the module says what that is); the lines
    kept as they were."""
    if not any(mark in text for mark in ("\n", ">", '"', "“", "「", "『", "`", "~~~")):
        return text  # one plain line: nothing to take out (the usual entry, no regex run)
    kept: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or _QUOTED_LINE.match(line):
            continue
        line = _QUOTATION.sub(lambda m: m["intro"], line)
        if _INTRO.search(line):
            kept.append(line)
            break  # what follows is the words it introduced
        kept.append(line)
    return "\n".join(kept)
