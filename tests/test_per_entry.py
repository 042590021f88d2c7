"""The per-entry strategy (llm.strategy = entry): one short question per entry, the facts a
small model answers made lines by code, each citing the entry it was asked about.

The scripted server answers as Qwen2.5-Coder 1.5B did through llama.cpp (invented content,
the documented shapes): the message copied in the first person, "The speaker …", facts
about the other person, facts the message never said, an empty list for small talk."""

from __future__ import annotations

import json

from helpers import record
from llm_server import llama_cpp_model
from test_real_answers import _six, run

from openclaw_mem.consolidate.progress import pending_entries
from openclaw_mem.consolidate.proposal import PromptEntry
from openclaw_mem.consolidate.providers.facts import line_of, names, place, says
from openclaw_mem.store.workspace import Workspace

ANSWERS = {  # a word of the message -> what the small model said about it
    "Berlin": ["I just moved to Berlin last week", "The speaker is building a Go backend."],
    "花生": ["The speaker is allergic to peanuts"],
    "English": ["Prefers short and direct answers in English"],
    "sister": ["Works as a nurse", "Mel is visiting next weekend", "Has a sister named Ana"],
}


def _facts(body: dict) -> tuple:
    message = body["messages"][-1]["content"].split("The message, written by", 1)[-1]
    said = next((facts for word, facts in ANSWERS.items() if word in message), [])
    return ("text", json.dumps({"facts": said}))


def test_the_entry_strategy_asks_one_question_per_entry_and_cites_it(ws, llm, monkeypatch):
    _six(ws)
    monkeypatch.setenv("MEM_LLM_STRATEGY", "entry")
    llm.push(*[_facts] * 10)
    out = run(ws, llm).stdout
    # The user's entries that speak of the writer; not the assistant's, not "We switched".
    assert len(llm.requests) == 4
    assert all(r["temperature"] == 0 and r["max_tokens"] <= 256 for r in llm.requests)
    user = (ws.root / "USER.md").read_text(encoding="utf-8")
    memory = (ws.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "- Moved to Berlin on the week of" not in user  # relative time made a date
    moved = "- Moved to Berlin in the week of 2026-11-23 [2026-12-01](memory/2026-12-01.md#L3-L4)"
    assert moved in user
    assert record(ws.root, "USER", "Moved to Berlin in the week of 2026-11-23").type == "identity"
    assert "Go backend" not in memory  # one line an entry: its first fact that makes one
    assert "- Prefers short and direct answers in English [2026-12-01](" in user
    assert "- Has a sister named Ana [2026-12-01](" in user
    assert "- Is allergic to peanuts [2026-12-01](" in user  # from 我对花生过敏: another script
    assert "nurse" not in user + memory
    assert "Mel" not in user + memory  # about someone else
    assert "I just" not in user + out
    # Every entry is cited or skipped: nothing is left pending for the next run.
    assert pending_entries(Workspace(ws.root)) == []
    history = (ws.root / "HISTORY.md").read_text(encoding="utf-8")
    # History, not a list: the user named, the facts one sentence, the rest of the batch told.
    assert (
        "[2026-12-01 09:05] The user moved to Berlin in the week of 2026-11-23, is allergic to "
        "peanuts, prefers short and direct answers in English and has a sister named Ana. 2 log "
        "entries of 6 held nothing to keep"
    ) in history
    assert "Noted:" not in history


def test_a_small_model_on_llama_cpp_gets_the_entry_strategy_and_the_schema(ws, llm):
    _six(ws)
    llm.models = [llama_cpp_model(1.5e9)]
    llm.push(*[_facts] * 10)
    run(ws, llm)
    assert llm.listed == 1 and len(llm.requests) == 4
    form = llm.requests[0]["response_format"]
    assert form["type"] == "json_schema" and "facts" in form["json_schema"]["schema"]["required"]
    assert "tools" not in llm.requests[0]


def test_a_large_model_on_llama_cpp_keeps_the_batch_strategy(ws, llm):
    _six(ws)
    llm.models = [llama_cpp_model(8e9)]
    llm.push(("text", json.dumps({"history_entry": "[2026-12-01 09:05] x y.", "skip": [2]})))
    run(ws, llm)
    assert len(llm.requests) == 1 and "save_memory" in json.dumps(llm.requests[0])


def test_an_entry_whose_question_gets_no_answer_stays_pending(ws, llm, monkeypatch):
    _six(ws)
    monkeypatch.setenv("MEM_LLM_STRATEGY", "entry")

    def broken_on_ana(body: dict) -> tuple:
        if "sister" in body["messages"][-1]["content"]:
            return ("text", "Sure! Ana is her sister.")
        return _facts(body)

    llm.push(*[broken_on_ana] * 10)
    run(ws, llm)
    left = [e.entry.text for e in pending_entries(Workspace(ws.root))]
    assert left == ["My sister Ana is visiting next weekend."]  # asked twice, then left
    assert sum("sister" in r["messages"][-1]["content"] for r in llm.requests) == 2


def test_a_fact_the_files_already_hold_is_not_added_again(ws, llm, monkeypatch):
    user = ws.root / "USER.md"
    user.write_text(
        user.read_text(encoding="utf-8") + "\n- Is allergic to peanuts.\n", encoding="utf-8"
    )
    _six(ws)
    monkeypatch.setenv("MEM_LLM_STRATEGY", "entry")
    llm.push(*[_facts] * 10)
    run(ws, llm)
    text = user.read_text(encoding="utf-8")
    assert text.count("llergic to peanuts") == 1  # the line that was there, not a second
    assert "- Has a sister named Ana [2026-12-01](" in text  # what is new still comes in


def test_a_new_fact_that_says_a_change_deprecates_the_line_it_replaces(ws, llm, monkeypatch):
    """The entry says the change itself ("now", a move: search/currency.py): the line it
    replaces is deprecated without a second question (issue 39)."""
    monkeypatch.setenv("MEM_LLM_STRATEGY", "entry")
    (ws.root / "USER.md").write_text(
        "# USER\n\n## Identity\n\n- Lives in Lisbon\n", encoding="utf-8"
    )
    ws("commit", "-m", "profile")
    ws("log", "--at", "2026-12-01T09:00", "--role", "user", "I live in Porto now, by the river.")
    llm.push(("text", json.dumps({"facts": ["Lives in Porto now"]})))
    run(ws, llm)
    user = (ws.root / "USER.md").read_text(encoding="utf-8")
    assert "~~Lives in Lisbon~~ (deprecated 2026-12-01 → Lives in Porto now)" in user
    assert len(llm.requests) == 1


def test_a_new_fact_that_may_replace_a_line_is_asked_about(ws, llm, monkeypatch):
    monkeypatch.setenv("MEM_LLM_STRATEGY", "entry")
    (ws.root / "USER.md").write_text(
        "# USER\n\n## Identity\n\n- Works as a teacher\n", encoding="utf-8"
    )
    ws("commit", "-m", "profile")
    ws("log", "--at", "2026-12-01T09:00", "--role", "user", "I'm a nurse at the city hospital.")
    llm.push(
        ("text", json.dumps({"facts": ["Works as a nurse at the city hospital"]})),
        ("text", json.dumps({"replaces": True})),
    )
    run(ws, llm)
    user = (ws.root / "USER.md").read_text(encoding="utf-8")
    assert "~~Works as a teacher~~ (deprecated 2026-12-01 → Works as a nurse" in user
    assert "Profile line: Works as a teacher" in llm.requests[1]["messages"][-1]["content"]


def _entry(text: str, role: str = "user") -> PromptEntry:
    return PromptEntry("memory/2023-05-08.md#L3-L4", None, role, text, number=1)


def test_a_fact_is_made_a_line_about_the_writer_or_left_out():
    entry = _entry("I went to a LGBTQ support group yesterday and it was so powerful.")
    line = line_of("I went to a LGBTQ support group yesterday and it was so powerful.")
    assert line == "Went to a LGBTQ support group yesterday" and says(line, entry)
    # A line about the writer opens with what they do: a subject of its own is not a fact.
    assert line_of("The speaker's goal is to give kids a loving home") is None
    assert line_of("The speaker is a nurse") == "Is a nurse"
    assert line_of("I totally agree, Melanie", {"Melanie"}) is None
    assert line_of("I'm so excited too!") is None  # a passing mood
    assert line_of("I even found a place with great natural light") == (
        "Found a place with great natural light"
    )
    assert line_of("They chose them because they help LGBTQ+ folks") is None  # chose what?
    assert line_of("Thanks, Melanie") is None
    assert line_of("Please suggest Go code in that style") is None  # "that style": which?
    assert line_of("Is off to do some research?") is None
    assert line_of("We do all kinds of dances") is None
    mel = names(_entry("Totally agree, Mel. I'm off to go do some research."), None)
    assert line_of("Mel relaxes and expresses herself", mel) is None
    assert not says("Works as a nurse", entry)


def test_where_a_line_goes():
    assert place("Plans to adopt a child next year")[:2] == ("USER", "Goals")
    assert place("Loves contemporary dance")[:2] == ("USER", "Preferences")
    assert place("Works as a banker")[:2] == ("USER", "Identity")
    file, section, _, text = place("Went to a LGBTQ support group yesterday")
    assert (file, section, text) == (
        "MEMORY",
        "Facts",
        "User went to a LGBTQ support group yesterday",
    )
