"""Consolidation by rules: no model, no network, no key, the same answer every time, and
little of it: USER.md is read on every turn, so a line goes in only when a rule is sure.

It reads what the user said (role `user`, or a `note`), sentence by sentence, in English or
Chinese, and keeps durable statements only:
- explicit requests ("remember …", "记住…") -> MEMORY Facts, or AGENTS Rules when they say
  always / never / 不要 / 每次;
- identity ("I'm a nurse", "I live in …", "I work at …", "my name is …", "我是…", "我住在…")
  -> USER Identity, as "Is a nurse", "Lives in …";
- preferences with an object ("I prefer / like / love … X", "I'm passionate about X",
  "please keep …", "我喜欢…") -> USER Preferences, as "Likes X"; "I love them!" names
  nothing and is left out;
- tools and projects ("I'm using …", "I'm building …", "I've been learning …", "我在用…")
  -> MEMORY Projects;
- plans with a time ("I plan to … next month", "I'm going to … this month", "我打算明年…")
  -> USER Goals;
- corrections ("actually …", "不对…", "现在改用…", "switched to …") -> deprecate the line
  they replace (the one sharing most words with them), or add a fact when none does.
A move ("I moved to Porto last month, no longer in Lisbon") strikes the line it corrects;
adjectives that stay true ("I'm vegetarian") and named relations ("My cat is called Miso")
go to USER Identity. Relative times are made absolute later, for every provider alike.
Every entry no edit cites is listed in `skip` (nothing durable by these rules), except those
a full section left for the next run.
Other speakers' words, questions, greetings, feelings and passing states stay in the log, and
so does a line that would still say "I" once rewritten; an aside after a dash is cut.
A line close to one already there (MinHash similarity) is not added again, and a section
grows by at most a few lines a run. Every edit cites the entry it came from.
The history paragraph is built from the entries' times and the statements taken.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from ...format.markdown import core, history_stamp, is_live_bullet, split_doc
from ...safety.firewall import flagged
from ...safety.secrets import REDACTED
from ...search import minhash
from ...search.tokenize import shingles, tokenize
from ...search.voice import own_voice
from ...text import CJK_RE, plural
from ..checks import chinese_third, first_person, third_person
from ..proposal import PromptEntry, Proposal, Request, Usage
from ..schema import read_answer
from .updates import as_update

USER_ROLES = ("user", "note")  # the user's own words, and what they (or their agent) noted
MAX_PER_SECTION = 3  # new lines a section may take per PER_ENTRIES entries of a batch; the
PER_ENTRIES = 50  # rest stays in the log (a backlog of 500 entries may add 30 to a section)
SIMILAR = 0.5  # MinHash Jaccard above which a statement repeats a line already there
MAX_SOURCES = 3  # entries a line cites (its comment is read on every turn): the first ones

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|[。！？；;\n]+")
_QUESTION_RE = re.compile(
    r"[?？]\s*$|^(?:what|how|why|when|where|who|which|can|could|do|does|is|are)\b|吗$|么$|"
    r"([\u4e00-\u9fff])[不没]\1",  # 要不要, 能不能, 有没有: asked even without its mark
    re.I,
)
_RULE_WORDS = re.compile(
    r"\b(?:always|never|don't|do not|must)\b|每次|总是|不要|别|禁止|必须|不许", re.I
)
_ASKED_AFTER_RE = re.compile(
    r"^(?P<x>[^，,]{2,}?)[，,]\s*(?:请)?帮我(?:记一下|记住|记下来?)(?:[\s:：，,]+(?P<y>.+))?$"
)
_LEAD_RE = re.compile(
    r"^(?:(?:(?:hi|hello|hey|ok|okay|so|well|btw|by the way|yeah|yes|oh|wow|haha|lol|"
    r"actually no|honestly|anyway|quick update(?: about me)?|also|and|plus|one more thing)\b|"
    # Chinese lead-ins only before a pause: 还有三天, 对面, 另外一家 are content.
    r"(?:好的|对了|对|另外|还有|顺便说一下)(?=[\s,，:：!！.。-])|嗯+|顺便(?=记|说))"
    r"[\s,，:：!！.-]*)+",
    re.I,
)
# What a statement is about must be named in it: an object that opens with a pronoun, a
# demonstrative, a wh-word or an indefinite ("that it teaches me", "how simple it is",
# "something exciting"), that is missing ("working on for a while"), or that leans on an
# "it"/"them" from the turn before, says nothing on its own; "the way the icing turned out"
# is a reaction to what was just shown, not a taste.
_UNNAMED_RE = re.compile(
    r"^(?:it|them|that|this|those|these|you|him|her|so|too|very|all|everything|how|when|"
    r"what|where|why|being|doing|something|anything|nothing|stuff|things|for|lately|now|"
    r"the\s+way|one(?=\s+(?:with|for|too|that|which)\b|$))\b|"
    r"\b(?:(?-i:it|them)|you|your|yours)\b",  # lower-case "it": "IT support" names a field
    re.I,
)
_NOT_IDENTITY_RE = re.compile(
    r"^(?:a|an)\s+(?:huge|big|great|massive|total|real|bit|mix|little|lot)\b", re.I
)
MIN_CONTENT_WORDS = 3  # in what a preference or plan is about: "creating art" is too little
# "that style", "the same way", "in those": what they point at was said before, elsewhere.
_DANGLING_RE = re.compile(
    r"\b(?:in|like|of|with|for|on|at|to|from|about|by|into)\s+(?:that|those|such)\b"
    r"(?!\s+(?:\w+\s+)?(?:who|which|that|where|when)\b)|\bthe same\b|\bsuch\s+(?:a|an)\b|"
    r"\bthat\s+(?:style|way|one|kind|sort|thing|stuff|idea|format|approach)\b",
    re.I,
)
_PAST_TIME_RE = re.compile(
    r"\b(?:yesterday|last\s+(?:week|weekend|month|year|night|summer|winter|spring|fall|"
    r"autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday|fri|sat|sun)|"
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|several|couple of)"
    r"\s+(?:days?|weeks?|months?|years?)\s+ago|this\s+(?:week|weekend|month|year|morning)|"
    r"in\s+(?:19|20)\d{2})\b|昨天|上(?:个)?(?:月|周|星期)|去年|前天",
    re.I,
)
_TIME_RE = re.compile(
    r"\b(?:next|this|by|in|on|before|after|until|every)\s+(?:week|weekend|month|year|summer|"
    r"winter|spring|fall|autumn|morning|evening|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|january|february|march|april|may|june|july|august|september|october|"
    r"november|december|q[1-4]|\d{4})\b|\btomorrow\b|\btonight\b|\b(?:19|20)\d{2}\b|"
    r"下(?:个)?(?:月|周|星期)|明年|今年|年底|月底|明天|\d+\s*月|周[一二三四五六日末]",
    re.I,
)
_VERBS = {
    "prefer": "Prefers",
    "like": "Likes",
    "love": "Loves",
    "enjoy": "Enjoys",
    "hate": "Hates",
    "dislike": "Dislikes",
    "don't like": "Doesn't like",
    "do not like": "Doesn't like",
    "plan": "Plans",
    "want": "Wants",
    "intend": "Intends",
    "hope": "Hopes",
    "aim": "Aims",
    "planning": "Plans",
    "hoping": "Hopes",
    "going": "Is going",
    "gonna": "Is going",
    "using": "Uses",
    "working on": "Is working on",
    "building": "Is building",
    "learning": "Is learning",
    "studying": "Is studying",
    "practicing": "Practises",
    "practising": "Practises",
    "researching": "Is researching",
    "looking into": "Is looking into",
    "training for": "Is training for",
    "putting together": "Is putting together",
    "hosting": "Is hosting",
    "organizing": "Is organizing",
    "organising": "Is organising",
    "preparing for": "Is preparing for",
    "getting ready for": "Is getting ready for",
    "searching for": "Is searching for",
    "saving for": "Is saving for",
    "saving up for": "Is saving up for",
    "volunteering": "Is volunteering",
    "teaching": "Is teaching",
    "passionate about": "Is passionate about",
    "into": "Is into",
    "keen on": "Is keen on",
    "used to": "Used to",
    "had a love for": "Loves",
    "loved": "Loves",
    "liked": "Likes",
    "enjoyed": "Enjoys",
    "been into": "Is into",
    "mentor": "Mentors",
    "coach": "Coaches",
    "volunteer": "Volunteers",
    "own": "Owns",
    "manage": "Manages",
    "run": "Runs",
    "lead": "Leads",
    "tutor": "Tutors",
    "foster": "Fosters",
    "teach": "Teaches",
    "practice": "Practices",
    "practise": "Practises",
    "collect": "Collects",
    "grow": "Grows",
    "brew": "Brews",
    "bake": "Bakes",
    "knit": "Knits",
    "sew": "Sews",
    "paint": "Paints",
    "write": "Writes",
    "play": "Plays",
}

# What a person is, said with an adjective, that stays true: "I'm vegetarian". Passing states
# ("I'm tired", "I'm excited") are not on the list.
TRAITS = (
    "vegetarian",
    "vegan",
    "pescatarian",
    "allergic to",
    "lactose intolerant",
    "gluten intolerant",
    "gluten-free",
    "coeliac",
    "celiac",
    "diabetic",
    "left-handed",
    "right-handed",
    "colou?r ?blind",
    "deaf",
    "married",
    "divorced",
    "engaged",
    "widowed",
    "retired",
    "self-employed",
    "bilingual",
    "trilingual",
    "teetotal",
    "sober",
    "introverted",
    "extroverted",
)

# kind, pattern; `v` is the verb (rewritten in the third person), `x` what it is about.
RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("correction", re.compile(r"^(?:actually|correction|update)\b[\s,:：–—-]*(?P<x>.+)", re.I)),
    ("correction", re.compile(r"^(?:不对|更正|纠正|其实)[\s，,：:]*(?P<x>.+)")),
    (
        "correction",
        re.compile(
            r"(?P<x>.*(?:现在改用|现在改成|改用了?|换成了?|现在主要用|switched (?:to|from)|"
            r"moved (?:to|from)|no longer|not anymore|now (?:mainly |mostly )?use).*)",
            re.I,
        ),
    ),
    (
        "remember",
        re.compile(
            r"^(?:please\s+)?(?:remember(?:\s+(?:this|that|to(?=\s+(?:always|never|not)\b)))?\b|"
            r"note\s+(?:that|down)\b|note(?=\s*:))[\s:：,，]*(?P<x>.+)",
            re.I,
        ),
    ),
    (
        "remember",
        re.compile(r"^(?:请)?(?:帮我)?(?:记住|别忘了|记一下|记下来?|记得)[\s:：，,]*(?P<x>.+)"),
    ),
    ("identity", re.compile(r"^my name is (?P<x>.+)", re.I)),
    (
        "trait",
        re.compile(r"^I(?:'m|’m| am) (?:a |an )?(?P<x>(?:" + "|".join(TRAITS) + r")\b.*)", re.I),
    ),
    (
        "relation",
        re.compile(
            r"^(?:and )?my (?P<rel>[a-z]+(?: [a-z]+)?)(?:'s|’s)? (?:name is|is called|is named|"
            r"are called) (?P<x>[A-Z][\w'’-]*(?: (?:and )?[A-Z][\w'’-]*)?)",
            re.I,
        ),
    ),
    ("identity", re.compile(r"^I(?:'m| am) (?P<x>(?:a|an) (?!bit\b|little\b|lot\b).+)", re.I)),
    (
        "identity",
        re.compile(
            r"^I (?P<v>live|grew up|was born|work|am working|study|teach)"
            r" (?P<x>(?:in|at|as|for|near) .+)",
            re.I,
        ),
    ),
    ("identity", re.compile(r"^I(?:'m| am) (?P<x>from .+)", re.I)),
    ("identity", re.compile(r"^我(?P<x>(?:是|叫|住在|在.{1,12}工作|来自).+)")),
    (
        "preference",
        re.compile(
            r"^I (?:really |also |much |absolutely )?"
            r"(?P<v>prefer|like|love|enjoy|hate|dislike|don't like|do not like) (?P<x>.+)",
            re.I,
        ),
    ),
    # How the person wants the assistant to behave, said as a standing request: a rule for
    # AGENTS.md ("Please always answer in Chinese", "以后请用中文回答"). Text that only reads
    # like one (a pasted web page) is held by the firewall before it gets here.
    (
        "rule",
        re.compile(
            r"^(?:from now on|going forward|henceforth)[\s,]+(?:please\s+)?"
            r"(?P<x>(?:(?:always|never)\s+)?(?:answer|reply|respond|write|use|keep|give|include"
            r"|call|ask|avoid|show|format|add|put|spell|run|don't|do not)\b.+)",
            re.I,
        ),
    ),
    (
        "rule",
        re.compile(
            r"^please\s+(?P<x>(?:always|never|from now on)\s+(?:answer|reply|respond|write|use|"
            r"keep|give|include|call|ask|avoid|show|format|add|put)\b.+)",
            re.I,
        ),
    ),
    (
        "rule",
        re.compile(
            r"^(?:以后|今后|从现在起|之后)?[\s，,]*(?:请|麻烦)?(?:你)?(?:以后|今后)?"
            r"(?P<x>(?:总是|一直|每次都?|一律|始终|永远不要|不要再)(?:用|使用|回答|回复|写|给|加|附上|说).+)"
        ),
    ),
    (
        "preference",
        re.compile(
            r"^please\s+(?:always\s+)?(?:keep|use|answer|reply|write|suggest|avoid|give)\b.+",
            re.I,
        ),
    ),
    (
        "preference",
        re.compile(r"^我(?P<x>(?:更|比较|很|也|一直)?(?:喜欢|偏好|习惯|讨厌|不喜欢).+)"),
    ),
    (
        "preference",
        re.compile(
            r"^I(?:'m|’m| am) (?:really |so |very |also |truly )?"
            r"(?P<v>passionate about|into|a (?:big |huge )?fan of|keen on) (?P<x>.+)",
            re.I,
        ),
    ),
    (
        "tool",
        re.compile(
            r"^I(?:'m|’m| am|'ve been|’ve been| have been) (?:now |still |currently |also |just )?"
            r"(?P<v>using|working on|building|learning|studying|practicing|practising|"
            r"researching|looking into|training for|putting together|hosting|organi[sz]ing|"
            r"preparing for|getting ready for|searching for|saving (?:up )?for|volunteering|"
            r"teaching) (?P<x>.+)",
            re.I,
        ),
    ),
    ("tool", re.compile(r"^我(?P<x>(?:最近|现在|正在|目前)?(?:在用|在做|用的是).+)")),
    # What the person did for years, or does as a habit: "I used to go horseback riding with
    # my dad", "I mentor a transgender teen", "I've always had a love for horses".
    (
        "habit",
        re.compile(
            r"^I (?:(?P<v>used to|mentor|coach|volunteer|own|manage|run|lead|tutor|foster|"
            r"teach|practi[cs]e|collect|grow|brew|bake|knit|sew|paint|write|play) )(?P<x>.+)",
            re.I,
        ),
    ),
    (
        "preference",
        re.compile(
            r"^I(?:'ve|’ve| have) always (?P<v>had a love for|loved|liked|enjoyed|been into) "
            r"(?P<x>.+)",
            re.I,
        ),
    ),
    # Something that happened to the person, said with when: "I went to a support group
    # yesterday", "I started playing guitar five years ago". Without a time it is as likely
    # a passing remark as an event.
    (
        "event",
        re.compile(
            r"^I (?:just |recently |finally |also |even )?(?P<v>went|attended|joined|started|"
            r"finished|adopted|bought|won|visited|signed up for|ran|completed|graduated from|"
            r"passed|met|received|lost|began|volunteered|hosted|organi[sz]ed|performed|"
            r"painted|wrote|published|launched|opened|took up|got married|got engaged) "
            r"(?P<x>.+)",
            re.I,
        ),
    ),
    (
        "goal",
        re.compile(
            r"^I(?: |'m |’m | am )(?P<v>plan|want|intend|hope|aim|planning|hoping|going|gonna)"
            r"(?P<to> to)? (?P<x>.+)",
            re.I,
        ),
    ),
    ("goal", re.compile(r"^我?(?P<x>(?:打算|计划|准备|想要|希望|的目标是).+)")),
)
# kind -> (file, section, type, importance, confidence)
TARGETS = {
    "remember": ("MEMORY", "Facts", "fact", 0.8, 0.9),
    "rule": ("AGENTS", "Rules", "rule", 0.8, 0.9),
    "identity": ("USER", "Identity", "identity", 0.8, 0.8),
    "trait": ("USER", "Identity", "identity", 0.8, 0.85),
    "relation": ("USER", "Identity", "identity", 0.7, 0.85),
    "move": ("USER", "Identity", "identity", 0.8, 0.85),
    "preference": ("USER", "Preferences", "preference", 0.6, 0.8),
    "tool": ("MEMORY", "Projects", "fact", 0.5, 0.7),
    "goal": ("USER", "Goals", "goal", 0.6, 0.75),
    "event": ("MEMORY", "Facts", "event", 0.5, 0.7),
    "habit": ("MEMORY", "Facts", "fact", 0.5, 0.7),
    "correction": ("MEMORY", "Facts", "fact", 0.7, 0.8),
}


@dataclass(frozen=True)
class _Line:
    file: str
    text: str
    words: frozenset[str]


# Every rule runs on one sentence of bounded length, so the provider is linear in the text:
# a sentence longer than this (a pasted log, a minified file) states no fact a rule can
# take, and an entry offers at most so many sentences.
MAX_SENTENCE = 400
MAX_SENTENCES = 40


# A full stop after these ends no sentence: "a nurse at St. Mary's Hospital".
_ABBREVIATION_RE = re.compile(
    r"\b(?:St|Dr|Mr|Mrs|Ms|Prof|Jr|Sr|Mt|No|vs|etc|e\.g|i\.e|Inc|Ltd|Co|approx)\.$"
)


def _joined(parts: list[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if out and _ABBREVIATION_RE.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def sentences(text: str) -> list[str]:
    out = []
    for part in _joined(_SENTENCE_RE.split(text)):
        s = part.strip(" \t-–—*>•")
        if 4 <= len(s) <= MAX_SENTENCE:
            out.append(s)
            if len(out) == MAX_SENTENCES:
                break
    return out


def _words(text: str) -> frozenset[str]:
    return frozenset(shingles(tokenize(text)))


def _existing(documents: dict[str, str]) -> list[_Line]:
    lines = []
    for name, text in documents.items():
        for line in split_doc(text).lines:
            if is_live_bullet(line):
                lines.append(_Line(name.removesuffix(".md"), line.strip(), _words(core(line))))
    return lines


def _replaced(statement: str, existing: list[_Line]) -> _Line | None:
    """The line a correction most plausibly replaces: most shared words, at least two and at
    least a quarter of the line's."""
    words = _words(statement)
    best, best_score = None, 0
    for line in existing:
        shared = len(words & line.words)
        if shared >= 2 and shared * 4 >= len(line.words) and shared > best_score:
            best, best_score = line, shared
    return best


# Chat's laughter and smileys at a sentence's end are no part of a fact ("I'm allergic to
# penicillin haha"), and a sentence said in capitals is said in plain case.
_NOISE_TAIL_RE = re.compile(
    r"(?:[\s,]+(?:lol|lmao|rofl|ha(?:ha)+h?|he(?:he)+|hah|xd|jk|:-?[)D(P]|;-?\)|"
    r"[\U0001F600-\U0001F64F\U0001F900-\U0001F9FF]))+[\s.!?]*$",
    re.I,
)


def _plain(sentence: str) -> str:
    out = _NOISE_TAIL_RE.sub("", sentence)
    letters = [c for c in out if c.isascii() and c.isalpha()]
    if len(letters) >= 6 and not any(c.islower() for c in letters):
        out = re.sub(r"\bi\b", "I", out.lower())
    return out


def _clean(text: str) -> str:
    text = " ".join(text.split()).strip(" ,，:：;；").rstrip(".。!！")
    return (text[:1].upper() + text[1:])[:300]


_POSSESSIVE = re.compile(r"\b(?:my|our)\b", re.I)
_NAME_RE = re.compile(r"(?<!^)\b[A-Z][a-z]{2,}")  # a capitalised word not opening the text
# "I moved to Porto last month, no longer in Lisbon": where the person lives now, and where
# no longer (the line that said so is struck through, not deleted).
_MOVE_RE = re.compile(
    r"^(?:(?:I|[Ww]e)(?:'ve|’ve| have)?\s+)?(?:just\s+|recently\s+|finally\s+)?"
    r"(?:moved|relocated)\s+(?:house\s+|back\s+)?"
    r"(?:from\s+(?P<old1>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)\s+)?to\s+"
    r"(?P<new>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)(?P<rest>.*)$"
)
_HOME_RE = re.compile(r"\b(?:apartment|flat|house|city|country|family|new place)\b", re.I)
_LIVES_RE = re.compile(r"\b(?:lives|living|live|based|resides|moved)\b|住在", re.I)
# A USER.md line that says where the user lives (no one else's: "Their sister lives …").
_OWN_HOME_RE = re.compile(
    r"(?:lives|is based|based|resides|home for (?:the user|them) is|住在)\b", re.I
)
_MOVE_WHEN_RE = re.compile(
    r"\b(last|this|next)\s+(week|month|year)\b|\b(yesterday|today)\b|"
    r"\bin\s+((?:19|20)\d{2})\b",
    re.I,
)
_NO_LONGER_RE = re.compile(
    r"\b(?:no longer|not anymore|not)\s+(?:living\s+|based\s+)?in\s+"
    r"(?P<old>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)"
)
# What follows a dash is an aside ("keen on counseling - I'd love to help"), and a line that
# still says "I" or "me" once rewritten speaks for someone the reader cannot see.
_ASIDE_RE = re.compile(r"\s+[-–—]+\s+")
# A closing clause that turns to the listener ("…, so let's make it happen") or only says
# for how long ("…for a while now") is not part of the fact; nor is a second sentence joined
# on with a comma or an "and" ("…sci-fi movies, the effects are so cool", "…for the team and
# our season opener is next week"), or an agreeing "too".
_TAIL_RE = re.compile(
    r"(?:,?\s+(?:so\s+|and\s+)?let(?:'s|’s|\s+us)\b.*|\s+(?:for\s+(?:a\s+(?:long\s+)?while|"
    r"some\s+time|ages|a\s+long\s+time)(?:\s+now)?|lately|recently|these\s+days|right\s+now)"
    r"|(?:,|\s+and|\s+but)\s+(?:(?:the|this|that|these|those|our|my|their|it|they|he|she|we)"
    r"\b(?:\s+[\w'’-]+){0,3}?\s+(?:is|are|was|were|has|have|gets?|makes?|brings?)\b|"
    r"(?:it|they|that|he|she|we)(?:'s|’s|'re|’re)\b).*|\s+(?:too|as\s+well))$",
    re.I,
)
_SELF_TAIL_RE = re.compile(
    r",?\s+(?:when|while|since|because|as|like|just like|after|before|so|and|but)\s+"
    r"(?:I|me)\b.*$"
)
# "this city", "these songs": which ones, the line alone does not say (a time is named).
_DEMONSTRATIVE_RE = re.compile(r"\b(?:this|these)\s+[a-z][\w'’-]*")  # not "those in need"
_FIRST_PERSON_RE = re.compile(r"\b(?:I|I'\w+|I’\w+|me|myself)\b")
_IDENTITY_HEADS = {
    "live": "Lives",
    "grew up": "Grew up",
    "was born": "Was born",
    "work": "Works",
    "am working": "Works",
    "study": "Studies",
    "teach": "Teaches",
}


def _names_nothing(x: str) -> bool:
    """Whether what a statement is about leans on words the reader cannot see: a pronoun
    (anywhere: "the freedom it brings"), a demonstrative that is not a time, "you"."""
    if _UNNAMED_RE.search(x):
        return True
    return any(not _TIME_RE.search(d.group()) for d in _DEMONSTRATIVE_RE.finditer(x))


def _stand_alone(kind: str, m: re.Match[str], sentence: str) -> str | None:
    """The statement as a line that stands alone: "I love hiking in the Alps" -> "Loves
    hiking in the Alps"; None when what it is about is only a pronoun."""
    x = (m.groupdict().get("x") or sentence).strip()
    if kind in ("remember", "correction"):
        if kind == "remember":  # "记住：我周三出差" is about the user, as "喜欢…" is
            x = re.sub(r"^我的?(?![们司国俩方校院军])", "", x)  # not 我们, 我司…
        return _clean(x)
    if kind == "trait":
        x = _ASIDE_RE.split(" ".join(x.split()), maxsplit=1)[0].rstrip(" .!。！")
        x = _TAIL_RE.sub("", x)
        return None if _FIRST_PERSON_RE.search(x) else _clean(f"Is {x[:1].lower()}{x[1:]}")
    if kind == "relation":
        rel = m["rel"].lower()
        if rel in ("name", "names") or _UNNAMED_RE.match(rel):
            return None
        article = "an" if rel[:1] in "aeiou" else "a"
        return _clean(f"Has {article} {rel} called {x}")
    if kind not in ("identity",) and "v" not in m.groupdict():  # Chinese: kept as said
        return _clean(x)
    # Single spaces first: the tail patterns would backtrack over a long run of whitespace.
    x = _ASIDE_RE.split(" ".join(x.split()), maxsplit=1)[0].rstrip(" .!。！")
    x = _TAIL_RE.sub("", _TAIL_RE.sub("", x))  # a closing clause, then an agreeing "too"
    x = _SELF_TAIL_RE.sub("", x)  # "… with my dad when I was a kid": when is not what
    x = _POSSESSIVE.sub("their", x)
    if _names_nothing(x) or _FIRST_PERSON_RE.search(x):
        return None
    if kind == "identity":
        if _NOT_IDENTITY_RE.match(x) or re.fullmatch(r"(?:a|an)\s+(?:\w+\s+)?fan", x, re.I):
            return None  # "a huge mess", "a fan" (of what?)
        if "v" not in m.groupdict():  # "I'm a nurse", "I'm from Porto", 我是…
            return _clean("Is " + x if x.lower().startswith(("a ", "an ", "from ")) else x)
        return _clean(f"{_IDENTITY_HEADS[m['v'].lower()]} {x}")
    if len(_words(x)) < MIN_CONTENT_WORDS and not (
        len(_words(x)) >= 2 and _NAME_RE.search(x)
    ):  # "creating art" is too little; "hiking in the Alps" names a place
        return None
    head = _VERBS.get(m["v"].lower(), m["v"].capitalize())
    glue = " to " if m.groupdict().get("to") else " "
    return _clean(f"{head}{glue}{x}")


class _Similar:
    """MinHash signatures of the lines there and those taken this run: a statement whose
    estimated Jaccard with one of them is SIMILAR or more repeats it."""

    def __init__(self, texts: list[str]) -> None:
        self.a, self.b = minhash.permutations(128)
        self.sigs = [self._sig(t) for t in texts]
        self.texts = list(texts)
        self.owners: list[dict | None] = [None] * len(texts)  # the edit that took a line

    def _sig(self, text: str) -> np.ndarray | None:
        words = sorted(_words(text))
        return minhash.signature(words, self.a, self.b) if words else None

    def repeated(self, text: str) -> tuple[bool, dict | None]:
        """(whether the text repeats a line, this run's edit that took that line if one
        did)."""
        sig = self._sig(text)
        if sig is None:
            return True, None
        known = [i for i, s in enumerate(self.sigs) if s is not None]
        if known:
            jac = minhash.jaccard(np.stack([self.sigs[i] for i in known]), sig)
            best = int(np.argmax(jac))
            if float(jac[best]) >= SIMILAR and not _names_apart(text, self.texts[known[best]]):
                return True, self.owners[known[best]]
        return False, None

    def took(self, edit: dict) -> None:
        """A line this run takes: later statements are checked against it too."""
        self.sigs.append(self._sig(edit["text"]))
        self.texts.append(edit["text"])
        self.owners.append(edit)


_NAME_RE = re.compile(r"[A-Za-z][\w.+#-]*|\d+(?:\.\d+)?")


def _names_apart(text: str, line: str) -> bool:
    """Whether a Chinese statement names what the line does not (喜欢用 Emacs 写代码 beside
    喜欢用 Vim 写代码): its character pairs make them look alike, but the name is the fact."""
    if not (CJK_RE.search(text) and CJK_RE.search(line)):
        return False
    mine = {m.casefold() for m in _NAME_RE.findall(text)}
    return bool(mine) and not mine <= {m.casefold() for m in _NAME_RE.findall(line)}


class OfflineProvider:
    name = "offline"
    label = "offline (rules, no network)"
    rules = True  # not a model: what it keeps nothing of stays pending for one
    context_tokens = 10**9

    def __init__(self) -> None:
        self.calls = 0
        self.tokens_sent = 0

    def propose(self, request: Request) -> Proposal:
        self.calls += 1
        existing = _existing(request.documents)
        similar = _Similar([line.text for line in existing])
        edits: list[dict] = []
        per_section: dict[str, int] = {}
        capped: set[int] = set()
        used: list[str] = []
        cap = MAX_PER_SECTION * max(1, len(request.entries) // PER_ENTRIES)
        agent_of = {e.number: e.agent for e in request.entries}
        for entry in request.entries:
            if entry.role not in USER_ROLES:
                continue  # another speaker's words, or the assistant's: they stay in the log
            # What reads like an instruction is proposed (the firewall holds it for review)
            # but takes no room a section keeps for what the person said.
            held = flagged(entry.text)
            # A phone's curly apostrophe ("I’m a nurse") is the rules' straight one.
            for sentence in sentences(own_voice(entry.text).replace("’", "'")):
                if REDACTED in sentence or _QUESTION_RE.search(sentence):
                    continue
                edit = self._edit(_LEAD_RE.sub("", _plain(sentence)), existing)
                if edit is None:
                    continue
                section = f"{edit['file']}/{edit.get('section') or edit.get('target')}"
                if edit["op"] == "add":
                    repeats, earlier = similar.repeated(edit["text"])
                    if repeats:
                        # Said again: the line this run took cites this entry too, when the
                        # entry is as clean as the first and from the same agent (a line's
                        # sources decide what the firewall holds and whose the line is).
                        cited = earlier["sources"] if earlier is not None else None
                        if (
                            cited
                            and not held
                            and entry.number not in cited
                            and len(cited) < MAX_SOURCES
                            and agent_of[cited[0]] == entry.agent
                        ):
                            cited.append(entry.number)
                        continue
                    if per_section.get(section, 0) >= cap:
                        capped.add(entry.number)  # left for the next run, not dropped
                        continue
                edit["sources"] = [entry.number]
                if edit["op"] in ("add", "deprecate"):
                    similar.took(edit)
                    _now_live(existing, edit)
                edits.append(edit)
                if held:
                    continue
                per_section[section] = per_section.get(section, 0) + 1
                used.append(f"{_hhmm(entry)}{sentence.rstrip('.。')}")
        history = self._history(request.entries, used, request.now)
        timed = [e.when for e in request.entries if e.when]
        # Every entry no edit cites and no cap held back holds nothing the rules keep: said
        # so explicitly, so that (and only that) counts as consolidated.
        cited = {n for e in edits for n in e["sources"]}
        skip = [e.number for e in request.entries if e.number not in cited | capped]
        answer = {"history_entry": history, "edits": edits, "skip": skip}
        last = max(timed, default=request.now)
        found = read_answer(answer, entries=len(request.entries), last=last)
        # What the rules found nothing in is not consumed: a model run is offered it later.
        return replace(found, usage=Usage(0, 0), model="rules", skip_as="offline")

    def _edit(self, sentence: str, existing: list[_Line]) -> dict | None:
        """The rules' edit for a sentence; an update (updates.py) deprecates the line it
        replaces, or, when no rule took it, says what is true now as a line of its own."""
        ruled = self._ruled(sentence, existing)
        edit = as_update(ruled, sentence, existing, _added_to)
        if edit is ruled or ruled is not None or edit is None:
            return edit
        alone = _standalone(edit)
        if alone is None and edit["op"] == "deprecate":
            # What is true now cannot stand as a line ("来杭州第一周，新公司在滨江…" still
            # says the writer), but the line it replaces is no longer true: struck all the
            # same, citing the entry, which recall finds; a live stale line is the lie.
            return {**edit, "text": ""}
        return alone

    def _ruled(self, sentence: str, existing: list[_Line]) -> dict | None:
        # "我下周三去上海出差，帮我记一下：酒店订在静安寺附近": the request comes after what
        # it is about; both halves are the fact.
        asked = _ASKED_AFTER_RE.match(sentence)
        if asked:
            sentence = "记住：" + "，".join(p for p in (asked["x"], asked["y"]) if p)
        moved = _moved(
            _LEAD_RE.sub(
                "",
                re.sub(r"^(?:actually|correction|update)\b[\s,:：–—-]*", "", sentence, flags=re.I),
            ),
            existing,
        )
        if moved is not None:
            return moved
        for kind, pattern in RULES:
            m = pattern.search(sentence)
            if not m:
                continue
            if kind == "goal" and not _TIME_RE.search(sentence):
                return None  # a plan without a time is a passing thought
            if kind == "event" and not _PAST_TIME_RE.search(sentence):
                return None  # what happened, and when: else a passing remark
            text = _stand_alone(kind, m, sentence)
            if text is None or len(_words(text)) < (1 if kind in ("trait", "relation") else 2):
                return None
            if kind == "remember" and _RULE_WORDS.search(text):
                kind = "rule"
            if kind in ("tool", "event", "habit") and text[:1].isascii() and text[:1].isalpha():
                # MEMORY.md is not about the user alone: say whose project it is.
                text = f"User {text[:1].lower()}{text[1:]}"
            edit = _added(kind, text)
            if kind == "correction":
                old = _replaced(text, existing)
                if old is not None:
                    edit.update(file=old.file, op="deprecate", target=old.text)
                    del edit["section"]
                elif _FIRST_PERSON_RE.search(text):
                    return None  # corrects nothing here, and does not stand alone as a fact
            return _standalone(edit)
        return None

    @staticmethod
    def _history(entries: tuple[PromptEntry, ...], used: list[str], now) -> str:
        timed = [e.when for e in entries if e.when]
        last = max(timed) if timed else now
        first = min(timed) if timed else now
        stamp = history_stamp(last)
        span = f" from {first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M}"
        talk = [e for e in entries if e.role in USER_ROLES]
        head = f"{stamp} {plural(len(entries), 'log entry')}{span}, {len(talk)} from the user."
        points = used[:4]
        if not points:  # nothing matched a rule: the first sentences of the longest turns
            longest = sorted(entries, key=lambda e: -len(e.text))[:3]
            points = [
                f"{_hhmm(e)}{e.role}: {(sentences(e.text) or [e.text])[0].rstrip('.。')}"
                for e in sorted(longest, key=lambda e: e.cite)
            ]
        body = " ".join(f"{' '.join(p.split())[:240]}." for p in points if p)
        return f"{head} {body}".strip()


def _standalone(edit: dict) -> dict | None:
    """The edit when its line stands alone: about the user in the third person in every
    language ("我现在主要用Go写后端了" is "现在主要用Go写后端了" in USER.md), and naming what it
    is about ("Please suggest Go code in that style" says nothing without the turn before);
    else None, and the statement stays in the log."""
    # "Zhang Lei and I start the rotation" names who: "Zhang Lei and the user start …".
    text = third_person(chinese_third(edit["text"], edit["file"]), edit["file"])
    if first_person(text) or _DANGLING_RE.search(text):
        return None
    return {**edit, "text": text}


def _now_live(existing: list[_Line], edit: dict) -> None:
    """What a taken edit leaves live, for the later sentences of the run: the line it adds,
    in place of the one it deprecates."""
    if edit["op"] == "deprecate":
        existing[:] = [line for line in existing if line.text != edit["target"]]
    if edit["text"]:
        existing.append(_Line(edit["file"], edit["text"], _words(edit["text"])))


def _added_to(where: tuple[str, str, str], text: str) -> dict:
    """An `add` of an update's own words to the file and section its slot belongs to."""
    file, section, typ = where
    return {"file": file, "op": "add", "section": section, "text": text, "type": typ,
            "importance": 0.7, "confidence": 0.8}  # fmt: skip


def _added(kind: str, text: str) -> dict:
    """An `add` of the text to the file and section its kind of statement goes to."""
    file, section, typ, importance, confidence = TARGETS[kind]
    return {
        "file": file,
        "op": "add",
        "section": section,
        "text": text,
        "type": typ,
        "importance": importance,
        "confidence": confidence,
    }


def _moved(sentence: str, existing: list[_Line]) -> dict | None:
    """A move: "Lives in Porto since last month", striking the line that placed the person
    in the city they left (named after "no longer in" or "from"), when there is one."""
    m = _MOVE_RE.match(sentence)
    if not m:
        return None
    new = m["new"]
    when = _MOVE_WHEN_RE.search(m["rest"])
    gone = _NO_LONGER_RE.search(m["rest"])
    # A person moves house with a time or a place left behind; "moved to GitHub Actions"
    # (a tool) has neither, nor does a project's "we moved to Rust".
    cue = re.search(
        r"\b(?:just|recently|finally)\s+(?:moved|relocated)|\bmoved\s+house\b", sentence
    )
    if not (when or gone or cue or m["old1"] or _HOME_RE.search(m["rest"])):
        return None
    text = f"Lives in {new}"
    if when:
        text += (
            f" since {when[0]}" if not when[0].lower().startswith("in ") else f" since {when[4]}"
        )
    old = m["old1"] or (gone["old"] if gone else None)
    edit = _added("move", text)
    # The line that placed the person in the city left, named after "from" or "no longer
    # in"; else the one line of USER.md that says where they live (one place at a time).
    if old:
        place = old.casefold()
        said = [
            line
            for line in existing
            if place in line.text.casefold()
            and line.file in ("USER", "MEMORY")
            and _LIVES_RE.search(line.text)  # only a line that placed the person there
        ]
    else:
        said = [
            line
            for line in existing
            if line.file == "USER"
            and _OWN_HOME_RE.match(line.text)
            and new.casefold() not in line.text.casefold()
        ]
    if len(said) == 1:
        edit.update(file=said[0].file, op="deprecate", target=said[0].text)
        del edit["section"]
    return edit


def _hhmm(entry: PromptEntry) -> str:
    return f"{entry.when:%m-%d %H:%M} " if entry.when else ""
