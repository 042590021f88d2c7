"""Recall that keeps the evidence it finds: a role or a time in a heading is structure,
not a word to match; MMR demotes a re-logged fact, not its neighbours; and a slow model
is loaded once, by a resident process the first recall starts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import EXAMPLE, NOT_EXAMPLE

from openclaw_mem.embed import local_available
from openclaw_mem.format.chunking import heading_words, searchable
from openclaw_mem.serve.socket_client import serving


@pytest.mark.parametrize(
    "line, words",
    [
        ("## 09:05 · user", ""),
        ("## 09:05 · assistant <!-- session: s1 -->", ""),
        ("## 21:40 · Caroline", "Caroline"),
        ("# 2026-11-30", ""),
        ("# USER", ""),
        ("## User preferences", "preferences"),
        ("## Notes on Redis", "on Redis"),
    ],
)
def test_headings_give_search_their_words_not_their_roles_or_times(line, words):
    assert heading_words(line) == words


def test_only_heading_lines_are_reduced():
    text = "## 09:05 · user\nthe user asked about #redis at 09:05"
    assert searchable(text) == "\nthe user asked about #redis at 09:05"


def _log(ws, *said: tuple[str, str]) -> None:
    for minute, (role, text) in enumerate(said):
        ws("log", "--role", role, "--at", f"2026-11-30T09:{minute:02d}", text)


def test_a_question_that_says_user_finds_the_fact_not_the_filler(ws):
    _log(
        ws,
        ("user", "ok"),
        ("user", "I live in Lisbon now, near Alfama."),
        ("assistant", "Noted."),
        ("user", "好的"),
        ("user", "Can you remind me about the dentist on Friday?"),
        ("assistant", "Sure, Friday morning."),
        ("user", "thanks"),
    )
    hits = ws.json("recall", "where does the user live", "-k", "3")["results"]
    assert hits and "Lisbon" in hits[0]["snippet"]
    assert all(h["snippet"].split("\n")[-1] not in ("ok", "好的", "thanks") for h in hits)
    # A time in the question is no word either: it does not match every heading.
    nothing = ws("recall", "09:03", "-k", "3", "--json", ok=False)
    assert json.loads(nothing.stdout)["results"] == [] and nothing.exit_code == 1
    # A role is a filter.
    said = ws.json("recall", "Friday", "--role", "assistant")["results"]
    assert [h["snippet"].split("\n")[-1] for h in said] == ["Sure, Friday morning."]
    asked = ws.json("recall", "Friday", "--role", "USER")["results"]
    assert [h["snippet"].split("\n")[-1] for h in asked] == [
        "Can you remind me about the dentist on Friday?"
    ]


@pytest.mark.slow
@pytest.mark.skipif(not local_available(), reason="needs the local extra")
def test_the_readmes_timezone_question_finds_the_utc8_line(tmp_path, monkeypatch):
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root, ignore=NOT_EXAMPLE)
    monkeypatch.setenv("MEM_EMBED_PROVIDER", "local")
    monkeypatch.setenv("MEM_NO_DAEMON", "1")
    from helpers import Mem

    hits = Mem(root).json("recall", "what timezone is the user in", "-k", "3")["results"]
    assert any("UTC+8" in h["snippet"] for h in hits), [h["snippet"] for h in hits]


def test_mmr_demotes_a_relogged_fact_and_keeps_its_neighbour(ws):
    fact = "Atlas canary deploys go out on Tuesdays after the standup."
    _log(
        ws,
        ("user", fact),
        ("user", "The Atlas canary rollback takes about five minutes."),
        ("user", fact),
        ("user", fact),
    )
    hits = ws.json("recall", "Atlas canary", "-k", "2")["results"]
    assert len(hits) == 2
    assert any("rollback" in h["snippet"] for h in hits)  # not the same fact twice


def test_a_fact_logged_three_times_is_shown_once_even_with_room_for_more(ws):
    """Issue 44: docs/commands.md says so; with nothing else matching, MMR filled k with the
    same fact three times (hits 1, 2 and 3)."""
    fact = "The staging database password rotates every Monday."
    _log(ws, ("user", fact), ("user", fact), ("user", fact))
    hits = ws.json("recall", "staging database rotates", "-k", "6")["results"]
    assert [h["snippet"].count(fact) for h in hits] == [1]


def _example(tmp_path, **settings: str) -> tuple:
    """A copy of workspace.example and the environment a `mem` process gets for it: the
    test's own, residents allowed, and these MEM_* settings."""
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root, ignore=NOT_EXAMPLE)
    env = {k: v for k, v in os.environ.items() if k != "MEM_NO_DAEMON"}
    env.update(settings)
    return root, env


def _mem(root, *args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "openclaw_mem", "-w", str(root), *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )


def _marker() -> Path:
    """Where a starting resident's marker lives: beside the user's socket."""
    from openclaw_mem.serve.autostart import STARTING
    from openclaw_mem.serve.socket_client import user_dir

    return Path(user_dir()) / STARTING


def _pid(root) -> int | None:
    from openclaw_mem.serve.socket_client import ask

    answer = ask(root, "ping", {}, None, timeout=1.0)
    return answer.get("pid") if answer and answer.get("ok") else None


@pytest.mark.skipif(
    not local_available() or os.name != "posix", reason="needs the local extra and sockets"
)
@pytest.mark.slow
def test_a_slow_model_is_loaded_once_by_a_resident_the_first_recall_starts(tmp_path):
    root, env = _example(tmp_path, MEM_EMBED_PROVIDER="local", MEM_WATCH_IDLE="3")
    other = tmp_path / "other"
    shutil.copytree(EXAMPLE, other, ignore=NOT_EXAMPLE)
    assert "starts one" in _mem(root, "status", env=env).stdout
    first = _mem(root, "recall", "--json", "Redis timeout", env=env)
    assert '"results"' in first.stdout
    deadline = time.monotonic() + 30
    while not serving(root) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert serving(root)  # started by the first recall, in the background
    assert not _marker().exists() and not (root / ".mem" / "mem.sock").exists()
    assert _mem(root, "recall", "--json", "Redis timeout", env=env).stdout == first.stdout
    # One a user, not one a workspace: the other workspace is answered by the same process,
    # as it would answer itself.
    alone = _mem(other, "recall", "--no-daemon", "--json", "Redis timeout", env=env).stdout
    assert _pid(other) == _pid(root) is not None
    assert _mem(other, "recall", "--json", "Redis timeout", env=env).stdout == alone
    deadline = time.monotonic() + 30  # idle = 3 s: it goes away by itself
    while serving(root) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not serving(root) and not serving(other)


@pytest.mark.slow
def test_no_resident_is_started_for_a_cheap_model_or_when_told_not_to(tmp_path):
    root, env = _example(tmp_path, MEM_EMBED_PROVIDER="none", MEM_WATCH_IDLE="600")
    _mem(root, "recall", "--json", "Redis timeout", env=env)
    if local_available():
        env.update(MEM_EMBED_PROVIDER="local", MEM_NO_DAEMON="1")
        _mem(root, "recall", "--json", "Redis timeout", env=env)
    time.sleep(0.5)
    assert not serving(root) and not _marker().exists()


def test_a_marker_left_by_a_dead_starter_costs_no_wait(tmp_path):
    from openclaw_mem.serve.autostart import coming

    root = tmp_path / "ws"
    (root / ".mem").mkdir(parents=True)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], text=True, capture_output=True
    ).stdout.strip()
    _marker().parent.mkdir(mode=0o700)
    _marker().write_text(dead, encoding="ascii")
    start = time.monotonic()
    assert not coming(root) and time.monotonic() - start < 1.0
    assert not _marker().exists()


@pytest.mark.skipif(not local_available(), reason="needs the local extra")
def test_no_resident_is_started_where_no_socket_can_listen(tmp_path, monkeypatch):
    from openclaw_mem.memory import Memory
    from openclaw_mem.serve.autostart import maybe_start

    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root, ignore=NOT_EXAMPLE)
    deep = tmp_path / ("deep-" * 20)
    deep.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    monkeypatch.setenv("MEM_EMBED_PROVIDER", "local")
    monkeypatch.setenv("MEM_WATCH_IDLE", "600")
    assert not maybe_start(Memory.open(root))
    assert not _marker().exists()


@pytest.mark.skipif(os.name != "posix", reason="permissions and links")
@pytest.mark.parametrize("planted", ["link", "open to others"])
def test_a_runtime_folder_not_private_to_the_user_is_not_used(tmp_path, planted):
    """A link planted where the user's runtime folder goes, or a folder others may enter,
    could hold another program's socket or marker: it is neither waited on, nor cleared,
    nor served on, nor asked."""
    from openclaw_mem.memory import Memory
    from openclaw_mem.serve import start_user_resident
    from openclaw_mem.serve.autostart import STARTING, coming
    from openclaw_mem.serve.socket_client import user_dir

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    if planted == "link":
        os.symlink(elsewhere, user_dir(), target_is_directory=True)
    else:
        os.mkdir(user_dir(), 0o755)
        elsewhere = Path(user_dir())
    (elsewhere / STARTING).write_text(str(os.getpid()), encoding="ascii")  # a live pid
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root, ignore=NOT_EXAMPLE)
    start = time.monotonic()
    assert not coming(root) and time.monotonic() - start < 0.5
    assert (elsewhere / STARTING).exists()
    assert start_user_resident(Memory.open(root)) is None
    assert not (elsewhere / "mem.sock").exists() and not serving(root)
