"""Recall speed on synthetic workspaces: years of mixed Chinese/English daily logs.

    python bench/recall_speed.py                 # 1k, 10k and 100k chunks
    python bench/recall_speed.py --sizes 1000,10000 --runs 10

For each size it prints: the cold index build (MB/s of Markdown, chunks/s); the work of a
refresh with nothing changed and after one appended entry (in-process, ms); warm
`mem recall` process wall time (median over runs and queries); and ripgrep over the same
files as a floor, where rg is installed.

Targets (2-core reference machine): warm recall <= 250 ms at 10k chunks and <= 600 ms at
100k; a refresh after one append <= 150 ms of work; cold build >= 2 MB/s.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openclaw_mem.index import IndexParams, open_index
from openclaw_mem.logs import NewEntry, append_entries
from openclaw_mem.workspace import Workspace

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
QUERIES = (
    "redis 连接超时",
    "马拉松 training plan",
    "对账 settlement deadline",
    "kubernetes 部署 rollback",
)


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


def process_ms(cmd: list[str], runs: int) -> float:
    subprocess.run(cmd, capture_output=True, check=True)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - t)
    return median_ms(times)


def main() -> None:
    ap = argparse.ArgumentParser(description="recall speed on synthetic workspaces")
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    mem = shutil.which("mem")
    base = [mem] if mem else [sys.executable, "-m", "openclaw_mem"]
    rg = shutil.which("rg")
    params = IndexParams()
    print(
        f"{'chunks':>7} {'MB':>6} {'build s':>8} {'MB/s':>6} {'chunks/s':>9} {'fresh ms':>9} "
        f"{'append ms':>10} {'recall ms':>10} {'rg ms':>7} {'python ms':>10}"
    )
    floor = process_ms([sys.executable, "-c", "pass"], args.runs)
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = make_workspace(Path(tmp) / "ws", size)
            ws = Workspace(root)
            mb = sum(p.stat().st_size for p in ws.memory_files()) / 1e6
            t = time.perf_counter()
            index = open_index(ws, params, rebuild=True)
            build = time.perf_counter() - t
            n = index.n_live

            fresh = []
            for _ in range(args.runs):
                t = time.perf_counter()
                open_index(ws, params)
                fresh.append(time.perf_counter() - t)

            last = ws.day_files()[-1]
            day = date.fromisoformat(last.stem)
            appended = []
            for i in range(args.runs):
                append_entries(
                    last,
                    day,
                    [
                        NewEntry(
                            datetime.combine(day, datetime.min.time())
                            + timedelta(hours=20, minutes=i),
                            "user",
                            f"新的一条 entry {i}: redis 连接超时 again",
                        )
                    ],
                )
                t = time.perf_counter()
                open_index(ws, params)
                appended.append(time.perf_counter() - t)

            recall = statistics.median(
                process_ms([*base, "-w", str(root), "recall", "--json", q], args.runs)
                for q in QUERIES
            )
            rg_ms = (
                f"{process_ms([rg, '-c', '-i', 'redis', str(root / 'memory')], args.runs):.0f}"
                if rg
                else "-"
            )
            print(
                f"{n:>7} {mb:>6.1f} {build:>8.2f} {mb / build:>6.2f} {n / build:>9.0f} "
                f"{median_ms(fresh):>9.1f} {median_ms(appended):>10.1f} {recall:>10.0f} "
                f"{rg_ms:>7} {floor:>10.0f}"
            )


if __name__ == "__main__":
    main()
