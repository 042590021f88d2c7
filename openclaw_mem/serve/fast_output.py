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
from ..text import camel_keys, visible, visible_json
from .socket_client import dumps


def render(op: str, data: dict, as_json: bool, explain: bool = False) -> dict:
    """{"stdout": the text to print, "stderr": [lines to print on stderr]}. A recall's
    results are OpenClaw's shape; with `explain`, every ranking stage too."""
    stderr = []
    if op == "recall":
        stderr = [visible(f"mem: warning: {w}") for w in data["warnings"]]
        hits = data["results"] if explain else [plain(h) for h in data["results"]]
        data = {"results": hits}
    if as_json:
        stdout = visible_json(dumps(camel_keys(data), indent=2)) + "\n"
    else:
        stdout = visible(data["text"]) + ("\n" if op == "get" else "")  # as echo ends get's lines
    return {"stdout": stdout, "stderr": stderr}
