from __future__ import annotations

from datetime import datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_mem.format.chunking import chunk_file, estimate_tokens

_lines = st.sampled_from(
    [
        "# Title",
        "## Section",
        "### Sub",
        "",
        "",
        "- a bullet about redis",
        "  continued",
        "1. numbered",
        "plain paragraph text 中文混合 English",
        "```",
        "code line",
        "---",
        "- ~~old fact~~ (deprecated 2026-11-24)",
        "## 09:30 · user",
        "## 14:05 · assistant",
        "[2026-11-05 12:00] a history paragraph",
        "<!-- consolidated: x -->",
        "> quote",
    ]
)


def _covered_once(lines: list[str], chunks, log: bool = False) -> None:
    seen: dict[int, int] = {}
    last_end = 0
    for c in chunks:
        assert 1 <= c.start_line <= c.end_line <= len(lines)
        assert c.start_line > last_end, "ranges overlap or run backwards"
        last_end = c.end_line
        for n in range(c.start_line, c.end_line + 1):
            seen[n] = seen.get(n, 0) + 1
        assert lines[c.start_line - 1].strip() and lines[c.end_line - 1].strip()
    first = chunks[0].start_line if chunks else len(lines) + 1
    for n, line in enumerate(lines, 1):
        if line.strip() and not (log and n < first):  # a log's title rides as context
            assert seen.get(n) == 1, (n, line)


@settings(max_examples=200, deadline=None)
@given(
    body=st.lists(_lines, min_size=0, max_size=60),
    name=st.sampled_from(
        [
            "MEMORY.md",
            "HISTORY.md",
            "memory/2026-11-30.md",
            "memory/notes.md",
            "memory/2026-11-13-retro.md",
            "SOUL.md",
        ]
    ),
    size=st.integers(5, 400),
)
def test_chunks_cover_every_non_blank_line_exactly_once(body, name, size):
    text = "\n".join(body) + ("\n" if body else "")
    chunks = chunk_file(name, text, max_tokens=size, overlap=10)
    log = name.startswith("memory/20")
    _covered_once(text.split("\n")[: len(body)], chunks, log)
    if log and chunks:
        lines = text.split("\n")
        lead = [x for x in lines[: chunks[0].start_line - 1] if x.strip() and x.strip() != "---"]
        assert all(x in chunks[0].context for x in lead)


def test_log_chunks_are_entries_with_their_dates_and_context():
    text = (
        "# 2026-11-30\n\n## 09:30 · user\nwhich editor should I use?\n\n"
        "## 09:31 · assistant\nVS Code, with the vim extension.\n"
    )
    a, b = chunk_file("memory/2026-11-30.md", text)
    assert (a.start_line, a.end_line, b.start_line, b.end_line) == (3, 4, 6, 7)
    assert a.context == "# 2026-11-30"
    assert a.when == datetime(2026, 11, 30, 9, 30) and b.when == datetime(2026, 11, 30, 9, 31)
    assert "which editor" in b.context and "which editor" not in b.text  # context, not citation


def test_history_paragraphs_are_dated_and_the_rest_evergreen():
    text = (
        "# HISTORY\n\nintro line\n\n[2026-11-05 12:00] Redis fix.\n<!-- consolidated: x -->\n\n"
        "[2026-11-20 21:00] Go decision.\n"
    )
    chunks = chunk_file("HISTORY.md", text)
    assert [(c.start_line, c.end_line, c.when) for c in chunks] == [
        (1, 3, None),
        (5, 6, datetime(2026, 11, 5, 12, 0)),
        (8, 8, datetime(2026, 11, 20, 21, 0)),
    ]


def test_evergreen_sections_and_struck_lines():
    text = (
        "# USER\n\n## Identity\n\n- Lin Wei\n- ~~Mainly uses Python.~~ (deprecated 2026-11-24)\n"
        "- Mainly uses Go. <!-- identity i=0.7 -->\n"
    )
    chunks = chunk_file("USER.md", text)
    assert all(c.when is None for c in chunks)
    struck = [c for c in chunks if c.deprecated]
    assert len(struck) == 1 and struck[0].start_line == struck[0].end_line == 6
    after = next(c for c in chunks if c.start_line == 7)
    assert after.context == "Identity"  # the section heading travels with a split section
    assert "identity i=0.7" not in after.text  # metadata comments are not matched


def test_long_entry_splits_on_lines_with_overlap():
    body = "\n".join(f"line {i} about the settlement worker and redis streams" for i in range(60))
    text = f"# 2026-11-30\n\n## 10:00 · note\n{body}\n"
    chunks = chunk_file("memory/2026-11-30.md", text, max_tokens=100, overlap=20)
    assert len(chunks) > 3
    assert all(estimate_tokens(c.text) <= 120 for c in chunks)
    assert chunks[1].context and chunks[1].context.split("\n")[-1] in chunks[0].text


def test_a_long_paragraph_keeps_its_entry_heading():
    """An outside audit: one paragraph longer than a chunk left "## 14:51 · user" a chunk of
    its own, returned and injected as an empty memory."""
    para = "I moved my home server to a new rack. " * 60 + "The needleword is important."
    text = f"# 2026-11-30\n\n## 14:51 · user\n{para}\n\n## 14:52 · user\n{para}\n{para}\n"
    chunks = chunk_file("memory/2026-11-30.md", text, max_tokens=100, overlap=20)
    assert all(any(not ln.startswith("#") for ln in c.text.split("\n") if ln) for c in chunks)
    assert [c.start_line for c in chunks] == [3, 6, 8]


def test_lines_that_start_with_a_hash_but_are_no_headings_still_split():
    """A review: a fence of 400 '# option' comment lines became one chunk of ~6,000 tokens
    when any line starting with '#' counted as a heading."""
    body = "\n".join(f"# option {i}: set foo_bar_{i} to the value it had" for i in range(400))
    text = f"# Notes\n\n```\n{body}\n```\n"
    chunks = chunk_file("notes.md", text, max_tokens=400, overlap=0)
    assert max(estimate_tokens(c.text) for c in chunks) <= 500


def test_estimate_tokens_counts_cjk():
    assert estimate_tokens("连接超时") == 4
    assert estimate_tokens("timeout!") == 2


def test_a_reply_that_refers_back_is_marked_and_a_new_topic_is_not():
    text = (
        "# 2026-11-30\n\n"
        "## 09:30 · Ana\nMy second snake is called Seraphim.\n\n"
        "## 09:31 · Ben\nWhere did you buy it?\n\n"  # points back: "it"
        "## 09:32 · Ana\nIn Paris, a year ago.\n\n"  # answers a question
        "## 09:33 · Ben\nCool! Anyway, my band plays on Friday.\n\n"  # a new subject
        "## 09:34 · Ana\nGreat\n[shares an image: a photo of a red guitar]\n\n"
        "## 09:35 · Ben\nWow, lovely colour!\n\n"  # replies to an image
        "## 11:00 · Ana\nThey were great.\n"  # points back, but hours later: no borrowing
    )
    chunks = chunk_file("memory/2026-11-30.md", text)
    assert [c.refers for c in chunks] == [False, True, True, False, False, True, False]


def test_the_later_pieces_of_a_long_entry_refer_to_the_piece_before():
    body = "\n".join(f"line {i} about the settlement worker and redis streams" for i in range(60))
    text = f"# 2026-11-30\n\n## 10:00 · note\n{body}\n"
    chunks = chunk_file("memory/2026-11-30.md", text, max_tokens=100, overlap=20)
    assert not chunks[0].refers and all(c.refers for c in chunks[1:])
