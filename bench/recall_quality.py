"""Recall quality on LoCoMo (or on your own workspace and questions).

    python bench/recall_quality.py                       # ../shared/bench/locomo/locomo_dev5.json
    python bench/recall_quality.py --data PATH.json      # another LoCoMo-format file
    python bench/recall_quality.py --workspace DIR --questions Q.jsonl [--now 2026-12-01]

LoCoMo conversations become workspaces: one daily log per session date, one entry per turn
(`## HH:MM · Speaker`, the text, and an image turn's caption). A question's recall@k is the
share of its evidence turns whose lines lie inside the line ranges of the top k results,
averaged over questions of categories 1-4 (5, adversarial, has no evidence). Each k is a
separate `recall -k K` (the candidate pool is k x 4). "now" is the day after the last session.

A questions file for your own workspace holds one JSON object a line:
    {"question": "...", "evidence": ["memory/2026-11-05.md#L9-L10", ...], "category": "any"}
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openclaw_mem.index import IndexParams, open_index
from openclaw_mem.logs import NewEntry, append_entries
from openclaw_mem.recall import RecallOptions, rank_index
from openclaw_mem.workspace import Workspace

KS = (1, 3, 5, 10)
DEFAULT_DATA = (
    Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo" / "locomo_dev5.json"
)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE_RE = re.compile(r"D:?(\d+):(\d+)")


def parse_session_time(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")


def build_locomo_workspace(
    sample: dict, root: Path
) -> tuple[dict[str, tuple[str, int, int]], datetime]:
    """Write the conversation as daily logs; return dia_id -> (path, start, end) and 'now'."""
    conv = sample["conversation"]
    ws = Workspace(root)
    where: dict[str, tuple[str, int, int]] = {}
    last = datetime.min
    sessions = sorted(
        (int(k.split("_")[1]), k) for k in conv if re.fullmatch(r"session_\d+", k) and conv[k]
    )
    for _, key in sessions:
        start = parse_session_time(conv[f"{key}_date_time"])
        last = max(last, start)
        entries, ids = [], []
        for i, turn in enumerate(conv[key]):
            when = min(start + timedelta(minutes=i), start.replace(hour=23, minute=59))
            text = turn["text"]
            if turn.get("blip_caption"):
                text += f"\n[shares an image: {turn['blip_caption']}]"
            entries.append(NewEntry(when, turn["speaker"], text))
            ids.append(turn["dia_id"])
        path = ws.day_file(start.date())
        existing = path.read_text(encoding="utf-8") if path.exists() else ""
        append_entries(path, start.date(), entries)
        from openclaw_mem.logs import parse_log

        parsed = parse_log(path.read_text(encoding="utf-8"), start.date())
        fresh = [e for e in parsed if e.start_line > existing.count("\n")]
        assert len(fresh) == len(ids), (key, len(fresh), len(ids))
        for dia, e in zip(ids, fresh, strict=True):
            where[dia] = (ws.rel(path), e.start_line, e.end_line)
    now = datetime.combine(last.date() + timedelta(days=1), datetime.min.time())
    return where, now


def locomo_questions(sample: dict, where: dict) -> list[dict]:
    out = []
    for qa in sample["qa"]:
        if qa.get("category") not in CATEGORIES:
            continue
        ev = []
        for item in qa.get("evidence", []):
            for a, b in _EVIDENCE_RE.findall(str(item)):
                dia = f"D{int(a)}:{int(b)}"
                if dia in where:
                    ev.append(where[dia])
        if ev:
            out.append(
                {"question": qa["question"], "evidence": ev, "category": CATEGORIES[qa["category"]]}
            )
    return out


def own_questions(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        ev = []
        for cite in q["evidence"]:
            m = re.match(r"^(.+?)#L(\d+)(?:-L?(\d+))?$", cite)
            if m:
                ev.append((m[1], int(m[2]), int(m[3] or m[2])))
        out.append(
            {"question": q["question"], "evidence": ev, "category": str(q.get("category", "all"))}
        )
    return out


def recall_at(index, questions: list[dict], opts: RecallOptions, k: int) -> list[float]:
    start, end, pid = index.doc("start"), index.doc("end"), index.doc("path_id")
    scores = []
    for q in questions:
        ranked = rank_index(index, q["question"], replace(opts, k=k))
        got = [(index.paths[int(pid[d])], int(start[d]), int(end[d])) for d, _ in ranked[:k]]
        covered = sum(
            any(p == path and s >= lo and e <= hi for path, lo, hi in got)
            for p, s, e in q["evidence"]
        )
        scores.append(covered / len(q["evidence"]))
    return scores


# Knowledge updates: an older statement, the newer one that replaces it (days later), and a
# question both answer. The newer must rank above the older.
UPDATES = [
    (
        "My favourite editor is Vim, I use it for everything.",
        "I switched my editor to VS Code last week, Vim is gone.",
        "which editor do I use",
    ),
    (
        "I live in Shanghai, near Jing'an temple.",
        "I moved to Hangzhou, I live there now.",
        "where do I live",
    ),
    ("我用Python写后端服务。", "我现在主要用Go写后端，不再用Python了。", "后端用什么语言"),
    (
        "The Atlas deadline is the end of December.",
        "The Atlas deadline moved to December 15.",
        "Atlas deadline",
    ),
    (
        "Our team standup is at 10:00 every day.",
        "Standup moved to 9:30 starting Monday.",
        "when is the standup",
    ),
    (
        "I drink coffee every morning.",
        "I quit coffee, now I drink green tea in the morning.",
        "what do I drink in the morning",
    ),
    ("数据库用的是 PostgreSQL 14。", "数据库已经升级到 PostgreSQL 16 了。", "PostgreSQL 版本"),
    ("My manager is Chen Jing.", "My new manager is Li Na since the reorg.", "who is my manager"),
    (
        "I run 3 times a week.",
        "Now I run 5 times a week to train for the marathon.",
        "how often do I run",
    ),
    (
        "Our CI runs on Jenkins.",
        "We migrated CI from Jenkins to GitHub Actions.",
        "what do we use for CI",
    ),
    ("我住在北京朝阳区。", "我搬家了，现在住在上海浦东。", "我住在哪里"),
    (
        "API keys are rotated every 90 days.",
        "API key rotation is now every 30 days.",
        "how often are API keys rotated",
    ),
]


def knowledge_update_rate(
    sample: dict, root: Path, opts: RecallOptions, params: IndexParams
) -> float:
    """Share of UPDATES where the newer statement outranks the older one, planted in a
    LoCoMo conversation (the older in an early session, the newer 3-60 days later)."""
    where, now = build_locomo_workspace(sample, root)
    ws = Workspace(root)
    days = sorted({datetime.strptime(Path(p).stem, "%Y-%m-%d") for p, _, _ in where.values()})
    cites = []
    for i, (old, new, _q) in enumerate(UPDATES):
        t_old = days[(i * 3) % (len(days) // 2)] + timedelta(hours=8)
        t_new = t_old + timedelta(days=(3, 7, 14, 30, 60)[i % 5])
        got = []
        for when, text in ((t_old, old), (t_new, new)):
            res = append_entries(
                ws.day_file(when.date()), when.date(), [NewEntry(when, "user", text)]
            )
            got.append((ws.rel(res.path), res.start_line))
        cites.append(got)
    now = max(
        now,
        max(datetime.strptime(Path(c[1][0]).stem, "%Y-%m-%d") for c in cites) + timedelta(days=1),
    )
    index = open_index(ws, params)
    start, end, pid = index.doc("start"), index.doc("end"), index.doc("path_id")
    wins = 0
    for (_, _, query), ((p_old, l_old), (p_new, l_new)) in zip(UPDATES, cites, strict=True):
        ranked = rank_index(index, query, replace(opts, k=10, now=now))
        order = [(index.paths[int(pid[d])], int(start[d]), int(end[d])) for d, _ in ranked]
        pos = {}
        for rank, (p, lo, hi) in enumerate(order):
            for tag, (pp, ll) in (("old", (p_old, l_old)), ("new", (p_new, l_new))):
                if p == pp and lo <= ll <= hi and tag not in pos:
                    pos[tag] = rank
        wins += "new" in pos and pos["new"] < pos.get("old", 99)
    return wins / len(UPDATES)


VARIANTS = {
    "bm25 only": dict(mode="bm25", decay=False, use_mmr=False),
    "lsh only": dict(mode="lsh", decay=False, use_mmr=False),
    "hybrid": dict(mode="hybrid", decay=False, use_mmr=False),
    "hybrid+decay+mmr (defaults)": dict(),
}


def main() -> None:
    ap = argparse.ArgumentParser(description="evidence recall@k for the recall pipeline")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--workspace", type=Path, help="your own workspace instead of LoCoMo")
    ap.add_argument("--questions", type=Path, help="JSONL questions for --workspace")
    ap.add_argument("--now", help="ISO date for decay with --workspace (default: today)")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a RecallOptions field (e.g. decay_lambda=0.05) or an "
        "IndexParams field (e.g. stem=false)",
    )
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated subset")
    ap.add_argument(
        "--decay-sweep",
        help="comma-separated λ values: LoCoMo R@10 and the "
        "knowledge-update win rate for each (the trade-off behind the default)",
    )
    args = ap.parse_args()

    base_opts, params = RecallOptions(), IndexParams()
    for item in args.set:
        key, _, value = item.partition("=")
        target = base_opts if hasattr(base_opts, key) else params
        current = getattr(target, key)
        cast = (
            (lambda v: v.lower() in ("1", "true", "yes"))
            if isinstance(current, bool)
            else type(current)
        )
        if target is base_opts:
            base_opts = replace(base_opts, **{key: cast(value)})
        else:
            params = replace(params, **{key: cast(value)})

    sets: list[tuple[object, list[dict], datetime]] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        if args.workspace:
            ws = Workspace(args.workspace.resolve())
            now = datetime.fromisoformat(args.now) if args.now else datetime.now()
            sets.append((open_index(ws, params), own_questions(args.questions), now))
        else:
            data = json.loads(args.data.read_text(encoding="utf-8"))
            for sample in data:
                root = Path(tmp) / sample["sample_id"]
                where, now = build_locomo_workspace(sample, root)
                sets.append(
                    (open_index(Workspace(root), params), locomo_questions(sample, where), now)
                )
        build_s = time.perf_counter() - t0
        nq = sum(len(q) for _, q, _ in sets)
        print(
            f"{len(sets)} workspace(s), {nq} questions, indexed in {build_s:.1f} s; "
            f"options: {', '.join(args.set) or 'defaults'}"
        )
        print(f"{'variant':<30}" + "".join(f"{'R@' + str(k):>8}" for k in KS))
        per_cat: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
        for name in args.variants.split(","):
            opts = replace(base_opts, **VARIANTS[name])
            row = []
            for k in KS:
                allv = []
                for index, questions, now in sets:
                    vals = recall_at(index, questions, replace(opts, now=now), k)
                    allv += vals
                    if name == "hybrid+decay+mmr (defaults)":
                        for q, v in zip(questions, vals, strict=True):
                            per_cat[q["category"]][k].append(v)
                row.append(100 * sum(allv) / max(len(allv), 1))
            print(f"{name:<30}" + "".join(f"{v:>8.1f}" for v in row))
        if args.decay_sweep and not args.workspace:
            print("\ndecay trade-off (defaults otherwise):")
            print(f"  {'λ per day':>10} {'half-life':>10} {'LoCoMo R@10':>12} {'updates won':>12}")
            for lam in (float(x) for x in args.decay_sweep.split(",")):
                opts = replace(base_opts, decay_lambda=lam)
                allv = []
                for index, questions, now in sets:
                    allv += recall_at(index, questions, replace(opts, now=now), 10)
                ku = knowledge_update_rate(data[0], Path(tmp) / f"ku-{lam}", opts, params)
                half = f"{0.6931 / lam:.0f} d" if lam > 0 else "none"
                r10 = 100 * sum(allv) / len(allv)
                print(f"  {lam:>10g} {half:>10} {r10:>12.1f} {100 * ku:>11.0f}%")
        if per_cat:
            print("\nper category, defaults:")
            for cat, ks in sorted(per_cat.items()):
                n = len(ks[KS[0]])
                print(
                    f"  {cat + f' ({n})':<28}"
                    + "".join(f"{100 * sum(ks[k]) / n:>8.1f}" for k in KS)
                )
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
