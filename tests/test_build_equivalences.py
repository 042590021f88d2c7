"""What the index build's shortcuts rely on, checked on text of every kind: each shortcut
must give what the long way gives, or the index would change with the build's speed."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_mem.format.appending import entry_heading
from openclaw_mem.format.chunking import searchable
from openclaw_mem.format.noise import FILLERS, is_noise
from openclaw_mem.index.segments import IndexParams, analyze_files
from openclaw_mem.search import bm25
from openclaw_mem.search.tokenize import tokenize
from openclaw_mem.text import estimate_tokens

# Letters, digits, CJK, punctuation of both scripts, spaces, and characters NFKC or
# casefold rewrite (full-width letters, ligatures, circled digits, ß, combining marks).
_PIECES = st.sampled_from(
    [
        *"ab Z9_ \t\n,.!?;:~…，。！？；：、-—#猫它那这ＡａＲｅｄｉｓ①ﬁßé\u0301カタ한𠀀",
        *("好的 谢谢 嗯 ok thanks 项目 连接超时 redis socket_timeout FastAPI 周末 2023".split()),
        *("last week|in March 2024|上周|去年三月|weekend|\r".split("|")),
    ]
)
_TEXT = st.lists(_PIECES, max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_a_leading_line_break_changes_no_token(text: str) -> None:
    # A borrowed context that is the previous chunk's text less its (empty) heading reuses
    # that chunk's tokens (segments._part_of).
    assert tokenize("\n" + text, stem=False) == tokenize(text, stem=False)
    assert tokenize("\n" + text, cjk_unigrams=False, stem=False) == tokenize(
        text, cjk_unigrams=False, stem=False
    )


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_a_text_is_never_more_tokens_than_characters(text: str) -> None:
    # chunking._split_lines keeps a range whose characters fit as one piece.
    assert estimate_tokens(text) <= len(text)


def _noise_by_definition(text: str) -> bool:
    core = unicodedata.normalize("NFKC", text).casefold().strip()
    words = [w for w in re.split(r"[\s,.!?;:，。！？；：、~…]+", core) if w]
    if words and all(w in FILLERS for w in words):
        return True
    return len(re.sub(r"[\s\W_]+", "", core)) < 4


@settings(max_examples=600, deadline=None)
@given(_TEXT)
def test_noise_is_fillers_only_or_fewer_than_four_letters(text: str) -> None:
    assert is_noise(text) == _noise_by_definition(text)


def test_noise_examples() -> None:
    assert is_noise("ok thanks!") and is_noise("好的，谢谢") and is_noise("a_b") and is_noise("")
    assert not is_noise("ok, redis is down") and not is_noise("连接超时了")


def test_a_heading_reads_the_same_every_time() -> None:
    for line in ("## 14:05 · user <!-- id: 3f9a0c1e22b7 -->", "## 25:00 · user", "## 09:30 x\r"):
        first = entry_heading(line)
        again = entry_heading(line)
        assert (first is None) == (again is None)
        if first is not None:
            assert first.groupdict() == again.groupdict()
    assert entry_heading("## 25:00 · user") is None


def test_borrowed_context_is_indexed_as_if_tokenised_again(tmp_path) -> None:
    # Replies borrow the entry before them; short ones borrow all of it, and its tokens
    # are reused. The analysis must be the one made by tokenising every context afresh.
    from openclaw_mem.format.chunking import chunk_file

    turns = [
        ("user", "我最近在用FastAPI做项目，还用了Redis"),
        ("assistant", "Redis 连接超时 happens when the socket_timeout is too low."),
        ("user", "它 is set to 5 seconds\n\nand the pool to 10"),
        (
            "assistant",
            "<!-- importance: 3 --> raise it to 30 [2026-11-21](memory/2026-11-21.md#L3)",
        ),
        ("Caroline", "I painted it last week"),
        ("user", "好的"),
        ("assistant", "ＦｕｌｌＷｉｄｔｈ ﬁle naïve Straße ① 周末"),
    ]
    body = "".join(f"## 09:{i:02d} · {role}\n{text}\n\n" for i, (role, text) in enumerate(turns))
    (tmp_path / "memory").mkdir()
    rel = "memory/2026-11-30.md"
    (tmp_path / rel).write_text("# 2026-11-30\n\n" + body, encoding="utf-8")
    params = IndexParams()
    part = analyze_files(tmp_path, [(rel, 0, 0)], params)

    chunks = chunk_file(rel, (tmp_path / rel).read_text(encoding="utf-8"))
    assert sum(bool(c.context) for c in chunks) >= 4

    def toks(text: str) -> list[str]:
        return tokenize(text, cjk_unigrams=params.cjk_unigrams, stem=False) if text else []

    context = [toks(searchable(c.context)) for c in chunks]
    tokens = [ctx + toks(searchable(c.text)) for ctx, c in zip(context, chunks, strict=True)]
    counts = [len(c) for c in context]
    want = bm25.analyze(tokens, _stem_of(params), counts, params.context_weight)
    got = part.an
    assert sorted(got.terms) == sorted(want.terms)
    assert list(got.lengths) == list(want.lengths)
    assert _pairs(got) == _pairs(want)


def _stem_of(params: IndexParams):
    from openclaw_mem.search.tokenize import stem_word

    return stem_word if params.stem else None


def _pairs(an: bm25.Analysis) -> list[tuple[int, str, float, float]]:
    return sorted(
        (int(d), an.terms[int(t)], float(tf), float(ctf))
        for d, t, tf, ctf in zip(an.doc, an.term, an.tf, an.ctf, strict=True)
    )
