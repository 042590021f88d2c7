"""Consolidation providers, chosen by name: `openai` (any OpenAI-compatible endpoint) and
`offline` (rules, no network). `auto` picks openai when an endpoint or key is configured."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError
from .base import Provider

NAMES = ("auto", "openai", "offline")


def choose(name: str, settings: Mapping[str, Any], env: Mapping[str, str]) -> Provider:
    """The provider `name` asks for, configured from settings and the environment."""
    if name not in NAMES:
        raise ConfigError(f"unknown provider {name!r}; use one of {', '.join(NAMES)}")
    base_url = settings.get("base_url") or env.get("OPENAI_BASE_URL", "")
    api_key = env.get("OPENAI_API_KEY", "")
    if name == "auto":
        name = "openai" if (base_url or api_key) else "offline"
    if name == "offline":
        from .offline import OfflineProvider

        return OfflineProvider()
    from .openai_compat import OpenAIProvider

    return OpenAIProvider(
        model=settings["model"],
        base_url=base_url or None,
        api_key=api_key,
        timeout=float(settings["timeout"]),
        max_retries=int(settings["max_retries"]),
        context_tokens=int(settings["context_tokens"]),
    )


__all__ = ["NAMES", "Provider", "choose"]
