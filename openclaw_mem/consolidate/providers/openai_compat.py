"""Any OpenAI-compatible chat endpoint (OpenAI, DeepSeek, Ollama, vLLM, llama.cpp server),
through the openai client.

Two strategies (llm.strategy): `batch` sends a batch of entries and reads one save_memory
answer; `entry` (per_entry.py, for small models) asks one short question per entry.
`auto` takes `entry` when the endpoint reports a small model (endpoint.py), else `batch`.

How a batch's answer is asked for (llm.tool_mode = auto, the default), deciding by the shape
of the answer, never by waiting for an HTTP error (llama.cpp's server drops a tool_choice it
cannot honour and answers 200):
- structured output first, when the endpoint takes it (llm.structured_output; endpoint.py):
  the save_memory object as the message, constrained to its JSON schema by
  `response_format`, so the answer always parses; a server that refuses the format is asked
  the other ways from then on;
- else tools: a structured tool call is read;
- then the content: small models write the call as text (a fenced block, bare JSON, with
  or without a {"name", "arguments"} wrapper), and that is read the same way;
- then a JSON-only request (the same object asked for in the message, no tools), read by
  the same reader; a server that refuses `tools` or a forced tool_choice gets there too.
Everything is read by the tolerant reader (consolidate/schema.py). `tools` asks once more with
a corrective message instead and never drops the tools; `json` never sends tools. 429 and 5xx
are retried with backoff by the client (llm.max_retries); every call has a timeout
(llm.timeout). An answer nothing can be read from is an UnusableAnswer (the run asks once
more, then leaves the batch pending); every other failure a ProviderError. Nothing is
written either way.
"""

from __future__ import annotations

from dataclasses import replace

from ...errors import ProviderError, UnusableAnswer
from ...text import estimate_tokens
from ..prompt import ANSWER_RESERVE, CORRECTIVE, messages
from ..proposal import Proposal, Request, Usage
from ..schema import SCHEMA, TOOL, TOOL_NAME, read_answer
from .endpoint import Endpoint

MODES = ("auto", "tools", "json")
STRUCTURED = ("auto", "schema", "off")
STRATEGIES = ("auto", "batch", "entry")
ENTRY_BATCH = 20  # entries a batch (one commit) holds with the entry strategy, by default
RESPONSE_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": TOOL_NAME, "strict": True, "schema": SCHEMA},
}


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


def without_credentials(url: str) -> str:
    """An endpoint's URL for people to read: scheme, host, port and path, without the
    user:password@ and the query or fragment a credential may ride in."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # not a URL one can read: show nothing of it
        return "(endpoint)"
    if ":" in host:  # an IPv6 address keeps its brackets
        host = f"[{host}]"
    return urlunsplit((parts.scheme, host + port, parts.path, "", ""))


def _retry_after(exc: Exception, default: float) -> float:
    """The wait a server asks for before a retry (retry-after-ms, retry-after), at most 8 s."""
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            return min(8.0, max(0.0, float(headers.get(name)) / scale))
        except (TypeError, ValueError):
            continue
    return min(8.0, default)


def _int(value: object) -> int | None:
    """A token count the server reported, when it is one: a whole number from 0 to what no
    request reaches ("prompt_tokens": -5 or 1e30 is no count; the estimate is used)."""
    try:
        n = int(float(value)) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError, OverflowError):
        return None
    return n if n is not None and 0 <= n <= _MAX_TOKENS else None


_MAX_TOKENS = 100_000_000  # far past any context window


def _text(content: object) -> str:
    """A message's content as text: a string, or a list of parts as some servers send it
    ([{"type": "text", "text": "…"}]); anything else is no text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p["text"]
            if isinstance(p, dict) and isinstance(p.get("text"), str)
            else getattr(p, "text", "")
            if isinstance(getattr(p, "text", ""), str)
            else ""
            for p in content
        )
    return ""


def finish_reason(response) -> str | None:
    choices = getattr(response, "choices", None) or [None]
    return getattr(choices[0], "finish_reason", None)


WAIT_NOTICE = 5.0  # seconds of waiting for an answer before mem says it waits


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
        structured: str = "auto",
        strategy: str = "auto",
        batch_entries: int = 0,
    ):
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self._context_tokens = context_tokens
        self.tool_mode = tool_mode
        self.structured = structured
        self.strategy_setting = strategy
        self.entries_setting = batch_entries
        self.calls = 0
        self.tokens_sent = 0
        # The label is printed and written into HISTORY.md's marker (and so committed and
        # synced): the endpoint's credentials (user:password@, ?api-key=) never are.
        self.label = f"openai {model}" + (f" @ {without_credentials(base_url)}" if base_url else "")
        self._client = None
        self._endpoint: Endpoint | None = None
        self._schema_refused = False
        # An answer never needs more than the room kept for it; a small model that starts
        # repeating itself would otherwise generate until the server's context is full.
        self._limit: dict[str, int] = {"max_tokens": ANSWER_RESERVE}

    @property
    def endpoint(self) -> Endpoint:
        """What the endpoint advertises, asked once (never api.openai.com's own)."""
        if self._endpoint is None:
            needed = self.base_url and (
                self.structured == "auto" or self.strategy_setting == "auto"
            )
            if needed:
                from .endpoint import probe

                self._endpoint = probe(self._get_client(), self.model)
            else:
                self._endpoint = Endpoint()
        return self._endpoint

    @property
    def strategy(self) -> str:
        if self.strategy_setting != "auto":
            return self.strategy_setting
        return "entry" if self.endpoint.small else "batch"

    @property
    def context_tokens(self) -> int:
        """How much prompt one call may carry: the model's context with the batch strategy;
        with the entry strategy each call is one entry, and a batch is cut by
        batch_entries."""
        return self._context_tokens if self.strategy == "batch" else 10**9

    @property
    def batch_entries(self) -> int:
        """Most entries one batch may hold (0: as many as the context takes)."""
        if self.entries_setting:
            return self.entries_setting
        return ENTRY_BATCH if self.strategy == "entry" else 0

    def schema_on(self) -> bool:
        """Whether to ask for the answer's JSON schema through response_format."""
        if self.structured == "off" or self._schema_refused or self.tool_mode == "tools":
            return False
        return self.structured == "schema" or self.endpoint.schema

    def _get_client(self):
        if self._client is None:
            from ...providers.openai_client import make_client

            # Retries are _create's: the client's own would retry a timeout too.
            self._client = make_client(self.api_key, self.base_url, self.timeout, 0)
        return self._client

    def _create(self, **request):
        """One completion, retried with backoff after HTTP 429, 5xx or a lost connection
        (llm.max_retries), never after a timeout: a server that holds a request without
        answering costs llm.timeout once, not once a retry. A wait past WAIT_NOTICE
        seconds is said (errors.say_waiting)."""
        import threading
        import time

        import openai

        from ...errors import say_waiting

        where = f" at {without_credentials(self.base_url)}" if self.base_url else ""
        for attempt in range(self.max_retries + 1):
            notice = threading.Timer(
                WAIT_NOTICE,
                say_waiting,
                [f"waiting for the model{where} (up to {self.timeout:g} s, llm.timeout)"],
            )
            notice.daemon = True
            notice.start()
            try:
                return self._get_client().chat.completions.create(**request)
            except openai.APITimeoutError:
                raise
            except (
                openai.RateLimitError,
                openai.InternalServerError,
                openai.APIConnectionError,
            ) as exc:
                if attempt == self.max_retries:
                    raise
                delay = _retry_after(exc, 0.5 * 2**attempt)
            finally:
                notice.cancel()
            time.sleep(delay)
        raise AssertionError("unreachable")

    def call(self, convo: list[dict], **kwargs):
        """One request; the openai client's failures as ProviderError (or the BadRequest /
        UnprocessableEntity itself, which the caller may answer by changing the request)."""
        import openai

        self.calls += 1
        self.tokens_sent += sum(estimate_tokens(m["content"] or "") for m in convo)
        limit = {k: min(v, kwargs.pop("max_tokens", v)) for k, v in self._limit.items()}
        try:
            try:
                return self._create(model=self.model, messages=convo, **limit, **kwargs)
            except openai.BadRequestError as exc:
                if "max_tokens" not in _short(exc) or "max_tokens" not in self._limit:
                    raise
                # Reasoning models take the newer name for the same limit.
                self._limit = {"max_completion_tokens": ANSWER_RESERVE}
                limit = {"max_completion_tokens": next(iter(limit.values()))}
                return self._create(model=self.model, messages=convo, **limit, **kwargs)
        except openai.APITimeoutError:
            raise UnusableAnswer(
                f"the model did not answer within {self.timeout:g} s (llm.timeout); "
                "nothing was written",
                cut=True,
                silent=True,
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
            raise UnusableAnswer(
                f"the endpoint's answer is not JSON ({exc}); nothing written"
            ) from None

    def message(self, response):
        if isinstance(response, str):
            raise UnusableAnswer("the endpoint answered with text, not a chat completion")
        choices = getattr(response, "choices", None)
        if not choices:
            raise UnusableAnswer("the endpoint answered with no choices; nothing was written")
        return choices[0].message

    def usage(self, response, convo: list[dict], answer: str) -> Usage:
        usage = getattr(response, "usage", None)
        prompt = _int(getattr(usage, "prompt_tokens", None)) if usage is not None else None
        completion = _int(getattr(usage, "completion_tokens", None)) if usage is not None else None
        if prompt is None or completion is None:
            sent = sum(estimate_tokens(m["content"] or "") for m in convo)
            return Usage(sent, estimate_tokens(answer), estimated=True)
        return Usage(prompt, completion)

    def propose(self, request: Request) -> Proposal:
        if self.strategy == "entry":
            from .per_entry import propose_per_entry

            return propose_per_entry(self, request)
        return self._batch(request)

    def _batch(self, request: Request) -> Proposal:
        import openai

        timed = [e.when for e in request.entries if e.when]
        last = max(timed) if timed else request.now

        def read(raw: object, response=None) -> Proposal:
            try:
                return read_answer(raw, entries=len(request.entries), last=last)
            except UnusableAnswer as exc:
                if finish_reason(response) == "length":  # cut at the cap: ask for less
                    exc.cut = True
                    exc.message += " (the answer was cut at the token cap)"
                raise

        if self.schema_on():
            found = self._with_schema(request, read)
            if found is not None:
                return found
        if self.tool_mode == "json":
            return self._json_only(request, read)
        self._tools_error: UnusableAnswer | None = None
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

    def _with_schema(self, request: Request, read) -> Proposal | None:
        """The answer as the message, held to save_memory's schema by the server; None when
        the server refuses the format (then never asked again this run)."""
        import openai

        convo = messages(request, json_only=True)
        try:
            response = self.call(convo, response_format=RESPONSE_FORMAT)
        except (openai.BadRequestError, openai.UnprocessableEntityError):
            self._schema_refused = True
            return None
        text = getattr(self.message(response), "content", None) or ""
        return self._done(read(text, response), response, convo, text)

    def _with_tools(self, request: Request, read) -> Proposal | None:
        """The answer to a request with the tool: a tool call, or a call written in the
        content. None (auto) when neither came: the caller asks for JSON instead."""
        import openai

        convo = messages(request)
        tool_choice: object = {"type": "function", "function": {"name": TOOL_NAME}}
        forced_refused = corrected = False
        while True:
            try:
                response = self.call(convo, tools=[TOOL], tool_choice=tool_choice)
            except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
                if not forced_refused and "tool_choice" in _short(exc).lower():
                    forced_refused = True  # this server cannot force a tool: let it choose
                    tool_choice = "auto"
                    continue
                raise
            message = self.message(response)
            calls = [
                c
                for c in (getattr(message, "tool_calls", None) or [])
                if getattr(c, "function", None) and c.function.name == TOOL_NAME
            ]
            text = _text(getattr(message, "content", None))
            if calls:
                arguments = calls[0].function.arguments
                try:
                    found = read(arguments if arguments not in (None, "") else "{}", response)
                except UnusableAnswer as exc:
                    if self.tool_mode == "auto":
                        self._tools_error = exc  # said if JSON mode does no better
                        return None  # arguments that do not parse: ask for JSON instead
                    raise
                return self._done(found, response, convo, str(arguments))
            if text.strip():  # Qwen, MiniMax and others write the call in the message
                try:
                    return self._done(read(text, response), response, convo, text)
                except UnusableAnswer:
                    pass
            if self.tool_mode == "auto":
                return None
            if corrected:
                raise UnusableAnswer(
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
            response = self.call(convo)
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            raise ProviderError(f"the endpoint rejected the request: {_short(exc)}") from None
        text = getattr(self.message(response), "content", None) or ""
        return self._done(read(text, response), response, convo, text)

    def _done(self, found: Proposal, response, convo: list[dict], answer: str) -> Proposal:
        if finish_reason(response) == "length":
            # Cut at the token cap: the reader closed the brackets, but the last edit may be
            # half a sentence and the skip list may be missing entries. Neither is trusted.
            found = replace(found, edits=found.edits[:-1], notes=found.notes[:-1], skip=())
            if not found.edits:  # a model repeating itself to the cap: ask for less
                raise UnusableAnswer(
                    "the answer was cut at the token cap before it said anything usable",
                    cut=True,
                )
        return replace(found, usage=self.usage(response, convo, answer), model=self.model)
