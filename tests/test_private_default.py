"""Private by default (issue 44): memory goes to a model only when mem's own settings name
one, never because some other tool's OPENAI_API_KEY is in the environment; and a secret an
agent logs is said at once, and by the commits that keep it, never hidden behind
"redacted before anything was sent"."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import git
from helpers import settings
from llm_server import tool_call

from openclaw_mem.consolidate import providers

SECRET = "hunter2hunter2"

# mem run in a child whose every way onto the network is cut and recorded.
NO_NETWORK = """
import socket, sys
tried = []
def refuse(*args, **kwargs):
    tried.append(repr(args)[:80])
    raise OSError("the network is cut in this test")
socket.socket.connect = lambda self, address: refuse(address)
socket.socket.connect_ex = lambda self, address: refuse(address)
socket.create_connection = refuse
socket.getaddrinfo = refuse
from openclaw_mem.cli import app
code = 0
try:
    app(args=sys.argv[1:], prog_name="mem")
except SystemExit as exc:
    code = exc.code
print("TRIED " + repr(tried), file=sys.stderr)
sys.exit(code)
"""


def _offline_run(ws, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["OPENAI_API_KEY"] = "sk-proj-set-for-some-other-tool-0123456789"
    return subprocess.run(
        [sys.executable, "-c", NO_NETWORK, "-w", str(ws.root), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_an_openai_key_alone_sends_memory_nowhere_and_says_how_to_choose(ws):
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I moved to Porto last month")
    done = _offline_run(ws, "consolidate", "--json")
    assert done.returncode == 0, done.stderr
    assert "TRIED []" in done.stderr, done.stderr  # not one connection, not one DNS lookup
    assert json.loads(done.stdout)["provider"].startswith("offline")
    said = [line for line in done.stderr.splitlines() if "OPENAI_API_KEY" in line]
    assert len(said) == 1
    assert 'consolidate.provider = "openai"' in said[0] and "--provider openai" in said[0]


def test_auto_reads_no_environment():
    env = {"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "https://example.invalid/v1"}
    assert providers.resolve("auto", {"base_url": ""}) == "offline"
    assert providers.resolve("auto", {"base_url": "http://127.0.0.1:9/v1"}) == "openai"
    assert providers.unchosen("auto", {"base_url": ""}, env).startswith("OPENAI_API_KEY")
    assert providers.unchosen("auto", {"base_url": ""}, {}) is None
    assert providers.unchosen("openai", {"base_url": ""}, env) is None  # chosen by name
    assert providers.unchosen("auto", {"base_url": "http://x/v1"}, env) is None


def test_settings_that_name_an_endpoint_choose_the_model(ws, llm, monkeypatch):
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I moved to Porto last month")
    edit = {"file": "USER", "op": "add", "section": "Identity", "text": "Lives in Porto",
            "type": "identity", "importance": 0.8, "confidence": 0.9, "sources": [1]}  # fmt: skip
    llm.push(tool_call({"history_entry": "The user moved to Porto.", "edits": [edit]}))
    settings(ws.root, f'[llm]\nbase_url = "{llm.url}"\nmodel = "test-model"\n')
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-set-for-some-other-tool-0123456789")
    result = ws("consolidate", "--json")
    assert json.loads(result.stdout)["provider"].startswith("openai")
    assert llm.requests and "OPENAI_API_KEY is set" not in result.stderr


def test_a_logged_secret_is_warned_of_at_once_and_kept_verbatim(ws):
    text = f"the staging db password={SECRET} until Friday"
    result = ws("log", "--at", "2026-11-30T09:00", text)
    warned = result.stderr.strip().splitlines()
    assert len(warned) == 1 and "memory/2026-11-30.md:" in warned[0]
    assert "log.redact" in warned[0] and "mem forget --hard" in warned[0]
    assert SECRET not in result.stderr
    assert text in (ws.root / "memory" / "2026-11-30.md").read_text(encoding="utf-8")
    quiet = ws("log", "--at", "2026-11-30T09:05", "Lunch with Mei at 12:30, then the dentist.")
    assert quiet.stderr == ""


def test_with_log_redact_on_there_is_nothing_to_warn_of(ws, monkeypatch):
    monkeypatch.setenv("MEM_LOG_REDACT", "true")
    result = ws("log", "--at", "2026-11-30T09:00", f"the db password={SECRET} now")
    assert result.stderr == ""
    assert SECRET not in (ws.root / "memory" / "2026-11-30.md").read_text(encoding="utf-8")


def test_the_fast_path_warns_as_the_full_app_does(ws):
    env = {**os.environ, "MEM_NOW": "2026-11-30T09:00"}
    done = subprocess.run(
        [sys.executable, "-m", "openclaw_mem", "-w", str(ws.root), "log", f"pw: {SECRET}1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "kept verbatim as log.redact is off" in lines[0], lines


def test_the_commits_that_keep_a_secret_say_so_without_it(ws):
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I moved to Porto last month")
    ws("log", "--at", "2026-11-30T09:01", "--role", "user", f"wifi password: {SECRET}9")
    ws("log", "--at", "2026-11-30T09:02", "--role", "user", f"a pw: {SECRET.title()}7 here")
    result = ws("consolidate", "--now", "2026-11-30T12:00")
    assert "committed verbatim in the log" in result.stderr and SECRET not in result.stderr
    # Its own how-to is not taken for a password ("PATH:[REDACTED]" after the family's name).
    assert "`mem forget --hard PATH:LINE`" in result.stderr, result.stderr
    repo = git.Repo(ws.root)
    consolidated, logged = list(repo.iter_commits(max_count=2))
    assert logged.message.startswith("mem log:")
    for commit in (consolidated, logged):
        assert "memory/2026-11-30.md:" in commit.message and "log.redact" in commit.message
        assert SECRET not in commit.message


def test_mem_commit_and_sync_say_which_log_line_holds_a_secret_without_it(tmp_path):
    """Only the `mem log:` and consolidation commits said it; `mem commit` ("mem: update …")
    and sync's commit of the logs kept the line in silence."""
    from helpers import clones

    a, b = clones(tmp_path, 2)
    a("log", "--at", "2026-11-30T09:01", "--role", "user", f"wifi password: {SECRET}9")
    a("commit", "-m", "my notes")
    b("log", "--at", "2026-11-30T09:02", "--role", "user", f"the vpn password: {SECRET}8")
    b("sync")
    for m, said in ((a, "my notes"), (b, "mem sync:")):
        commit = next(
            c for c in git.Repo(m.root).iter_commits(max_count=5) if c.message.startswith(said)
        )
        assert "memory/2026-11-30.md:" in commit.message and "log.redact" in commit.message
        assert SECRET not in commit.message


# Families no clause of whose gate the hint's words cover, each with the word it needs (read
# from the family's pattern: its labels) or, for shapes, the run of RUN characters it needs.
_NEEDS_WORD = {
    "command-line password": ("mysql", "mariadb", "pass", "redis"),  # sshpass holds "pass"
    "curl user password": ("-u",),  # -u and --user
    "secret assignment": ("pass", "pwd", "secret", "token", "key"),  # access_key holds key
    "secret beside its label": ("pass", "pwd", "secret", "token", "key"),
    "password in a sentence (es/de/fr)": ("contrase", "clave", "pass", "kennwort", "mdp"),
    "national id number": ("ssn", "security", "身份证", "身份證"),  # social security
}
# Families every match of which holds CARD_DIGITS digits in a row (a space or a dash between
# two of them at most), which the hint counts.
_NEEDS_DIGITS = {"payment card number"}


def test_the_secret_hint_never_passes_over_a_family():
    import re
    from re import _parser

    import regex_gate
    from test_secret_gate import _texts

    from openclaw_mem.safety import secret_hint, secrets

    words = [w.lower() for w in secret_hint.WORDS]
    for name, source in secrets.FAMILIES:
        _, clauses = regex_gate.gate(re.compile(source))
        covered = any(all(any(w in s.lower() for w in words) for s in c) for c in clauses)
        shortest = _parser.parse(source).getwidth()[0]
        needs = _NEEDS_WORD.get(name, ())
        named = bool(needs) and all(any(w in n for w in words) for n in needs)
        digits = name in _NEEDS_DIGITS
        assert covered or shortest >= secret_hint.RUN or named or digits, name
    texts = _texts()
    found = [t for t in texts if secrets.has_secret(t)]
    assert len(found) > 300
    assert all(secret_hint.may_hold_secret(t) for t in found), [
        t for t in found if not secret_hint.may_hold_secret(t)
    ][:3]
    cards = ["4111 1111 1111 1111", "5500-0000-0000-0004", "378282246310005", "3782 822463 10005"]
    assert all(secret_hint.may_hold_secret(f"pay {c} now") for c in cards)
    plain = [
        "I moved to Porto last month",
        "call 138 0013 8000 at 09:30, 2026-11-30",
        "Lunch with Mei at 12:30, then the dentist.",
        "我下周去上海出差，酒店订在静安寺附近",
    ]
    assert not any(secret_hint.may_hold_secret(t) for t in plain)


def test_a_plain_note_compiles_no_secret_family():
    probe = (
        "import sys\nfrom openclaw_mem.entry import main\nsys.argv = ['mem'] + sys.argv[1:]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('openclaw_mem.safety.secrets' in sys.modules)\n"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        from typer.testing import CliRunner

        from openclaw_mem.cli import app

        assert CliRunner().invoke(app, ["init", tmp]).exit_code == 0
        out = subprocess.run(
            [sys.executable, "-c", probe, "-w", tmp, "log", "Lunch with Mei at noon"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    assert out.strip().splitlines()[-1] == "False", out
