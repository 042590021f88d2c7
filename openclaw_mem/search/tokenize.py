"""Tokens for BM25 and shingles for MinHash, the same for Chinese, English and both mixed.

NFKC-normalised and case-folded; Latin (and other alphabetic) words and numbers are split on
anything that is not a letter or digit (so `socket_timeout` gives `socket`, `timeout`);
runs of CJK characters become overlapping character bigrams, so `项目` and `连接超时` are
found inside `我最近在用FastAPI做项目，还用了Redis` with no dictionary and no jieba.
"""

from __future__ import annotations

import unicodedata

from ..text import CJK as _CJK
from ..text import CJK_RE as _CJK_RE
from ..text import Lazy

# Lazy: compiling these two classes is ~3 ms, paid by every recall process that imports
# this module unless the kept engine code (safety/prebuilt.py) hands them over.
_WORD_RE = Lazy(f"[^\\W_{_CJK}]+")
_CJK_RUN_RE = Lazy(f"[{_CJK}]+")

# Function words that carry no topic: kept out of shingles (they would make every pair of
# English sentences look alike), kept in BM25 (its IDF already discounts them).
STOPWORDS = frozenset(
    """a an and are as at be been but by did do does for from had has have he her hers him
    his how i if in into is it its me my of on or our ours she so than that the their
    them then there these they this to was we were what when where which who whom why
    will with you your yours just about also can could would should very really oh yeah
    hey hi""".split()
)


def _stem(word: str) -> str:
    """A light English stemmer (plural, -ing/-ed, -ion, -ly, final -y/-e), so `paint`,
    `paints`, `painted` and `painting` meet. Words it does not recognise pass unchanged."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    w = word
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "i"
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ingly", "edly", "ing", "ed"):
        stem = w[: -len(suffix)]
        if w.endswith(suffix) and len(stem) >= 3 and any(c in "aeiouy" for c in stem):
            w = stem
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeioulsz":
                w = w[:-1]  # running -> run, stopped -> stop
            break
    if w.endswith(("tion", "sion")) and len(w) > 6:
        w = w[:-3]  # rotation -> rotat, as rotated -> rotat
    if w.endswith("ly") and len(w) > 5:
        w = w[:-2]
    if w.endswith("y") and len(w) > 3:
        w = w[:-1] + "i"
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


_STEMS: dict[str, str] = {}


def stem_word(word: str) -> str:
    """The stem of a token (cached); CJK and other non-ASCII tokens pass unchanged."""
    s = _STEMS.get(word)
    if s is None:
        s = _stem(word)
        if len(_STEMS) < 200_000:
            _STEMS[word] = s
    return s


def tokenize(text: str, *, cjk_unigrams: bool = True, stem: bool = True) -> list[str]:
    """BM25 tokens, repeats kept (a bag: words first, then CJK): words (stemmed), CJK
    bigrams, and with cjk_unigrams the single CJK characters too (so a one-character
    query such as 猫 still finds 我的猫叫豆豆). The regexes and maps run in C; the index
    stems its vocabulary once instead of every occurrence (stem=False here)."""
    if text.isascii():
        words = _WORD_RE.findall(text.lower())
        return [stem_word(w) for w in words] if stem else words
    text = unicodedata.normalize("NFKC", text).casefold()
    out = _WORD_RE.findall(text)
    if stem:
        out = [stem_word(w) for w in out]
    for run in _CJK_RUN_RE.findall(text):
        if len(run) == 1:
            out.append(run)
            continue
        if cjk_unigrams:
            out.extend(run)
        out.extend(map(str.__add__, run[:-1], run[1:]))
    return out


_STOP_TOKENS = STOPWORDS | {_stem(w) for w in STOPWORDS}


def is_shingle(token: str) -> bool:
    return token not in _STOP_TOKENS and not (len(token) == 1 and _CJK_RE.match(token))


def content_words(text: str) -> frozenset[str]:
    """The content words a text says (a lone letter, the "m" of "I'm", says nothing): what a
    forget's word sets hold and are matched against."""
    return frozenset(t for t in shingles(tokenize(text)) if not (len(t) == 1 and t.isascii()))


def shingles(tokens: list[str]) -> set[str]:
    """The set MinHash signs: content tokens, without stopwords and without CJK unigrams
    (BM25 weighs single characters by IDF; an unweighted set would drown in them)."""
    return {t for t in tokens if t not in _STOP_TOKENS and not (len(t) == 1 and _CJK_RE.match(t))}
