"""Keeping: the workspace as a whole: sharing it (sync), repairing it (doctor), trusting its
settings, saying how it stands (status, the settings' notices, audit), its recall index,
and git's record of it (commit, history, diff)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import MemError
from ..store.commits import COMMIT_SYNC
from ..store.workspace import MEMORY_DIR
from ..text import plural
from .place import Place
from .results import Audit, Doctor, IndexSummary

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ..store.gitrepo import CommitInfo
    from ..store.gitsync import SyncResult
    from .status import Status

CITATIONS = f"{COMMIT_SYNC} citations follow their entries"
REFORMATTED = f"{COMMIT_SYNC} curated lines name their sources as links (mem doctor)"


def secret_note(place: Place, paths: Sequence[str]) -> str:
    """What a commit of these paths says of the log lines it adds that hold what looks like
    a secret (where, never what), or "" when none does."""
    from ..consolidate.write import kept_secrets

    logs = [p for p in paths if p.startswith("memory/") and p.endswith(".md")]
    kept = kept_secrets(place.root, logs, place.redact_extra)
    return f"holds what looks like a secret (log.redact is off): {', '.join(kept)}" if kept else ""


class Keeping:
    def __init__(self, place: Place) -> None:
        self.place = place

    # ------------------------------------------------------------- sharing and repairing

    def sync(self, remote: str | None = None) -> SyncResult:
        """Commit local memory, merge the remote's file by file (logs by entry, curated
        files by line), push: one memory on several machines, while agents keep logging.
        A line both machines rewrote waits in `mem review`; citations follow their entries."""
        from ..consolidate import claims
        from ..consolidate.citations import refresh
        from ..consolidate.progress import all_entries, record
        from ..consolidate.review import hold_undecided
        from ..format.merge import merge_file
        from ..store.gitsync import sync, sync_message
        from ..store.transaction import transaction

        place = self.place
        with transaction(place.root):  # what a kill interrupted is finished first
            finished = self._finish_interrupted()
        held: list[str] = []
        history_before: list[str] = []  # HISTORY.md as this machine had it (the vetting)

        def vet(ours, merged):
            history_before.append(ours("HISTORY.md") or "")
            mine = {e.id: e.entry.text for e in all_entries(place.ws)}
            return claims.vet(ours, merged, mine)

        def merge(rel: str, base: str, ours: str, theirs: str, rewritten: bool):
            merged = merge_file(rel, base, ours, theirs, rewritten=rewritten)
            return merged.text, merged

        def after(notes) -> tuple[list[str], str]:
            undecided = [u for m in notes.values() if hasattr(m, "undecided") for u in m.undecided]
            proposal = hold_undecided(place.ws, undecided, place.consolidation_options())
            if proposal:
                held.append(proposal)
            if history_before:
                notes[UNBACKED] = claims.unbacked_here(place.ws, history_before[-1])
            return refresh(place.ws).files, CITATIONS

        result = sync(
            place.root,
            remote or place.config["sync.remote"],
            place.config["sync.branch"],
            merge,
            message=self._saying_secrets(sync_message),
            after_merge=after,
            vet=vet,
            # An older workspace's line markers are taken over by id before the first merge
            # by entry can move lines under them; not before the remote is known to be there.
            before=lambda: record(place.ws, []),
        )
        said = [f"finished a {what} a kill had interrupted" for what in finished]
        return replace(result, warnings=tuple(said + self._after_sync(result, held)))

    def _after_sync(self, result: SyncResult, held: list[str]) -> list[str]:
        """What a sync has to say: links and state that arrived, untrusted settings, entries
        the remote had lost, lines that wait for a person, regions kept as they were here."""
        from ..config import load_config

        place = self.place
        # A link that arrived from another machine is reported; no reader ever follows it.
        place.ws.scan((*place.index_params.include, "archive/**/*.md"))
        said = [f"{rel} is a symlink; mem never follows it" for rel in place.ws.links]
        if result.pulled:  # a mem.toml this machine has not trusted says so now, once
            pulled = Place(place.ws, load_config(place.root, place.env), place.env, place.clock)
            said += Keeping(pulled).notices()
        notes = dict(result.merged)
        planted = notes.pop(".mem", None)
        if planted:
            said.append(
                f"the remote's commits hold {plural(len(planted), 'file')} under .mem/ "
                f"({planted[0]}…): not taken, this machine's state stays its own"
            )
        said += _claims(result.vetted, notes.pop(UNBACKED, 0))
        restored = sum(getattr(m, "restored", 0) for m in notes.values())
        restored += sum(m == "restored" for m in notes.values())
        if restored:
            said.append(
                f"the remote had lost {plural(restored, 'entry')} this machine still held; "
                "they were kept" + (" (its history was rewritten)" if result.rewritten else "")
            )
        versions = sum(getattr(m, "versions", 0) for m in notes.values())
        if versions:
            said.append(
                f"the remote holds {plural(versions, 'entry')} with other words than this "
                "machine's; both versions are kept, the remote's beside this machine's"
            )
        said += [
            f"a line both machines rewrote keeps this machine's words; the other's waits in "
            f"`mem review {proposal}`"
            for proposal in held
        ]
        kept = sorted(rel for rel, m in notes.items() if getattr(m, "kept_ours", 0) or m == "kept")
        said += [
            f"{rel} changed on both machines in the same place; this machine's lines were "
            "kept (the other's are in the merged commit's second parent)"
            for rel in kept
        ]
        return said

    def doctor(self) -> Doctor:
        """Put right what a plain `git pull` or a hand edit left: memory files a merge left
        conflicted (merged as mem sync merges them; a line both sides rewrote waits in
        `mem review`), citations that no longer point at the entry that says them (moved
        or unsourced), and a clone without the merge driver (registered). Commits the
        citations unless a merge is in progress (its commit takes them)."""
        from ..consolidate.citations import reformat_old_lines, refresh, wrong_links
        from ..consolidate.review import hold_undecided
        from ..format.merge import merge_file
        from ..store import gitrepo
        from ..store.transaction import transaction

        place = self.place

        def merge(rel: str, base: str, ours: str, theirs: str):
            merged = merge_file(rel, base, ours, theirs)
            return merged.text, merged

        with transaction(place.root):
            in_merge = gitrepo.operation_in_progress(place.root)
            finished = () if in_merge else self._finish_interrupted()
            resolved = []
            if gitrepo.open_repo(place.root) is not None:
                resolved = gitrepo.merge_by_entry(place.root, merge)
            undecided = [u for _, m in resolved for u in m.undecided]
            held = hold_undecided(place.ws, undecided, place.consolidation_options())
            in_merge = gitrepo.operation_in_progress(place.root)
            # Lines of the older format: not in the middle of a merge, which is a person's.
            reformatted, count = [], 0
            if not resolved and not in_merge:
                reformatted, count = reformat_old_lines(place.ws, place.now())
            citations = refresh(place.ws)
            commit = None
            files = sorted({*reformatted, *citations.files})
            if files and gitrepo.open_repo(place.root) is not None and not in_merge:
                message = REFORMATTED if count else CITATIONS
                commit, _ = place.commit(files, message)
            wrong = tuple(wrong_links(place.ws))
            marked = () if in_merge else self._marked()
            leftovers = _remove_leftovers(place.ws)
        return Doctor(
            [rel for rel, _ in resolved],
            citations,
            held,
            commit,
            count,
            finished,
            wrong,
            marked,
            leftovers,
        )

    def _marked(self) -> tuple[str, ...]:
        """The curated files, HISTORY.md and daily logs whose text holds conflict markers (a
        plain merge leaves a log so most often; consolidation would take the markers for
        words of its entries)."""
        from ..errors import BadEncoding
        from ..format.markdown import has_conflict_markers
        from ..store.fsutil import read_text
        from ..store.workspace import CURATED_FILES, HISTORY_FILE

        ws = self.place.ws
        names = [*CURATED_FILES, HISTORY_FILE, *(ws.rel(p) for p in ws.day_files())]
        marked = []
        for name in names:
            path = ws.root / name
            try:
                if path.is_file() and has_conflict_markers(read_text(path, name)):
                    marked.append(name)
            except (OSError, BadEncoding):
                continue
        return tuple(marked)

    def _finish_interrupted(self) -> tuple[str, ...]:
        """Finish what a kill interrupted (store/journal.py): a consolidation's remaining
        steps, a sync's move of the branch, and the citations that come after either, each
        committed as mem's. Inside the caller's transaction."""
        from ..consolidate.citations import refresh
        from ..consolidate.write import finish
        from ..format.merge import merge_file
        from ..store import gitrepo, gitsync

        place = self.place

        def merge(rel: str, base: str, ours: str, theirs: str, rewritten: bool):
            return merge_file(rel, base, ours, theirs, rewritten=rewritten).text, None

        done = ["consolidation"] if finish(place.ws) else []
        repo = gitrepo.open_repo(place.root)
        relinked: list[str] = []
        if repo is not None and gitsync.finish(place.root, merge):
            done.append("sync")
            # Killed while re-pointing citations after the move: what it wrote is links.
            relinked = _links_only(repo, place.root)
        if done:
            moved = sorted({*refresh(place.ws).files, *relinked})
            if moved and repo is not None:
                place.commit(moved, CITATIONS)
        return tuple(done)

    def trust(self) -> str:
        """Trust the workspace's mem.toml as it is now, on this machine: every setting counts
        from it until it changes. Returns the file's digest."""
        from ..config import trust

        return trust(self.place.root, self.place.env)

    # ------------------------------------------------------------- how it stands

    def status(self, days: int = 7) -> Status:
        from .status import workspace_status

        place = self.place
        found = workspace_status(
            place.ws, place.now().date(), days, index_params=place.index_params
        )
        # `mem status` says what mem.toml changes that this machine has not trusted, every
        # time; other commands say it once a version (notices()).
        found.warnings[:0] = [w for w in place.config.warnings if w not in found.warnings]
        return found

    def notices(self) -> list[str]:
        """What the settings have to say, once: a mem.toml version this machine has not
        trusted is named by the first command that reads it, then by `mem status` alone
        (the warning would drown an agent's every turn)."""
        place = self.place
        if not (place.config.untrusted or place.config.problems):
            return list(place.config.warnings)
        import contextlib
        import hashlib

        from ..config import CONFIG_FILE, _digest
        from ..store.fsutil import atomic_write_text

        said = place.ws.state_dir / "untrusted-warned"
        # A version of the file, and what is said of it: a new problem (a MEM_* variable's
        # too) is said again.
        what = "\n".join((_digest(place.root / CONFIG_FILE), *place.config.warnings))
        digest = hashlib.sha256(what.encode("utf-8", "replace")).hexdigest()
        with contextlib.suppress(OSError):
            if said.read_text(encoding="utf-8").strip() == digest:
                return []
        with contextlib.suppress(OSError, MemError):
            atomic_write_text(said, digest + "\n")
        return list(place.config.warnings)

    def audit(self, *, history: bool = False) -> Audit:
        """Lines that read like an instruction to the agent or hold a secret, in every
        memory file (and with history, in every line a commit ever added)."""
        from ..errors import BadEncoding
        from ..safety.audit import audit_history, audit_text
        from ..store.fsutil import read_text

        place = self.place
        files = place.ws.scan((*place.index_params.include, "archive/**/*.md"))
        found, warnings = (
            [],
            [f"{rel} is a symlink; mem never follows it" for rel in place.ws.links],
        )
        for rel in files:
            try:
                found += audit_text(rel, read_text(place.root / rel, rel), place.redact_extra)
            except (BadEncoding, MemError) as exc:
                warnings.append(exc.message)
        past = audit_history(place.root, found, place.redact_extra) if history else []
        return Audit(len(files), tuple(found), tuple(past), tuple(warnings))

    def index(self, *, rebuild: bool = False, progress=None) -> IndexSummary:
        """Bring the recall index up to date (recall does this itself); rebuild starts over."""
        import time

        from ..index.cache import open_index

        place = self.place
        start = time.perf_counter()
        index = open_index(
            place.ws,
            place.index_params,
            embedder=place.embedder,
            rebuild=rebuild,
            progress=progress,
            must_save=True,
        )
        return IndexSummary(
            sum(1 for rec in index.files.values() if rec["seg"] != "bad"),
            index.n_live,
            time.perf_counter() - start,
            dict(index.stats or {}),
            list(index.warnings),
            place.index_params.embed or "minhash",
            index.missing_vectors,
        )

    # ------------------------------------------------------------- git's record

    def commit(self, message: str | None = None) -> CommitInfo | None:
        from ..store.gitrepo import commit_memory, paths_said
        from ..store.transaction import transaction

        if message is not None and not message.strip():
            return commit_memory(self.place.root, message)  # refused there, in one line
        if message is not None:  # no secret in a commit message, a person's own included
            message = self.place.redact(message)
        with transaction(self.place.root):
            self.place.finish_killed()  # mem's half-written files are mem's commit, not this
            return commit_memory(
                self.place.root,
                self._saying_secrets(lambda paths: message or f"mem: update {paths_said(paths)}"),
            )

    def _saying_secrets(self, message: Callable[[list[str]], str]) -> Callable[[list[str]], str]:
        """`message` for a commit of these paths, and which log line it keeps holds what
        looks like a secret (as the `mem log:` and consolidation commits say it)."""
        place = self.place

        def said(paths: list[str]) -> str:
            note = secret_note(place, paths)
            return message(paths) + (f"\n\n{note}" if note else "")

        return said

    def history(self, limit: int = 20, path: Path | None = None) -> list[CommitInfo]:
        from ..store.gitrepo import history

        return history(self.place.root, limit, path)

    def diff(self, rev: str = "HEAD", *, color: bool = False) -> str:
        """The change to memory since `rev`, its secrets hidden: a daily log holds what was
        said, keys included, and a diff is printed. Each line is read without its `+`/`-`
        (a key's label then starts the line, as it did in the file)."""
        from ..store.gitrepo import diff

        out = []
        for line in diff(self.place.root, rev, color=color).split("\n"):
            mark = line[:1] if line[:1] in "+- " and not line.startswith(("+++", "---")) else ""
            out.append(mark + self.place.redact(line[len(mark) :]))
        return "\n".join(out)


_LEFTOVER_AGE = 60.0  # seconds: a write in flight finishes in far less


def _remove_leftovers(ws) -> tuple[str, ...]:
    """Temp files of whole-file writes that a kill left in the workspace's folders (never
    one a write may still be filling: older than a minute), removed; their paths."""
    import os
    import time

    from ..store.fsutil import is_write_temp

    now, removed = time.time(), []
    for folder in (ws.root, ws.root / MEMORY_DIR, ws.state_dir):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                old = now - entry.stat(follow_symlinks=False).st_mtime > _LEFTOVER_AGE
                if entry.is_file(follow_symlinks=False) and old and is_write_temp(entry.name):
                    os.unlink(entry.path)
                    removed.append(os.path.relpath(entry.path, ws.root))
            except OSError:
                continue
    return tuple(sorted(removed))


UNBACKED = "line records no entry backs"  # the note after_merge adds (consolidate/claims.py)


def _claims(vetted, unbacked: int) -> list[str]:
    """What a sync did not take from the remote's records (consolidate/claims.py), once."""
    said = []
    if vetted and vetted.paragraphs:
        said.append(
            f"the remote's HISTORY.md lacked {plural(vetted.paragraphs, 'paragraph')} this "
            "machine holds; they were kept (HISTORY.md only grows)"
        )
    if vetted and vetted.record:
        said.append("the remote deleted memory/.consolidated; this machine's record was kept")
    if vetted and vetted.marks:
        said.append(
            f"the remote marked {plural(vetted.marks, 'consolidation mark')} on this machine's "
            "entries that mem could not check here (dropped, passed or offline there); "
            "those entries stay pending here"
        )
    if unbacked:
        said.append(
            f"the remote's HISTORY.md claims {plural(unbacked, 'line record')} for lines here "
            "that no entry here says; mem could not check them and does not act on them"
        )
    return said


def _links_only(repo, root: Path) -> list[str]:
    """The curated files that differ from HEAD in their links alone (every line says what
    it said): mem's re-pointing, never a person's words."""
    from ..format.markdown import core
    from ..store import gitrepo, gittree
    from ..store.fsutil import read_text
    from ..store.workspace import CURATED_FILES

    out = []
    for name in gitrepo.changed_memory_files(repo, root):
        if name not in CURATED_FILES or not (root / name).is_file():
            continue
        found = gittree.entry(repo, "HEAD", gitrepo._prefix(repo, root) + name)
        if found is None:
            continue  # not in HEAD: a new file is not a re-pointing
        before = (gittree.blob(repo, found[1]) or b"").decode("utf-8", "replace")
        now = read_text(root / name, name)
        if [core(x) for x in now.splitlines()] == [core(x) for x in before.splitlines()]:
            out.append(name)
    return out
