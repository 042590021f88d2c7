"""JSON5 as OpenClaw's `openclaw.json` is written: comments, unquoted keys, single-quoted
strings and trailing commas, read by turning them into JSON. Enough to read a setting out
of the file, not a validator: what json cannot read after that is an error for the caller.

A regular expression over the raw text took the first `workspace: "…"` anywhere, a
commented-out line or another agent's included."""

from __future__ import annotations

import json


def loads(text: str) -> object:
    """The value a JSON5 text holds; ValueError when it holds none."""
    return json.loads(to_json(text))


def to_json(text: str) -> str:
    out: list[str] = []
    comma = ""  # a comma held back until what follows shows it is not a trailing one
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            end = _string_end(text, i)
            body = text[i + 1 : end - 1]
            if c == "'":  # 'it\'s "x"' -> "it's \"x\""
                body = body.replace("\\'", "'").replace('"', '\\"').replace('\\\\"', '\\"')
            out.append(comma + '"' + body + '"')
            comma, i = "", end
        elif text.startswith("//", i):
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
        elif c == ",":
            out.append(comma)
            comma, i = ",", i + 1
        elif c in " \t\r\n":
            out.append(c)
            i += 1
        elif c in "}]":
            out.append(c)
            comma, i = "", i + 1
        elif c.isalpha() or c in "_$":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_$"):
                j += 1
            word = text[i:j]
            k = j
            while k < n and text[k] in " \t\r\n":
                k += 1
            key = k < n and text[k] == ":"
            out.append(comma + (f'"{word}"' if key else word))
            comma, i = "", j
        else:
            out.append(comma + c)
            comma, i = "", i + 1
    return "".join(out) + comma


def _string_end(text: str, start: int) -> int:
    """Where the string that opens at `start` ends (past its closing quote)."""
    quote, i = text[start], start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    raise ValueError("a string is not closed")
