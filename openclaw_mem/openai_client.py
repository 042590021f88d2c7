"""The one way mem builds an OpenAI-compatible client, for chat (consolidation) and for
embeddings alike. `openai` is imported here, only when a client is first needed."""

from __future__ import annotations


def make_client(api_key: str, base_url: str | None, timeout: float, max_retries: int):
    import openai

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
