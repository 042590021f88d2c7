"""A scripted model server on 127.0.0.1 for the real agent harnesses (bench/agents.py and
the opt-in tests/test_agents_live.py): Anthropic's Messages API, which Claude Code speaks,
and OpenAI's Responses API, which Codex speaks, both streamed as server-sent events the way
the real APIs stream them. Standard library only.

Every request is kept (`requests`: path and body), and every answer is a reply of its own,
numbered, so a test can tell which turn said what and find each in the daily log.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def numbered(n: int, body: dict) -> str:
    """The default script: the n-th answer names its number, in English and Chinese."""
    return f"Scripted reply {n}: noted, 已记下 (answer {n})."


class AgentServer:
    def __init__(self, reply: Callable[[int, dict], str] = numbered) -> None:
        self.reply = reply
        self.requests: list[dict] = []  # {"path", "body", "reply"}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> AgentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, path: str, body: dict) -> str:
        with self._lock:
            n = sum(1 for r in self.requests if r["reply"] is not None) + 1
            text = self.reply(n, body)
            self.requests.append({"path": path, "body": body, "reply": text})
            return text

    def note(self, path: str, body: object) -> None:
        with self._lock:
            self.requests.append({"path": path, "body": body, "reply": None})

    def turns(self) -> list[dict]:
        """The requests that asked for an answer (not token counts or model lists)."""
        with self._lock:
            return [r for r in self.requests if r["reply"] is not None]


def _events(pairs) -> bytes:
    return b"".join(
        f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()
        for name, data in pairs
    )


def _anthropic(text: str, model: str, n: int) -> bytes:
    msg_id = f"msg_scripted_{n:04d}"
    usage = {"input_tokens": 50, "output_tokens": 10}
    half = len(text) // 2
    return _events(
        [
            ("message_start", {"type": "message_start", "message": {
                "id": msg_id, "type": "message", "role": "assistant", "model": model,
                "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            *(
                ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": {"type": "text_delta", "text": part}})
                for part in (text[:half], text[half:])
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 10},
                               "delta": {"stop_reason": "end_turn", "stop_sequence": None}}),
            ("message_stop", {"type": "message_stop"}),
        ]
    )  # fmt: skip


def _responses(text: str, model: str, n: int) -> bytes:
    resp_id, item_id = f"resp_scripted_{n:04d}", f"msg_scripted_{n:04d}"
    item = {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    usage = {
        "input_tokens": 50,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 60,
    }
    done = {
        "id": resp_id,
        "object": "response",
        "status": "completed",
        "model": model,
        "output": [item],
        "usage": usage,
    }
    part = {"item_id": item_id, "output_index": 0, "content_index": 0}
    return _events(
        [
            ("response.created", {"type": "response.created",
                                  "response": {**done, "status": "in_progress", "output": []}}),
            ("response.output_item.added", {"type": "response.output_item.added",
                                            "output_index": 0,
                                            "item": {**item, "status": "in_progress",
                                                     "content": []}}),
            ("response.content_part.added", {"type": "response.content_part.added", **part,
                                             "part": {"type": "output_text", "text": "",
                                                      "annotations": []}}),
            ("response.output_text.delta", {"type": "response.output_text.delta", **part,
                                            "delta": text}),
            ("response.output_text.done", {"type": "response.output_text.done", **part,
                                           "text": text}),
            ("response.output_item.done", {"type": "response.output_item.done",
                                           "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": done}),
        ]
    )  # fmt: skip


def _handler(server: AgentServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def _send(self, status: int, kind: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _json(self, value: object) -> None:
            self._send(200, "application/json", json.dumps(value).encode())

        def do_GET(self) -> None:
            server.note(self.path, None)
            if "/models" in self.path:
                self._json({"object": "list", "data": [{"id": "scripted", "object": "model"}],
                            "has_more": False})  # fmt: skip
            else:
                self._json({})

        def do_POST(self) -> None:
            size = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(size) if size else b""
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = {"unreadable": len(raw)}
            path = self.path.split("?", 1)[0]
            if path.endswith("/count_tokens"):
                server.note(path, body)
                return self._json({"input_tokens": 50})
            if not path.endswith(("/v1/messages", "/responses")) or not isinstance(body, dict):
                server.note(path, body)
                return self._json({})
            text = server.answer(path, body)
            n = len(server.turns())
            model = str(body.get("model") or "scripted")
            if path.endswith("/v1/messages"):
                if not body.get("stream"):
                    content = [{"type": "text", "text": text}]
                    usage = {"input_tokens": 50, "output_tokens": 10}
                    return self._json(
                        {"id": f"msg_scripted_{n:04d}", "type": "message", "role": "assistant",
                         "model": model, "content": content, "stop_reason": "end_turn",
                         "stop_sequence": None, "usage": usage}
                    )  # fmt: skip
                data = _anthropic(text, model, n)
            else:
                data = _responses(text, model, n)
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler
