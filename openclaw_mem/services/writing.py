"""Writing: what agents and importers append to the daily logs (`mem log`, `mem ingest`,
`mem import`), and what follows an append: the commit `git.autocommit = "log"` asks for,
the firewall's warning, a background consolidation past the window. `log` runs on every
agent turn: nothing heavy is imported on its way."""

from __future__ import annotations

from ..errors import UsageError
from ..format.appending import (
    ROLES,
    NewEntry,
    append_entries,
    check_label,
    citation,
    random_id,
    replayable_in,
)
from ..store.commits import COMMIT_INGEST, COMMIT_LOG
from ..store.workspace_root import MEMORY_DIR
from .kept_code import keep_prebuilt, prebuilt_file
from .place import Place

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from datetime import datetime
    from pathlib import Path

    from .results import Ingested


class Logged:
    """Where an appended entry landed (a workspace path, 1-based lines), and what happened
    after: the commit `git.autocommit = "log"` made, a background consolidation started,
    warnings. A plain class: `mem log` returns one on every agent turn."""

    __slots__ = ("commit", "consolidating", "end_line", "path", "start_line", "warnings")

    def __init__(
        self,
        path: str,
        start_line: int,
        end_line: int,
        commit: str | None = None,
        consolidating: bool = False,
        warnings: tuple[str, ...] = (),
    ) -> None:
        self.path, self.start_line, self.end_line = path, start_line, end_line
        self.commit, self.consolidating, self.warnings = commit, consolidating, warnings

    def __repr__(self) -> str:
        return f"Logged({self.citation!r}, commit={self.commit!r})"

    @property
    def citation(self) -> str:
        return citation(self.path, self.start_line, self.end_line)

    def to_json(self) -> dict:
        return {"path": self.path, "startLine": self.start_line, "endLine": self.end_line}


class Writing:
    def __init__(self, place: Place) -> None:
        self.place = place

    def log(
        self,
        text: str,
        *,
        role: str | None = None,
        speaker: str | None = None,
        session: str | None = None,
        at: datetime | None = None,
        agent: str | None = None,
    ) -> Logged:
        """Append one entry, verbatim, to the day file of `at` (default: now), marked with
        the agent that logged it (agent, or MEM_AGENT) when there is one."""
        place = self.place
        if role is not None and speaker is not None:
            raise UsageError("give a role or a speaker, not both")
        if role is not None and role not in ROLES:
            raise UsageError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError("the text is not valid UTF-8; nothing was logged") from None
        label = (
            check_label(speaker)
            if speaker is not None
            else (role or place.config["log.default_role"])
        )
        redacting = place.config["log.redact"]
        kept_at = prebuilt_file(place)  # read when a pattern is first compiled
        if redacting:  # opt-in: daily logs are otherwise kept verbatim
            text = place.redact(text)
        when = at or place.now()
        rel = f"{MEMORY_DIR}/{when.date().isoformat()}.md"
        path = place.ws.inside_text(rel)  # no link on the way
        entry = NewEntry(when, label, text, session, agent or place.agent)
        draw = replayable_in(_where(place)) if place.replayed else random_id
        result = append_entries(path, when.date(), [entry], rel=rel, draw_id=draw)
        held = [] if redacting else _secrets_kept(place, text, rel, result.start_line)
        message = f"{COMMIT_LOG} {rel}" + "".join(f"\n\n{h}" for h in held[:1])
        commit, warnings = place.after_append([rel], message)
        warnings[:0] = held[:1]
        from ..safety.firewall import scan

        flags = scan(text)
        keep_prebuilt(kept_at)
        if flags:  # kept verbatim: a log is what was said; it just never becomes a rule
            kinds = ", ".join(f.kind for f in flags)
            warnings.append(
                f"{rel}#L{result.start_line} reads like an instruction to the agent ({kinds}); "
                "kept verbatim; consolidation holds anything drawn from it for mem review"
            )
        return Logged(
            rel,
            result.start_line,
            result.end_line,
            commit,
            self.consolidate_in_background(),
            tuple(warnings),
        )

    def ingest(
        self,
        lines: Iterable[str],
        source: str,
        *,
        session: str | None = None,
        default_time: datetime | None = None,
    ) -> Ingested:
        """Append a transcript, each message into its own day; repeats are skipped."""
        from ..format.ingest import ingest
        from .results import Ingested

        place = self.place
        report = ingest(
            place.ws, lines, source, default_time=default_time or place.now(), session=session
        )
        commit, warnings = None, []
        if report.files:
            commit, warnings = place.after_append(report.files, f"{COMMIT_INGEST} {source}")
        consolidating = self.consolidate_in_background() if report.files else False
        return Ingested(report, commit, consolidating, tuple(warnings + _flagged(report)))

    def import_export(self, kind: str, path: Path) -> Ingested:
        """Append a ChatGPT, claude.ai or Claude Code export to the daily logs (importers.py);
        what is already there is skipped, so a repeat import adds nothing."""
        from ..format.importers import read_export
        from ..format.ingest import append_messages
        from ..store.transaction import transaction
        from .results import Ingested

        place = self.place
        notes: list[str] = []
        messages, skipped = read_export(kind, path, notes)
        with transaction(place.root):
            place.finish_killed()
            report = append_messages(place.ws, messages, skipped, default_time=place.now())
            commit, warnings = None, []
            if report.files:
                commit, warnings = place.after_append(
                    report.files, f"{COMMIT_INGEST} {kind} export"
                )
        return Ingested(report, commit, False, tuple(notes + warnings + _flagged(report)))

    def consolidate_in_background(self) -> bool:
        """consolidate.auto_consolidate: past the window, start `mem consolidate --auto` in
        the background, so the turn never waits for a model. Output: .mem/consolidate.log."""
        place = self.place
        if not place.config["consolidate.auto_consolidate"]:
            return False
        from ..consolidate.review import count_pending

        if count_pending(place.ws) <= place.config["consolidate.memory_window"]:
            return False
        from .background import spawn

        spawn(place.ws, ["consolidate", "--auto", "--quiet"], "consolidate.log")
        return True


def _secrets_kept(place: Place, text: str, rel: str, heading: int) -> list[str]:
    """One line per line of the entry that holds what looks like a secret, kept verbatim
    (log.redact is off): where it is and how to take it out, never the secret itself. A
    plain note is let through by a cheap check, without compiling the secret families."""
    from ..safety.secret_hint import may_hold_secret

    extra = place.redact_extra
    if not extra and not may_hold_secret(text):
        return []
    from ..format.appending import normalize_text
    from ..safety.secrets import scan_lines
    from ..text import article

    return [
        f"{rel}:{n} holds what looks like {article(kinds[0])}, kept verbatim as log.redact is "
        f"off; `mem forget --hard {rel}:{n}` redacts it before a commit keeps it"
        for n, (_, kinds) in enumerate(scan_lines(normalize_text(text), extra=extra), heading + 1)
        if kinds
    ]


def _flagged(report) -> list[str]:
    if not report.flagged:
        return []
    from ..text import plural

    return [
        f"{plural(report.flagged, 'message')} read like an instruction to the agent; "
        "kept verbatim, and consolidation holds anything drawn from them for mem review "
        "(mem audit lists them)"
    ]


def _where(place: Place) -> str:
    """The workspace as a replayed id is drawn from: its path, from the home directory when
    it lies there (the same commands in another home give the same files)."""
    from pathlib import Path

    home = place.env.get("HOME")
    if home:
        try:
            return "~/" + place.root.resolve().relative_to(Path(home).resolve()).as_posix()
        except (ValueError, OSError):
            pass
    return str(place.root)
