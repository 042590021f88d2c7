"""All terminal rendering: rich tables for people, JSON for programs. Imported lazily.

Every drawing function takes the `Environment` (cli/app.py): whether stdout is a terminal,
whether colour is wanted and how wide to draw come from there, never from sys or os.
Memory text is anyone's: everything drawn here passes `text.visible` (control characters
written out) or JSON, whose every control character is escaped (`text.visible_json`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..format.markdown import citation
from ..serve.fast_output import stale_label
from ..text import plural, visible, visible_json

# rich costs ~50 ms to import: only the functions that draw import it, so `--json` output
# and plain text never pay for it.
if TYPE_CHECKING:
    from rich.console import Console

    from ..consolidate.review import Pending
    from ..consolidate.run import Report
    from ..services.status import Status
    from ..store.gitrepo import CommitInfo
    from .app import Environment


def console(term: Environment) -> Console:
    from rich.console import Console

    # Read sys.stdout at call time so CliRunner's captured stream is used.
    return Console(
        file=sys.stdout,
        highlight=False,
        soft_wrap=False,
        width=term.width,
        no_color=not term.color,
        # Under NO_COLOR a terminal gets no escape sequence at all: no_color alone keeps
        # bold and dim.
        color_system="auto" if term.color else None,
        force_terminal=term.stdout_tty or term.color,  # FORCE_COLOR colours a pipe too
    )


def escape(text: str) -> str:
    """Text for rich markup: its brackets taken literally, its control characters shown."""
    from rich.markup import escape as rich_escape

    return rich_escape(visible(text))


def Table(**kwargs):
    from rich.table import Table as RichTable

    return RichTable(**kwargs)


def show(term: Environment, table) -> None:
    """A table on a terminal; in a pipe or a file, tab-separated lines (a header, then one
    line a row) with no box drawing, padding or truncation: a tab or newline inside a cell
    is written `\\t` / `\\n`, as jq's @tsv does."""
    if term.stdout_tty:
        console(term).print(table)
        return
    from rich.text import Text

    def plain(cell) -> str:
        text = cell.plain if isinstance(cell, Text) else Text.from_markup(str(cell)).plain
        text = text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
        return visible(text)

    columns = table.columns
    if table.show_header:
        sys.stdout.write("\t".join(plain(c.header) for c in columns) + "\n")
    for r in range(table.row_count):
        sys.stdout.write("\t".join(plain(c._cells[r]) for c in columns) + "\n")


def print_json(data: Any) -> None:
    """Every --json output: one key style (camelCase), UTF-8 as it is."""
    from ..text import camel_keys

    text = json.dumps(camel_keys(data), ensure_ascii=False, indent=2, default=str)
    sys.stdout.write(visible_json(text) + "\n")


def diff_view(text: str, color: bool) -> None:
    """A diff of memory files, its text shown (control characters written out) and, for a
    terminal, coloured here as git colours it: git's own colours would come mixed with
    whatever escape sequences the memory text holds, and could not be told apart."""
    if not color:
        sys.stdout.write(visible(text))
        return
    styles = (("+++", "\x1b[1m"), ("---", "\x1b[1m"), ("diff ", "\x1b[1m"), ("index ", "\x1b[1m"))
    styles += (("new file", "\x1b[1m"), ("@@", "\x1b[36m"), ("+", "\x1b[32m"), ("-", "\x1b[31m"))
    out = []
    for line in visible(text).split("\n"):
        style = next((s for prefix, s in styles if line.startswith(prefix)), "")
        out.append(f"{style}{line}\x1b[m" if style and line else line)
    sys.stdout.write("\n".join(out))


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def history_table(term: Environment, commits: list[CommitInfo]) -> None:
    table = Table(title=None, show_edge=False, pad_edge=False)
    table.add_column("commit", style="yellow", no_wrap=True)
    table.add_column("date", no_wrap=True)
    table.add_column("author")
    table.add_column("subject")
    table.add_column("files", justify="right")
    table.add_column("+", justify="right", style="green")
    table.add_column("-", justify="right", style="red")
    for c in commits:
        table.add_row(
            c.short,
            c.date[:16].replace("T", " "),
            escape(c.author),
            escape(c.subject),
            str(c.files),
            str(c.insertions),
            str(c.deletions),
        )
    show(term, table)


def _hooks_line(hooks: dict) -> str:
    """What the harness hooks did (.mem/hooks.log): calls, and the last error."""
    said = (
        f"[bold]hooks[/bold] {plural(hooks['calls'], 'call')} recorded "
        f"({escape(', '.join(hooks['harnesses']))}), last {escape(str(hooks['last']))}"
    )
    error = hooks.get("lastError")
    if error:
        said += (
            f"; {plural(hooks['errors'], 'error')}, last {escape(str(error['at']))} "
            f"{escape(str(error['event']))}: {escape(str(error['error']))}"
        )
    return said + " (.mem/hooks.log)"


def _consolidation_line(con: dict) -> str:
    last = con["last"] or "never"
    commit = f" ({con['lastCommit']['short']})" if con.get("lastCommit") else ""
    waiting = con.get("proposals") or 0
    passed = con.get("passed") or 0
    for_model = con.get("forModel") or 0  # entries the offline rules kept nothing of
    return (
        f"[bold]consolidation[/bold] {plural(con['pending'], 'entry')} pending, "
        f"last {last}{commit}"
        + (f"; {plural(waiting, 'proposal')} waiting (mem review)" if waiting else "")
        + (f"; {passed} passed over (mem review --reoffer)" if passed else "")
        + (f"; {for_model} left for a model run" if for_model else "")
    )


def status_view(term: Environment, st: Status) -> None:
    out = console(term)
    out.print(f"[bold]workspace[/bold] {escape(st.root)}  [dim]({st.found_by})[/dim]")
    logs = [f for f in st.files if f.kind == "log"]
    table = Table(show_edge=False, pad_edge=False, box=None)
    table.add_column("file")
    table.add_column("size", justify="right")
    for f in st.files:
        if f.kind != "log":
            table.add_row(escape(f.path), human_size(f.size))
    table.add_row(
        f"memory/ ({plural(len(logs), 'daily log')})", human_size(sum(f.size for f in logs))
    )
    if term.stdout_tty:
        out.print(table)
    else:
        show(term, table)
    days = "  ".join(f"{d:%m-%d} {n}" for d, n in st.days)
    out.print(f"[bold]entries, last {len(st.days)} days[/bold]  {days}")
    idx = st.index
    if idx is not None:
        if not idx["exists"]:
            out.print("[bold]index[/bold] not built yet (recall builds it; or `mem index`)")
        else:
            fresh = (
                "[green]fresh[/green]"
                if idx["fresh"]
                else "[yellow]stale[/yellow] (refreshed by the next recall)"
            )
            missing = idx.get("missingVectors") or 0
            out.print(
                f"[bold]index[/bold] {plural(idx['files'], 'file')}, "
                f"{plural(idx['chunks'], 'chunk')}, {fresh}; vectors {escape(idx['vectors'])}"
                + (f", {missing} chunks still without one" if missing else "")
            )
    if st.resident:
        shown = f"answering on {escape(visible(st.socket or '.mem/mem.sock'))}"
    elif st.autostart:
        shown = (
            "none yet; the embedding model is slow to load, so the next recall or context "
            f"starts one that keeps it loaded (exits after {st.autostart} s idle; watch.idle)"
        )
    else:
        shown = "none (mem watch keeps one)"
    out.print("[bold]resident[/bold] " + shown)
    if st.hooks:
        out.print(_hooks_line(st.hooks))
    if st.consolidation is not None:
        out.print(_consolidation_line(st.consolidation))
    git = st.git
    if git is None:
        return
    if not git["repo"]:
        out.print("[bold]git[/bold] no repository ([italic]mem init[/italic] adds one)")
        return
    state = (
        "[green]clean[/green]"
        if git["clean"]
        else f"[red]dirty[/red] ({plural(len(git['dirty']), 'file')})"
    )
    last = git["lastCommit"]
    when = (
        f"{last['short']} {last['date'][:16].replace('T', ' ')} {escape(last['subject'])}"
        if last
        else "none"
    )
    out.print(f"[bold]git[/bold] {git['branch'] or 'detached'} {state}, last commit {when}")


def config_table(term: Environment, rows: list[tuple[str, Any, str]]) -> None:
    table = Table(show_edge=False, pad_edge=False)
    table.add_column("key")
    table.add_column("value")
    table.add_column("from", style="dim")
    for name, value, source in rows:
        table.add_row(name, escape(json.dumps(value, ensure_ascii=False)), source)
    show(term, table)


def _highlight_pattern(query: str) -> str | None:
    import re

    from ..search.tokenize import tokenize

    words = set(tokenize(query, stem=False))
    if not words:
        return None
    parts = []
    for w in sorted(words, key=len, reverse=True):
        if w.isascii():
            parts.append(
                rf"\b{re.escape(w[: max(3, len(w) - 3)])}\w*"
                if len(w) > 3
                else rf"\b{re.escape(w)}\b"
            )
        else:
            parts.append(re.escape(w))
    return "(?i)(" + "|".join(parts) + ")"


def recall_table(term: Environment, hits: list[dict], query: str, explain: bool) -> None:
    """Hits as `mem recall --json --explain` gives them (the resident process sends that)."""
    from rich.text import Text

    pattern = _highlight_pattern(query)
    table = Table(show_edge=False, pad_edge=False, show_lines=True)
    table.add_column("#", justify="right", style="dim")
    table.add_column("score", justify="right")
    table.add_column("where", style="cyan", no_wrap=True)
    table.add_column("snippet")
    for i, h in enumerate(hits, 1):
        snippet = Text(visible(h["snippet"]))
        if pattern:
            snippet.highlight_regex(pattern, style="bold yellow")
        cite = visible(citation(h["path"], h["startLine"], h["endLine"]), lines=False)
        lines = [cite, h["date"].replace("T", " ") if h.get("date") else "evergreen"]
        label = stale_label(h)
        if label:  # "(superseded 2026-11-20)": a later entry updated it
            lines.append(label.strip("()"))
        if h.get("supersededBy"):
            lines.append(f"by {h['supersededBy']}")
        if h.get("subject"):  # found through the entry it refers back to
            lines.append(f"subject: {h['subject']}")
        if explain:
            e = h["explain"]
            lines += [
                f"bm25 {e['bm25']:.2f} (own {e['own']:.2f})  minhash {e['lsh']:.2f}",
                *([f"meaning {e['meaning']:.2f}"] if e.get("vectors") == "embedding" else []),
                f"text {e['text']:.2f}  vector {e['vector']:.2f}",
                f"fused {e['fused']:.2f} x decay {e['decay']:.2f}",
                f"rank {e['rank_before_mmr']} -> mmr {e['mmr_position']}",
            ]
        table.add_row(str(i), f"{h['score']:.3f}", Text(visible("\n".join(lines))), snippet)
    show(term, table)


class _Progress:
    """A transient rich bar on stderr, shown only once the work is big enough to watch.
    Called as progress(done, total[, what])."""

    def __init__(self, enabled: bool, minimum: int, label: Callable[[int, int, str], str]):
        self.enabled, self.minimum, self.label = enabled, minimum, label
        self.bar = None
        self.task = None

    def __enter__(self):
        return self if self.enabled else None

    def __call__(self, done: int, total: int, what: str = "") -> None:
        if total < self.minimum:
            return
        if self.bar is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=Console(file=sys.stderr),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.label(0, total, ""), total=total)
        self.bar.update(
            self.task, completed=done, total=total, description=self.label(done, total, what)
        )

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


def progress_bar(enabled: bool) -> _Progress:
    # Small workspaces finish before a bar would be readable. Embedding reports its own
    # (done, total), so the bar and its ETA follow whichever step is running.
    return _Progress(
        enabled,
        200,
        lambda done, total, what: "embedding" if what == "embedding" else f"indexing {what[:40]}",
    )


def batch_progress(enabled: bool) -> _Progress:
    return _Progress(enabled, 2, lambda done, total, what: f"batch {done} of {total}")


_OP_MARK = {"add": "+", "update": "~", "deprecate": "×", "delete": "-"}


def proposal_json(p: Pending) -> dict:
    return {
        "id": p.id,
        "created": p.created,
        "provider": p.provider,
        "entries": p.entries,
        "historyEntry": p.history,
        "edits": [
            {"number": i, **e, "heldBecause": (p.reasons[i - 1] if i <= len(p.reasons) else "")}
            for i, e in enumerate(p.edits, 1)
        ],
        "rejected": p.rejected,
    }


def proposal_view(term: Environment, p: Pending, diff: str) -> None:
    out = console(term)
    out.print(f"[bold]proposal {escape(p.id)}[/bold] {escape(p.provider)}, {p.entries} log entries")
    out.print(f"  [dim]history:[/dim] {escape(p.history[:300])}")
    for i, e in enumerate(p.edits, 1):
        where = f"{e['file']} {e['section']}" if e.get("section") else e["file"]
        what = escape((e.get("text") or e.get("target") or "")[:110])
        src = f" [dim]({escape(e['origin'])})[/dim]" if e.get("origin") else ""
        out.print(f"  {i}. {_OP_MARK.get(e['op'], '?')} {escape(where)}: {what}{src}")
        if i <= len(p.reasons) and p.reasons[i - 1]:
            out.print(f"     [yellow]held: {escape(p.reasons[i - 1])}[/yellow]")
    for r in p.rejected:
        out.print(f"  [yellow]! refused ({escape(r['reason'])})[/yellow] {escape(r['summary'])}")
    sys.stdout.write(visible(diff))
    out.print(
        f"accept: mem review {p.id} --accept-all  (or --accept --reject N / --edit N / --drop)"
    )


def consolidation_json(report: Report) -> dict:
    return {
        "provider": report.provider,
        "pending": report.pending,
        "skipped": report.skipped,
        "dryRun": report.dry_run,
        "redacted": report.redacted,
        "calls": report.calls,
        "partial": report.partial,
        "unused": report.unused,
        "unanswered": [
            {"entries": u.entries, "sent": u.sent, "reason": u.reason} for u in report.unanswered
        ],
        "batches": [
            {
                "entries": b.entries,
                "sent": b.sent,
                "counts": b.counts(),
                "historyEntry": b.history_entry,
                "commit": b.commit,
                "files": b.files,
                "reapplied": b.reapplied,
                "proposal": b.proposal,
                "review": b.review,
                "taken": b.taken,
                "dropped": b.dropped,
                "passed": b.passed,
                "left": b.left,
                "unused": b.unused,
                "edits": [
                    {
                        "file": o.edit.file,
                        "op": o.edit.op,
                        "section": o.edit.section,
                        "text": o.edit.text,
                        "target": o.edit.target,
                        "type": o.edit.type,
                        "importance": o.edit.importance,
                        "confidence": o.edit.confidence,
                        "status": o.status,
                        "detail": o.detail,
                        "origin": o.edit.origin,
                    }
                    for o in b.outcomes
                ],
                **({"diff": b.diff} if report.dry_run else {}),
            }
            for b in report.batches
        ],
    }


def consolidation_view(term: Environment, report: Report) -> None:
    out = console(term)
    out.print(f"[bold]provider[/bold] {escape(report.provider)}")
    if report.skipped:
        out.print(f"nothing to do: {escape(report.skipped)}")
        return
    out.print(
        f"{plural(report.pending, 'log entry')} not yet consolidated; "
        f"{plural(len(report.batches), 'batch')}"
    )
    for n, b in enumerate(report.batches, 1):
        c = b.counts()
        out.print(
            f"[bold]batch {n}[/bold]: {plural(b.entries, 'entry')}, {b.sent} sent "
            f"({b.entries - b.sent} noise or repeats): +{c['added']} ~{c['updated']} "
            f"-{c['deleted']}, {c['deprecated']} deprecated, {c['skipped']} skipped"
            + (f"; {plural(b.dropped, 'entry')} held nothing to keep" if b.dropped else "")
            + (f"; {plural(b.passed, 'entry')} passed over" if b.passed else "")
        )
        for o in b.outcomes:
            e = o.edit
            what = escape((e.text or e.target)[:110])
            if o.applied:
                where = f"{e.file} {e.section}" if e.section else e.file
                out.print(f"  {_OP_MARK[e.op]} {escape(where)}: {what}")
            elif o.status in ("review", "held"):
                why = escape(o.detail)
                out.print(f"  [yellow]? held for review ({why})[/yellow] {e.op} {e.file}: {what}")
            else:
                why = f"{o.status}: {escape(o.detail)}"
                out.print(f"  [yellow]! skipped ({why})[/yellow] {e.op} {e.file}: {what}")
        if b.unused:
            out.print(
                "  [yellow]nothing in the answer could be used: nothing was written, and its "
                f"{plural(b.entries, 'entry')} will be offered again[/yellow]"
            )
        else:
            out.print(f"  [dim]history:[/dim] {escape(b.history_entry[:300])}")
            if b.left:
                out.print(
                    f"  {plural(b.left, 'entry')} no accepted edit cited and the answer did not "
                    "drop: still pending, offered again next time"
                )
        if b.review:
            out.print(f"  held edits wait in [yellow]mem review {b.review}[/yellow]")
        if b.reapplied:
            names = ", ".join(b.reapplied)
            out.print(
                f"  [yellow]{names} changed while consolidating; edits re-applied to the "
                "new text[/yellow]"
            )
        if report.dry_run:
            sys.stdout.write(visible(b.diff))
        elif b.proposal:
            out.print(f"  kept for review: [yellow]mem review {b.proposal}[/yellow]")
        elif b.commit:
            out.print(f"  committed [yellow]{b.commit}[/yellow]")
        elif b.files:
            out.print(
                f"  wrote {', '.join(b.files)} (not committed: git.autocommit or no repository)"
            )
    for u in report.unanswered:
        out.print(
            f"[yellow]left pending: {plural(u.entries, 'entry')} ({u.sent} sent) got no usable "
            f"answer ({escape(u.reason)}); offered again next time[/yellow]"
        )
    if report.partial:
        out.print("[bold]partly done[/bold]: run it again for what was left pending")
    if report.unused:
        out.print("[bold]nothing usable[/bold]: no answer held a line or a skip mem could take")
    if report.redacted:
        out.print(f"redacted {plural(report.redacted, 'secret')} before anything was sent")
    if report.dry_run:
        out.print("[bold]dry run[/bold]: nothing was written")
