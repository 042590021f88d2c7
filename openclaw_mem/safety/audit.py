"""`mem audit`: every line in memory, and with --history every line git ever held, that
reads like an instruction to the agent (firewall.py) or holds a secret (secrets.py).

A daily log stays verbatim, so a payload someone pasted lives on in it; the audit is how a
person finds it, decides, and edits or `mem forget`s it. Secrets are named by family and
shown redacted, never as they are.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import groupby
from pathlib import Path

from .firewall import scan
from .secrets import redact, scan_lines


@dataclass(frozen=True)
class Finding:
    path: str
    line: int  # 1-based; in --history, the line in the commit that added it
    kind: str  # "instruction" or "secret"
    detail: str  # the firewall's kinds, or the secret families
    excerpt: str  # shortened; secrets redacted
    commit: str | None = None  # --history: the commit that added the line
    current: bool = True  # --history: the line is still in the file today

    def to_json(self) -> dict:
        return asdict(self)


def audit_lines(
    path: str, lines: Iterable[tuple[int, str]], extra: Sequence[str] = (), commit=None
) -> list[Finding]:
    """Findings in numbered lines. Consecutive lines are read together, so a key split over
    two of them, or the body of a private key, is found (and hidden) in each line."""
    out = []
    for block in _blocks(lines):
        text = "\n".join(line for _, line in block)
        rows = scan_lines(text, extra=extra)
        for (number, line), (shown, families) in zip(block, rows, strict=True):
            if not line.strip():
                continue
            # Excerpts come from the redacted line: a secret cut in half would escape the filter.
            flags = scan(shown)
            if flags:
                kinds = ", ".join(f.kind for f in flags)
                out.append(Finding(path, number, "instruction", kinds, flags[0].excerpt, commit))
            if families:
                excerpt = redact(" ".join(shown.split()), extra)[0][:120]
                out.append(Finding(path, number, "secret", ", ".join(families), excerpt, commit))
    return out


def _blocks(lines: Iterable[tuple[int, str]]) -> Iterable[list[tuple[int, str]]]:
    """Runs of consecutively numbered lines."""
    block: list[tuple[int, str]] = []
    for number, line in lines:
        if block and number != block[-1][0] + 1:
            yield block
            block = []
        block.append((number, line))
    if block:
        yield block


def audit_text(path: str, text: str, extra: Sequence[str] = ()) -> list[Finding]:
    return audit_lines(path, enumerate(text.splitlines(), 1), extra)


def _unquoted(name: str) -> str:
    """A path as git prints it in a diff header: C-quoted ("b/a \\"b\\".md", octal bytes)
    when it holds a quote, a backslash or a control character, and followed by a tab when
    it holds a space."""
    name = name.rstrip("\t")
    if not (name.startswith('"') and name.endswith('"')):
        return name
    raw, out, i = name[1:-1], bytearray(), 0
    simple = {"n": b"\n", "t": b"\t", '"': b'"', "\\": b"\\", "a": b"\a", "b": b"\b"}
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt in "01234567" and len(raw) - i > 3:
                out.append(int(raw[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            out += simple.get(nxt, nxt.encode("utf-8"))
            i += 2
            continue
        out += c.encode("utf-8")
        i += 1
    return out.decode("utf-8", "replace")


def _added_lines(root: Path) -> Iterable[tuple[str, str, int, str]]:
    """(commit, path, line, text) for every Markdown line any commit added, oldest first."""
    top = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True, check=False
    )
    if top.returncode != 0 or Path(top.stdout.decode().strip()).resolve() != root.resolve():
        return  # not this workspace's own repository: its paths would not be ours
    cmd = [
        "git", "-c", "core.quotepath=off", "-C", str(root), "log", "--reverse", "-p",
        "--no-color", "--no-ext-diff", "--unified=0", "--format=%x00%H", "--", "*.md",
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, check=False)
    if proc.returncode != 0:
        return
    commit, path, line, header = "", "", 0, False
    for raw in proc.stdout.decode("utf-8", "replace").split("\n"):
        if raw.startswith("\x00"):
            commit, header = raw[1:].strip(), False
        elif raw.startswith("diff --git "):
            path, header = "", True  # file headers until the first hunk
        elif header and raw.startswith("+++ "):
            target = _unquoted(raw[4:])
            path = target[2:] if target.startswith("b/") else ""
        elif raw.startswith("@@"):
            header = False
            plus = raw.split("+", 1)[1].split(" ", 1)[0]
            line = int(plus.split(",", 1)[0])
        elif raw.startswith("+") and path and not header:
            yield commit, path, line, raw[1:]
            line += 1


def audit_history(root: Path, now: Sequence[Finding], extra: Sequence[str] = ()) -> list[Finding]:
    """Findings in lines git history added, each once (its first commit); `current` says
    whether the same line is in today's findings, so a removed payload is told apart. The
    lines one commit added to one file are read together (a key split over two of them)."""
    present = {(f.path, f.kind, f.excerpt) for f in now}
    seen: set[tuple[str, str]] = set()
    out = []
    for (commit, path), added in groupby(_added_lines(root), key=lambda a: a[:2]):
        numbered = [(number, text) for _, _, number, text in added]
        fresh = set()
        for number, text in numbered:
            if (path, text) not in seen:
                seen.add((path, text))
                fresh.add(number)
        for f in audit_lines(path, numbered, extra, commit[:12]):
            if f.line in fresh:
                still = (f.path, f.kind, f.excerpt) in present
                out.append(Finding(f.path, f.line, f.kind, f.detail, f.excerpt, f.commit, still))
    return out
