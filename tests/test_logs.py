from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import Path

import pytest
from helpers import without_ids
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openclaw_mem.errors import UsageError
from openclaw_mem.format.logs import (
    NewEntry,
    append_entries,
    normalize_text,
    parse_log,
    read_entries,
)

DAY = date(2026, 11, 30)


def at(h: int, m: int = 0) -> datetime:
    return datetime(2026, 11, 30, h, m)


def test_new_day_file_has_title_and_entry_format(tmp_path):
    path = tmp_path / "2026-11-30.md"
    result = append_entries(path, DAY, [NewEntry(at(14, 5), "user", "我最近在用FastAPI做项目")])
    text = path.read_text(encoding="utf-8")
    assert re.fullmatch(
        r"# 2026-11-30\n\n## 14:05 · user <!-- importance: -; id: [0-9a-f]{12} -->\n"
        r"我最近在用FastAPI做项目\n\n",
        text,
    )
    assert (result.start_line, result.end_line, result.count) == (3, 4, 1)


def test_session_is_an_html_comment_and_parses_back(tmp_path):
    path = tmp_path / "2026-11-30.md"
    append_entries(path, DAY, [NewEntry(at(9), "assistant", "ok then", "tg:42")])
    text = without_ids(path.read_text(encoding="utf-8"))
    assert "## 09:00 · assistant <!-- session: tg:42 -->\n" in text
    (entry,) = read_entries(path)
    assert (entry.role, entry.session, entry.time, entry.day) == (
        "assistant",
        "tg:42",
        "09:00",
        DAY,
    )


def test_an_older_comment_without_the_empty_importance_reads_as_before():
    """mem's comment opens with OpenClaw's empty `importance: -` so OpenClaw hides it; the
    key means nothing to mem, and a comment an older mem wrote without it reads the same."""
    now = "## 09:05 · user <!-- importance: -; session: tg-4412; agent: coder; id: 3f9a0c1e22b7 -->"
    older = "## 09:05 · user <!-- session: tg-4412; agent: coder; id: 3f9a0c1e22b7 -->"
    read = []
    for head in (now, older):
        (entry,) = parse_log(f"# 2026-11-30\n\n{head}\nhi\n", DAY)
        read.append((entry.role, entry.session, entry.agent, entry.id, entry.text))
    assert read[0] == read[1] == ("user", "tg-4412", "coder", "3f9a0c1e22b7", "hi")


def test_text_that_looks_like_a_heading_does_not_split_the_entry(tmp_path):
    path = tmp_path / "2026-11-30.md"
    tricky = "quoting a log:\n## 10:00 · user\nhello\n\n## 11:00 · note"
    append_entries(path, DAY, [NewEntry(at(12), "note", tricky), NewEntry(at(13), "user", "next")])
    entries = read_entries(path)
    assert [e.text for e in entries] == [tricky, "next"]
    assert entries[0].start_line == 3 and entries[0].end_line == 8


def test_appends_never_change_earlier_bytes(tmp_path):
    path = tmp_path / "2026-11-30.md"
    append_entries(path, DAY, [NewEntry(at(8), "user", "first")])
    before = path.read_bytes()
    append_entries(path, DAY, [NewEntry(at(9), "user", "second")])
    assert path.read_bytes().startswith(before)


def test_hand_edited_file_without_final_newline_gets_a_separator(tmp_path):
    path = tmp_path / "2026-11-30.md"
    path.write_bytes(b"# 2026-11-30\n\n- a note typed in VS Code")
    result = append_entries(path, DAY, [NewEntry(at(9), "user", "hi")])
    assert path.read_bytes().startswith(b"# 2026-11-30\n\n- a note typed in VS Code\n\n## 09:00")
    entries = read_entries(path)
    assert [e.text for e in entries] == ["- a note typed in VS Code", "hi"]
    assert (result.start_line, entries[1].start_line) == (5, 5)


def test_empty_text_and_bad_labels_are_refused(tmp_path):
    path = tmp_path / "2026-11-30.md"
    with pytest.raises(UsageError):
        append_entries(path, DAY, [NewEntry(at(9), "user", "  \n")])
    with pytest.raises(UsageError):
        append_entries(path, DAY, [NewEntry(at(9), "Al\nice", "x")])
    with pytest.raises(UsageError):
        append_entries(path, DAY, [NewEntry(at(9), "user", "x", "bad session -->")])
    assert not path.exists()


def test_free_form_openclaw_log_with_front_matter():
    text = (
        "---\ntitle: notes\ndate: 2026-11-08\n---\n"
        "# Saturday\n\n"
        "- Ran 12 km along the West Lake.\n"
        "- 10:30 asked for a training plan;\n  long run on Sundays.\n\n"
        "## Notes\n\n"
        "A paragraph about the cat,\nover two lines.\n"
    )
    entries = parse_log(text)
    assert [(e.start_line, e.end_line) for e in entries] == [(7, 7), (8, 9), (13, 14)]
    assert {e.day for e in entries} == {date(2026, 11, 8)}
    assert entries[1].time == "10:30"
    assert entries[2].text == "A paragraph about the cat,\nover two lines."
    assert all(e.role == "note" for e in entries)


def test_crlf_and_bom_are_read():
    text = (
        "\ufeff# 2026-11-30\r\n\r\n"
        "## 09:00 · user\r\nhello\r\nworld\r\n\r\n"
        "## 09:05 - Alice\r\nhi\r\n"
    )
    entries = parse_log(text)
    assert [(e.role, e.text, e.start_line, e.end_line) for e in entries] == [
        ("user", "hello\nworld", 3, 5),
        ("Alice", "hi", 7, 8),
    ]
    assert entries[0].day == DAY


def test_lenient_headings_written_by_others():
    text = "### [9:30] Bob\nmorning\n## 23:59\nlate\n## 25:00 · user\nnot a time\n"
    entries = parse_log(text, DAY)
    assert [(e.time, e.role, e.text) for e in entries] == [
        ("09:30", "Bob", "morning"),
        ("23:59", "note", "late\n## 25:00 · user\nnot a time"),
    ]


def test_example_workspace_logs_all_parse():
    root = Path(__file__).resolve().parent.parent / "workspace.example" / "memory"
    files = sorted(root.glob("*.md"))
    assert len(files) >= 10
    for path in files:
        entries = read_entries(path)
        assert entries, path
        assert all(e.day is not None for e in entries), path


# What `mem log` appended is exactly what the parser returns.
_texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    min_size=1,
    max_size=200,
).filter(lambda t: normalize_text(t).strip())
_lines = (
    st.lists(
        st.sampled_from(
            [
                "## 10:00 · user",
                "# 2026-01-01",
                "```",
                "- bullet",
                "",
                "  ",
                "---",
                "<!-- c -->",
                "中文行",
                "emoji 😀",
                "\r",
                "## 12:30 - Alice",
            ]
        ),
        min_size=1,
        max_size=8,
    )
    .map("\n".join)
    .filter(lambda t: normalize_text(t).strip())
)
_labels = st.sampled_from(["user", "assistant", "system", "note", "Alice", "小王", "Dr. Who"])


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    batch=st.lists(
        st.tuples(
            st.one_of(_texts, _lines),
            _labels,
            st.one_of(st.none(), st.sampled_from(["s1", "tg:99"])),
        ),
        min_size=1,
        max_size=5,
    )
)
@pytest.mark.slow
def test_round_trip(tmp_path_factory, batch):
    path = tmp_path_factory.mktemp("rt") / "2026-11-30.md"
    for i, (text, label, session) in enumerate(batch):
        append_entries(path, DAY, [NewEntry(at(10, i), label, text, session)])
    entries = read_entries(path)
    assert [(e.text, e.role, e.session, e.time) for e in entries] == [
        (normalize_text(text), label, session, f"10:{i:02d}")
        for i, (text, label, session) in enumerate(batch)
    ]
