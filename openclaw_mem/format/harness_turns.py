"""The turns of an agent harness's session transcript: each turn's id, the user's prompt and
the assistant's final reply, with their times, read from the JSONL file the harness writes.

- claude-code (`~/.claude/projects/<project>/<session>.jsonl`): a `user` record whose
  message holds text (not a tool result, not meta) and carries `promptId` opens a turn;
  the text of the `assistant` records after it, the last one, is the turn's reply.
- codex (`$CODEX_HOME/sessions/…/rollout-….jsonl`): `event_msg` records; an
  `item_completed` item of type UserMessage is the prompt of its `turn_id`, AgentMessage
  items and `task_complete`'s `last_agent_message` its reply.

A line that is not JSON (a harness still writing the last one) is passed over: this is
read by hooks that must never fail. Only what a turn said is kept: tool calls, their
results, thinking and attachments are not conversation.
"""

from __future__ import annotations

import json
from datetime import datetime

TAIL = 32 * 2**20  # a transcript is read from at most this many bytes before its end


class Turn:
    __slots__ = ("id", "prompt", "prompt_at", "reply", "reply_at")

    def __init__(self, id: str) -> None:
        self.id = id
        self.prompt: str | None = None
        self.reply: str | None = None
        self.prompt_at: datetime | None = None
        self.reply_at: datetime | None = None

    def __repr__(self) -> str:
        return f"Turn({self.id!r}, {self.prompt!r}, {self.reply!r})"


def read_tail(path: str, limit: int = TAIL) -> list[str]:
    """The transcript's lines, from at most `limit` bytes before its end (the first line,
    cut in two by the limit, left out); [] when it cannot be read, or is no regular file (a
    FIFO would hold the hook for ever)."""
    import os
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return []
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - limit))
            data = f.read()
    except OSError:
        return []
    lines = data.decode("utf-8", "replace").splitlines()
    return lines[1:] if size > limit else lines


def _records(lines: list[str]):
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            yield obj


def _time(value: object) -> datetime | None:
    from .ingest import parse_time

    return parse_time(value)


def _texts(content: object, kinds: tuple[str, ...] = ("text",)) -> str | None:
    """The text of a message's content: a string, or its text blocks joined; None when it
    holds none (a tool result, a tool call)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = [
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") in kinds and isinstance(b.get("text"), str)
    ]
    return "\n\n".join(parts) if parts else None


# What Claude Code records as a user message but is the harness's own: a slash command
# ("/compact"), its output, a `!` shell command and its output. Not conversation.
_HARNESS_MARKUP = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
)


def claude_code_turns(lines: list[str]) -> list[Turn]:
    turns: list[Turn] = []
    current: Turn | None = None
    for obj in _records(lines):
        msg = obj.get("message")
        if not isinstance(msg, dict) or any(
            obj.get(flag) for flag in ("isSidechain", "isMeta", "isCompactSummary")
        ):
            continue  # a sub-agent's side chain, a harness note, a compaction's summary
        kind = obj.get("type")
        text = _texts(msg.get("content"))
        if kind == "user" and msg.get("role") == "user":
            prompt_id = obj.get("promptId")
            if text is None or not isinstance(prompt_id, str) or not prompt_id:
                continue  # a tool result, or a record of no prompt
            if text.lstrip().startswith(_HARNESS_MARKUP):
                current = None  # a slash or shell command: its replies are no turn's
                continue
            if current is not None and current.id == prompt_id:
                continue  # the same prompt's later records
            current = Turn(prompt_id)
            current.prompt, current.prompt_at = text, _time(obj.get("timestamp"))
            turns.append(current)
        elif kind == "assistant" and current is not None and text and text.strip():
            current.reply, current.reply_at = text, _time(obj.get("timestamp"))
    return turns


def codex_turns(lines: list[str]) -> list[Turn]:
    by_id: dict[str, Turn] = {}
    for obj in _records(lines):
        payload = obj.get("payload")
        if obj.get("type") != "event_msg" or not isinstance(payload, dict):
            continue
        turn_id = payload.get("turn_id")
        if not isinstance(turn_id, str) or not turn_id:
            continue
        turn = by_id.setdefault(turn_id, Turn(turn_id))
        when = _time(obj.get("timestamp"))
        kind = payload.get("type")
        if kind == "item_completed" and isinstance(payload.get("item"), dict):
            item = payload["item"]
            text = _texts(item.get("content"), ("text", "Text"))
            if not text or not text.strip():
                continue
            if item.get("type") == "UserMessage" and turn.prompt is None:
                turn.prompt, turn.prompt_at = text, when
            elif item.get("type") == "AgentMessage":
                turn.reply, turn.reply_at = text, when
        elif kind == "task_complete":
            last = payload.get("last_agent_message")
            if isinstance(last, str) and last.strip():
                turn.reply, turn.reply_at = last, when
    return [t for t in by_id.values() if t.prompt is not None or t.reply is not None]


READERS = {"claude-code": claude_code_turns, "codex": codex_turns}
