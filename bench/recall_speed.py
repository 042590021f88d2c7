"""Recall speed on synthetic workspaces: years of mixed Chinese/English daily logs.

    python bench/recall_speed.py                 # 1k, 10k and 100k chunks, 7 runs each
    python bench/recall_speed.py --sizes 1000,10000 --runs 10

Every command runs as its own process, and the commands of one table run in turn (A B C A B
C ...), so that each ratio is taken round by round and a machine whose speed drifts (a
shared one) moves both sides of it. For each command the table gives the median wall time,
the median CPU time (user + sys of exactly that child, from os.wait4), the peak RSS of that
child (ru_maxrss), and the median of its per-round CPU ratios to `python -c pass` (this
interpreter: the floor for any Python process) and to the FTS5 query. Rows:

- `python -c pass`;
- SQLite FTS5 from Python (`bench/fts5_baseline.py`): an any-word query, best 10 by bm25,
  over a database the bench builds from the same workspace (one row per log entry): what a
  small tool built on SQLite would cost a turn;
- ripgrep, `rg -c -i redis memory/` (the floor for reading the same files without ranking),
  when rg is on PATH;
- qmd, `qmd search redis` over memory/ indexed as a qmd collection, when a working `qmd` is on
  PATH (`npm install -g @tobilu/qmd bun`: qmd runs under bun), with the ratios mem/qmd;
- `mem recall --no-daemon --json redis 连接超时`, warm, answered in-process;
- `mem recall --json redis 连接超时` answered by a resident `mem watch` over .mem/mem.sock,
  and `mem get` of a daily log's first lines the same way;
- `mem log --at 2026-11-30T09:00 "one more note"` (smallest size only).

It also prints, per size, the cold `mem index --rebuild` (MB of Markdown a second, wall),
the index on disk against the FTS5 database over the same entries, and the FTS5 build.
Children run with MEM_EMBED_PROVIDER=none (no embedding model) and HOME in a temporary
directory. A tool that is missing or fails is a note, not a crash. The benchmark process
itself imports nothing of openclaw_mem, so that it stays small: on Linux a child's
ru_maxrss can include its parent's RSS at the moment it was spawned.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

ENTRIES_PER_DAY = 30
EN = (
    "deploy service redis postgres kafka latency timeout retry cache index query schema "
    "migration worker queue stream consumer producer backend frontend api gateway token "
    "release rollback incident alert dashboard metric trace log budget review design plan "
    "meeting deadline customer invoice payment refund settlement report team manager "
    "coffee lunch running marathon weekend travel flight hotel family birthday gift book "
    "python golang rust typescript docker kubernetes terraform grafana prometheus nginx"
).split()
ZH = (
    "项目 部署 服务 数据库 缓存 超时 重试 索引 查询 迁移 消息 队列 延迟 告警 监控 指标 "
    "发布 回滚 故障 复盘 设计 计划 会议 截止 客户 发票 支付 退款 对账 报表 团队 经理 "
    "咖啡 午饭 跑步 马拉松 周末 旅行 航班 酒店 家人 生日 礼物 读书 学习 周报 需求 测试"
).split()
QUERY = ("redis", "连接超时")
TIMEOUT = 1800.0  # seconds for any one child
WATCH_READY = 600.0  # seconds for `mem watch` to load the index and say it is answering


def sentence(rng: random.Random) -> str:
    words = []
    for _ in range(rng.randint(8, 30)):
        if rng.random() < 0.35:
            words.append(rng.choice(ZH) + rng.choice(ZH))
        else:
            words.append(rng.choice(EN))
        if rng.random() < 0.05:
            words.append(f"#{rng.randint(1, 9999)}")
    return " ".join(words).capitalize() + "."


def make_workspace(root: Path, chunks: int, seed: int = 7) -> Path:
    rng = random.Random(seed)
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text(
        "# MEMORY\n\n## Facts\n\n- Synthetic workspace.\n", encoding="utf-8"
    )
    days = max(1, chunks // ENTRIES_PER_DAY)
    start = date(2026, 11, 30) - timedelta(days=days)
    for d in range(days):
        day = start + timedelta(days=d)
        out = [f"# {day.isoformat()}\n"]
        for i in range(ENTRIES_PER_DAY):
            role = "user" if i % 2 == 0 else "assistant"
            out.append(f"## {8 + i // 3:02d}:{(i * 7) % 60:02d} · {role}\n{sentence(rng)}\n")
        (root / "memory" / f"{day.isoformat()}.md").write_text(
            "\n".join(out) + "\n", encoding="utf-8"
        )
    return root


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


class ChildFailed(Exception):
    """A child exited with an unexpected status, timed out or could not start."""


@dataclass
class Sample:
    wall: float  # seconds
    cpu: float  # seconds, user + sys
    rss_kb: int  # ru_maxrss (KB on Linux)
    out: str = ""


@dataclass
class Row:
    name: str
    wall: list[float]
    cpu: list[float]
    rss_kb: int


class Runner:
    """Runs children one at a time, with rusage of exactly that child from os.wait4."""

    def __init__(self, scratch: Path, env: dict[str, str]) -> None:
        self.scratch = scratch
        self.env = env

    def once(
        self,
        cmd: list[str],
        *,
        cwd: Path | None = None,
        ok: tuple[int, ...] = (0,),
        env: dict[str, str] | None = None,
        keep: bool = False,
    ) -> Sample:
        out_path, err_path = self.scratch / "stdout", self.scratch / "stderr"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.perf_counter()
            try:
                proc = subprocess.Popen(
                    cmd,
                    cwd=cwd,
                    env=env or self.env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                )
            except OSError as exc:
                raise ChildFailed(f"{cmd[0]}: {exc}") from exc
            timer = threading.Timer(TIMEOUT, _kill, (proc.pid,))
            timer.start()
            try:
                _, status, usage = os.wait4(proc.pid, 0)
            finally:
                timer.cancel()
            wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # keep Popen from reaping again
        if proc.returncode not in ok:
            raise ChildFailed(
                f"`{' '.join(cmd[:3])} …` exited {proc.returncode}: {_tail(err_path, out_path)}"
            )
        text = out_path.read_text(encoding="utf-8", errors="replace") if keep else ""
        return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, text)

    def rotation(self, commands: list[tuple[str, list[str], dict]], runs: int) -> list[Row]:
        """The commands in turn, `runs` rounds after one warm-up round: run i of every row
        is from the same round, so ratios can be taken pair by pair."""
        for _, cmd, kw in commands:
            self.once(cmd, **kw)
        samples: list[list[Sample]] = [[] for _ in commands]
        for _ in range(runs):
            for got, (_, cmd, kw) in zip(samples, commands, strict=True):
                got.append(self.once(cmd, **kw))
        return [
            Row(name, [x.wall for x in got], [x.cpu for x in got], max(x.rss_kb for x in got))
            for got, (name, _, _) in zip(samples, commands, strict=True)
        ]

    def row(self, name: str, cmd: list[str], runs: int, **kw) -> Row:
        """One warm-up run, then `runs` timed ones."""
        self.once(cmd, **kw)
        samples = [self.once(cmd, **kw) for _ in range(runs)]
        return Row(
            name,
            [s.wall for s in samples],
            [s.cpu for s in samples],
            max(s.rss_kb for s in samples),
        )


def _kill(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def _tail(*paths: Path) -> str:
    for path in paths:
        with contextlib.suppress(OSError):
            lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
            if lines:
                return lines[-1].strip()[:200]
    return "no output"


class Resident:
    """`mem -w ROOT watch` in the background, ready once its first line says it answers."""

    def __init__(self, cmd: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            cmd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            encoding="utf-8",
        )
        self.first_line = ""
        self._ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        self._ready.wait(WATCH_READY)
        if "answering" not in self.first_line:
            self.stop()
            said = self.first_line.strip() or f"nothing within {WATCH_READY:.0f} s"
            raise ChildFailed(f"`mem watch` is not answering: {said}")

    def _read(self) -> None:
        self.first_line = self.proc.stdout.readline()
        self._ready.set()
        for _ in self.proc.stdout:  # keep draining: a chatty watcher never blocks on the pipe
            pass

    def stop(self) -> int | None:
        """SIGINT, then SIGKILL if it lingers; the watcher's own peak RSS in KB."""
        if self.proc.returncode is not None:
            return None
        with contextlib.suppress(OSError):
            self.proc.send_signal(signal.SIGINT)
        timer = threading.Timer(10.0, _kill, (self.proc.pid,))
        timer.start()
        try:
            _, status, usage = os.wait4(self.proc.pid, 0)
        finally:
            timer.cancel()
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        return usage.ru_maxrss


@dataclass
class Qmd:
    exe: str | None  # a qmd that runs
    why: str = ""  # else why there is none

    @classmethod
    def find(cls, runner: Runner) -> Qmd:
        exe = shutil.which("qmd")
        if not exe:
            return cls(None, "no `qmd` on PATH; npm install -g @tobilu/qmd bun")
        try:
            runner.once([exe, "--help"])
        except ChildFailed as exc:
            return cls(None, str(exc).split(": ", 1)[-1])
        return cls(exe)


def qmd_setup(runner: Runner, qmd: str, root: Path, state: Path) -> tuple[list[str], dict, float]:
    """Index ROOT/memory as a qmd collection (state under STATE): the search command, its
    environment and how long `collection add` took."""
    state.mkdir(parents=True)
    env = {
        **runner.env,
        "QMD_CONFIG_DIR": str(state / "config"),
        "XDG_CACHE_HOME": str(state / "cache"),
        "INDEX_PATH": str(state / "index.sqlite"),
        "PWD": str(root),
        "NO_COLOR": "1",
    }
    memory = str(root / "memory")
    add = [qmd, "collection", "add", memory, "--name", "memory", "--mask", "**/*.md"]
    build = runner.once(add, cwd=root, env=env).wall
    hits = runner.once([qmd, "search", "redis"], cwd=root, env=env, keep=True).out
    if "redis" not in hits.lower():
        raise ChildFailed(f"`qmd search redis` found nothing: {hits.strip()[:120]!r}")
    return [qmd, "search", "redis"], env, build


def paired(row: Row, base: Row) -> float:
    """The median of the per-round CPU ratios row / base (the two ran in turn)."""
    return statistics.median(a / max(b, 1e-9) for a, b in zip(row.cpu, base.cpu, strict=True))


def print_table(size: int, rows: list[Row], notes: list[str], refs: dict[str, Row]) -> None:
    """refs: the rows each ratio column divides by ("python", "FTS5", "qmd"), all from the
    same rotation as the rows they divide."""
    head = f"{'command':<52} {'wall ms':>8} {'CPU ms':>7} {'RSS MiB':>8}"
    head += "".join(f" {'CPU x ' + name:>11}" for name in refs)
    print(f"\n{size:,} chunks")
    print(head)
    print("-" * len(head))
    for r in rows:
        wall, cpu = statistics.median(r.wall), statistics.median(r.cpu)
        line = f"{r.name:<52} {wall * 1000:>8.1f} {cpu * 1000:>7.1f} {r.rss_kb / 1024:>8.1f}"
        for base in refs.values():
            same_round = len(base.cpu) == len(r.cpu) and r.name != base.name
            line += f" {paired(r, base):>11.2f}" if same_round else f" {'':>11}"
        print(line)
    for note in notes:
        print(f"  note: {note}")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  note: RSS floor {own:.1f} MiB = this script's peak (Linux charges it to children)")
    sys.stdout.flush()


def bare_note(runner: Runner, root: Path, query: list[str], runs: int) -> str:
    """The resident path on a bare interpreter (`python -S`: no site, so nothing preloaded),
    against `python -S -c pass`: the client's own imports and the launcher's `re`, without
    what a site's .pth files import for everyone (here, certifi's ~18 ms)."""
    package = Path(__file__).resolve().parent.parent
    client = (  # what pip's `mem` launcher runs, re and all
        f"import re, sys; sys.path.insert(0, {str(package)!r}); "
        "from openclaw_mem.entry import main; "
        "sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', 'mem'); sys.exit(main())"
    )
    cmd = [sys.executable, "-S", "-c", client, "-w", str(root), *query]
    try:
        if '"path"' not in runner.once(cmd, keep=True).out:
            return "bare interpreter: the resident path returned no results"
        floor = runner.row("python -S -c pass", [sys.executable, "-S", "-c", "pass"], runs)
        mem = runner.row("bare", cmd, runs)
    except ChildFailed as exc:
        return f"bare interpreter: failed ({exc})"
    f, m = statistics.median(floor.wall), statistics.median(mem.wall)
    return (
        f"bare interpreter: `python -S -c pass` {f * 1000:.1f} ms, the resident path "
        f"{m * 1000:.1f} ms ({m / f:.2f}x; CPU {statistics.median(mem.cpu) * 1000:.1f} ms)"
    )


def bench_size(
    runner: Runner, size: int, runs: int, tmp: Path, mem: list[str], qmd: Qmd, smallest: bool
) -> None:
    root = make_workspace(tmp / f"ws{size}", size)
    mb = sum(p.stat().st_size for p in (root / "memory").glob("*.md")) / 1e6
    ws = [*mem, "-w", str(root)]
    notes: list[str] = []

    try:
        cold = runner.once([*ws, "index", "--rebuild", "--json"], keep=True)
        chunks = json.loads(cold.out).get("chunks", "?")
        print(
            f"\n{size:,} chunks: cold `mem index --rebuild`: {cold.wall:.2f} s wall, "
            f"{cold.cpu:.2f} s CPU, {cold.rss_kb / 1024:.0f} MiB peak RSS "
            f"({chunks} chunks, {mb:.1f} MB of Markdown, {mb / cold.wall:.2f} MB/s)"
        )
    except (ChildFailed, ValueError) as exc:
        print(f"\n{size:,} chunks: cold `mem index --rebuild` failed: {exc}")
        return

    index_mb = _tree_bytes(root / ".mem" / "index") / 1e6
    fts_db = tmp / f"fts{size}.db"
    fts = [sys.executable, str(Path(__file__).with_name("fts5_baseline.py"))]
    try:
        built = runner.once([*fts, "build", str(root), str(fts_db)])
        fts_mb = fts_db.stat().st_size / 1e6
        print(
            f"  index on disk {index_mb:.1f} MB = {index_mb / fts_mb:.2f} x the FTS5 database "
            f"over the same entries ({fts_mb:.1f} MB, built in {built.wall:.2f} s, "
            f"{mb / built.wall:.1f} MB/s)"
        )
    except ChildFailed as exc:
        print(f"  index on disk {index_mb:.1f} MB; FTS5 build failed: {exc}")
        fts_db = None

    pass_cmd = ("python -c pass", [sys.executable, "-c", "pass"], {})
    commands = [pass_cmd]
    if fts_db is not None:
        commands.append(
            ("FTS5 any-word query (Python sqlite3)", [*fts, "query", str(fts_db), *QUERY], {})
        )
    rg = shutil.which("rg")
    if rg:
        commands.append(
            (
                "rg -c -i redis memory/",
                [rg, "-c", "-i", "redis", "memory/"],
                {"cwd": root, "ok": (0, 1)},
            )
        )
    else:
        notes.append("rg: not on PATH, skipped")
    if qmd.exe:
        try:
            cmd, env, build = qmd_setup(runner, qmd.exe, root, tmp / f"qmd{size}")
            commands.append(("qmd search redis", cmd, {"cwd": root, "env": env}))
            notes.append(f"qmd: `collection add` (index) took {build:.2f} s")
        except ChildFailed as exc:
            notes.append(f"qmd: not available ({exc})")
    else:
        notes.append(f"qmd: not available ({qmd.why})")
    in_process = [*ws, "recall", "--no-daemon", "--json", *QUERY]
    try:
        if '"path"' not in runner.once(in_process, keep=True).out:
            notes.append("mem recall returned no results")
        commands.append(("mem recall --no-daemon --json (in-process)", in_process, {}))
    except ChildFailed as exc:
        notes.append(f"mem recall --no-daemon: failed ({exc})")
    if smallest:
        log = [*ws, "log", "--at", "2026-11-30T09:00", "one more note"]
        commands.append(('mem log --at 2026-11-30T09:00 "one more note"', log, {}))
    try:
        rows = runner.rotation(commands, runs)
    except ChildFailed as exc:
        print(f"\n{size:,} chunks: {exc}")
        return
    by_name = {r.name: r for r in rows}
    refs = {"python": rows[0]}
    for label, name in (("FTS5", commands[1][0] if fts_db else ""), ("qmd", "qmd search redis")):
        if name in by_name:
            refs[label] = by_name[name]
    print_table(size, rows, notes, refs)

    notes = []
    query = ["recall", "--json", *QUERY]
    try:
        t = time.perf_counter()
        resident = Resident([*ws, "watch", "--debounce", "0.2"], runner.env)
        ready = time.perf_counter() - t
        try:
            spec = f"{min((root / 'memory').glob('*.md')).relative_to(root).as_posix()}:1:3"
            rows = runner.rotation(
                [
                    pass_cmd,
                    ("mem recall --json (resident `mem watch`)", [*ws, *query], {}),
                    ("mem get PATH:1:3 (resident)", [*ws, "get", spec], {}),
                ],
                runs,
            )
            notes.append(bare_note(runner, root, query, runs))
        finally:
            watch_kb = resident.stop()
        notes.append(
            f"`mem watch` answered after {ready:.2f} s"
            + (f", its own peak RSS {watch_kb / 1024:.0f} MiB" if watch_kb else "")
        )
        print_table(size, rows, notes, {"python": rows[0]})
    except ChildFailed as exc:
        print(f"  note: resident recall: failed ({exc})")


def _tree_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000", help="chunks, comma-separated")
    ap.add_argument("--runs", type=int, default=7, help="timed runs per command")
    args = ap.parse_args()
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:  # started in the background:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # let `mem watch` hear SIGINT
    sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())

    exe = shutil.which("mem")
    mem = [exe] if exe else [sys.executable, "-m", "openclaw_mem"]
    with tempfile.TemporaryDirectory(prefix="mem-bench-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "home").mkdir()
        (tmp / "scratch").mkdir()
        env = {**os.environ, "MEM_EMBED_PROVIDER": "none", "HOME": str(tmp / "home")}
        env.pop("MEM_WORKSPACE", None)
        # An installed package has its bytecode; with PYTHONDONTWRITEBYTECODE set and stale
        # .pyc files (an editable install after an edit) every call would compile mem's
        # modules from source (~20 ms) and the table would measure that.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        import openclaw_mem

        package = Path(openclaw_mem.__file__).parent
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=False)
        runner = Runner(tmp / "scratch", env)

        qmd = Qmd.find(runner)
        if qmd.why:
            print(f"qmd: not available ({qmd.why})")
        print(
            f"{sys.executable} ({sys.version.split()[0]}); mem = {' '.join(mem)}; runs={args.runs}"
        )

        for size in sizes:
            bench_size(runner, size, args.runs, tmp, mem, qmd, size == sizes[0])
            shutil.rmtree(tmp / f"ws{size}", ignore_errors=True)
            shutil.rmtree(tmp / f"qmd{size}", ignore_errors=True)
            with contextlib.suppress(OSError):
                (tmp / f"fts{size}.db").unlink()


if __name__ == "__main__":
    main()
