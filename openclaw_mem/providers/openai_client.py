"""The one way mem builds an OpenAI-compatible client, for chat (consolidation) and for
embeddings alike. `openai` is imported here, only when a client is first needed.

May import `errors`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def endpoint(
    settings: Mapping[str, Any], env: Mapping[str, str], missing: str
) -> tuple[str | None, str]:
    """(base_url or None for api.openai.com, api_key) from a section's `base_url` and the
    OPENAI_* variables; with neither a key nor a URL, `missing` as a one-line error."""
    from ..errors import ConfigError

    base_url = settings.get("base_url") or env.get("OPENAI_BASE_URL", "")
    api_key = env.get("OPENAI_API_KEY", "")
    if not api_key and not base_url:
        raise ConfigError(missing)
    return base_url or None, api_key


def make_client(api_key: str, base_url: str | None, timeout: float, max_retries: int):
    import openai

    if base_url:
        _check_url(base_url)

    http_client = None
    if not api_key:
        # Local servers (Ollama, llama.cpp) need no key, but the client insists on one: give
        # it a placeholder and take the header off every request, so no made-up credential
        # is ever sent anywhere.
        def no_auth(request) -> None:
            request.headers.pop("authorization", None)

        http_client = openai.DefaultHttpxClient(event_hooks={"request": [no_auth]})
    return openai.OpenAI(
        api_key=api_key or "unused",
        base_url=base_url,
        timeout=timeout,
        max_retries=max_retries,
        http_client=http_client,
    )


def _check_url(base_url: str) -> None:
    """A base URL the HTTP client can parse ("http://[::1" cannot: an unclosed IPv6 bracket
    made an 'unexpected InvalidURL')."""
    from urllib.parse import urlsplit

    from ..errors import ConfigError

    try:
        urlsplit(base_url).port  # noqa: B018 - reading it is the check
    except ValueError as exc:
        raise ConfigError(f"llm.base_url is not a URL ({exc})") from None
