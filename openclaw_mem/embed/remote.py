"""Any OpenAI-compatible `/v1/embeddings` endpoint through the openai client: OpenAI,
Ollama, vLLM, LM Studio, llama.cpp server.

Texts go in batches (embed.batch); 429 and 5xx are retried with backoff by the client
(embed.max_retries); every request has a timeout (embed.timeout). Vectors are asked for as
floats (`encoding_format="float"`): local servers often ignore base64. A server that needs
no key gets no Authorization header at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlparse

import numpy as np

from .base import EmbedError


class OpenAIEmbedder:
    def __init__(
        self,
        model: str,
        base_url: str | None,
        api_key: str,
        timeout: float,
        max_retries: int,
        batch: int,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.batch = max(1, batch)
        host = urlparse(base_url).netloc if base_url else "api.openai.com"
        self.key = f"openai:{model}@{host}"
        self.label = f"openai {model} @ {host}"
        self.calls = 0
        self._client = None

    def _get_client(self):
        if self._client is None:
            from ..providers.openai_client import make_client

            self._client = make_client(self.api_key, self.base_url, self.timeout, self.max_retries)
        return self._client

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        import openai

        from ..safety.secrets import redact

        client = self._get_client()
        rows: list[list[float]] = []
        for lo in range(0, len(texts), self.batch):
            # An embedding endpoint is a third party too: no secret goes in a request.
            part = [redact(t)[0] if t.strip() else " " for t in texts[lo : lo + self.batch]]
            self.calls += 1
            try:
                response = client.embeddings.create(
                    model=self.model, input=part, encoding_format="float"
                )
                data = sorted(response.data, key=lambda d: d.index)
                if len(data) != len(part):
                    raise EmbedError(
                        f"{self.label} returned {len(data)} vectors for {len(part)} texts"
                    )
                rows += [list(d.embedding) for d in data]
            except EmbedError:
                raise
            except openai.APITimeoutError:
                raise EmbedError(f"{self.label} did not answer within {self.timeout:g} s") from None
            except openai.APIStatusError as exc:
                raise EmbedError(f"{self.label} failed with HTTP {exc.status_code}") from None
            except openai.APIConnectionError:
                raise EmbedError(f"cannot reach {self.label}") from None
            except (openai.OpenAIError, ValueError, TypeError, AttributeError) as exc:
                raise EmbedError(f"{self.label} gave no usable vectors ({exc})") from None
        try:
            vecs = np.asarray(rows, np.float32)
        except ValueError:
            raise EmbedError(f"{self.label} returned vectors of different lengths") from None
        if vecs.ndim != 2 or not np.isfinite(vecs).all():
            raise EmbedError(f"{self.label} returned malformed vectors")
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.where(norms > 0, norms, 1.0)
