"""What the per-turn reads print: `mem recall --json`, `mem context [--json]` and
`mem get SPEC [--json]`, from `Memory.answer`'s data.

Rendered in the process that prints, whoever computed the answer (this process, or the
resident one): the resident sends data, never output. Standard library only, and not even
`json` (its encoder imports `re`: ~5 ms of a bare interpreter's start-up): the socket
client's writer prints the same bytes json.dumps(indent=2, ensure_ascii=False) would.
The data is already redacted (`Memory.answer`) and its keys are OpenClaw's camelCase.
Memory text is anyone's: what is printed shows its control characters written out
(`text.visible`, which imports nothing) or JSON-escaped, as the full CLI prints them.
"""

from __future__ import annotations

from ..recall.reads import plain
from ..text import visible, visible_json
from .socket_client import dumps


def render(op: str, data: dict, as_json: bool) -> dict:
    """{"stdout": the text to print, "stderr": [lines to print on stderr]}."""
    stderr = []
    if op == "recall":
        stderr = [visible(f"mem: warning: {w}") for w in data["warnings"]]
        data = {"results": [plain(h) for h in data["results"]]}
    if as_json:
        stdout = visible_json(dumps(data, indent=2)) + "\n"
    else:
        stdout = visible(data["text"]) + ("\n" if op == "get" else "")  # as echo ends get's lines
    return {"stdout": stdout, "stderr": stderr}
