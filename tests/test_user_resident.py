"""One resident a user (serve/pool.py): it answers for every workspace of the user as each
would answer itself, keeps at most a few open, opens one again when its settings change,
answers for nothing that is not a workspace of the user's, and gives way to a workspace's
own `mem watch`."""

from __future__ import annotations

import os
import shutil

import pytest
from helpers import EXAMPLE, NOT_EXAMPLE, Mem, settings

from openclaw_mem import serve
from openclaw_mem.memory import Memory
from openclaw_mem.recall.reads import Read
from openclaw_mem.serve import resident
from openclaw_mem.serve.pool import Pool
from openclaw_mem.serve.socket_client import ask, serving, user_socket_file

pytestmark = pytest.mark.skipif(os.name != "posix", reason="Unix sockets")

NOW = "2026-11-30T12:00"


def _workspace(tmp_path, name: str) -> Mem:
    root = tmp_path / name
    shutil.copytree(EXAMPLE, root, ignore=NOT_EXAMPLE)
    (root / ".mem").mkdir(exist_ok=True)
    return Mem(root)


@pytest.fixture
def three(tmp_path, monkeypatch):
    """Three workspaces and the user resident the first one started (residents allowed by
    default, as where one is started: the suite turns them off)."""
    monkeypatch.delenv("MEM_WATCH_IDLE")
    spaces = [_workspace(tmp_path, name) for name in ("a", "b", "c")]
    spaces[1]("log", "--at", "2026-11-30T09:00", "Redis 连接超时 on the billing worker")
    server = serve.start_user_resident(Memory.open(spaces[0].root, env=dict(os.environ)), limit=2)
    assert server is not None and os.path.exists(user_socket_file())
    yield spaces, server
    server.stop()


def test_every_workspace_is_answered_as_it_answers_itself(three):
    spaces, server = three
    for space in spaces:
        assert serving(space.root)
        for args in (
            ("recall", "--now", NOW, "Redis timeout"),
            ("context", "--now", NOW, "redis"),
            ("get", "MEMORY.md#L1-L3"),
        ):
            via_socket = space(*args, "--json").stdout
            assert via_socket == space(*args, "--json", "--no-daemon").stdout, (space.root, args)
    # Asked in turn: at most two open, the one asked longest ago closed first.
    assert server.pool.open_roots() == [str(spaces[1].root), str(spaces[2].root)]
    assert not (spaces[0].root / ".mem" / "mem.sock").exists()  # no socket a workspace
    assert spaces[0].json("status")["residentSocket"] == user_socket_file()
    assert f"answering on {user_socket_file()}" in spaces[0]("status").stdout


def test_settings_changed_since_a_workspace_was_opened_are_read_again(three):
    spaces, server = three
    root = str(spaces[1].root)
    before = server.pool.handler_for(root).__self__
    assert server.pool.handler_for(root).__self__ is before  # kept open
    settings(spaces[1].root, "[recall]\nk = 1\n")
    assert len(spaces[1].json("recall", "--now", NOW, "Redis timeout")["results"]) == 1
    assert server.pool.handler_for(root).__self__ is not before


def test_nothing_that_is_not_a_workspace_of_the_users_is_answered_for(three, tmp_path):
    spaces, _ = three
    read = Read.ask("recall", query="Redis").to_json()
    plain = tmp_path / "plain"
    plain.mkdir()  # a folder mem never used: no real .mem/
    link = tmp_path / "link"
    link.symlink_to(spaces[1].root, target_is_directory=True)
    planted = _workspace(tmp_path, "planted")
    shutil.rmtree(planted.root / ".mem")
    (planted.root / ".mem").symlink_to(spaces[1].root / ".mem", target_is_directory=True)
    for root in (plain, link, planted.root, "relative/ws", str(spaces[1].root) + "/."):
        assert ask(root, "recall", read) is None, root  # the caller answers itself
        assert not serving(root)
    assert ask(spaces[1].root, "recall", read)["ok"]


def test_a_caller_with_other_settings_is_declined(three, monkeypatch):
    spaces, _ = three
    read = Read.ask("recall", query="Redis").to_json()
    assert ask(spaces[1].root, "recall", read, {"MEM_RECALL_K": "3"}) is None
    assert ask(spaces[1].root, "recall", read)["ok"]


def test_a_workspaces_own_resident_is_asked_first_and_a_second_user_resident_is_refused(three):
    spaces, server = three
    mem = Memory.open(spaces[2].root, env=dict(os.environ))
    own = serve.start_resident(mem)
    assert own is not None
    try:
        assert ask(spaces[2].root, "ping", {})["pid"] == os.getpid()
        own.handle = lambda read, defer: {"from": "the workspace's own"}
        got = ask(spaces[2].root, "recall", Read.ask("recall", query="Redis").to_json())
        assert got["result"] == {"from": "the workspace's own"}
    finally:
        own.stop()
    assert serve.start_user_resident(mem) is None  # the user has one already
    assert server.pool.handler_for(str(spaces[2].root)) is not None


def test_a_resident_whose_socket_was_taken_over_stops_and_leaves_the_new_one(three, tmp_path):
    spaces, server = three
    os.unlink(user_socket_file())
    other = resident.Resident(None, settings=server.settings, pool=Pool(os.environ))
    assert other.start()
    try:
        assert server.gone.wait(5)  # it saw its socket replaced
        server.stop()
        assert os.path.exists(user_socket_file())  # and did not remove the new one
        assert serving(spaces[0].root)
    finally:
        other.stop()
    assert not os.path.exists(user_socket_file())


def test_a_workspace_whose_settings_turn_residents_off_is_not_served(three):
    """`watch.idle = 0` in a workspace's own mem.toml keeps it out of the resident another
    workspace started: it answers in its own process."""
    spaces, _ = three
    settings(spaces[2].root, "[watch]\nidle = 0\n")
    read = Read.ask("recall", query="Redis").to_json()
    assert ask(spaces[2].root, "recall", read) is None and not serving(spaces[2].root)
    assert spaces[2].json("recall", "--now", NOW, "Redis timeout")["results"]  # in-process
    assert ask(spaces[1].root, "recall", read)["ok"]


def test_a_workspace_the_resident_declines_starts_no_second_one(three, monkeypatch):
    """A resident that serves, but not this workspace, is not joined by another that would
    load the model only to find the socket taken (and make the next turn wait for it)."""
    from openclaw_mem.serve import autostart

    spaces, _ = three
    settings(spaces[2].root, "[watch]\nidle = 0\n")
    mem = Memory.open(spaces[2].root, env=dict(os.environ))
    monkeypatch.setattr(autostart, "worth_it", lambda m: True)
    started = []
    monkeypatch.setattr("openclaw_mem.services.background.spawn", lambda *a, **k: started.append(a))
    assert not autostart.maybe_start(mem) and not started
    assert not autostart.coming(spaces[2].root)  # nothing on its way: no wait


def test_where_there_are_no_user_ids_no_user_resident_is_asked(three, monkeypatch):
    spaces, _ = three
    monkeypatch.delattr(os, "getuid")
    read = Read.ask("recall", query="Redis").to_json()
    assert ask(spaces[1].root, "recall", read) is None  # answered in-process, no crash
    from openclaw_mem.serve.autostart import coming

    assert not coming(spaces[1].root)


def test_mem_trust_reaches_an_open_workspace(three):
    """A setting that counts only once trusted is read again after `mem trust`, though
    mem.toml itself did not change."""
    spaces, server = three
    root = spaces[1].root
    (root / "mem.toml").write_text("[recall]\nk = 1\n", encoding="utf-8")
    first = server.pool.handler_for(str(root)).__self__
    spaces[1]("trust")
    assert server.pool.handler_for(str(root)).__self__ is not first
