"""Consolidation providers, registered by name. The built-ins, `openai` (any OpenAI-compatible
endpoint) and `offline` (rules, no network), register through the same `register` a test's
scripted fake or a third-party provider uses; `auto` picks openai when an endpoint or a key
is configured, else offline."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...errors import ConfigError
from ..proposal import Provider

# (settings: llm.* without the prefix, environment) -> a ready provider
Factory = Callable[[Mapping[str, Any], Mapping[str, str]], Provider]
_FACTORIES: dict[str, Factory] = {}


def register(name: str, factory: Factory) -> None:
    _FACTORIES[name] = factory


def names() -> tuple[str, ...]:
    return ("auto", *_FACTORIES)


def create(name: str, settings: Mapping[str, Any], env: Mapping[str, str]) -> Provider:
    """The provider `name` asks for, configured from settings and the environment."""
    if name == "auto":
        configured = (
            settings.get("base_url") or env.get("OPENAI_BASE_URL") or env.get("OPENAI_API_KEY")
        )
        name = "openai" if configured else "offline"
    if name not in _FACTORIES:
        raise ConfigError(f"unknown provider {name!r}; use one of {', '.join(names())}")
    return _FACTORIES[name](settings, env)


def _offline(settings: Mapping[str, Any], env: Mapping[str, str]) -> Provider:
    from .offline import OfflineProvider

    return OfflineProvider()


def _openai(settings: Mapping[str, Any], env: Mapping[str, str]) -> Provider:
    from ...openai_client import endpoint
    from .openai_compat import OpenAIProvider

    base_url, api_key = endpoint(
        settings,
        env,
        "the openai provider needs OPENAI_API_KEY for api.openai.com; for a local server "
        "that takes no key set llm.base_url (or --base-url), or use --provider offline",
    )
    return OpenAIProvider(
        model=settings["model"],
        base_url=base_url,
        api_key=api_key,
        timeout=float(settings["timeout"]),
        max_retries=int(settings["max_retries"]),
        context_tokens=int(settings["context_tokens"]),
        tool_mode=settings.get("tool_mode", "auto"),
        structured=settings.get("structured_output", "auto"),
        strategy=settings.get("strategy", "auto"),
        batch_entries=int(settings.get("batch_entries", 0)),
    )


register("openai", _openai)
register("offline", _offline)

__all__ = ["Factory", "Provider", "create", "names", "register"]
