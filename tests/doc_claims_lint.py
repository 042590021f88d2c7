"""Which paragraphs of the docs state behaviour, and which test each names (issue 44).

A paragraph of prose (README.md, docs/*.md; code blocks and headings aside) states behaviour
when it says what the tool does or never does (`CLAIM` below: "never", "refuses", "exits",
"keeps", "at most" …). Such a paragraph holds when it names what proves it, in backticks
(`tests/test_x.py::test_name`, `::test_name` or a bare `test_name` after a file was named,
or `bench/x.py` for a figure), or when the next thing in the document is a console block,
which tests/test_docs.py runs and compares. tests/test_doc_claims.py fails on any other.

    python tests/doc_claims_lint.py            # every claim and what proves it
    python tests/doc_claims_lint.py --missing  # only the claims that name nothing
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

CLAIM = re.compile(
    r"\b(never|always|exits?|refus\w*|at most|at least|cannot|can't|fails?|keeps?|kept|"
    r"leaves? (?:out|alone)|stops?|warns?|rejects?|holds?|only)\b",
    re.I,
)
PROOF = re.compile(
    r"`(?:tests/test_\w+\.py(?:::test_\w+)?|::test_\w+|test_\w+)"
    r"|`(?:python )?(?P<bench>bench/\w+\.py)[^`]*`"
)
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True)
class Claim:
    doc: str
    line: int
    text: str
    proofs: tuple[str, ...]
    shown: bool  # a console block follows

    @property
    def held(self) -> bool:
        return bool(self.proofs) or self.shown


def _blocks(text: str):
    """(kind, first line, text) for each paragraph and fenced block, in order; kind is
    "prose", "fence:LANG" or "heading"."""
    lines = text.split("\n")
    i, out = 0, []
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m:
            start, fence, lang = i, m[2], m[3].strip().split(" ")[0]
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                i += 1
            out.append((f"fence:{lang}", start + 1, "\n".join(lines[start : i + 1])))
            i += 1
            continue
        if not lines[i].strip() or lines[i].lstrip().startswith("<!--"):
            i += 1
            continue
        if lines[i].startswith("#"):
            out.append(("heading", i + 1, lines[i]))
            i += 1
            continue
        start = i
        while (
            i < len(lines)
            and lines[i].strip()
            and not _FENCE.match(lines[i])
            and not lines[i].startswith("#")
        ):
            i += 1
        out.append(("prose", start + 1, "\n".join(lines[start:i])))
    return out


def claims(path: Path) -> list[Claim]:
    text = path.read_text(encoding="utf-8")
    blocks = _blocks(text)
    out = []
    for n, (kind, line, body) in enumerate(blocks):
        if kind != "prose" or not CLAIM.search(body) or body.lstrip().startswith("|"):
            continue
        after = blocks[n + 1][0] if n + 1 < len(blocks) else ""
        proofs = tuple(m["bench"] or m.group(0).strip("`") for m in PROOF.finditer(body))
        out.append(Claim(str(path.relative_to(REPO)), line, body, proofs, after == "fence:console"))
    return out


def all_claims() -> list[Claim]:
    return [c for doc in DOCS for c in claims(doc)]


if __name__ == "__main__":
    missing_only = "--missing" in sys.argv[1:]
    found = all_claims()
    for c in found:
        if missing_only and c.held:
            continue
        proof = ", ".join(c.proofs) or ("the console block after it" if c.shown else "NOTHING")
        first = " ".join(c.text.split())[:100]
        print(f"{c.doc}:{c.line}: {first}\n    proved by: {proof}")
    held = sum(c.held for c in found)
    print(f"{held} of {len(found)} claims name what proves them", file=sys.stderr)
