"""Recall: ranking through the library (`Memory.recall`), and what the CLI adds (the JSON
shape, the table, its errors and exit codes) through the CLI."""

from __future__ import annotations

import math
import os
from datetime import date, datetime

import pytest
from helpers import without_ids


def _log(ws, at, text, role="user"):
    ws("log", "--at", at, "--role", role, text)


def _said(memory, at: str, text: str, role: str = "user") -> None:
    memory.log(text, role=role, at=datetime.fromisoformat(at))


def _recall(memory, query: str, now: str, **options):
    return memory.recall(query, now=datetime.fromisoformat(now), **options).hits


def test_recall_in_a_mixed_chinese_english_workspace(memory):
    _said(memory, "2026-11-02T09:15", "我最近在用FastAPI做项目，还用了Redis Streams做消息队列。")
    _said(
        memory, "2026-11-05T02:14", "线上告警：Atlas 的 worker 报 Redis 连接超时，半夜被叫起来了。"
    )
    _said(memory, "2026-11-08T10:00", "Ran 12 km along the West Lake this morning.")
    _said(memory, "2026-11-09T20:00", "我的猫叫豆豆，最怕吸尘器。")
    for query, expect in [
        ("连接超时", "2026-11-05"),
        ("FastAPI", "2026-11-02"),
        ("项目", "2026-11-02"),
        ("redis 超时", "2026-11-05"),
        ("West Lake run", "2026-11-08"),
        ("猫", "2026-11-09"),
    ]:
        hits = _recall(memory, query, "2026-11-10")
        assert hits, query
        assert hits[0].path == f"memory/{expect}.md", (query, hits[0])


def test_knowledge_update_newer_statement_first(memory):
    _said(memory, "2026-09-01T10:00", "I use Python for all my backend services.")
    _said(memory, "2026-09-01T10:05", "Our CI runs on Jenkins and deploys to staging.", "assistant")
    _said(memory, "2026-10-15T09:00", "Lunch was noodles again, the team loved it.")
    _said(memory, "2026-11-24T09:05", "我现在主要用Go写后端了，Python 只用来写脚本。")
    paths = [h.path for h in _recall(memory, "backend language: Python or Go?", "2026-11-30")]
    assert paths.index("memory/2026-11-24.md") < paths.index("memory/2026-09-01.md")


def test_json_shape_snippet_limit_and_terminal_view(ws):
    long_text = "\n".join(f"line {i}: the settlement worker processed batch {i}" for i in range(80))
    ws("log", "--at", "2026-11-20T09:00", "-", input=long_text + "\nredis timeout here\n")
    _log(ws, "2026-11-21T09:00", "redis is fine today")
    out = ws.json("recall", "--now", "2026-11-22", "-k", "2", "redis timeout")
    assert list(out) == ["results"]
    for r in out["results"]:
        assert set(r) == {"path", "startLine", "endLine", "score", "snippet", "source"}
        assert len(r["snippet"]) <= 700 and r["source"] == "memory"
        assert 0 < r["score"] <= 1
    assert any("redis timeout here" in r["snippet"] for r in out["results"])
    table = ws("recall", "--now", "2026-11-22", "redis").stdout  # piped: rank, score, citation
    assert "\tmemory/2026-11-21.md#L3-L4\t" in table and "score" not in table  # no header


def test_explain_filters_and_min_score(memory):
    _said(memory, "2026-10-01T09:00", "redis upgrade planned")
    _said(memory, "2026-11-15T09:00", "redis upgrade done")
    (memory.root / "MEMORY.md").write_text(
        "# MEMORY\n\n## Facts\n\n- Redis 7 in production.\n", encoding="utf-8"
    )
    hits = _recall(memory, "redis upgrade", "2026-11-30")
    stages = hits[0].explain  # the library's names; --json writes them in camelCase
    assert set(stages) >= {"bm25", "lsh", "fused", "decay", "mmr_position", "rank_before_mmr"}
    assert {h.when for h in hits} >= {None, datetime(2026, 11, 15, 9, 0)}
    since = _recall(memory, "redis", "2026-11-30", since=date(2026, 11, 1))
    assert [h.path for h in since] == ["memory/2026-11-15.md"]
    until = _recall(memory, "redis", "2026-11-30", until=date(2026, 10, 31))
    assert [h.path for h in until] == ["memory/2026-10-01.md"]
    only = _recall(memory, "redis", "2026-11-30", path="MEMORY.md")
    assert [h.path for h in only] == ["MEMORY.md"]
    strict = _recall(memory, "redis upgrade", "2026-11-30", min_score=0.99)
    assert all(h.score >= 0.99 for h in strict)
    assert _recall(memory, "zzzz-nothing", "2026-11-30") == []


def test_deprecated_lines_count_half(memory):
    (memory.root / "USER.md").write_text(
        "# USER\n\n## Identity\n\n"
        "- ~~Mainly uses Python for backend work.~~ (deprecated 2026-11-24)\n"
        "\n## Stack\n\n- Mainly uses Go for backend work.\n",
        encoding="utf-8",
    )
    hits = memory.recall("mainly uses backend work").hits
    assert hits[0].start_line == 9 and not hits[0].deprecated  # the live bullet, alone
    struck = [h for h in hits if h.deprecated]
    assert struck and struck[0].explain["decay"] == 0.5


def test_empty_query_and_bad_dates_are_errors(ws):
    assert ws("recall", "  ", ok=False).exit_code == 2
    bad = ws("recall", "--since", "last week", "x", ok=False)
    assert bad.exit_code == 2 and "not an ISO date" in bad.stderr


def test_get_lines_and_citations(ws):
    _log(ws, "2026-11-30T09:00", "first\nsecond")
    assert without_ids(ws("get", "memory/2026-11-30.md:3:2").stdout) == "## 09:00 · user\nfirst\n"
    assert ws("get", "memory/2026-11-30.md#L4-L5").stdout == "first\nsecond\n"
    # PATH:N is line N, in get as in forget.
    data = ws.json("get", "memory/2026-11-30.md:4")
    assert data == {"path": "memory/2026-11-30.md", "from": 4, "lines": 1, "text": "first"}
    assert ws("get", "memory/2026-11-30.md:4:2").stdout == "first\nsecond\n"
    assert ws("get", "memory/2026-11-30.md:99", ok=False).exit_code == 4
    assert ws("get", "nope.md", ok=False).exit_code == 4


def test_get_refuses_paths_that_escape(ws, tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_text("top secret", encoding="utf-8")
    os.symlink(outside, ws.root / "link.md")
    os.symlink(tmp_path, ws.root / "memory" / "dir")
    (ws.root / "notes.txt").write_text("x", encoding="utf-8")
    for spec in [
        "../secret.md",
        str(outside),
        "link.md",
        "memory/dir/secret.md",
        "notes.txt",
        "memory/../../secret.md",
    ]:
        result = ws("get", spec, ok=False)
        assert result.exit_code == 2, spec
        assert "top secret" not in result.stdout
        assert result.stderr.startswith("mem: error: ") and result.stderr.count("\n") == 1


def test_index_command_and_status(ws):
    _log(ws, "2026-11-30T09:00", "redis")
    assert ws.json("status")["index"]["exists"] is False
    out = ws("index").stdout
    assert out.startswith("index rebuild:") and "chunks" in out
    assert ws.json("status")["index"] | {"written": None} == {
        "exists": True,
        "fresh": True,
        "files": 5,
        "chunks": ws.json("index")["chunks"],
        "vectors": "MinHash (no embedding model)",
        "missingVectors": 0,
        "written": None,
    }
    _log(ws, "2026-11-30T10:00", "more")
    assert ws.json("status")["index"]["fresh"] is False
    refreshed = ws.json("index")
    assert refreshed["mode"] == "refresh" and refreshed["changed"] == ["memory/2026-11-30.md"]
    assert ws.json("index", "--rebuild")["mode"] == "rebuild"
    assert "index" in ws("status").stdout


def test_the_vector_half_is_the_idf_weighted_share_of_query_words_a_chunk_holds(memory):
    _said(memory, "2026-11-30T09:00", "redis timeout on the settlement worker")
    _said(memory, "2026-11-30T09:01", "redis upgrade planned")
    for i in range(4):  # make "timeout" the rarer, heavier word
        _said(memory, f"2026-11-30T09:1{i}", f"redis note {i}")
    hits = _recall(memory, "redis timeout", "2026-11-30T12:00")
    share = {h.start_line: h.explain["lsh"] for h in hits}
    both = next(h.start_line for h in hits if "timeout" in h.snippet)
    assert share[both] == 1.0
    partial = [v for line, v in share.items() if line != both]
    assert partial and all(0 < v < 0.5 for v in partial)  # "redis" alone: the lighter word


def test_signatures_are_made_only_for_the_settings_that_read_them(ws):
    """The default `membership` reads the postings, so the index keeps no MinHash
    signatures; `recall.similarity = "containment"` (or "jaccard") rebuilds it with them, and
    after going back the next rebuild drops them."""
    from openclaw_mem.memory import Memory

    _log(ws, "2026-11-20T09:00", "redis timeout on the settlement worker")
    _log(ws, "2026-11-21T09:00", "lunch was noodles")

    def sig_width() -> int:
        mem = Memory.open(ws.root)
        return mem.recall("redis", now=datetime(2026, 11, 22)).index.base.sig.shape[1]

    assert sig_width() == 0
    by_membership = ws.json("recall", "--now", "2026-11-22", "redis timeout")["results"]
    for setting in ("containment", "jaccard"):
        (ws.root / "mem.toml").write_text(f'[recall]\nsimilarity = "{setting}"\n', "utf-8")
        assert sig_width() == 256
        got = ws.json("recall", "--now", "2026-11-22", "--explain", "redis timeout")["results"]
        assert got[0]["path"] == by_membership[0]["path"] and "timeout" in got[0]["snippet"]
        assert 0 < got[0]["explain"]["lsh"] <= 1.0  # estimated from the signatures
    (ws.root / "mem.toml").write_text('[recall]\nsimilarity = "membership"\n', "utf-8")
    assert sig_width() == 256  # served as it is (the next test says why) ...
    ws("index", "--rebuild")
    assert sig_width() == 0  # ... until it is rebuilt


def test_a_signed_index_serves_every_setting_so_two_processes_never_rebuild_in_turn(ws):
    """A `mem watch` started under one `recall.similarity` and a command run under the other
    share one index: the signed one serves both (its signatures unread by `membership`) and
    keeps its signatures in every later delta, instead of each rebuilding it in turn."""
    from openclaw_mem.index.cache import open_index
    from openclaw_mem.index.segments import IndexParams
    from openclaw_mem.recall.options import RecallOptions
    from openclaw_mem.recall.pipeline import recall
    from openclaw_mem.store.workspace import Workspace

    _log(ws, "2026-11-20T09:00", "redis timeout on the settlement worker")
    place = Workspace(ws.root)
    assert open_index(place, IndexParams()).stats["mode"] == "rebuild"
    assert open_index(place, IndexParams(signed=True)).stats["mode"] == "rebuild"  # needs them
    served = open_index(place, IndexParams())
    assert served.stats == {} and served.params.signed  # no rebuild back
    _log(ws, "2026-11-21T09:00", "redis upgrade planned")
    again = open_index(place, IndexParams())
    assert again.stats["mode"] != "rebuild" and again.delta.sig.shape == (again.delta.n, 256)
    assert open_index(place, IndexParams(signed=True)).stats == {}
    # The library's own default follows the similarity asked for.
    opts = RecallOptions(similarity="containment", now=datetime(2026, 11, 22))
    assert "timeout" in recall(place, "redis timeout", opts, record_access=False).hits[0].snippet


def test_the_decay_counts_recency_among_the_candidates_within_a_window(memory):
    """A fact and its update days apart: the newer wins. An answer months older than the
    newest candidate loses at most the window's share (exp(-0.004 · 20) ≈ 0.92), however
    long ago it was said; recall.decay_window = 0 decays from now, uncapped."""
    _said(memory, "2025-11-20T09:00", "The warehouse gate code is 4471.")
    _said(memory, "2026-11-20T09:00", "The office gate code changed to 5582.")
    _said(memory, "2026-11-25T09:00", "The office gate code changed again, to 6693.")
    hits = _recall(memory, "gate code", "2026-11-30")
    decay = {h.snippet.split("\n")[-1]: h.explain["decay"] for h in hits}
    assert hits[0].snippet.endswith("to 6693.")  # the newest statement first
    assert decay["The office gate code changed again, to 6693."] == 1.0
    assert 0.97 < decay["The office gate code changed to 5582."] < 0.99  # 5 days
    capped = math.exp(-0.004 * 20)
    assert decay["The warehouse gate code is 4471."] == pytest.approx(capped, abs=1e-4)
    from_now = memory.with_settings({"recall.decay_window": 0})
    old = [h for h in _recall(from_now, "gate code", "2026-11-30") if "4471" in h.snippet]
    age = 374.625  # days from 2025-11-20 09:00 to the start of 2026-11-30
    assert old[0].explain["decay"] == pytest.approx(math.exp(-0.004 * age), abs=1e-4)


def test_a_snippet_ends_with_text_not_with_a_left_out_comment(memory):
    (memory.root / "HISTORY.md").write_text(
        "# HISTORY\n\n[2026-11-28 09:00] Planned the Shanghai trip with the team.\n"
        "<!-- consolidated: 2 entries of memory/2026-11-28.md -->\n",
        encoding="utf-8",
    )
    hits = _recall(memory, "Shanghai trip", "2026-11-30")
    assert hits[0].snippet.endswith("Planned the Shanghai trip with the team."), hits[0].snippet


def test_a_line_longer_than_a_snippet_is_shown_around_the_word_that_matched():
    from openclaw_mem.recall.pipeline import snippet

    line = "I moved my home server to a new rack. " * 60 + "The needleword is important."
    shown = snippet(["## 14:51 · user", line], {"needleword"}, limit=300)
    assert "needleword" in shown and shown.startswith("…") and len(shown) <= 300
    assert snippet([line], {"rack"}, limit=300).startswith("I moved my home")
    长 = "我们讨论了很多事情。" * 80 + "关键词在这里"
    assert "关键" in snippet([长], {"关键"}, limit=120)
    # A review: the question's small words found first ("i" in "Long"), a lower-cased İ
    # two characters long, a hit at the line's very end.
    terms = {"what", "do", "i", "know", "about", "boulderwerk"}
    line = "Long meeting notes ... " * 25 + "Afterwards we went to Boulderwerk for climbing."
    assert "Boulderwerk" in snippet([line], terms, limit=700)
    shown = snippet(["İ" * 1500 + " I go climbing at Boulderwerk"], {"climb"}, limit=700)
    assert "climbing" in shown and len(shown) > 600
    shown = snippet(["x " * 1000 + "needleword end"], {"needleword"}, limit=700)
    assert shown.endswith("needleword end") and len(shown) > 600


def test_json_explain_gives_each_hit_its_stages_date_and_deprecated(ws):
    (ws.root / "USER.md").write_text(
        "# USER\n\n## Health\n\n- ~~Dentist is Dr Lee.~~ (deprecated 2026-11-20)\n"
        "- Dentist is Dr Park.\n",
        encoding="utf-8",
    )
    _log(ws, "2026-11-20T09:00", "Booked the dentist, Dr Park, for Friday.")
    hits = ws.json("recall", "--now", "2026-11-30", "--explain", "dentist")["results"]
    for h in hits:
        assert {"bm25", "lsh", "fused", "decay", "mmrPosition", "rankBeforeMmr"} <= set(
            h["explain"]
        )
    dated = {h["path"]: h["date"] for h in hits}
    assert dated["memory/2026-11-20.md"] == "2026-11-20T09:00" and dated["USER.md"] is None
    struck = {h["snippet"]: h["deprecated"] for h in hits if h["path"] == "USER.md"}
    assert struck == {
        "- ~~Dentist is Dr Lee.~~ (deprecated 2026-11-20)": True,
        "- Dentist is Dr Park.": False,
    }
    plain = ws.json("recall", "--now", "2026-11-30", "dentist")["results"]
    assert all("explain" not in h and "date" not in h for h in plain)


def test_now_is_the_day_a_question_that_names_days_is_read_against(ws):
    _log(ws, "2026-11-02T09:00", "Booked the dentist for the checkup.")
    _log(ws, "2026-11-20T09:00", "Booked the plumber for the leak.")
    ask = "what did I book last week"
    early = ws.json("recall", "--now", "2026-11-09", "-k", "1", ask)["results"]
    late = ws.json("recall", "--now", "2026-11-27", "-k", "1", ask)["results"]
    assert early[0]["path"] == "memory/2026-11-02.md"
    assert late[0]["path"] == "memory/2026-11-20.md"
