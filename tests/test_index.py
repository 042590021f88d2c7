from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np

from openclaw_mem.format.logs import NewEntry, append_entries
from openclaw_mem.index.cache import IndexParams, open_index
from openclaw_mem.recall.pipeline import RecallOptions, rank_index
from openclaw_mem.store.workspace import Workspace

QUERIES = ["redis 连接超时", "Go settlement worker", "马拉松 training", "who is my manager"]


def _ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text(
        "# MEMORY\n\n## Facts\n\n- Atlas uses Redis Streams.\n", encoding="utf-8"
    )
    topics = [
        "Redis 连接超时 on the consumer",
        "Go settlement worker is 3x faster",
        "马拉松 training: 15 km today",
        "my manager is Chen Jing",
        "lunch was noodles",
    ]
    for day in range(1, 21):
        path = root / "memory" / f"2026-11-{day:02d}.md"
        entries = [
            NewEntry(datetime(2026, 11, day, 9 + i), "user", f"{topics[(day + i) % 5]} #{day}")
            for i in range(4)
        ]
        append_entries(path, path_date(path), entries)
    return Workspace(root)


def path_date(path: Path):
    return datetime.strptime(path.stem, "%Y-%m-%d").date()


def _ranking(index, query):
    opts = RecallOptions(k=8, now=datetime(2026, 12, 1))
    return [
        (index.paths[int(index.doc("path_id")[d])], int(index.doc("start")[d]), e["final"])
        for d, e in rank_index(index, query, opts)
    ]


def test_refresh_rechunks_only_what_changed_and_matches_a_rebuild(tmp_path):
    ws = _ws(tmp_path)
    params = IndexParams()
    first = open_index(ws, params)
    # 80 entries; MEMORY.md: its heading and its two bullets, each a chunk of its own
    assert first.stats["mode"] == "rebuild" and first.n_live == 83
    assert open_index(ws, params).stats == {}  # nothing changed: nothing done

    day = ws.root / "memory" / "2026-11-20.md"
    append_entries(
        day, path_date(day), [NewEntry(datetime(2026, 11, 20, 18), "user", "redis 又超时了")]
    )
    (ws.root / "memory" / "2026-11-03.md").unlink()
    (ws.root / "memory" / "2026-11-21.md").write_text(
        "# 2026-11-21\n\n- new manager: Li Na\n", encoding="utf-8"
    )
    refreshed = open_index(ws, params)
    assert refreshed.stats["mode"] == "refresh"
    assert refreshed.stats["changed"] == ["memory/2026-11-20.md", "memory/2026-11-21.md"]
    assert refreshed.stats["deleted"] == ["memory/2026-11-03.md"]
    assert refreshed.stats["delta_files"] == 2

    fresh = open_index(ws, params, rebuild=True)
    reloaded = open_index(ws, params)  # from disk: base, delta and the live mask
    for q in QUERIES:
        want = _ranking(fresh, q)
        assert _ranking(reloaded, q) == want
        assert all(p != "memory/2026-11-03.md" for p, _, _ in want)


def test_touching_a_file_without_changing_it_rechunks_nothing(tmp_path):
    ws = _ws(tmp_path)
    open_index(ws, IndexParams())
    path = ws.root / "MEMORY.md"
    path.write_bytes(path.read_bytes())  # new mtime, same bytes
    index = open_index(ws, IndexParams())
    assert index.stats == {} and index.files["MEMORY.md"]["mtime_ns"] == path.stat().st_mtime_ns


def test_many_changes_merge_the_delta_into_the_base(tmp_path):
    ws = _ws(tmp_path)
    params = IndexParams()
    open_index(ws, params)
    for path in sorted((ws.root / "memory").glob("*.md"))[:8]:  # > 25 % of the base dies
        append_entries(
            path, path_date(path), [NewEntry(datetime(2026, 11, 30, 23), "note", "extra")]
        )
    merged = open_index(ws, params)
    assert merged.stats.get("merged", 0) > 0 and merged.delta.n == 0
    fresh = open_index(ws, params, rebuild=True)
    for q in QUERIES:
        assert _ranking(merged, q) == _ranking(fresh, q)


def test_a_parameter_change_forces_a_rebuild(tmp_path):
    ws = _ws(tmp_path)
    open_index(ws, IndexParams())
    assert open_index(ws, IndexParams(chunk_tokens=200)).stats["mode"] == "rebuild"


def test_a_corrupt_cache_is_rebuilt_and_recall_never_fails(tmp_path):
    ws = _ws(tmp_path)
    params = IndexParams()
    good = open_index(ws, params)
    want = _ranking(good, "redis 连接超时")
    store = ws.state_dir / "index"
    meta = json.loads((store / "meta.json").read_text(encoding="utf-8"))

    base = store / meta["base"]
    base.write_bytes(base.read_bytes()[: base.stat().st_size // 2])  # truncated
    index = open_index(ws, params)
    assert index.warnings and "unreadable" in index.warnings[0] and "rebuilt" in index.warnings[0]
    assert _ranking(index, "redis 连接超时") == want

    (store / "meta.json").write_text("{not json", encoding="utf-8")
    assert _ranking(open_index(ws, params), "redis 连接超时") == want

    meta = json.loads((store / "meta.json").read_text(encoding="utf-8"))
    (store / meta["delta"]).write_bytes(b"MEMPACK1 garbage")
    assert _ranking(open_index(ws, params), "redis 连接超时") == want
    meta = json.loads((store / "meta.json").read_text(encoding="utf-8"))
    (store / meta["files"]).write_bytes(b"")
    assert _ranking(open_index(ws, params), "redis 连接超时") == want
    meta = json.loads((store / "meta.json").read_text(encoding="utf-8"))
    _overwrite(store / meta["base"], "post.gaps", 0x7F)  # document ids out of range
    assert _ranking(open_index(ws, params), "redis 连接超时") == want


def _overwrite(path: Path, name: str, byte: int) -> None:
    """Every byte of one array of a pack set to `byte`, the file's size unchanged."""
    from openclaw_mem.index import pack

    arrays, offsets = pack.read_with_offsets(path)
    size = arrays[name].nbytes
    del arrays
    with open(path, "r+b") as f:
        f.seek(offsets[name])
        f.write(bytes([byte]) * size)


def test_non_utf8_files_are_skipped_with_a_warning(tmp_path):
    ws = _ws(tmp_path)
    (ws.root / "memory" / "2026-11-22.md").write_bytes("## 09:00 · user\n连接超时\n".encode("gbk"))
    index = open_index(ws, IndexParams())
    assert any("2026-11-22.md is not valid UTF-8" in w for w in index.warnings)
    again = open_index(ws, IndexParams())  # reported every time, never indexed
    assert any("2026-11-22.md" in w for w in again.warnings)
    assert "memory/2026-11-22.md" not in again.paths


def test_include_and_exclude_globs(tmp_path):
    ws = _ws(tmp_path)
    (ws.root / "skills").mkdir()
    (ws.root / "skills" / "SKILL.md").write_text("redis skill", encoding="utf-8")
    index = open_index(ws, IndexParams(exclude=("memory/2026-11-0*.md",)))
    assert "skills/SKILL.md" not in index.paths
    assert not any(p.startswith("memory/2026-11-0") for p in index.paths)
    index = open_index(ws, IndexParams(include=("*.md", "memory/**/*.md", "skills/**/*.md")))
    assert "skills/SKILL.md" in index.paths


def test_each_chunk_keeps_the_days_its_words_speak_of(tmp_path):
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text(
        "# MEMORY\n\n- Moved to Lisbon in March 2024.\n- Likes tea.\n", encoding="utf-8"
    )
    day = datetime(2023, 1, 23, 9, 0)
    append_entries(
        root / "memory" / "2023-01-23.md",
        day.date(),
        [
            NewEntry(day, "user", "I finished an electrical engineering project last week"),
            NewEntry(day.replace(minute=5), "user", "上个月去了杭州"),
            NewEntry(day.replace(minute=9), "user", "nothing timed here"),
        ],
    )
    index = open_index(Workspace(root), IndexParams())
    first, last = index.doc("about_first"), index.doc("about_last")
    pid, start, end = index.doc("path_id"), index.doc("start"), index.doc("end")

    def about(path: str, line: int) -> tuple[str, str] | None:
        at = index.paths.index(path)
        d = next(d for d in range(len(first)) if pid[d] == at and start[d] <= line <= end[d])
        if np.isnan(first[d]):
            return None
        epoch = date(1970, 1, 1)
        return tuple((epoch + timedelta(days=int(x))).isoformat() for x in (first[d], last[d]))

    log = "memory/2023-01-23.md"
    text = (root / log).read_text(encoding="utf-8").split("\n")
    line = {
        w: next(i for i, t in enumerate(text, 1) if w in t) for w in ("project", "杭州", "nothing")
    }
    assert about(log, line["project"]) == ("2023-01-16", "2023-01-22")
    assert about(log, line["杭州"]) == ("2022-12-01", "2022-12-31")
    assert about(log, line["nothing"]) is None
    assert about("MEMORY.md", 3) == ("2024-03-01", "2024-03-31")  # undated: absolute dates only
    assert about("MEMORY.md", 4) is None


def test_a_curated_line_reads_its_times_against_the_day_it_was_written(tmp_path):
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text(
        "# MEMORY\n\n- Mom's birthday is December 12. <!-- fact i=0.8 c=0.9 2026-11-17 -->\n",
        encoding="utf-8",
    )
    index = open_index(Workspace(root), IndexParams())
    live = [d for d in range(len(index.live)) if index.doc("start")[d] <= 3 <= index.doc("end")[d]]
    day = date(1970, 1, 1) + timedelta(days=int(index.doc("about_first")[live[0]]))
    assert day == date(2026, 12, 12)
