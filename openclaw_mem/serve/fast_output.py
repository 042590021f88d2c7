"""What the per-turn reads print: `mem recall --json`, `mem context [--json]` and
`mem get SPEC [--json]`.

Built from `Memory.answer`'s data wherever the answer is computed: in the asking process, or
in the resident process, which sends the finished text, so that the per-turn client needs no
JSON encoder of its own (json.encoder imports re: ~5 ms of a bare interpreter's start-up).
"""

from __future__ import annotations

import json

PLAIN = ("path", "startLine", "endLine", "score", "snippet", "source", "superseded")


def render(op: str, data: dict, as_json: bool) -> dict:
    """{"stdout": the text to print, "stderr": [lines to print on stderr]}."""
    stderr = []
    if op == "recall":
        from ..safety.secrets import redact  # as the full command's warnings are

        stderr = [f"mem: warning: {redact(w)[0]}" for w in data["warnings"]]
        data = {"results": [{k: h[k] for k in PLAIN if k in h} for h in data["results"]]}
    if as_json:
        from ..text import camel_keys  # the key style of every --json (cli/render.py)

        stdout = json.dumps(camel_keys(data), ensure_ascii=False, indent=2, default=str) + "\n"
    else:
        stdout = data["text"] + ("\n" if op == "get" else "")  # get's lines, as echo ends them
    return {"stdout": stdout, "stderr": stderr}
