"""Recall that reads a question's dates and a conversation's context: a question that
names its days finds the entry of those days (by its own date or the days its words speak
of), a "when" question the entry that says when, and a reply that names its subject only
by "it" is found through the entry it answers, and says which entry that is."""

from __future__ import annotations

from datetime import datetime

from helpers import ask, entry_lines

from openclaw_mem.recall.pipeline import RecallOptions


def _said(memory, at: str, text: str, speaker: str = "Jolene") -> None:
    memory.log(text, speaker=speaker, at=datetime.fromisoformat(at))


def test_a_question_that_names_a_month_finds_the_entry_of_that_month(memory):
    _said(memory, "2023-01-23T10:00", "I finished an electrical engineering project last week.")
    _said(memory, "2023-03-02T10:00", "The garden project is going slowly, the project needs rain.")
    _said(memory, "2023-04-18T10:00", "New project at work: a robotics project, a big project.")
    q = "What project was Jolene working on in the beginning of January 2023?"
    hits = ask(memory, q, "2023-05-01").hits
    assert "electrical engineering" in entry_lines(memory, hits)[0]
    assert hits[0].explain["days"] == "in"
    # without reading the question's dates, the April entry (most words, newest) is first
    plain = ask(memory, q, "2023-05-01", dates=False).hits
    assert "robotics" in entry_lines(memory, plain)[0]


def test_a_chinese_question_that_names_last_summer(memory):
    _said(memory, "2022-07-10T20:00", "我们去了青岛看海，吃了很多海鲜。", "user")
    _said(memory, "2023-07-10T20:00", "我们去了成都，吃了火锅，看了熊猫。", "user")
    _said(memory, "2023-09-20T20:00", "我们去了超市买菜。", "user")
    hits = ask(memory, "去年夏天我们去了哪里？", "2023-10-01").hits
    assert "青岛" in entry_lines(memory, hits)[0]


def test_a_when_question_prefers_the_entry_that_says_when(memory):
    _said(
        memory,
        "2023-06-10T09:00",
        "The support group meets every week, the support group is great.",
    )
    _said(memory, "2023-06-12T09:00", "I went to the support group yesterday, it was moving.")
    _said(memory, "2023-06-14T09:00", "The support group helps me so much, support group forever.")
    hits = ask(memory, "When did Jolene go to the support group?", "2023-07-01").hits
    assert "yesterday" in entry_lines(memory, hits)[0]


def test_a_reply_by_pronoun_is_found_through_the_turn_it_answers(memory):
    _said(memory, "2023-05-08T14:00", "My second snake Seraphim arrived, she is beautiful!", "user")
    _said(memory, "2023-05-08T14:01", "Where is she from?", "assistant")
    _said(memory, "2023-05-08T14:02", "I bought it a year ago in Paris, at a small shop.", "user")
    _said(memory, "2023-05-01T10:00", "Corn snakes eat a mouse a week.", "user")
    _said(memory, "2023-05-02T10:00", "A snake sheds its skin when it grows.", "user")
    question = "Where did I get my snake Seraphim?"
    result = ask(memory, question, "2023-05-10")
    lines = entry_lines(memory, result.hits)
    reply = next(h for h, line in zip(result.hits, lines, strict=True) if "Paris" in line)
    carrier = next(h for h, line in zip(result.hits, lines, strict=True) if "Seraphim" in line)
    # two links back ("it" answers "Where is she from?", which points at Seraphim): the
    # result names the entry that says what "it" is, and keeps its own lines
    assert reply.subject == carrier.citation == "memory/2023-05-08.md#L3-L4"
    assert reply.to_json()["subject"] == carrier.citation
    assert (reply.start_line, reply.end_line) == (9, 10)
    # without the link the reply is not found: it shares no word with the question
    plain = ask(memory, question, "2023-05-10", refer_share=0)
    assert not any("Paris" in line for line in entry_lines(memory, plain.hits))


def test_a_new_subject_after_a_found_turn_is_not_pulled_in(memory):
    _said(memory, "2023-05-08T14:00", "My second snake Seraphim arrived yesterday.", "Ana")
    _said(memory, "2023-05-08T14:01", "Cool. Unrelated: my band plays on Friday.", "Ben")
    hits = ask(memory, "snake Seraphim", "2023-05-10").hits
    assert not any("band" in line for line in entry_lines(memory, hits))


def test_the_options_default_to_what_the_benchmark_chose():
    opts = RecallOptions()
    assert (opts.refer_share, opts.refer_hops, opts.when_boost) == (0.7, 2, 0.5)
    assert (opts.date_miss, opts.date_slack, opts.date_words) == (0.5, 7.0, False)


def test_the_cli_says_which_entry_carries_the_subject(ws):
    ws("log", "--at", "2023-05-08T14:00", "--role", "user", "My snake Seraphim arrived today!")
    ws("log", "--at", "2023-05-08T14:01", "--role", "assistant", "Where is she from?")
    ws("log", "--at", "2023-05-08T14:02", "--role", "user", "I bought it in Paris.")
    out = ws.json("recall", "--now", "2023-05-10", "where did I get my snake Seraphim")
    reply = next(r for r in out["results"] if "Paris" in r["snippet"])
    assert reply["subject"] == "memory/2023-05-08.md#L3-L4"
    assert all("subject" not in r for r in out["results"] if "Seraphim" in r["snippet"])
