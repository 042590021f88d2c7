"""A CLI that pipes like rg (issue 34): in a pipe, a recall is one hit a line with the
citation alone in its cell and no escaped newline anywhere; `--format rg` prints
path:line:text; nothing found is exit 1; values complete in the shell; FORCE_COLOR colours
a pipe; an option that needs what it lacks is a usage error. Real processes, real pipes."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from helpers import REPO

MEM = [sys.executable, str(REPO / "scripts" / "mem")]


@pytest.fixture
def logged(ws):
    for i, text in enumerate(
        [
            "Redis 连接池\tmax_connections 调到 50\n之后超时消失了",
            "The settlement worker's Redis socket_timeout is now 10s.",
            "周末跑了 10 公里, 配速 5:40.",
        ]
    ):
        ws("log", "--at", f"2026-11-30T09:0{i}", "--", text)
    return ws


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "MEM_EMBED_PROVIDER": "none", "MEM_NOW": "2026-11-30T12:00", **extra}


def _sh(command: str, root, **extra: str) -> subprocess.CompletedProcess:
    mem = " ".join(MEM)
    return subprocess.run(
        ["sh", "-c", command.replace("mem ", f"{mem} -w {root} ")],
        capture_output=True,
        text=True,
        env=_env(**extra),
    )


def test_a_piped_recall_hands_cut_and_xargs_its_citations(logged):
    run = _sh("mem recall Redis | cut -f3 | xargs -n1 mem get", logged.root)
    assert run.returncode == 0, run.stderr
    assert "max_connections" in run.stdout and "socket_timeout is now 10s" in run.stdout
    rows = _sh("mem recall Redis", logged.root).stdout.splitlines()
    assert len(rows) == 2 and all(len(row.split("\t")) == 5 for row in rows)
    for row in rows:
        rank, score, cite, when, snippet = row.split("\t")
        assert rank.isdigit() and float(score) > 0 and "Redis" in snippet
        assert re.fullmatch(r"memory/2026-11-30\.md#L\d+-L\d+", cite) and when.startswith("2026")
        assert "\\n" not in row and "\\t" not in row  # nothing escaped, nothing to unescape


def test_format_rg_prints_path_line_text(logged):
    for extra in ((), ("--no-daemon",)):
        out = _sh(f"mem recall --format rg {' '.join(extra)} 公里", logged.root).stdout
        assert re.fullmatch(r"memory/2026-11-30\.md:\d+:## 09:02 · note 周末跑了 10 公里.*\n", out)
    full = subprocess.run(
        [*MEM, "-w", str(logged.root), "recall", "--format", "rg", "--explain", "公里"],
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert full.returncode == 0 and full.stdout.count("\n") == 1  # --explain: the full CLI


@pytest.mark.parametrize("how", [(), ("--json",), ("--format", "rg"), ("--format", "tsv")])
def test_nothing_found_is_exit_1_as_grep_says(logged, how):
    for path in ((), ("--no-daemon",)):
        run = subprocess.run(
            [*MEM, "-w", str(logged.root), "recall", *how, *path, "zqxjkv"],
            capture_output=True,
            text=True,
            env=_env(),
        )
        assert run.returncode == 1 and "error" not in run.stderr, (how, run.stderr)
    assert logged("recall", "zqxjkv", ok=False).exit_code == 1  # the full CLI too


@pytest.mark.parametrize(
    "words, offered",
    [
        ("mem log --role ", {"user", "assistant", "system", "note"}),
        ("mem recall --format ", {"table", "tsv", "rg"}),
        ("mem recall --embed n", {"none"}),
        ("mem consolidate --provider o", {"openai", "offline"}),
        ("mem completion ", {"bash", "zsh", "fish"}),
        ("mem import c", {"chatgpt", "claude", "claude-code"}),
    ],
)
def test_values_complete_in_the_shell(words, offered):
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    run = subprocess.run(
        MEM,
        capture_output=True,
        text=True,
        env=_env(_MEM_COMPLETE="complete_bash", COMP_WORDS=words, COMP_CWORD=str(cword)),
    )
    assert set(run.stdout.split()) == offered, run.stdout


def test_a_value_that_is_not_one_of_the_choices_is_a_usage_error(logged):
    for args in (["log", "--role", "boss", "x"], ["recall", "--format", "xml", "x"]):
        run = subprocess.run(
            [*MEM, "-w", str(logged.root), *args], capture_output=True, text=True, env=_env()
        )
        assert run.returncode == 2 and run.stderr.startswith("mem: error: --"), run.stderr
        assert run.stderr.count("\n") == 1


def test_force_color_colours_a_pipe_and_no_color_wins(logged):
    coloured = _sh("mem status | cat", logged.root, FORCE_COLOR="1").stdout
    assert "\x1b[" in coloured
    plain = _sh("mem status | cat", logged.root, FORCE_COLOR="1", NO_COLOR="1").stdout
    assert "\x1b[" not in plain and "workspace" in plain


def test_an_option_that_needs_what_it_lacks_is_exit_2_and_a_missing_file_exit_4(logged):
    run = logged("review", "--accept-all", ok=False)
    assert run.exit_code == 2 and "--accept-all needs a proposal id" in run.stderr
    run = logged("history", "nosuch.md", ok=False)
    assert run.exit_code == 4 and "nosuch.md: no such file" in run.stderr


def test_workspace_paths_complete_to_directories(tmp_path):
    for name in ("alpha", "alps", ".hidden"):
        (tmp_path / name).mkdir()
    (tmp_path / "alfile").write_text("x", encoding="utf-8")
    for words in (f"mem -w {tmp_path}/al", f"mem init {tmp_path}/al", f"mem demo {tmp_path}/al"):
        run = subprocess.run(
            MEM,
            capture_output=True,
            text=True,
            env=_env(_MEM_COMPLETE="complete_bash", COMP_WORDS=words, COMP_CWORD="2"),
        )
        assert run.stdout.split() == [f"{tmp_path}/alpha/", f"{tmp_path}/alps/"], words
