from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from openclaw_mem.cli import app
from openclaw_mem.errors import GitError, WorkspaceNotFound
from openclaw_mem.memory import init
from openclaw_mem.store.workspace import resolve_workspace


def _ws(path: Path) -> Path:
    (path / "memory").mkdir(parents=True)
    return path


def test_resolution_order(tmp_path):
    flag, env, anc, home = (_ws(tmp_path / n) for n in ("flag", "env", "anc", "home"))
    _ws(home / ".openclaw" / "workspace")
    deep = anc / "a" / "b"
    deep.mkdir(parents=True)
    environ = {"MEM_WORKSPACE": str(env)}
    assert resolve_workspace(flag, environ, deep, home).root == flag.resolve()
    assert resolve_workspace(None, environ, deep, home).root == env.resolve()
    assert resolve_workspace(None, {}, deep, home).root == anc.resolve()
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    found = resolve_workspace(None, {}, nowhere, home)
    assert found.root == (home / ".openclaw" / "workspace").resolve()
    assert found.found_by.startswith("default")


def test_ancestor_with_memory_md_only(tmp_path):
    (tmp_path / "MEMORY.md").write_text("# MEMORY\n", encoding="utf-8")
    sub = tmp_path / "x"
    sub.mkdir()
    assert resolve_workspace(None, {}, sub, tmp_path / "nohome").root == tmp_path.resolve()


def test_no_workspace_is_one_line_with_the_fix(tmp_path, runner, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(WorkspaceNotFound):
        resolve_workspace(None, {}, tmp_path, tmp_path / "home")
    result = runner.invoke(app, ["log", "hello"])
    assert result.exit_code == 3
    assert result.stderr.startswith("mem: error: no memory workspace")
    assert "mem init" in result.stderr and result.stderr.count("\n") == 1
    missing = runner.invoke(app, ["-w", str(tmp_path / "gone"), "status"])
    assert missing.exit_code == 3 and "mem init" in missing.stderr


def test_init_creates_templates_and_commits(tmp_path, monkeypatch):
    root = tmp_path / "new"
    for who in ("AUTHOR", "COMMITTER"):  # a machine where git knows who commits
        monkeypatch.setenv(f"GIT_{who}_NAME", "Lin Wei")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "lin@example.com")
    report = init(root, env={})
    for name in ("AGENTS.md", "USER.md", "MEMORY.md", "HISTORY.md", "mem.toml", ".gitignore"):
        assert (root / name).is_file(), name
        assert name in report.created, name
    assert (root / "memory").is_dir()
    assert (root / ".gitignore").read_text(encoding="utf-8") == ".mem/\n"
    assert "## Preferences" in (root / "USER.md").read_text(encoding="utf-8")
    assert report.git == "initialised" and report.commit and report.warnings == []
    import git

    repo = git.Repo(root)
    assert repo.head.commit.message.startswith("mem init")
    assert repo.head.commit.hexsha.startswith(report.commit)
    assert not repo.is_dirty(untracked_files=True)


OPENCLAW = {
    "AGENTS.md": "# My agent rules\n",
    "SOUL.md": "# Soul\n",
    "MEMORY.md": "# Mine\n- keep me\n",
    "memory/2026-11-01.md": "- free-form note\n",
    ".gitignore": "node_modules/",
}


def _openclaw(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    for name, text in OPENCLAW.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_init_on_an_openclaw_workspace_adds_only_what_is_missing(tmp_path):
    root = _openclaw(tmp_path / "openclaw")
    report = init(root, env={})
    assert "USER.md" in report.created and "HISTORY.md" in report.created
    touched = report.created + report.updated
    assert "AGENTS.md" not in touched and "MEMORY.md" not in touched
    assert not any(name.startswith("memory") for name in touched)
    assert report.updated == [".gitignore"]
    for name, text in OPENCLAW.items():
        if name != ".gitignore":
            assert (root / name).read_text(encoding="utf-8") == text
    assert (root / ".gitignore").read_text(encoding="utf-8") == "node_modules/\n.mem/\n"
    again = init(root, env={})
    assert again.created == [] and again.updated == []


def test_the_cli_reports_what_init_added(tmp_path, runner):
    root = _openclaw(tmp_path / "openclaw")
    result = runner.invoke(app, ["init", str(root)])
    assert result.exit_code == 0, result.stderr
    assert "added   USER.md" in result.stdout and "added   HISTORY.md" in result.stdout
    assert "AGENTS.md" not in result.stdout and "MEMORY.md" not in result.stdout
    assert "updated .gitignore" in result.stdout and "commit" in result.stdout
    again = runner.invoke(app, ["init", str(root)])
    assert again.exit_code == 0 and "already has everything" in again.stdout


def test_init_without_dir_uses_the_current_directory(tmp_path, runner, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["init", "--no-git"])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "MEMORY.md").is_file() and not (tmp_path / ".git").exists()


def test_logging_works_without_git(memory):
    logged = memory.log("no git here", at=datetime(2026, 11, 30, 8))
    assert logged.citation == "memory/2026-11-30.md#L3-L4"
    assert logged.commit is None and logged.warnings == ()
    for name, call in (
        ("commit", memory.commit),
        ("history", memory.history),
        ("diff", memory.diff),
    ):
        with pytest.raises(GitError) as refused:
            call()
        assert refused.value.exit_code == 5, name
        assert "not in a git repository" in refused.value.message, name
        assert "mem init" in refused.value.message, name
    assert memory.status().git == {"repo": False}


def test_the_cli_works_without_git_and_says_what_needs_it(tmp_path, runner):
    root = tmp_path / "plain"
    assert runner.invoke(app, ["init", "--no-git", str(root)]).exit_code == 0
    assert not (root / ".git").exists()
    ok = runner.invoke(app, ["-w", str(root), "log", "--at", "2026-11-30T08:00", "no git here"])
    assert ok.exit_code == 0 and ok.stdout.strip() == "memory/2026-11-30.md#L3-L4"
    result = runner.invoke(app, ["-w", str(root), "commit"])
    assert result.exit_code == 5 and "not in a git repository" in result.stderr
    status = runner.invoke(app, ["-w", str(root), "status", "--json"])
    assert status.exit_code == 0 and '"repo": false' in status.stdout


def test_a_workspace_copies_and_pickles_and_stays_read_only(tmp_path):
    import copy
    import pickle

    from openclaw_mem.store.workspace import Workspace

    ws = Workspace(tmp_path, "env MEM_WORKSPACE", ["memory/link.md"])
    for twin in (copy.copy(ws), copy.deepcopy(ws), pickle.loads(pickle.dumps(ws))):
        assert twin == ws and hash(twin) == hash(ws) and twin.links == ["memory/link.md"]
    with pytest.raises(AttributeError):
        ws.root = tmp_path / "elsewhere"


def test_a_missing_workspace_is_named_as_given_and_a_symlink_is_followed(tmp_path):
    with pytest.raises(WorkspaceNotFound, match=r"MEM_WORKSPACE=\S+/gone does not exist"):
        resolve_workspace(None, {"MEM_WORKSPACE": f"{tmp_path}/gone/"}, tmp_path, tmp_path)
    real = _ws(tmp_path / "real")
    (tmp_path / "link").symlink_to(real)
    via = tmp_path / "link" / ".." / "real"  # `..` after a link: the link is followed first
    found = resolve_workspace(via, {}, tmp_path, tmp_path)
    assert found.root == real.resolve() and found.found_by == "flag --workspace"


def test_init_says_whose_name_it_commits_under_when_git_knows_none(tmp_path, monkeypatch):
    """Issue 34: on a machine where git has no user.name / user.email, `mem init` commits
    as openclaw-mem <mem@localhost>, and says so instead of leaving it to `git log`."""
    for var in ("NAME", "EMAIL"):
        for who in ("AUTHOR", "COMMITTER"):
            monkeypatch.delenv(f"GIT_{who}_{var}", raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    report = init(tmp_path / "new", env={})
    assert report.commit and report.warnings == [
        "committed as openclaw-mem <mem@localhost>: git has no user.name / user.email here; "
        '`git config --global user.name "…"` (and user.email) makes the next commits yours'
    ]


def test_init_refuses_what_is_in_the_way_before_writing_anything(tmp_path, runner):
    """A file named memory made init exit 1 ("File exists") after writing AGENTS.md, USER.md
    and HISTORY.md; a parent that is a file, or /proc, exited 1 with Python's words."""
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "memory").write_text("x", encoding="utf-8")
    got = runner.invoke(app, ["init", str(blocked)])
    assert got.exit_code == 2 and "memory in the way" in got.stderr, got.stderr
    assert sorted(p.name for p in blocked.iterdir()) == ["memory"]  # nothing written
    (tmp_path / "folder" / "USER.md").mkdir(parents=True)
    got = runner.invoke(app, ["init", str(tmp_path / "folder")])
    assert got.exit_code == 2 and "USER.md/ in the way" in got.stderr, got.stderr
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")
    for target, code in ((a_file, 2), (a_file / "sub", 9)):
        got = runner.invoke(app, ["init", str(target)])
        assert got.exit_code == code and got.stderr.count("\n") == 1, got.stderr
        assert "Traceback" not in got.stderr
    # A file named as the workspace is not a missing one that init would make.
    with pytest.raises(WorkspaceNotFound, match="is not a directory"):
        resolve_workspace(a_file, {}, tmp_path, tmp_path)


def test_a_folder_whose_path_holds_a_variable_is_refused_before_init_writes(
    tmp_path, runner, monkeypatch
):
    """An outside audit: GitPython expands "$HOME" in a path, so `mem init 'ws$HOME'`
    exited 1 after writing every template and no commit."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    target = tmp_path / "ws$HOME"
    got = runner.invoke(app, ["init", str(target)])
    assert got.exit_code == 2 and "--no-git" in got.stderr and got.stderr.count("\n") == 1
    assert not target.exists()
    assert runner.invoke(app, ["init", "--no-git", str(target)]).exit_code == 0
    got = runner.invoke(app, ["-w", str(target), "commit"])
    assert got.exit_code == 5 and "holds a $NAME" in got.stderr, got.stderr
    assert runner.invoke(app, ["-w", str(target), "log", "still logged"]).exit_code == 0


def test_a_file_named_memory_is_named_by_log_and_status(ws):
    """`mem log` said "cannot write …/memory/2026-12-03.md: File exists" and `mem status`
    showed "memory/ (0 daily logs)" as if all were well."""
    import shutil

    shutil.rmtree(ws.root / "memory")
    (ws.root / "memory").write_text("not a folder\n", encoding="utf-8")
    got = ws("log", "hello", ok=False)
    assert got.exit_code == 9 and "memory is a file, not a folder" in got.stderr, got.stderr
    assert (ws.root / "memory").read_text(encoding="utf-8") == "not a folder\n"
    warnings = ws.json("status")["warnings"]
    assert any(w.startswith("memory is a file, not the folder of daily logs") for w in warnings)
