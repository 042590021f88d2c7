"""The `save_memory` tool: its JSON schema, and strict validation of what a provider returns.

Nothing touches a file until the arguments pass: right types, known enums, numbers in
range, no unknown keys, and the fields each operation needs.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import ProviderError
from ..markdown import STRICT_STAMP_RE
from ..proposal import Edit, Proposal

FILES = ("MEMORY", "USER", "AGENTS")
OPS = ("add", "update", "deprecate", "delete")
TYPES = ("fact", "preference", "event", "identity", "goal", "rule")
TOOL_NAME = "save_memory"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "history_entry": {
            "type": "string",
            "description": "One paragraph of 2-5 sentences starting with [YYYY-MM-DD HH:MM] (the "
            "time of the last entry), detailed enough to find later with grep: names, numbers, "
            "decisions.",
        },
        "edits": {
            "type": "array",
            "description": "Changes to MEMORY.md, USER.md and AGENTS.md. Empty when nothing "
            "durable "
            "was said.",
            "items": {
                "type": "object",
                "properties": {
                    "file": {"type": "string", "enum": list(FILES)},
                    "op": {"type": "string", "enum": list(OPS)},
                    "section": {
                        "type": "string",
                        "description": "Section heading, e.g. Preferences",
                    },
                    "text": {
                        "type": "string",
                        "description": "The new line, one sentence, no bullet",
                    },
                    "target": {
                        "type": "string",
                        "description": "For update/deprecate/delete: the existing line, "
                        "copied exactly",
                    },
                    "type": {"type": "string", "enum": list(TYPES)},
                    "importance": {"type": "number", "minimum": 0, "maximum": 1},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "required": ["file", "op", "type", "importance", "confidence"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["history_entry", "edits"],
    "additionalProperties": False,
}

TOOL = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": "Save what is new in the conversation to long-term memory.",
        "parameters": SCHEMA,
    },
}


def _check(value: Any, schema: dict, where: str) -> None:
    """A validator for the JSON Schema subset SCHEMA uses."""
    kind = schema.get("type")
    checks = {
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "string": lambda v: isinstance(v, str),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    }
    if kind and not checks[kind](value):
        raise ProviderError(
            f"invalid save_memory arguments: {where} must be a {kind}, not {value!r:.60}"
        )
    if "enum" in schema and value not in schema["enum"]:
        raise ProviderError(
            f"invalid save_memory arguments: {where} must be one of {', '.join(schema['enum'])}, "
            f"not {value!r:.40}"
        )
    if kind == "number":
        lo, hi = schema.get("minimum"), schema.get("maximum")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ProviderError(f"invalid save_memory arguments: {where} must lie in [{lo}, {hi}]")
    if kind == "object":
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                raise ProviderError(f"invalid save_memory arguments: {where} lacks {name!r}")
        if schema.get("additionalProperties") is False:
            extra = sorted(set(value) - set(props))
            if extra:
                raise ProviderError(
                    f"invalid save_memory arguments: unknown field {extra[0]!r} in {where}"
                )
        for name, sub in props.items():
            if name in value:
                _check(value[name], sub, f"{where}.{name}")
    if kind == "array":
        for i, item in enumerate(value):
            _check(item, schema.get("items", {}), f"{where}[{i}]")


def parse_arguments(raw: str | dict) -> Proposal:
    """JSON text (or an already parsed object) -> a validated Proposal."""
    if isinstance(raw, str):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ProviderError(f"save_memory arguments are not valid JSON ({exc.msg})") from None
    else:
        data = raw
    _check(data, SCHEMA, "arguments")
    history = data["history_entry"].strip()
    if not STRICT_STAMP_RE.match(history):
        raise ProviderError(
            "invalid save_memory arguments: history_entry must start with [YYYY-MM-DD HH:MM]"
        )
    if "\n\n" in history or len(history) > 4000:
        raise ProviderError("invalid save_memory arguments: history_entry must be one paragraph")
    edits = []
    for i, e in enumerate(data["edits"]):
        edit = Edit(
            file=e["file"],
            op=e["op"],
            type=e["type"],
            importance=float(e["importance"]),
            confidence=float(e["confidence"]),
            section=" ".join(e.get("section", "").split()),
            text=" ".join(e.get("text", "").split()),
            target=e.get("target", "").strip(),
        )
        if edit.op in ("add", "update") and not edit.text:
            raise ProviderError(f"invalid save_memory arguments: edits[{i}] ({edit.op}) needs text")
        if edit.op != "add" and not edit.target:
            raise ProviderError(
                f"invalid save_memory arguments: edits[{i}] ({edit.op}) needs target"
            )
        if "\n" in edit.target:
            raise ProviderError(
                f"invalid save_memory arguments: edits[{i}].target must be one line"
            )
        edits.append(edit)
    return Proposal(history, tuple(edits))
