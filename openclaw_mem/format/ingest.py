"""`mem ingest`: bulk-append a transcript, each message into its own day's log.

Two line formats are read, one JSON object per line, mixed freely:
- OpenAI-style messages: {"role", "content": str | [parts], "timestamp"|"created_at"?}
- OpenClaw session JSONL (~/.openclaw/agents/<id>/sessions/<session>.jsonl): a
  {"type": "session", "id"} header, then {"type": "message", "timestamp",
  "message": {"role", "content": [parts]}} lines; other line types are skipped.
Only text reaches the log: thinking, tool calls, tool results and images are left out.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from ..errors import UsageError
from ..store.workspace import Workspace
from .logs import SESSION_RE, NewEntry, append_entries, content_id

_ROLE_MAP = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "system": "system",
    "developer": "system",
}
_TEXT_PARTS = ("text", "input_text", "output_text")


@dataclass(frozen=True)
class Message:
    when: datetime | None
    role: str
    text: str
    session: str | None


@dataclass
class IngestReport:
    read: int = 0  # messages with text
    added: int = 0
    already_there: int = 0
    skipped: int = 0  # tool calls/results, thinking-only, empty or unknown lines
    files: list[str] = field(default_factory=list)
    tokens: int = 0  # estimated size of what was added: what consolidating it will send
    flagged: int = 0  # added messages that read like an instruction (firewall.py)


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and part.get("type") in _TEXT_PARTS:
                value = part.get("text")
                if isinstance(value, dict):  # some clients nest {"text": {"value": ...}}
                    value = value.get("value")
                if isinstance(value, str):
                    texts.append(value)
        return "\n\n".join(t for t in texts if t)
    return ""


def parse_time(value: object) -> datetime | None:
    """ISO 8601 (with or without offset) or epoch seconds/milliseconds, as local time."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:  # a 4,000-digit number is an int too large for a float: no usable time
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds).replace(microsecond=0)
        except (OverflowError, OSError, ValueError):  # year 300 million: no usable time
            return None
    if isinstance(value, str) and value.strip():
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return None
        if moment.tzinfo is not None:
            try:
                moment = moment.astimezone().replace(tzinfo=None)
            except (OverflowError, ValueError):  # year 9999 west of UTC: no usable time
                return None
        return moment.replace(microsecond=0)
    return None


def json_lines(
    lines: Iterable[str], source: str, done: str = "ingested"
) -> Iterator[tuple[int, object]]:
    """(line number, value) of each non-blank JSONL line; one that is not JSON stops the
    whole read (`nothing was {done}`), before anything is written."""
    for number, line in enumerate(lines, 1):
        line = line.strip().lstrip("\ufeff")
        if not line:
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(
                f"{source}:{number} is not valid JSON ({exc.msg}); nothing was {done}"
            ) from None
        except RecursionError:
            raise UsageError(
                f"{source}:{number} nests deeper than any transcript does; nothing was {done}"
            ) from None
        except ValueError as exc:  # a number of thousands of digits
            raise UsageError(
                f"{source}:{number} cannot be read ({exc}); nothing was {done}"
            ) from None
        yield number, value


def parse_transcript(lines: Iterable[str], source: str) -> tuple[list[Message], int]:
    """Messages with text, and the count of lines skipped. Bad JSON stops everything."""
    messages: list[Message] = []
    skipped = 0
    session: str | None = None
    for number, obj in json_lines(lines, source):
        if not isinstance(obj, dict):
            raise UsageError(f"{source}:{number} is not a JSON object; nothing was ingested")
        kind = obj.get("type")
        if kind == "session":
            session = str(obj.get("id")) if obj.get("id") else session
            continue
        if kind == "message" and isinstance(obj.get("message"), dict):
            msg = obj["message"]
            when = parse_time(obj.get("timestamp")) or parse_time(msg.get("timestamp"))
        elif "role" in obj and "content" in obj:
            msg = obj
            when = parse_time(obj.get("timestamp")) or parse_time(obj.get("created_at"))
        else:
            skipped += 1
            continue
        role = _ROLE_MAP.get(str(msg.get("role", "")).lower())
        text = _text_of(msg.get("content"))
        if role is None or not text.strip():
            skipped += 1
            continue
        sid = obj.get("session_id") or msg.get("session_id") or session
        messages.append(Message(when, role, text, str(sid) if sid else None))
    return messages, skipped


def ingest(
    ws: Workspace,
    lines: Iterable[str],
    source: str,
    *,
    default_time: datetime,
    session: str | None = None,
) -> IngestReport:
    """Append every message to its day's log; messages already there are not added again.

    A message without a timestamp takes the previous message's time, or `default_time`
    (the file's modification time, or --at) when none came before it.
    """
    messages, skipped = parse_transcript(lines, source)
    return append_messages(ws, messages, skipped, default_time=default_time, session=session)


def append_messages(
    ws: Workspace,
    messages: Sequence[Message],
    skipped: int,
    *,
    default_time: datetime,
    session: str | None = None,
) -> IngestReport:
    """The write half of `mem ingest` and `mem import`: each message into its day's log,
    verbatim, repeats skipped (so importing the same export twice adds nothing)."""
    from ..safety.firewall import flagged
    from ..text import estimate_tokens

    report = IngestReport(read=len(messages), skipped=skipped)
    by_day: dict[date, list[NewEntry]] = defaultdict(list)
    last = default_time
    for msg in messages:
        when = msg.when or last
        last = when
        sid = session or msg.session
        sid = None if sid is None else str(sid)
        if sid is not None and not SESSION_RE.fullmatch(sid):
            sid = None
        # A lone surrogate (a JSON "\ud800") cannot be written as UTF-8, and a NUL byte has no
        # place in Markdown: both are settled here, before the first day is written.
        text = msg.text.encode("utf-8", "replace").decode("utf-8").replace("\x00", "\ufffd")
        by_day[when.date()].append(NewEntry(when, msg.role, text, sid))
    for entries in by_day.values():
        # An imported message is a record that exists elsewhere: its id comes from what it
        # is, so the same export imported on two machines merges into one copy.
        seen: Counter[str] = Counter()
        for n, e in enumerate(entries):
            key = f"{e.when:%Y-%m-%d %H:%M}\x1f{e.label}\x1f{e.session or ''}\x1f{e.text}"
            entries[n] = e.with_id(content_id(f"import\x1f{key}\x1e{seen[key]}"))
            seen[key] += 1
    for day in sorted(by_day):
        path = ws.day_file(day)
        result = append_entries(path, day, by_day[day], skip_existing=True, rel=ws.rel(path))
        report.added += result.count
        report.already_there += len(by_day[day]) - result.count
        if result.count:
            report.files.append(ws.rel(path))
            report.tokens += sum(estimate_tokens(e.text) for e in result.written)
            report.flagged += sum(1 for e in result.written if flagged(e.text))
    return report
