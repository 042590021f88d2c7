"""`mem status`: what the workspace holds, how busy the last days were, and git state."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import date, timedelta

from ..errors import BadEncoding
from ..format.logs import read_entries
from ..store.workspace import MEMORY_DIR, Workspace, day_of
from ..text import article


@dataclass(frozen=True)
class FileInfo:
    path: str
    size: int
    kind: str  # core | log | other


@dataclass
class Status:
    root: str
    found_by: str
    files: list[FileInfo]
    days: list[tuple[date, int]]  # entries per day, oldest first
    git: dict | None
    index: dict | None = None
    consolidation: dict | None = None
    warnings: list[str] = field(default_factory=list)
    # Filled in by the front end (serve/ knows): a resident answers, on which socket
    # (.mem/mem.sock, or the user's); and >0: the next recall starts one (a slow model),
    # which exits after so many idle seconds.
    resident: bool = False
    socket: str | None = None
    autostart: int = 0
    hooks: dict | None = None  # the harness hooks' calls (.mem/hooks.log), when any ran

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    def to_json(self) -> dict:
        return {
            "workspace": self.root,
            "foundBy": self.found_by,
            "files": [f.__dict__ for f in self.files],
            "totalBytes": self.total_bytes,
            "logFiles": sum(1 for f in self.files if f.kind == "log"),
            "entriesPerDay": {d.isoformat(): n for d, n in self.days},
            "git": self.git,
            "index": self.index,
            "consolidation": self.consolidation,
            "resident": self.resident,
            "residentSocket": self.socket,
            "residentAutostartIdle": self.autostart,
            "hooks": self.hooks,
            "warnings": self.warnings,
        }


def _git_summary(ws: Workspace) -> dict:
    from ..store import gitrepo

    st = gitrepo.state(ws.root)
    if not st.has_repo:
        return {"repo": False}
    return {
        "repo": True,
        "branch": st.branch,
        "clean": not st.dirty,
        "dirty": list(st.dirty),
        "lastCommit": st.last_commit.to_json() if st.last_commit else None,
    }


def workspace_status(
    ws: Workspace, today: date, days: int = 7, with_git: bool = True, index_params=None
) -> Status:
    """index_params (IndexParams) adds the recall index's state; it costs a numpy import."""
    from ..store.workspace import CORE_FILES

    files = []
    for path in ws.memory_files():
        rel = ws.rel(path)
        kind = "core" if rel in CORE_FILES else ("log" if day_of(path) else "other")
        files.append(FileInfo(rel, path.stat().st_size, kind))
    # Days before the calendar's first (a clock set to 0001-01-03) are no days to count.
    days = min(days, (today - date.min).days + 1)
    counts: dict[date, int] = {today - timedelta(days=k): 0 for k in range(days - 1, -1, -1)}
    warnings: list[str] = []
    logs = ws.root / MEMORY_DIR
    if os.path.lexists(logs) and not logs.is_dir():  # else every `mem log` fails unexplained
        warnings.append(
            f"{MEMORY_DIR} is a file, not the folder of daily logs: `mem log` cannot write; "
            "move it aside"
        )
    from ..format.markdown import has_conflict_markers, lines_of
    from ..safety.secrets import find
    from ..store.fsutil import read_text

    for path in ws.day_files():
        day = day_of(path)
        rel = ws.rel(path)
        try:
            text = read_text(path, rel)
        except BadEncoding as exc:
            warnings.append(exc.message)
            continue
        if has_conflict_markers(text):
            warnings.append(
                f"{rel} holds merge conflict markers; `mem doctor` merges it by entry "
                "(every entry of both sides once, in time order)"
            )
            continue
        if day in counts:
            counts[day] += len(read_entries(path, day, rel))
        # Logs stay verbatim; say where a secret sits, and how to take it out.
        for n, line in enumerate(lines_of(text), 1):
            kinds = find(line)
            if kinds:
                warnings.append(
                    f"{rel}:{n} holds what looks like {article(kinds[0])}; `mem forget --hard "
                    f"{rel}:{n}` redacts it (git history keeps it until rewritten)"
                )

    return Status(
        str(ws.root),
        ws.found_by,
        files,
        sorted(counts.items()),
        _git_summary(ws) if with_git else None,
        _index_summary(ws, index_params) if index_params is not None else None,
        _consolidation_summary(ws, with_git),
        warnings,
    )


def _consolidation_summary(ws: Workspace, with_git: bool) -> dict:
    from ..consolidate.progress import last_consolidation, read_history

    commit = None
    if with_git:
        from ..upkeep.undo import last_consolidation_commit

        found = last_consolidation_commit(ws)
        commit = found.to_json() if found else None
    from ..consolidate.progress import left_for_model, passed_ids
    from ..consolidate.review import count_pending, load_all
    from ..format.markdown import ledger_entries

    try:
        history = read_history(ws)
    except BadEncoding:
        history = ""
    by_day: dict[str, dict[str, int]] = {}
    by_model: dict[str, dict[str, int]] = {}
    for e in ledger_entries(history):
        for table, key in ((by_day, e["day"]), (by_model, e["who"])):
            row = table.setdefault(key, {"prompt": 0, "completion": 0, "runs": 0})
            row["prompt"] += e["prompt"]
            row["completion"] += e["completion"]
            row["runs"] += 1
    return {
        "pending": count_pending(ws),
        "passed": len(passed_ids(ws)),
        # Taken for the offline rules, which kept nothing of them: a model run reads them.
        "forModel": left_for_model(ws),
        "last": last_consolidation(history),
        "lastCommit": commit,
        "proposals": len(load_all(ws)),
        "tokens": {"byDay": by_day, "byModel": by_model},
    }


def _index_summary(ws: Workspace, params) -> dict:
    from ..index.cache import index_state

    return index_state(ws, params)
