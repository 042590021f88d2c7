"""The documentation is executed: every ```console block in README.md and docs/ runs here,
command by command, in a real terminal (a pty, so tables look as a reader sees them), and
must print what the document shows.

How a block runs:
- in a fresh home with a copy of workspace.example/ made a workspace (`mem init`) at
  ~/.openclaw/workspace, the current directory; MEM_NOW and git's dates fixed at
  2026-11-28T09:00 (the demo's morning), so commit hashes repeat; embeddings `none`;
- each `$ ` line is one shell command (bash; a `# comment` is a comment); the lines after it
  are what it prints, stdout and stderr as the terminal shows them;
- an HTML comment just above the fence changes that, invisible in the rendered page:
  `<!-- docs: fresh -->` (an empty home: no workspace), `<!-- docs: continue -->` (the
  previous block's home, as it left it), `now=2026-11-30T10:00`, `columns=120`; the
  comment's further lines are shell commands run first, unseen (`$REPO` is this repository,
  `$LLM` a scripted OpenAI-compatible server's URL when the block names it).

What counts as the same output: trailing spaces and blank lines at the ends are ignored, the
test's home prints as /home/lin, a duration (`0.21 s`, `14 ms`) matches any duration, a line
`...` stands for any lines, and `[...]` inside a line for any text.

`UPDATE_DOCS=1 python -m pytest --all -n 0 tests/test_docs.py` rewrites the outputs of blocks that
no longer match (blocks without wildcards), for review with `git diff`.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers import EXAMPLE, REPO

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name != "posix", reason="needs a pty")]

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
NOW = "2026-11-28T09:00"
SHOWN_HOME = "/home/lin"  # what the test's home prints as
_MARK = "\x1e"  # record separator: a command's output starts after one
_DURATION = re.compile(r"\b\d+(?:\.\d+)? ?(?:ms|s)\b")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


@dataclass
class Step:
    command: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Block:
    path: Path
    line: int  # the fence's line, 1-based
    text: str  # the block as written, fences included: what an update replaces
    steps: list[Step]
    options: dict[str, str]
    setup: list[str]

    @property
    def name(self) -> str:
        words = "-".join(re.findall(r"[\w-]+", self.steps[0].command)[:2]) if self.steps else ""
        return f"{self.path.relative_to(REPO)}:{self.line}:{words}"


def collect(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        start = i
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        steps: list[Step] = []
        for raw in lines[i + 1 : end]:
            if raw.startswith("$ "):
                steps.append(Step(raw[2:]))
            elif steps:
                steps[-1].expected.append(raw)
            else:
                raise AssertionError(f"{path.name}:{i + 1}: output before the first `$ ` line")
        options, setup = _directive(lines, start)
        blocks.append(
            Block(path, start + 1, "\n".join(lines[start : end + 1]), steps, options, setup)
        )
        i = end + 1
    return blocks


def _directive(lines: list[str], fence: int) -> tuple[dict[str, str], list[str]]:
    j = fence - 1
    if j < 0 or not lines[j].rstrip().endswith("-->"):
        return {}, []
    k = j
    while k >= 0 and not lines[k].lstrip().startswith("<!--"):
        k -= 1
    body = "\n".join(lines[k : j + 1]).strip()[4:-3].strip()
    if not body.startswith("docs:"):
        return {}, []
    first, *rest = body[5:].split("\n")
    options = {}
    for word in first.split():
        key, _, value = word.partition("=")
        options[key] = value
    return options, [line.strip() for line in rest if line.strip()]


BLOCKS = [block for path in DOCS for block in collect(path)]


def normalise(text: str, home: str | None = None, durations: bool = False) -> list[str]:
    """Terminal output as lines to compare: no colour, no trailing spaces or blank ends, the
    home as /home/lin, and any duration one token (unless `durations`, to write back)."""
    text = _ANSI.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    if home:
        text = text.replace(home, SHOWN_HOME)
    lines = [line.rstrip() for line in text.split("\n")]
    if not durations:
        lines = [_DURATION.sub("<duration>", line) for line in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(expected: list[str], actual: list[str]) -> bool:
    parts = []
    for line in expected:
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            pieces = [re.escape(p) for p in line.split("[...]")]
            parts.append(r"[^\n]*?".join(pieces) + r"\n")
    return re.fullmatch("".join(parts), "".join(a + "\n" for a in actual)) is not None


def run_in_pty(script: str, cwd: Path, env: dict[str, str], columns: int) -> str:
    import fcntl
    import struct
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    proc = subprocess.Popen(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
    )
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + 120
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: every writer closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break  # the shell is done; what it left running in the background is not
            elif time.monotonic() > deadline:
                raise AssertionError("a documented command ran for more than 120 s")
    finally:
        os.close(master)
        # The block's whole process group: a command it started in the background (or one
        # that never ends, killed above) must not outlive the test.
        import signal

        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    return b"".join(chunks).decode("utf-8", errors="replace")


@pytest.fixture(scope="module")
def homes():
    """The homes blocks ran in, and per document the last block run and where: a
    `continue` block carries on there. Each is /tmp/XXXX: as long as /home/lin, so a
    terminal wraps the lines that hold it where the document does."""
    made: dict[str, tuple[Path, Block | None]] = {}
    yield made
    for home in {home for home, _ in made.values()}:
        shutil.rmtree(home, ignore_errors=True)


def _short_home() -> Path:
    import secrets

    for _ in range(100):
        home = Path("/tmp") / secrets.token_hex(2)
        try:
            home.mkdir()
        except FileExistsError:
            continue
        return home
    raise AssertionError("no free /tmp/XXXX directory for a home")


def _environment(home: Path, now: str) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "SYSTEMROOT", "TMPDIR")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(
        HOME=str(home),
        LANG="C.UTF-8",
        TERM="xterm",
        NO_COLOR="1",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=str(home / ".gitconfig"),
        GIT_AUTHOR_NAME="Lin Wei",
        GIT_AUTHOR_EMAIL="lin@example.invalid",
        GIT_COMMITTER_NAME="Lin Wei",
        GIT_COMMITTER_EMAIL="lin@example.invalid",
        GIT_AUTHOR_DATE=now,
        GIT_COMMITTER_DATE=now,
        MEM_NOW=now,
        MEM_EMBED_PROVIDER="none",
        MEM_WATCH_IDLE="0",
        EDITOR="true",
        REPO=str(REPO),
    )
    return env


def _chain(block: Block) -> list[Block]:
    """The blocks whose state this one continues, first to last, itself included."""
    same = [b for b in BLOCKS if b.path == block.path]
    at = same.index(block)
    start = at
    while start > 0 and "continue" in same[start].options:
        start -= 1
    assert start < at or "continue" not in block.options, (
        f"{block.name}: `continue` with no block before it"
    )
    return same[start : at + 1]


def _run_block(block: Block, home: Path, request) -> dict[int, str]:
    """Run one block's set-up and commands in `home`; each command's output by its number."""
    env = _environment(home, block.options.get("now", NOW))
    workspace = home / ".openclaw" / "workspace"
    script = ["set +e"]
    if "$LLM" in "\n".join(block.setup):
        env["LLM"] = request.getfixturevalue("llm").url
    if not block.options.keys() & {"fresh", "continue"}:
        shutil.copytree(EXAMPLE, workspace)
        script.append(f"mem init {workspace} >/dev/null")
    script.append(f"cd {workspace} 2>/dev/null || cd {home}")
    script += [f"{{ {line}\n}} >/dev/null 2>&1" for line in block.setup]
    for n, step in enumerate(block.steps):
        script.append(f"printf '{_MARK}{n}{_MARK}\\n'")
        script.append(step.command)
    columns = int(block.options.get("columns", "100"))
    out = run_in_pty("\n".join(script) + "\n", home, env, columns)
    pieces = out.split(_MARK)
    return {int(pieces[i]): pieces[i + 1] for i in range(1, len(pieces) - 1, 2)}


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_console_block(block: Block, homes, request) -> None:
    # A `continue` block runs on the state its chain left. When the block before it ran
    # here last, that state is at hand; otherwise (another worker ran it, or -k picked
    # this one) the chain runs again first, in a home of its own.
    chain = _chain(block)
    previous = homes.get(block.path.name)
    if len(chain) > 1 and previous is not None and previous[1] is chain[-2]:
        home = previous[0]
    else:
        home = _short_home()
        homes[home.name] = (home, None)  # removed at the end, whatever ran in it
        for earlier in chain[:-1]:
            _run_block(earlier, home, request)
    outputs = _run_block(block, home, request)
    homes[block.path.name] = (home, block)
    failures, rewritten = [], []
    for n, step in enumerate(block.steps):
        actual = normalise(outputs.get(n, "(did not run)"), str(home))
        expected = normalise("\n".join(step.expected))
        if not matches(expected, actual):
            failures.append(
                f"$ {step.command}\n--- the document shows\n"
                + "\n".join(expected)
                + "\n--- the program prints\n"
                + "\n".join(actual)
            )
        shown = normalise(outputs.get(n, ""), str(home), durations=True)
        rewritten.append("\n".join([f"$ {step.command}", *(s.replace("\x1b", "") for s in shown)]))
    if failures and os.environ.get("UPDATE_DOCS") == "1" and not _has_wildcards(block):
        _rewrite(block, "```console\n" + "\n".join(rewritten) + "\n```")
        pytest.skip("rewritten: review with git diff")
    assert not failures, f"{block.name}\n" + "\n\n".join(failures)


def _has_wildcards(block: Block) -> bool:
    return any(line == "..." or "[...]" in line for step in block.steps for line in step.expected)


def _rewrite(block: Block, new: str) -> None:
    text = block.path.read_text(encoding="utf-8")
    assert text.count(block.text) == 1, f"{block.name}: block not found once"
    tmp = block.path.with_suffix(".md.tmp")
    tmp.write_text(text.replace(block.text, new), encoding="utf-8")
    os.replace(tmp, block.path)


def test_the_harness_matches_what_it_should() -> None:
    """The comparison itself: a wildcard line, an inline wildcard, durations, and a changed
    word that must fail."""
    assert matches(["a", "...", "z"], ["a", "b", "c", "z"])
    assert matches(["a", "...", "z"], ["a", "z"])
    assert matches(["took [...] here"], ["took 3 things here"])
    assert not matches(["took [...] here"], ["took 3 things there"])
    assert normalise("index rebuild in 0.21 s") == normalise("index rebuild in 1.5 s")
    assert not matches(normalise("committed 2b46e4e"), normalise("committed 2b46e4f"))
    assert not matches(["a"], ["a", "b"])


def test_every_document_has_console_blocks_the_harness_reads() -> None:
    names = {b.path.name for b in BLOCKS}
    assert {"README.md", "commands.md"} <= names, names


def test_a_block_leaves_no_process_behind(tmp_path):
    """A command a block starts in the background ends with the block (the harness kills
    the block's process group): no watcher outlives the docs' test."""
    marker = f"sleep 301.{os.getpid() % 1000}"  # a float sleep, its own name for pgrep
    out = run_in_pty(f"{marker} &\necho started\n", tmp_path, dict(os.environ), 80)
    assert "started" in out
    time.sleep(0.2)
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout
    assert left.strip() == ""
