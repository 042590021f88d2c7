"""Facts a small model wrote about an entry's writer, made into memory lines by code: the
parts of the per-entry strategy (per_entry.py) that need no model.

- **Worth asking**: only the user's own entries (role user or note) that speak of the
  writer (I, my, me, 我 …); another speaker's words, the assistant's and "Hey Mel! How have
  you been?" are skipped without a call.
- **A line**: the fact in the third person, its first clause only ("Went to a support group
  yesterday, and it was so powerful" keeps "Went to a support group yesterday"), without a
  subject ("The speaker is a nurse" is "Is a nurse"). Held back: what still speaks in the
  first person, a question, a line that leans on words the reader cannot see ("you", "it",
  "that style"), one about someone else ("Mel is a painter"), fewer than two content words,
  and any line its entry does not say (at least half of its content words are the entry's:
  what a small model invents, or copies from elsewhere, goes no further).
- **Where it goes**: a goal, a preference, who the writer is (USER.md Goals, Preferences,
  Identity), or else something that happened to them (MEMORY.md Facts, "User went …").
- **Said before**: a line close to one already in the files or taken this run (Jaccard of
  content words, SIMILAR) is not added again; a USER.md line that names the same slot as an
  existing one ("Lives in …", "Works as …") is a candidate to replace it, which a second
  small question decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...format.markdown import core, is_live_bullet, split_doc
from ..checks import (
    PAST,
    USER_ROLES,
    content,
    first_person,
    not_a_line,
    same_script,
    third_person,
)
from ..person import not_a_sentence, opens_with_subject
from ..proposal import PromptEntry
from ..whose import RELATIONS, answers_question

SIMILAR = 0.5  # content-word Jaccard at which a line repeats one already there
MIN_WORDS = 2  # content words a line needs to say anything

_SPEAKS_OF_SELF = re.compile(r"\b(?:I|I['’]\w+|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself)\b|(?<!自)我")
_SUBJECT_RE = re.compile(
    r"^(?:the\s+)?(?:speaker|user|writer|person|author)(?P<own>['’]s)?\s+|^(?:they|he|she)\s+",
    re.I,
)
_CLAUSE_END = re.compile(
    r"(?:[.!;](?:\s|$)|,\s*(?:so|but|which|because|and (?:it|they|that|this)|it['’]s|"
    r"though|although|plus)\b|\s(?:because|'cause|’cause|cause|cuz)\s|\s[-–—]+\s|[。！；]|"
    r"\s+and (?:it|that|this|they) (?:was|is|has|were|are|made)\b|\s+which\s).*$",
    re.I | re.S,
)
# Words whose meaning lives in the conversation, not in the line: "you", "it", "that style",
# "the details", "some other stuff"; and what is about the message itself ("Will share an
# image of …").
_LEANS_RE = re.compile(
    r"\b(?:you|your|yours|it|its|this|that|these|those|there|here|such|so much)\b"
    r"(?!\s+(?:is|was|has|are)\b)|^(?:thanks|thank you|wow|hey|hi|yeah|totally)\b|"
    r"\b(?:the details|the same|things|stuff|everything|something|anything)\b|"
    r"\b(?:shares?|sharing|shared|sends?|show(?:s|ed)?)\b.*\b(?:image|photo|picture|pic)s?\b",
    re.I,
)
_THEM_RE = re.compile(r"\b(?:them|him|her|hers|his)\b", re.I)
# A resolve or a wish with no time is a passing thought ("Will stay optimistic", "Will keep
# plugging away"): a plan is kept when it says when.
_WISH_RE = re.compile(r"^(?:will|would|wants? to|is going for|hopes? to)\b", re.I)
_WHEN_RE = re.compile(
    r"\b(?:next|this|by|in|on|before|after|until|every|since)\s+(?:week|weekend|month|year|"
    r"summer|winter|spring|fall|autumn|morning|evening|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|january|february|march|april|may|june|july|august|september|"
    r"october|november|december|\d{4})\b|\btomorrow\b|\btonight\b|\bsoon\b",
    re.I,
)
# Lines that name the same slot of a person ("Lives in …", "Works as …"): a new one may
# replace the old. What happened to them (MEMORY.md) never replaces anything.
_SLOT_RE = re.compile(
    r"^(?:lives in|lives with|works (?:as|at|for|in)|is (?:a|an)|is from|has (?:a|an)|"
    r"studies|owns|is married|is single|is dating|drives|uses)\b",
    re.I,
)
_PAST_RE = re.compile(r"^(?:" + "|".join(sorted(PAST)) + r")\b", re.I)
_ADVERB_RE = re.compile(
    r"^(?:just|recently|finally|also|really|currently|now|actually|still|even|totally)\s+",
    re.I,
)
# A name said to someone ("Thanks, Mel!", "I totally agree, Melanie."): who the writer
# talks to, not who they are.
_VOCATIVE_RE = re.compile(
    r"(?:^|[.!?]\s+|\b(?:hey|hi|hello|thanks|thank you|congrats|wow|yeah|yes|sorry|agree|"
    r"bye|cheers|dear|oh|haha|cool|great|sure),?\s+)([A-Z][a-z]+)(?=\s*[!,.?])|"
    r",\s*([A-Z][a-z]+)\s*[!.?]",
    re.I,
)
# What the writer felt in the moment, said of them: "Is so excited too", "Is super thankful".
_MOOD = frozenset(
    content(
        "excited thrilled thankful grateful happy proud glad sad nervous scared pumped stoked "
        "lucky blessed sorry amazing awesome great cool super challenge"
    )
)
# A line about the writer opens with what they do or are: a verb, never a subject of its own
# ("The support group has made them …", "Their goal is …": the message's words, not a fact).
_VERB_FIRST_RE = re.compile(
    r"^(?:(?:never|always|usually|often|rarely|sometimes|no longer)\s+)?"
    r"(?:[a-z]+n['’]t|is|was|has|had|does|did|can|will|would|should|must|may|might|could|"
    r"used to|[a-z]+(?:s|ed))\b",
    re.I,
)

GOAL_RE = re.compile(
    r"^(?:plans|is planning|wants|hopes|intends|aims|is going to|is gonna|is saving|dreams|"
    r"is hoping|is looking to|will|would like)\b",
    re.I,
)
PREFERENCE_RE = re.compile(
    r"^(?:likes|loves|prefers|enjoys|hates|dislikes|adores|is into|is (?:a )?(?:big |huge )?"
    r"fan of|is passionate about|is keen on|is interested in|favou?rite)\b",
    re.I,
)
IDENTITY_RE = re.compile(
    r"^(?:is (?:a|an|from|married|single|divorced|engaged|retired|vegetarian|vegan|allergic)"
    r"\b|works|lives|has (?:a|an|two|three|four|\d+)\b|was born|grew up|studies|teaches|"
    r"owns|speaks|is studying|is working|moved (?:to|from|in)|has been (?:a|an)\b)",
    re.I,
)


def worth_asking(entry: PromptEntry, before: PromptEntry | None = None) -> bool:
    """Whether an entry is the user's own and may tell something of its writer: it speaks
    of them (I, my, 我 …), or it is a short reply to a question put to them ("Which one do
    you love the most?" … "Pepperoni, of course!")."""
    if entry.role not in USER_ROLES:
        return False
    return bool(_SPEAKS_OF_SELF.search(entry.text)) or answers(entry, before)


def answers(entry: PromptEntry, before: PromptEntry | None) -> bool:
    """Whether the entry answers a question the entry before it put to its writer."""
    return before is not None and answers_question(entry.text, before.role, before.text)


def named_line(text: str, who: str) -> str | None:
    """The entry's own clause about someone the writer names ("my boss Dana"), as a
    MEMORY.md line that names them ("The user's boss Dana just moved to Singapore"), or
    None when the entry says nothing of them that reads as a line by itself."""
    if not who.startswith("my "):
        return None  # "you", "they", a bare name: nobody the line could name
    at = text.casefold().find(who.casefold())
    if at < 0:
        return None
    clause = _CLAUSE_END.sub("", text[at:] + " ").strip().rstrip(",:;").strip()
    line = third_person(clause[:1].upper() + clause[1:], "MEMORY")
    if (
        len(line.split()) > 20
        or len(content(line)) < MIN_WORDS + 1
        or first_person(line)
        or not_a_line(line)
        or not_a_sentence(line)
        or _LEANS_RE.search(line)
        or not opens_with_subject(line)
    ):
        return None
    return line


def names(entry: PromptEntry, before: PromptEntry | None) -> set[str]:
    """Who else the conversation names: the other speaker, and whom the entry speaks to
    ("Thanks, Mel!"): a line that names one is about them, or talks to them."""
    found = {n for pair in _VOCATIVE_RE.findall(entry.text) for n in pair if n}
    if before is not None and before.role not in ("user", "note", "assistant", "system"):
        found.add(before.role)
    return {n for n in found if n[:1].isupper()}


def line_of(fact: str, others: set[str] = frozenset()) -> str | None:
    """A fact as a memory line about the writer, or None when it is not one. `others`:
    names of other people (names())."""
    text = " ".join(str(fact).split()).strip(" \"'“”‘’-*•")
    if re.match(r"(?:she|he)\s", text, re.I):  # the writer, as "she": her things are theirs
        text = re.sub(r"\b(?:her|his)\b", "their", text.split(None, 1)[1], flags=re.I)
    if _THEM_RE.search(text):
        return None  # "them", "her" as the model wrote it: someone the line does not name
    m = _SUBJECT_RE.match(text)
    if m:
        text = ("Their " if m["own"] else "") + text[m.end() :]
    text = third_person(text[:1].upper() + text[1:], "USER")
    text = _CLAUSE_END.sub("", text + " ").strip().rstrip(",:;").strip()
    text = _ADVERB_RE.sub("", text)
    if not text:
        return None
    text = text[:1].upper() + text[1:]
    if first_person(text) or not_a_line(text) or _LEANS_RE.search(text):
        return None
    said = {re.sub(r"['’]s$", "", w.strip(",.:;!?")) for w in text.split()}
    if said & others:
        return None  # "Mel is a painter", "Agrees, Melanie": someone else, or to them
    if opens_with_subject(text):
        return _subject_first(text)
    if not _VERB_FIRST_RE.match(text) and not _PAST_RE.match(text):
        return None
    if _WISH_RE.match(text) and not _WHEN_RE.search(text):
        return None
    if len(content(text) - _MOOD) < (1 if IDENTITY_RE.match(text) else MIN_WORDS):
        return None  # a passing mood: "Is so excited too", "Is up for the challenge"
    return text


_FAVOURITE_RE = re.compile(
    r"^(?P<what>.+?)\s+(?:is|are)\s+(?:one of |among |some of )?their\s+"
    r"(?:absolute\s+|all-time\s+)?favou?rites?(?:\s+\w+)?$",
    re.I,
)
_THEIR_RE = re.compile(r"^Their\s+(?P<noun>[\w-]+)\b", re.I)


def _subject_first(text: str) -> str | None:
    """A fact that names its own subject, as a line, or None: "Roasted chicken is one of
    their favorites" is "Likes roasted chicken", "Their favorite food is pizza" "Favorite
    food is pizza", "Their sister Ana is a vet" stays (MEMORY.md names her, place()); any
    other ("Their goal is …", "The support group has made …") says the message's words,
    not a fact, and "Games are their go-to" never becomes "User games are …"."""
    m = _FAVOURITE_RE.match(text)
    if m and not opens_with_subject(m["what"] + " x"):
        return f"Likes {m['what'][:1].lower()}{m['what'][1:]}"
    m = _THEIR_RE.match(text)
    if m and m["noun"].lower() in ("favorite", "favourite"):
        return text[6:7].upper() + text[7:]
    if m and m["noun"].lower() in RELATIONS and len(content(text)) >= MIN_WORDS + 1:
        return text
    return None


def says(line: str, entry: PromptEntry) -> bool:
    """Whether the entry says at least half of the line's content words (the rule the
    provenance check applies after, so no line a check would hold is proposed). An entry in
    another script ("我对花生过敏" for "Is allergic to peanuts") cannot be checked word by
    word: the line was asked of it alone, so it stands, as the check lets it."""
    words = {w for w in content(line) if not w.isdigit()}
    said = content(entry.text)
    if words and said and not same_script(words, said):
        return True
    return bool(words) and len(words & said) * 2 >= len(words)


def place(line: str) -> tuple[str, str, str, str]:
    """(file, section, type, text) for a line about the user; a line that names its own
    subject ("Their sister Ana is a vet") goes to MEMORY.md as it is, the user named in it
    ("The user's sister Ana is a vet"), never with "User" in front."""
    if GOAL_RE.match(line):
        return "USER", "Goals", "goal", line
    if PREFERENCE_RE.match(line):
        return "USER", "Preferences", "preference", line
    if IDENTITY_RE.match(line):
        return "USER", "Identity", "identity", line
    if opens_with_subject(line):
        named = re.sub(r"\btheir\b", "the user's", line)
        return "MEMORY", "Facts", "fact", re.sub(r"^Their\b", "The user's", named)
    return "MEMORY", "Facts", "event", f"User {line[:1].lower()}{line[1:]}"


@dataclass
class Known:
    """The lines already in the curated files and those taken this run."""

    lines: list[tuple[str, str, frozenset[str]]]  # (file, line as written, content words)

    @classmethod
    def of(cls, documents: dict[str, str]) -> Known:
        out = []
        for name, text in documents.items():
            for line in split_doc(text).lines:
                if is_live_bullet(line):
                    said = core(line)
                    out.append((name.removesuffix(".md"), said, frozenset(content(said))))
        return cls(out)

    def repeated(self, text: str) -> bool:
        words = content(text)
        return any(_jaccard(words, theirs) >= SIMILAR for _, _, theirs in self.lines)

    def rivals(self, file: str, text: str) -> list[str]:
        """Lines of the same file that open the same way ("Lives in …", "Works as …") and
        share a content word or none: what the new line may replace."""
        if file != "USER" or not _SLOT_RE.match(text):
            return []
        head = " ".join(text.split()[:2]).casefold()
        words = content(text)
        return [
            line
            for f, line, theirs in self.lines
            if f == file
            and " ".join(line.split()[:2]).casefold() == head
            and _jaccard(words, theirs) < SIMILAR
        ][:3]

    def add(self, file: str, text: str) -> None:
        self.lines.append((file, text, frozenset(content(text))))


def _jaccard(a: set[str] | frozenset[str], b: set[str] | frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0
