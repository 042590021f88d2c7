"""Consolidation quality against LoCoMo's annotated facts, for any provider.

    python bench/consolidate_quality.py                        # the offline provider
    python bench/consolidate_quality.py --provider openai --model gpt-4o-mini [--base-url URL]
    python bench/consolidate_quality.py --user b               # the second speaker as the user

Each dev conversation becomes a workspace: `mem init`, then every turn logged, the first
speaker as role `user` (with `--user b`, the second: a held-out set, since only first
speakers' lines were read to tune the offline rules), the other under their own name
(`--speaker`), one daily log a session. One consolidation runs over it all. LoCoMo's
annotators wrote, per session and speaker, the facts ("observations") with the turn each
came from, and a summary per session.

A curated line added to MEMORY.md, USER.md or AGENTS.md is traced to its turn by its
source links (or an older line's `src=`). The rules, exactly:
- **supported** (precision): some annotated fact about the same person comes from the same
  turn and shares at least half of the line's content words (tokens that are not stopwords,
  stemmed; numbers left out, since lines carry absolute dates the facts write as "this
  month"). A USER.md line is about the user; a MEMORY.md line is about the speaker of the
  turn it cites.
- **recall**: share of the annotated facts about the user that some added line captures,
  by the same rule (same turn, half of the line's content words in the fact).
- **misattributed**: USER.md lines whose cited turn was spoken by the other speaker.
- **size**: lines and estimated tokens added to USER.md per 100 turns.
- **history**: share of each session summary's content words found in HISTORY.md
  (content-word recall), averaged over sessions.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# bench/ goes last: its secrets.py would otherwise stand in for the standard library's
# (numpy.random imports `secrets`).
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]
sys.path.append(str(ROOT / "bench"))

from recall_quality import DEFAULT_DATA, TUNE, parse_session_time

from openclaw_mem.format.logs import NewEntry, append_entries, parse_log
from openclaw_mem.format.markdown import core, parse_citation, sources, split_doc, strip_comments
from openclaw_mem.memory import Memory, init
from openclaw_mem.search.tokenize import shingles, tokenize
from openclaw_mem.store.workspace import Workspace
from openclaw_mem.text import estimate_tokens

_EVIDENCE_RE = re.compile(r"D:?(\d+):(\d+)")


def words(text: str) -> set[str]:
    return shingles(tokenize(text))


def build(
    sample: dict, root: Path, user: str, max_sessions: int | None = None
) -> tuple[dict, dict, int]:
    """The conversation as daily logs: (path, line) -> dia_id, dia_id -> speaker, turns.
    max_sessions: only the first so many sessions (a live model is slow)."""
    conv = sample["conversation"]
    init(root, env={}, use_git=True)
    ws = Workspace(root)
    at_line: dict[tuple[str, int], str] = {}
    speaker_of: dict[str, str] = {}
    turns = 0
    sessions = sorted(
        (int(k.split("_")[1]), k) for k in conv if re.fullmatch(r"session_\d+", k) and conv[k]
    )
    for _, key in sessions[:max_sessions]:
        start = parse_session_time(conv[f"{key}_date_time"])
        path = ws.day_file(start.date())
        before = path.read_text(encoding="utf-8").count("\n") if path.exists() else 0
        entries = []
        for i, turn in enumerate(conv[key]):
            when = min(start + timedelta(minutes=i), start.replace(hour=23, minute=59))
            label = "user" if turn["speaker"] == user else turn["speaker"]
            text = turn["text"] + (
                f"\n[shares an image: {turn['blip_caption']}]" if turn.get("blip_caption") else ""
            )
            entries.append(NewEntry(when, label, text))
            speaker_of[turn["dia_id"]] = turn["speaker"]
            turns += 1
        append_entries(path, start.date(), entries)
        fresh = [e for e in parse_log(path.read_text(encoding="utf-8")) if e.start_line > before]
        for e, turn in zip(fresh, conv[key], strict=True):
            at_line[(ws.rel(path), e.start_line)] = turn["dia_id"]
    return at_line, speaker_of, turns


def facts_of(sample: dict) -> list[tuple[str, str, str]]:
    """(speaker, fact, dia_id) for every annotated observation."""
    out = []
    for per_speaker in sample.get("observation", {}).values():
        for speaker, items in per_speaker.items():
            for fact, evidence in items:
                for a, b in _EVIDENCE_RE.findall(str(evidence)):
                    out.append((speaker, fact, f"D{int(a)}:{int(b)}"))
    return out


def added_lines(root: Path, before: dict[str, str]) -> list[tuple[str, str, list[str]]]:
    """(file, line, cited log locations) for every curated line the consolidation added."""
    out = []
    for name in ("USER.md", "MEMORY.md", "AGENTS.md"):
        old = set(split_doc(before[name]).lines)
        for line in split_doc((root / name).read_text(encoding="utf-8")).lines:
            if line in old or not line.strip().startswith("-"):
                continue
            out.append((name, core(line), sources(line)))
    return out


def supports(line: str, fact: str) -> bool:
    # Digits are left out of the line's words: lines carry absolute dates ("in 2023-07")
    # where LoCoMo's facts say "this month", and a date can never match those words.
    mine = {w for w in words(line) if not w.isdigit()}
    return bool(mine) and len(mine & words(fact)) * 2 >= len(mine)


def score(
    sample: dict,
    root: Path,
    provider: str,
    settings: dict,
    side: str = "a",
    max_sessions: int | None = None,
) -> dict:
    user = sample["conversation"][f"speaker_{side}"]
    at_line, speaker_of, turns = build(sample, root, user, max_sessions)
    before = {
        n: (root / n).read_text(encoding="utf-8") for n in ("USER.md", "MEMORY.md", "AGENTS.md")
    }
    env = {k: v for k, v in os.environ.items() if k.startswith(("OPENAI_", "MEM_LLM_"))}
    env["MEM_EMBED_PROVIDER"] = "none"
    mem = Memory.open(root, env=env, clock=lambda: datetime(2024, 1, 1, 12))
    started = time.perf_counter()
    report = mem.consolidate(provider=provider, now=datetime(2024, 1, 1, 12), **settings)
    seconds = time.perf_counter() - started
    if max_sessions is not None:  # only the facts of the sessions that were logged
        keep = set(speaker_of)
    facts = facts_of(sample)
    if max_sessions is not None:
        facts = [f for f in facts if f[2] in keep]
    lines = added_lines(root, before)
    supported = misattributed = user_lines = user_tokens = 0
    captured: set[int] = set()
    verdicts: list[tuple[bool, str, str]] = []
    for name, line, cites in lines:
        dias = []
        for cite in cites:
            found = parse_citation(cite)
            if found and (found[0], found[1]) in at_line:
                dias.append(at_line[(found[0], found[1])])
        speakers = {speaker_of[d] for d in dias}
        about = {user} if name == "USER.md" else speakers
        if name == "USER.md":
            user_lines += 1
            user_tokens += estimate_tokens(line)
            misattributed += bool(speakers) and user not in speakers
        ok = False
        for i, (speaker, fact, dia) in enumerate(facts):
            if dia in dias and speaker in about and supports(line, fact):
                ok = True
                if speaker == user:
                    captured.add(i)
        supported += ok
        verdicts.append((ok, name, line))
    user_facts = [i for i, f in enumerate(facts) if f[0] == user]
    history = words(strip_comments((root / "HISTORY.md").read_text(encoding="utf-8")))
    summaries = [
        text
        for key, text in sample.get("session_summary", {}).items()
        if max_sessions is None or int(re.findall(r"\d+", key)[0]) <= max_sessions
    ]
    overlap = [len(words(s) & history) / max(len(words(s)), 1) for s in summaries]
    return {
        "lines": len(lines),
        "supported": supported,
        "user_facts": len(user_facts),
        "captured": len([i for i in captured if i in user_facts]),
        "misattributed": misattributed,
        "user_lines": user_lines,
        "user_tokens": user_tokens,
        "turns": turns,
        "history": sum(overlap) / max(len(overlap), 1),
        "verdicts": verdicts,
        "report": report,
        "seconds": seconds,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--provider", default="offline")
    ap.add_argument("--model")
    ap.add_argument("--base-url")
    ap.add_argument("--lines", action="store_true", help="print every added line and its verdict")
    ap.add_argument(
        "--user",
        choices=("a", "b"),
        default="a",
        help="which speaker is the user: a, the first (the benchmark), or b, the second (a "
        "held-out set: the rules were written without reading their words)",
    )
    ap.add_argument(
        "--part",
        choices=("tune", "check", "all"),
        default="all",
        help="only the tuning part (conv-26, conv-30) or only the checking part",
    )
    args = ap.parse_args()
    settings = {k: v for k, v in (("model", args.model), ("base_url", args.base_url)) if v}
    data = json.loads(args.data.read_text(encoding="utf-8"))
    parts: dict[str, dict[str, float]] = {"tune": {}, "check": {}, "all": {}}
    print(
        f"{'conversation':<12} {'lines':>5} {'precision':>9} {'recall':>7} {'misattr':>7} "
        f"{'USER lines/100t':>15} {'USER tok/100t':>13} {'history':>7}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for sample in data:
            name = sample["sample_id"]
            if args.part != "all" and (name in TUNE) != (args.part == "tune"):
                continue
            r = score(sample, Path(tmp) / name, args.provider, settings, args.user)
            for part in ("tune" if name in TUNE else "check", "all"):
                parts[part]["samples"] = parts[part].get("samples", 0) + 1
                for k, v in r.items():
                    if k not in ("verdicts", "report"):
                        parts[part][k] = parts[part].get(k, 0) + v
            print(row(name, r))
            if args.lines:
                for verdict, file, line in r["verdicts"]:
                    print(f"  {'ok ' if verdict else 'BAD'} {file:<9} {line}")
    for part, totals in parts.items():
        if totals.get("samples"):
            totals["history"] /= totals["samples"]
            print(row(part, totals))


def row(name: str, r: dict) -> str:
    precision = r["supported"] / r["lines"] if r["lines"] else float("nan")
    recall = r["captured"] / r["user_facts"] if r["user_facts"] else float("nan")
    per100 = 100 / max(r["turns"], 1)
    return (
        f"{name:<12} {int(r['lines']):>5} {precision:>9.2f} {recall:>7.2f} "
        f"{int(r['misattributed']):>7} {r['user_lines'] * per100:>15.1f} "
        f"{r['user_tokens'] * per100:>13.1f} {r['history']:>7.2f}"
    )


if __name__ == "__main__":
    main()
