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


def recall_format(vals: dict, stdout_tty: bool) -> str:
    """How a recall prints: "json", "table" (a terminal's, drawn by the full CLI), "tsv"
    (a pipe's) or "rg"."""
    if vals.get("json"):
        return "json"
    return vals.get("format") or ("table" if stdout_tty else "tsv")


def render(op: str, data: dict, fmt: str, explain: bool = False) -> dict:
    """{"stdout": the text to print, "stderr": [lines for stderr], "exit": the exit code}.
    `fmt`: "json", or for a recall "tsv" or "rg" (the table is the full CLI's), else the
    command's plain text. A recall's results are OpenClaw's shape; with `explain`, every
    ranking stage too. A recall that finds nothing exits 1, as grep and rg do."""
    stderr, code = [], 0
    if op == "recall":
        stderr = [visible(f"mem: warning: {w}") for w in data["warnings"]]
        code = 0 if data["results"] else 1
        if fmt in ("tsv", "rg"):
            full = data["results"]
            lines = tsv_lines(full, explain) if fmt == "tsv" else rg_lines(full)
            return {"stdout": "".join(f"{x}\n" for x in lines), "stderr": stderr, "exit": code}
        data = {"results": data["results"] if explain else [plain(h) for h in data["results"]]}
    if fmt == "json":
        stdout = visible_json(dumps(camel_keys(data), indent=2)) + "\n"
    else:
        stdout = visible(data["text"]) + ("\n" if op == "get" else "")  # as echo ends get's lines
    return {"stdout": stdout, "stderr": stderr, "exit": code}


def citation_of(hit: dict) -> str:
    return f"{hit['path']}#L{hit['startLine']}-L{hit['endLine']}"


def when_of(hit: dict) -> str:
    """When a hit was said ("evergreen": a curated line, no day), and what it is now."""
    when = hit["date"].replace("T", " ") if hit.get("date") else "evergreen"
    return when + stale_label(hit, " ")


def stale_label(hit: dict, sep: str = "") -> str:
    """What a hit no longer is: "(superseded 2026-11-20)" when a later entry updated it,
    "(deprecated 2026-11-20)" when it is a struck-through line; "" when it is current."""
    on = f" {hit['supersededOn']}" if hit.get("supersededOn") else ""
    if hit.get("supersededBy"):
        return f"{sep}(superseded{on})"
    if hit.get("deprecated") or hit.get("superseded"):
        return f"{sep}(deprecated{on})"
    return ""


def _cell(text: str) -> str:
    """One TSV cell: every run of whitespace (tabs and newlines too) one space, controls
    shown. Nothing is escaped: `cut -f` hands a program the text as it reads."""
    return visible(" ".join(text.split()), lines=False)


def explained(hit: dict) -> str:
    """A hit's ranking stages on one line (the table's, joined)."""
    e = hit["explain"]
    meaning = f" meaning {e['meaning']:.2f}" if e.get("vectors") == "embedding" else ""
    return (
        f"bm25 {e['bm25']:.2f} (own {e['own']:.2f}) minhash {e['lsh']:.2f}{meaning}; "
        f"text {e['text']:.2f} vector {e['vector']:.2f}; "
        f"fused {e['fused']:.2f} x decay {e['decay']:.2f}; "
        f"rank {e['rank_before_mmr']} -> mmr {e['mmr_position']}"
    )


def tsv_lines(hits: list[dict], explain: bool = False) -> list[str]:
    """rank, score, citation, when, snippet (and the stages, with --explain; a subject, when
    found through the entry it refers back to): no header, one hit a line."""
    out = []
    for rank, h in enumerate(hits, 1):
        cells = [str(rank), f"{h['score']:.3f}", citation_of(h), when_of(h), h["snippet"]]
        if explain:
            cells.append(explained(h))
        if h.get("subject"):
            cells.append(f"subject {h['subject']}")
        out.append("\t".join(_cell(c) for c in cells))
    return out


def rg_lines(hits: list[dict]) -> list[str]:
    """`path:line:text`, one hit a line, best first, as `rg -n` prints a match: a terminal
    or an editor opens path:line, and the text is the snippet on one line."""
    return [f"{h['path']}:{h['startLine']}:{_cell(_labelled(h))}" for h in hits]


def _labelled(hit: dict) -> str:
    """A snippet behind what it no longer is, if anything: "(superseded 2026-11-20) …"."""
    label = stale_label(hit)
    return f"{label} {hit['snippet']}" if label else hit["snippet"]
