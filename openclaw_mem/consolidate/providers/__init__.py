"""Consolidation providers, registered by name. The built-ins, `openai` (any OpenAI-compatible
endpoint) and `offline` (rules, no network), register through the same `register` a test's
scripted fake or a third-party provider uses; `auto` picks openai only when mem's own
settings name an endpoint (llm.base_url, --base-url), else offline: a key or URL in the
environment, set for some other tool, never sends memory anywhere by itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...errors import ConfigError
from ..proposal import Provider

# (settings: llm.* without the prefix, environment) -> a ready provider
Factory = Callable[[Mapping[str, Any], Mapping[str, str]], Provider]
_FACTORIES: dict[str, Factory] = {}


def register(name: str, factory: Factory) -> None:
    from ...providers import add

    _FACTORIES[name] = factory
    add("consolidate", name)


def names() -> tuple[str, ...]:
    from ...providers import names

    return names("consolidate")


def resolve(name: str, settings: Mapping[str, Any]) -> str:
    """The registered name `name` stands for: `auto` is openai when the settings name an
    endpoint, else offline. The environment is not read: privacy by default."""
    if name == "auto":
        return "openai" if settings.get("base_url") else "offline"
    return name


def unchosen(name: str, settings: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    """One line for a person whose environment holds an OpenAI key or URL that `auto` left
    unused (they may have meant it for mem), saying how to choose; else None."""
    found = [v for v in ("OPENAI_API_KEY", "OPENAI_BASE_URL") if env.get(v)]
    if name != "auto" or settings.get("base_url") or not found:
        return None
    return (
        f"{found[0]} is set, but mem sends memory to no endpoint unless its settings name one: "
        'consolidated offline; to use a model set consolidate.provider = "openai" (or '
        "llm.base_url) in mem.toml, or pass --provider openai"
    )


def create(name: str, settings: Mapping[str, Any], env: Mapping[str, str]) -> Provider:
    """The provider `name` asks for, configured from settings and the environment."""
    name = resolve(name, settings)
    if name not in _FACTORIES:
        raise ConfigError(f"unknown provider {name!r}; use one of {', '.join(names())}")
    return _FACTORIES[name](settings, env)


def _offline(settings: Mapping[str, Any], env: Mapping[str, str]) -> Provider:
    from .offline import OfflineProvider

    return OfflineProvider()


def _openai(settings: Mapping[str, Any], env: Mapping[str, str]) -> Provider:
    from ...providers.openai_client import endpoint
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

__all__ = ["Factory", "Provider", "create", "names", "register", "resolve", "unchosen"]
