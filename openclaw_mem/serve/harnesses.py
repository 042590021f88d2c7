"""`mem hooks install|uninstall|status HARNESS`: mem's hooks in an agent harness's settings.

- claude-code: `hooks` of ~/.claude/settings.json (user; CLAUDE_CONFIG_DIR moves it), of
  DIR/.claude/settings.json (project) or DIR/.claude/settings.local.json (local).
- codex: $CODEX_HOME/hooks.json (user, ~/.codex by default) or DIR/.codex/hooks.json
  (project; Codex reads it in a project it trusts).
- openclaw: nothing to install; OpenClaw reads the workspace's Markdown itself. The check
  says whether OpenClaw's workspace is this one.

Install merges: one matcher group per event, holding one command, `mem -w WORKSPACE hook
HARNESS EVENT`; the user's other hooks and settings stay as they are. A second install
finds them there and writes nothing. Uninstall restores the file byte for byte when nothing
else changed it since the install (and removes it, and a folder the install made, when
there was none): the bytes it held before are kept in a record outside any workspace
(`hooks.json` beside trust's file). When the file changed since, only mem's groups are
taken out. A settings file that is not a JSON object, or a link, is refused untouched.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError

HARNESSES = ("claude-code", "codex", "openclaw")
SCOPES = ("user", "project", "local")
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd", "PreCompact")
TIMEOUT = 30  # seconds the harness gives a hook: a backstop; hooks.timeout is mem's own
# Codex 0.171 clamps a SessionEnd hook to 3 s and warns on every run when asked for more.
_CLAMPED = {("codex", "SessionEnd"): 3}
# A command mem wrote (or one written by hand that runs the same thing).
OURS = re.compile(r"(?:^|[\s/'\"])(?:mem|-m openclaw_mem)\b.*\shook\s+(claude-code|codex)\s+(\w+)$")


@dataclass
class Report:
    harness: str
    path: Path | None  # the settings file (None for openclaw)
    scope: str
    changed: bool = False
    events: list[str] = field(default_factory=list)  # mem's events in the file afterwards
    command: str = ""  # what they run (EVENT for the event)
    workspace: str = ""  # the workspace they name
    restored: str = ""  # uninstall: "bytes" (as before), "removed" (there was none), "edited"
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "harness": self.harness,
            "settings": str(self.path) if self.path else None,
            "scope": self.scope,
            "changed": self.changed,
            "events": self.events,
            "command": self.command,
            "workspace": self.workspace,
            "restored": self.restored or None,
            "notes": self.notes,
        }


def settings_path(harness: str, scope: str, env: dict, home: str, directory: str) -> Path:
    if scope not in SCOPES:
        raise UsageError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    base = Path(directory)
    if harness == "claude-code":
        if scope == "user":
            return Path(env.get("CLAUDE_CONFIG_DIR") or Path(home) / ".claude") / "settings.json"
        name = "settings.json" if scope == "project" else "settings.local.json"
        return base / ".claude" / name
    if harness == "codex":
        if scope == "user":
            return Path(env.get("CODEX_HOME") or Path(home) / ".codex") / "hooks.json"
        if scope == "local":
            raise UsageError("codex has no local scope: use --scope user or --scope project")
        return base / ".codex" / "hooks.json"
    raise UsageError(f"unknown harness {harness!r}; one of {', '.join(HARNESSES)}")


def mem_command(root: Path, harness: str, event: str, program: list[str]) -> str:
    return shlex.join([*program, "-w", str(root), "hook", harness, event])


def program() -> list[str]:
    """How a harness runs this mem: the `mem` script beside this interpreter (what pip
    installed with it), else the interpreter with `-m openclaw_mem`."""
    import sys

    from ..services.background import program as interpreter

    script = Path(sys.executable).parent / "mem"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return interpreter()


# ------------------------------------------------------------------ the file and its record


def _read(path: Path) -> bytes | None:
    if path.is_symlink():
        raise UsageError(
            f"{path} is a symbolic link; mem writes settings only to a regular file "
            "(edit the file it points to, or install with another --scope)"
        )
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def _parse(path: Path, data: bytes | None) -> dict:
    if data is None or not data.strip():
        return {}
    try:
        value = json.loads(data.decode("utf-8"), parse_float=_finite, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path} is not valid JSON ({exc}); nothing was changed") from None
    if not isinstance(value, dict):
        raise UsageError(f"{path} does not hold a JSON object; nothing was changed")
    hooks = value.get("hooks", {})
    if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
        raise UsageError(f"{path}: `hooks` is not an object of lists; nothing was changed")
    return value


def _finite(text: str) -> float:
    """A JSON number as a float, refused when a float cannot hold it (1e999 would be
    written back as Infinity, which no JSON reader takes)."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is too large to be written back")
    return value


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _render(value: dict) -> bytes:
    # A lone surrogate ("\ud800", valid JSON) cannot be UTF-8: it is written back as the
    # escape it was read from.
    text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    return text.encode("utf-8", "backslashreplace")


def record_file(env: dict, home: str) -> Path:
    """Where install keeps each settings file's bytes from before it (outside any
    workspace, beside the file trust keeps)."""
    base = env.get("XDG_CONFIG_HOME") or str(Path(home) / ".config")
    return Path(base) / "openclaw-mem" / "hooks.json"


def _records(env: dict, home: str) -> dict:
    try:
        data = json.loads(record_file(env, home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_records(records: dict, env: dict, home: str) -> None:
    from ..store.fsutil import atomic_write_text

    target = record_file(env, home)
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    # It holds copies of settings files, which may hold keys (an "env" block): its owner's.
    text = json.dumps(records, indent=1, sort_keys=True, ensure_ascii=False)
    atomic_write_text(target, text, private=True)


def _digest(data: bytes | None) -> str | None:
    import hashlib

    return None if data is None else hashlib.sha256(data).hexdigest()


def _write(path: Path, data: bytes) -> list[str]:
    """Write atomically; the folders made on the way, outermost first."""
    from ..store.fsutil import atomic_write_bytes

    made = []
    for parent in reversed(path.parents):
        if not parent.exists():
            made.append(str(parent))
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, data)
    return made


# ------------------------------------------------------------------ mem's groups


def _ours(group: object) -> tuple[str, str] | None:
    """(harness, event) of a matcher group mem wrote: one command hook running `mem hook`."""
    if not isinstance(group, dict) or set(group) - {"hooks", "matcher"}:
        return None
    hooks = group.get("hooks")
    if not isinstance(hooks, list) or len(hooks) != 1 or not isinstance(hooks[0], dict):
        return None
    command = hooks[0].get("command")
    m = OURS.search(command.strip()) if isinstance(command, str) else None
    return (m[1], m[2]) if m and hooks[0].get("type") == "command" else None


def installed(value: dict, harness: str) -> dict[str, str]:
    """Event -> the command of mem's group for it, in a parsed settings file."""
    out = {}
    for event, groups in value.get("hooks", {}).items():
        for group in groups:
            found = _ours(group)
            if found and found[0] == harness:
                out[event] = group["hooks"][0]["command"]
    return out


def _without_ours(value: dict, harness: str) -> dict:
    value = json.loads(json.dumps(value))  # a copy
    hooks = value.get("hooks", {})
    for event in list(hooks):
        kept = [g for g in hooks[event] if not (_ours(g) and _ours(g)[0] == harness)]
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if "hooks" in value and not hooks:
        del value["hooks"]
    return value


def _workspace_of(command: str) -> str:
    try:
        words = shlex.split(command)
    except ValueError:
        return ""
    return words[words.index("-w") + 1] if "-w" in words[:-1] else ""


# ------------------------------------------------------------------ install, uninstall, status


def install(harness: str, path: Path, scope: str, root: Path, env: dict, home: str) -> Report:
    data = _read(path)
    value = _parse(path, data)
    run = program()
    wanted = {e: mem_command(root, harness, e, run) for e in EVENTS}
    report = Report(harness, path, scope, events=list(EVENTS), workspace=str(root))
    report.command = mem_command(root, harness, "EVENT", run)
    if installed(value, harness) == wanted:
        report.notes += _checks(harness, path, env, home)
        return report  # already there, as it would be written: nothing to do
    new = _without_ours(value, harness)
    hooks = new.setdefault("hooks", {})
    for event, command in wanted.items():
        seconds = _CLAMPED.get((harness, event), TIMEOUT)
        group = {"hooks": [{"type": "command", "command": command, "timeout": seconds}]}
        hooks.setdefault(event, []).append(group)
    out = _render(new)
    records = _records(env, home)
    key = str(path)
    known = records.get(key)
    if not installed(value, harness) or not isinstance(known, dict):
        known = {"before": None if data is None else data.decode("utf-8"), "made": []}
    known["made"] = sorted(set(known.get("made", [])) | set(_write(path, out)))
    known["after"] = _digest(out)
    records[key] = known
    _save_records(records, env, home)
    report.changed = True
    report.notes += _checks(harness, path, env, home)
    return report


def uninstall(harness: str, path: Path, scope: str, env: dict, home: str) -> Report:
    data = _read(path)
    value = _parse(path, data)
    report = Report(harness, path, scope)
    records = _records(env, home)
    known = records.pop(str(path), None)
    if not installed(value, harness):
        if known is not None:
            _save_records(records, env, home)
        return report
    report.changed = True
    if isinstance(known, dict) and known.get("after") == _digest(data):
        before = known.get("before")
        if before is None:
            path.unlink()
            for folder in sorted(known.get("made", []), key=len, reverse=True):
                with contextlib.suppress(OSError):  # only when empty: another file keeps it
                    os.rmdir(folder)
            report.restored = "removed"
        else:
            _write(path, before.encode("utf-8"))
            report.restored = "bytes"
    else:  # edited since: take mem's groups out, keep everything else as it is now
        _write(path, _render(_without_ours(value, harness)))
        report.restored = "edited"
    _save_records(records, env, home)
    return report


def status(harness: str, path: Path, scope: str, root: Path | None, env: dict, home: str) -> Report:
    """What mem's hooks in the harness's settings are; `root`: the workspace asked from
    (None: none, as after it was deleted), which the hooks may not write to."""
    value = _parse(path, _read(path))
    found = installed(value, harness)
    report = Report(harness, path, scope, events=[e for e in EVENTS if e in found])
    commands = list(found.values())
    if commands:
        event, command = next(iter(found.items()))
        report.command = command.removesuffix(f" {event}") + " EVENT"
        report.workspace = _workspace_of(command)
        if report.workspace and not os.path.isdir(report.workspace):
            report.notes.append(
                f"the hooks write to {report.workspace}, which no longer exists: "
                f"mem hooks uninstall {harness}"
            )
        elif (
            report.workspace
            and root
            and os.path.realpath(report.workspace) != os.path.realpath(root)
        ):
            report.notes.append(f"the hooks write to {report.workspace}, not to this workspace")
        missing = [e for e in EVENTS if e not in found]
        if missing:
            report.notes.append(f"not installed for {', '.join(missing)}: mem hooks install")
    report.notes += _checks(harness, path, env, home) if found else []
    return report


def _checks(harness: str, path: Path, env: dict, home: str) -> list[str]:
    """What would keep the installed hooks from running."""
    notes = []
    if harness == "claude-code":
        value = _parse(path, _read(path))
        if value.get("disableAllHooks") is True:
            notes.append(f"{path} sets disableAllHooks: Claude Code runs no hook")
        return notes
    config = path.parent / "config.toml"
    try:
        import tomllib

        features = tomllib.loads(config.read_text(encoding="utf-8")).get("features", {})
    except (OSError, ValueError):
        features = {}
    if isinstance(features, dict) and features.get("hooks") is False:
        notes.append(f"{config} turns hooks off ([features] hooks = false)")
    notes.append(
        "Codex runs new hooks once you trust them: accept them when codex asks you to review "
        "them; `codex exec` needs --dangerously-bypass-hook-trust until then"
    )
    return notes


def _openclaw_workspaces(text: str) -> tuple[str | None, list[str]]:
    """agents.defaults.workspace and each agents.list[].workspace of an openclaw.json."""
    from ..format import json5

    data = json5.loads(text)
    agents = data.get("agents") if isinstance(data, dict) else None
    if not isinstance(agents, dict):
        return None, []
    defaults = agents.get("defaults")
    default = defaults.get("workspace") if isinstance(defaults, dict) else None
    listed = agents.get("list") if isinstance(agents.get("list"), list) else []
    own = [
        a["workspace"]
        for a in listed
        if isinstance(a, dict) and isinstance(a.get("workspace"), str)
    ]
    return (default if isinstance(default, str) else None), own


def openclaw(root: Path, env: dict, home: str) -> Report:
    """Whether OpenClaw's agent workspace is this one: OpenClaw then reads MEMORY.md,
    USER.md and memory/*.md itself, and there is nothing to install."""
    state = Path(env.get("OPENCLAW_STATE_DIR") or Path(home) / ".openclaw")
    config = Path(env.get("OPENCLAW_CONFIG_PATH") or state / "openclaw.json")
    theirs, agents, unread = state / "workspace", [], None
    try:
        default, agents = _openclaw_workspaces(config.read_text(encoding="utf-8"))
        theirs = Path(os.path.expanduser(default)) if default else theirs
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as exc:
        unread = f"{config} could not be read ({exc}): OpenClaw's default workspace assumed"
    # An agent of its own (agents.list[].workspace) reads its workspace as the default does.
    here = os.path.realpath(root)
    mine = [Path(os.path.expanduser(w)) for w in agents]
    same_agent = next((w for w in mine if os.path.realpath(w) == here), None)
    theirs = same_agent or theirs
    report = Report("openclaw", None, "user", workspace=str(theirs))
    same = os.path.realpath(theirs) == here
    report.events = ["MEMORY.md", "USER.md", "memory/*.md"] if same else []
    if unread:
        report.notes.append(unread)
    if not same:
        report.notes.append(
            f"OpenClaw's workspace is {theirs}, not this one: use `mem -w {theirs}` (or "
            "MEM_WORKSPACE), or point OpenClaw's agents.defaults.workspace here"
        )
    return report
