"""Any OpenAI-compatible chat endpoint (OpenAI, DeepSeek, Ollama, vLLM, llama.cpp server),
through the openai client, answering with one forced `save_memory` tool call.

When a server refuses a forced tool_choice, the call is retried once with "auto"; when the
model answers without calling the tool, once more with a corrective message, then it is an
error. 429 and 5xx are retried with backoff by the client (llm.max_retries); every call has
a timeout (llm.timeout). Every failure is a ProviderError: nothing is written.
"""

from __future__ import annotations

from ..consolidate.prompt import CORRECTIVE, messages
from ..consolidate.schema import TOOL, TOOL_NAME, parse_arguments
from ..errors import ProviderError
from ..proposal import Proposal, Request
from ..text import estimate_tokens


def _short(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        msg = err.get("message") if isinstance(err, dict) else str(err)
    else:
        msg = getattr(exc, "message", None) or str(exc)
    return " ".join(str(msg).split())[:200]


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
    ):
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.context_tokens = context_tokens
        self.calls = 0
        self.tokens_sent = 0
        self.label = f"openai {model}" + (f" @ {base_url}" if base_url else "")
        self._client = None

    def _get_client(self):
        if self._client is None:
            import openai

            http_client = None
            if not self.api_key:
                # Local servers (Ollama, llama.cpp) need no key, but the client insists on
                # one: give it a placeholder and take the header off every request, so no
                # made-up credential is ever sent anywhere.
                def no_auth(request) -> None:
                    request.headers.pop("authorization", None)

                http_client = openai.DefaultHttpxClient(event_hooks={"request": [no_auth]})
            self._client = openai.OpenAI(
                api_key=self.api_key or "unused",
                base_url=self.base_url,
                timeout=self.timeout,
                max_retries=self.max_retries,
                http_client=http_client,
            )
        return self._client

    def propose(self, request: Request) -> Proposal:
        import openai

        client = self._get_client()
        convo = messages(request)
        tool_choice: object = {"type": "function", "function": {"name": TOOL_NAME}}
        forced_refused = corrected = False
        while True:
            self.calls += 1
            self.tokens_sent += sum(estimate_tokens(m["content"] or "") for m in convo)
            try:
                response = client.chat.completions.create(
                    model=self.model,
                    messages=convo,
                    tools=[TOOL],
                    tool_choice=tool_choice,
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
            except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
                if not forced_refused and "tool" in _short(exc).lower():
                    forced_refused = True  # this server cannot force a tool: let it choose
                    tool_choice = "auto"
                    continue
                raise ProviderError(f"the endpoint rejected the request: {_short(exc)}") from None
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
            if not response.choices:
                raise ProviderError("the endpoint answered with no choices; nothing was written")
            message = response.choices[0].message
            call = next(
                (
                    c
                    for c in (message.tool_calls or [])
                    if getattr(c, "function", None) and c.function.name == TOOL_NAME
                ),
                None,
            )
            if call is not None:
                return parse_arguments(call.function.arguments or "")
            if corrected:
                raise ProviderError(
                    f"{self.model} answered twice without calling save_memory; use a model with "
                    "tool calling, or --provider offline"
                )
            corrected = True
            convo = [
                *convo,
                {"role": "assistant", "content": message.content or ""},
                {"role": "user", "content": CORRECTIVE},
            ]
