"""Lines of a memory file by spec, as OpenClaw's memory_get gives them: `PATH`,
`PATH:FROM[:N]` or a citation `PATH#Lx-Ly`, only inside the workspace.

Apart from recall so that `mem get`, an agent's per-turn read of what recall cited, imports
no numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import NotFound, UsageError
from ..store.workspace import Workspace
from .markdown import lines_of, parse_citation

if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass(frozen=True)
class Lines:
    path: str
    start: int
    end: int
    text: str

    def to_json(self) -> dict:
        """OpenClaw's memory_get shape."""
        return {
            "path": self.path,
            "from": self.start,
            "lines": self.end - self.start + 1,
            "text": self.text,
        }


def parse_spec(spec: str) -> tuple[str, int, int | None]:
    """PATH (the whole file), PATH:N (line N: what `mem forget PATH:N` means too),
    PATH:FROM:N (N lines from FROM) or a citation PATH#Lx-Ly -> (path, from, count)."""
    cited = parse_citation(spec)
    if cited:
        path, a, b = cited
        if a < 1:
            raise UsageError(f"{spec}: lines are 1-based and positive")
        if b < a:
            raise UsageError(f"{spec}: the range ends before it starts")
        return path, a, b - a + 1
    parts = spec.rsplit(":", 2)
    nums = []
    while len(parts) > 1 and parts[-1].isdigit():
        nums.insert(0, int(parts.pop()))
    path = ":".join(parts)
    start = nums[0] if nums else 1
    count = nums[1] if len(nums) > 1 else (1 if nums else None)
    if start < 1 or (count is not None and count < 1):
        raise UsageError(f"{spec}: FROM and N are 1-based and positive")
    return path, start, count


def safe_path(ws: Workspace, rel: str) -> Path:
    """A memory file by relative path: inside the workspace, no symlink on the way
    (Workspace.inside), Markdown only, and existing."""
    if not rel.lower().endswith(".md"):
        raise UsageError(f"{rel}: only memory files (Markdown) can be read")
    path = ws.inside(rel)
    if not path.is_file():
        raise NotFound(f"no file {rel} in the workspace")
    return path


def get_lines(
    ws: Workspace,
    spec: str,
    shown: Callable[[str, str, int, int], str] | None = None,
    span: tuple[int, int | None] | None = None,
) -> Lines:
    """The lines a spec names, or with `span` (from, count: None to the end, as OpenClaw's
    memory_get reads) the lines of the file `spec` names. `shown(path, whole text, first,
    last)` makes their text from the whole file (the secret filter needs it: a key's middle lines
    are a secret only beside its first); by default they are shown as they are."""
    if span is None:
        rel, start, count = parse_spec(spec)
    else:
        (start, count), rel = span, spec
        if start < 1 or (count is not None and count < 1):
            raise UsageError(f"{spec}: from and lines are 1-based and positive")
    path = safe_path(ws, rel)
    from ..store.fsutil import read_text

    whole = read_text(path, rel)
    lines = lines_of(whole)
    if start > max(len(lines), 1):
        raise NotFound(f"{rel} has {len(lines)} lines; line {start} does not exist")
    end = len(lines) if count is None else min(len(lines), start + count - 1)
    text = shown(rel, whole, start, end) if shown else "\n".join(lines[start - 1 : end])
    return Lines(rel, start, end, text)
