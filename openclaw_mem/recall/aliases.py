"""A question's category words read as the words of their slot.

"What exercise do I do" shares no word with "I climb at Boulderwerk twice a week", nor
"which editor do I use" with "I do everything in IntelliJ", nor 我周末的爱好是什么 with
周末我基本都在练书法. A question that names a slot by its category (exercise, editor,
爱好) matches the statements that name one of the slot's values (search/slots.py's
SLOTS): for this question the category word's postings are those of the word and of the
slot's words together, one term to BM25, coverage and the pseudo-vector alike, so a chunk
found through a value counts as holding the question's word, no more, and scores stay on
the same scale for every question. Values never stand for their category ("do I like
Python" is not "what language do I write"), and words of change are no value ("moved" is
no answer to "where do I live").
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from ..search.bm25 import term_hash
from ..search.slots import SLOTS

if TYPE_CHECKING:
    from ..index.cache import Index

# fmt: off
# The words a question asks a slot by.
CATEGORY: dict[str, tuple[str, ...]] = {
    "home": ("live", "living", "city", "address", "住", "住在", "城市"),
    "job": ("job", "employer", "company", "公司", "工作"),
    "manager": ("manager", "boss", "领导", "老板", "经理", "上司"),
    "editor": ("editor", "ide", "编辑器"),
    "language": ("language", "语言"),
    "drink": ("drink", "喝"),
    "diet": ("diet", "饮食"),
    "vehicle": ("car", "vehicle", "车"),
    "commute": ("commute", "通勤"),
    "exercise": ("exercise", "workout", "sport", "sports", "fitness", "运动", "锻炼"),
    "partner": ("partner", "relationship", "对象"),
    "pet": ("pet", "pets", "animal", "animals", "宠物"),
    "phone": ("phone", "手机"),
    "computer": ("laptop", "computer", "电脑"),
    "shell": ("shell",),
    "browser": ("browser", "浏览器"),
    "school": ("school", "study", "studying", "studies", "学校", "读书"),
    "name": ("nickname", "称呼", "名字", "昵称"),
    "tone": ("tone", "format", "formatted", "formatting"),
    "hobby": ("hobby", "hobbies", "爱好"),
    "database": ("database", "数据库"),
    "framework": ("framework", "框架"),
    "hosting": ("hosted", "hosting", "host", "托管"),
    "music": ("music", "音乐"),
    "doctor": ("doctor", "医生"),
    "sleep": ("sleep", "bedtime", "睡觉"),
    "allergy": ("allergic", "allergy", "allergies", "过敏"),
    "meeting": ("meeting", "meetings", "会议"),
    "deadline": ("deadline", "截止"),
    "tracker": ("tracker",),
    "timezone": ("timezone", "时区"),
}
# fmt: on


def aliases(tokens_of, question: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """For each token of the question that names a slot's category, the index tokens of
    that slot's words. `tokens_of`: the index's tokenizer (IndexParams.tokens)."""
    keys = _keys(tokens_of)
    found: dict[str, tuple[str, ...]] = {}
    for t in dict.fromkeys(question):
        if t in keys:
            found[t] = _values(tokens_of, keys[t], t)
    return found


@cache
def _keys(tokens_of) -> dict[str, str]:
    """Each category word's token, and its slot. Only these are read for every question:
    the values are tokenized for a slot a question asks by (all of them cost ~4 ms, a
    recall's process is ~180)."""
    keys: dict[str, str] = {}
    for slot, asked in CATEGORY.items():
        for word in asked:
            # The word's own token: 爱好, not 好; a longer Chinese word by its last pair, the
            # one its meaning rests on (编辑器: 辑器, not 编辑 "to edit").
            for t in tokens_of(word) if word.isascii() else [word[-2:]]:
                keys[t] = slot
    return keys


@cache
def _values(tokens_of, slot: str, key: str) -> tuple[str, ...]:
    values: list[str] = []
    for word in SLOTS[slot]:
        if " " in word or "-" in word:  # a part alone says something else ("based in")
            continue
        # A Chinese word's pairs, not its characters (法 of 书法 is in every text).
        values += [v for v in tokens_of(word) if len(v) > 1 or v == word]
    own = {key, *tokens_of(" ".join(_CHANGE))}
    return tuple(dict.fromkeys(v for v in values if v not in own))


# Words of the slots' lists that say a change or a move, not a value.
_CHANGE = """relocated relocate relocating moved moving hired joined 跳槽 辞职 离职 入职 搬
    戒酒""".split()


class Aliased:
    """An index whose postings read a category word as the words of its slot too (for one
    question); everything else is the index's own."""

    def __init__(self, index: Index, aliases: Mapping[str, Sequence[str]]) -> None:
        self._index = index
        self._alias = {
            term_hash(t): tuple(term_hash(v) for v in vs) for t, vs in aliases.items() if vs
        }

    def __getattr__(self, name: str):
        return getattr(self._index, name)

    @property
    def segments(self) -> list:
        return [_AliasedPostings(p, self._alias) for p in self._index.segments]


class _AliasedPostings:
    def __init__(self, post, alias: dict[int, tuple[int, ...]]) -> None:
        self._post, self._alias = post, alias

    def lookup(self, h: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        alts = self._alias.get(h)
        if not alts:
            return self._post.lookup(h)
        parts = [self._post.lookup(x) for x in (h, *alts)]
        docs = np.concatenate([p[0] for p in parts])
        if len(docs) == 0:
            return parts[0]
        order = np.argsort(docs, kind="stable")
        docs = docs[order]
        first = np.ones(len(docs), bool)
        first[1:] = docs[1:] != docs[:-1]
        at = np.cumsum(first) - 1
        width = int(at[-1]) + 1
        tf = np.bincount(at, np.concatenate([p[1] for p in parts])[order], width)
        ctf = np.bincount(at, np.concatenate([p[2] for p in parts])[order], width)
        return docs[first].astype(np.int32), tf.astype(np.float32), ctf.astype(np.float32)

    def holding(self, hashes: np.ndarray) -> Iterator[np.ndarray]:
        # A category word holds its slot's words too, as `lookup` reads it.
        alts = [a for h in np.asarray(hashes, np.uint64).tolist() for a in self._alias.get(h, ())]
        return self._post.holding(np.concatenate([hashes, np.asarray(alts, np.uint64)]))

    def own_count(self, h: int) -> int:
        if h not in self._alias:
            return self._post.own_count(h)
        return int(np.count_nonzero(self.lookup(h)[1]))
