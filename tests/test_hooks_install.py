"""`mem hooks install|uninstall|status`: merged into a harness's settings without touching
the user's own, idempotent, and undone byte for byte."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from openclaw_mem.serve.harnesses import EVENTS

MINE = (
    b'{\n\t"permissions": {"allow": ["Bash(ls:*)"]},\n\t"hooks": {"PostToolUse": [{"matcher": '
    b'"Bash", "hooks": [{"type": "command", "command": "~/bin/lint.sh"}]}],\n\t\t"Stop": [{"hooks":'
    b' [{"type": "command", "command": "notify-send done"}]}]}\n}\n'
)


def home() -> str:
    return os.environ["HOME"]


def claude_user() -> str:
    return os.path.join(home(), ".claude", "settings.json")


def test_install_into_no_settings_then_uninstall_leaves_nothing(ws):
    first = ws("hooks", "install", "claude-code")
    path = claude_user()
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    assert sorted(data["hooks"]) == sorted(EVENTS)
    command = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert command.endswith(f"-w {ws.root} hook claude-code UserPromptSubmit")
    assert "added   SessionStart, UserPromptSubmit, Stop, SessionEnd, PreCompact" in first.stdout
    written = Path(path).read_bytes()
    again = ws("hooks", "install", "claude-code")
    assert "already installed: nothing changed" in again.stdout
    assert Path(path).read_bytes() == written
    status = ws("hooks", "status", "claude-code")
    assert "hooks   SessionStart" in status.stdout and str(ws.root) in status.stdout
    gone = ws("hooks", "uninstall", "claude-code")
    assert "did not exist before" in gone.stdout
    assert not os.path.exists(path) and not os.path.exists(os.path.dirname(path))
    assert ws("hooks", "status", "claude-code", ok=False).exit_code == 1


def test_the_users_own_settings_are_kept_and_restored_byte_for_byte(ws, tmp_path):
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    path = project / ".claude" / "settings.json"
    path.write_bytes(MINE)
    scope = ["--scope", "project", "--dir", str(project)]
    ws("hooks", "install", "claude-code", *scope)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert data["hooks"]["PostToolUse"] == json.loads(MINE)["hooks"]["PostToolUse"]
    stops = [g["hooks"][0]["command"] for g in data["hooks"]["Stop"]]
    assert stops[0] == "notify-send done" and stops[1].endswith("hook claude-code Stop")
    ws("hooks", "install", "claude-code", *scope)  # idempotent: one group per event
    assert len(json.loads(path.read_text(encoding="utf-8"))["hooks"]["Stop"]) == 2
    said = ws("hooks", "uninstall", "claude-code", *scope).stdout
    assert "as it was before the install" in said
    assert path.read_bytes() == MINE
    assert (
        ws("hooks", "uninstall", "claude-code", *scope)
        .stdout.strip()
        .endswith("not installed: nothing changed")
    )
    assert path.read_bytes() == MINE


def test_the_copy_kept_of_a_private_settings_file_is_private(ws):
    """An outside audit: the record of what settings.json held before the install (an
    "env" block with a key in it) was written 0644, readable by every user of the machine.
    It is its owner's alone, and the settings file keeps its own mode."""
    path = Path(claude_user())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"env": {"ANTHROPIC_API_KEY": "sk-ant-api03-example"}}\n', encoding="utf-8")
    path.chmod(0o600)
    ws("hooks", "install", "claude-code")
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home(), ".config")
    record = Path(config) / "openclaw-mem" / "hooks.json"
    assert "sk-ant-api03-example" in record.read_text(encoding="utf-8")  # what undo needs
    assert record.stat().st_mode & 0o777 == 0o600
    assert path.stat().st_mode & 0o777 == 0o600
    ws("hooks", "uninstall", "claude-code")
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_file_edited_since_the_install_keeps_the_edit(ws, tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    scope = ["--scope", "local", "--dir", str(project)]
    ws("hooks", "install", "claude-code", *scope)
    path = project / ".claude" / "settings.local.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["model"] = "opus"  # Claude Code or the user wrote to it meanwhile
    path.write_text(json.dumps(data), encoding="utf-8")
    said = ws("hooks", "uninstall", "claude-code", *scope).stdout
    assert "changed since the install" in said
    assert json.loads(path.read_text(encoding="utf-8")) == {"model": "opus"}


def test_a_reinstall_for_another_workspace_replaces_mems_hooks(ws, tmp_path):
    ws("hooks", "install", "claude-code")
    other = tmp_path / "other"
    ws("init", str(other))
    ws("-w", str(other), "hooks", "install", "claude-code")
    data = json.loads(Path(claude_user()).read_text(encoding="utf-8"))
    commands = [g["hooks"][0]["command"] for g in data["hooks"]["SessionStart"]]
    assert len(commands) == 1 and f"-w {other} " in commands[0]
    note = ws("hooks", "status", "claude-code").stdout
    assert f"the hooks write to {other}, not to this workspace" in note
    ws("hooks", "uninstall", "claude-code")
    assert not os.path.exists(claude_user())


@pytest.mark.parametrize(
    "bad", [b"{not json", b"[]", b'{"hooks": {"Stop": {}}}', b'{"x": 1e999}', b'{"x": NaN}']
)
def test_settings_mem_cannot_read_are_left_untouched(ws, bad):
    path = claude_user()
    os.makedirs(os.path.dirname(path))
    with open(path, "wb") as f:
        f.write(bad)
    result = ws("hooks", "install", "claude-code", ok=False)
    assert result.exit_code == 2 and "nothing was changed" in result.stderr
    assert Path(path).read_bytes() == bad


def test_an_escaped_lone_surrogate_is_written_back_as_it_was_read(ws):
    """An outside audit: a settings file holding the (valid) JSON escape \\ud800 made
    install exit 1 with a UnicodeEncodeError."""
    path = claude_user()
    os.makedirs(os.path.dirname(path))
    Path(path).write_bytes(b'{"note": "\\ud800 kept"}\n')
    ws("hooks", "install", "claude-code")
    written = Path(path).read_bytes()
    assert b'"note": "\\ud800 kept"' in written
    assert json.loads(written.decode("utf-8"))["note"] == "\ud800 kept"
    ws("hooks", "uninstall", "claude-code")


def test_hooks_whose_workspace_was_deleted_are_named_and_uninstalled_from_anywhere(
    ws, tmp_path, monkeypatch
):
    """An outside audit: after the workspace was deleted, `hooks status` and `hooks
    uninstall` outside any workspace exited 3, and the stale hooks (which always exit 0)
    stayed on every prompt."""
    import shutil

    from typer.testing import CliRunner

    from openclaw_mem.cli import app

    ws("hooks", "install", "claude-code")
    shutil.rmtree(ws.root)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("MEM_WORKSPACE", raising=False)
    runner = CliRunner()
    status = runner.invoke(app, ["hooks", "status", "claude-code"])
    assert status.exit_code == 0 and "no longer exists" in status.stdout
    gone = runner.invoke(app, ["hooks", "uninstall", "claude-code"])
    assert gone.exit_code == 0 and "removed mem's hooks" in gone.stdout
    assert not os.path.exists(claude_user())
    assert runner.invoke(app, ["hooks", "install", "claude-code"]).exit_code == 3


def test_a_linked_settings_file_is_refused(ws, tmp_path):
    target = tmp_path / "dotfiles-settings.json"
    target.write_bytes(b"{}\n")
    os.makedirs(os.path.join(home(), ".claude"))
    os.symlink(target, claude_user())
    result = ws("hooks", "install", "claude-code", ok=False)
    assert result.exit_code == 2 and "symbolic link" in result.stderr
    assert target.read_bytes() == b"{}\n"


def test_codex_user_and_project_scopes(ws, tmp_path, monkeypatch):
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text('model = "x"\n', encoding="utf-8")
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    said = ws("hooks", "install", "codex").stdout
    assert str(codex_home / "hooks.json") in said and "trust them" in said
    data = json.loads((codex_home / "hooks.json").read_text(encoding="utf-8"))
    assert data["hooks"]["Stop"][0]["hooks"][0]["command"].endswith("hook codex Stop")
    assert (codex_home / "config.toml").read_text(encoding="utf-8") == 'model = "x"\n'
    ws("hooks", "uninstall", "codex")
    assert not (codex_home / "hooks.json").exists() and codex_home.exists()
    project = tmp_path / "repo"
    for scope in ("project", "local"):  # a mistyped --dir made the tree it named
        missing = ws(
            "hooks", "install", "claude-code", "--scope", scope, "--dir", str(project), ok=False
        )
        assert missing.exit_code == 2 and "is not a project folder" in missing.stderr
        assert not project.exists()
    project.mkdir()
    ws("hooks", "install", "codex", "--scope", "project", "--dir", str(project))
    assert (project / ".codex" / "hooks.json").exists()
    local = ws("hooks", "install", "codex", "--scope", "local", ok=False)
    assert local.exit_code == 2 and "no local scope" in local.stderr


def test_codex_hooks_turned_off_are_named(ws, tmp_path, monkeypatch):
    codex_home = tmp_path / "ch"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text("[features]\nhooks = false\n", encoding="utf-8")
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    assert "turns hooks off" in ws("hooks", "install", "codex").stdout


def test_openclaw_needs_nothing_when_its_workspace_is_this_one(ws, tmp_path):
    theirs = os.path.join(home(), ".openclaw", "workspace")
    ws("init", theirs)
    same = ws("-w", theirs, "hooks", "install", "openclaw")
    assert "OpenClaw reads this workspace itself" in same.stdout
    assert ws("-w", theirs, "hooks", "status", "openclaw").exit_code == 0
    other = ws("hooks", "status", "openclaw", ok=False)
    assert other.exit_code == 1 and f"OpenClaw's workspace is {theirs}" in other.stdout
    config = os.path.join(home(), ".openclaw", "openclaw.json")
    with open(config, "w", encoding="utf-8") as f:
        f.write(f"{{ agents: {{ defaults: {{ workspace: '{ws.root}' }} }} }}\n")  # JSON5
    assert ws("hooks", "install", "openclaw").exit_code == 0


def test_openclaw_reads_its_default_workspace_not_the_first_that_is_named(ws, tmp_path):
    """A regular expression took the first `workspace: "…"` in the file: a commented-out
    line, or another agent's workspace listed before the defaults."""
    config = Path(home(), ".openclaw", "openclaw.json")
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        '{\n  // "workspace": "~/old",\n  agents: {\n'
        f"    list: [{{ id: 'work', workspace: '{tmp_path / 'work'}' }},],\n"
        f"    defaults: {{ workspace: '{ws.root}', /* the notes */ }},\n  }},\n}}\n",
        encoding="utf-8",
    )
    same = ws("hooks", "status", "openclaw")
    assert same.exit_code == 0 and "OpenClaw reads this workspace itself" in same.stdout
    # An agent of its own reads its workspace too.
    ws("init", str(tmp_path / "work"))
    assert ws("-w", str(tmp_path / "work"), "hooks", "status", "openclaw").exit_code == 0
    config.write_text("{ agents: { defaults: { workspace: ", encoding="utf-8")
    broken = ws("hooks", "status", "openclaw", ok=False)
    assert broken.exit_code == 1 and "could not be read" in broken.stdout


def test_an_unknown_harness_is_a_usage_error(ws):
    result = ws("hooks", "install", "cursor", ok=False)
    assert result.exit_code == 2 and "unknown harness 'cursor'" in result.stderr


def test_install_json(ws):
    data = ws.json("hooks", "install", "claude-code")
    assert data["changed"] is True and data["events"] == list(EVENTS)
    assert data["settings"] == claude_user() and data["workspace"] == str(ws.root)


def test_a_relative_dir_installs_and_uninstalls_the_same_file(ws, tmp_path, monkeypatch):
    """The install's record was keyed by the path as typed: `--dir proj` from one folder,
    then uninstall from inside proj, said "the file changed since the install" and left
    `{}` and the `.claude` folder behind."""
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(tmp_path)
    ws("hooks", "install", "claude-code", "--scope", "project", "--dir", "proj")
    assert (project / ".claude" / "settings.json").exists()
    monkeypatch.chdir(project)
    gone = ws("hooks", "uninstall", "claude-code", "--scope", "project")
    assert "changed since" not in gone.stdout, gone.stdout
    assert not (project / ".claude").exists()


def test_codex_session_end_asks_no_more_time_than_codex_gives(ws, tmp_path, monkeypatch):
    """Codex clamps a SessionEnd hook to 3 s and warned about the 30 on every run."""
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    ws("hooks", "install", "codex")
    data = json.loads((codex_home / "hooks.json").read_text(encoding="utf-8"))
    assert data["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] <= 3
    assert data["hooks"]["Stop"][0]["hooks"][0]["timeout"] == 30
