"""What the agent is told after a fact changed or was forgotten: the currency bench.

    python bench/currency.py                          # offline and scripted model, none
    python bench/currency.py --embed local            # with the local embedding model
    python bench/currency.py --provider offline --part check --show

Every case (bench/currency_cases.py, invented) is a workspace of its own, driven through the
real `mem` command as an agent would drive it, with days of other talk around the facts and
the clock fixed after the last of them. An update case logs what the user said first and
what they said later; it passes, per check, when:
- **recall**: `mem recall Q -k 3` holds the current statement, and nothing stale ranks above
  it (stale: holds the case's stale word and not its fresh one);
- **context**: `mem context Q` states the current fact, and no stale line comes before it;
- the same two again after one consolidation of everything (`… after`);
- **curated**: after that consolidation the live lines of USER.md, MEMORY.md and AGENTS.md
  hold the fresh word and none holds the stale one;
- **curated, two runs**: the first statement consolidated on its own, the update logged and
  consolidated later: the new line is live, no stale line is, and the line the first run
  wrote of the old statement (when it wrote one) is struck through (deprecated).
A forget case logs a fact, consolidates it, runs `mem forget WORDS`, and passes when neither
`mem recall Q`, `mem recall Q --current` nor `mem context Q` shows the forgotten word, while
`mem recall Q --include-forgotten` still finds it for the person who asks.

Consolidation runs with the offline rules, or with a scripted model (`--provider scripted`):
a local OpenAI-compatible server (tests/llm_server.py) that answers as a careful model
would: each entry of the case (not the talk around it) becomes a line in the third person,
as an update of the line the prompt says it may update, when the prompt names one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from currency_cases import FILLER, FORGETS, UPDATES

MEM = str(Path(sys.executable).with_name("mem"))
STRUCK_RE = re.compile(r"^\s*[-*+]\s+~~")


def fmt(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M")


def parse(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M")


@dataclass
class Run:
    """One case's workspace and the `mem` it runs."""

    root: Path
    env: dict
    calls: list[str] = field(default_factory=list)

    def mem(self, *args: str, now: datetime, check: bool = False) -> subprocess.CompletedProcess:
        env = {**self.env, "MEM_NOW": fmt(now)}
        done = subprocess.run(
            [MEM, "-w", str(self.root), *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            env=env,
            timeout=300,
        )
        self.calls.append(" ".join(args[:2]))
        if check and done.returncode not in (0, 1):
            raise RuntimeError(f"mem {' '.join(args)}: {done.returncode} {done.stderr.strip()}")
        return done

    def log(self, when: datetime, role: str, text: str) -> None:
        self.mem("log", "--at", fmt(when), "--role", role, text, now=when, check=True)


def workspace(tmp: Path, embed: str, extra_env: dict) -> Run:
    root = tmp / "ws"
    home = tmp / "home"
    home.mkdir(parents=True)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("MEM_", "OPENAI_"))},
        "HOME": str(home),
        "MEM_EMBED_PROVIDER": embed,
        "MEM_NO_DAEMON": "1",
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
        **extra_env,
    }
    run = Run(root, env)
    done = subprocess.run([MEM, "init", str(root)], capture_output=True, text=True, env=env)
    if done.returncode:
        raise RuntimeError(done.stderr)
    return run


def filler_days(first: datetime, last: datetime, now: datetime) -> list[datetime]:
    """Days of other talk: after the first statement, between, after the update, and the
    two days before now (what `mem context` shows as the recent conversation)."""
    mid = first + (last - first) / 2
    days = [first + timedelta(days=2), mid, last + timedelta(days=1)]
    days += [now - timedelta(days=1), now - timedelta(hours=2)]
    return sorted({d.replace(hour=9 + i % 8, minute=17) for i, d in enumerate(days)})


def log_filler(run: Run, days: list[datetime], until: datetime | None = None) -> None:
    for i, day in enumerate(days):
        if until is not None and day > until:
            continue
        for j in range(2):
            role, text = FILLER[(2 * i + j) % len(FILLER)]
            run.log(day + timedelta(minutes=3 * j), role, text)


# ------------------------------------------------------------------ the checks


def _has(text: str, word: str) -> bool:
    return word.casefold() in text.casefold()


def recall_ok(run: Run, case: dict, now: datetime) -> tuple[bool, str]:
    done = run.mem("recall", case["question"], "-k", "3", "--json", now=now)
    hits = json.loads(done.stdout or "{}").get("results", []) if done.returncode == 0 else []
    shown = " | ".join(h["snippet"].replace("\n", " ")[:70] for h in hits)
    for hit in hits:
        text = hit["snippet"]
        if _has(text, case["fresh"]):
            return True, shown
        if _has(text, case["stale"]):
            return False, shown
    return False, shown


def context_ok(run: Run, case: dict, now: datetime) -> tuple[bool, str]:
    text = run.mem("context", case["question"], now=now).stdout
    for line in text.splitlines():
        if _has(line, case["fresh"]):
            return True, text
        if _has(line, case["stale"]):
            return False, text
    return False, text


def live_lines(root: Path) -> list[str]:
    out = []
    for name in ("USER.md", "MEMORY.md", "AGENTS.md"):
        path = root / name
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if re.match(r"^\s*[-*+]\s+\S", line) and not STRUCK_RE.match(line):
                    out.append(line)
    return out


def struck_lines(root: Path) -> list[str]:
    out = []
    for name in ("USER.md", "MEMORY.md", "AGENTS.md"):
        path = root / name
        if path.exists():
            out += [x for x in path.read_text(encoding="utf-8").splitlines() if STRUCK_RE.match(x)]
    return out


def curated_ok(root: Path, case: dict) -> tuple[bool, str]:
    live = live_lines(root)
    fresh = any(_has(x, case["fresh"]) for x in live)
    stale = any(_has(x, case["stale"]) and not _has(x, case["fresh"]) for x in live)
    return fresh and not stale, "\n".join(live)


def consolidate(run: Run, provider: str, now: datetime, server=None) -> None:
    args = ["consolidate", "--provider", "offline"]
    if provider == "scripted":
        args = ["consolidate", "--provider", "openai", "--base-url", server.url, "--model", "m"]
    done = run.mem(*args, now=now)
    if done.returncode not in (0,):
        raise RuntimeError(f"consolidate: {done.returncode} {done.stderr.strip()}")


# ------------------------------------------------------------------ the scripted model


_ENTRY_RE = re.compile(r"^\[E(\d+)\] (\S+ \S+) (\S+?): (.*)$")
_RELATED_RE = re.compile(r"^- E(\d+) may change (MEMORY|USER|AGENTS): (.+)$")


def careful_model(case_texts: set[str]):
    """A step for the scripted server: the entries of the case become lines, each an
    update of the line the prompt relates it to (`<related>`), or an add; the talk around
    them is skipped. Within one batch, an older statement the batch's own update replaces
    is left out (a careful model writes what is true now)."""
    from llm_server import tool_call

    def rewrite(text: str) -> str:
        text = re.sub(
            r"^(?:Changed my mind|Update|Correction|Actually)[:,]?\s*", "", text, flags=re.I
        )
        text = re.sub(r"^I(?:'m| am)\b", "Is", text)
        text = re.sub(r"^I\b", "User", text)
        text = re.sub(r"^我", "", text)
        return text.rstrip(".。")

    def step(body: dict) -> tuple:
        sent = body["messages"][-1]["content"]
        entries, related = {}, {}
        for line in sent.splitlines():
            m = _ENTRY_RE.match(line)
            if m:
                entries[int(m[1])] = (m[3], m[4])
            m = _RELATED_RE.match(line)
            if m:
                related.setdefault(int(m[1]), (m[2], m[3].strip().strip('"')))
        ours = [n for n, (_, text) in entries.items() if text in case_texts]
        edits, skip = [], [n for n in entries if n not in ours]
        newest = max(ours, default=None)
        for n in ours:
            if n != newest and len(ours) > 1:
                skip.append(n)  # replaced within the batch by the newer statement
                continue
            text = rewrite(entries[n][1])
            if n in related:
                file, target = related[n]
                edits.append(dict(file=file, op="deprecate", section=None, text=text,
                                  target=target, type="fact", importance=0.7,
                                  confidence=0.9, sources=[n]))  # fmt: skip
            else:
                edits.append(dict(file="USER", op="add", section="Identity", text=text,
                                  target=None, type="identity", importance=0.7,
                                  confidence=0.9, sources=[n]))  # fmt: skip
        stamp = re.search(r"Today is (\S+ \S+)", sent)
        history = f"[{stamp[1] if stamp else '2026-01-01 00:00'}] The user talked about their day."
        return tool_call({"history_entry": history, "edits": edits, "skip": sorted(skip)})

    return step


class Scripted:
    """One scripted server for a case, answering every request with the careful model."""

    def __init__(self, case_texts: set[str]) -> None:
        from llm_server import ScriptedLLM

        self.llm = ScriptedLLM()
        self.llm.push(*([careful_model(case_texts)] * 200))

    @property
    def url(self) -> str:
        return self.llm.url

    def close(self) -> None:
        self.llm.close()


# ------------------------------------------------------------------ running a case


NOW_AFTER = timedelta(days=3)


def update_case(case: dict, provider: str, embed: str) -> dict:
    said = [("user", parse(t), text) for t, text in case["old"] + case["new"]]
    first, last = said[0][1], said[-1][1]
    now = max(last, datetime(2026, 11, 25)) + NOW_AFTER
    days = filler_days(first, last, now)
    out: dict = {"id": f"{case['part']}/{case['id']}"}
    texts = {t for _, _, t in said}
    with tempfile.TemporaryDirectory() as tmp:
        server = Scripted(texts) if provider == "scripted" else None
        try:
            extra = {"OPENAI_API_KEY": "sk-bench"} if server else {}
            run = workspace(Path(tmp) / "one", embed, extra)
            for role, when, text in said:
                run.log(when, role, text)
            log_filler(run, days)
            out["recall"], out["recall_seen"] = recall_ok(run, case, now)
            out["context"], out["context_seen"] = context_ok(run, case, now)
            consolidate(run, provider, now, server)
            out["curated"], out["curated_seen"] = curated_ok(run.root, case)
            out["recall_after"], _ = recall_ok(run, case, now)
            out["context_after"], out["context_after_seen"] = context_ok(run, case, now)
            # Two runs: the first statement consolidated before the update was said.
            two = workspace(Path(tmp) / "two", embed, extra)
            between = last - timedelta(days=1)
            for role, when, text in said:
                if when <= between:
                    two.log(when, role, text)
            log_filler(two, days, until=between)
            consolidate(two, provider, between, server)
            before = live_lines(two.root)
            for role, when, text in said:
                if when > between:
                    two.log(when, role, text)
            log_filler(two, [d for d in days if d > between])
            consolidate(two, provider, now, server)
            ok, seen = curated_ok(two.root, case)
            struck = struck_lines(two.root)
            # The line the first run wrote of the old statement (if it wrote one) is now
            # struck through: deprecated, not deleted.
            wrote = any(_has(x, case["stale"]) for x in before)
            out["curated_two"] = ok and (not wrote or any(_has(x, case["stale"]) for x in struck))
            out["curated_two_wrote"] = wrote
            out["curated_two_seen"] = seen + "\n--- struck\n" + "\n".join(struck)
        finally:
            if server:
                server.close()
    return out


def forget_case(case: dict, provider: str, embed: str) -> dict:
    said = [("user", parse(t), text) for t, text in case["said"]]
    first = said[0][1]
    now = max(first, datetime(2026, 11, 25)) + NOW_AFTER
    out: dict = {"id": f"{case['part']}/{case['id']}"}
    with tempfile.TemporaryDirectory() as tmp:
        server = Scripted({t for _, _, t in said}) if provider == "scripted" else None
        try:
            extra = {"OPENAI_API_KEY": "sk-bench"} if server else {}
            run = workspace(Path(tmp) / "ws", embed, extra)
            for role, when, text in said:
                run.log(when, role, text)
            log_filler(run, filler_days(first, first + timedelta(days=4), now))
            consolidate(run, provider, now, server)
            done = run.mem("forget", case["forget"], now=now)
            out["forget_exit"] = done.returncode
            out["forget_said"] = (done.stdout + done.stderr).strip()
            q = case["question"]
            seen = [
                run.mem("recall", q, "--json", now=now).stdout,
                run.mem("recall", q, "--current", "--json", now=now).stdout,
                run.mem("context", q, now=now).stdout,
            ]
            out["forget"] = done.returncode == 0 and not any(_has(s, case["gone"]) for s in seen)
            out["forget_seen"] = "\n".join(seen)
            asked = run.mem("recall", q, "--include-forgotten", "--json", now=now)
            out["include_forgotten"] = asked.returncode == 0 and _has(asked.stdout, case["gone"])
        finally:
            if server:
                server.close()
    return out


UPDATE_CHECKS = ("recall", "context", "curated", "recall_after", "context_after", "curated_two")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--provider", default="offline,scripted", help="offline, scripted or both")
    ap.add_argument("--embed", default="none", help="none or local (MEM_EMBED_PROVIDER)")
    ap.add_argument("--part", default="tune,check,fresh,blind,audit")
    ap.add_argument("--only", help="a case id (its part/id or id)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", action="store_true", help="print what failing cases showed")
    ap.add_argument("--json", type=Path, help="write every result here")
    args = ap.parse_args()
    if not shutil.which(MEM):
        sys.exit(f"no mem at {MEM}: run with the venv's python")
    parts = args.part.split(",")
    started = time.time()
    every: dict = {}
    for provider in args.provider.split(","):
        jobs = [("update", c) for c in UPDATES if c["part"] in parts]
        jobs += [("forget", c) for c in FORGETS if c["part"] in parts]
        if args.only:
            jobs = [j for j in jobs if args.only in (j[1]["id"], f"{j[1]['part']}/{j[1]['id']}")]

        def one(job, provider=provider):
            kind, case = job
            fn = update_case if kind == "update" else forget_case
            return case["part"], kind, fn(case, provider, args.embed)

        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(one, jobs))
        every[provider] = results
        print(f"\n## {provider} consolidation, embeddings {args.embed}")
        for part in parts:
            ups = [r for p, k, r in results if p == part and k == "update"]
            fgs = [r for p, k, r in results if p == part and k == "forget"]
            cells = [f"{c} {sum(r[c] for r in ups)}/{len(ups)}" for c in UPDATE_CHECKS]
            wrote = sum(r["curated_two_wrote"] for r in ups)
            cells.append(f"(first run wrote the old line in {wrote})")
            if fgs:
                cells.append(f"forget {sum(r['forget'] for r in fgs)}/{len(fgs)}")
                shown = sum(r["include_forgotten"] for r in fgs)
                cells.append(f"--include-forgotten finds {shown}/{len(fgs)}")
            print(f"{part}: " + ", ".join(cells))
            if args.show:
                for r in ups + fgs:
                    failed = [c for c in (*UPDATE_CHECKS, "forget") if c in r and not r[c]]
                    for c in failed:
                        seen = r.get(f"{c}_seen", r.get("recall_seen", ""))
                        print(f"  FAIL {r['id']} {c}:\n    " + str(seen).replace("\n", "\n    "))
    print(f"\n({time.time() - started:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(every, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
