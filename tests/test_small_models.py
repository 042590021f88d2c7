"""What a small local model's answers become (issue 35): a run that never stops at one bad
answer, structured output when the server takes it, no endless backlog, provenance that
cannot launder a line onto an entry that merely shares a word, history paragraphs that are
summaries, batches that fit the real prompt.

Answers are invented, in the shapes Qwen2.5-Coder 0.5B/1.5B returned through llama.cpp's
server (tests/test_real_answers.py has more of them)."""

from __future__ import annotations

import json
import re
from datetime import datetime

import git
import pytest
from helpers import snapshot
from llm_server import llama_cpp_model, skipping_all, tool_call
from test_real_answers import SIX, _added, _six, run, unused

from openclaw_mem.consolidate.checks import check
from openclaw_mem.consolidate.progress import PROGRESS_FILE, pending_entries
from openclaw_mem.consolidate.prompt import EXAMPLE_ANSWER, TEMPLATE_TOKENS
from openclaw_mem.consolidate.proposal import Edit, PromptEntry
from openclaw_mem.consolidate.schema import SCHEMA
from openclaw_mem.store.workspace import Workspace
from openclaw_mem.text import estimate_tokens


def _numbers(body: dict) -> list[int]:
    sent = body["messages"][-1]["content"]
    return [int(n) for n in re.findall(r"^\[E(\d+)\]", sent, re.M)]


def _answer_unless(word: str, history: str):
    """A step: garbage for a batch that holds `word`, else a skip of every entry."""

    def step(body: dict) -> tuple:
        if word in body["messages"][-1]["content"]:
            return ("text", "Sure! I have saved the important parts for you.")
        return tool_call({"history_entry": history, "edits": [], "skip": _numbers(body)})

    return step


# ------------------------------------------------------------ a run never stops at one answer


def test_one_unusable_answer_in_the_middle_leaves_its_batch_pending_and_the_run_goes_on(
    ws, llm, monkeypatch
):
    _six(ws)
    monkeypatch.setenv("MEM_LLM_BATCH_ENTRIES", "2")  # three batches of two entries
    # The middle batch (the allergy and the English request) gets text with no call in it,
    # every time it is asked; the other two are answered.
    llm.push(*[_answer_unless("花生", "[2026-12-01 09:05] Small talk.")] * 12)
    result = run(ws, llm, ok=False)
    assert result.exit_code == 11, (result.stdout, result.stderr)
    assert "left pending: 2 entries" in result.stdout and "partly done" in result.stdout
    assert "asked twice" in result.stdout
    left = [e.entry.text for e in pending_entries(Workspace(ws.root))]
    assert left == [SIX[2][2], SIX[3][2]]  # the middle batch, offered again
    subjects = [c.message.split("\n")[0] for c in git.Repo(ws.root).iter_commits(max_count=6)]
    assert sum(s.startswith("consolidate:") for s in subjects) == 2  # before and after it
    # Asked twice (each time the tool call, then the JSON-only request) before it was left.
    asked = [r for r in llm.requests if "花生" in r["messages"][-1]["content"]]
    assert len(asked) == 4
    assert ws.json("status")["consolidation"]["pending"] == 2


def test_an_answer_cut_at_the_cap_is_asked_again_in_two_halves(ws, llm, monkeypatch):
    _six(ws)

    def cut_when_whole(body: dict) -> tuple:
        numbers = _numbers(body)
        if len(numbers) > 3:
            return ("text-cut", '{"history_entry": "[2026-12-01 09:05] The user said the same')
        return tool_call(
            {"history_entry": "[2026-12-01 09:05] Small talk.", "edits": [], "skip": numbers}
        )

    llm.push(*[cut_when_whole] * 6)
    result = run(ws, llm)
    assert result.exit_code == 0 and "2 batches" in result.stdout  # the report counts both
    assert pending_entries(Workspace(ws.root)) == []
    sizes = [len(_numbers(r)) for r in llm.requests]
    assert sizes[-2:] == [3, 3]  # the six entries, asked again as two halves


@pytest.mark.slow
def test_an_answer_past_the_time_limit_is_asked_again_in_two_halves(ws, llm, monkeypatch):
    _six(ws)
    monkeypatch.setenv("MEM_LLM_TIMEOUT", "0.5")
    monkeypatch.setenv("MEM_LLM_MAX_RETRIES", "0")

    def slow_when_whole(body: dict) -> tuple:
        numbers = _numbers(body)
        if len(numbers) > 3:
            return ("hang", 1.5)
        return tool_call(
            {"history_entry": "[2026-12-01 09:05] Small talk.", "edits": [], "skip": numbers}
        )

    llm.push(*[slow_when_whole] * 6)
    result = run(ws, llm)
    assert result.exit_code == 0 and pending_entries(Workspace(ws.root)) == []
    sizes = [len(_numbers(r)) for r in llm.requests]
    assert sizes == [6, 3, 3]  # asked whole once, then as two halves


def test_a_provider_that_stops_answering_mid_run_is_partly_done(ws, llm, monkeypatch):
    _six(ws)
    monkeypatch.setenv("MEM_LLM_BATCH_ENTRIES", "3")
    monkeypatch.setenv("MEM_LLM_MAX_RETRIES", "0")
    llm.push(skipping_all("[2026-12-01 09:02] First half."), ("status", 500, "server died"))
    result = run(ws, llm, ok=False)
    assert result.exit_code == 11 and "not asked: the endpoint failed with HTTP 500" in (
        result.stdout
    )
    assert len(pending_entries(Workspace(ws.root))) == 3


def test_no_usable_answer_at_all_is_exit_7_and_writes_nothing(ws, llm):
    _six(ws)
    before = snapshot(ws.root)
    llm.push(*[("text", "I cannot help with that.")] * 4)
    result = run(ws, llm, ok=False)
    assert result.exit_code == 7 and "asked twice" in result.stderr
    assert result.stderr.count("\n") == 1
    assert snapshot(ws.root) == before


# ------------------------------------------------------------ structured output


def _answer(body: dict) -> tuple:
    return (
        "text",
        json.dumps(
            {
                "history_entry": "[2026-12-01 09:05] The user moved to Berlin.",
                "edits": [],
                "skip": _numbers(body),
            }
        ),
    )


def test_a_schema_request_is_sent_when_the_server_advertises_support(ws, llm, monkeypatch):
    _six(ws)
    monkeypatch.setenv("MEM_LLM_STRATEGY", "batch")
    llm.models = [llama_cpp_model()]  # llama.cpp's server: owned_by llamacpp
    llm.push(_answer)
    run(ws, llm)
    request = llm.requests[-1]
    assert llm.listed == 1
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["schema"] == SCHEMA
    assert "tools" not in request and "tool_choice" not in request
    assert pending_entries(Workspace(ws.root)) == []


def test_no_schema_request_when_the_server_does_not_advertise_or_it_is_off(ws, llm, monkeypatch):
    _six(ws)
    llm.push(skipping_all("[2026-12-01 09:05] Small talk."))
    run(ws, llm, "--dry-run")
    assert "response_format" not in llm.requests[-1] and "tools" in llm.requests[-1]
    llm.models = [{"id": "gpt-4o-mini", "object": "model", "owned_by": "openai"}]
    llm.push(skipping_all("[2026-12-01 09:05] Small talk."))
    run(ws, llm, "--dry-run")
    assert "response_format" not in llm.requests[-1]
    monkeypatch.setenv("MEM_LLM_STRUCTURED_OUTPUT", "off")
    monkeypatch.setenv("MEM_LLM_STRATEGY", "batch")
    llm.models = [llama_cpp_model()]
    llm.push(skipping_all("[2026-12-01 09:05] Small talk."))
    run(ws, llm, "--dry-run")
    assert "response_format" not in llm.requests[-1]


def test_a_gateway_that_lists_supported_parameters_gets_the_schema(ws, llm, monkeypatch):
    _six(ws)
    llm.models = [
        {
            "id": "small",
            "object": "model",
            "owned_by": "someone",
            "supported_parameters": ["tools", "structured_outputs"],
        }
    ]
    llm.push(_answer)
    run(ws, llm)
    assert llm.requests[-1]["response_format"]["type"] == "json_schema"


def test_a_server_that_refuses_the_schema_is_asked_with_the_tool(ws, llm, monkeypatch):
    _six(ws)
    monkeypatch.setenv("MEM_LLM_STRUCTURED_OUTPUT", "schema")
    llm.push(
        ("status", 400, "response_format json_schema is not supported"),
        skipping_all("[2026-12-01 09:05] Small talk."),
    )
    run(ws, llm)
    assert "response_format" in llm.requests[0] and "tools" in llm.requests[1]
    assert pending_entries(Workspace(ws.root)) == []


def test_a_call_wrapped_under_function_is_read():
    from openclaw_mem.consolidate.schema import read_answer

    wrapped = {
        "function": "save_memory",
        "arguments": {"history_entry": "[2026-12-01 09:00] Moved.", "edits": [], "skip": [1]},
    }
    found = read_answer(json.dumps(wrapped), entries=2, last=datetime(2026, 12, 1, 9))
    assert found.skip == (1,) and found.history_entry.endswith("Moved.")


# ------------------------------------------------------------ no endless backlog


def _silent(body: dict) -> tuple:
    """An answer that neither cites nor skips anything: what 195 of 213 entries met."""
    return tool_call({"history_entry": "[2026-12-01 09:05] Talked.", "edits": []})


def test_entries_a_model_never_uses_are_passed_over_after_max_offers(ws, llm, monkeypatch):
    _six(ws)
    monkeypatch.setenv("MEM_CONSOLIDATE_MAX_OFFERS", "2")
    llm.push(_silent)
    first = unused(ws, llm).stdout
    assert "nothing in the answer could be used" in first
    assert len(pending_entries(Workspace(ws.root))) == 6
    llm.push(_silent)
    second = run(ws, llm).stdout
    assert "6 entries passed over" in second
    assert pending_entries(Workspace(ws.root)) == []
    record = (ws.root / PROGRESS_FILE).read_text(encoding="utf-8")
    assert record.count(" passed memory/") == 6
    history = (ws.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "6 log entries passed over after 2 offers that kept nothing." in history
    # Visible where a person looks, and undoable.
    assert ws.json("status")["consolidation"]["passed"] == 6
    assert "6 passed over (mem review --reoffer)" in ws("status").stdout
    assert "6 log entries passed over" in ws("review").stdout
    assert ws.json("review")["passedOver"] == 6
    out = ws("review", "--reoffer").stdout
    assert "6 passed-over log entries offered again, committed" in out
    assert len(pending_entries(Workspace(ws.root))) == 6
    assert ws.json("status")["consolidation"]["passed"] == 0
    ws("undo")  # the re-offer is a change of mem's like any other
    assert ws.json("status")["consolidation"]["passed"] == 6


def test_max_offers_zero_offers_an_entry_until_a_model_takes_it(ws, llm, monkeypatch):
    _six(ws)
    monkeypatch.setenv("MEM_CONSOLIDATE_MAX_OFFERS", "0")
    for _ in range(3):
        llm.push(_silent)
        unused(ws, llm)
    assert len(pending_entries(Workspace(ws.root))) == 6


def test_a_dry_run_counts_no_offer(ws, llm, monkeypatch):
    _six(ws)
    monkeypatch.setenv("MEM_CONSOLIDATE_MAX_OFFERS", "1")
    llm.push(_silent)
    run(ws, llm, "--dry-run")
    assert len(pending_entries(Workspace(ws.root))) == 6


@pytest.mark.parametrize("first", ["--dry-run", "--propose"])
def test_a_dry_run_or_a_proposal_adds_no_offer_to_the_count(ws, llm, monkeypatch, first):
    """With max_offers 2, a dry run (or --propose) and one real run are one offer: the
    entries stay pending. Counted, they would be passed over by that real run."""
    _six(ws)
    monkeypatch.setenv("MEM_CONSOLIDATE_MAX_OFFERS", "2")
    llm.push(_silent)
    run(ws, llm, first, ok=False)
    llm.push(_silent)
    unused(ws, llm)
    assert len(pending_entries(Workspace(ws.root))) == 6
    assert ws.json("status")["consolidation"]["passed"] == 0
    llm.push(_silent)
    run(ws, llm)  # the second offer that counts
    assert ws.json("status")["consolidation"]["passed"] == 6


# ------------------------------------------------------------ provenance that cannot launder


def test_feeding_the_instructions_example_back_writes_nothing(ws, llm):
    _six(ws)
    before = snapshot(ws.root)
    llm.push(tool_call(EXAMPLE_ANSWER))
    out = unused(ws, llm).stdout
    assert snapshot(ws.root) == before  # no line, no paragraph, no record, no commit
    assert "nothing in the answer could be used" in out
    assert len(pending_entries(Workspace(ws.root))) == 6  # its skip list is not its word
    held = json.dumps(ws.json("review"))
    assert "Acme" in held and "the instructions' example" in held


NOW = datetime(2023, 5, 8, 13, 56)


def _prompt(*said: tuple[str, str]) -> tuple[PromptEntry, ...]:
    return tuple(
        PromptEntry(f"memory/2023-05-08.md#L{3 + 3 * i}", NOW, role, text, number=i + 1)
        for i, (role, text) in enumerate(said)
    )


def _add(text: str, sources=(1,), file="USER") -> Edit:
    kind = {"USER": "identity", "AGENTS": "rule", "MEMORY": "fact"}[file]
    return Edit(file, "add", kind, 0.8, 0.9, text=text, sources=tuple(sources))


CHAT = _prompt(
    ("user", "Hey Andrew! Long time no see, what have you been up to since we last talked?"),
    ("Andrew", "I got a new puppy named Toby, and we go hiking every weekend."),
    ("user", "Been playing any new games lately?"),
    ("user", "I just finished my first marathon in Berlin last Sunday!"),
)


def _held(edit: Edit, prompt=CHAT) -> str:
    ok, held = check([edit], prompt)
    assert ok == [], ok
    return held[0][1]


def test_a_line_its_entry_does_not_say_is_held_never_re_pinned():
    # What reached USER.md with a src=: the example, citing a greeting that shares "since".
    why = _held(_add("Works at Acme as a data engineer since 2025-03"))
    assert "E1 does not say this" in why or "example" in why
    assert "does not say this" in _held(_add("Lives in Berlin, has a pet", [1]))
    # A citation to the entry that does say it stands.
    ok, _ = check([_add("Finished a first marathon in Berlin", [4])], CHAT)
    assert [e.sources for e in ok] == [(4,)]


def test_what_is_not_a_memory_line_is_held():
    assert "saved" in _held(_add("Added 'Finished a marathon in Berlin' as a durable fact.", [4]))
    struck = "~~fact i=0.8 c=0.9 2023-05-08 src=memory/2023-05-08.md#L12~~ marathon Berlin"
    assert "metadata" in _held(_add(struck, [4]))
    assert "question" in _held(_add("Is playing any new games?", [3]))
    assert "first person" in _held(_add("We go hiking every weekend", [2], file="MEMORY"))
    assert "first person" in _held(_add("我们每个周末去爬山", [4], file="MEMORY"))


def test_user_lines_come_from_the_user_and_rules_from_a_request():
    why = _held(_add("Has a puppy named Toby", [2]))
    assert "E2 (Andrew) is another speaker's words" in why
    rule = _add("Ask the user about new games", [3], file="AGENTS")
    assert "asking the agent" in _held(rule)
    asked = _prompt(("user", "Please keep your answers short from now on"))
    ok, _ = check([_add("Keep answers to the user short", [1], file="AGENTS")], asked)
    assert len(ok) == 1


def test_a_first_person_chinese_line_is_rewritten_about_the_user():
    said = _prompt(("user", "我对花生过敏，点外卖的时候记得提醒我"))
    ok, _ = check([_add("我对花生过敏", [1])], said)
    assert [e.text for e in ok] == ["对花生过敏"]
    ok, _ = check([_add("我对花生过敏", [1], file="MEMORY")], said)
    assert [e.text for e in ok] == ["用户对花生过敏"]
    assert "first person" in _held(_add("对花生过敏，提醒我", [1]), said)


# ------------------------------------------------------------ history paragraphs


def test_history_is_stamped_with_the_entries_time_in_the_third_person(ws, llm):
    _six(ws)
    copied = {  # a small model: the run's time, and one turn copied in the first person
        "history_entry": "[2026-12-24 18:00] user: I just moved to Berlin last week and I'm "
        "building a Go backend.",
        "edits": [_added("Lives in Berlin", [1], importance=0.8)],
        "skip": [2],
    }
    llm.push(tool_call(copied))
    run(ws, llm)
    history = (ws.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "[2026-12-01 09:05] The user lives in Berlin. 1 log entry of 6 held nothing" in history
    assert "2026-12-24" not in history and "I just moved" not in history


def test_the_fallback_paragraph_counts_what_it_says(ws, llm):
    _six(ws)
    # One entry dropped, nothing kept, five still pending: the paragraph says just that.
    llm.push(tool_call({"history_entry": "[2026-12-01 09:05]", "edits": [], "skip": [2]}))
    run(ws, llm)
    history = (ws.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "1 log entry of 6 held nothing to keep" in history
    assert "5 log entries still pending" in history


# ------------------------------------------------------------ batches that fit


def test_every_batch_fits_the_context_with_the_schema_and_the_template(ws, llm, monkeypatch):
    monkeypatch.setenv("MEM_LLM_CONTEXT_TOKENS", "6000")
    for i in range(40):
        ws("log", "--at", f"2026-11-26T10:{i:02d}", f"Entry {i}: " + "settlement detail " * 25)
    llm.push(*[skipping_all(f"[2026-11-26 10:{i:02d}] Batch {i}.") for i in range(20)])
    run(ws, llm)
    assert len(llm.requests) >= 2
    for request in llm.requests:
        sent = sum(estimate_tokens(m["content"]) for m in request["messages"])
        schema = estimate_tokens(json.dumps(request["tools"]))
        assert sent + schema + TEMPLATE_TOKENS <= 6000 - 2000, (sent, schema)
