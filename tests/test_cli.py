from __future__ import annotations

import json
import subprocess
import sys
from datetime import date, timedelta

import pytest
from helpers import REPO, without_ids

from openclaw_mem.cli import app
from openclaw_mem.format.logs import read_entries


def test_log_text_roles_speaker_session_and_stdin(ws):
    assert (
        ws("log", "--at", "2026-11-30T14:05", "--role", "user", "我最近在用FastAPI做项目").stdout
        == "memory/2026-11-30.md#L3-L4\n"
    )
    ws("log", "--at", "2026-11-30T14:06", "--speaker", "小王", "--session", "s-1", "hi 👋")
    body = "```python\nprint('多行')\n```\n"
    ws("log", "--at", "2026-11-30T14:07", "-r", "assistant", "-", input=body)
    ws("log", "--at", "2026-11-30T14:08", "several", "words", "joined")
    entries = read_entries(ws.root / "memory" / "2026-11-30.md")
    assert [(e.role, e.text, e.session) for e in entries] == [
        ("user", "我最近在用FastAPI做项目", None),
        ("小王", "hi 👋", "s-1"),
        ("assistant", body[:-1], None),
        ("note", "several words joined", None),
    ]


def test_default_role_comes_from_settings(ws):
    (ws.root / "mem.toml").write_text('[log]\ndefault_role = "user"\n', encoding="utf-8")
    ws("log", "--at", "2026-11-30T08:00", "hello")
    assert read_entries(ws.root / "memory" / "2026-11-30.md")[0].role == "user"


def test_at_with_offset_is_local_time(ws):
    from datetime import datetime

    ws("log", "--at", "2026-11-30T06:00:00+00:00", "utc morning")
    local = datetime(2026, 11, 30, 6, tzinfo=__import__("datetime").timezone.utc).astimezone()
    entries = read_entries(ws.root / "memory" / f"{local:%Y-%m-%d}.md")
    assert entries[-1].time == f"{local:%H:%M}"


def test_user_errors_are_one_line_with_exit_codes(ws):
    cases = [
        (("log", "--role", "boss", "x"), 2, "role must be one of"),
        (("log", "--role", "user", "--speaker", "A", "x"), 2, "not both"),
        (("log", "--at", "yesterday", "x"), 2, "is not an ISO date or time"),
        (("log", ""), 2, "nothing to log"),
        (("log",), 2, "missing argument"),
        (("history", "-n", "0"), 2, "invalid value"),
        (("nosuch",), 2, "no such command"),
        (("status", "--nosuch"), 2, "no such option: --nosuch"),
        (("recall", "--nosuch", "x"), 2, "no such option: --nosuch"),
        (("get", "memory/2026-11-30.md#L0-L0"), 2, "1-based"),
        (("get", "memory/2026-11-30.md#L0-L2"), 2, "1-based"),
    ]
    for args, code, fragment in cases:
        result = ws(*args, ok=False)
        assert result.exit_code == code, (args, result.stderr)
        assert result.stderr.startswith("mem: error: "), args
        assert fragment in result.stderr, (args, result.stderr)
        assert result.stderr.count("\n") == 1, (args, result.stderr)
        assert "Traceback" not in result.stderr
        # One style, mem's and click's alike: lower case after the prefix.
        assert result.stderr[len("mem: error: ")].islower() or not result.stderr[12].isalpha()


def test_a_recall_that_finds_nothing_does_not_print_the_key_it_was_asked(ws):
    token = "ghp_1234567890abcdefghijABCDEFGHIJ123456"
    result = ws("recall", "--format", "table", token, ok=False)
    assert result.exit_code == 1 and "no memories match" in result.stderr
    assert token not in result.stderr and "[REDACTED]" in result.stderr


def test_debug_shows_the_traceback(ws):
    result = ws("--debug", "log", "--at", "nonsense", "x", ok=False)
    assert result.exit_code == 2 and "Traceback" in result.stderr


def test_a_bad_setting_costs_no_entry(ws):
    (ws.root / "mem.toml").write_text("[git]\nautocommit = 3\n", encoding="utf-8")
    result = ws("log", "x")
    assert "not used: git.autocommit in mem.toml must be a str" in result.stderr


def test_version_and_help(runner):
    assert runner.invoke(app, ["--version"]).stdout.startswith("mem 0.")
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for cmd in ("init", "log", "ingest", "commit", "history", "diff", "status", "config"):
        assert cmd in result.stdout


def test_status_counts_entries_for_the_last_seven_days(ws):
    today = date.today()
    for back in (0, 0, 2, 9):
        ws("log", "--at", f"{today - timedelta(days=back)}T10:00", f"entry {back}")
    data = ws.json("status")
    per_day = data["entriesPerDay"]
    assert len(per_day) == 7
    assert per_day[today.isoformat()] == 2
    assert per_day[(today - timedelta(days=2)).isoformat()] == 1
    assert (today - timedelta(days=9)).isoformat() not in per_day
    assert data["logFiles"] == 3
    assert {f["path"] for f in data["files"]} >= {"MEMORY.md", "USER.md"}
    text = ws("status").stdout
    assert "workspace" in text and "git" in text and "daily logs" in text


def test_python_dash_m_and_the_light_import_path(ws):
    """`mem log` and `mem --help` must not import numpy, datasketch, openai or git."""
    probe = (
        "import sys\n"
        "from openclaw_mem.cli import app\n"
        "try:\n    app(args=sys.argv[1:], prog_name='mem')\nexcept SystemExit:\n    pass\n"
        "heavy = {'numpy', 'datasketch', 'openai', 'git', 'rank_bm25', 'frontmatter'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    for args in (["-w", str(ws.root), "log", "light"], ["--help"]):
        out = subprocess.run(
            [sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True
        ).stdout
        assert out.strip().splitlines()[-1] == "[]", (args, out)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "openclaw_mem",
            "-w",
            str(ws.root),
            "log",
            "--at",
            "2026-11-30T09:00",
            "via -m",
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0 and result.stdout.startswith("memory/2026-11-30.md#L")


def test_the_mem_script_logs_without_the_heavy_standard_library(ws):
    """Issue 33: `mem log` costs about what the interpreter costs to start. Run as the
    installed script runs (scripts/mem, not pip's launcher, which imports re), a plain note
    imports none of the modules that used to cost more than the append itself."""
    heavy = (
        "re dataclasses inspect pathlib typing enum functools contextlib importlib json "
        "tomllib hashlib tempfile shlex subprocess collections"
    ).split()
    script = str(REPO / "scripts" / "mem")

    def imports(*argv: str) -> set[str]:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", *argv], capture_output=True, text=True, check=True
        )
        assert argv[0] == "-c" or done.stdout.startswith("memory/")
        return {
            line.rsplit("|", 1)[1].strip()
            for line in done.stderr.splitlines()
            if line.startswith("import time:") and line.count("|") == 2
        }

    # What this interpreter imports on its own (a site .pth may import re) is the floor,
    # not mem's cost.
    floor = imports("-c", "pass")
    for text in ("我最近在用FastAPI做项目", "Lunch with Mei at 12:30, then the dentist."):
        imported = imports(script, "-w", str(ws.root), "log", text) - floor
        assert "openclaw_mem.services.writing" in imported  # the probe sees imports
        assert sorted(imported & set(heavy)) == [], text


# ------------------------------------------------------------ what a new user trips on


def test_text_that_starts_with_a_dash_is_logged_verbatim(ws):
    texts = ["- buy milk", "-1 degrees outside", "-----BEGIN NOTE-----", "--not-an-option x"]
    for i, text in enumerate(texts):
        if any(c.isspace() for c in text):  # no option holds a space: text as it is
            ws("log", "--at", f"2026-11-30T09:0{i}", text)
        else:  # a dash-word goes after --
            ws("log", "--at", f"2026-11-30T09:0{i}", "--", text)
    ws("log", "--at", "2026-11-30T09:09", "hello", "-r", "user")  # options still work after
    entries = read_entries(ws.root / "memory" / "2026-11-30.md")
    assert [(e.role, e.text) for e in entries] == [
        *(("note", t) for t in texts),
        ("user", "hello"),
    ]
    # Options go before text that starts with a dash; after it, everything is text.
    found = json.loads(ws("recall", "--json", "--now", "2026-11-30", "-1 degrees").stdout)
    assert found["results"][0]["snippet"].endswith("-1 degrees outside")


def test_bare_mem_prints_the_help(runner):
    result = runner.invoke(app, [])
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage: mem") and result.stdout.count("\n") > 10
    assert "log" in result.stdout and not result.stderr


def test_piped_output_is_not_wrapped(ws):
    long = "Redis " + "连接池 max_connections 调到 50 之后超时消失了 " * 6
    ws("log", "--at", "2026-11-30T09:00", long)
    out = ws("recall", "连接池", "--now", "2026-11-30").stdout  # CliRunner: not a terminal
    assert max(len(line) for line in out.splitlines()) > 120
    assert long.strip() in out


def test_status_is_clean_after_the_readme_sequence(ws):
    ws("log", "--role", "user", "我最近在用FastAPI做项目，还用了Redis")
    ws("consolidate")
    data = ws.json("status")
    assert data["git"]["clean"], data["git"]
    last, consolidation = data["git"]["lastCommit"], data["consolidation"]["lastCommit"]
    assert consolidation["sha"] == last["sha"]
    assert (consolidation["files"], consolidation["insertions"]) == (
        last["files"],
        last["insertions"],
    )
    assert consolidation["files"] > 0


@pytest.mark.slow
def test_status_says_how_the_workspace_was_found(ws):
    def found_by(cwd):
        out = subprocess.run(
            [sys.executable, "-m", "openclaw_mem", "status", "--json"],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return json.loads(out)["foundBy"]

    assert found_by(ws.root) == "current directory"
    assert found_by(ws.root / "memory") == "ancestor of the current directory"


def test_provider_errors_say_what_to_do(ws):
    ws("log", "something worth keeping: I prefer short answers")
    bogus = ws("consolidate", "--provider", "bogus", ok=False)
    assert bogus.exit_code == 2 and "unknown provider 'bogus'" in bogus.stderr
    no_key = ws("consolidate", "--provider", "openai", ok=False)
    assert no_key.exit_code == 6 and "OPENAI_API_KEY" in no_key.stderr
    assert "cannot reach" not in no_key.stderr
    # In an untrusted mem.toml it would not have counted: this machine's setting stands.
    (ws.root / "mem.toml").write_text('[consolidate]\nprovider = "bogus"\n', encoding="utf-8")
    from_file = ws("consolidate")
    assert "not used: consolidate.provider in mem.toml" in from_file.stderr


def test_init_skill_commits_the_skill(ws):
    ws("init", str(ws.root), "--skill")
    assert (ws.root / "skills" / "openclaw-mem" / "SKILL.md").is_file()
    assert ws.json("status")["git"]["clean"]


def test_counts_read_as_english(ws):
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I prefer tea over coffee")
    out = ws("consolidate", "--now", "2026-11-30T10:00").stdout
    assert "1 log entry not yet consolidated; 1 batch\n" in out
    assert "1 log entries" not in (ws.root / "HISTORY.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_fast_log_path_writes_what_the_full_app_writes(tmp_path, runner):
    """`mem log` runs through openclaw_mem.entry without typer; the bytes it writes and
    the lines it prints equal the full app's, and anything unusual goes to the full app."""
    calls = [
        ["--at", "2026-11-30T09:00", "--role", "user", "我最近在用FastAPI做项目"],
        ["--at=2026-11-30T09:01", "-s", "小王", "--session", "s-1", "hi", "there"],
        ["--at", "2026-11-30T09:02", "-1 degrees outside"],
        ["--at", "2026-11-30T09:03", "words", "-r", "assistant"],
        ["--at", "2026-11-30T09:04", "-"],
    ]
    roots = []
    for how in ("full", "fast"):
        root = tmp_path / how
        assert runner.invoke(app, ["init", str(root)]).exit_code == 0
        roots.append(root)
        for args in calls:
            if how == "full":
                result = runner.invoke(app, ["-w", str(root), "log", *args], input="from stdin\n")
                out, code = result.stdout, result.exit_code
            else:
                done = subprocess.run(
                    [sys.executable, "-m", "openclaw_mem", "-w", str(root), "log", *args],
                    input="from stdin\n",
                    capture_output=True,
                    text=True,
                )
                out, code = done.stdout, done.returncode
            assert code == 0 and out.startswith("memory/2026-11-30.md#L"), (how, args, out)
    day = "memory/2026-11-30.md"
    read = [without_ids((root / day).read_text(encoding="utf-8")) for root in roots]
    assert read[0] == read[1]  # ids aside: each entry draws its own

    def fast(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "openclaw_mem", "-w", str(roots[1]), "log", *args],
            input=stdin,
            capture_output=True,
            text=True,
        )

    bad = fast("--role", "boss", "x")
    assert (
        bad.returncode == 2
        and bad.stderr
        == "mem: error: --role must be one of user, assistant, system, note, not 'boss' "
        "(see `mem log --help`)\n"
    )
    assert fast("--help").stdout.startswith("Usage: mem log")  # handed to the full app
    probe = (
        "import sys\nfrom openclaw_mem.entry import main\nsys.argv = ['mem'] + sys.argv[1:]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = {'typer', 'click', 'rich', 'numpy', 'openai', 'git', 'mcp'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, "-w", str(roots[1]), "log", "light"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip().splitlines()[-1] == "[]", out


def test_a_clock_at_the_calendars_first_days_is_no_crash(ws, monkeypatch):
    """MEM_NOW=0001-01-03 `mem status` and `mem context --now 0001-01-01 "in January …"`
    ended in an OverflowError ("please report it"): both counted days before the first."""
    ws("log", "--at", "0001-01-01T08:00", "--role", "user", "Redis timeouts in January")
    done = ws("context", "--now", "0001-01-01", "in January Redis")
    assert "unexpected" not in done.stderr
    monkeypatch.setenv("MEM_NOW", "0001-01-03")
    done = ws("status")
    assert "unexpected" not in done.stderr
