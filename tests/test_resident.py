"""The resident process: answers over .mem/mem.sock equal in-process answers, a dead one's
socket is detected and passed by, workspaces never answer for each other, and a query
during a refresh gets a whole answer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openclaw_mem import serve
from openclaw_mem.embed.base import EmbedError
from openclaw_mem.memory import Memory
from openclaw_mem.serve import resident


@pytest.fixture
def served(ws):
    for i, text in enumerate(
        ["Redis 连接超时 on the settlement worker", "周末跑了 10 公里", "deploy at 5pm"]
    ):
        ws("log", "--at", f"2026-11-30T09:0{i}", text)
    mem = Memory.open(ws.root, env=dict(os.environ))
    server = serve.start_resident(mem)
    assert server is not None and resident.serving(ws.root)
    yield ws, mem
    server.stop()


def test_answers_over_the_socket_equal_the_in_process_ones(served):
    ws, _ = served
    for args in (
        ("recall", "--now", "2026-11-30T12:00", "Redis 连接超时"),
        ("recall", "--now", "2026-11-30T12:00", "--explain", "跑步 公里"),
        ("context", "--now", "2026-11-30T12:00", "redis"),
        ("get", "memory/2026-11-30.md#L3-L4"),
    ):
        via_socket = ws(*args, "--json").stdout
        in_process = ws(*args, "--json", "--no-daemon").stdout
        assert via_socket == in_process, args
        assert ws(*args).stdout == ws(*args, "--no-daemon").stdout  # the tables too
    assert ws.json("status")["resident"] is True
    error = ws("get", "../outside.md", ok=False)  # a domain error comes back as ours
    assert error.exit_code == 2 and "`..` is not allowed" in error.stderr


def test_a_killed_resident_process_leaves_a_socket_that_is_passed_by(ws):
    ws("log", "--at", "2026-11-30T09:00", "Redis 连接超时 again")
    proc = subprocess.Popen(
        [sys.executable, "-m", "openclaw_mem", "-w", str(ws.root), "watch", "--debounce", "0.1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert "answering recall" in proc.stdout.readline()
    sock = ws.root / ".mem" / "mem.sock"
    assert sock.is_socket()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert sock.exists()  # SIGKILL: no clean-up
    start = time.perf_counter()
    hits = ws.json("recall", "--now", "2026-11-30T12:00", "Redis")["results"]
    assert hits and time.perf_counter() - start < 5
    assert not sock.exists()  # detected as stale and removed
    assert ws.json("status")["resident"] is False


def test_two_workspaces_never_answer_for_each_other(ws, tmp_path):
    other = Memory.open(ws.root, env=dict(os.environ))
    server = resident.Resident(tmp_path / "elsewhere", other.answer)  # serves another root
    (tmp_path / "elsewhere" / ".mem").mkdir(parents=True)
    # A socket at ws's path answering for a different root is refused, not trusted.
    server.path = resident.socket_path(ws.root)
    assert server.start()
    try:
        assert resident.ask(ws.root, "ping", {}) is None  # not trusted
        ws("log", "--at", "2026-11-30T09:00", "only in ws")
        hits = ws.json("recall", "--now", "2026-11-30T12:00", "only in ws")["results"]
        assert hits[0]["path"] == "memory/2026-11-30.md"  # answered in-process, correctly
    finally:
        server.stop()


@pytest.mark.slow
def test_a_query_during_a_refresh_gets_a_whole_answer(served):
    ws, mem = served
    watcher = serve.watcher(mem, lambda r: None, debounce=0.05)
    watcher.start()
    stop = threading.Event()
    failures: list[str] = []

    def writer() -> None:
        i = 0
        while not stop.is_set():
            ws("log", "--at", "2026-11-30T10:00", f"Redis note number {i}")
            i += 1
            # An agent's pace, not a tight loop: the log would grow by thousands of entries
            # and every query re-read it (75 s for one test).
            time.sleep(0.05)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(20):
            answer = resident.ask(ws.root, "recall", {"query": "Redis", "k": 3})
            if not answer or not answer["ok"]:
                failures.append(str(answer))
                continue
            for hit in answer["result"]["results"]:
                text = (ws.root / hit["path"]).read_text(encoding="utf-8").split("\n")
                if "Redis" not in "\n".join(text[hit["startLine"] - 1 : hit["endLine"]]):
                    failures.append(f"{hit} does not hold what it cites")
    finally:
        stop.set()
        thread.join()
        watcher.stop()
    assert not failures, failures[:3]


def test_the_socket_is_private(served):
    ws, _ = served
    mode = (ws.root / ".mem" / "mem.sock").stat().st_mode & 0o777
    assert mode == 0o600


def _fast_equals_full_app(ws, args: tuple[str, ...], full_args: tuple[str, ...]) -> None:
    """`mem ARGS` in a fresh interpreter (the fast path) imports neither typer nor rich and
    prints what the full app prints for FULL_ARGS (recall: the same hits; scores may differ
    in the last digit, "now" having moved on)."""
    fast = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "openclaw_mem", "-w", str(ws.root), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    assert fast.returncode == 0, fast.stderr
    assert " typer" not in fast.stderr and " rich" not in fast.stderr  # not imported
    slow = ws(*full_args).stdout
    if args[0] == "recall":
        paths = [(h["path"], h["startLine"]) for h in json.loads(slow)["results"]]
        got = [(h["path"], h["startLine"]) for h in json.loads(fast.stdout)["results"]]
        assert got == paths and got
    else:
        assert fast.stdout == slow


def test_recall_and_context_skip_the_cli_framework_when_a_resident_answers(served):
    ws, _ = served
    for args in (
        ("recall", "--json", "Redis 连接超时"),
        ("context", "redis", "--budget", "300"),
        ("get", "memory/2026-11-30.md#L3-L4"),
        ("get", "--json", "memory/2026-11-30.md:3:2"),
    ):
        _fast_equals_full_app(ws, args, (*args, "--no-daemon"))


def test_asking_a_resident_imports_next_to_nothing(served):
    """On a bare interpreter (no site, so nothing preloaded) the per-turn client imports the C
    halves of socket and json and our few small modules: not socket's or json's Python
    halves (json's imports re), pathlib, typing or threading, which cost ~15 ms between them,
    more than the rest of its start-up."""
    ws, _ = served
    repo = os.path.dirname(os.path.dirname(os.path.abspath(resident.__file__)))
    probe = (
        f"import sys\nsys.path.insert(0, {repo!r})\nfrom openclaw_mem.entry import main\n"
        "sys.argv = ['mem'] + sys.argv[1:]\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    args = ("-w", str(ws.root), "recall", "--json", "Redis 连接超时")
    run = subprocess.run(
        [sys.executable, "-S", "-c", probe, *args], capture_output=True, text=True, encoding="utf-8"
    )
    assert run.returncode == 0, run.stderr
    loaded = set(run.stderr.split())
    assert "openclaw_mem.serve.socket_client" in loaded  # it did ask the resident
    heavy = {
        "socket",
        "json",
        "re",
        "pathlib",
        "typing",
        "threading",
        "numpy",
        "openclaw_mem.memory",
    }
    assert not loaded & heavy, loaded & heavy
    hits = [(h["path"], h["startLine"]) for h in json.loads(run.stdout)["results"]]
    full = ws.json("recall", "--no-daemon", "Redis 连接超时")["results"]
    assert hits and hits == [(h["path"], h["startLine"]) for h in full]


@pytest.mark.slow
def test_with_no_resident_recall_and_context_answer_in_process_without_the_cli_framework(ws):
    for i, text in enumerate(["Redis 连接超时 on the settlement worker", "deploy at 5pm"]):
        ws("log", "--at", f"2026-11-30T09:0{i}", text)
    assert not resident.serving(ws.root)
    for args in (
        ("recall", "--json", "Redis 连接超时"),
        ("recall", "--no-daemon", "--json", "-k", "1", "Redis"),
        ("context", "--no-daemon", "redis"),
        ("get", "memory/2026-11-30.md#L3-L4"),
        ("get", "--no-daemon", "--json", "memory/2026-11-30.md:3:2"),
    ):
        _fast_equals_full_app(ws, args, args)
    cmd = [sys.executable, "-X", "importtime", "-m", "openclaw_mem", "-w", str(ws.root)]
    got = subprocess.run(
        [*cmd, "get", "memory/2026-11-30.md:3:2"],
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    assert got.returncode == 0 and "Redis" in got.stdout
    assert " numpy" not in got.stderr  # reading lines needs no index
    outside = subprocess.run(
        [sys.executable, "-m", "openclaw_mem", "-w", str(ws.root), "get", "../x.md"],
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    assert outside.returncode == 2 and outside.stderr.startswith("mem: error:")
    missing = subprocess.run(
        [sys.executable, "-m", "openclaw_mem", "-w", str(ws.root / "no"), "recall", "--json", "x"],
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    assert missing.returncode != 0 and missing.stderr.startswith("mem: error:")
    assert "Traceback" not in missing.stderr


def test_a_resident_counts_what_it_recalled_once_the_answer_is_sent(served):
    ws, _ = served
    access = ws.root / ".mem" / "access.json"
    before = json.loads(access.read_text(encoding="utf-8")) if access.exists() else {}
    hits = ws.json("recall", "--now", "2026-11-30T12:00", "Redis 连接超时")["results"]
    assert hits
    for _ in range(100):  # the count is written after the reply, on the resident's thread
        after = json.loads(access.read_text(encoding="utf-8")) if access.exists() else {}
        if sum(r["count"] for r in after.values()) > sum(r["count"] for r in before.values()):
            break
        time.sleep(0.02)
    else:
        raise AssertionError("the resident never counted the hits it gave")
    assert any(r["path"] == hits[0]["path"] for r in after.values())


_QUERY_LIKE = """
import resource, sys
import numpy as np
from openclaw_mem.store import heap
if sys.argv[1] == "keep" and not heap.keep_freed_memory():
    print("no glibc")
    raise SystemExit
def query():  # the sizes of a 100k-chunk query's temporary arrays, freed at its end
    arrays = [np.ones(n) for n in (40_000, 140_000, 100_000, 300_000, 37_000, 37_000, 100_000)]
    return sum(float(a[0]) for a in arrays)
query()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    query()
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 10)
"""


def test_a_resident_keeps_its_freed_heap_so_a_query_takes_no_page_faults():
    """What heap.keep_freed_memory buys, measured as the kernel counts it: a query's arrays
    faulted in afresh every time (~1,400 faults each), and come back warm once it is set."""
    runs = {
        how: subprocess.run(
            [sys.executable, "-c", _QUERY_LIKE, how], capture_output=True, text=True, check=True
        ).stdout.split()
        for how in ("default", "keep")
    }
    if runs["keep"] == ["no", "glibc"]:
        pytest.skip("malloc here is not glibc's")
    assert float(runs["default"][-1]) > 500
    assert float(runs["keep"][-1]) < 50


def test_starting_a_resident_tunes_the_heap_and_a_refresh_gives_memory_back(ws, monkeypatch):
    from openclaw_mem.store import heap

    calls = []
    monkeypatch.setattr(heap, "keep_freed_memory", lambda: calls.append("keep") or True)
    monkeypatch.setattr(heap, "give_back", lambda: calls.append("give back"))
    ws("log", "--at", "2026-11-30T09:00", "Redis 连接超时")
    mem = Memory.open(ws.root, env=dict(os.environ))
    server = serve.start_resident(mem)
    try:
        assert calls == ["keep"]
        watcher = serve.watcher(mem, lambda refresh: None, debounce=0.05)
        watcher.start()
        try:
            ws("log", "--at", "2026-11-30T09:01", "deploy at 5pm")
            for _ in range(200):
                if "give back" in calls:
                    break
                time.sleep(0.02)
        finally:
            watcher.stop()
    finally:
        server.stop()
    assert "give back" in calls


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(_JSON)
def test_the_clients_json_is_the_json_modules(value):
    """The client speaks JSON through _json's C halves; both ways it must agree with json."""
    from openclaw_mem.serve import socket_client

    text = socket_client.dumps(value)
    assert json.loads(text) == value
    assert socket_client.loads(json.dumps(value, ensure_ascii=False, indent=1)) == value
    assert socket_client.loads(text + "\n") == value


@pytest.mark.parametrize("bad", ["", "{", '{"v": 3} x', "[1,]", "nul", '"\\x"'])
def test_the_clients_json_refuses_what_json_refuses(bad):
    from openclaw_mem.serve import socket_client

    with pytest.raises(ValueError):
        json.loads(bad)
    with pytest.raises(ValueError):
        socket_client.loads(bad)


def test_the_clients_json_refuses_nesting_deeper_than_the_stack():
    from openclaw_mem.serve import socket_client

    with pytest.raises(ValueError):
        socket_client.loads("[" * 200_000)


def test_the_resident_sends_data_and_the_client_renders_what_the_command_prints(served):
    from openclaw_mem.serve.fast_output import render

    ws, _ = served
    spec = "memory/2026-11-30.md#L3-L4"
    data = resident.ask(ws.root, "get", {"spec": spec})["result"]
    assert data["path"] == "memory/2026-11-30.md" and "stdout" not in data  # data, not output
    shown = render("get", data, "")
    assert shown == {"stdout": ws("get", spec, "--no-daemon").stdout, "stderr": [], "exit": 0}
    data = resident.ask(ws.root, "recall", {"query": "redis", "k": 2})["result"]
    full = ws("recall", "--json", "-k", "2", "--no-daemon", "redis").stdout
    assert render("recall", data, "json")["stdout"] == full


def test_the_clients_json_writer_prints_what_json_dumps_prints():
    import json

    from openclaw_mem.serve.socket_client import dumps

    for value in [
        {"results": []},
        {},
        [],
        {"a": [1, 2.5, None, True, '中文 "q" \n\t'], "b": {"c": {}, "d": [[]]}, "e": -0.0},
        {"score": 0.8832, "n": 10**20, "nested": [{"x": [1, {"y": "z"}]}]},
    ]:
        for indent in (None, 2):
            expected = json.dumps(value, ensure_ascii=False, indent=indent)
            if indent is None:
                expected = json.dumps(value, ensure_ascii=False)
            assert dumps(value, indent=indent) == expected, (value, indent)


def test_a_stopped_resident_or_a_foreign_listener_costs_a_moment_not_thirty_seconds(ws):
    import socket as _socket

    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "Redis runs on the small box")
    path = ws.root / ".mem" / "mem.sock"
    path.parent.mkdir(exist_ok=True)
    silent = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    silent.bind(str(path))
    silent.listen(4)  # accepts, never speaks: a stopped resident, or another program
    try:
        start = time.perf_counter()
        hits = ws.json("recall", "--now", "2026-11-30T12:00", "Redis")["results"]
        took = time.perf_counter() - start
    finally:
        silent.close()
    assert hits and took < 10, took  # the timeout it guards against is 30 s


@pytest.mark.slow
def _watching(ws) -> subprocess.Popen:
    """`mem watch` over a workspace of one entry, as its own process."""
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "Redis runs on the small box")
    return subprocess.Popen(
        [sys.executable, "-m", "openclaw_mem", "-w", str(ws.root), "watch", "--debounce", "0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_resident_whose_workspace_moves_stops_answering_and_watch_exits(ws, tmp_path):
    proc = _watching(ws)
    try:
        assert "answering recall" in proc.stdout.readline()
        moved = tmp_path / "moved"
        ws.root.rename(moved)
        _, err = proc.communicate(timeout=15)
    finally:
        proc.kill()
    assert "moved or was removed; stopping" in err
    assert not ws.root.exists()  # the old path was not re-created


def test_a_watch_whose_mem_folder_is_deleted_answers_again(ws):
    """An outside audit: with `.mem/` deleted under a running `mem watch`, it went on
    refreshing the index but never made its socket again, and `mem status` said there was no
    resident."""
    import shutil

    proc = _watching(ws)
    try:
        assert "answering recall" in proc.stdout.readline()
        shutil.rmtree(ws.root / ".mem")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (ws.root / ".mem" / "mem.sock").exists():
            time.sleep(0.1)
        assert "resident answering" in ws("status").stdout
        assert "small box" in ws("recall", "redis").stdout
    finally:
        proc.kill()
        proc.communicate(timeout=15)


@pytest.mark.slow
def test_right_after_an_edit_the_resident_cites_the_lines_as_they_are(served):
    ws, mem = served
    watcher = serve.watcher(mem, lambda r: None, debounce=5.0)  # the refresh is far off
    watcher.start()
    try:
        time.sleep(0.3)  # the warm-up refresh
        log = ws.root / "memory" / "2026-11-30.md"
        text = log.read_text(encoding="utf-8")
        log.write_text(
            text.replace("# 2026-11-30\n\n", "# 2026-11-30\n\nA line above.\n\n"), encoding="utf-8"
        )  # everything moves down two lines
        time.sleep(0.3)  # the watcher sees it; the debounce has not run out
        answer = resident.ask(ws.root, "recall", {"query": "Redis", "k": 3})
        assert answer and answer["ok"]
        lines = log.read_text(encoding="utf-8").split("\n")
        for hit in answer["result"]["results"]:
            cited = "\n".join(lines[hit["startLine"] - 1 : hit["endLine"]])
            assert "Redis" in cited, (hit, cited)
        log.unlink()  # a file that is gone is not cited either
        time.sleep(0.3)
        answer = resident.ask(ws.root, "recall", {"query": "Redis", "k": 3})
        assert answer and answer["ok"] and answer["result"]["results"] == []
    finally:
        watcher.stop()


@pytest.mark.parametrize("value", [{True: 1}, {None: 1}, {float("nan"): 1}, {1.5: 2}])
def test_the_clients_json_writer_writes_keys_as_json_does(value):
    import json

    from openclaw_mem.serve.socket_client import dumps

    assert dumps(value, indent=2) == json.dumps(value, ensure_ascii=False, indent=2)


def test_an_answer_takes_a_now_with_an_offset(memory):
    """MEM_NOW=…+08:00 reaches the resident as given: answered, not a TypeError."""
    from openclaw_mem.recall.reads import Read

    memory.log("x marks the spot")
    for op in ("recall", "context"):
        assert memory.answer(Read(op, query="x marks", now="2026-01-05T10:00+08:00"))


def test_a_resident_loads_a_slow_model_before_it_serves_and_leaves_a_remote_one_alone(ws):
    """Issue 33: a hand-started `mem watch` or `mem serve` loaded its model only at its first
    query, so the first calls after it still paid the load. A model that is slow to start is
    loaded before the socket says it serves; a remote endpoint is not called to warm it."""

    class Model:
        def __init__(self, slow: bool) -> None:
            self.slow_start, self.asked = slow, []
            self.key = "fake"

        def embed(self, texts, *, query: bool = False):
            self.asked.append((list(texts), query, resident.serving(ws.root)))
            raise EmbedError("a fake model embeds nothing")

    for slow in (True, False):
        mem = Memory.open(ws.root, env=dict(os.environ))
        model = Model(slow)
        mem.place._embedder = model
        server = serve.start_resident(mem)
        assert server is not None
        try:
            if slow:  # loaded once, and before the socket served
                assert model.asked == [(["warm"], True, False)]
            else:
                assert model.asked == []
        finally:
            server.stop()
