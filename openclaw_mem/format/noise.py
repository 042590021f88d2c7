"""What carries no memory: acknowledgements and fillers (好的 / 谢谢 / 嗯 / ok / thanks).

Consolidation drops such entries before anything is sent to a model; the index gives them
no borrowed context, so an "ok" is not recalled for the message it answered.
"""

from __future__ import annotations

import re
import unicodedata

FILLERS = frozenset(
    """ok okay k kk sure yes yep yeah no nope thanks thank thx ty cool nice great good fine
    alright right got it noted lol haha hmm hm um uh oh ah bye hi hello hey morning night
    好的 好 好吧 嗯 嗯嗯 哦 噢 喔 谢谢 谢谢你 多谢 感谢 收到 知道了 明白 明白了 了解 行 可以
    没问题 对 是的 嗯呢 哈哈 哈哈哈 晚安 早 早安 再见 拜拜""".split()
)
MIN_CHARS = 4  # shorter than this (after punctuation is removed) says nothing lasting
# The words of a message: what lies between its spaces and punctuation.
_WORD_RE = re.compile(r"[^\s,.!?;:，。！？；：、~…]+")
# MIN_CHARS letters or digits (`_` and punctuation between them do not count): found near
# the start of any real message, where counting them all would read it to its end.
_ENOUGH_RE = re.compile(rf"[^\W_](?:[\W_]*[^\W_]){{{MIN_CHARS - 1}}}")


def is_noise(text: str) -> bool:
    """True for an empty, filler-only or very short message."""
    core = unicodedata.normalize("NFKC", text).casefold().strip()
    words = _WORD_RE.finditer(core)
    first = next(words, None)
    if first is not None and first[0] in FILLERS and all(w[0] in FILLERS for w in words):
        return True
    return _ENOUGH_RE.search(core) is None
