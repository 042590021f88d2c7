"""The `save_memory` tool: a strict schema to send, and a tolerant reader for what comes back.

Strict writer: the schema is valid in OpenAI's strict mode (`strict: true`): every property
required, optional ones nullable, no unknown keys, no keywords strict mode lacks.

Tolerant reader: real models answer in many shapes. What a careful person would accept is
normalised before validation: null or "" for a field that does not apply, numbers given as
strings, `importance` on a 1-10 or 0-100 scale, enum values in another case (or a plain
synonym: "append" for add, "Preferences" for preference), the arguments as a JSON string, a
dict, a JSON string inside a string, a fenced ```json block or JSON after some prose, a
single edit instead of a list, a nested {"value": ...} where a string was asked. What stays
ambiguous is rejected, one edit at a time: a bad edit is skipped with its reason and the
rest apply. The whole answer is refused only when nothing parses or the history entry is
unusable.

Shapes small models send, read the same way: the call written as text (fenced or bare, with
or without a {"name", "arguments"} wrapper), JSON that needs repair (`[E4]`, a trailing comma,
doubled braces: json-repair, only when plain json fails), a file named "USER.md" or copied
from a placeholder ("MEMORY|USER|AGENTS": the file is then the one the edit's type belongs
to), ids as 3, "E3" or E3, "null" for null, `update` with no target (an `add`).

Provenance: the prompt numbers the log entries (E1, E2, ...); every edit names the entries
it came from (`sources`). Numbers outside the batch are dropped here; whether the entries
cited say what the edit says is checked later (consolidate/checks.py), against the batch.
`skip` names the entries the model found nothing durable in: only those, and entries an
accepted edit cites, count as consolidated.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..errors import UnusableAnswer
from ..format.markdown import HISTORY_STAMP_RE, history_stamp
from .proposal import Edit, Proposal, Rejected

FILES = ("MEMORY", "USER", "AGENTS")
OPS = ("add", "update", "deprecate", "delete")
TYPES = ("fact", "preference", "event", "identity", "goal", "rule")
TOOL_NAME = "save_memory"

_EDIT_PROPS: dict[str, Any] = {
    "file": {"type": "string", "enum": list(FILES), "description": "Which file."},
    "op": {"type": "string", "enum": list(OPS)},
    "section": {
        "type": ["string", "null"],
        "description": "Section heading for add, e.g. Preferences; null otherwise.",
    },
    "text": {
        "type": ["string", "null"],
        "description": "The new line, one sentence, no bullet; null for delete.",
    },
    "target": {
        "type": ["string", "null"],
        "description": "For update/deprecate/delete: the existing line, copied exactly; "
        "null for add.",
    },
    "type": {"type": "string", "enum": list(TYPES)},
    "importance": {"type": "number", "description": "0 to 1: how much it will matter later."},
    "confidence": {
        "type": "number",
        "description": "0 to 1: how sure you are it was said rather than guessed.",
    },
    "sources": {
        "type": "array",
        "items": {"type": "integer"},
        "description": "The numbers of the log entries it comes from (E3 is 3).",
    },
}
_SKIP_DESCRIPTION = (
    "Numbers of the entries that hold nothing worth keeping (greetings, thanks, questions, "
    "small talk); every entry is either cited by an edit or listed here."
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "history_entry": {
            "type": "string",
            "description": "One paragraph of 2-5 sentences starting with [YYYY-MM-DD HH:MM] (the "
            "time of the last entry), detailed enough to find later with grep: names, numbers, "
            "decisions.",
        },
        "skip": {"type": "array", "items": {"type": "integer"}, "description": _SKIP_DESCRIPTION},
        "edits": {
            "type": "array",
            "description": "Changes to MEMORY.md, USER.md and AGENTS.md; empty when nothing "
            "durable was said.",
            "items": {
                "type": "object",
                "properties": _EDIT_PROPS,
                "required": list(_EDIT_PROPS),
                "additionalProperties": False,
            },
        },
    },
    "required": ["history_entry", "edits", "skip"],
    "additionalProperties": False,
}

TOOL = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": "Save what is new in the conversation to long-term memory.",
        "strict": True,
        "parameters": SCHEMA,
    },
}

# ----------------------------------------------------------------- reading


def _json_candidates(text: str) -> list[str]:
    """Places a JSON object may hide in a model's text: a fenced block, or the outermost
    braces after some prose."""
    out = [m[1] for m in re.finditer(r"```(?:json|JSON)?\s*\n?(.*?)```", text, re.S)]
    start = text.find("{")
    end = text.rfind("}")
    if 0 <= start < end:
        out.append(text[start : end + 1])
    return out


def decode_arguments(raw: object) -> dict:
    """The arguments as a dict, from a dict, a JSON string, a JSON string inside a string,
    a fenced block or JSON after prose; UnusableAnswer when nothing parses."""
    value = raw
    for _ in range(3):  # a JSON string inside a JSON string inside ...
        if isinstance(value, dict):
            return value
        if not isinstance(value, str):
            break
        text = value.strip()
        try:
            value = json.loads(text)
            continue
        except (ValueError, RecursionError):  # bad JSON, a 5,000-digit number, deep nesting
            pass
        for candidate in _json_candidates(text):
            try:
                value = json.loads(candidate)
                break
            except (ValueError, RecursionError):
                continue
        else:
            break
    if isinstance(value, dict):
        return value
    if isinstance(raw, str) and "{" in raw:
        repaired = _repair(raw)
        if repaired is not None:
            return repaired
    raise UnusableAnswer("the model's answer holds no save_memory arguments that parse as JSON")


def _repair(text: str) -> dict | None:
    """The object a broken JSON text most plausibly meant (json-repair: bare words such as
    E4 become strings, missing brackets are closed), or None. Doubled braces, which one
    chat template taught a model to write, are undone first."""
    import json_repair

    text = text.strip()
    m = re.search(r"```(?:json|JSON)?\s*\n?(.*?)(?:```|$)", text, re.S)
    if m and "{" in m[1]:
        text = m[1]
    start = text.find("{")
    if start < 0:
        return None
    text = text[start:]
    if text.startswith("{{") and text.rstrip().endswith("}}"):
        text = text.replace("{{", "{").replace("}}", "}")
    try:
        value = json_repair.loads(text)
    except (ValueError, RecursionError, TypeError):
        return None
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, dict)), None)
    return value if isinstance(value, dict) and value else None


_SYNONYMS = {
    "op": {
        "append": "add",
        "insert": "add",
        "create": "add",
        "new": "add",
        "replace": "update",
        "modify": "update",
        "edit": "update",
        "change": "update",
        "remove": "delete",
        "supersede": "deprecate",
        "obsolete": "deprecate",
        "retire": "deprecate",
    },
    "type": {
        "facts": "fact",
        "preferences": "preference",
        "events": "event",
        "goals": "goal",
        "rules": "rule",
        "decision": "fact",
        "project": "fact",
        "profile": "identity",
    },
}
_WORD_LEVELS = {"low": 0.3, "medium": 0.5, "moderate": 0.5, "high": 0.8, "very high": 0.95}


class _Bad(Exception):
    """One edit's field that stays ambiguous."""


def _string(value: object, name: str) -> str:
    """A string field: null and "" mean it does not apply; {"value": "..."} is unwrapped."""
    if value is None:
        return ""
    if isinstance(value, dict):
        inner = [v for k, v in value.items() if k in ("value", "text", "content", "line")]
        if len(inner) == 1 and isinstance(inner[0], str):
            return inner[0]
        raise _Bad(f"{name} is an object, not text")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise _Bad(f"{name} must be text, not {type(value).__name__}")
    return value


def _choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    text = _string(value, name).strip()
    key = text.casefold().removesuffix(".md")
    for choice in choices:
        if key == choice.casefold():
            return choice
    mapped = _SYNONYMS.get(name, {}).get(key)
    if mapped:
        return mapped
    raise _Bad(f"{name} must be one of {', '.join(choices)}, not {text!r:.30}")


def _level(value: object, name: str, default: float) -> float:
    """A 0-1 number from 0-1, 1-10 or 0-100 scales, numbers as strings, "85%", or a word."""
    if value is None or value == "":
        return default
    if isinstance(value, str):
        text = value.strip().casefold()
        if text in _WORD_LEVELS:
            return _WORD_LEVELS[text]
        percent = text.endswith("%")
        try:
            value = float(text.rstrip("%").strip())
        except (ValueError, OverflowError):
            raise _Bad(f"{name} must be a number, not {text!r:.20}") from None
        if percent:
            value = value / 100
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise _Bad(f"{name} must be a number")
    try:
        number = float(value)
    except OverflowError:
        raise _Bad(f"{name} is not a number on any scale") from None
    if 0 <= number <= 1:
        return number
    if 1 < number <= 10:
        return number / 10
    if 10 < number <= 100:
        return number / 100
    raise _Bad(f"{name} {number:g} is on no scale mem knows (0-1, 1-10 or 0-100)")


_NULLS = {"null", "none", "n/a", "na", "nil", "-", "undefined"}
_ID_RE = re.compile(r"\s*\[?\s*(?:E|e|#|entry\s*)?(\d{1,6})\s*\]?\s*")


def _ids(value: object, entries: int) -> tuple[tuple[int, ...], list[str]]:
    """Entry numbers from 3, "3", "E3", "[E3]", "#3", [3, "E4"], "3, 4", kept when they are
    in the batch; and what could not be read or lies outside it (for the report)."""
    if value is None or value == "" or value == []:
        return (), []
    items = value if isinstance(value, list) else re.split(r"[,;\s]+", str(value).strip())
    out, bad = [], []
    for item in items:
        m = None if isinstance(item, bool) else _ID_RE.fullmatch(str(item))
        if not m:
            if str(item).strip():
                bad.append(f"{item!s:.20}")
            continue
        n = int(m[1])
        if 1 <= n <= entries:
            out.append(n)
        else:
            bad.append(f"E{n}")
    return tuple(dict.fromkeys(out)), bad


_FILE_OF_TYPE = {
    "identity": "USER",
    "preference": "USER",
    "goal": "USER",
    "rule": "AGENTS",
    "fact": "MEMORY",
    "event": "MEMORY",
}


def _null(value: object) -> object:
    return None if isinstance(value, str) and value.strip().casefold() in _NULLS else value


def _file(value: object, kind: str, section: str) -> str:
    """The file an edit names; a placeholder copied from the instructions ("MEMORY|USER"), or
    none, means the file its type belongs to."""
    text = _string(_null(value), "file").strip()
    if text and "|" not in text and "/" not in text.strip("/"):
        return _choice(text, "file", FILES)
    if kind in _FILE_OF_TYPE and (text == "" or "|" in text):
        return _FILE_OF_TYPE[kind]
    raise _Bad(f"file must be one of {', '.join(FILES)}, not {text!r:.30}")


def _edit(raw: object, entries: int) -> tuple[Edit, str]:
    """One edit, and a note on what was read generously (empty when nothing was)."""
    if not isinstance(raw, dict):
        raise _Bad("an edit must be an object")
    e = {str(k).casefold(): _null(v) for k, v in raw.items()}
    notes = []
    op = _choice(e.get("op", e.get("operation", e.get("action"))) or "add", "op", OPS)
    kind = _choice(e.get("type", e.get("kind")) or "fact", "type", TYPES)
    section = " ".join(_string(e.get("section"), "section").split()).lstrip("#").strip()
    file = _file(e.get("file"), kind, section)
    text = " ".join(_string(e.get("text", e.get("content")), "text").split())
    target = _string(e.get("target"), "target").strip()
    if op == "update" and not target:
        op = "add"  # a new line, said as an update of nothing
        notes.append("update without a target read as add")
    if op in ("add", "update") and not text:
        raise _Bad(f"{op} needs text")
    if op != "add" and not target:
        raise _Bad(f"{op} needs target, the line it changes")
    if "\n" in target:
        raise _Bad("target must be one line")
    sources, bad = _ids(e.get("sources", e.get("source")), entries)
    if bad:
        notes.append(f"ignored sources outside E1-E{entries}: {', '.join(bad)}")
    edit = Edit(
        file=file,
        op=op,
        type=kind,
        importance=_level(e.get("importance"), "importance", 0.5),
        confidence=_level(e.get("confidence"), "confidence", 0.8),
        section=section,
        text=text,
        target=target,
        sources=sources,
    )
    return edit, "; ".join(notes)


def _history(raw: object, last: datetime) -> str:
    """One paragraph starting with a stamp: paragraphs are joined, a missing stamp is the
    last entry's time, `[2026-11-24 9:05]` becomes `[2026-11-24 09:05]`. Empty when the
    model wrote nothing but a stamp (or nothing at all): a caller writes its own."""
    if isinstance(raw, list) and all(isinstance(x, str) for x in raw):
        raw = " ".join(raw)
    try:
        text = " ".join(_string(_null(raw), "history_entry").split())
    except _Bad:
        text = ""
    m = HISTORY_STAMP_RE.match(text)
    if m:
        try:
            when = datetime.fromisoformat(f"{m['day']} {(m['time'] or '00:00').zfill(5)}")
        except ValueError:
            when = last
        rest = text[m.end() :].strip()
    else:
        when, rest = last, text
    # "[…] user: 我对花生过敏…": the log line itself, not a summary of it
    rest = re.sub(r"^(?:user|assistant|system|note)\s*:\s*", "", rest, flags=re.I)
    if len(re.sub(r"\W", "", rest)) < 3:
        return ""
    return f"{history_stamp(when)} {rest}"[:4000]


@dataclass(frozen=True)
class _Key:
    names: tuple[str, ...]

    def get(self, data: dict) -> object:
        folded = {str(k).casefold(): v for k, v in data.items()}
        return next((folded[n] for n in self.names if n in folded), None)


_HISTORY_KEY = _Key(("history_entry", "historyentry", "history", "summary"))
_EDITS_KEY = _Key(("edits", "changes", "memory_edits"))
_SKIP_KEY = _Key(("skip", "skipped", "nothing_durable", "ignore", "ignored"))


_WRAPPER = {"name", "function", "type", "id", "arguments", "parameters"}


def read_answer(raw: object, *, entries: int, last: datetime) -> Proposal:
    """A Proposal from whatever a provider returned. `entries`: how many numbered entries
    the prompt held; `last`: the time of the newest (the history stamp's default)."""
    data = decode_arguments(raw)
    for _ in range(2):  # a whole call: {"name" or "function": ..., "arguments": {...}}
        inner = data.get("arguments", data.get("parameters"))
        if isinstance(inner, str | dict) and set(data) <= _WRAPPER:
            data = decode_arguments(inner)
    history = _history(_HISTORY_KEY.get(data), last)
    items = _EDITS_KEY.get(data)
    if items is None or items == "":
        items = []
    if isinstance(items, str):
        items = decode_arguments(f'{{"e": {items}}}').get("e", []) if items.strip() else []
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        raise UnusableAnswer(
            "the model's edits are neither a list nor an edit; nothing was written"
        )
    if not history and not items and _SKIP_KEY.get(data) is None:
        raise UnusableAnswer("the model's answer holds neither a history entry nor edits")
    edits, rejected, notes = [], [], []
    for i, item in enumerate(items):
        try:
            edit, note = _edit(item, entries)
        except _Bad as exc:
            summary, cited = "", ()
            if isinstance(item, dict):
                summary = str(item.get("text") or item.get("target") or "")[:80]
                folded = {str(k).casefold(): v for k, v in item.items()}
                cited, _ = _ids(folded.get("sources", folded.get("source")), entries)
            rejected.append(Rejected(i, str(exc), summary, cited))
            continue
        edits.append(edit)
        notes.append(note)
    skip, _ = _ids(_SKIP_KEY.get(data), entries)
    return Proposal(history, tuple(edits), tuple(rejected), skip=skip, notes=tuple(notes))
