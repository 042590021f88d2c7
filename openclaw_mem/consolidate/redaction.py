"""Redaction in one place for a consolidation run: what is sent to a provider (the log
entries, the curated files) and what comes back to be shown or kept (the summary, edits
waiting for review, the reader's refusals) all pass here, with the built-in secret families
and consolidate.redact_patterns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..safety.secrets import redact
from .proposal import Edit


class Redaction:
    def __init__(self, extra: Sequence[str]) -> None:
        self.extra = tuple(extra)
        self.hidden = 0  # secrets taken out of what was sent

    def sent(self, text: str) -> str:
        """Text that goes to the provider: counted."""
        out, n = redact(text, self.extra)
        self.hidden += n
        return out

    def sent_together(self, texts: Sequence[str]) -> list[str]:
        """Entries that go to the provider one after another: each redacted with the last
        line of the entry before it and the first line of the one after in view, so a key
        pasted in two turns (half in each) is hidden in both. Counted."""
        from ..safety.secrets import REDACTED, redact_lines

        out = []
        for i, text in enumerate(texts):
            before = [texts[i - 1].rsplit("\n", 1)[-1]] if i else []
            after = [texts[i + 1].split("\n", 1)[0]] if i + 1 < len(texts) else []
            whole = "\n".join([*before, text, *after])
            first = len(before) + 1
            shown = redact_lines(whole, first, first + text.count("\n"), self.extra)
            self.hidden += max(0, shown.count(REDACTED) - text.count(REDACTED))
            out.append(shown)
        return out

    def text(self, text: str) -> str:
        return redact(text, self.extra)[0]

    def docs(self, docs: dict[str, str]) -> dict[str, str]:
        return {name: self.text(text) for name, text in docs.items()}

    def edit(self, edit: Edit) -> Edit:
        """An edit that is not written but shown and kept for review."""
        return replace(
            edit,
            text=self.text(edit.text),
            target=self.text(edit.target),
            section=self.text(edit.section),
        )
