"""The content words of a text, as the checks compare them: stemmed words, names, numbers
and Chinese word pairs, without stopwords and without the words any memory line may share
with any entry (they prove nothing about where a line came from)."""

from __future__ import annotations

from ..search.tokenize import shingles, tokenize

# Words every memory line may share with any entry: they prove nothing about its source.
_GENERIC = frozenset(
    shingles(
        tokenize(
            "user users prefers prefer likes like loves love wants want always never please "
            "uses use using has have lives live is are was the a an answer answers reply"
        )
    )
)


def content(text: str) -> set[str]:
    return shingles(tokenize(text)) - _GENERIC
