"""Edit application: deterministic, idempotent, and a person's lines are sacred."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_mem.consolidate.edits import apply_edits, apply_to_text, core
from openclaw_mem.consolidate.schema import Edit

DAY = date(2026, 11, 30)
_person = st.sampled_from(
    [
        "- Lin Wei, backend engineer.",
        "- 喜欢喝乌龙茶",
        "Some paragraph a person wrote.",
        "",
        "## Identity",
        "## Preferences",
        "## Notes",
        "- ~~old fact~~ (deprecated 2026-01-01)",
        "  - nested detail",
        "1. numbered item",
        "- Uses Python <!-- fact i=0.5 c=0.9 2026-11-01 -->",
    ]
)
_texts = st.sampled_from(
    [
        "Uses Go for the backend.",
        "喜欢跑步",
        "Lives in Hangzhou.",
        "Likes tea.",
        "Lin Wei, backend engineer.",
        "Uses Python",
    ]
)
_edit = st.builds(
    Edit,
    file=st.just("USER"),
    op=st.sampled_from(["add", "update", "deprecate", "delete"]),
    type=st.sampled_from(["fact", "preference", "identity", "goal", "rule", "event"]),
    importance=st.floats(0, 1),
    confidence=st.floats(0, 1),
    section=st.sampled_from(["", "Identity", "Preferences", "New Section"]),
    text=_texts,
    target=st.sampled_from(
        ["- Lin Wei, backend engineer.", "Uses Python", "喜欢喝乌龙茶", "absent"]
    ),
)
_docs = st.lists(_person, max_size=15).map(lambda ls: "\n".join(["# USER", *ls]) + "\n")


@settings(max_examples=300, deadline=None)
@given(doc=_docs, edits=st.lists(_edit.filter(lambda e: e.op == "add"), max_size=6))
@pytest.mark.slow
def test_adds_never_remove_a_line(doc, edits):
    new, _ = apply_to_text(doc, edits, DAY)
    old_lines, new_lines = doc.splitlines(), new.splitlines()
    it = iter(new_lines)
    assert all(any(line == n for n in it) for line in old_lines)  # old lines, in order


@settings(max_examples=300, deadline=None)
@given(doc=_docs, edits=st.lists(_edit, max_size=6))
@pytest.mark.slow
def test_applying_the_same_edits_twice_changes_nothing_the_second_time(doc, edits):
    once, _ = apply_edits({"USER.md": doc}, edits, DAY)
    twice, _ = apply_edits(once, edits, DAY)
    assert twice == once


@settings(max_examples=300, deadline=None)
@given(doc=_docs, edits=st.lists(_edit, max_size=6))
@pytest.mark.slow
def test_a_persons_line_survives_unless_an_edit_targets_it(doc, edits):
    new, outcomes = apply_edits({"USER.md": doc}, edits, DAY)
    targeted = {
        core(o.edit.target).casefold() for o in outcomes if o.applied and o.edit.op != "add"
    }
    targeted |= {o.edit.target.strip() for o in outcomes if o.applied and o.edit.op != "add"}
    kept = new["USER.md"].splitlines()
    for line in doc.splitlines():
        if line.strip() in targeted or core(line).casefold() in targeted:
            continue
        assert line in kept


def test_a_section_an_edit_made_and_took_away_again_leaves_the_persons_blank_line():
    """Hypothesis found it: "# USER\n\n", a line added (in a section made for it) and
    deleted again, lost the person's blank line with the section."""
    added = Edit("USER", "add", "fact", 0.0, 1.0, text="Lin Wei, backend engineer.")
    gone = Edit("USER", "delete", "fact", 0.0, 1.0, target="- Lin Wei, backend engineer.")
    new, outcomes = apply_edits({"USER.md": "# USER\n\n"}, [added, gone], DAY)
    assert [o.status for o in outcomes] == ["applied", "applied"]
    assert new["USER.md"] == "# USER\n\n"


def test_operations():
    doc = (
        "# USER\n\n## Identity\n\n- Uses Python. <!-- identity i=0.7 c=0.9 2026-11-02 -->\n\n"
        "## Goals\n"
    )
    edits = [
        Edit("USER", "deprecate", "identity", 0.8, 0.9, text="Uses Go.", target="Uses Python."),
        Edit("USER", "add", "goal", 0.6, 0.8, text="Run a marathon."),
        Edit("USER", "add", "preference", 0.6, 0.8, text="Short answers."),
        Edit(
            "USER", "update", "identity", 0.6, 0.8, text="Uses Go and Rust.", target="missing line"
        ),
        Edit("USER", "add", "goal", 0.6, 0.2, text="Maybe learn Haskell."),
    ]
    new, outcomes = apply_to_text(doc, edits, DAY)
    assert new == (
        "# USER\n\n## Identity\n\n"
        "- ~~Uses Python.~~ (deprecated 2026-11-30 → Uses Go.) "
        "<!-- identity i=0.7 c=0.9 2026-11-02 -->\n"
        "- Uses Go.\n\n"
        "## Goals\n\n- Run a marathon.\n\n"
        "## Preferences\n\n- Short answers.\n"
    )
    assert [o.status for o in outcomes] == [
        "applied",
        "applied",
        "applied",
        "missing-target",
        "low-confidence",
    ]
    deleted, _ = apply_to_text(
        new, [Edit("USER", "delete", "goal", 1, 1, target="- Run a marathon.")], DAY
    )
    assert "marathon" not in deleted


def test_a_target_there_twice_is_not_guessed_and_an_add_is_never_a_duplicate():
    doc = "# MEMORY\n\n## Facts\n\n- Uses Redis.\n- Uses Redis.\n- Runs on arm.\n"
    edits = [
        Edit("MEMORY", "update", "fact", 0.8, 0.9, text="Uses Valkey.", target="Uses Redis."),
        Edit("MEMORY", "deprecate", "fact", 0.8, 0.9, text="x.", target="- Uses Redis."),
        Edit("MEMORY", "add", "fact", 0.8, 0.9, text="Runs on arm."),
    ]
    new, outcomes = apply_to_text(doc, edits, DAY)
    assert new == doc
    assert [o.status for o in outcomes] == ["ambiguous-target", "ambiguous-target", "duplicate"]


def test_crlf_files_stay_crlf():
    doc = "# USER\r\n\r\n## Identity\r\n\r\n- Lin Wei\r\n"
    new, _ = apply_to_text(
        doc, [Edit("USER", "add", "identity", 1, 1, text="Lives in Hangzhou.")], DAY
    )
    assert new == ("# USER\r\n\r\n## Identity\r\n\r\n- Lin Wei\r\n- Lives in Hangzhou.\r\n")
