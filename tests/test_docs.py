"""The documentation is executed: every ```console block in README.md and docs/ runs here,
command by command, in a real terminal, and must print what the document shows, on the
stream it shows, with the exit code it shows. ```python blocks run too, ```toml blocks are
read as mem.toml, ```bash blocks are checked without being run.

How a ```console block reads:
- each `$ ` line is one shell command (bash; a `# comment` is a comment). Lines that start
  `> ` right after it continue it, as bash's own prompt shows a here-document or an open
  quote;
- the lines after it are what it prints. A line on standard error is written
  `[stderr] text`; every other line is standard output;
- `[exit N]` as the last line of a command's output is its exit code, as the shell would
  report it (`echo $?`); a command with no such line must exit 0.

How a block runs:
- in a home of its own, with the clock at 2026-11-28T09:00 (`MEM_NOW`, and git's author and
  committer dates, so commit hashes repeat), as "Lin Wei" in git, in a terminal 100 columns
  wide. Standard output and standard error are two terminals of the same size, so a table
  is drawn as a reader sees it and each line is known by its stream;
- every command the reader needs to get the output shown is in the block, or in an earlier
  block of the same document that the block continues. What stays out of sight sets only
  what the prose around the block says, and cannot change what a reader's run prints
  beyond it. It is an HTML comment just above the fence, `<!-- docs: WORD… -->`, one line,
  of these words only (anything else there, a shell command above all, is an error):
    `fresh`           an empty home, the current directory in it;
    `start`           the same, and this block is where the document's other blocks start:
                      each block with neither `fresh` nor `continue` runs, in a home of its
                      own, after this one (commands.md's first block copies the example
                      workspace there, for every example on the page);
    `continue`        the previous block's home and current directory, as it left them;
    `now=ISO`         another clock, which the prose gives ("the next day");
    `columns=N`       a wider terminal, so a wide table is not wrapped; a reader's own
                      terminal wraps it at its own width.
  The environment of every block is fixed the same way: `MEM_EMBED_PROVIDER=none` (what
  the README's install gives: `auto` finds no `local` extra, the docs say so where output
  would differ with it), `MEM_WATCH_IDLE=0` (no resident is started behind a block's back;
  with vectors `none` none would be), `NO_COLOR=1` (colour is taken out before comparing
  anyway), git's identity and dates, `EDITOR=true`, pagers `cat`, and `$REPO`, this
  repository (commands.md names it where its examples read the repository's files);
- what counts as the same output: trailing spaces and blank lines at the ends of each
  stream are ignored, the test's home prints as /home/lin, a duration (`0.21 s`, `14 ms`)
  matches any duration, a line `...` stands for any lines (`[stderr] ...` on standard
  error), and `[...]` inside a line for any text.

The other blocks:
- ```python runs in the home the same directives give it (it can `continue` a console
  block, and a console block it), with this package importable; it must exit 0. Its output
  is not compared;
- ```toml is a piece of mem.toml: it must parse, and every key it sets must be a setting
  (openclaw_mem.config's registry) with a value that setting accepts;
- ```bash holds commands for the reader's own machine that a test must not run as they
  are: they install software, reach the network or a model, or call a program these docs
  do not provide. Each must pass `bash -n`, and every `mem …` command in it must name a real
  command and real options (`mem … --help` accepts it). A command that can run here goes in
  a ```console block instead;
- ```json must parse.

`UPDATE_DOCS=1 python -m pytest --all -n 0 tests/test_docs.py` rewrites the console blocks
that no longer match (blocks without wildcards): outputs, `[stderr]` lines and `[exit N]`
markers, in the order the two terminals received them, for review with `git diff`.
"""

from __future__ import annotations

import atexit
import bisect
import contextlib
import functools
import json
import os
import re
import select
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers import REPO

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name != "posix", reason="needs a pty")]

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
NOW = "2026-11-28T09:00"
SHOWN_HOME = "/home/lin"  # what the test's home prints as
STDERR = "[stderr]"  # a line shown with this in front went to standard error
EXIT = re.compile(r"\[exit (\d+)\]")  # the last line of an output: its exit code
OPTIONS = ("fresh", "start", "continue", "now", "columns")
KINDS = ("console", "python", "toml", "bash", "json")
_STEP = "\x1e"  # record separator: `\x1eN\x1e` starts command N's output on both streams
_CODE = "\x1d"  # group separator: `\x1dCODE\x1d` ends it with its exit code
_MARKS = re.compile(r"(\x1e\d+\x1e|\x1d\d+\x1d)")
_DURATION = re.compile(r"\b\d+(?:\.\d+)? ?(?:ms|s)\b")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


@dataclass
class Step:
    command: str  # continuation lines joined with newlines
    expected: list[str] = field(default_factory=list)  # as written, [stderr] lines included
    exit: int = 0

    @property
    def stdout(self) -> list[str]:
        return [line for line in self.expected if not _is_stderr(line)]

    @property
    def stderr(self) -> list[str]:
        return [line[len(STDERR) :].removeprefix(" ") for line in self.expected if _is_stderr(line)]

    def shown(self) -> str:
        """The command as the block writes it: `$ ` and `> ` lines."""
        first, *rest = self.command.split("\n")
        return "\n".join([f"$ {first}", *(f"> {line}" for line in rest)])


def _is_stderr(line: str) -> bool:
    return line == STDERR or line.startswith(STDERR + " ")


@dataclass
class Block:
    path: Path
    line: int  # the fence's line, 1-based
    kind: str  # console, python, toml, bash, json
    text: str  # the block as written, fences included: what an update replaces
    body: str  # what is between the fences
    steps: list[Step]
    options: dict[str, str]
    problem: str = ""  # what is wrong with the block as written (its test says it)

    @property
    def name(self) -> str:
        """doc.md:LINE:mem-command, after the block's first `mem` command (else its first)."""
        commands = [s.command for s in self.steps if s.command.startswith("mem ")]
        first = (commands or [s.command for s in self.steps] or [""])[0]
        words = "-".join(re.findall(r"[\w-]+", first)[:2])
        return f"{self.path.name}:{self.line}:{words or self.kind}"

    def where(self) -> str:
        return f"{self.path.name}:{self.line}"


def collect(path: Path) -> list[Block]:
    """The checked blocks of one document, in order."""
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks, i = [], 0
    while i < len(lines):
        kind = lines[i].strip().removeprefix("```")
        if not lines[i].strip().startswith("```") or kind not in KINDS:
            i += 1
            continue
        start = i
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        body = lines[i + 1 : end]
        where = f"{path.name}:{start + 1}"
        steps, options, problem = [], {}, ""
        try:
            steps = _steps(body, where) if kind == "console" else []
            options = _directive(lines, start, where)
        except AssertionError as exc:
            problem = str(exc)
        if kind == "python":  # one step: the block, fed to python on its standard input
            steps = [Step("python - <<'__DOCS_PYTHON__'\n" + "\n".join(body) + "\n__DOCS_PYTHON__")]
        text = "\n".join(lines[start : end + 1])
        blocks.append(Block(path, start + 1, kind, text, "\n".join(body), steps, options, problem))
        i = end + 1
    return blocks


def _steps(body: list[str], where: str) -> list[Step]:
    steps: list[Step] = []
    continuing = False
    for raw in body:
        if raw.startswith("$ "):
            steps.append(Step(raw[2:]))
            continuing = True
        elif continuing and (raw.startswith("> ") or raw == ">"):
            steps[-1].command += "\n" + raw[2:]
        elif steps:
            continuing = False
            marked = [x for x in steps[-1].expected if x.strip()]
            if raw.strip() and marked and EXIT.fullmatch(marked[-1]):
                raise AssertionError(f"{where}: `[exit N]` must be the last line of an output")
            steps[-1].expected.append(raw)
        else:
            raise AssertionError(f"{where}: output before the first `$ ` line")
    for step in steps:
        while step.expected and not step.expected[-1].strip():
            step.expected.pop()
        if step.expected and (m := EXIT.fullmatch(step.expected[-1])):
            step.exit = int(m[1])
            step.expected.pop()
            if step.exit == 0:
                raise AssertionError(f"{where}: `[exit 0]` is what no marker says")
    return steps


def _directive(lines: list[str], fence: int, where: str) -> dict[str, str]:
    """The `<!-- docs: … -->` line just above a fence: its options. A comment of more than
    one line there would be set-up the reader cannot see, and is refused."""
    j = fence - 1
    if j < 0 or not lines[j].rstrip().endswith("-->"):
        return {}
    k = j
    while k >= 0 and not lines[k].lstrip().startswith("<!--"):
        k -= 1
    body = "\n".join(lines[k : j + 1]).strip()[4:-3].strip()
    if not body.startswith("docs:"):
        return {}
    if k != j:
        raise AssertionError(
            f"{where}: the docs comment above this block has lines a reader cannot see; show "
            "its commands in the block (or in a block this one continues)"
        )
    options = {}
    for word in body[5:].split():
        key, _, value = word.partition("=")
        if key not in OPTIONS:
            raise AssertionError(f"{where}: unknown docs option {key!r} (one of {OPTIONS})")
        options[key] = value
    return options


BY_DOC = {path: collect(path) for path in DOCS}
BLOCKS = [block for blocks in BY_DOC.values() for block in blocks]
RUN = [b for b in BLOCKS if b.kind in ("console", "python")]


def normalise(text: str, home: str | None = None, durations: bool = False) -> list[str]:
    """Terminal output as lines to compare: no colour, no trailing spaces or blank ends, the
    home as /home/lin, and any duration one token (unless `durations`, to write back)."""
    return _tidy(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), home, durations)


def _tidy(lines: list[str], home: str | None = None, durations: bool = False) -> list[str]:
    out = []
    for line in lines:
        line = _ANSI.sub("", line)
        if home:
            line = line.replace(home, SHOWN_HOME)
        line = line.rstrip()
        out.append(line if durations else _DURATION.sub("<duration>", line))
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    parts = []
    for line in expected:
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            pieces = [re.escape(p) for p in line.split("[...]")]
            parts.append(r"[^\n]*?".join(pieces) + r"\n")
    return re.fullmatch("".join(parts), "".join(a + "\n" for a in actual)) is not None


@dataclass
class Ran:
    """What one command did: its lines on each stream, each with the order in which the
    terminals received it, and its exit code (None: it never finished)."""

    stdout: list[tuple[int, str]] = field(default_factory=list)
    stderr: list[tuple[int, str]] = field(default_factory=list)
    exit: int | None = None


def run_in_ptys(script: str, cwd: Path, env: dict[str, str], columns: int) -> list:
    """Run `script` with bash, standard output and standard error on two terminals of the
    same size; what each sent, as (stream, bytes) in the order they arrived."""
    import fcntl
    import signal
    import struct
    import termios

    ends = {}
    for stream in ("stdout", "stderr"):
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
        ends[stream] = (master, slave)
    proc = subprocess.Popen(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=ends["stdout"][1],
        stderr=ends["stderr"][1],
        start_new_session=True,
    )
    for _, slave in ends.values():
        os.close(slave)
    open_ = {master: stream for stream, (master, _) in ends.items()}
    received = []
    deadline = time.monotonic() + 120
    try:
        while open_:
            ready, _, _ = select.select(list(open_), [], [], 0.1)
            for fd in ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:  # EIO: every writer closed the terminal
                    data = b""
                if data:
                    received.append((open_[fd], data))
                else:
                    del open_[fd]
            if not ready and proc.poll() is not None:
                break  # the shell is done; what it left running in the background is not
            if time.monotonic() > deadline:
                raise AssertionError("a documented command ran for more than 120 s")
    finally:
        for master, _ in ends.values():
            os.close(master)
        # The block's whole process group: a command it started in the background (or one
        # that never ends, killed above) must not outlive the test.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    return received


def split_runs(received: list, steps: int) -> list[Ran]:
    """Each command's lines per stream (in arrival order) and exit code, from the markers
    the script wrote around it."""
    runs = [Ran() for _ in range(steps)]
    for stream in ("stdout", "stderr"):
        data, ends = b"", []  # ends: where each arrival ends in `data`, and its number
        for seq, (name, chunk) in enumerate(received):
            if name == stream:
                data += chunk
                ends.append((len(data), seq))
        if not ends:
            continue
        text_at = 0
        current, pending = None, ""
        for raw in data.split(b"\n"):
            text_at += len(raw) + 1
            seq = ends[min(bisect.bisect_left(ends, (text_at, -1)), len(ends) - 1)][1]
            line = raw.decode("utf-8", errors="replace").removesuffix("\r")
            for piece in _MARKS.split(line):
                if piece.startswith(_STEP):
                    if current is not None and pending:
                        getattr(runs[current], stream).append((seq, pending))
                    current, pending = int(piece.strip(_STEP)), ""
                elif piece.startswith(_CODE):
                    if current is not None:
                        if pending:
                            getattr(runs[current], stream).append((seq, pending))
                        runs[current].exit = int(piece.strip(_CODE))
                    pending = ""
                else:
                    pending += piece
            if current is not None:
                for part in pending.split("\r"):  # a bare return redraws: a line of its own
                    getattr(runs[current], stream).append((seq, part))
            pending = ""
    return runs


@functools.cache
def _runtime() -> str:
    """A runtime folder of the blocks' own: the user's resident (serve/pool.py) lives in
    $XDG_RUNTIME_DIR, and one running on this machine would answer the blocks' recalls and
    show in their `mem status`. Short, for a socket's path."""
    path = tempfile.mkdtemp(prefix="memdocs-", dir="/tmp" if os.name == "posix" else None)
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


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
        XDG_RUNTIME_DIR=_runtime(),
    )
    return env


def chain(block: Block, blocks: list[Block]) -> list[Block]:
    """The blocks whose state this one continues, first to last, itself included: back to
    the last `fresh` or `start` block, or from the document's `start` block. Only blocks
    that run take part (a ```bash block between two console blocks is no link)."""
    blocks = [b for b in blocks if b.kind in ("console", "python")]
    at = blocks.index(block)
    if "continue" in block.options:
        start = at
        while start > 0 and "continue" in blocks[start].options:
            start -= 1
        assert start < at, f"{block.where()}: `continue` with no block before it"
        return chain(blocks[start], blocks) + blocks[start + 1 : at + 1]
    if block.options.keys() & {"fresh", "start"}:
        return [block]
    starts = [b for b in blocks if "start" in b.options]
    assert len(starts) == 1, (
        f"{block.where()}: neither `fresh` nor `continue`, and the document has "
        f"{len(starts)} `start` blocks (it needs one to begin from)"
    )
    return [starts[0], block]


def run_block(block: Block, home: Path) -> list[Ran]:
    """Run one block's commands in `home`, from the directory the block before it in the
    chain left (a `fresh` or `start` block: the home); where it ends is kept for the next."""
    env = _environment(home, block.options.get("now", NOW))
    where = Path(f"{home}.cwd")  # beside the home, not in it: nothing a command could list
    cwd = home
    if "continue" in block.options or not block.options.keys() & {"fresh", "start"}:
        with contextlib.suppress(OSError):
            cwd = Path(where.read_text(encoding="utf-8").strip())
    script = ["set +e", f"cd {shlex.quote(str(cwd))} 2>/dev/null || cd"]
    for n, step in enumerate(block.steps):
        script.append(f"printf '{_STEP}{n}{_STEP}\\n'; printf '{_STEP}{n}{_STEP}\\n' >&2")
        script.append(step.command)
        script.append(f"printf '{_CODE}%d{_CODE}\\n' \"$?\"")
    script.append(f"pwd > {shlex.quote(str(where))}")
    columns = int(block.options.get("columns", "100"))
    received = run_in_ptys("\n".join(script) + "\n", home, env, columns)
    return split_runs(received, len(block.steps))


def failures(block: Block, runs: list[Ran], home: Path) -> list[str]:
    """What differs between the block and what its commands did: exit codes always; the
    two streams for a console block."""
    out = []
    for step, ran in zip(block.steps, runs, strict=True):
        said = []
        if ran.exit != step.exit:
            shown = "did not finish" if ran.exit is None else f"exits {ran.exit}"
            said.append(f"--- the document shows exit {step.exit}; the program {shown}")
        if block.kind == "console":
            for stream in ("stdout", "stderr"):
                expected = _tidy(getattr(step, stream))
                actual = _tidy([text for _, text in getattr(ran, stream)], str(home))
                if not matches(expected, actual):
                    said.append(
                        f"--- {stream}: the document shows\n"
                        + "\n".join(expected)
                        + f"\n--- {stream}: the program prints\n"
                        + "\n".join(actual)
                    )
        elif ran.exit != step.exit:  # a python block: why it failed
            said.append("\n".join(text for _, text in ran.stderr)[-3000:])
        if said:
            out.append(f"$ {step.command.split(chr(10))[0]}\n" + "\n".join(said))
    return out


def rewritten(block: Block, runs: list[Ran], home: Path) -> str:
    """The console block as its commands ran: each stream's lines in the order they came,
    standard error's marked, and a non-zero exit code."""
    body = []
    for step, ran in zip(block.steps, runs, strict=True):
        body.append(step.shown())
        lines = []
        for stream in ("stdout", "stderr"):
            got = getattr(ran, stream)
            kept = _tidy([text for _, text in got], str(home), durations=True)
            # _tidy dropped blank lines at the ends only: the first kept line is at `lead`
            lead = next((i for i, (_, t) in enumerate(got) if _ANSI.sub("", t).strip()), 0)
            for i, text in enumerate(kept):
                seq = got[lead + i][0] if lead + i < len(got) else 0
                lines.append((seq, stream == "stderr", text))
        for _, to_stderr, text in sorted(lines, key=lambda x: (x[0], x[1])):
            text = text.replace("\x1b", "")
            body.append(f"{STDERR} {text}".rstrip() if to_stderr else text)
        if ran.exit:
            body.append(f"[exit {ran.exit}]")
    return "```console\n" + "\n".join(body) + "\n```"


@pytest.fixture(scope="module")
def homes():
    """The homes blocks ran in, and per document the last block run and where: a
    `continue` block carries on there. Each is /tmp/XXXX: as long as /home/lin, so a
    terminal wraps the lines that hold it where the document does."""
    made: dict[str, tuple[Path, Block | None]] = {}
    yield made
    for home in {home for home, _ in made.values()}:
        shutil.rmtree(home, ignore_errors=True)
        Path(f"{home}.cwd").unlink(missing_ok=True)


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


def run_in_chain(block: Block, blocks: list[Block], homes: dict) -> tuple[Path, list[Ran]]:
    """Run the block after the blocks it continues. When the block before it ran here last,
    that state is at hand; otherwise (another worker ran it, or -k picked this one) the
    chain runs again first, in a home of its own."""
    steps = chain(block, blocks)
    previous = homes.get(str(block.path))
    if len(steps) > 1 and previous is not None and previous[1] is steps[-2]:
        home = previous[0]
    else:
        home = _short_home()
        homes[home.name] = (home, None)  # removed at the end, whatever ran in it
        for earlier in steps[:-1]:
            run_block(earlier, home)
    runs = run_block(block, home)
    homes[str(block.path)] = (home, block)
    return home, runs


@pytest.mark.parametrize("block", RUN, ids=[b.name for b in RUN])
def test_block(block: Block, homes) -> None:
    assert not block.problem, block.problem
    home, runs = run_in_chain(block, BY_DOC[block.path], homes)
    wrong = failures(block, runs, home)
    rewrite = os.environ.get("UPDATE_DOCS") == "1" and block.kind == "console"
    if wrong and rewrite and not _has_wildcards(block):
        _rewrite(block, rewritten(block, runs, home))
        pytest.skip("rewritten: review with git diff")
    assert not wrong, f"{block.name}\n" + "\n\n".join(wrong)


def _has_wildcards(block: Block) -> bool:
    return any(
        line.removeprefix(STDERR).strip() == "..." or "[...]" in line
        for step in block.steps
        for line in step.expected
    )


def _rewrite(block: Block, new: str) -> None:
    text = block.path.read_text(encoding="utf-8")
    assert text.count(block.text) == 1, f"{block.name}: block not found once"
    tmp = block.path.with_suffix(".md.tmp")
    tmp.write_text(text.replace(block.text, new), encoding="utf-8")
    os.replace(tmp, block.path)


def toml_problems(block: Block, tmp: Path) -> list[str]:
    """A ```toml block as mem.toml: what does not parse, is no setting, or holds a value
    the setting refuses."""
    import tomllib

    from openclaw_mem import config
    from openclaw_mem.errors import MemError

    try:
        tomllib.loads(block.body)
    except tomllib.TOMLDecodeError as exc:
        return [f"{block.where()}: not TOML: {exc}"]
    (tmp / "mem.toml").write_text(block.body, encoding="utf-8")
    found = config.read_config_file(tmp / "mem.toml")
    problems = []
    for name in found:
        try:
            config.key(name)
        except MemError as exc:
            problems.append(f"{block.where()}: {exc.message}")
    if not problems:  # a bad value is a warning to mem (never a refusal), an error here
        loaded = config.load_config(tmp, {"MEM_TRUST_FILE": str(tmp / "trusted.json")})
        problems += [f"{block.where()}: {message}" for _, message, _ in loaded.problems]
    if not found:
        problems.append(f"{block.where()}: sets no setting")
    return problems


_PUNCTUATION = {"|", "||", "&&", ";", "&", "(", ")", ">", ">>", "<", "<<", "|&"}


def mem_commands(script: str) -> list[list[str]]:
    """Every `mem …` command line of a shell script, as words (up to a pipe, `;`, `&&`,
    a redirection or the end of the line)."""
    found = []
    for line in script.split("\n"):
        lex = shlex.shlex(line, posix=True, punctuation_chars=True)
        lex.whitespace_split = True
        lex.commenters = "#"
        words = list(lex)
        at_start = True
        i = 0
        while i < len(words):
            word = words[i]
            if word in _PUNCTUATION:
                at_start = True
            elif at_start and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word):
                pass  # VAR=value before the command
            elif at_start and word in ("export", "env"):
                pass
            elif at_start and word == "mem":
                j = i + 1
                while j < len(words) and words[j] not in _PUNCTUATION:
                    j += 1
                found.append(words[i:j])
                i = j
                continue
            else:
                at_start = False
            i += 1
    return found


def bash_problems(block: Block, tmp: Path) -> list[str]:
    """A ```bash block, checked without running it: its syntax, and each `mem` command's
    name and options (as `mem … --help` takes them, in an empty home)."""
    syntax = subprocess.run(["bash", "-n"], input=block.body, capture_output=True, text=True)
    if syntax.returncode:
        return [f"{block.where()}: bash -n: {syntax.stderr.strip()}"]
    problems = []
    env = _environment(tmp, NOW)
    for words in mem_commands(block.body):
        done = subprocess.run(
            [*words, "--help"], capture_output=True, text=True, env=env, cwd=tmp, timeout=60
        )
        if done.returncode:
            problems.append(f"{block.where()}: {shlex.join(words)}: {done.stderr.strip()}")
    return problems


CHECKED = [b for b in BLOCKS if b.kind in ("toml", "bash", "json")]


@pytest.mark.parametrize("block", CHECKED, ids=[b.name for b in CHECKED])
def test_block_checked_without_running(block: Block, tmp_path) -> None:
    assert not block.problem, block.problem
    if block.kind == "toml":
        problems = toml_problems(block, tmp_path)
    elif block.kind == "bash":
        problems = bash_problems(block, tmp_path)
    else:
        try:
            json.loads(block.body)
            problems = []
        except ValueError as exc:
            problems = [f"{block.where()}: not JSON: {exc}"]
    assert not problems, "\n".join(problems)


def test_the_settings_table_is_the_registry() -> None:
    """configuration.md's table names every setting once, with the default `mem init`
    writes for it, and its list of what counts before `mem trust` is the allow-list."""
    from openclaw_mem import config

    text = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z_]+\.[a-z_]+)` \| `([^`]*)` \|", text, re.M)
    assert sorted(name for name, _ in rows) == sorted(k.name for k in config.KEYS)
    for name, shown in rows:
        assert shown == config._toml_value(config.key(name).default), name
    section = text.split("## Which settings count before `mem trust`")[1]
    names = section.split("nor drop anything:")[1].split("Every other key")[0]
    listed = set(re.findall(r"`([a-z_]+\.[a-z_*]+)`", names))
    recall = {k for k in config.UNTRUSTED_OK if k.startswith("recall.")}
    assert "recall.*" in listed
    assert listed - {"recall.*"} == set(config.UNTRUSTED_OK) - recall


def _prose(path: Path) -> list[str]:
    """A document's lines outside its fenced blocks."""
    out, fenced = [], False
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.lstrip().startswith("```") and not line.lstrip().startswith("````"):
            fenced = not fenced
        elif not fenced:
            out.append(line)
    return out


def _anchors(path: Path) -> set[str]:
    """The anchors GitHub gives a document's headings."""
    heads = [m[1] for m in (re.match(r"#+ (.*)$", line) for line in _prose(path)) if m]
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def test_every_relative_link_leads_to_a_file_and_heading() -> None:
    broken = []
    for doc in DOCS:
        prose = re.sub(r"`[^`\n]*`", "", "\n".join(_prose(doc)))  # in code: not a link
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            path, _, anchor = target.partition("#")
            found = doc.parent / path if path else doc
            if not found.exists():
                broken.append(f"{doc.name}: {target} (no such file)")
            elif anchor and found.suffix == ".md" and anchor not in _anchors(found):
                broken.append(f"{doc.name}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_every_document_has_console_blocks_the_harness_reads() -> None:
    names = {b.path.name for b in BLOCKS if b.kind == "console"}
    assert {"README.md", "commands.md", "guide.md"} <= names, names
    assert {b.kind for b in BLOCKS} >= {"console", "python", "toml", "bash"}


# The harness itself, on documents written here: each check must fail when it should.


def _doc(tmp_path: Path, text: str) -> list[Block]:
    path = tmp_path / "doc.md"
    path.write_text(text, encoding="utf-8")
    blocks = collect(path)
    for block in blocks:
        if block.problem:
            raise AssertionError(block.problem)
    return blocks


def _check(blocks: list[Block], at: int = -1) -> list[str]:
    """Run one synthetic block (after those it continues) and say what differs."""
    made: dict = {}
    try:
        home, runs = run_in_chain(blocks[at], blocks, made)
        return failures(blocks[at], runs, home)
    finally:
        for home, _ in made.values():
            shutil.rmtree(home, ignore_errors=True)
            Path(f"{home}.cwd").unlink(missing_ok=True)


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


def test_a_block_whose_exit_code_differs_from_the_shown_one_fails(tmp_path) -> None:
    fence = "<!-- docs: fresh -->\n```console\n"
    right = _doc(tmp_path, fence + "$ echo no; sh -c 'exit 3'\nno\n[exit 3]\n```\n")
    assert right[0].steps[0].exit == 3 and right[0].steps[0].expected == ["no"]
    assert _check(right) == []
    other = _doc(tmp_path, fence + "$ echo no; sh -c 'exit 3'\nno\n[exit 2]\n```\n")
    assert any("shows exit 2; the program exits 3" in f for f in _check(other))
    unshown = _doc(tmp_path, fence + "$ echo no; false\nno\n```\n")
    assert any("shows exit 0; the program exits 1" in f for f in _check(unshown))
    claimed = _doc(tmp_path, fence + "$ echo yes\nyes\n[exit 1]\n```\n")
    assert any("shows exit 1; the program exits 0" in f for f in _check(claimed))
    with pytest.raises(AssertionError, match="last line"):
        _doc(tmp_path, fence + "$ false\n[exit 1]\nmore\n```\n")


def test_a_line_shown_on_the_wrong_stream_fails(tmp_path) -> None:
    fence = "<!-- docs: fresh -->\n```console\n"
    command = "$ echo to-out; echo to-err >&2; echo out-again\n"
    right = _doc(tmp_path, fence + command + "to-out\n[stderr] to-err\nout-again\n```\n")
    assert right[0].steps[0].stderr == ["to-err"]
    assert _check(right) == []
    merged = _doc(tmp_path, fence + command + "to-out\nto-err\nout-again\n```\n")
    assert any("stderr: the program prints\nto-err" in f for f in _check(merged))
    moved = _doc(tmp_path, fence + command + "[stderr] to-out\n[stderr] to-err\nout-again\n```\n")
    assert _check(moved)
    hidden = _doc(tmp_path, fence + command + "to-out\nout-again\n```\n")
    assert _check(hidden)


def test_a_rewritten_block_shows_streams_in_order_and_the_exit_code(tmp_path) -> None:
    blocks = _doc(
        tmp_path,
        "<!-- docs: fresh -->\n```console\n"
        "$ echo first; sleep 0.2; echo warned >&2; sleep 0.2; echo last; sh -c 'exit 4'\n"
        "stale\n```\n",
    )
    made: dict = {}
    try:
        home, runs = run_in_chain(blocks[0], blocks, made)
        new = rewritten(blocks[0], runs, home)
    finally:
        for home, _ in made.values():
            shutil.rmtree(home, ignore_errors=True)
    assert new.split("\n")[2:-1] == ["first", "[stderr] warned", "last", "[exit 4]"]
    again = _doc(tmp_path, "<!-- docs: fresh -->\n" + new + "\n")
    assert _check(again) == []


def test_set_up_a_reader_cannot_see_is_refused(tmp_path) -> None:
    with pytest.raises(AssertionError, match="cannot see"):
        _doc(tmp_path, "<!-- docs: fresh\ngit init -q\n-->\n```console\n$ true\n```\n")
    with pytest.raises(AssertionError, match="unknown docs option"):
        _doc(tmp_path, "<!-- docs: fresh setup=make -->\n```console\n$ true\n```\n")


def test_continued_blocks_share_the_home_and_the_directory(tmp_path) -> None:
    blocks = _doc(
        tmp_path,
        "<!-- docs: fresh -->\n```console\n$ mkdir -p a/b && cd a/b\n$ cat > note <<'EOF'\n"
        "> two lines\n> of text\n> EOF\n$ echo done\ndone\n```\n"
        "<!-- docs: continue -->\n```console\n$ pwd\n/home/lin/a/b\n$ wc -l < note\n2\n```\n",
    )
    assert blocks[0].steps[1].command == "cat > note <<'EOF'\ntwo lines\nof text\nEOF"
    assert blocks[0].steps[1].expected == []
    assert _check(blocks, at=1) == []
    wrong = _doc(
        tmp_path,
        blocks[0].text.join(["<!-- docs: fresh -->\n", "\n"])
        + "<!-- docs: continue -->\n```console\n$ pwd\n/home/lin\n```\n",
    )
    assert _check(wrong, at=1)


def test_a_python_block_that_raises_fails_and_one_that_runs_passes(tmp_path) -> None:
    fence = "<!-- docs: fresh -->\n```python\n"
    good = _doc(tmp_path, fence + "import openclaw_mem\nprint(openclaw_mem.Memory)\n```\n")
    assert _check(good) == []
    bad = _doc(tmp_path, fence + "raise SystemExit('the example is wrong')\n```\n")
    assert any("the example is wrong" in f for f in _check(bad))


def test_a_toml_block_with_no_such_setting_or_a_bad_value_fails(tmp_path) -> None:
    def problems(text: str) -> list[str]:
        return toml_problems(_doc(tmp_path, f"```toml\n{text}\n```\n")[0], tmp_path)

    assert problems('[git]\nautocommit = "log"\n[recall]\nk = 3') == []
    assert any("unknown setting" in p for p in problems('[git]\nautocomit = "log"'))
    assert any("git.autocommit" in p for p in problems('[git]\nautocommit = "sometimes"'))
    assert any("recall.k" in p for p in problems("[recall]\nk = 0"))
    assert any("not TOML" in p for p in problems("[git\nautocommit = 1"))


def test_a_bash_block_is_checked_for_real_commands_and_options(tmp_path) -> None:
    def problems(text: str) -> list[str]:
        return bash_problems(_doc(tmp_path, f"```bash\n{text}\n```\n")[0], tmp_path)

    assert mem_commands("OPENAI_API_KEY=x mem consolidate --model m | tee out; mem status") == [
        ["mem", "consolidate", "--model", "m"],
        ["mem", "status"],
    ]
    assert problems("pip install nothing-here && mem demo  # a comment --nope") == []
    assert any("--nope" in p for p in problems("mem consolidate --nope"))
    assert any("bash -n" in p for p in problems("if then fi ("))


def test_a_block_leaves_no_process_behind(tmp_path):
    """A command a block starts in the background ends with the block (the harness kills
    the block's process group): no watcher outlives the docs' test."""
    marker = f"sleep 301.{os.getpid() % 1000}"  # a float sleep, its own name for pgrep
    got = run_in_ptys(f"{marker} &\necho started\n", tmp_path, dict(os.environ), 80)
    assert b"started" in b"".join(data for _, data in got)
    time.sleep(0.2)
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout
    assert left.strip() == ""
