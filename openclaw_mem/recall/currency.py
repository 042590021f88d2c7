"""What is current: the stage that ranks an update above what it superseded.

A later log entry of the same speaker that updates an earlier statement on the same subject
(search/currency.py: a word of change and a shared slot or word) supersedes it: the earlier
entry, a curated line distilled from before the change, a HISTORY.md paragraph written
before it. Only log entries supersede (what was said; curated lines and paragraphs are
distilled from them), and never an assistant's: the user's words are the authority on the
user. A curated line is dated by its newest source's day, counted to the end of that day,
so the entry it was distilled from never supersedes it; a line with no source (a person
wrote it) has no date and is never superseded.

For a question, the candidates' superseders are found among the candidates and, through the
postings of the words of change and of the candidates' subjects, among the later entries
that did not match the question ("I moved to Porto" answers "where do I live" only through
"I live in Lisbon"). The superseder then scores at least what the statement it replaces
scored, and that statement `superseded_weight` of it: the current fact ranks first, the
stale one stays in view below it, labelled with the day it changed (or, with `--current`,
left out).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache, partial
from typing import TYPE_CHECKING

import numpy as np

from ..format.markdown import BULLET_RE, core
from ..index.cache import Index, agent_key
from ..search import currency as cur
from ..search.bm25 import term_hash
from ..search.slots import SLOT_HINTS, SLOTS
from ..store.workspace import day_of

if TYPE_CHECKING:
    from .stages import Query, Ranking

TOP = 30  # the best candidates read for supersession
NOMINATE_FROM = 10  # the best candidates whose subjects nominate later entries
MAX_NOMINEES = 40  # later entries read, newest first
_NOT_AUTHORITIES = ("assistant", "system", "tool")

# Words of change as the index holds them (the stems of their words; Chinese as bigrams).
_CHANGE_WORDS = """changed mind longer anymore switched switch moved relocated quit stopped
gave cancelled canceled sold rid ditched postponed delayed pushed slipped rescheduled replaced
instead used actually correction update left retired divorced broke now currently new
nowadays 改用 改成 改为 改到 换成 换了 换到 搬到 搬去 搬家 不再 取消 卖了 卖掉 戒了 戒掉
推迟 延期 延后 辞职 离职 跳槽 不对 更正 其实 现在 目前 如今 以前 离婚 分手 退休
traded swapped dropped upgraded downgraded migrated transitioned became become replaced
passed stolen died 迁到 迁移 调到 调去 转到 转用 转岗 已经不 改期 挪到 放弃 不干了 提前到
slid sliding split scratch flip meant turns turned forward scrapped axed killed traded free
off 说错 记错 搞错 戒酒 戒烟 戒糖 搬完 不是"""


@dataclass(frozen=True)
class Facts:
    """What the stage reads of some chunks (`ids`, aligned): each one's day (NaN: none),
    whether it is a log entry that may supersede, its speaker, whether it is a log entry.
    Read for the chunks asked about only: at 100k chunks a pass over every chunk and every
    file's name was most of a recall's time."""

    ids: np.ndarray
    day: np.ndarray
    authority: np.ndarray
    speaker: np.ndarray
    is_log: np.ndarray

    def take(self, at: np.ndarray) -> Facts:
        """These facts at some of their places (in that order)."""
        return Facts(
            self.ids[at], self.day[at], self.authority[at], self.speaker[at], self.is_log[at]
        )

    def of(self) -> dict[int, tuple[float, bool, int, bool]]:
        """By document id: (day, authority, speaker, is_log)."""
        return dict(
            zip(
                self.ids.tolist(),
                zip(
                    self.day.tolist(),
                    self.authority.tolist(),
                    self.speaker.tolist(),
                    self.is_log.tolist(),
                    strict=True,
                ),
                strict=True,
            )
        )


def facts(index: Index, ids: np.ndarray) -> Facts:
    ids = np.asarray(ids, np.int64)
    pids = index.doc("path_id")[ids]
    # Each file's name is read once, however many of its chunks are asked about (the
    # nominees are tens of thousands of chunks at 100k); a mask over the files, not
    # np.unique, whose first call costs ~6 ms of imports.
    is_log = np.zeros(len(index.paths), bool)
    is_log[pids] = True
    files = np.flatnonzero(is_log)
    is_log[files] = [day_of_path(index.paths[p]) for p in files.tolist()]
    logs = is_log[pids]
    # An entry is dated by its time; anything else by its newest source's day, to its end.
    day = np.where(logs, index.doc("when")[ids], index.doc("born")[ids] + 1.0)
    speaker = index.doc("speaker")[ids]
    lesser = np.zeros(len(ids), bool)
    for role in _NOT_AUTHORITIES:  # three compares: np.isin would import numpy.ma (~6 ms)
        lesser |= speaker == np.uint64(agent_key(role))
    return Facts(ids, day, logs & ~lesser & ~np.isnan(day), speaker, logs)


def day_of_path(path: str) -> bool:
    return path.startswith("memory/") and day_of(path) is not None


def _docs_with(index: Index, tokens: Sequence[str], n: int) -> np.ndarray:
    """Which of the `n` chunks hold one of these index tokens (a mask: marking postings
    costs a fraction of sorting their union)."""
    hit = np.zeros(n, bool)
    hashes = np.asarray([term_hash(t) for t in dict.fromkeys(tokens)], np.uint64)
    for seg in index.segments:
        for docs in seg.holding(hashes):
            hit[docs] = True
    return hit


def _change_tokens(index: Index) -> list[str]:
    return [t for t in index.params.tokens(_CHANGE_WORDS) if len(t) > 1]


def _subject_tokens(index: Index, statements: Sequence[tuple[cur.Sentence, ...]]) -> list[str]:
    """The index tokens of what these statements (their sentences) speak of."""
    words: list[str] = []
    for sentences in statements:
        for slot in sorted(frozenset().union(*(s.slots for s in sentences))):
            named = (*SLOTS[slot], *SLOT_HINTS.get(slot, ()))
            words += [t for t in index.params.tokens(" ".join(named)) if len(t) > 1]
            # A slot's one-character Chinese words are its own (搬 for home, 车, 猫): "我搬到
            # 深圳了" shares nothing else with "我住在杭州".
            words += [w for w in named if len(w) == 1 and not w.isascii()]
        words += sorted(frozenset().union(*(s.words for s in sentences)))
    return words


def superseders(
    index: Index,
    docs: np.ndarray,
    texts: Callable[[np.ndarray], list[str]],
    mask: np.ndarray,
    nominate_from: int = NOMINATE_FROM,
) -> dict[int, list[int]]:
    """For each of `docs` (best first) that later entries supersede, those entries, newest
    first (document ids, which may be outside `docs`)."""
    if len(docs) == 0:
        return {}
    docs = np.asarray(docs, np.int64)
    f = facts(index, docs)
    known = f.of()
    paths = index.doc("path_id")[docs].tolist()
    profile = [index.paths[p] == "USER.md" for p in paths]
    # What each text changes is read first; the sentences of an asked one only when a
    # later change could update it (`updates` reads no sentence of the later statement).
    bodies = dict(zip(docs.tolist(), map(_body, texts(docs)), strict=True))
    said = {d: cur.read_statement(b, sentences=False) for d, b in bodies.items()}
    olds = {
        d: cache(partial(_sentences, b, u))
        for (d, b), u in zip(bodies.items(), profile, strict=True)
    }
    dated = f.day[~np.isnan(f.day)]
    if len(dated):
        seeds = [olds[d]() for d in docs[:nominate_from].tolist()]
        g = _nominees(index, docs, mask, float(dated.min()), seeds)
        if len(g.ids):  # later entries, read only for what they change
            known.update(g.of())
            read = (cur.read_statement(_body(t), sentences=False) for t in texts(g.ids))
            said.update(zip(g.ids.tolist(), read, strict=True))
    return _pairs(known, said, olds)


def _nominees(
    index: Index,
    docs: np.ndarray,
    mask: np.ndarray,
    after: float,
    seeds: Sequence[tuple[cur.Sentence, ...]],
) -> Facts:
    """The later entries that may update the candidates (`docs`): outside them, within
    `mask`, holding a word of change and a word of the seeds' subjects, said by the user
    after day `after`; the newest MAX_NOMINEES of them, newest first.

    A word of change such as "now" or 迁移 is in half of a large memory: what each chunk's
    file is (`facts`) is read only for the newest of those that pass the cheap tests (an
    entry's time is its day, and only entries are authorities), in batches until enough
    are found."""
    n = len(mask)
    hit = _docs_with(index, _change_tokens(index), n) & mask
    hit[docs] = False
    ids = np.flatnonzero(hit)
    when = index.doc("when")[ids]
    later = when > after  # NaN (no time): no entry
    speaker = index.doc("speaker")[ids]
    for role in _NOT_AUTHORITIES:
        later &= speaker != np.uint64(agent_key(role))
    ids, when = ids[later], when[later]
    if len(ids):  # the subjects' postings only when a later change could use them
        near = _docs_with(index, _subject_tokens(index, seeds), n)[ids]
        ids, when = ids[near], when[near]
    ids = ids[np.argsort(-when, kind="stable")]
    found: list[Facts] = []
    have, start, step = 0, 0, 4 * MAX_NOMINEES
    while have < MAX_NOMINEES and start < len(ids):
        f = facts(index, ids[start : start + step])
        f = f.take(np.flatnonzero(f.authority)[: MAX_NOMINEES - have])
        found.append(f)
        have += len(f.ids)
        start += step
    if not found:
        return facts(index, ids[:0])
    return Facts(
        *(
            np.concatenate(parts)
            for parts in zip(
                *((f.ids, f.day, f.authority, f.speaker, f.is_log) for f in found), strict=True
            )
        )
    )


def _pairs(
    known: dict[int, tuple[float, bool, int, bool]],
    said: dict[int, cur.Statement],
    olds: dict[int, Callable[[], tuple[cur.Sentence, ...]]],
) -> dict[int, list[int]]:
    """For each of `olds` (its sentences, read when asked for) the later changes in `said`
    that update it, newest first."""
    out: dict[int, list[int]] = {}
    news = [d for d, s in said.items() if known[d][1] and s.may_update]
    news.sort(key=lambda d: -known[d][0])
    for old, sentences in olds.items():
        day, _, speaker, is_log = known[old]
        if day != day:  # NaN: no day
            continue
        later = [
            new
            for new in news
            if new != old
            and known[new][0] > day
            # another speaker's statement is not theirs to update
            and not (is_log and speaker != known[new][2])
        ]
        if not later:
            continue
        before = replace(said[old], sentences=sentences())
        found = [new for new in later if cur.updates(before, said[new])]
        if found:
            out[old] = found
    return out


def _body(text: str) -> str:
    """A chunk's text as a statement: its headings left out (an entry's time and speaker),
    a bullet read without its source links ("- Lives in Hangzhou [2026-11-01](memory/…)":
    their dates and path made it too long to hold its fact)."""
    lines = [line for line in text.split("\n") if not line.startswith("#")]
    return "\n".join(core(line) if BULLET_RE.match(line) else line for line in lines)


def _sentences(body: str, profile: bool) -> tuple[cur.Sentence, ...]:
    """A chunk's sentences. A line of USER.md (`profile`) holds the fact it states, in
    whatever person it is written: the file is about the user."""
    sentences = cur.sentences_of(body)
    if profile:
        sentences = tuple(replace(s, holds=True) for s in sentences)
    return sentences


def stage(q: Query, r: Ranking) -> Ranking:
    """Supersession over the candidates (see the module): a superseder scores at least what
    the statement it replaces scored, that statement `superseded_weight` of its superseder
    (nothing with `current`); `superseded_by` names the superseder."""
    r.columns["superseded_by"] = np.full(len(r.docs), -1, np.int64)
    if q.texts is None or len(r.docs) == 0 or not q.opts.supersede:
        return r
    top = r.docs[np.lexsort((r.docs, -r.score))[:TOP]]
    found = superseders(q.index, top, q.texts, q.mask)
    if not found:
        return r
    # Of several updates of one statement, the one that bears on the question most (a
    # paragraph of a move and a preference is superseded, for "tabs or spaces", by the
    # change of preference), else the newest.
    scored = dict(zip(r.docs.tolist(), r.score.tolist(), strict=True))
    found = {old: max(news, key=lambda n: scored.get(n, 0.0)) for old, news in found.items()}
    known = set(r.docs.tolist())
    extra = sorted({new for new in found.values() if new not in known})
    if extra:
        docs = np.concatenate([r.docs, np.asarray(extra, r.docs.dtype)])
        r.grow(docs, np.concatenate([r.score, np.zeros(len(extra))]))
    at = {int(d): i for i, d in enumerate(r.docs)}
    score = r.score.copy()
    for old, new in found.items():
        score[at[new]] = max(score[at[new]], r.score[at[old]])
    for old, new in found.items():
        i = at[old]
        kept = 0.0 if q.opts.current else q.opts.superseded_weight
        score[i] = min(r.score[i], score[at[new]]) * kept
        r.columns["superseded_by"][i] = new
    r.score = score
    return r


def superseded_lines(
    index: Index,
    texts: Callable[[np.ndarray], list[str]],
    path: str,
    numbers: Sequence[int],
) -> set[int]:
    """Which of these lines of a curated file (by number) a later entry superseded."""
    if path not in index.paths or not numbers:
        return set()
    pid = list(index.paths).index(path)
    start = index.doc("start")
    ours = index.live & (index.doc("path_id") == pid) & np.isin(start, np.asarray(numbers))
    docs = np.flatnonzero(ours)
    mask = index.live & ~index.doc("boiler")
    return {int(start[d]) for d in superseders(index, docs, texts, mask, len(docs))}
