"""What a gated pattern needs of a text before it is compiled or run: the gates themselves
are read off the patterns by tests/regex_gate.py (the firewall's in firewall_gates.py, the
costliest secret families' in secrets.GATES); here is how a text is held to one."""

from __future__ import annotations

from .firewall_gates import FOLD_AFTER, FOLD_BEFORE

TYPE_CHECKING = False  # typing itself is not imported: the firewall runs on every mem log
if TYPE_CHECKING:
    from collections.abc import Sequence


def fold(text: str) -> str:
    """The text as re's case-insensitive matching sees it (firewall_gates.py says how)."""
    return text.translate(FOLD_BEFORE).lower().translate(FOLD_AFTER)


def holds(text: str, clauses: Sequence[Sequence[str]]) -> bool:
    """Whether the text holds one string of every clause (fold it first for a
    case-insensitive gate)."""
    return all(any(word in text for word in clause) for clause in clauses)
