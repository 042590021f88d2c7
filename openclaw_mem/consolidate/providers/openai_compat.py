"""Any OpenAI-compatible chat endpoint (OpenAI, DeepSeek, Ollama, vLLM, llama.cpp server),
through the openai client, answering with one `save_memory` tool call.

How it copes with what real endpoints do (llm.tool_mode = auto, the default), deciding by the
shape of the answer, never by waiting for an HTTP error (llama.cpp's server drops a
tool_choice it cannot honour and answers 200):
- the answer is read by the tolerant reader (consolidate/schema.py), whatever its shape;
- tools first: a structured tool call is read;
- then the content: small models write the call as text (a fenced block, bare JSON, with
  or without a {"name", "arguments"} wrapper), and that is read the same way;
- then a JSON-only request (the same object asked for in the message, no tools), read by
  the same reader; a server that refuses `tools` or a forced tool_choice gets there too.
`tools` asks once more with a corrective message instead and never drops the tools; `json`
never sends tools. 429 and 5xx are retried with
backoff by the client (llm.max_retries); every call has a timeout (llm.timeout). Every
failure is a ProviderError: nothing is written.
"""

from __future__ import annotations

from dataclasses import replace

from ...errors import ProviderError
from ...text import estimate_tokens
from ..prompt import ANSWER_RESERVE, CORRECTIVE, messages
from ..proposal import Proposal, Request, Usage
from ..schema import TOOL, TOOL_NAME, read_answer

MODES = ("auto", "tools", "json")


def _short(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        msg = err.get("message") if isinstance(err, dict) else str(err)
    elif body is not None:
        msg = str(body)
    else:
        msg = getattr(exc, "message", None) or str(exc)
    return " ".join(str(msg).split())[:200]


def _int(value: object) -> int | None:
    try:
        return int(float(value)) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


class OpenAIProvider:
    name = "openai"

    def __init__(
        self,
        model: str,
        base_url: str | None,
        api_key: str,
        timeout: float,
        max_retries: int,
        context_tokens: int,
        tool_mode: str = "auto",
    ):
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.context_tokens = context_tokens
        self.tool_mode = tool_mode
        self.calls = 0
        self.tokens_sent = 0
        self.label = f"openai {model}" + (f" @ {base_url}" if base_url else "")
        self._client = None
        # An answer never needs more than the room kept for it; a small model that starts
        # repeating itself would otherwise generate until the server's context is full.
        self._limit: dict[str, int] = {"max_tokens": ANSWER_RESERVE}

    def _get_client(self):
        if self._client is None:
            from ...openai_client import make_client

            self._client = make_client(self.api_key, self.base_url, self.timeout, self.max_retries)
        return self._client

    def _call(self, convo: list[dict], **kwargs):
        """One request; the openai client's failures as ProviderError (or the BadRequest /
        UnprocessableEntity itself, which the caller may answer by changing the request)."""
        import openai

        self.calls += 1
        self.tokens_sent += sum(estimate_tokens(m["content"] or "") for m in convo)
        try:
            try:
                return self._get_client().chat.completions.create(
                    model=self.model, messages=convo, **self._limit, **kwargs
                )
            except openai.BadRequestError as exc:
                if "max_tokens" not in _short(exc) or "max_tokens" not in self._limit:
                    raise
                # Reasoning models take the newer name for the same limit.
                self._limit = {"max_completion_tokens": ANSWER_RESERVE}
                return self._get_client().chat.completions.create(
                    model=self.model, messages=convo, **self._limit, **kwargs
                )
        except openai.APITimeoutError:
            raise ProviderError(
                f"the model did not answer within {self.timeout:g} s (llm.timeout); "
                "nothing was written"
            ) from None
        except openai.AuthenticationError as exc:
            raise ProviderError(
                f"the endpoint refused the API key ({_short(exc)}); set OPENAI_API_KEY"
            ) from None
        except (openai.BadRequestError, openai.UnprocessableEntityError):
            raise
        except openai.RateLimitError as exc:
            raise ProviderError(
                f"rate limited (HTTP 429) after {self.max_retries} retries: {_short(exc)}; "
                "try again later"
            ) from None
        except openai.APIStatusError as exc:
            raise ProviderError(
                f"the endpoint failed with HTTP {exc.status_code}: {_short(exc)}; nothing was "
                "written"
            ) from None
        except openai.APIConnectionError as exc:
            where = self.base_url or "api.openai.com"
            raise ProviderError(f"cannot reach {where}: {_short(exc)}") from None
        except openai.OpenAIError as exc:
            raise ProviderError(f"the openai client failed: {_short(exc)}") from None
        except ValueError as exc:  # a 200 whose body is not JSON
            raise ProviderError(
                f"the endpoint's answer is not JSON ({exc}); nothing written"
            ) from None

    def _message(self, response):
        if isinstance(response, str):
            raise ProviderError("the endpoint answered with text, not a chat completion")
        choices = getattr(response, "choices", None)
        if not choices:
            raise ProviderError("the endpoint answered with no choices; nothing was written")
        return choices[0].message

    def _usage(self, response, convo: list[dict], answer: str) -> Usage:
        usage = getattr(response, "usage", None)
        prompt = _int(getattr(usage, "prompt_tokens", None)) if usage is not None else None
        completion = _int(getattr(usage, "completion_tokens", None)) if usage is not None else None
        if prompt is None or completion is None:
            sent = sum(estimate_tokens(m["content"] or "") for m in convo)
            return Usage(sent, estimate_tokens(answer), estimated=True)
        return Usage(prompt, completion)

    def propose(self, request: Request) -> Proposal:
        import openai

        def read(raw: object) -> Proposal:
            return read_answer(raw, entries=len(request.entries), last=last)

        timed = [e.when for e in request.entries if e.when]
        last = max(timed) if timed else request.now
        if self.tool_mode == "json":
            return self._json_only(request, read)
        self._tools_error: ProviderError | None = None
        try:
            found = self._with_tools(request, read)
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            if self.tool_mode == "tools":
                raise ProviderError(
                    f"the endpoint rejected the request: {_short(exc)} (llm.tool_mode = "
                    "tools; `json` asks for the answer in the message instead)"
                ) from None
            found = None
        if found is not None:
            return found
        try:
            return self._json_only(request, read)
        except ProviderError:
            if self._tools_error is not None:  # the tool call's own fault is the clearer one
                raise self._tools_error from None
            raise

    def _with_tools(self, request: Request, read) -> Proposal | None:
        """The answer to a request with the tool: a tool call, or a call written in the
        content. None (auto) when neither came: the caller asks for JSON instead."""
        import openai

        convo = messages(request)
        tool_choice: object = {"type": "function", "function": {"name": TOOL_NAME}}
        forced_refused = corrected = False
        while True:
            try:
                response = self._call(convo, tools=[TOOL], tool_choice=tool_choice)
            except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
                if not forced_refused and "tool_choice" in _short(exc).lower():
                    forced_refused = True  # this server cannot force a tool: let it choose
                    tool_choice = "auto"
                    continue
                raise
            message = self._message(response)
            calls = [
                c
                for c in (getattr(message, "tool_calls", None) or [])
                if getattr(c, "function", None) and c.function.name == TOOL_NAME
            ]
            text = getattr(message, "content", None) or ""
            if calls:
                arguments = calls[0].function.arguments
                try:
                    found = read(arguments if arguments not in (None, "") else "{}")
                except ProviderError as exc:
                    if self.tool_mode == "auto":
                        self._tools_error = exc  # said if JSON mode does no better
                        return None  # arguments that do not parse: ask for JSON instead
                    raise
                return self._done(found, response, convo, str(arguments))
            if text.strip():  # Qwen, MiniMax and others write the call in the message
                try:
                    return self._done(read(text), response, convo, text)
                except ProviderError:
                    pass
            if self.tool_mode == "auto":
                return None
            if corrected:
                raise ProviderError(
                    f"{self.model} answered twice without calling save_memory; use a model with "
                    "tool calling, llm.tool_mode = json, or --provider offline"
                )
            corrected = True
            convo = [
                *convo,
                {"role": "assistant", "content": text},
                {"role": "user", "content": CORRECTIVE},
            ]

    def _json_only(self, request: Request, read) -> Proposal:
        import openai

        convo = messages(request, json_only=True)
        try:
            response = self._call(convo)
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            raise ProviderError(f"the endpoint rejected the request: {_short(exc)}") from None
        text = getattr(self._message(response), "content", None) or ""
        return self._done(read(text), response, convo, text)

    def _done(self, found: Proposal, response, convo: list[dict], answer: str) -> Proposal:
        choices = getattr(response, "choices", None) or [None]
        if getattr(choices[0], "finish_reason", None) == "length":
            # Cut at the token cap: the reader closed the brackets, but the last edit may be
            # half a sentence and the skip list may be missing entries. Neither is trusted.
            found = replace(found, edits=found.edits[:-1], notes=found.notes[:-1], skip=())
        return replace(found, usage=self._usage(response, convo, answer), model=self.model)
