"""Consolidation cost for a 500-entry backlog: calls made, tokens sent per entry, wall time,
with the offline provider and with a scripted OpenAI-compatible server on 127.0.0.1 (the
real openai client, no network, no key).

    python bench/consolidate.py [--entries 500] [--context 16000]
    python bench/consolidate.py --scale      # the offline provider on a 100k-entry backlog
                                             # and on one 80 KB entry without punctuation
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# bench/ leaves the path: its secrets.py would stand in for the standard library's.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from llm_server import ScriptedLLM, tool_call

from openclaw_mem.consolidate.providers import create
from openclaw_mem.consolidate.run import Options, consolidate
from openclaw_mem.format.logs import NewEntry, append_entries
from openclaw_mem.services.scaffold import init_workspace
from openclaw_mem.store.workspace import Workspace

SAYINGS = [
    "I prefer short answers with code first.",
    "我打算下个月学 Kubernetes。",
    "I'm using Redis Streams for the settlement queue.",
    "记住：周五下午不开会。",
    "The deploy failed again because of the migration lock.",
    "好的",
    "ok",
    "我喜欢用 Makefile 管理命令。",
    "Actually, the deadline moved to December 15.",
    "Lunch was noodles; the team liked the new place.",
    "Can you check the p99 latency?",
    "我们今天把对账服务的延迟从 820ms 降到了 310ms。",
    "I plan to write a blog post about it.",
]


def make_backlog(root: Path, n: int, seed: int = 3) -> None:
    rng = random.Random(seed)
    ws = Workspace(root)
    start = datetime(2026, 10, 1, 9, 0)
    per_day = 30
    for d in range(0, n, per_day):
        day = (start + timedelta(days=d // per_day)).date()
        entries = []
        for i in range(min(per_day, n - d)):
            when = datetime.combine(day, datetime.min.time()) + timedelta(hours=9, minutes=7 * i)
            role = "user" if i % 2 == 0 else "assistant"
            text = (
                rng.choice(SAYINGS)
                + " "
                + " ".join(
                    rng.choice(["detail", "细节", "note", "更新"])
                    for _ in range(rng.randint(0, 20))
                )
            )
            entries.append(NewEntry(when, role, text.strip()))
        append_entries(ws.day_file(day), day, entries)


def run(root: Path, provider_name: str, settings: dict, env: dict) -> tuple[float, object]:
    provider = create(provider_name, settings, env)
    opts = Options(now=datetime(2026, 11, 30, 12, 0))
    t = time.perf_counter()
    report = consolidate(Workspace(root), provider, opts)
    return time.perf_counter() - t, report


def scale() -> None:
    """Entries per second of the offline provider: rules that are linear in the text."""
    from openclaw_mem.consolidate.proposal import PromptEntry, Request
    from openclaw_mem.consolidate.providers.offline import OfflineProvider

    provider = OfflineProvider()
    words = ("settlement", "queue", "latency", "对账", "服务", "redis", "deploy", "我们")
    rng = random.Random(5)
    for kb in (20, 40, 80):
        text = " ".join(rng.choice(words) for _ in range(kb * 1024 // 7))[: kb * 1024]
        entry = PromptEntry(
            "memory/2026-11-30.md#L3-L4", datetime(2026, 11, 30, 9), "user", text, 1
        )
        start = time.perf_counter()
        provider.propose(Request((entry,), {}, datetime(2026, 11, 30, 10)))
        print(
            f"one {kb} KB entry without sentence punctuation: {time.perf_counter() - start:.3f} s"
        )
    with tempfile.TemporaryDirectory() as tmp:
        for n in (10_000, 100_000):
            root = Path(tmp) / f"scale-{n}"
            init_workspace(root, use_git=False)
            make_backlog(root, n)
            start = time.perf_counter()
            report = consolidate(
                Workspace(root),
                OfflineProvider(),
                Options(now=datetime(2026, 12, 31), commit=False),
            )
            seconds = time.perf_counter() - start
            print(
                f"a {n:,}-entry backlog: {seconds:.1f} s, {n / seconds:,.0f} entries/s, "
                f"{len(report.batches)} batch, {report.calls} call"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=500)
    ap.add_argument("--context", type=int, default=16000, help="llm.context_tokens")
    ap.add_argument("--scale", action="store_true", help="the offline provider at scale")
    args = ap.parse_args()
    if args.scale:
        return scale()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        init_workspace(base)
        make_backlog(base, args.entries)
        settings = {
            "model": "scripted",
            "base_url": "",
            "timeout": 30.0,
            "max_retries": 0,
            "context_tokens": args.context,
        }
        print(f"{args.entries} pending entries; llm.context_tokens = {args.context}")
        print(
            f"{'provider':<22} {'batches':>8} {'calls':>6} {'tokens/entry':>13} {'wall s':>7} "
            f"{'edits':>6}"
        )

        offline_ws = Path(tmp) / "offline"
        shutil.copytree(base, offline_ws)
        seconds, report = run(offline_ws, "offline", settings, {})
        edits = sum(b.counts()["added"] + b.counts()["deprecated"] for b in report.batches)
        print(
            f"{'offline':<22} {len(report.batches):>8} {report.calls:>6} {'0 (local)':>13} "
            f"{seconds:>7.2f} {edits:>6}"
        )

        server = ScriptedLLM()
        answer = tool_call(
            {"history_entry": "[2026-11-30 12:00] Backlog consolidated.", "edits": []}
        )
        server.push(*([answer] * 200))
        server_ws = Path(tmp) / "server"
        shutil.copytree(base, server_ws)
        settings["base_url"] = server.url
        seconds, report = run(server_ws, "openai", settings, {})
        per_entry = report.tokens_sent / max(args.entries, 1)
        print(
            f"{'openai (scripted)':<22} {len(report.batches):>8} {report.calls:>6} "
            f"{per_entry:>13.1f} {seconds:>7.2f} {'-':>6}"
        )
        server.close()


if __name__ == "__main__":
    main()
