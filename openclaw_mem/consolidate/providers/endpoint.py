"""What an OpenAI-compatible endpoint says about itself, read once from its model list
(`GET /models`), so a run asks in the form the server decodes best.

- **Structured output**: llama.cpp's server, vLLM, Ollama and LM Studio constrain an answer
  to a JSON schema sent as `response_format` (grammar-constrained decoding): the answer then
  always parses. They name themselves in the list (`owned_by`: llamacpp, vllm, library,
  organization_owner); a gateway that lists `supported_parameters` (OpenRouter) says it
  there. OpenAI's own API is not asked: its strict tool call is as good.
- **Size**: llama.cpp reports each model's parameter count (`meta.n_params`); a model under
  SMALL_PARAMS gets the per-entry strategy when `llm.strategy = auto`.

A server that lists nothing (404, an error, a timeout) advertises nothing: the request stays
the plain tool call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SCHEMA_SERVERS = frozenset({"llamacpp", "vllm", "library", "organization_owner"})
SCHEMA_PARAMETERS = frozenset({"response_format", "structured_outputs"})
SMALL_PARAMS = 4e9  # parameters: below this a model follows one short question far better
PROBE_SECONDS = 5.0


@dataclass(frozen=True)
class Endpoint:
    schema: bool = False  # it takes response_format with a JSON schema
    params: float | None = None  # the model's parameter count, when the server says it
    server: str = ""  # owned_by, as listed

    @property
    def small(self) -> bool:
        return self.params is not None and self.params < SMALL_PARAMS


def read_models(models: list[Any], wanted: str) -> Endpoint:
    """The endpoint as its model list describes it: `models` are the list's entries (objects
    or dicts), `wanted` the model a run asks for (the entry of that id, else the first)."""

    def field(model: Any, name: str) -> Any:
        if isinstance(model, dict):
            return model.get(name)
        value = getattr(model, name, None)
        extra = getattr(model, "model_extra", None) or {}
        return value if value is not None else extra.get(name)

    if not models:
        return Endpoint()
    ids = [str(field(m, "id") or "") for m in models]
    model = models[ids.index(wanted)] if wanted in ids else models[0]
    server = str(field(model, "owned_by") or "")
    supported = field(model, "supported_parameters") or ()
    schema = server in SCHEMA_SERVERS or bool(SCHEMA_PARAMETERS & set(map(str, supported)))
    meta = field(model, "meta")
    params = meta.get("n_params") if isinstance(meta, dict) else None
    number = params if isinstance(params, int | float) and not isinstance(params, bool) else None
    return Endpoint(schema, float(number) if number else None, server)


def probe(client: Any, wanted: str) -> Endpoint:
    """Ask the endpoint's model list once (a few seconds at most, no retry)."""
    import openai

    try:
        page = client.with_options(timeout=PROBE_SECONDS, max_retries=0).models.list()
        return read_models(list(getattr(page, "data", None) or []), wanted)
    except (openai.OpenAIError, ValueError, TypeError, AttributeError):
        return Endpoint()
