"""`mem init`: lay out a workspace (or complete an existing OpenClaw one) without ever
overwriting a file, then put it under git."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..config import CONFIG_FILE, default_config_text
from ..store.commits import COMMIT_INIT
from ..store.fsutil import atomic_write_text, read_text
from ..store.resources import templates_dir
from ..store.workspace import CORE_FILES, GITATTRIBUTES, GITIGNORE_LINE, MEMORY_DIR, SKILL_FILE


@dataclass
class InitReport:
    root: Path
    created: list[str] = field(default_factory=list)  # files and dirs made, workspace-relative
    updated: list[str] = field(default_factory=list)  # existing files we appended a line to
    git: str = "existing"  # existing | initialised | unavailable
    commit: str | None = None  # short sha of the commit made, if any
    warnings: list[str] = field(default_factory=list)


def _write_new(path: Path, text: str) -> bool:
    if path.exists():
        return False
    atomic_write_text(path, text)
    return True


def _in_the_way(root: Path, skill: bool, use_git: bool = True) -> None:
    """Refuse, before anything is written, a workspace whose folder or memory/ is a file
    or whose core files are folders: init would stop half way and leave half a workspace."""
    import os

    from ..errors import UsageError
    from ..store import gitrepo

    if os.path.lexists(root) and not root.is_dir():
        raise UsageError(f"{root} exists and is not a directory; nothing was written")
    if use_git and gitrepo.expands_vars(root):
        raise UsageError(
            f"{root}: git could not be used there (GitPython reads a $NAME in a path as a "
            "variable); choose a folder without one, or pass --no-git. Nothing was written"
        )
    files = [*CORE_FILES, CONFIG_FILE, *([SKILL_FILE] if skill else [])]
    wrong = [n + "/" for n in files if (root / n).is_dir()]
    memory = root / MEMORY_DIR
    if os.path.lexists(memory) and not memory.is_dir():
        wrong.append(MEMORY_DIR)
    if wrong:
        raise UsageError(
            f"{root}: {', '.join(wrong)} in the way (a file where mem init puts a folder, or "
            "a folder where it puts a file); move it aside. Nothing was written"
        )


def init_workspace(root: Path, *, use_git: bool = True, skill: bool = False) -> InitReport:
    from ..errors import WriteError

    _in_the_way(root, skill, use_git)
    report = InitReport(root)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a parent that is a file, a read-only or virtual file system
        raise WriteError(root, exc) from None
    templates = templates_dir()
    for name in CORE_FILES:
        if _write_new(root / name, read_text(templates / name)):
            report.created.append(name)
    if not (root / MEMORY_DIR).is_dir():
        (root / MEMORY_DIR).mkdir()
        report.created.append(MEMORY_DIR + "/")
    if skill and _write_new(root / SKILL_FILE, read_text(templates / "skill" / "SKILL.md")):
        report.created.append(SKILL_FILE)
    if _write_new(root / CONFIG_FILE, default_config_text()):
        report.created.append(CONFIG_FILE)

    if _write_new(root / ".gitattributes", GITATTRIBUTES):
        report.created.append(".gitattributes")

    ignore = root / ".gitignore"
    if not ignore.exists():
        atomic_write_text(ignore, GITIGNORE_LINE + "\n")
        report.created.append(".gitignore")
    else:
        current = read_text(ignore)
        if GITIGNORE_LINE not in {line.strip() for line in current.splitlines()}:
            sep = "" if current.endswith("\n") or not current else "\n"
            with ignore.open("a", encoding="utf-8", newline="") as f:
                f.write(f"{sep}{GITIGNORE_LINE}\n")
            report.updated.append(".gitignore")

    if use_git:
        _init_git(report)
    return report


def _init_git(report: InitReport) -> None:
    from ..errors import GitError
    from ..store import gitrepo

    try:
        repo = gitrepo.open_repo(report.root)
        if repo is None:
            repo = gitrepo.init_repo(report.root)
            report.git = "initialised"
        else:  # a clone (git keeps drivers out of what it clones) or an existing repository
            gitrepo.register_merge_driver(repo, report.root)
        # A new repository starts with the whole memory (an OpenClaw workspace's existing
        # logs included), so later diffs show only later changes. In an existing one,
        # commit just what init added and leave the user's other changes alone.
        files = None
        if report.git == "existing":
            files = [p for p in report.created + report.updated if not p.endswith("/")]
        if files is None or files:
            info = gitrepo.commit_memory(
                report.root, f"{COMMIT_INIT} create memory workspace", paths=files
            )
            report.commit = info.short if info else None
            borrowed = gitrepo.borrowed_identity(repo) if info else None
            if borrowed:
                report.warnings.append(
                    f"committed as {borrowed}: git has no user.name / user.email here; "
                    '`git config --global user.name "…"` (and user.email) makes the next '
                    "commits yours"
                )
    except GitError as exc:
        report.git = "unavailable"
        report.warnings.append(exc.message)
