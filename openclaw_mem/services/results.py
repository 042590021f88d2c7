"""What the services return: plain values a front end prints or sends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..consolidate.citations import Citations
    from ..format.ingest import IngestReport
    from ..upkeep.cleanup import Stale
    from ..upkeep.forgetting import Forgotten


@dataclass(frozen=True)
class Ingested:
    report: IngestReport
    commit: str | None = None
    consolidating: bool = False
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Audit:
    files: int
    findings: tuple  # of audit.Finding, in today's files
    history: tuple = ()  # of audit.Finding, lines any commit added (with --history)
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class ForgetResult:
    """What a forget did: the lines it struck, deleted or redacted, and the places (log
    entries, HISTORY.md paragraphs) it hid from recall and context without rewriting."""

    lines: tuple[Forgotten, ...]
    commit: str | None = None
    warnings: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()  # citations
    words: str | None = None  # the query, when the target was words

    @property
    def done(self) -> Forgotten | None:
        """The first line changed (a forget of one place changes one)."""
        return self.lines[0] if self.lines else None


@dataclass(frozen=True)
class CleanupResult:
    stale: list[Stale]
    archive: str | None  # where the lines went; None on a dry run or when nothing is stale
    commit: str | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Doctor:
    merged: list[str]  # memory files a plain merge left conflicted, now merged and staged
    citations: Citations  # curated lines whose citation moved or was left unsourced
    held: str | None = None  # the review proposal holding lines both sides rewrote
    commit: str | None = None  # the citations' commit
    reformatted: int = 0  # curated lines of the older format rewritten
    finished: tuple[str, ...] = ()  # writers a kill interrupted, finished ("consolidation")
    wrong: tuple[str, ...] = ()  # PATH:LINE of lines whose own links cite other words
    # Curated files and HISTORY.md that hold conflict markers committed as they are (no
    # merge in progress to resolve): a person's to resolve; consolidate refuses until then.
    marked: tuple[str, ...] = ()
    # Temp files of whole-file writes a kill left behind (".USER.md.3w8allsf.tmp"), removed.
    leftovers: tuple[str, ...] = ()


@dataclass
class IndexSummary:
    files: int
    chunks: int
    seconds: float
    stats: dict = field(default_factory=dict)  # what the refresh did: mode, changed, deleted
    warnings: list[str] = field(default_factory=list)
    vectors: str = "minhash"  # the vector space the index holds
    missing_vectors: int = 0  # chunks that still lack an embedding

    def to_json(self) -> dict:
        return {
            "files": self.files,
            "chunks": self.chunks,
            "seconds": round(self.seconds, 3),
            "vectors": self.vectors,
            "missingVectors": self.missing_vectors,
            **(self.stats or {"mode": "fresh"}),
        }
