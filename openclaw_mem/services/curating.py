"""Curating: what changes MEMORY.md, USER.md and AGENTS.md: consolidation, the review
queue, undo, forgetting and cleanup. Each rewrite waits for the workspace transaction
and refuses to write into an unfinished merge."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from ..store.commits import COMMIT_CLEANUP, COMMIT_CONSOLIDATE, COMMIT_FORGET
from ..store.workspace import CURATED_FILES, HISTORY_FILE
from .place import Place
from .results import CleanupResult, ForgetResult

if TYPE_CHECKING:
    from ..consolidate.proposal import Provider
    from ..consolidate.run import Report
    from ..store.gitrepo import CommitInfo


class Curating:
    def __init__(self, place: Place) -> None:
        self.place = place

    def consolidate(
        self,
        *,
        provider: str | Provider | None = None,
        model: str | None = None,
        base_url: str | None = None,
        dry_run: bool = False,
        auto: bool = False,
        propose: bool = False,
        now: datetime | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> Report:
        """Distil what is not yet consolidated into the curated files: one commit a batch.
        propose keeps each batch for `mem review` instead (as --auto does with
        consolidate.review = true)."""
        from ..consolidate.run import consolidate

        place = self.place
        propose = propose or (auto and place.config["consolidate.review"])
        if not (dry_run or propose):
            place.check_writable_state()
            place.check_logs_unmarked()
        made, unchosen = place.provider(provider, model, base_url)
        report = consolidate(
            place.ws,
            made,
            place.consolidation_options(now),
            dry_run=dry_run,
            auto=auto,
            propose=propose,
            progress=progress,
        )
        if unchosen:
            report.warnings.insert(0, unchosen)
        return report

    def proposals(self) -> list:
        """Consolidations waiting for review, oldest first."""
        from ..consolidate.review import load_all

        return load_all(self.place.ws)

    def passed_over(self) -> int:
        """Entries consolidation passed over: shown to a model consolidate.max_offers times
        that neither cited nor skipped them (nothing kept)."""
        from ..consolidate.progress import passed_ids

        return len(passed_ids(self.place.ws))

    def reoffer(self) -> tuple[int, str | None, tuple[str, ...]]:
        """Offer the passed-over entries again: their `passed` lines leave the record, in a
        commit `mem undo` can revert. (how many, the commit, warnings)."""
        from ..consolidate.progress import PROGRESS_FILE, unpass
        from ..store.transaction import transaction

        place = self.place
        place.check_writable_state()
        with transaction(place.root):
            place.finish_killed()
            n = unpass(place.ws)
            if not n:
                return 0, None, ()
            message = f"{COMMIT_CONSOLIDATE} {n} passed-over log entries offered again"
            commit, warnings = place.commit_change([PROGRESS_FILE], message)
        return n, commit, tuple(warnings)

    def review(
        self,
        proposal: str,
        *,
        accept: bool = False,
        reject: tuple[int, ...] = (),
        reword: tuple[tuple[int, str], ...] = (),
        drop: bool = False,
    ):
        """Show, reword, accept (minus rejected edits) or drop a proposal. Returns
        (the proposal, its diff against the files now, the batch written or None)."""
        from ..consolidate import review

        place = self.place
        if drop:
            return self._shown(review.drop(place.ws, proposal)), "", None
        for number, text in reword:
            review.reword(place.ws, proposal, number, text)
        opts = place.consolidation_options()
        if accept:
            place.check_writable_state()
            pending, batch = review.accept(place.ws, proposal, opts, set(reject))
            return self._shown(pending), "", batch
        pending = review.load(place.ws, proposal)
        diff, _ = review.preview(place.ws, pending, opts.min_confidence)
        return self._shown(pending), place.redact(diff), None

    def _shown(self, pending):
        """A proposal as it may be shown: a proposal file is anyone's to edit, and what it
        says goes to a terminal (or an editor) with its secrets hidden."""
        redact = self.place.redact

        def edit(e: dict) -> dict:
            return {k: redact(v) if isinstance(v, str) else v for k, v in e.items()}

        return replace(
            pending,
            paragraph=redact(pending.paragraph),
            edits=[edit(e) for e in pending.edits],
            rejected=[edit(r) for r in pending.rejected],
            reasons=[redact(r) for r in pending.reasons],
        )

    def undo(self, *, yes: bool = False) -> tuple[CommitInfo, CommitInfo]:
        """Revert the newest change mem made (consolidation, forget, cleanup) with a new
        commit: (the change, the revert). When a person changed memory since, only with
        `yes` (the error names the commit it would revert)."""
        from ..consolidate.citations import refresh
        from ..store.transaction import transaction
        from ..upkeep.undo import undo

        ws = self.place.ws
        self.place.check_writable_state()
        with transaction(ws.root):
            self.place.finish_killed()
            return undo(ws, yes=yes, follow=lambda: refresh(ws).files, now=self.place.now())

    def forget(self, target: str, *, hard: bool = False) -> ForgetResult:
        """Forget what a target says. Words: every curated line, log entry and HISTORY.md
        paragraph that says them, struck through and hidden from recall (hard: deleted and
        redacted). A place: that curated line struck (hard: deleted); log or HISTORY.md
        lines hidden (hard: redacted in place)."""
        from ..store.transaction import transaction
        from ..upkeep.forgetting import place_of

        place = self.place
        place.check_writable_state()
        with transaction(place.root):
            place.finish_killed()
            place.keep_hand_edits([*CURATED_FILES, HISTORY_FILE])
            now = place.now()
            found = place_of(target)
            if found is None:
                result = self._forget_words(target, hard, now)
                if result is not None:
                    return result
            return self._forget_place(target, found, hard, now)

    def _forget_words(self, words: str, hard: bool, now) -> ForgetResult | None:
        from ..consolidate.citations import refresh
        from ..safety.secrets import REDACTED
        from ..upkeep.forget_words import forget_words

        place = self.place
        hid = forget_words(place.ws, words, hard, now, place.redact_extra)
        if hid is None:
            return None
        followed = refresh(place.ws).files if hid.redacted else []
        paths = [*hid.paths, *followed, "HISTORY.md"]
        shown = REDACTED if hid.secret else " ".join(words.split())[:60]
        how = "redacted" if hard else "hidden"
        message = f'{COMMIT_FORGET} "{shown}" ({len(hid.lines)} lines, {len(hid.hidden)} {how})'
        commit, warnings = place.commit_change(sorted(set(paths)), place.redact(message))
        lines = (*hid.lines, *hid.redacted)
        return ForgetResult(lines, commit, tuple(warnings), () if hard else hid.hidden, words)

    def _forget_place(self, target: str, found, hard: bool, now) -> ForgetResult:
        from ..consolidate.citations import refresh
        from ..upkeep.forget_words import hide_place
        from ..upkeep.forgetting import forget

        place = self.place
        if found and not hard and (found[0] == HISTORY_FILE or found[0].startswith("memory/")):
            hid = hide_place(place.ws, *found, now)
            where = f"{found[0]}:{found[1]}" + (f"-{found[2]}" if found[2] != found[1] else "")
            commit, warnings = place.commit_change(
                [HISTORY_FILE], f"{COMMIT_FORGET} {where} (hidden)"
            )
            return ForgetResult((), commit, tuple(warnings), hid.hidden)
        done = forget(place.ws, target, hard, now, place.redact_extra)
        # A redacted entry no longer says what a curated line drew from it.
        followed = refresh(place.ws).files if done.mode == "redacted" else []
        lo, hi = done.lines
        where = f"{done.path}:{lo}" + (f"-{hi}" if hi != lo else "")
        kept = ["HISTORY.md"] if done.records else []  # a split line's record moved
        commit, warnings = place.commit_change(
            [done.path, *followed, *kept], f"{COMMIT_FORGET} {where} ({done.mode})"
        )
        return ForgetResult((done,), commit, tuple(warnings))

    def cleanup(self, *, dry_run: bool = False) -> CleanupResult:
        """Move stale curated lines to archive/YYYY-MM.md (committed, not indexed)."""
        from ..upkeep.cleanup import archive, find_stale

        place = self.place
        cfg = place.config
        now = place.now()
        stale = find_stale(
            place.ws,
            now,
            min_importance=cfg["cleanup.min_importance"],
            unused_days=cfg["cleanup.unused_days"],
            deprecated_days=cfg["cleanup.deprecated_days"],
            min_confidence=cfg["cleanup.min_confidence"],
        )
        if not stale or dry_run:
            return CleanupResult(stale, None)
        from ..store.transaction import transaction

        place.check_writable_state()
        with transaction(place.root):
            place.finish_killed()
            place.keep_hand_edits([*CURATED_FILES, HISTORY_FILE])
            target = archive(place.ws, stale, now)
            paths = sorted({s.path for s in stale} | {target})
            message = f"{COMMIT_CLEANUP} archived {len(stale)} stale line(s) to {target}"
            commit, warnings = place.commit_change(paths, message)
        return CleanupResult(stale, target, commit, tuple(warnings))
