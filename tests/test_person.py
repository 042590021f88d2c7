"""The third-person rewrite and whose fact a line is (issue 41): every line a small model's
first-person fact becomes reads as a whole sentence about the right person.

tests/fixtures/first_person.tsv holds invented sentences as users say them (contractions
with ASCII and typographic apostrophes, negations, modals, compound subjects, Chinese), each
with the line it must become in USER.md and in MEMORY.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from openclaw_mem.consolidate.checks import check, chinese_third, first_person, third_person
from openclaw_mem.consolidate.person import cut_word, not_a_sentence, opens_with_subject
from openclaw_mem.consolidate.proposal import Edit, PromptEntry
from openclaw_mem.consolidate.whose import answers_question, said_of

CORPUS = Path(__file__).parent / "fixtures" / "first_person.tsv"
ROWS = [
    line.split("\t")
    for line in CORPUS.read_text(encoding="utf-8").splitlines()
    if line and not line.startswith("#")
]


def _rewrite(said: str, file: str) -> str:
    return chinese_third(third_person(said, file), file)


def test_the_corpus_is_big_and_mixed():
    assert len(ROWS) >= 60 and all(len(row) == 3 for row in ROWS)
    assert sum(any("\u4e00" <= c <= "\u9fff" for c in row[0]) for row in ROWS) >= 4
    assert sum("’" in row[0] for row in ROWS) >= 5  # typographic apostrophes


@pytest.mark.parametrize("said,user,memory", ROWS, ids=[r[0][:40] for r in ROWS])
def test_every_sentence_of_the_corpus_becomes_a_whole_third_person_line(said, user, memory):
    for file, want in (("USER", user), ("MEMORY", memory)):
        got = _rewrite(said, file)
        assert got == want, (file, said)
        assert first_person(got) is None and not_a_sentence(got) is None, got


def test_contractions_and_negations_keep_their_words():
    """Seen from the 1.5B's lines: "Dons 't get…", "User havens 't worked…"."""
    assert third_person("I don't get why it fails", "USER") == "Doesn't get why it fails"
    assert third_person("I haven’t worked with Rust", "MEMORY") == "User hasn’t worked with Rust"
    assert third_person("I'd love to see Kyoto", "USER") == "Would love to see Kyoto"
    assert third_person("I’d never seen snow", "USER") == "Had never seen snow"
    assert third_person("I'll be in Lisbon", "USER") == "Will be in Lisbon"
    assert third_person("I can't eat gluten", "USER") == "Can't eat gluten"
    assert third_person("I won’t fly again", "MEMORY") == "User won’t fly again"


@pytest.mark.parametrize(
    "said, file, line",
    [
        ("Please always answer in English, even if I write in Chinese.", "AGENTS",
         "Please always answer in English, even if the user writes in Chinese."),
        ("Reply in bullet points when I ask for steps.", "AGENTS",
         "Reply in bullet points when the user asks for steps."),
        ("I prefer pytest over unittest, and use black for formatting", "USER",
         "Prefers pytest over unittest, and uses black for formatting"),
        ("I live in Madrid and work at Telefónica", "USER",
         "Lives in Madrid and works at Telefónica"),
        ("I like hiking and go climbing on weekends.", "MEMORY",
         "User likes hiking and goes climbing on weekends."),
        # What stays: an object after "and", a past tense, a verb whose past is itself.
        ("I like apples and oranges", "USER", "Likes apples and oranges"),
        ("I went to Rome and loved it", "USER", "Went to Rome and loved it"),
        ("Remind me when I quit smoking", "AGENTS", "Remind the user when the user quit smoking"),
        # A verb whose past is itself, said of the past, stays past: "Quits smoking in
        # October" read as a plan.
        ("I quit smoking in October, three weeks clean.", "USER",
         "Quit smoking in October, three weeks clean."),
        ("I quit smoking.", "MEMORY", "User quit smoking."),
        ("I cut my hair short last week.", "USER", "Cut their hair short last week."),
        ("I just quit my job.", "USER", "Just quit their job."),
        ("I quit every job after a year.", "USER", "Quits every job after a year."),
        ("I set my alarm for 6 every day.", "USER", "Sets their alarm for 6 every day."),
    ],
)  # fmt: skip
def test_every_verb_of_the_user_agrees_with_them(said, file, line):
    """A helper's unseen turns: "even if the user write", "Prefers pytest …, and use black",
    "Lives in Madrid and work at Telefónica"."""
    assert third_person(said, file) == line


def test_a_line_that_would_not_read_as_a_sentence_says_why():
    assert "split apart" in not_a_sentence("User havens 't worked with Rust")
    assert "split apart" in not_a_sentence("Dons 't get why")
    assert "in front of a subject" in not_a_sentence(
        "User roasted Chicken is one of their favorites"
    )
    assert "in front of a subject" in not_a_sentence("User precious and Pixie are Chihuahua mixes")
    assert "in front of a subject" in not_a_sentence("User games are their go-to")
    assert "mid-phrase" in not_a_sentence("Likes to cook with the")
    assert "unclosed" in not_a_sentence("Lives in Porto (near the river")
    assert not_a_sentence("User goes climbing every Thursday") is None
    assert not_a_sentence("User is a nurse and has a dog") is None
    assert cut_word("User grows chil", "I grow chillies on the balcony") == "chil"
    assert cut_word("User grows chillies", "I grow chillies on the balcony") is None
    assert cut_word("Uses Go", "I use Go and Python") is None


def test_noun_first_facts_are_told_from_verb_first_ones():
    for line in (
        "Roasted chicken is one of their favorites",
        "Games are their go-to for relaxing",
        "Precious and Pixie are Chihuahua mixes",
        "Their sister Ana visits in May",
    ):
        assert opens_with_subject(line), line
    for line in (
        "Is a nurse and has a dog",
        "Thinks pizza is the best",
        "Loves games that are fun",
        "Moved to Berlin",
        "Has been a nurse for ten years",
    ):
        assert not opens_with_subject(line), line


WHOSE = [
    # (line, what the entry said, whose it is: None = the writer's)
    ("Lives in Singapore", "My boss Dana just moved to Singapore", "my boss Dana"),
    (
        "Needs to find a dog-friendly spot soon",
        "I hope you find the perfect dog-friendly spot soon",
        "you",
    ),
    ("Can do tricks like sit and stay", "They can do tricks like sit, stay and roll over!", "they"),
    (
        "Has always been awed by birds",
        "Yeah, birds are amazing! I can imagine how calm it was.",
        "birds",
    ),
    ("Lives in Singapore", "Dana just moved to Singapore", "Dana"),
    ("Is visiting next weekend", "My sister Ana is visiting next weekend.", "my sister Ana"),
    ("Moved to Berlin", "I just moved to Berlin last week and I'm building a Go backend.", None),
    ("Likes roasted chicken", "Roasted chicken is one of my favorites.", None),
    ("Has two Chihuahua mixes", "My dogs Precious and Pixie are Chihuahua mixes.", None),
    ("Has a sister named Ana", "My sister Ana is visiting next weekend.", None),
    ("Works as a nurse", "Honestly I work as a nurse in Leeds.", None),
    ("Is allergic to peanuts", "我对花生过敏", None),  # another script: not read here
]


@pytest.mark.parametrize("line,said,who", WHOSE, ids=[w[0] for w in WHOSE])
def test_whose_fact_a_line_is(line, said, who):
    assert said_of(line, said) == who


def test_a_short_answer_to_a_question_put_to_the_user_is_theirs():
    asked = "Which pizza do you love the most?"
    assert answers_question("Pepperoni, of course!", "assistant", asked)
    assert not answers_question("Pepperoni, of course!", "assistant", "Pizza is great.")
    assert answers_question("Lisbon, in May.", "assistant", "Where to next?")  # short: completes
    long = "We went to the coast and had a lovely week of walks and seafood together."
    assert not answers_question(long, "assistant", "Where to next?")
    assert answers_question(long, "Mel", "Nice! What did you do over the summer?")
    assert not answers_question("Pepperoni, of course!", "user", asked)
    assert said_of("Loves pepperoni pizza", "Pepperoni, of course!") == "pepperoni"
    assert said_of("Loves pepperoni pizza", "Pepperoni, of course!", answered=True) is None


def _entry(text: str, number: int = 1, role: str = "user") -> PromptEntry:
    return PromptEntry(f"memory/2026-12-01.md#L{number}", None, role, text, number=number)


def test_the_check_holds_a_user_line_the_entry_says_of_someone_else():
    """The batch strategy too: USER.md and "User …" lines in MEMORY.md are the user's own."""
    prompt = [_entry("My boss Dana just moved to Singapore")]
    lives = Edit(
        "USER",
        "add",
        "identity",
        0.6,
        0.9,
        section="Identity",
        text="Lives in Singapore",
        sources=(1,),
    )
    ok, held = check([lives], prompt)
    assert ok == [] and "E1 says this of my boss Dana, not of the user" in held[0][1]
    moved = Edit("MEMORY", "add", "fact", 0.6, 0.9, text="User moved to Singapore", sources=(1,))
    assert check([moved], prompt)[0] == []
    named = Edit(
        "MEMORY",
        "add",
        "fact",
        0.6,
        0.9,
        text="The user's boss Dana moved to Singapore",
        sources=(1,),
    )
    assert [e.text for e in check([named], prompt)[0]] == [
        "The user's boss Dana moved to Singapore"
    ]


def test_chinese_entries_are_read_for_whose_fact_a_line_is():
    """Issue 41's right person, in the product's other language: "我老板Dana刚搬到新加坡了"
    was written to USER.md as the user's identity ("老板Dana刚搬到新加坡了")."""
    assert said_of("住在新加坡", "我老板Dana刚搬到新加坡了") == "我老板"
    assert said_of("会坐下和握手", "他们会坐下、握手这些把戏") == "他们"
    assert said_of("应该去学游泳", "嗯，你应该去学游泳") == "你"
    assert said_of("住在上海", "嗯，我住在上海") is None
    assert said_of("有两只狗", "我的狗是吉娃娃") is None  # a line about having them is theirs
    prompt = [_entry("我老板Dana刚搬到新加坡了")]
    lives = Edit(
        "USER", "add", "identity", 0.6, 0.9, section="Identity", text="住在新加坡", sources=(1,)
    )
    ok, held = check([lives], prompt)
    assert ok == [] and "E1 says this of 我老板, not of the user" in held[0][1]


def test_the_offline_rules_file_a_chinese_update_about_someone_else_as_a_fact(ws):
    ws("log", "--at", "2026-11-29T10:00", "--role", "user", "我老板Dana刚搬到新加坡了")
    ws("log", "--at", "2026-11-29T10:01", "--role", "user", "我住在上海")
    ws("consolidate", "--provider", "offline", "--now", "2026-11-29T11:00")
    user = (ws.root / "USER.md").read_text(encoding="utf-8")
    memory = (ws.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "新加坡" not in user and "住在上海" in user
    assert "Dana刚搬到新加坡了" in memory


def test_the_check_holds_a_mangled_or_cut_line_with_its_reason():
    prompt = [_entry("I grow chillies on the balcony")]
    cut = Edit("MEMORY", "add", "fact", 0.6, 0.9, text="User grows chil", sources=(1,))
    ok, held = check([cut], prompt)
    assert ok == [] and "ends mid-word ('chil')" in held[0][1]
    roasted = Edit(
        "MEMORY",
        "add",
        "fact",
        0.6,
        0.9,
        text="User roasted Chicken is one of their favorites",
        sources=(1,),
    )
    ok, held = check([roasted], [_entry("Roasted chicken is one of my favorites")])
    assert ok == [] and "would not read as a sentence" in held[0][1]


def test_a_line_that_speaks_to_someone_is_held():
    """The offline rules wrote the user's compliments to the other speaker as MEMORY.md facts
    ("Your new hair color looks amazing"): "you" is nobody a reader can place."""
    prompt = [_entry("Your new hair color looks amazing!")]
    said = Edit(
        "MEMORY", "add", "fact", 0.6, 0.9, text="Your new hair color looks amazing", sources=(1,)
    )
    ok, held = check([said], prompt)
    assert ok == [] and "speaks to someone ('Your')" in held[0][1]
    rule = Edit("AGENTS", "add", "rule", 0.6, 0.9, text="Tell me when you are unsure", sources=(2,))
    asked = [_entry("Always tell me when you are unsure", number=2)]
    assert check([rule], asked)[0] != []  # a rule to the agent may say "you"


def test_the_us_is_no_first_person_but_us_is():
    """An update "for the new US teammates" was dropped as still saying "us"."""
    assert first_person("Standup moves to 10:30 for the new US teammates") is None
    assert first_person("Standup moves to 10:30 for us") == "us"
    assert first_person("Tell Us more") == "Us"
