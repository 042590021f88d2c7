"""Where the memory lives: resolving the workspace, its layout, and `mem init`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from .errors import UsageError, WorkspaceNotFound

MEMORY_DIR = "memory"
STATE_DIR = ".mem"  # derived, git-ignored: index cache, access stats, locks
CORE_FILES = ("AGENTS.md", "USER.md", "MEMORY.md", "HISTORY.md")
DEFAULT_WORKSPACE = Path("~/.openclaw/workspace")
DAY_FILE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[-_ ].*)?\.md$")


@dataclass(frozen=True)
class Workspace:
    root: Path
    found_by: str = "flag"  # flag | env MEM_WORKSPACE | ancestor | default

    @property
    def memory_dir(self) -> Path:
        return self.root / MEMORY_DIR

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    def day_file(self, day: date) -> Path:
        return self.memory_dir / f"{day.isoformat()}.md"

    def rel(self, path: Path) -> str:
        """A path as the user sees it: relative to the workspace, with forward slashes."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(path)

    def memory_files(self) -> list[Path]:
        """Root Markdown files and every Markdown file under memory/, sorted by path."""
        files = [p for p in self.root.glob("*.md") if p.is_file()]
        if self.memory_dir.is_dir():
            files += [p for p in self.memory_dir.rglob("*.md") if p.is_file()]
        return sorted(files, key=lambda p: self.rel(p))

    def day_files(self) -> list[Path]:
        """Daily logs: memory/YYYY-MM-DD*.md, oldest first."""
        if not self.memory_dir.is_dir():
            return []
        return sorted(p for p in self.memory_dir.rglob("*.md") if day_of(p) is not None)


def day_of(path: Path) -> date | None:
    """The date a daily log's file name carries (OpenClaw also writes YYYY-MM-DD-slug.md)."""
    m = DAY_FILE_RE.match(path.name)
    if not m:
        return None
    try:
        return date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None


def looks_like_workspace(path: Path) -> bool:
    return (path / "MEMORY.md").is_file() or (path / MEMORY_DIR).is_dir()


def resolve_workspace(
    flag: Path | None, env: Mapping[str, str], cwd: Path, home: Path
) -> Workspace:
    """--workspace, then MEM_WORKSPACE, then the nearest ancestor holding MEMORY.md or
    memory/, then ~/.openclaw/workspace."""
    hint = "; `mem init` creates one"
    if flag is not None:
        root = flag.expanduser()
        if not root.is_dir():
            raise WorkspaceNotFound(f"workspace {root} does not exist{hint}: mem init {root}")
        return Workspace(root.resolve(), "flag --workspace")
    if env.get("MEM_WORKSPACE"):
        root = Path(env["MEM_WORKSPACE"]).expanduser()
        if not root.is_dir():
            raise WorkspaceNotFound(f"MEM_WORKSPACE={root} does not exist{hint}: mem init {root}")
        return Workspace(root.resolve(), "env MEM_WORKSPACE")
    for candidate in (cwd, *cwd.parents):
        if looks_like_workspace(candidate):
            return Workspace(candidate.resolve(), "ancestor of the current directory")
    default = home / ".openclaw" / "workspace"
    if default.is_dir():
        return Workspace(default.resolve(), "default ~/.openclaw/workspace")
    raise WorkspaceNotFound(
        "no memory workspace here, in MEM_WORKSPACE or at ~/.openclaw/workspace"
        f"{hint} (mem init DIR, or mem -w DIR ...)"
    )


def init_target(flag: Path | None, arg: Path | None, env: Mapping[str, str], cwd: Path) -> Path:
    """The directory `mem init` sets up: its argument, else -w / MEM_WORKSPACE, else the
    current directory (as `git init` does)."""
    for candidate in (arg, flag, Path(env["MEM_WORKSPACE"]) if env.get("MEM_WORKSPACE") else None):
        if candidate is not None:
            target = candidate.expanduser()
            break
    else:
        target = cwd
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} exists and is not a directory")
    return target.resolve()
