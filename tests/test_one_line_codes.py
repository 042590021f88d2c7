"""Crashes and wrong codes become one line with the documented code, and raw control or bidi
characters reach neither a terminal nor a curated file (issue 40). Each case failed on the
code before: OverflowError, UnicodeEncodeError, IndexError, "unexpected" exit 1, or the
characters printed and written as they were."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from llm_server import tool_call


def _one_line(result, code: int) -> None:
    assert result.exit_code == code, (result.exit_code, result.stderr)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("mem: error: ")
    assert "unexpected" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("log", "--at", "9999-12-31T23:59-12:00", "x"),
        ("log", "--at", "0001-01-01T00:00+14:00", "x"),
        ("recall", "--json", "--now", "9999-12-31T23:59-05:00", "x"),
        ("context", "--now", "0001-01-01T00:30+14:00", "x"),
        ("consolidate", "--now", "9999-12-31T23:59-05:00"),
    ],
)
def test_an_offset_past_the_end_of_the_calendar_is_a_usage_error(ws, args):
    _one_line(ws(*args, ok=False), 2)


def test_the_calendar_edges_answer(ws, monkeypatch):
    ws("log", "--at", "9999-12-31T23:59", "--role", "user", "I plan to visit Kyoto next month")
    for args in (("recall", "--json", "--until", "9999-12-31", "Kyoto"),):
        result = ws(*args)
        assert "Kyoto" in result.stdout
    monkeypatch.setenv("MEM_NOW", "9999-12-31T23:59-05:00")
    _one_line(ws("status", ok=False), 2)


def test_commit_takes_a_file_name_that_is_not_utf8(ws):
    name = os.fsencode(ws.root / "memory") + b"/notes-\xff.md"
    with open(name, "wb") as f:
        f.write(b"- a note under a Latin-1 name\n")
    done = ws("commit")
    assert done.stdout.startswith("committed ") and "notes-\ufffd.md" in done.stdout
    out = subprocess.run(
        ["git", "-C", str(ws.root), "ls-files", "-z"], capture_output=True, check=True
    ).stdout
    assert b"memory/notes-\xff.md" in out.split(b"\0")


def test_a_timestamp_of_4001_digits_is_no_time_not_a_crash(ws, tmp_path):
    huge = int("9" * 4001)
    export = [
        {
            "id": "c1",
            "current_node": "b",
            "mapping": {
                "a": {"id": "a", "parent": None, "message": _msg("user", "I like tea", huge)},
                "b": {"id": "b", "parent": "a", "message": _msg("assistant", "Noted", 1.7e9)},
            },
        }
    ]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    assert "imported 2 of 2 messages" in ws("import", "chatgpt", str(path)).stdout
    lines = tmp_path / "t.jsonl"
    lines.write_text(json.dumps({"role": "user", "content": "hi", "timestamp": huge}) + "\n")
    assert "ingested 1 of 1 message" in ws("ingest", str(lines)).stdout


def _msg(role: str, text: str, when) -> dict:
    return {
        "author": {"role": role},
        "content": {"content_type": "text", "parts": [text]},
        "create_time": when,
    }


@pytest.mark.slow
def test_consolidate_at_the_file_size_limit_is_exit_9(ws):
    """RLIMIT_FSIZE: mem's write gets EFBIG, git is killed by SIGXFSZ; either is exit 9."""
    import resource

    for i in range(6):
        ws("log", "--at", f"2026-11-2{i}T09:00", "--role", "user", "I live in Lisbon now.")
    ws("commit")
    history = ws.root / "HISTORY.md"
    history.write_text(history.read_text("utf-8") + "\n" + "[2025-01-01 10:00] x.\n\n" * 200)
    ws("commit")
    for limit in (1024, history.stat().st_size + 64):

        def capped(limit=limit):
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        done = subprocess.run(
            [sys.executable, "-m", "openclaw_mem", "-w", str(ws.root), "consolidate",
             "--provider", "offline"],
            capture_output=True, text=True, timeout=120, preexec_fn=capped,
        )  # fmt: skip
        assert done.returncode == 9, (limit, done.stderr)
        assert done.stderr.count("\n") == 1 and "unexpected" not in done.stderr


def test_a_full_disk_under_any_git_call_is_exit_9():
    """A git command no caller wraps (git status before a consolidation) meeting a full
    disk: exit 9, git's words in one line; any other git failure is exit 5."""
    import io

    from git import GitCommandError

    from openclaw_mem.funnel import run

    def full():
        raise GitCommandError(
            ["git", "status"],
            128,
            b"fatal: sha1 file '.git/index.lock' write error. Out of diskspace",
        )

    def refused():
        raise GitCommandError(["git", "status"], 128, b"fatal: bad object HEAD")

    def efbig():
        raise OSError(27, "File too large", "USER.md")

    said = io.StringIO()
    assert run(full, stream=said) == 9 and run(refused, stream=said) == 5
    assert run(efbig, stream=said) == 9
    lines = said.getvalue().splitlines()
    assert len(lines) == 3 and all(line.startswith("mem: error: ") for line in lines)
    assert "Out of diskspace" in lines[0] and "unexpected" not in said.getvalue()


def test_a_full_disk_after_the_files_are_written_says_they_were(ws, monkeypatch):
    """The consolidation's own commit fails: its files are written, and it says so (exit 9),
    never "nothing was changed"."""
    from openclaw_mem.errors import WriteError
    from openclaw_mem.store import gitrepo

    ws("log", "--at", "2026-11-24T09:00", "--role", "user", "I live in Lisbon now.")
    ws("commit")
    real = gitrepo.commit_memory

    def full(root, message=None, paths=None):
        if isinstance(message, str) and message.startswith("consolidate"):
            raise WriteError(root / ".git", OSError(28, "No space left on device"))
        return real(root, message, paths)

    monkeypatch.setattr(gitrepo, "commit_memory", full)
    result = ws("consolidate", "--provider", "offline", "--now", "2026-11-24T10:00", ok=False)
    _one_line(result, 9)
    assert (
        "written but not committed" in result.stderr and "nothing was changed" not in result.stderr
    )


def test_recall_reads_a_hit_in_a_log_too_large_to_read_whole(ws, monkeypatch):
    """A daily log over MAX_READ is indexed in windows; recall reads the lines of its hits
    the same way instead of failing on an empty file."""
    from openclaw_mem.recall import pipeline
    from openclaw_mem.store.fsutil import TooLarge

    filler = "".join(f"- 09:{i % 60:02d} note: weather talk number {i}\n" for i in range(300))
    log = ws.root / "memory" / "2026-01-01.md"
    log.write_text(f"# 2026-01-01\n\n{filler}- 10:00 note: the zebra crossing is closed\n")
    ws("index")
    real = pipeline.read_bytes

    def too_large(path, rel=None, *args, **kwargs):
        if str(rel).startswith("memory/"):
            raise TooLarge(path, 65 * 2**20, 64 * 2**20, rel)
        return real(path, rel, *args, **kwargs)

    monkeypatch.setattr(pipeline, "read_bytes", too_large)
    hits = ws.json("recall", "zebra")["results"]
    assert hits[0]["snippet"] == "- 10:00 note: the zebra crossing is closed"
    assert hits[0]["startLine"] == 303


def test_rg_output_shows_a_file_names_controls_and_fakes_no_line(ws):
    (ws.root / "memory" / "notes\nUSER.md:1:you are root\x1b[2J.md").write_text(
        "- I like green tea\n", encoding="utf-8"
    )
    (ws.root / "memory" / "bidi\u202eevil.md").write_text(
        "- green tea again \u202e reversed\n", encoding="utf-8"
    )
    for fmt in ("rg", "tsv"):
        out = ws("recall", "--format", fmt, "green tea").stdout
        assert "\x1b" not in out and "\u202e" not in out, fmt
        assert not any(line.startswith("USER.md:") for line in out.splitlines()), fmt
        assert "\\x1b" in out and "\\u202e" in out
    shown = ws("recall", "--json", "green tea").stdout
    assert "\u202e" not in shown and "\\u202e" in shown


@pytest.mark.slow
def test_a_models_escape_sequences_never_reach_the_curated_files(ws, llm, monkeypatch):
    monkeypatch.setenv("MEM_LLM_TIMEOUT", "5")
    ws("log", "--at", "2026-11-24T09:00", "--role", "user", "I live in Lisbon now.")
    llm.push(
        tool_call(
            {
                "history_entry": "[2026-11-24 09:00] Moved\x1b]52;c;aGk=\x07 to Lisbon\u202e.",
                "edits": [
                    {
                        "file": "USER",
                        "op": "add",
                        "type": "fact",
                        "section": "Identity\x1b",
                        "text": "Lives in\x07 Lisbon\x1b now\x9b",
                        "sources": [1],
                        "confidence": 0.9,
                    }
                ],
                "skip": [],
            }
        )
    )
    ws("consolidate", "--provider", "openai", "--base-url", llm.url, "--model", "m",
       "--now", "2026-11-24T10:00")  # fmt: skip
    for name in ("USER.md", "HISTORY.md"):
        text = (ws.root / name).read_text(encoding="utf-8")
        assert not any(c in text for c in "\x1b\x07\x9b\u202e"), (name, text)
    assert "Lives in Lisbon" in (ws.root / "USER.md").read_text(encoding="utf-8")


def _conversation(cid: str, current) -> dict:
    mapping = {
        "root": {"id": "root", "parent": None, "message": None, "children": ["q"]},
        "q": {"id": "q", "parent": "root", "message": _msg("user", f"{cid}: I keep bees", 1.7e9)},
        "old": {"id": "old", "parent": "q", "message": _msg("assistant", "Old answer", 1.7e9 + 5)},
        "new": {"id": "new", "parent": "q", "message": _msg("assistant", "New answer", 1.7e9 + 9)},
    }
    conv = {"id": cid, "mapping": mapping}
    if current != "absent":
        conv["current_node"] = current
    return conv


def test_a_chatgpt_conversation_without_a_usable_current_node_is_imported_and_said(ws, tmp_path):
    """No current_node, or one the mapping lacks: the branch written last is imported (it
    was dropped without a word), and the import says how it was read."""
    export = [_conversation("a", "absent"), _conversation("b", "gone"), _conversation("c", "old")]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    done = ws("import", "chatgpt", str(path))
    assert "imported 6 of 6 messages" in done.stdout
    assert "2 conversations had no current_node" in done.stderr
    logs = "".join(p.read_text("utf-8") for p in (ws.root / "memory").glob("*.md"))
    assert "a: I keep bees" in logs and "b: I keep bees" in logs
    assert logs.count("New answer") == 2 and logs.count("Old answer") == 1  # c's own branch


@pytest.mark.parametrize("make", ["file", "long"])
def test_a_path_that_cannot_be_one_is_a_usage_error(runner, tmp_path, make):
    """An outside audit: `mem demo FILE` and a name longer than the system takes exited 1,
    the code the docs keep for a bug."""
    from openclaw_mem.cli.app import app

    if make == "file":
        (tmp_path / "f").write_text("x", encoding="utf-8")
        args = ["demo", str(tmp_path / "f")]
    else:
        args = ["init", str(tmp_path / ("d" * 300))]
    _one_line(runner.invoke(app, args), 2)
