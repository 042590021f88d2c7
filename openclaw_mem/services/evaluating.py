"""`mem eval`: how well recall finds what it should, measured on the workspace's own memory.

A queries file (YAML, `eval/queries.yaml` by default) pairs questions with the places that
answer them:

    k: 5                      # optional; else recall.k
    queries:
      - query: "什么时候去杭州"
        expect: ["memory/2026-11-27.md", "MEMORY.md#L12"]   # any of them counts
      - query: "backup schedule"
        expect: "memory/2026-11-24.md"

An expectation is a file (`PATH`: any hit in it counts), a line (`PATH#Lx`) or a range
(`PATH#Lx-Ly`): a hit counts when its lines overlap. Each query is recalled without recording
access, so evaluating never changes what later recalls rank. The figures: the rank of the first
relevant hit within the top k, recall@k (the share of queries with one) and MRR (mean of
1/rank, a miss counting 0). `compare` runs the same queries again with other settings.

Pure library: functions that take the reading service (reading.py) and return
dataclasses; nothing prints. It sits above the services it measures.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..format.markdown import citation

if TYPE_CHECKING:
    from ..recall.pipeline import Hit
    from ..store.workspace import Workspace
    from .reading import Reading

DEFAULT_FILE = "eval/queries.yaml"
FORMAT_HINT = "give PATH, PATH#Lx or PATH#Lx-Ly, or a list of them"
_TOP_KEYS = ("k", "queries")
_QUERY_KEYS = ("query", "expect")


# ----------------------------------------------------------------- the queries file


@dataclass(frozen=True)
class Expected:
    """A place that answers a query: a whole file, or lines of it (1-based, inclusive)."""

    path: str
    start: int | None = None
    end: int | None = None

    def matches(self, path: str, start_line: int, end_line: int) -> bool:
        if path != self.path:
            return False
        if self.start is None or self.end is None:
            return True
        return start_line <= self.end and end_line >= self.start

    @property
    def spec(self) -> str:
        if self.start is None:
            return self.path
        return citation(self.path, self.start, None if self.start == self.end else self.end)


@dataclass(frozen=True)
class EvalQuery:
    text: str
    expect: tuple[Expected, ...]

    def relevant(self, hit: Hit) -> bool:
        return any(e.matches(hit.path, hit.start_line, hit.end_line) for e in self.expect)


@dataclass(frozen=True)
class QuerySet:
    source: str  # the file, relative to the workspace
    queries: tuple[EvalQuery, ...]
    k: int | None = None  # the file's k, if it gives one
    warnings: tuple[str, ...] = ()


def _max_k() -> int:
    from ..config import key

    return int(key("recall.k").max or 1000)


def parse_expected(spec: str) -> Expected:
    """`PATH`, `PATH#Lx` or `PATH#Lx-Ly` (`-y` also reads as `-Ly`); UsageError otherwise."""
    from ..format.markdown import parse_citation

    text = spec.strip()
    while text.startswith("./"):
        text = text[2:]
    if not text:
        raise UsageError(f"an empty expectation; {FORMAT_HINT}")
    start = end = None
    if "#" in text:
        cited = parse_citation(text)
        if cited is None:
            raise UsageError(f"{spec!r} is not an expectation; {FORMAT_HINT}")
        text, start, end = cited
        if start < 1:
            raise UsageError(f"{spec!r}: lines are numbered from 1")
        if end < start:
            raise UsageError(f"{spec!r}: the range ends before it starts")
    posix = PurePosixPath(text)
    if posix.is_absolute() or ".." in posix.parts or "\\" in text:
        raise UsageError(f"{spec!r}: give a path relative to the workspace, with `/`")
    return Expected(posix.as_posix(), start, end)


def parse_queries(data: Any, source: str = DEFAULT_FILE) -> QuerySet:
    """A parsed YAML document (a mapping with `queries:` and an optional `k:`, or a bare list
    of queries) as a QuerySet; every problem is a one-line UsageError naming the file."""
    k = None
    if isinstance(data, list):
        items = data
    elif isinstance(data, dict):
        unknown = [str(name) for name in data if name not in _TOP_KEYS]
        if unknown:
            raise UsageError(
                f"{source}: unknown key {unknown[0]!r}; the file holds `k:` and `queries:`"
            )
        items = data.get("queries")
        k = data.get("k")
        if k is not None and (
            not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= _max_k()
        ):
            raise UsageError(f"{source}: k must be a whole number from 1 to {_max_k()}, not {k!r}")
    elif data is None:
        raise UsageError(f"{source} is empty; it needs a `queries:` list")
    else:
        raise UsageError(f"{source} must hold `queries:` (a list), not a {type(data).__name__}")
    if not isinstance(items, list) or not items:
        raise UsageError(f"{source} needs a `queries:` list with at least one query")
    return QuerySet(source, tuple(_query(item, n, source) for n, item in enumerate(items, 1)), k)


def _query(item: Any, n: int, source: str) -> EvalQuery:
    where = f"{source}: query {n}"
    if not isinstance(item, dict):
        raise UsageError(f"{where} must be a mapping with `query:` and `expect:`")
    unknown = [str(name) for name in item if name not in _QUERY_KEYS]
    if unknown:
        raise UsageError(f"{where}: unknown key {unknown[0]!r}; a query has `query:` and `expect:`")
    text = item.get("query")
    if text is None:
        raise UsageError(f"{where} has no `query:`")
    if not isinstance(text, str):
        raise UsageError(f"{where}: `query:` must be text, not {text!r} (quote it)")
    if not text.strip():
        raise UsageError(f"{where}: `query:` is empty")
    expect = item.get("expect")
    specs = [expect] if isinstance(expect, str) else expect
    if not specs or not isinstance(specs, list):
        raise UsageError(f"{where} ({text.strip()!r}) needs `expect:`; {FORMAT_HINT}")
    parsed = []
    for spec in specs:
        if not isinstance(spec, str):
            raise UsageError(f"{where}: `expect:` holds {spec!r}; {FORMAT_HINT}")
        try:
            parsed.append(parse_expected(spec))
        except UsageError as exc:
            raise UsageError(f"{where}: {exc.message}") from None
    return EvalQuery(text, tuple(parsed))


def _relative(ws: Workspace, file: str | os.PathLike[str]) -> str:
    """The queries file relative to the workspace: a relative path is taken from the
    workspace root (as `mem get` does); an absolute one must lie inside it."""
    name = os.fspath(file)
    if not os.path.isabs(name):
        return name
    absolute = Path(os.path.abspath(name))  # normalised, no link followed
    for root in (ws.root, ws.root.resolve()):
        try:
            return absolute.relative_to(root).as_posix()
        except ValueError:
            continue
    raise UsageError(f"{name}: the queries file must be inside the workspace {ws.root}")


def load_queries(mem: Reading, file: str | os.PathLike[str] | None = None) -> QuerySet:
    """Read and check the queries file (default eval/queries.yaml): inside the workspace, no
    symlink on the way, UTF-8, valid YAML. Expected files that do not exist are warnings."""
    import yaml

    from ..store.fsutil import read_text

    ws = mem.place.ws
    rel = DEFAULT_FILE if file is None else _relative(ws, file)
    path = ws.inside(rel)  # refuses absolute paths, `..` and symlinks
    if not path.is_file():
        what = "is not a file" if path.exists() else "does not exist"
        hint = " (see `mem eval --help` for its format)" if file is None else ""
        raise UsageError(f"{rel} {what} in the workspace; write the queries there{hint}")
    text = read_text(path, rel).removeprefix("\ufeff")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise UsageError(f"{rel} is not valid YAML{where}: {' '.join(problem.split())}") from None
    qs = parse_queries(data, rel)
    warnings, seen = [], set()
    for n, query in enumerate(qs.queries, 1):
        for e in query.expect:
            if e.path in seen:
                continue
            seen.add(e.path)
            try:
                exists = ws.inside(e.path).is_file()
            except UsageError:
                exists = False
            if not exists:
                warnings.append(
                    f"{rel}: query {n} expects {e.path}, which is not in the workspace; "
                    "it can only miss"
                )
    return QuerySet(qs.source, qs.queries, qs.k, tuple(warnings))


# ----------------------------------------------------------------- running


@dataclass(frozen=True)
class QueryOutcome:
    """One query's result: the rank (1-based) of its first relevant hit in the top k, or None."""

    query: EvalQuery
    rank: int | None
    hits: tuple[str, ...]  # citations of the top k, best first
    matched: str | None = None  # citation of the first relevant hit

    @property
    def top(self) -> str | None:
        return self.hits[0] if self.hits else None

    def to_json(self) -> dict:
        return {
            "query": self.query.text,
            "expect": [e.spec for e in self.query.expect],
            "rank": self.rank,
            "hit": self.matched,
            "hits": list(self.hits),
        }


@dataclass(frozen=True)
class EvalRun:
    source: str
    k: int
    outcomes: tuple[QueryOutcome, ...]
    settings: dict[str, Any] = field(default_factory=dict)  # overrides this run used
    warnings: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return len(self.outcomes)

    @property
    def found(self) -> int:
        return sum(1 for o in self.outcomes if o.rank is not None)

    @property
    def recall_at_k(self) -> float:
        return self.found / self.total if self.total else 0.0

    @property
    def mrr(self) -> float:
        if not self.total:
            return 0.0
        return sum(1 / o.rank for o in self.outcomes if o.rank is not None) / self.total

    @property
    def misses(self) -> list[str]:
        return [o.query.text for o in self.outcomes if o.rank is None]

    def summary(self) -> str:
        """`recall@5 0.80 (8/10), MRR 0.62`"""
        return (
            f"recall@{self.k} {self.recall_at_k:.2f} ({self.found}/{self.total}), "
            f"MRR {self.mrr:.2f}"
        )

    def to_json(self) -> dict:
        return {
            "file": self.source,
            "k": self.k,
            "settings": dict(self.settings),
            "queries": self.total,
            "found": self.found,
            "recallAtK": round(self.recall_at_k, 4),
            "mrr": round(self.mrr, 4),
            "misses": self.misses,
            "results": [o.to_json() for o in self.outcomes],
        }


def run(
    mem: Reading,
    queries: QuerySet,
    *,
    k: int | None = None,
    now: datetime | None = None,
    settings: Mapping[str, Any] | None = None,
) -> EvalRun:
    """Recall every query (without recording access) and rank its expectations. The cut-off
    is k, else the file's k, else recall.k. `settings` only labels the run."""
    from ..recall.reads import Read

    cutoff = k if k is not None else (queries.k or mem.place.config["recall.k"])
    when = now or mem.place.now()
    outcomes, warnings = [], []
    for query in queries.queries:
        read = Read("recall", query=query.text, k=cutoff, now=when)
        result = mem.recall(read, record_access=False)
        warnings.extend(w for w in result.warnings if w not in warnings)
        hits = result.hits[:cutoff]
        rank = next((i for i, h in enumerate(hits, 1) if query.relevant(h)), None)
        outcomes.append(
            QueryOutcome(
                query,
                rank,
                tuple(h.citation for h in hits),
                hits[rank - 1].citation if rank else None,
            )
        )
    return EvalRun(queries.source, cutoff, tuple(outcomes), dict(settings or {}), tuple(warnings))


def parse_overrides(pairs: Iterable[str]) -> dict[str, str]:
    """`KEY=VALUE` texts as a mapping (a later key wins). The values stay text: the settings
    registry types each one as its key requires (0.5, 3, true, membership) and checks it."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"--compare takes KEY=VALUE (recall.vector_weight=0.5), not {pair!r}")
        out[name] = value.strip()
    return out


@dataclass(frozen=True)
class RankChange:
    query: str
    before: int | None
    after: int | None

    def to_json(self) -> dict:
        return {"query": self.query, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class Comparison:
    base: EvalRun
    other: EvalRun

    @property
    def ranks(self) -> list[RankChange]:
        """Every query with its rank in both runs, in file order."""
        return [
            RankChange(a.query.text, a.rank, b.rank)
            for a, b in zip(self.base.outcomes, self.other.outcomes, strict=True)
        ]

    @property
    def changes(self) -> list[RankChange]:
        return [c for c in self.ranks if c.before != c.after]

    def to_json(self) -> dict:
        return {
            "base": self.base.to_json(),
            "compare": self.other.to_json(),
            "changes": [c.to_json() for c in self.changes],
        }


def compare(
    mem: Reading,
    queries: QuerySet,
    overrides: Mapping[str, Any],
    *,
    k: int | None = None,
    now: datetime | None = None,
) -> Comparison:
    """The queries with the workspace's settings, then again with `overrides` on top (an
    unknown key or a bad value is a UsageError before anything runs). Both runs decay as of
    the same moment. A comparison that sets recall.k (and no explicit k) cuts off there."""
    if not overrides:
        raise UsageError("give at least one KEY=VALUE to compare with")
    rebuilt = sorted(k for k in overrides if k.startswith(("index.", "embed.")))
    if rebuilt:  # the index is one cache per workspace: a comparison must not rebuild it
        raise UsageError(
            f"--compare {rebuilt[0]} would rebuild this workspace's index; compare it on a "
            "copy of the workspace (cp -r, then mem eval there)"
        )
    from .reading import Reading

    other_mem = Reading(mem.place.with_settings(dict(overrides)), mem.warm)
    if not mem.place.index_params.serves(other_mem.place.index_params):
        # (recall.similarity = containment or jaccard needs signatures the index may lack)
        raise UsageError(
            f"--compare {', '.join(sorted(overrides))} would rebuild this workspace's index; "
            "compare it on a copy of the workspace (cp -r, then mem eval there)"
        )
    typed = {name: other_mem.place.config[name] for name in overrides}
    when = now or mem.place.now()
    other_k = k
    if other_k is None and "recall.k" in overrides:
        other_k = other_mem.place.config["recall.k"]
    base = run(mem, queries, k=k, now=when)
    other = run(other_mem, queries, k=other_k, now=when, settings=typed)
    return Comparison(base, other)
