"""A question that names a person asks about what that person said and did (issue 43's
two-fact questions): "What has Melanie painted?" is answered by Melanie's own turns, not by
her friend's praise of a painting, which holds the question's words more often. Log entries
by a speaker the question names weigh more; role names (user, assistant) do not count, in
English and Chinese."""

from __future__ import annotations

from datetime import datetime

from helpers import ask, entry_lines

from openclaw_mem.recall.stages import names_in


def _say(memory, at: str, speaker: str, text: str) -> None:
    memory.log(text, speaker=speaker, at=datetime.fromisoformat(at))


PRAISE = "Wow, Melanie, love that painting! The painting's colours are amazing."
MELANIES = "Here's a photo of my horse painting I did recently."


def _two_friends(memory) -> None:
    _say(memory, "2023-08-20T15:00", "Caroline", PRAISE)
    _say(memory, "2023-08-20T15:01", "Melanie", "Thanks! I did it in an afternoon.")
    _say(memory, "2023-08-23T15:38", "Melanie", MELANIES)
    _say(memory, "2023-08-23T15:39", "Caroline", "Melanie, that horse is so lively!")
    _say(memory, "2023-08-25T10:00", "Caroline", "Painting a sunset on a small easel this week.")


def test_a_question_naming_a_speaker_finds_their_own_turn_first(memory):
    _two_friends(memory)
    query = "What has Melanie painted?"
    # by the words alone, her friend's praise (the name and "painting" twice) comes first
    plain = ask(memory, query, "2023-09-01", speaker_boost=0.0).hits
    assert entry_lines(memory, plain)[0].startswith("Wow, Melanie")
    hits = ask(memory, query, "2023-09-01").hits
    assert entry_lines(memory, hits)[0] == MELANIES
    assert "speaker" not in hits[0].explain  # Melanie's turn keeps its score
    praise = entry_lines(memory, hits).index(PRAISE)
    assert hits[praise].explain["speaker"] == round(1 / 1.5, 4)  # Caroline's counts less
    assert max(h.score for h in hits) <= plain[0].score  # nothing rises
    firsts = {(h[0].path, h[0].start_line, h[0].score) for h in
              (ask(memory, query, "2023-09-01", k=k).hits for k in range(1, 11))}  # fmt: skip
    assert len(firsts) == 1, firsts  # the first hit never depends on k


def test_a_question_naming_both_people_weighs_both_alike(memory):
    _two_friends(memory)
    hits = ask(memory, "What did Caroline and Melanie paint?", "2023-09-01").hits
    plain = ask(
        memory, "What did Caroline and Melanie paint?", "2023-09-01", speaker_boost=0.0
    ).hits
    assert hits and [(h.path, h.start_line, h.score) for h in hits] == [
        (h.path, h.start_line, h.score) for h in plain
    ]


def test_a_chinese_name_counts_without_spaces_around_it(memory):
    _say(memory, "2023-08-20T15:00", "小明", "我最近画了一匹马，挂在客厅里。")
    _say(memory, "2023-08-21T15:00", "小红", "小明画的画太好看了！我也想画画。")
    plain = ask(memory, "小明画了什么？", "2023-09-01", speaker_boost=0.0).hits
    assert entry_lines(memory, plain)[0].startswith("小明画的画")
    hits = ask(memory, "小明画了什么？", "2023-09-01").hits
    assert entry_lines(memory, hits)[0] == "我最近画了一匹马，挂在客厅里。"


def test_a_role_named_in_the_question_weighs_nothing(memory):
    """A question about "the user" asks for a fact, and USER.md's line answers it as
    well as the user's own turn: a role is no person to weigh."""
    memory.log("I use Helix as my editor now.", role="user", at=datetime(2023, 8, 20, 9))
    memory.log("Noted: the user's editor is Helix.", role="assistant",
               at=datetime(2023, 8, 20, 9, 1))  # fmt: skip
    memory.log("Editor: Helix (see the config repo).", role="note", at=datetime(2023, 8, 21, 9))
    for query in ("What editor does the user use?", "Which editor did I note?"):
        hits = ask(memory, query, "2023-09-01").hits
        assert len(hits) == 3 and all("speaker" not in h.explain for h in hits), query


def test_the_spans_that_could_name_a_speaker():
    """Every label `mem log --speaker` takes is kept lower-cased, punctuation and all."""
    assert names_in("What has Melanie painted?") >= {"melanie", "has melanie"}
    assert {"mary ann smith", "mary ann", "mary"} <= names_in("Did Mary Ann Smith call?")
    assert {"o'brien", "jean-luc", "dr. smith", "gpt-4o", "my_bot"} <= names_in(
        "Did O'Brien, Jean-Luc and Dr. Smith ask gpt-4o or my_bot?"
    )
    assert {"小明", "王小明"} <= names_in("王小明上周去了哪里？")
    assert "melanie" in names_in("Melanie画了什么？")  # a name beside CJK, no space between
    assert "İlker".lower() in names_in("İlker ne dedi?")  # lower() leaves a combining dot
    assert "प्रिया" in names_in("प्रिया ने क्या कहा?")  # vowel signs are marks
    assert not names_in("What did the user tell the assistant?") & {"user", "assistant"}
    assert not names_in("check my note, and the system's") & {"note", "system"}
    assert not names_in("我的用户和助手") & {"用户", "助手"}
    assert "s" not in names_in("Melanie's kids")  # no single letters


def test_a_label_with_punctuation_is_named_as_written(memory):
    _say(memory, "2023-08-20T15:00", "Dr. Okafor", "I painted the clinic's waiting room mural.")
    _say(memory, "2023-08-22T10:00", "Sam", "Dr. Okafor's painting! Painting after painting.")
    query = "What did Dr. Okafor paint?"
    plain = ask(memory, query, "2023-09-01", speaker_boost=0.0).hits
    assert entry_lines(memory, plain)[0].startswith("Dr. Okafor's painting!")
    hits = ask(memory, query, "2023-09-01").hits
    assert entry_lines(memory, hits)[0] == "I painted the clinic's waiting room mural."
