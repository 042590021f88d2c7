"""What several test files share: running `mem` in-process against one workspace, and a
byte-level snapshot of a workspace for "nothing changed" assertions."""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from openclaw_mem.cli import app

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "workspace.example"
# What a copy of it leaves behind: the .mem/ a developer's own `mem -w workspace.example …`
# made there (index, access counts) is theirs, not the example's.
NOT_EXAMPLE = shutil.ignore_patterns(".mem")


class Mem:
    """Runs `mem` in-process through CliRunner against one workspace."""

    def __init__(self, root: Path):
        self.root = root
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | bytes | None = None, ok: bool = True):
        result = self.runner.invoke(app, ["-w", str(self.root), *args], input=input)
        if ok:
            assert result.exit_code == 0, (result.stdout, result.stderr)
        return result

    def json(self, *args: str):
        return json.loads(self(*args, "--json").stdout)


def settings(root: Path, text: str) -> None:
    """Write a workspace's mem.toml as its person would, and trust it (`mem trust`): until
    then only the settings that cannot send, unprotect, run or drop anything count."""
    import os

    from openclaw_mem.config import trust

    (root / "mem.toml").write_text(text, encoding="utf-8")
    trust(root, os.environ)


def clones(tmp_path: Path, n: int) -> list[Mem]:
    """n clones of one bare remote (tmp_path/remote.git), each made by `git clone` after the
    first one's `mem init` and `mem sync`, each synced once."""
    import git

    bare = tmp_path / "remote.git"
    git.Repo.init(bare, bare=True)
    first = tmp_path / "m0"
    assert CliRunner().invoke(app, ["init", str(first)]).exit_code == 0
    git.Repo(first).create_remote("origin", str(bare))
    machines = [Mem(first)]
    machines[0]("sync")
    for i in range(1, n):
        git.Repo.clone_from(str(bare), tmp_path / f"m{i}")
        machines.append(Mem(tmp_path / f"m{i}"))
        machines[-1]("sync")
    return machines


def without_ids(text: str) -> str:
    """A daily log as a person reads it, without the entries' `id:` (drawn at random) and
    the empty `importance: -` each entry's comment opens with (format/appending.py)."""
    import re

    text = text.replace("<!-- importance: -; ", "<!-- ")
    text = re.sub(r"; id: [0-9a-f]{12} -->", " -->", text)
    return re.sub(r" <!-- id: [0-9a-f]{12} -->", "", text)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of a workspace (git objects aside) and the HEAD it is at."""
    import git

    files = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts and ".mem" not in p.parts
    }
    with contextlib.suppress(ValueError, git.InvalidGitRepositoryError):
        files["HEAD"] = git.Repo(root).head.commit.hexsha.encode()
    return files


def src_problems(root: Path, before: str, after: str) -> list[str]:
    """Lines added between `before` and `after` whose source links cite log lines that do not
    say what the line says: no content word in common and the same script (a Chinese entry
    may support an English line; that cannot be checked word by word)."""
    from openclaw_mem.consolidate.checks import content, same_script
    from openclaw_mem.format.markdown import core, parse_citation, sources

    old = set(before.splitlines())
    problems = []
    for line in after.splitlines():
        cites = sources(line)
        if line in old or not cites:
            continue
        said = content(core(line))
        for cite in cites:
            found = parse_citation(cite)
            if found is None:
                problems.append(f"{line!r}: unreadable src {cite!r}")
                continue
            path, a, b = found
            lines = (root / path).read_text(encoding="utf-8").splitlines()[a - 1 : b]
            text = "\n".join(x for x in lines if not x.startswith("## "))  # not the heading
            if said and not (said & content(text)) and same_script(said, content(text)):
                problems.append(f"{line!r}: {cite} says {text[:80]!r}")
    return problems


def record(root: Path, file: str, said: str):
    """What mem recorded of the curated line of `file` (USER, MEMORY, AGENTS) that says
    `said`: its LineRecord from HISTORY.md's markers, None when it has none."""
    from openclaw_mem.format.curated import line_key, read_ledger

    history = (root / "HISTORY.md").read_text(encoding="utf-8")
    return read_ledger(history).get((file, line_key(said)))


def ask(memory, query: str, now: str, k: int = 10, **options):
    """Recall as `Memory.recall` does it (a RecallResult), with some of the pipeline's own
    options changed (RecallOptions fields: speaker_boost=0, refer_share=0, …)."""
    from dataclasses import replace
    from datetime import datetime

    from openclaw_mem.recall.pipeline import recall
    from openclaw_mem.recall.reads import Read

    read = Read("recall", query=query, k=k, now=datetime.fromisoformat(now))
    opts = replace(memory.reading.options(read), **options)
    return recall(memory.ws, query, opts, memory.index_params, False, memory.embedder)


def entry_lines(memory, hits) -> list[str]:
    """Each hit's first line after its entry heading: what the entry says."""
    out = []
    for h in hits:
        lines = (memory.root / h.path).read_text(encoding="utf-8").split("\n")
        out.append(lines[h.start_line])
    return out
