"""What a gated pattern needs of a text before it is compiled or run: the gates themselves
are read off the patterns by tests/regex_gate.py (the firewall's in firewall_gates.py, the
costliest secret families' in secrets.GATES); here is how a text is held to one, and
`once`, which builds a table or a pattern on first use (standing orders' phrases)."""

from __future__ import annotations

from .firewall_gates import FOLD_AFTER, FOLD_BEFORE

TYPE_CHECKING = False  # typing itself is not imported: the firewall runs on every mem log
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


def fold(text: str) -> str:
    """The text as re's case-insensitive matching sees it (firewall_gates.py says how)."""
    return text.translate(FOLD_BEFORE).lower().translate(FOLD_AFTER)


def holds(text: str, clauses: Sequence[Sequence[str]]) -> bool:
    """Whether the text holds one string of every clause (fold it first for a
    case-insensitive gate)."""
    return all(any(word in text for word in clause) for clause in clauses)


def once(build: Callable[[], object]):
    """`build` run on first call and kept (functools.lru_cache without importing functools,
    which the per-turn `mem log` does not otherwise need)."""
    kept: list = []

    def get():
        if not kept:
            kept.append(build())
        return kept[0]

    get.__doc__, get.__name__ = build.__doc__, build.__name__
    get.cache_clear = kept.clear  # type: ignore[attr-defined]
    get.built = lambda: bool(kept)  # type: ignore[attr-defined]
    return get
