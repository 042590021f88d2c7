"""A cache file damaged without changing its size is detected when the index opens (a
checksum per pack file) and rebuilt with one warning; line numbers are range-checked."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

NOW = datetime(2026, 11, 30)


def _setup(memory) -> Path:
    """The base pack of an indexed workspace."""
    for i in range(6):
        memory.log(f"redis note number {i} about timeouts", at=datetime(2026, 11, 30, 9, i))
    memory.index()
    meta = json.loads((memory.root / ".mem" / "index" / "meta.json").read_text(encoding="utf-8"))
    return memory.root / ".mem" / "index" / meta["base"]


def _array(path: Path, name: str) -> tuple[np.ndarray, int]:
    """One array of a pack (a copy) and its offset in the file."""
    from openclaw_mem.index import pack

    arrays, offsets = pack.read_with_offsets(path)
    return np.array(arrays[name]), offsets[name]


def _put(path: Path, name: str, arr: np.ndarray) -> None:
    """Write an array of the same size over one array of a pack, in place."""
    old, offset = _array(path, name)
    assert arr.nbytes == old.nbytes
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(np.ascontiguousarray(arr, old.dtype).tobytes())


def _hits(found) -> list[dict]:
    return [h.to_json() for h in found.hits]


def _corrupt_same_size(path: Path, name: str, how: str) -> None:
    arr, _ = _array(path, name)
    if how == "randomise":
        arr = np.random.default_rng(1).integers(-(2**31), 2**31, arr.shape).astype(arr.dtype)
    elif how == "zero":
        arr = np.zeros_like(arr)
    before = path.stat().st_size
    _put(path, name, arr)
    assert path.stat().st_size == before


@pytest.mark.parametrize(
    "name, how",
    [("doc.start", "randomise"), ("post.gaps", "zero"), ("post.freqs", "randomise")],
)
def test_same_size_corruption_is_caught_and_rebuilt(memory, name, how):
    base = _setup(memory)
    good = memory.recall("redis", now=NOW)
    assert good.hits and not good.warnings
    _corrupt_same_size(base, name, how)
    found = memory.recall("redis", now=NOW)
    assert len(found.warnings) == 1 and "was unreadable" in found.warnings[0]
    assert _hits(found) == _hits(good)
    assert all(h.start_line > 0 for h in good.hits)


def test_the_cli_warns_once_of_a_rebuilt_index(ws):
    for i in range(6):
        ws("log", "--at", f"2026-11-30T09:0{i}", f"redis note number {i} about timeouts")
    ws("index")
    meta = json.loads((ws.root / ".mem" / "index" / "meta.json").read_text(encoding="utf-8"))
    good = ws.json("recall", "--now", "2026-11-30", "redis")["results"]
    _corrupt_same_size(ws.root / ".mem" / "index" / meta["base"], "doc.start", "randomise")
    result = ws("recall", "--json", "--now", "2026-11-30", "redis")
    assert "was unreadable" in result.stderr and result.stderr.count("\n") == 1
    assert json.loads(result.stdout)["results"] == good


def test_swapped_permutations_are_caught(memory):
    base = _setup(memory)
    a, b = _array(base, "perm_a")[0], _array(base, "perm_b")[0]
    _put(base, "perm_a", b)
    _put(base, "perm_b", a)
    summary = memory.index()
    assert any("was unreadable" in w for w in summary.warnings)
    assert summary.to_json()["mode"] == "rebuild"  # what `mem index` prints: "index rebuild"


def test_out_of_range_line_numbers_are_refused(memory):
    base = _setup(memory)
    start, _ = _array(base, "doc.start")
    start[0] = 0  # there is no line 0 (the column is stored narrowed: no negative values)
    _put(base, "doc.start", start)
    meta_path = memory.root / ".mem" / "index" / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    from openclaw_mem.index.cache import _file_hash

    meta["checksums"][meta["base"]] = _file_hash(base)  # a consistent lie
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    hits = memory.recall("redis", now=NOW).hits
    assert hits and all(h.start_line > 0 for h in hits)


def test_an_unchanged_index_is_not_hashed_again(memory, monkeypatch):
    _setup(memory)
    memory.recall("redis")  # verifies once and remembers
    from openclaw_mem.index import cache as index

    calls = []
    real = index._file_hash
    monkeypatch.setattr(index, "_file_hash", lambda p: calls.append(p) or real(p))
    memory.recall("redis")
    assert calls == []


def test_what_a_refresh_wrote_is_not_hashed_on_the_next_open(memory, monkeypatch):
    """`mem log` then `mem recall` on every turn: the refresh writes a new delta, and the
    next call must not re-hash the whole base to trust it."""
    _setup(memory)
    memory.log("one more redis note", at=datetime(2026, 11, 30, 10))
    memory.recall("redis")  # refreshes the index and records the files it wrote
    from openclaw_mem.index import cache as index

    calls = []
    real = index._file_hash
    monkeypatch.setattr(index, "_file_hash", lambda p: calls.append(p) or real(p))
    memory.recall("redis")
    assert calls == []


def test_rows_read_with_pread_equal_the_mapped_rows(tmp_path):
    from openclaw_mem.index.cache import read_rows

    arr = np.arange(5000 * 8, dtype=np.uint32).reshape(5000, 8)
    np.save(tmp_path / "a.npy", arr)
    mapped = np.load(tmp_path / "a.npy", mmap_mode="r")
    for rows in ([], [0], [4999, 3, 3, 1200], list(range(0, 5000, 2))):  # the last: > 2048
        got = read_rows(mapped, np.asarray(rows, np.int64))
        assert got.shape == (len(rows), 8) and (got == arr[rows]).all()


@pytest.mark.parametrize("garbage", ["[1, 2]", '{"base-x/start.npy": "yes"}', "not json", ""])
def test_a_garbled_verification_record_only_costs_a_re_hash(memory, garbage):
    base = _setup(memory)
    good = memory.recall("redis", now=NOW)
    (base.parent / "verified.json").write_text(garbage, encoding="utf-8")
    found = memory.recall("redis", now=NOW)
    assert found.warnings == [] and _hits(found) == _hits(good)
    assert isinstance(json.loads((base.parent / "verified.json").read_text(encoding="utf-8")), dict)


def test_a_segment_that_vanishes_mid_read_is_read_again_from_the_new_meta(memory, monkeypatch):
    """Another process switched meta.json to a new generation and removed the old one
    between this reader's look at meta.json and its read of a segment."""
    from openclaw_mem.index import cache as index_module

    memory.log("Atlas note about Redis timeouts", at=datetime(2026, 11, 30, 9))
    memory.index()
    real = index_module.load_segment
    calls = []

    def vanished_once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise FileNotFoundError("delta-0000 removed by another writer")
        return real(*args, **kwargs)

    monkeypatch.setattr(index_module, "load_segment", vanished_once)
    found = memory.recall("Redis", k=3)
    assert found.hits and not found.warnings  # no error, and no rebuild warning either
    assert len(calls) >= 3  # the failed read, then base and delta again
