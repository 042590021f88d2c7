"""Transcripts into the daily logs through the library (`Memory.ingest`); reading a file or
stdin, and what `mem ingest` prints, through the CLI."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from openclaw_mem.errors import UsageError
from openclaw_mem.format.logs import read_entries


def _jsonl(path, rows):
    path.write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8"
    )
    return path


def _ingest(memory, src):
    """What `mem ingest FILE` hands the library: the file's lines, named as given."""
    return memory.ingest(src.read_text(encoding="utf-8").split("\n"), str(src)).report


def _local(iso_utc: str) -> datetime:
    return datetime.fromisoformat(iso_utc.replace("Z", "+00:00")).astimezone().replace(tzinfo=None)


def test_openai_messages_go_to_their_own_days(memory, tmp_path):
    src = _jsonl(
        tmp_path / "chat.jsonl",
        [
            {"role": "system", "content": "You are helpful.", "timestamp": "2026-11-28T08:00:00"},
            {"role": "user", "content": "我在用FastAPI", "timestamp": "2026-11-28T08:01:00"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "好的"}, {"type": "text", "text": "记下了"}],
                "created_at": 1796025600,
            },  # epoch seconds
            {"role": "tool", "content": "{}", "timestamp": "2026-11-28T08:03:00"},
            {"role": "user", "content": "next day", "timestamp": "2026-11-29T09:30:00"},
        ],
    )
    data = _ingest(memory, src)
    assert (data.read, data.added, data.skipped) == (4, 4, 1)
    day1 = read_entries(memory.root / "memory" / "2026-11-28.md")
    assert [(e.time, e.role, e.text) for e in day1[:2]] == [
        ("08:00", "system", "You are helpful."),
        ("08:01", "user", "我在用FastAPI"),
    ]
    epoch = datetime.fromtimestamp(1796025600)
    reply = read_entries(memory.root / "memory" / f"{epoch:%Y-%m-%d}.md")
    assert any(e.text == "好的\n\n记下了" and e.time == f"{epoch:%H:%M}" for e in reply)
    assert read_entries(memory.root / "memory" / "2026-11-29.md")[0].text == "next day"


def test_openclaw_session_jsonl(memory, tmp_path):
    src = _jsonl(
        tmp_path / "0b7e.jsonl",
        [
            {
                "type": "session",
                "version": 3,
                "id": "0b7e-sess",
                "timestamp": "2026-11-28T07:49:00.000Z",
                "cwd": "/home/lin",
            },
            {"type": "model_change", "provider": "openai", "modelId": "gpt-5"},
            {
                "type": "message",
                "id": "a1",
                "parentId": None,
                "timestamp": "2026-11-28T07:49:03.491Z",
                "message": {
                    "role": "user",
                    "content": [{"type": "text", "text": "记住：周五下午不开会"}],
                    "timestamp": 1795852143491,
                },
            },
            {
                "type": "message",
                "id": "a2",
                "parentId": "a1",
                "timestamp": "2026-11-28T07:49:09.000Z",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "secret reasoning"},
                        {
                            "type": "toolCall",
                            "id": "t1",
                            "name": "memory_search",
                            "arguments": {"q": "x"},
                        },
                        {"type": "text", "text": "Noted, no meetings on Friday afternoons."},
                    ],
                },
            },
            {
                "type": "message",
                "id": "a3",
                "parentId": "a2",
                "timestamp": "2026-11-28T07:49:10.000Z",
                "message": {
                    "role": "toolResult",
                    "toolCallId": "t1",
                    "content": [{"type": "text", "text": "[]"}],
                },
            },
            {"type": "custom", "customType": "model-snapshot", "data": {}},
        ],
    )
    data = _ingest(memory, src)
    assert (data.added, data.skipped) == (2, 3)  # model_change, toolResult, custom
    when = _local("2026-11-28T07:49:03Z")
    entries = read_entries(memory.root / "memory" / f"{when:%Y-%m-%d}.md")
    assert [(e.role, e.text, e.session) for e in entries] == [
        ("user", "记住：周五下午不开会", "0b7e-sess"),
        ("assistant", "Noted, no meetings on Friday afternoons.", "0b7e-sess"),
    ]
    assert entries[0].time == f"{when:%H:%M}"
    day = memory.root / "memory" / f"{when:%Y-%m-%d}.md"
    assert "secret reasoning" not in day.read_text("utf-8")


def test_ingesting_twice_adds_nothing(memory, tmp_path):
    src = _jsonl(
        tmp_path / "chat.jsonl",
        [
            {"role": "user", "content": "ok", "timestamp": "2026-11-28T08:01:00"},
            {"role": "user", "content": "ok", "timestamp": "2026-11-28T08:01:30"},  # a real repeat
            {
                "role": "assistant",
                "content": "## 10:00 · user\nquoted",
                "timestamp": "2026-11-28T08:02:00",
            },
            {"role": "user", "content": "no timestamp: takes the previous one"},
        ],
    )
    first = _ingest(memory, src)
    day = memory.root / "memory" / "2026-11-28.md"
    snapshot = day.read_bytes()
    second = _ingest(memory, src)
    assert (first.added, second.added, second.already_there) == (4, 0, 4)
    assert second.files == []
    assert day.read_bytes() == snapshot
    assert [e.text for e in read_entries(day)].count("ok") == 2


GOOD = json.dumps({"role": "user", "content": "hello", "timestamp": "2026-11-28T08:00:00"})


def test_bad_json_writes_nothing(memory):
    with pytest.raises(UsageError, match="<stdin>:2 is not valid JSON") as refused:
        memory.ingest([GOOD, "{not json", ""], "<stdin>")
    assert refused.value.exit_code == 2
    assert not (memory.root / "memory" / "2026-11-28.md").exists()
    assert memory.ingest([GOOD, ""], "<stdin>").report.added == 1
    assert read_entries(memory.root / "memory" / "2026-11-28.md")[0].text == "hello"


def test_the_cli_reads_stdin_and_says_a_bad_line(ws):
    result = ws("ingest", "-", input=GOOD + "\n{not json\n", ok=False)
    assert result.exit_code == 2
    assert "<stdin>:2 is not valid JSON" in result.stderr
    assert not (ws.root / "memory" / "2026-11-28.md").exists()
    ws("ingest", "-", input=GOOD + "\n")
    assert read_entries(ws.root / "memory" / "2026-11-28.md")[0].text == "hello"
    again = json.loads(ws("ingest", "-", "--json", input=GOOD + "\n").stdout)
    assert (again["added"], again["alreadyThere"]) == (0, 1)


def test_missing_file_is_a_clear_error(ws):
    result = ws("ingest", "nope.jsonl", ok=False)
    assert result.exit_code == 2 and "no transcript file at nope.jsonl" in result.stderr
