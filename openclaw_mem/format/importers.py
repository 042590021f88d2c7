"""`mem import`: a memory that starts with your history, from the exports people already have.

- chatgpt: the ChatGPT data export (Settings → Data controls → Export data), the .zip as
  downloaded, its folder, or its conversations.json. Each conversation's `mapping` is a tree
  in which an edited message leaves its older branch behind; only the path from
  `current_node` to the root is what the person saw, so only that is imported.
- claude: the claude.ai export (Settings → Privacy → Export data): .zip, folder or
  conversations.json, `chat_messages` with text content blocks.
- claude-code: Claude Code transcripts, ~/.claude/projects/<project>/<session>.jsonl, one
  file or a folder of them. Lines carrying only tool results are tool output, not the
  person; summaries, system lines, thinking and tool calls are not conversation either.

Each message keeps its own time (exports store UTC; logs are local time, as everywhere in
mem) and its conversation id as the session. The write goes through the same path as
`mem ingest`, so importing the same export twice adds nothing.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

from ..errors import UsageError
from .ingest import Message, json_lines, parse_time

KINDS = ("chatgpt", "claude", "claude-code")
MAX_EXPORT = 512 * 1024 * 1024  # bytes of conversations.json read, zipped or not


def _conversations_json(path: Path, kind: str) -> list:
    """conversations.json from the export zip, its unpacked folder, or the file itself."""
    if path.is_dir():
        path = path / "conversations.json"
        if not path.is_file():
            raise UsageError(f"no conversations.json in {path.parent}: is this a {kind} export?")
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = [
                    n for n in archive.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"
                ]
                if not names:
                    raise UsageError(f"{path} holds no conversations.json: is it a {kind} export?")
                info = archive.getinfo(min(names, key=len))
                if info.file_size > MAX_EXPORT:  # a zip that expands to gigabytes
                    raise UsageError(
                        f"{path}: conversations.json would expand to {info.file_size:,} bytes, "
                        f"over the {MAX_EXPORT:,} mem reads; nothing was imported"
                    )
                with archive.open(info) as member:
                    raw = member.read(MAX_EXPORT + 1)
        else:
            if path.stat().st_size > MAX_EXPORT:
                raise UsageError(f"{path} is over the {MAX_EXPORT:,} bytes mem reads")
            raw = path.read_bytes()
        if len(raw) > MAX_EXPORT:
            raise UsageError(f"{path} is over the {MAX_EXPORT:,} bytes mem reads")
        data = json.loads(raw.decode("utf-8-sig"))  # a BOM, as `ingest` takes one
    except RecursionError:
        raise UsageError(
            f"{path} nests deeper than any export does; nothing was imported"
        ) from None
    except (UnicodeDecodeError, ValueError) as exc:  # bad JSON, a 5,000-digit number
        raise UsageError(
            f"{path} is not a readable {kind} export ({exc}); nothing was imported"
        ) from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not isinstance(data, list):
        raise UsageError(f"{path} is not a {kind} export: expected a list of conversations")
    return data


def _dict(value: object) -> dict:
    """A field that should hold an object: real exports drift, so anything else is empty."""
    return value if isinstance(value, dict) else {}


def _joined(parts: object) -> str:
    if not isinstance(parts, list):
        return ""
    return "\n\n".join(p for p in parts if isinstance(p, str) and p.strip())


def _latest_leaf(mapping: dict) -> str | None:
    """The node a conversation without a usable `current_node` ends on: of the nodes no
    other node continues, the one said last (then the one deepest in the tree)."""
    continued = {_dict(n).get("parent") for n in mapping.values()}
    leaves = [k for k in mapping if k not in continued]

    def said(key: str) -> float:
        when = _dict(_dict(mapping[key]).get("message")).get("create_time")
        return float(when) if isinstance(when, int | float) and when == when else 0.0

    def depth(key: str) -> int:
        seen: set[str] = set()
        while isinstance(key, str) and key in mapping and key not in seen:
            seen.add(key)
            key = _dict(mapping[key]).get("parent")
        return len(seen)

    if not leaves:
        return None
    try:
        return max(leaves, key=lambda k: (said(k), depth(k)))
    except OverflowError:  # a create_time too large for a float: the deepest then
        return max(leaves, key=depth)


def _chatgpt(data: list, notes: list[str] | None = None) -> tuple[list[Message], int]:
    messages: list[Message] = []
    skipped, walked = 0, 0
    for conv in data:
        if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
            skipped += 1
            continue
        mapping = conv["mapping"]
        session = conv.get("conversation_id") or conv.get("id")
        # The visible conversation: from current_node up to the root, then reversed. Older
        # branches (an edited question, a regenerated answer) are not on this path. Without
        # a current_node in the mapping, its latest branch stands in for it, and it is said.
        node_id, path, seen = conv.get("current_node"), [], set()
        if not (isinstance(node_id, str) and node_id in mapping) and mapping:
            node_id = _latest_leaf(mapping)
            walked += node_id is not None
        while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
            seen.add(node_id)
            node = _dict(mapping[node_id])
            path.append(node)
            node_id = node.get("parent")
        for node in reversed(path):
            msg = node.get("message")
            if not isinstance(msg, dict):
                continue
            role = _dict(msg.get("author")).get("role")
            content = _dict(msg.get("content"))
            hidden = _dict(msg.get("metadata")).get("is_visually_hidden_from_conversation")
            # A message with an image is `multimodal_text`: its string parts are what was said.
            kind = content.get("content_type")
            text = _joined(content.get("parts")) if kind in ("text", "multimodal_text") else ""
            if role not in ("user", "assistant") or hidden or not text.strip():
                skipped += 1  # system prompts, tool runs, code and its output, empty turns
                continue
            when = parse_time(msg.get("create_time"))
            messages.append(Message(when, role, text, str(session) if session else None))
    if walked and notes is not None:
        notes.append(
            f"{walked} conversation{'s' if walked > 1 else ''} had no current_node in "
            "its mapping (or one that is not there): imported along the branch written last"
        )
    return messages, skipped


def _claude(data: list) -> tuple[list[Message], int]:
    messages: list[Message] = []
    skipped = 0
    roles = {"human": "user", "assistant": "assistant"}
    for conv in data:
        if not isinstance(conv, dict) or not isinstance(conv.get("chat_messages"), list):
            skipped += 1
            continue
        session = conv.get("uuid")
        for msg in conv["chat_messages"]:
            if not isinstance(msg, dict):
                skipped += 1
                continue
            role = roles.get(str(msg.get("sender")))
            blocks = msg.get("content")
            if isinstance(blocks, list) and blocks:
                text = _joined(
                    [
                        b.get("text")
                        for b in blocks
                        if isinstance(b, dict) and b.get("type") == "text"
                    ]
                )
            else:  # older exports carry only the flat text
                text = msg.get("text") if isinstance(msg.get("text"), str) else ""
            if role is None or not text.strip():
                skipped += 1
                continue
            sid = str(session) if isinstance(session, str | int) else None
            messages.append(Message(parse_time(msg.get("created_at")), role, text, sid))
    return messages, skipped


def _claude_code_files(path: Path) -> Iterator[Path]:
    if path.is_dir():
        files = sorted(p for p in path.glob("*.jsonl") if p.is_file() and not p.is_symlink())
        if not files:
            raise UsageError(
                f"no .jsonl session files in {path}: is this a Claude Code project folder?"
            )
        yield from files
    elif path.is_file():
        yield path
    else:
        raise UsageError(f"no Claude Code transcript at {path}")


def _claude_code(path: Path) -> tuple[list[Message], int]:
    messages: list[Message] = []
    skipped = 0
    for file in _claude_code_files(path):
        try:
            lines = file.read_bytes().decode("utf-8").splitlines()
        except UnicodeDecodeError:
            raise UsageError(f"{file} is not valid UTF-8; nothing was imported") from None
        for _, value in json_lines(lines, str(file), "imported"):
            obj = _dict(value)
            msg = obj.get("message")
            if (
                obj.get("type") not in ("user", "assistant")
                or not isinstance(msg, dict)
                or obj.get("isSidechain")
            ):
                skipped += 1  # summaries, system and hook lines, sub-agent side chains
                continue
            content = msg.get("content")
            if isinstance(content, str):
                text = content
            elif isinstance(content, list):  # text blocks: not thinking, tool_use, tool_result
                text = _joined(
                    [
                        b.get("text")
                        for b in content
                        if isinstance(b, dict) and b.get("type") == "text"
                    ]
                )
            else:
                text = ""
            role = msg.get("role")
            if role not in ("user", "assistant") or obj.get("isMeta") or not text.strip():
                skipped += 1
                continue
            session = obj.get("sessionId")
            session = str(session) if isinstance(session, str | int) and session else file.stem
            messages.append(Message(parse_time(obj.get("timestamp")), role, text, session))
    return messages, skipped


def read_export(kind: str, path: Path, notes: list[str] | None = None) -> tuple[list[Message], int]:
    """The messages of an export in order, and how many records were not conversation;
    what was read another way than usual is said in `notes`."""
    if kind not in KINDS:
        raise UsageError(f"unknown export kind {kind!r}; expected one of: {', '.join(KINDS)}")
    if not path.exists():
        raise UsageError(f"no {kind} export at {path}")
    if kind == "claude-code":
        return _claude_code(path)
    data = _conversations_json(path, kind)
    _check_shape(data, kind, path)
    return _chatgpt(data, notes) if kind == "chatgpt" else _claude(data)


# What each export's conversations hold: how a file told to be one kind is checked.
_SHAPES = {"chatgpt": ("mapping", "ChatGPT"), "claude": ("chat_messages", "Claude")}


def _check_shape(data: list, kind: str, path: Path) -> None:
    """An export of the kind it was said to be, or a one-line error saying what it looks
    like: a ChatGPT export read as Claude's imported '0 of 0 messages' and exited 0."""
    convs = [c for c in data if isinstance(c, dict)]
    if not data:
        return  # an empty export is an empty export
    key, _ = _SHAPES[kind]
    if any(key in c for c in convs):
        return
    for other, (other_key, label) in _SHAPES.items():
        if other != kind and any(other_key in c for c in convs):
            raise UsageError(
                f"{path} looks like a {label} export (its conversations hold {other_key!r}), "
                f"not a {_SHAPES[kind][1]} one: mem import {other} {path}; nothing was imported"
            )
    raise UsageError(
        f"{path} holds no {_SHAPES[kind][1]} conversations (none has {key!r}); nothing was imported"
    )
