"""Recall quality on LoCoMo and on the cross-lingual set (or on your own workspace).

    python bench/recall_quality.py                       # none and, if installed, local
    python bench/recall_quality.py --embed none,local,local:e5-small
    python bench/recall_quality.py --embed st:DIR --ceiling  # a sentence-transformers model
    python bench/recall_quality.py --data PATH.json      # another LoCoMo-format file
    python bench/recall_quality.py --workspace DIR --questions Q.jsonl [--now 2026-12-01]

Generalisation discipline: the LoCoMo dev five are split into a tuning part (conv-26,
conv-30: 233 questions) and a checking part (conv-41, conv-42, conv-43: 529 questions), and
the cross-lingual set (tests/fixtures/crosslingual) into its own `tune` and `check` cases.
Every default was chosen on the tuning parts; the figures are printed for both.

LoCoMo conversations become workspaces: one daily log per session date, one entry per turn
(`## HH:MM · Speaker`, the text, and an image turn's caption). A question's recall@k is the
share of its evidence turns whose lines lie inside the line ranges of the top k results,
averaged over questions of categories 1-4 (5, adversarial, has no evidence). Each k is a
separate `recall -k K` (the candidate pool is max(k, 10) x 4). "now" is the day after the
last session. At session level (the unit other memory projects publish), a question's
recall@k is the share of its evidence sessions that one of the top k results belongs to.

`--abstain 0,0.1,...` measures recall.min_score: R@10 at each floor, and how often a
question is answered with nothing: the part's own questions, another conversation's
questions asked of this one, and GIBBERISH. Each part also reports the questions whose
first hit changes between k = 1 and k = 10 (none should).

Under the defaults the figures are also given by category and for the questions that name
a date (format/dates.py finds one in them), with the mean lines per result of the top 10.
`--set dates=false --set refer_share=0 --set question_share=0 --set follow_weight=0` gives
the pipeline as it was before it read the question's dates and followed a reply to the turn
it answers; `--set question_share=0 --set follow_weight=0` as it was before the second pass
and the question a reply answers (issue 43). `--second-hop N,W` also
measures a second hop: the question again with the names (capitalised words) of the first
N results, whose new results count W of their score.

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
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openclaw_mem.format.dates import question_time
from openclaw_mem.format.logs import NewEntry, append_entries
from openclaw_mem.index.cache import IndexParams, open_index
from openclaw_mem.recall.pipeline import RecallOptions, _exact_vectors, query_vector, rank_index
from openclaw_mem.store.workspace import Workspace

KS = (1, 3, 5, 10)
TUNE = ("conv-26", "conv-30")
CHECK = ("conv-41", "conv-42", "conv-43")
CROSSLINGUAL = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "crosslingual"
DEFAULT_DATA = (
    Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo" / "locomo_dev5.json"
)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE_RE = re.compile(r"D:?(\d+):(\d+)")


def parse_session_time(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")


def build_locomo_workspace(
    sample: dict, root: Path, duplicates: float = 0.0
) -> tuple[dict[str, list[tuple[str, int, int]]], datetime]:
    """Write the conversation as daily logs; return dia_id -> [(path, start, end), ...] (the
    turn, then any copy of it) and 'now'. `duplicates`: the share of turns logged a second
    time, verbatim, at the end of their session (a fact an agent logged twice): a copy
    answers for its turn as well as the turn does."""
    import random

    rng = random.Random(f"{sample['sample_id']}-{duplicates}")
    conv = sample["conversation"]
    ws = Workspace(root)
    where: dict[str, list[tuple[str, int, int]]] = {}
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
        for entry, dia in list(zip(entries, ids, strict=True)):
            if duplicates and rng.random() < duplicates:
                entries.append(NewEntry(entries[-1].when, entry.label, entry.text))
                ids.append(dia)
        path = ws.day_file(start.date())
        existing = path.read_text(encoding="utf-8") if path.exists() else ""
        append_entries(path, start.date(), entries)
        from openclaw_mem.format.logs import parse_log

        parsed = parse_log(path.read_text(encoding="utf-8"), start.date())
        fresh = [e for e in parsed if e.start_line > existing.count("\n")]
        assert len(fresh) == len(ids), (key, len(fresh), len(ids))
        for dia, e in zip(ids, fresh, strict=True):
            where.setdefault(dia, []).append((ws.rel(path), e.start_line, e.end_line))
    now = datetime.combine(last.date() + timedelta(days=1), datetime.min.time())
    return where, now


def locomo_questions(sample: dict, where: dict) -> list[dict]:
    """Categories 1-4, each with its evidence turns (each a list of the places that hold
    it) and its evidence sessions (each a list of the places of all that session's turns:
    the session is found when any result is one of its turns)."""
    session_turns: dict[int, list] = defaultdict(list)
    for dia, places in where.items():
        session_turns[int(dia[1:].split(":")[0])] += places
    out = []
    for qa in sample["qa"]:
        if qa.get("category") not in CATEGORIES:
            continue
        ev, sessions = [], []
        for item in qa.get("evidence", []):
            for a, b in _EVIDENCE_RE.findall(str(item)):
                dia = f"D{int(a)}:{int(b)}"
                if dia in where:
                    ev.append(where[dia])
                    sessions.append(int(a))
        if ev:
            out.append(
                {
                    "question": qa["question"],
                    "evidence": ev,
                    "sessions": [session_turns[n] for n in sorted(set(sessions))],
                    "category": CATEGORIES[qa["category"]],
                }
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
                ev.append([(m[1], int(m[2]), int(m[3] or m[2]))])
        out.append(
            {"question": q["question"], "evidence": ev, "category": str(q.get("category", "all"))}
        )
    return out


def covered(index, docs, evidence: list) -> float:
    """The share of a question's evidence turns whose lines lie inside one of `docs`."""
    start, end, pid = index.doc("start"), index.doc("end"), index.doc("path_id")
    got = [(index.paths[int(pid[d])], int(start[d]), int(end[d])) for d in docs]
    found = sum(
        any(p == path and s >= lo and e <= hi for path, lo, hi in got for p, s, e in alts)
        for alts in evidence
    )
    return found / len(evidence)


def recall_at(
    index,
    questions: list[dict],
    opts: RecallOptions,
    k: int,
    qv=None,
    vectors=None,
    texts=None,
    hop: tuple[int, float] | None = None,
) -> list[float]:
    scores = []
    for q in questions:
        qvec = qv(q["question"]) if qv else None
        o = replace(opts, k=k)
        if hop:
            docs = second_hop(index, q["question"], o, qvec, vectors, texts, *hop)
        else:
            docs = [d for d, _ in rank_index(index, q["question"], o, None, qvec, vectors, texts)]
        scores.append(covered(index, docs[:k], q["evidence"]))
    return scores


_NAME_RE = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]{2,})\b")


def names_in(texts: list[str], query: str) -> list[str]:
    """The five commonest capitalised words inside the sentences of some results that
    neither the query nor an entry heading (a speaker) holds."""
    from openclaw_mem.format.chunking import searchable

    have = {w.lower() for w in re.findall(r"\w+", query)}
    for t in texts:
        for line in t.split("\n"):
            if line.startswith("#"):
                have |= {w.lower() for w in re.findall(r"\w+", searchable(line))}
    counts: dict[str, int] = defaultdict(int)
    for t in texts:
        body = "\n".join(line for line in t.split("\n") if not line.startswith("#"))
        for w in _NAME_RE.findall(body):
            if w.lower() not in have:
                counts[w] += 1
    return sorted(counts, key=lambda w: (-counts[w], w))[:5]


def second_hop(index, query, opts, qvec, vectors, texts, first: int, weight: float) -> list[int]:
    """A second hop for multi-hop questions: the query again with the names found in the
    first results; what it adds counts `weight` of its score, merged by score."""
    ranked = rank_index(index, query, opts, None, qvec, vectors, texts)
    names = names_in(texts([d for d, _ in ranked[:first]]), query)
    if not names:
        return [d for d, _ in ranked]
    again = rank_index(index, f"{query} {' '.join(names)}", opts, None, qvec, vectors, texts)
    have = {d for d, _ in ranked}
    merged = [(e["final"], d) for d, e in ranked]
    merged += [(e["final"] * weight, d) for d, e in again if d not in have]
    merged.sort(key=lambda x: (-x[0], x[1]))
    return [d for _, d in merged[: opts.k]]


def cosine_ranking(index, vectors, qvec) -> list[int]:
    """Every searchable chunk by its exact cosine to the query, nothing lexical in the way."""
    docs = np.flatnonzero(index.live & ~index.doc("boiler"))
    found, rows = vectors(docs)
    cos = np.where(found, rows @ qvec.vector, -2.0)
    return [int(d) for d in docs[np.argsort(-cos, kind="stable")]]


def ceiling(sets: list[Set], opts: RecallOptions, k: int = 10) -> dict[str, float]:
    """What the embedding model knows that words miss, at most: R@k of plain cosine, of the
    pipeline without the query's vector (`none`), with it, and of the union of `none`'s top
    k and cosine's top k (2k results). No fusion into k results can add more than the
    union adds, unless it lifts chunks that neither ranks in its top k."""
    rows = defaultdict(list)
    for s in sets:
        o = replace(opts, k=k, now=s.now)
        for q in s.questions:
            qvec = s.qv(q["question"])
            if qvec is None:  # the embedding source is down: nothing to measure it by
                raise SystemExit(f"no query vector for {q['question']!r}; is the model up?")
            words = [d for d, _ in rank_index(s.index, q["question"], o, None, None, None, s.texts)]
            both = rank_index(s.index, q["question"], o, None, qvec, s.vectors, s.texts)
            cos = cosine_ranking(s.index, s.vectors, qvec)[:k]
            rows["plain cosine"].append(covered(s.index, cos, q["evidence"]))
            rows["words only (none)"].append(covered(s.index, words, q["evidence"]))
            rows["defaults"].append(covered(s.index, [d for d, _ in both], q["evidence"]))
            rows[f"union of the two top {k} ({2 * k} results)"].append(
                covered(s.index, words + cos, q["evidence"])
            )
    return {name: 100 * sum(v) / len(v) for name, v in rows.items()}


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
    if root.exists():  # built and planted by an earlier run: planting again would double it
        import shutil

        shutil.rmtree(root)
    where, now = build_locomo_workspace(sample, root)
    ws = Workspace(root)
    days = sorted(
        {datetime.strptime(Path(p).stem, "%Y-%m-%d") for alts in where.values() for p, _, _ in alts}
    )
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
    texts = chunk_texts(ws, index)
    start, end, pid = index.doc("start"), index.doc("end"), index.doc("path_id")
    wins = 0
    for (_, _, query), ((p_old, l_old), (p_new, l_new)) in zip(UPDATES, cites, strict=True):
        ranked = rank_index(index, query, replace(opts, k=10, now=now), texts=texts)
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
    "vectors only": dict(mode="lsh", decay=False, use_mmr=False),
    "hybrid": dict(mode="hybrid", decay=False, use_mmr=False),
    "hybrid+decay": dict(use_mmr=False),
    "hybrid+mmr": dict(decay=False),
    "defaults (hybrid+decay+mmr)": dict(),
}


class SentenceTransformerProbe:
    """A sentence-transformers model from a directory on disk, for measuring what a
    stronger model than the wheel-shipped ones would do (`--embed st:DIR`). A bench probe,
    not a provider: mem itself reaches such models through `embed.provider = "openai"`."""

    slow_start = True

    def __init__(self, folder: str) -> None:
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(folder, device="cpu")
        self.key = f"st:{Path(folder).resolve().parent.name}"
        self.label = f"sentence-transformers probe {folder}"

    def embed(self, texts, *, query: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), np.float32)
        vecs = np.asarray(self.model.encode(list(texts), batch_size=64), np.float32)
        return vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-9)


def make_embedder(name: str):
    """none | local | local:e5-small | openai[:model] | st:DIR -> an embedder (None for none)."""
    from openclaw_mem import embed

    provider, _, model = name.partition(":")
    if provider == "none":
        return None
    if provider == "st":
        return SentenceTransformerProbe(model)
    return embed.create(provider, {"model": model}, dict(__import__("os").environ))


@dataclass
class Set:
    name: str
    index: object
    questions: list[dict]
    now: datetime
    qv: object = None
    vectors: object = None
    texts: object = None


def chunk_texts(ws: Workspace, index):
    """docs -> the text of their lines, as recall reads them for MMR."""
    files: dict[str, list[str]] = {}
    start, end, pid = index.doc("start"), index.doc("end"), index.doc("path_id")

    def read(docs) -> list[str]:
        out = []
        for d in docs:
            rel = index.paths[int(pid[d])]
            if rel not in files:
                files[rel] = (ws.root / rel).read_text(encoding="utf-8").split("\n")
            out.append("\n".join(files[rel][int(start[d]) - 1 : int(end[d])]))
        return out

    return read


def query_embeddings(embedder, state_dir: Path):
    """query -> QueryVector, memoised (the same question is asked at every k)."""
    if embedder is None:
        return None
    memo: dict[str, object] = {}

    def get(q: str):
        if q not in memo:
            memo[q] = query_vector(embedder, q, state_dir, [])
        return memo[q]

    return get


def crosslingual_questions(root: Path) -> list[dict]:
    cases = json.loads((CROSSLINGUAL / "cases.json").read_text(encoding="utf-8"))
    out = []
    for c in cases:
        lines = (root / c["path"]).read_text(encoding="utf-8").split("\n")
        line = next(i for i, text in enumerate(lines, 1) if c["contains"] in text)
        out.append(
            {
                "question": c["query"],
                "evidence": [[(c["path"], line, line)]],
                "category": c["kind"],
                "split": c["split"],
            }
        )
    return out


def build(
    data, names, workdir: Path, params: IndexParams, embedder, duplicates: float = 0.0
) -> list[Set]:
    sets = []
    for sample in data:
        if sample["sample_id"] not in names:
            continue
        root = workdir / (sample["sample_id"] + (f"-dup{duplicates}" if duplicates else ""))
        if not (root / "where.json").is_file():
            if root.exists():  # an interrupted build: start it again from nothing
                import shutil

                shutil.rmtree(root)
            where, now = build_locomo_workspace(sample, root, duplicates)
            (root / "where.json").write_text(json.dumps([where, now.isoformat()]))
        where, now = json.loads((root / "where.json").read_text())
        where = {k: [tuple(x) for x in v] for k, v in where.items()}
        ws = Workspace(root)
        index = open_index(ws, params, embedder=embedder)
        sets.append(
            Set(
                sample["sample_id"],
                index,
                locomo_questions(sample, where),
                datetime.fromisoformat(now),
                query_embeddings(embedder, ws.state_dir),
                _exact_vectors(ws, index),
                chunk_texts(ws, index),
            )
        )
    return sets


def table(
    sets: list[Set], opts: RecallOptions, variants: list[str], hop: tuple[int, float] | None = None
) -> dict[str, list[float]]:
    rows = {}
    for name in variants:
        o = replace(opts, **VARIANTS[name])
        row = []
        for k in KS:
            allv = []
            for s in sets:
                allv += recall_at(
                    s.index, s.questions, replace(o, now=s.now), k, s.qv, s.vectors, s.texts, hop
                )
            row.append(100 * sum(allv) / max(len(allv), 1))
        rows[name] = row
    return rows


def breakdown(sets: list[Set], opts: RecallOptions) -> tuple[dict[str, list[float]], float]:
    """R@k of each category and of the questions that name a date, with their counts; and
    the mean lines per result of the top 10 (what a result costs a reader)."""
    found: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    lines = []
    for s in sets:
        start, end = s.index.doc("start"), s.index.doc("end")
        o = replace(opts, now=s.now)
        for q in s.questions:
            groups = [q["category"]]
            if question_time(q["question"], s.now.date()).spans:
                groups.append("names a date")
            qvec = s.qv(q["question"]) if s.qv else None
            for k in KS:
                ranked = rank_index(
                    s.index, q["question"], replace(o, k=k), None, qvec, s.vectors, s.texts
                )
                docs = [d for d, _ in ranked]
                for g in groups:
                    found[g][k].append(covered(s.index, docs, q["evidence"]))
                if "sessions" in q:  # the unit other memory projects publish
                    found["all, turn level"][k].append(covered(s.index, docs, q["evidence"]))
                    found["all, session level"][k].append(covered(s.index, docs, q["sessions"]))
                if k == 10:
                    lines += [int(end[d]) - int(start[d]) + 1 for d in docs]
    order = [*CATEGORIES.values(), "names a date", "all, turn level", "all, session level"]
    rows = {
        f"{g} ({len(found[g][KS[0]])})": [100 * sum(found[g][k]) / len(found[g][k]) for k in KS]
        for g in order
        if g in found
    }
    return rows, sum(lines) / max(len(lines), 1)


# Questions no memory answers: gibberish, and words of no conversation here.
GIBBERISH = (
    "zzqxv qqwwzzk",
    "pangolin",
    "blorft snarquel",
    "qwpoeiru zxmnbv",
    "what did I say about kubernetes",
    "xkcd plmq vvbn",
    "嘞嚓呜哔",
    "what is the airspeed of an unladen swallow",
)

# Questions about what no LoCoMo conversation holds, put as people put them: some share a
# word with the small talk (a word match is an answer), the rest may be found by meaning.
UNRELATED = (
    "what did I say about kubernetes", "what did I say about terraform modules",
    "what is the airspeed of an unladen swallow", "when is my dentist appointment",
    "what is the capital of Mongolia", "how do I rotate the API keys",
    "which database does the billing service use",
    "what did we decide about the Rust borrow checker", "what is my blood type",
    "where did I park the car", "what was the score of the cricket match",
    "how much did the plumber charge", "what's the wifi password", "did I renew my passport",
    "what is the postgres connection pool size", "who won the chess tournament in Reykjavik",
    "what did the landlord say about the lease", "which VPN do I use at work",
)  # fmt: skip


def answered(sets: list[Set], opts: RecallOptions) -> tuple[int, int, int, int]:
    """How many GIBBERISH and UNRELATED questions, asked of each conversation, get any
    result (of how many)."""
    counts = [0, 0, 0, 0]
    for s in sets:
        o = replace(opts, k=10, now=s.now)
        for slot, questions in ((0, GIBBERISH), (2, UNRELATED)):
            for text in questions:
                qvec = s.qv(text) if s.qv else None
                counts[slot] += bool(rank_index(s.index, text, o, None, qvec, s.vectors, s.texts))
                counts[slot + 1] += 1
    return counts[0], counts[1], counts[2], counts[3]


def abstention(sets: list[Set], opts: RecallOptions, floors: list[float]) -> None:
    """What recall.min_score costs and buys: for each floor, R@10 of the part's own
    questions, the share of them answered with nothing, the share of another
    conversation's questions (asked of this one) answered with something, and of the
    GIBBERISH questions. The first hit at every k from 1 to 10 is also checked."""
    print(f"  {'min_score':>10} {'R@10':>7} {'own empty':>10} {'foreign':>8} {'gibberish':>10}")
    for m in floors:
        o = replace(opts, min_score=m, k=10)
        own, empty, foreign, nonsense = [], 0, [], []
        for i, s in enumerate(sets):
            other = sets[(i + 1) % len(sets)]
            oo = replace(o, now=s.now)
            for q in s.questions:
                qvec = s.qv(q["question"]) if s.qv else None
                docs = [d for d, _ in rank_index(s.index, q["question"], oo, None, qvec,
                                                 s.vectors, s.texts)]  # fmt: skip
                own.append(covered(s.index, docs, q["evidence"]))
                empty += not docs
            for q in other.questions:
                qvec = s.qv(q["question"]) if s.qv else None
                got = rank_index(s.index, q["question"], oo, None, qvec, s.vectors, s.texts)
                foreign.append(bool(got))
            for text in GIBBERISH:
                qvec = s.qv(text) if s.qv else None
                nonsense.append(bool(rank_index(s.index, text, oo, None, qvec, s.vectors, s.texts)))
        shares = [100 * empty / len(own), *(100 * sum(x) / len(x) for x in (foreign, nonsense))]
        print(
            f"  {m:>10g} {100 * sum(own) / len(own):>7.1f} {shares[0]:>9.1f}%"
            f" {shares[1]:>7.1f}% {shares[2]:>9.1f}%"
        )


def first_hit_moves(sets: list[Set], opts: RecallOptions) -> int:
    """Questions whose first hit (or its score) differs between any two k in 1..10."""
    moved = 0
    for s in sets:
        for q in s.questions:
            qvec = s.qv(q["question"]) if s.qv else None
            firsts = set()
            for k in range(1, 11):
                got = rank_index(s.index, q["question"], replace(opts, k=k, now=s.now), None,
                                 qvec, s.vectors, s.texts)  # fmt: skip
                firsts.add((got[0][0], got[0][1]["final"]) if got else None)
            moved += len(firsts) > 1
    return moved


def print_rows(title: str, rows: dict[str, list[float]]) -> None:
    width = max(34, len(title) + 2, *(len(name) + 4 for name in rows))
    print(f"{title:<{width}}" + "".join(f"{'R@' + str(k):>8}" for k in KS))
    for name, row in rows.items():
        print(f"  {name:<{width - 2}}" + "".join(f"{v:>8.1f}" for v in row))


def crosslingual(workdir: Path, params: IndexParams, embedder, opts: RecallOptions) -> dict:
    """Top-1 and top-5 found on the cross-lingual set, per split and per kind."""
    import shutil

    root = workdir / "crosslingual"
    if not root.exists():
        shutil.copytree(CROSSLINGUAL / "workspace", root)
    ws = Workspace(root)
    index = open_index(ws, params, embedder=embedder)
    qv = query_embeddings(embedder, ws.state_dir)
    vectors = _exact_vectors(ws, index)
    texts = chunk_texts(ws, index)
    now = datetime(2026, 11, 21)
    out: dict = defaultdict(lambda: [0, 0, 0])  # found@1, found@5, cases
    for q in crosslingual_questions(root):
        qvec = qv(q["question"]) if qv else None
        ranked = rank_index(
            index, q["question"], replace(opts, k=5, now=now), None, qvec, vectors, texts
        )
        docs = [d for d, _ in ranked]
        for key in (q["split"], f"{q['split']}/{q['category']}"):
            out[key][0] += covered(index, docs[:1], q["evidence"]) == 1
            out[key][1] += covered(index, docs, q["evidence"]) == 1
            out[key][2] += 1
        if qvec is not None:  # plain cosine over every chunk, the model's own ranking
            plain = cosine_ranking(index, vectors, qvec)[:5]
            for key in (f"cosine/{q['split']}", f"cosine/{q['split']}/{q['category']}"):
                out[key][1] += covered(index, plain, q["evidence"]) == 1
                out[key][2] += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description="evidence recall@k for the recall pipeline")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--workspace", type=Path, help="your own workspace instead of LoCoMo")
    ap.add_argument("--questions", type=Path, help="JSONL questions for --workspace")
    ap.add_argument("--now", help="ISO date for decay with --workspace (default: today)")
    ap.add_argument(
        "--embed",
        default=None,
        help="comma-separated providers to compare: none, local, local:e5-small, openai:MODEL "
        "(default: none, plus local when installed)",
    )
    ap.add_argument(
        "--workdir",
        type=Path,
        help="keep the built workspaces (and their embedding caches) here between runs",
    )
    ap.add_argument("--split", default="tune,check", help="tune, check or both")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a RecallOptions field (e.g. decay_lambda=0.05) or an "
        "IndexParams field (e.g. borrow=all)",
    )
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated subset")
    ap.add_argument("--no-crosslingual", action="store_true")
    ap.add_argument(
        "--ceiling",
        action="store_true",
        help="with embeddings: R@10 of plain cosine and of the union of its top 10 with the "
        "words' top 10 (what any fusion could add at most)",
    )
    ap.add_argument(
        "--duplicates",
        type=float,
        default=0.0,
        help="also measure LoCoMo with this share of turns logged twice (what MMR is for)",
    )
    ap.add_argument(
        "--second-hop",
        metavar="N,W",
        help="also measure a second hop: the question with the names in the first N results, "
        "its new results counting W of their score (e.g. 3,0.9)",
    )
    ap.add_argument(
        "--abstain",
        metavar="FLOORS",
        help="comma-separated recall.min_score values: R@10 and what is answered with "
        "nothing (own, foreign and gibberish questions) at each",
    )
    ap.add_argument(
        "--decay-sweep",
        help="comma-separated λ values: LoCoMo R@10 and the "
        "knowledge-update win rate for each (the trade-off behind the default)",
    )
    args = ap.parse_args()

    from openclaw_mem.embed import local_available

    providers = (args.embed or ("none,local" if local_available() else "none")).split(",")
    base_opts, base_params = RecallOptions(), IndexParams()
    for item in args.set:
        key, _, value = item.partition("=")
        target = base_opts if hasattr(base_opts, key) else base_params
        current = getattr(target, key)
        cast = (
            (lambda v: v.lower() in ("1", "true", "yes"))
            if isinstance(current, bool)
            else type(current)
        )
        if target is base_opts:
            base_opts = replace(base_opts, **{key: cast(value)})
        else:
            base_params = replace(base_params, **{key: cast(value)})

    if base_opts.similarity != "membership":
        base_params = replace(base_params, signed=True)  # what mem.toml's setting builds
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        variants = args.variants.split(",")
        print(f"options: {', '.join(args.set) or 'defaults'}")
        for provider in providers:
            embedder = make_embedder(provider)
            params = replace(base_params, embed=embedder.key if embedder else "")
            print(f"\n== vectors: {provider} ==")
            if args.workspace:
                ws = Workspace(args.workspace.resolve())
                now = datetime.fromisoformat(args.now) if args.now else datetime.now()
                index = open_index(ws, params, embedder=embedder)
                s = Set(
                    "own",
                    index,
                    own_questions(args.questions),
                    now,
                    query_embeddings(embedder, ws.state_dir),
                    _exact_vectors(ws, index),
                    chunk_texts(ws, index),
                )
                print_rows("your workspace", table([s], base_opts, variants))
                continue
            data = json.loads(args.data.read_text(encoding="utf-8"))
            for split in args.split.split(","):
                names = TUNE if split == "tune" else CHECK
                sets = build(data, names, work / "locomo", params, embedder)
                nq = sum(len(s.questions) for s in sets)
                rows = table(sets, base_opts, variants)
                if args.second_hop:
                    n, w = args.second_hop.split(",")
                    hop = table(sets, base_opts, [variants[-1]], (int(n), float(w)))
                    rows[f"{variants[-1]} + second hop {n},{w}"] = hop[variants[-1]]
                print_rows(f"LoCoMo {split} ({nq} questions)", rows)
                if variants[-1] in VARIANTS:
                    by, mean_lines = breakdown(sets, replace(base_opts, **VARIANTS[variants[-1]]))
                    print_rows(f"  by category, {variants[-1]}:", by)
                    print(f"  mean lines per result (top 10): {mean_lines:.2f}")
                g, ng, u, nu = answered(sets, base_opts)
                print(f"  answered at all: gibberish {g} of {ng}, unrelated {u} of {nu}")
                moved = first_hit_moves(sets, base_opts)
                print(f"  questions whose first hit changes with k (1..10): {moved} of {nq}")
                if args.abstain:
                    abstention(sets, base_opts, [float(x) for x in args.abstain.split(",")])
                if args.ceiling and embedder is not None:
                    print(f"  what the model adds at most, R@10 ({split} part):")
                    for name, value in ceiling(sets, base_opts).items():
                        print(f"    {name:<38}{value:>6.1f}")
                if args.duplicates:
                    sets = build(data, names, work / "locomo", params, embedder, args.duplicates)
                    rows = table(sets, base_opts, variants)
                    print_rows(f"  with {args.duplicates:.0%} of turns logged twice", rows)
            if args.abstain and not args.no_crosslingual and not args.workspace:
                for m in (float(x) for x in args.abstain.split(",")):
                    found = crosslingual(work, params, embedder, replace(base_opts, min_score=m))
                    print(
                        f"cross-lingual at min_score {m:g}: top-5 tune {found['tune'][1]}/"
                        f"{found['tune'][2]}, check {found['check'][1]}/{found['check'][2]}"
                    )
            if not args.no_crosslingual:
                found = crosslingual(work, params, embedder, base_opts)
                for split in ("tune", "check"):
                    a1, a5, n = found[split]
                    kinds = ", ".join(
                        f"{kind} {found[f'{split}/{kind}'][1]}/{found[f'{split}/{kind}'][2]}"
                        for kind in ("en->zh", "zh->en", "mixed", "paraphrase")
                    )
                    print(
                        f"cross-lingual {split}: top-1 {a1}/{n}, top-5 {a5}/{n} "
                        f"({100 * a5 / n:.0f} %); top-5 by kind: {kinds}"
                    )
                    if found[f"cosine/{split}"][2]:
                        kinds = ", ".join(
                            f"{kind} {found[f'cosine/{split}/{kind}'][1]}/"
                            f"{found[f'cosine/{split}/{kind}'][2]}"
                            for kind in ("en->zh", "zh->en", "mixed", "paraphrase")
                        )
                        print(
                            f"  plain cosine {split}: top-5 {found[f'cosine/{split}'][1]}/{n}; "
                            f"by kind: {kinds}"
                        )
            if args.decay_sweep:
                data = json.loads(args.data.read_text(encoding="utf-8"))
                parts = {
                    "tune": build(data, TUNE, work / "locomo", params, embedder),
                    "check": build(data, CHECK, work / "locomo", params, embedder),
                }
                print("\ndecay trade-off (defaults otherwise; updates planted in conv-26):")
                print(
                    f"  {'λ per day':>10} {'half-life':>10} {'R@10 tune':>10} {'R@10 check':>11}"
                    f" {'updates won':>12}"
                )
                for lam in (float(x) for x in args.decay_sweep.split(",")):
                    opts = replace(base_opts, decay_lambda=lam)
                    r10 = {}
                    for part, sets in parts.items():
                        allv = []
                        for s in sets:
                            allv += recall_at(
                                s.index,
                                s.questions,
                                replace(opts, now=s.now),
                                10,
                                s.qv,
                                s.vectors,
                                s.texts,
                            )
                        r10[part] = 100 * sum(allv) / len(allv)
                    ku = knowledge_update_rate(data[0], work / f"ku-{lam}-{provider}", opts, params)
                    half = f"{0.6931 / lam:.0f} d" if lam > 0 else "none"
                    print(
                        f"  {lam:>10g} {half:>10} {r10['tune']:>10.1f} {r10['check']:>11.1f}"
                        f" {100 * ku:>11.0f}%"
                    )
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
