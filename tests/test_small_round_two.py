"""Small models writing correct memory, round two (issue 41): the per-entry strategy against
the scripted server, answering as Qwen2.5-Coder 1.5B did (`{"facts": [...]}` as text, the
writer's words kept, facts about a pet, a colleague or the other speaker given as the
writer's, an answer cut at the token cap). Invented content, the recorded shapes."""

from __future__ import annotations

import json

from llm_server import tool_call
from test_real_answers import run

from openclaw_mem.consolidate.person import not_a_sentence
from openclaw_mem.consolidate.progress import pending_entries
from openclaw_mem.format.markdown import core, is_live_bullet, split_doc
from openclaw_mem.store.workspace import Workspace

TALK = [  # (time, speaker, what they said, what the small model answered about it)
    ("09:00", "assistant", "How are the dogs doing these days?", None),
    (
        "09:01",
        "user",
        "My dogs Precious and Pixie are Chihuahua mixes. They can do tricks like sit and stay!",
        ["Precious and Pixie are Chihuahua mixes", "They can do tricks like sit and stay"],
    ),
    (
        "09:02",
        "user",
        "Honestly I haven’t worked with any other programming languages besides Python.",
        ["I haven’t worked with any other programming languages besides Python"],
    ),
    (
        "09:03",
        "user",
        "Roasted chicken is one of my favorites, especially with lemon.",
        ["Roasted chicken is one of their favorites"],
    ),
    (
        "09:04",
        "user",
        "My boss Dana just moved to Singapore, so our standups are at 8 now.",
        ["Lives in Singapore", "Has standups at 8"],
    ),
    (
        "09:05",
        "user",
        "Thanks! I hope you find the perfect dog-friendly spot soon.",
        ["Needs to find a dog-friendly spot soon"],
    ),
    (
        "09:06",
        "user",
        "Yeah, birds are amazing! I can imagine how calm it was.",
        ["Has always been awed by birds"],
    ),
]


def _log(ws, talk) -> None:
    for hhmm, who, said, _ in talk:
        ws("log", "--at", f"2026-12-01T{hhmm}", "--role", who, said)


def _asked_about(body: dict) -> str:
    """The message a per-entry question asks about (not the one before it, given as
    context)."""
    return body["messages"][-1]["content"].split("The message, written by", 1)[-1]


def _answers(talk):
    def step(body: dict) -> tuple:
        message = _asked_about(body)
        facts = next((f for _, _, said, f in talk if f and said in message), [])
        return ("text", json.dumps({"facts": facts}, ensure_ascii=False))

    return step


def _lines(ws, name: str) -> list[str]:
    text = (ws.root / name).read_text(encoding="utf-8")
    return [core(line) for line in split_doc(text).lines if is_live_bullet(line)]


def test_lines_are_whole_sentences_about_the_right_person(ws, llm, monkeypatch):
    monkeypatch.setenv("MEM_LLM_STRATEGY", "entry")
    _log(ws, TALK)
    llm.push(*[_answers(TALK)] * 12)
    run(ws, llm)
    user, memory = _lines(ws, "USER.md"), _lines(ws, "MEMORY.md")
    written = user + memory
    # Whole sentences: no split contraction, no "User" in front of a noun.
    assert all(not_a_sentence(line) is None for line in written), written
    assert not any("'t" in x.replace("n't", "") or "’t" in x.replace("n’t", "") for x in written)
    assert "Likes roasted chicken" in user
    assert "User hasn’t worked with any other programming languages besides Python" in memory
    assert "The user's dogs Precious and Pixie are Chihuahua mixes" not in memory  # not said so
    # The right person: a colleague's move is not the user's; it is kept, named, in MEMORY.md.
    assert not any("Singapore" in line for line in user)
    assert "The user's boss Dana just moved to Singapore" in memory
    # "they" (the dogs), "you" (the other speaker), birds: nobody's fact becomes the user's.
    for other in ("tricks", "dog-friendly", "birds", "Precious"):
        assert not any(other in line for line in written), (other, written)
    assert pending_entries(Workspace(ws.root)) == []  # each entry cited or skipped


def test_a_pet_the_user_names_is_kept_as_the_users(ws, llm, monkeypatch):
    monkeypatch.setenv("MEM_LLM_STRATEGY", "entry")
    talk = [
        (
            "09:01",
            "user",
            "My dogs Precious and Pixie are Chihuahua mixes.",
            ["The speaker's dogs Precious and Pixie are Chihuahua mixes"],
        )
    ]
    _log(ws, talk)
    llm.push(_answers(talk))
    run(ws, llm)
    assert _lines(ws, "MEMORY.md") == ["The user's dogs Precious and Pixie are Chihuahua mixes"]
    assert _lines(ws, "USER.md") == []


CUT = '{"facts": ["Grows chil'  # what the server sent when the answer hit max_tokens


def test_a_cut_off_answer_is_asked_again_then_left_pending_never_written(ws, llm, monkeypatch):
    monkeypatch.setenv("MEM_LLM_STRATEGY", "entry")
    ws("log", "--at", "2026-12-01T09:00", "--role", "user", "I grow chillies on my balcony.")
    ws("log", "--at", "2026-12-01T09:01", "--role", "user", "I teach chemistry at a school.")

    def answer(body: dict) -> tuple:
        if "chillies" in _asked_about(body):
            return ("text-cut", CUT)
        return ("text", json.dumps({"facts": ["Teaches chemistry at a school"]}))

    llm.push(*[answer] * 3)
    run(ws, llm)
    written = "\n".join(_lines(ws, "USER.md") + _lines(ws, "MEMORY.md"))
    assert "Teaches chemistry at a school" in written
    assert "chil" not in written
    asked = [r for r in llm.requests if "chillies" in _asked_about(r)]
    assert len(asked) == 2  # asked once more, then left
    left = [e.entry.text for e in pending_entries(Workspace(ws.root))]
    assert left == ["I grow chillies on my balcony."]


def test_an_answer_that_stops_inside_a_string_is_cut_even_without_finish_reason(
    ws, llm, monkeypatch
):
    monkeypatch.setenv("MEM_LLM_STRATEGY", "entry")
    ws("log", "--at", "2026-12-01T09:00", "--role", "user", "I grow chillies on my balcony.")
    llm.push(*[("text", CUT)] * 4)
    result = run(ws, llm, ok=False)
    assert len(llm.requests) == 2  # asked once more, then left: the batch is not asked anew
    assert result.exit_code == 7 and "cut off" in result.stderr
    assert result.stderr.count("\n") == 1
    assert len(pending_entries(Workspace(ws.root))) == 1
    assert _lines(ws, "USER.md") + _lines(ws, "MEMORY.md") == []


def test_near_duplicates_in_one_answer_are_held_before_the_cap_counts_them(ws, llm, monkeypatch):
    """One 8-word entry, twenty lines that say it: one is written, the rest wait as repeats,
    and the per-run cap on USER.md is left for lines that say something else."""
    ws(
        "log",
        "--at",
        "2026-12-01T09:00",
        "--role",
        "user",
        "I always drink green tea in the afternoon.",
    )
    ws("log", "--at", "2026-12-01T09:01", "--role", "user", "I teach chemistry at a school.")
    edits = [
        {
            "file": "USER",
            "op": "add",
            "section": "Preferences",
            "text": f"Prefers green tea, variant {i}",
            "type": "preference",
            "importance": 0.6,
            "confidence": 0.9,
            "sources": [1],
        }
        for i in range(20)
    ]
    edits.append({**edits[0], "section": "Identity", "text": "Teaches chemistry", "sources": [2]})
    llm.push(tool_call({"history_entry": "[2026-12-01 09:01] Tea.", "edits": edits, "skip": []}))
    monkeypatch.setenv("MEM_CONSOLIDATE_MAX_NEW_LINES", "2")
    with_cap = run(ws, llm, "--json")
    user = _lines(ws, "USER.md")
    assert sorted(user) == ["Prefers green tea, variant 0", "Teaches chemistry"]
    held = [
        e for e in json.loads(with_cap.stdout)["batches"][0]["edits"] if e["status"] == "review"
    ]
    assert len(held) == 19
    assert all("near-duplicate" in e["detail"] and "variant 0" in e["detail"] for e in held)


def test_a_history_paragraph_retells_the_batch_with_its_subjects_named():
    """Was "Noted: Is passionate about yoga." (the kept lines pasted, subjects lost)."""
    from datetime import date, datetime

    from openclaw_mem.consolidate.paragraph import Fate, paragraph
    from openclaw_mem.consolidate.progress import LogEntry
    from openclaw_mem.consolidate.proposal import Edit
    from openclaw_mem.format.logs import Entry

    def said(role: str, text: str, n: int) -> LogEntry:
        return LogEntry(
            "memory/2026-12-01.md", Entry(date(2026, 12, 1), "09:0" + str(n), role, text, n, n)
        )

    covered = [said("Gina", "How is the yoga going?", 1), said("user", "I love yoga.", 2)]
    applied = [
        Edit("USER", "add", "preference", 0.6, 0.7, text="Is passionate about yoga"),
        Edit("MEMORY", "add", "event", 0.6, 0.7, text="User went to a retreat in Bali"),
        Edit("AGENTS", "add", "rule", 0.6, 0.7, text="Answer in English"),
        Edit("USER", "add", "identity", 0.6, 0.7, text="对花生过敏"),
        Edit("AGENTS", "add", "rule", 0.6, 0.7, text="不要在周五部署"),
    ]
    text = paragraph("", applied, covered, Fate(2, 1, 0, 0), {}, datetime(2026, 12, 1, 10))
    assert text == (
        "[2026-12-01 09:02] Talking with Gina: The user is passionate about yoga and went to a "
        "retreat in Bali. The user asked the agent: answer in English. 用户对花生过敏。 "
        "用户要求：不要在周五部署。 1 log entry of 2 held nothing to keep (acknowledgements, "
        "fillers, repeats and small talk)."
    )


ASKED = [  # (time, speaker, said, what the small model answers when asked)
    ("10:00", "assistant", "Which pizza do you love the most?", None),
    ("10:01", "user", "Pepperoni, of course!", ["Loves pepperoni pizza"]),
    ("10:02", "assistant", "Nice. Any plans for the weekend?", None),
    ("10:03", "user", "Hiking at Snowdon with my cousin.", ["Is hiking at Snowdon this weekend"]),
    ("10:04", "assistant", "Sounds fun! Do you go often?", None),
    ("10:05", "user", "Every other month.", []),
    ("10:06", "assistant", "Great.", None),
    ("10:07", "user", "Yes, totally.", ["Agrees"]),
]


def test_a_short_answer_to_a_question_about_the_user_is_asked_about(ws, llm, monkeypatch):
    """Recall beyond I/my/me: "Pepperoni, of course!" answering "Which pizza do you love
    the most?" is asked about, with the question as its context. On this fixture that costs
    two calls more than asking only turns that say I/my/me (3 instead of 1)."""
    monkeypatch.setenv("MEM_LLM_STRATEGY", "entry")
    _log(ws, ASKED)
    llm.push(*[_answers(ASKED)] * 6)
    run(ws, llm)
    asked = [_asked_about(r).split(":\n", 1)[-1] for r in llm.requests]
    assert asked == [
        "Pepperoni, of course!",
        "Hiking at Snowdon with my cousin.",
        "Every other month.",
    ]
    context = llm.requests[0]["messages"][-1]["content"]
    assert "by assistant (context only):\nWhich pizza do you love the most?" in context
    assert "Loves pepperoni pizza" in _lines(ws, "USER.md")
    assert pending_entries(Workspace(ws.root)) == []
