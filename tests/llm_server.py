"""A small OpenAI-compatible chat server on 127.0.0.1 that answers from a script, so the real
openai client can be tested against good answers and every kind of failure, offline."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = tuple | Callable[[dict], tuple]


def tool_call(arguments: dict | str) -> tuple:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return ("tool", args)


def llama_cpp_model(n_params: float = 1.5e9) -> dict:
    """A model as llama.cpp's server lists it: it decodes to a JSON schema, and says the
    model's size."""
    return {
        "id": "/models/small.gguf",
        "object": "model",
        "owned_by": "llamacpp",
        "meta": {"n_params": n_params, "n_ctx": 16384},
    }


def skipping_all(history: str) -> Callable[[dict], tuple]:
    """A step answering with a history paragraph and every entry of the request in `skip`:
    a batch that held nothing durable, said so."""
    import re

    def step(body: dict) -> tuple:
        sent = body["messages"][-1]["content"]
        numbers = [int(n) for n in re.findall(r"^\[E(\d+)\]", sent, re.M)]
        return tool_call({"history_entry": history, "edits": [], "skip": numbers})

    return step


def completion(message: dict) -> dict:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


def bag_of_words(text: str, dim: int = 64) -> list[float]:
    """A deterministic embedding for tests: hashed word counts, so texts sharing words are
    close and unrelated ones are not."""
    import hashlib
    import math

    vec = [0.0] * dim
    for word in text.lower().split():
        vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % dim] += 1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


class ScriptedLLM:
    def __init__(self) -> None:
        self.embed_requests: list[dict] = []
        self.embed_status: int | None = None  # answer /embeddings with this HTTP error
        self.script: deque[Step] = deque()
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []  # one per request, names lower-cased
        self.paths: list[str] = []  # one per chat request: the path it was sent to
        # What GET /models lists, as a server advertises itself (None: 404, as a server
        # without a model list answers); each GET is counted in `listed`.
        self.models: list[dict] | None = None
        self.listed = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if not self.path.endswith("/models"):
                    return owner._send(self, 404, {"error": {"message": "no such path"}})
                owner.listed += 1
                if owner.models is None:
                    return owner._send(self, 404, {"error": {"message": "not found"}})
                return owner._send(self, 200, {"object": "list", "data": owner.models})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.endswith("/embeddings"):
                    owner.embed_requests.append(body)
                    return owner._embeddings(self, body)
                owner.requests.append(body)
                owner.paths.append(self.path)
                owner.headers.append({k.lower(): v for k, v in self.headers.items()})
                step = (
                    owner.script.popleft()
                    if owner.script
                    else ("status", 500, "no scripted answer")
                )
                if callable(step):
                    step = step(body)
                owner._answer(self, step)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        # serve_forever polls for shutdown every poll_interval: 0.5 s by default, paid by
        # every test that uses the server.
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def push(self, *steps: Step) -> None:
        self.script.extend(steps)

    def _embeddings(self, handler: BaseHTTPRequestHandler, body: dict) -> None:
        if self.embed_status is not None:
            err = {"error": {"message": "embedding backend down", "type": "test"}}
            return self._send(handler, self.embed_status, err)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [
            {"object": "embedding", "index": i, "embedding": bag_of_words(t)}
            for i, t in enumerate(texts)
        ]
        usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
        payload = {"object": "list", "data": data, "model": body.get("model"), "usage": usage}
        return self._send(handler, 200, payload)

    def _answer(self, handler: BaseHTTPRequestHandler, step: tuple) -> None:
        kind = step[0]
        if kind == "hang":
            time.sleep(step[1])
            return self._send(handler, 200, completion({"role": "assistant", "content": "late"}))
        if kind == "status":
            code, message = step[1], step[2]
            headers = {"retry-after-ms": "10"} if code == 429 else {}
            return self._send(
                handler, code, {"error": {"message": message, "type": "test"}}, headers
            )
        if kind == "text":
            return self._send(handler, 200, completion({"role": "assistant", "content": step[1]}))
        if kind == "body":  # a whole response as a server sent it
            return self._send(handler, 200, step[1])
        if kind == "text-cut":  # an answer the server cut at max_tokens
            body = completion({"role": "assistant", "content": step[1]})
            body["choices"][0]["finish_reason"] = "length"
            return self._send(handler, 200, body)
        if kind in ("tool", "tool-object"):  # tool-object: arguments as a JSON object
            call = {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": step[2] if len(step) > 2 else "save_memory",
                    "arguments": step[1] if kind == "tool" else json.loads(step[1]),
                },
            }
            return self._send(
                handler,
                200,
                completion({"role": "assistant", "content": None, "tool_calls": [call]}),
            )
        raise AssertionError(f"unknown step {step!r}")

    @staticmethod
    def _send(
        handler: BaseHTTPRequestHandler,
        code: int,
        payload: dict,
        headers: dict[str, str] | None = None,
    ) -> None:
        data = json.dumps(payload).encode()
        try:
            handler.send_response(code)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                handler.send_header(k, v)
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
