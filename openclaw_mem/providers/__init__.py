"""What the providers share: their names (here), one list per kind, and the one way to build
an OpenAI-compatible client (`openai_client`).

Provider names, one list per kind: what `consolidate.provider` and `embed.provider` may
be set to, what `--provider` and `--embed` complete and say in their help, and what the
packages that make providers (`consolidate.providers`, `embed`) answer to. Those packages
register each factory by name there, and the name here, so a provider registered by a
third party is a name the settings accept; the built-ins are listed here from the start,
as settings are read before any provider package is imported.

May import `errors`: settings, the CLI and both provider packages read it.
"""

from __future__ import annotations

_NAMES: dict[str, list[str]] = {
    "consolidate": ["auto", "openai", "offline"],
    "embed": ["auto", "none", "local", "openai"],
}


def names(kind: str) -> tuple[str, ...]:
    """The names a `kind` ("consolidate", "embed") of provider answers to, `auto` first."""
    return tuple(_NAMES[kind])


def add(kind: str, name: str) -> None:
    if name not in _NAMES[kind]:
        _NAMES[kind].append(name)
