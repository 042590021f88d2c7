"""What is true now: whether a later statement updates an earlier one on the same subject.

A statement *updates* another when it is later, it is not a question, it carries a word of
change, and the two speak of the same subject:

- a word of change is strong ("changed my mind", "no longer", "switched to", "quit",
  "moved to", "cancelled", "sold", "slipped to", "used to", 不再, 改用, 换成, 搬到, 改到,
  取消, 戒了, 卖了, 推迟, 不对) or weak ("now", "new", "these days", 现在, 新);
- the same subject is a shared slot (where one lives, one's editor, manager, main
  language, car, a recurring meeting, a launch date, …: `SLOTS`, English and Chinese) or,
  for a strong word of change only, a shared content word that is not a word of change or a
  word every statement uses ("tabs", "gym", "杭州"), a quarter of the shorter statement's
  words at least.

A weak word needs the slot: "I now go hiking on Sundays" does not update "I love hiking".
A strong change whose clause names no slot is about the slots its own sentence holds, or a
short sentence announcing it ("New phone arrived! Switched to a OnePlus 12"); a change joined
to a sequel ("Sold the estate and bought a bike") is said by its first half; a change stated
before a question that follows it ("the new MacBook keeps waking up, how do I stop that?")
is said, not asked.

A statement also updates another with no word of change when both state, in the first
person and of the present, a value of the same one-valued slot (`RESTATED`: home, employer,
manager, partner, phone, car, …) and no value is shared: "I live in Porto." after "I live in
Lisbon.", 我住在深圳 after 我住在杭州. A value is a capitalised name in the clause that names
the slot (or, in Chinese, what follows the slot's word); the past ("I lived in Berlin"),
someone else's ("my sister lives in Porto"), a question or a supposition names none.
Pure functions of text, the same answer every time; recall (recall/currency.py), the
context block and the offline rules (consolidate/providers/offline.py) share them, so what
recall calls superseded is what consolidation deprecates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..text import Lazy, compiled
from .change_words import ASKING_RE, LEAD_RE, QUESTION_RE, STRONG_RE, WEAK_RE
from .slots import _E, _PATTERN_NEEDLES, _W, SLOT_EXCLUDED, SLOT_PATTERNS, SLOTS
from .tokenize import shingles, tokenize
from .voice import own_voice

# A strong word of change and one shared word is enough, but not one of these: every
# statement has them, so sharing one says nothing about the subject.
_GENERIC = frozenset(
    shingles(
        tokenize(
            """now new today day days week weeks month months year years time times thing things
            lot really also still just get got go going gone went make made want wanted think
            know like likes liked love loves prefer prefers use used using uses work working
            good great nice well back way much many more most last next first every since
            ago yet again always never ever said say says tell told user people everything
            one two three four five six seven eight nine ten little bit kind sort stuff
            actually instead longer anymore changed mind switched moved quit stopped sold
            cancelled canceled update correction became 现在 目前 最近 已经 开始 以后 以前
            今天 明天 改用 改成 换成 换了 不再 取消 其实 不对 yesterday tomorrow tonight
            morning evening weekend rid gonna wanna keep finally 昨天 上周 下周 上个 个月 下个 周末
            昨天 时候 一下 一个 这个 那个 我们 你们 他们 觉得 还是 不是 就是 可以 没有 自己
            no not t don doesn didn isn aren wasn weren won can couldn haven hasn m am
            s ve ll d re scratch flip turns turned meant sorry 说错 记错 搞错 错了"""
        )
    )
)


# Words shared by what changed and the older statement: most of what changed (one word in
# common between a long alert and a short change, "worker", is a coincidence), and a fair
# share of the older statement's.
OF_CHANGE = 0.5
OF_OLD = 0.2
# Slots with one value at a time: a weak word of change ("now", "new", 现在) is enough
# for them ("I report to Daniel now"), not for what one can have several of (pets, drinks).
SINGLE = frozenset(
    """home job manager editor language indent vehicle commute meeting deadline partner phone
    computer os theme shell browser database framework ci salary name email school sleep
    doctor landlord hosting repo_host chat keyboard monitor workweek diet bundler iac
    teacher team testing""".split()
)
# A statement that names a slot only in passing ("… 3.2x faster than the Python one") does
# not hold its value: a slot is held by a sentence in the first person or a short one.
SHORT = 8
MAX_SENTENCES = 3  # a longer text (a report, a pasted page) is never superseded whole
_CLAUSE_RE = Lazy(r"[,;:!?，。；：！？、—–]+\s*|\.+(?![A-Za-z0-9])\s*|\s+-\s+|\n+")
# A full stop after a title ends no sentence: "My manager is Dr. Dorit Levi."
_SENTENCE_RE = Lazy(
    r"(?<=[.!?])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bProf\.)\s+"
    r"|[。！？\n]+"
)
_MARKED_SENTENCE_RE = Lazy(
    r"(?<=[!?。！？])\s*|(?<=\.)(?![A-Za-z0-9])\s*|\n+"
)  # each sentence keeps its mark
_CJK_CHAR_RE = Lazy(r"[\u3400-\u9fff]")
_FIRST_PERSON_RE = Lazy(rf"{_W}(?:i|i['’]m|i['’]ve|my|me|we|our|us){_E}|我|咱", re.I)


@dataclass(frozen=True)
class Sentence:
    slots: frozenset[str]
    words: frozenset[str]
    holds: bool  # in the first person, or short: it holds the value of its slots
    asks: bool = False  # a question states nothing to supersede
    # Whose its slots are, read from its subject as a change's is (`_whose`): None for the
    # writer's; else the slots of theirs it may hold and who it is ("My sister Lena lives
    # in Hamburg" is Lena's home, which the user's own move leaves alone).
    whose: Whose = None
    # What it names as the value of its one-valued slots (`RESTATED`): names, and in
    # Chinese what follows the slot's word ("Lisbon", 杭州). Empty when it says none, or
    # says it of the past, of someone else, or supposes it.
    values: frozenset[str] = frozenset()

    def own_slots(self) -> frozenset[str]:
        """The slots it holds as the writer's: all, or the one a relation names ("my
        manager is Dorit")."""
        return self.slots if self.whose is None else self.slots & self.whose[0]


@dataclass(frozen=True)
class Statement:
    """What supersession reads of a text: whether it says a change (strong, weak), whether
    it asks, its sentences, and the slots and content words of the clauses that say the
    change (what changed)."""

    strong: bool
    weak: bool
    question: bool
    sentences: tuple[Sentence, ...]
    changed_slots: frozenset[str] = frozenset()
    changed_words: frozenset[str] = frozenset()
    named_slots: frozenset[str] = frozenset()  # the slots of the strong clauses alone
    # The words of each clause of `changed_words`: one may hold what changed while the rest
    # say what comes instead ("I've gone off conventional commits. From now on …").
    changed_parts: tuple[tuple[frozenset[str], frozenset[str]], ...] = ()  # (words, slots)
    # The words of every clause that says a change, the weak ones too: whom it names.
    mentioned: frozenset[str] = frozenset()
    # Changes someone else's clauses say of their own slots: (slots, words, who), taken
    # only against an older statement that names them too ("Lena lives in Bremen" updates
    # "My sister Lena lives in Hamburg", never "I live in Hamburg").
    others: tuple[tuple[frozenset[str], frozenset[str], frozenset[str]], ...] = ()
    # The one-valued slots its sentences state the writer holds now, each with the value
    # it names: a fact said again with another value is a change said without a word of
    # change ("I live in Lisbon.", later "I live in Porto.").
    restated: tuple[tuple[frozenset[str], frozenset[str]], ...] = ()

    @property
    def changes(self) -> bool:
        return (self.strong or self.weak) and not self.question

    @property
    def may_update(self) -> bool:
        """Whether it may update an earlier statement: it says a change, or states another
        value of a one-valued slot (`restated`)."""
        return self.changes or bool(self.restated)

    @property
    def slots(self) -> frozenset[str]:
        return frozenset().union(*(s.slots for s in self.sentences))

    @property
    def words(self) -> frozenset[str]:
        return frozenset().union(*(s.words for s in self.sentences))


@lru_cache(maxsize=128)
def _slot_pattern(words: tuple[str, ...], extra: str = "") -> re.Pattern[str]:
    ascii_words = sorted((w for w in words if w.isascii()), key=len, reverse=True)
    other = sorted((w for w in words if not w.isascii()), key=len, reverse=True)
    parts = []
    if ascii_words:
        # Bounded by Latin letters and digits only: "迁到Linear了" names Linear.
        parts.append(
            rf"(?<![A-Za-z0-9_'’])(?:{'|'.join(map(re.escape, ascii_words))})(?:e?s)?"
            r"(?![A-Za-z0-9_'’])"
        )
    if other:
        parts.append("|".join(map(re.escape, other)))
    if extra:
        parts.append(extra)
    return compiled("|".join(parts), re.I)


@lru_cache(maxsize=1024)  # a clause is read for its slots up to three times
def slots_of(text: str) -> frozenset[str]:
    """The slots a text names (`SLOTS`)."""
    return frozenset(_slots_at(text))


# Characters IGNORECASE matches to an ASCII letter that str.lower() leaves alone (U+0130 İ,
# U+0131 ı, U+017F ſ, U+212A K): a text holding one is searched slot by slot.
_FOLDS = frozenset("\u0130\u0131\u017f\u212a")


@lru_cache(maxsize=1)
def _needles() -> dict[str, list[tuple[str, str]]]:
    """Each slot's words (and its pattern's needles) in lower case, by their first two
    characters (one for a word of one): a slot names nothing in a text that holds none of
    them, which a set of the text's character pairs tells for a fraction of a regex search
    per slot (recall reads ~70 statements a query, each searched three times)."""
    by: dict[str, list[tuple[str, str]]] = {}
    for name, words in SLOTS.items():
        for w in (*words, *_PATTERN_NEEDLES.get(name, ())):
            w = w.lower()
            by.setdefault(w[:2], []).append((w, name))
    return by


def _named_by_words(low: str) -> set[str]:
    """The slots one of whose words (or needles) is in this lower-case text."""
    by = _needles()
    out: set[str] = set()
    keys = {low[i : i + 2] for i in range(len(low) - 1)} | set(low)
    for key in keys & by.keys():
        for w, name in by[key]:
            if name not in out and w in low:
                out.add(name)
    return out


def _slots_at(text: str) -> dict[str, int]:
    """Each slot a text names, and where it first names it."""
    out = {}
    named = None if _FOLDS.intersection(text) else _named_by_words(text.lower())
    for name, words in SLOTS.items():
        if named is not None and name not in named:
            continue
        seen = text
        if name in SLOT_EXCLUDED:
            seen = SLOT_EXCLUDED[name].sub(lambda m: " " * len(m.group()), text)
        found = _slot_pattern(words, SLOT_PATTERNS.get(name, "")).search(seen)
        if found is not None:
            out[name] = found.start()
    return out


def _words(text: str) -> frozenset[str]:
    return frozenset(shingles(tokenize(text)) - _GENERIC)


def _length(text: str) -> float:
    """About how many content words a text says: Latin ones, and Chinese at two characters
    a word (its bigrams would count it twice)."""
    latin = shingles(tokenize(_CJK_CHAR_RE.sub(" ", text)))
    return len(latin) + len(_CJK_CHAR_RE.findall(text)) / 2


# What mem writes of the user names them in the third person ("[2026-10-01 09:00] The user
# lives in Hangzhou.", 用户在南京工作): their own statement, as "I" is in the log.
# Only with a verb of how one is, not a product's "user clicks Save" or 用户反馈.
_USER_SUBJECT_RE = Lazy(
    r"^\W*(?:\[[\d\s:-]+\]\s*)?(?:(?:the\s+)?user\s+(?:now\s+|also\s+|still\s+)?"
    r"(?:lives|works|is|uses|prefers|drives|owns|moved|switched|has\s+(?:a|an)|goes\s+by)\b"
    r"|用户(?:现在|目前)?(?:住|在|是|用|喜欢|开|改用|搬))",
    re.I,
)


def _sentence(text: str) -> Sentence:
    named = _slots_at(text)
    # A launch date or a meeting is everyone's that shares it: said of the thing, it holds.
    user = bool(_USER_SUBJECT_RE.match(text))
    held = (
        bool(_FIRST_PERSON_RE.search(text))
        or user
        or _length(text) <= SHORT
        or bool(SHARED & named.keys())
    )
    whose = None
    if named and not user:
        at = min(named.values())
        # "同事们都叫我 Max", "my sister lives with me": the user's slot all the same.
        if not _FIRST_PERSON_RE.search(text[at:]):
            whose = _whose(text, at)
    asks = bool(QUESTION_RE.search(text))
    values = frozenset()
    if named.keys() & RESTATED and not asks and held:
        values = _values(text, {k: v for k, v in named.items() if k in RESTATED})
    return Sentence(frozenset(named), _words(text), held, asks, whose, values)


# Slots that hold one value at a time, whose value is a name: a later statement that the
# writer holds another (no word of change needed) replaces the earlier one. Not a language,
# an editor or a database: "I write Python" and later "I write TypeScript for the frontend"
# are both true.
RESTATED = frozenset("home job manager partner phone vehicle computer team school name".split())
# A value said of the past, denied, wished or to come is no value now: "I lived in Berlin",
# "I don't live in Porto", "I will live in Porto", "I want to live in Porto", 我想住在深圳.
_THEN_RE = Lazy(
    rf"{_W}(?:was|were|had|did|used\s+to|(?<!['’]ve\s)(?<!have\s)(?:lived|worked)|ago|"
    rf"back\s+then|previously|formerly|until|last\s+year|in\s+(?:19|20)\d\d|not|never|"
    rf"no\s+longer|will|would|wants?\s+to|wanted\s+to|wanna|hope|hoping|dream|dreaming|wish|"
    rf"plan(?:s|ning)?\s+to|going\s+to|someday|one\s+day){_E}|n['’]t{_E}|['’]ll{_E}|"
    r"以前|之前|曾经|当年|那时|小时候|[住待干做呆]过|不|没|想|要|会|打算|准备|可能|希望|梦想",
    re.I,
)
# Who holds the slot, read right before its word: the writer ("I live", "I've been living",
# "my new manager", 我住在, 我的老板), not "my parents live" or "my boss's boss".
_SUBJECT_RE = Lazy(
    r"(?:^|[\s,;:(])(?:i|we|my|our)(?:['’](?:m|ve|re|d))?"
    r"(?:\s+(?:am|are|have|has|had|been|still|now|currently|also|just|finally|actually|"
    r"really|new|current|recently|mainly|mostly|usually|officially))*\s+$",
    re.I,
)
_SUBJECT_ZH_RE = Lazy(r"我们?的?(?:现在|目前|还|也|一直)?$")
# What stands between a slot's word and the value it names: "live in X", "work at X", "my
# manager is X" / "my wife Anna", "drive a Tesla", "my phone is a Pixel".
_PERSON_SLOTS = frozenset("manager partner name".split())
_THING_SLOTS = frozenset("vehicle phone computer".split())
_LINK = {
    "home": r"(?:\s+(?:in|at))?\s+",  # "live in X"; "based in" holds its own
    "job": r"(?:\s+(?:at|for))?\s+",  # "work at" holds its own
    "team": r"\s+(?:on|in|at|is|called|named)\s+|\s+",
    "school": r"\s+(?:at|in|is)\s+",
}
_PERSON_LINK = r"\s+(?:is|called|named)\s+|,\s*|\s+"
_THING_LINK = r"(?:\s+(?:is|['’]s))?(?:\s+(?:a|an|the|my|new))*\s+"
# A value: a name of one to four capitalised words (a title before it left out), ending at
# a possessive ("Google's Zurich office": Google).
_VALUE_RE = Lazy(
    r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?((?-i:[A-Z][\w&-]*)(?:\s+(?:&\s+)?(?-i:[A-Z0-9][\w&-]*)){0,3})"
)
# Chinese: the value after the forms that state it (住在杭州, 老板是张伟, 车是特斯拉); not one
# that says where near ("住在公司附近").
_ZH_FORMS = {
    "home": ("住在", "家在", "定居在"),
    "manager": ("老板是", "经理是", "领导是", "上司是", "主管是"),
    "partner": ("女朋友是", "男朋友是", "老婆是", "老公是", "对象是", "妻子是", "丈夫是"),
    "vehicle": ("车是", "开的是"),
    "phone": ("手机是",),
    "computer": ("电脑是", "笔记本是"),
}
_NEAR_ZH = ("附近", "旁边", "对面", "楼下", "一带", "周边")
_CJK_RUN_RE = Lazy(r"[\u3400-\u9fff]{1,12}")


def _values(text: str, slots: dict[str, int]) -> frozenset[str]:
    """The values a sentence states the writer holds now for these of its slots (see
    Sentence.values): each right after a slot's word and what links it, the writer right
    before it. Words of a value, lower-cased."""
    if _THEN_RE.search(text) or _SUPPOSED_RE.search(text):
        return frozenset()
    found: set[str] = set()
    for slot in slots:
        for m in _slot_pattern(SLOTS[slot], SLOT_PATTERNS.get(slot, "")).finditer(text):
            if not _SUBJECT_RE.search(text[: m.start()]):
                continue
            if slot in _THING_SLOTS and m.group()[:1].isupper():  # Tesla, MacBook: the value
                found |= _name_words(text[m.start() :])
                continue
            link = _LINK.get(slot) or (_PERSON_LINK if slot in _PERSON_SLOTS else _THING_LINK)
            after = compiled(f"(?:{link})").match(text, m.end())
            if after:
                found |= _name_words(text[after.end() :])
        for form in _ZH_FORMS.get(slot, ()):
            at = text.find(form)
            if at >= 0 and _SUBJECT_ZH_RE.search(text[:at]):
                run = _CJK_RUN_RE.match(text, at + len(form))
                value = run.group() if run else ""
                if value and not any(n in value for n in _NEAR_ZH):
                    found |= {value} if len(value) < 3 else set(shingles(tokenize(value)))
    return frozenset(found)


def _name_words(text: str) -> set[str]:
    m = _VALUE_RE.match(text)
    if not m:
        return set()
    name = re.split(r"['’]s\b", m.group(1))[0]
    return {w.lower() for w in name.split() if w != "&"}


def _restates(old: Sentence, new: Statement) -> bool:
    """Whether `new` states the writer now holds another value of a one-valued slot that
    `old` holds (no value shared)."""
    if old.asks or not old.values:
        return False
    held = old.own_slots() & RESTATED
    return any(held & slots and not (old.values & values) for slots, values in new.restated)


# Past this, a text is a pasted page or one endless line, no statement of a fact: it neither
# updates nor is updated, and its regexes are not run over megabytes on every recall.
MAX_STATEMENT = 4000


def read_statement(text: str, sentences: bool = True) -> Statement:
    """What a text states; without `sentences` only what it changes (what a later
    statement needs of itself: `updates` reads the earlier one's sentences alone)."""
    if len(text) > MAX_STATEMENT:
        return Statement(strong=False, weak=False, question=False, sentences=())
    text = _own(text)
    clauses, sentence, colon = _clauses(text)
    strong = bool(STRONG_RE.search(text)) or any(map(LEAD_RE.match, clauses))
    weak = bool(WEAK_RE.search(text))
    changed = _changed(clauses, True, sentence, colon) if strong or weak else []
    if not changed:  # its only words of change were supposed or planned: no change yet
        strong = weak = False
    # What a strong change is about is in its own clauses ("Sold the Mazda yesterday, I
    # take the tram now": the Mazda); the weak ones may name a slot ("now").
    named = _changed(clauses, False, sentence, colon) if strong else changed
    if strong and not named:  # its strong words were all supposed: only a weak one stands
        strong, named = False, changed
    changed_slots = _slots_in(changed)
    # Only a change of the writer's own, or one naming what is theirs ("he's officially my
    # fiancé"): "Tom quit his job at Acme, I'm so sad" is no change of the writer's job.
    if (
        strong
        and not changed_slots
        and any(not past and (w is None or _FIRST_PERSON_RE.search(c)) for c, w, past in named)
    ):
        changed_slots = _told_slots(text)
    return Statement(
        strong=strong,
        weak=weak,
        question=_asks_its_change(text),
        sentences=_sentences(text) if sentences else (),
        changed_slots=changed_slots,
        changed_words=frozenset().union(*(w for w, _ in _parts_words(named))),
        changed_parts=_parts_words(named),
        mentioned=frozenset().union(*(_words(c) for c, _, _ in changed)),
        named_slots=_slots_in(named),
        others=_others_in(changed),
        restated=_restated(text),
    )


def _told_slots(text: str) -> frozenset[str]:
    """The one-valued slots the writer holds in the sentence of a strong change whose own
    clause names none, or in a short sentence right before it that announces it with a word
    of change of its own: what the change is about ("Caleb proposed, so he's officially my
    fiancé"; "New phone arrived! Switched to a OnePlus 12"). Not a sentence after it ("Sold
    my bike. My flat is cold" says nothing new of the flat), nor one that says the slot
    still holds (我还住在杭州，不过戒烟了)."""
    said = [p for p in _SENTENCE_RE.split(text) if p.strip()]
    if len(said) > MAX_SENTENCES:
        return frozenset()
    out: set[str] = set()
    for i, part in enumerate(said):
        if not (STRONG_RE.search(part) or LEAD_RE.match(part)):
            continue
        before = said[i - 1] if i else ""
        announces = _length(before) <= SHORT / 2 and (
            STRONG_RE.search(before) or WEAK_RE.search(before)
        )
        for told in (part, before if announces else ""):
            s = _sentence(told) if told and not _STILL_RE.search(told) else None
            if s is not None and s.holds and not s.asks:
                out |= s.own_slots() & SINGLE
    return frozenset(out)


_STILL_RE = Lazy(rf"{_W}(?:still|as\s+before|same\s+as\s+ever){_E}|还|仍|依然|依旧", re.I)


def _restated(text: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """Statement.restated of a text (its sentences read only when it names such a slot)."""
    if not _FIRST_PERSON_RE.search(text):  # a short "Porto." states no one's home
        return ()
    said = [p for p in _SENTENCE_RE.split(text) if p.strip()]
    out = []
    for part in said[:MAX_RESTATING]:
        if not _FIRST_PERSON_RE.search(part) or not slots_of(part) & RESTATED:
            continue
        s = _sentence(part)
        if s.values and s.own_slots() & RESTATED:
            out.append((s.own_slots() & RESTATED, s.values))
    return tuple(out)


MAX_RESTATING = 12  # a fact said again may be buried in a longer message; not in a page


def _asks_its_change(text: str) -> bool:
    """Whether the text asks about its change rather than says it: a question, or every
    sentence that holds a word of change a question ("I'm on the 8:12 now. Can you draft the
    notes?" says its change)."""
    if not QUESTION_RE.search(text):
        return False
    saying = [
        p
        for p in _MARKED_SENTENCE_RE.split(text)
        if p.strip() and (STRONG_RE.search(p) or WEAK_RE.search(p) or LEAD_RE.match(p))
    ]
    return not saying or all(_asks(p.strip()) for p in saying)


# A choice, a supposition or the listener's own ("Between the new iPhone and the Pixel 9,
# which should I buy?", 搬到上海的话，房租多少？, "Your new phone, is it an iPhone?"): the
# change in them is asked about, not said.
_ASKED_OF_RE = Lazy(
    rf"{_W}(?:which|between|versus|vs|your|you|you['’]re|hypothetically|assuming|supposing)"
    rf"{_E}|哪个|哪一个|还是|的话|听说|你",
    re.I,
)


def _asks(sentence: str) -> bool:
    """Whether a sentence that holds a word of change asks it: it is a question and its
    change is not stated in a clause before the one that asks ("the new iPhone keeps
    autocorrecting my texts, how do I turn that off?" says the new phone)."""
    if not QUESTION_RE.search(sentence):
        return False
    clauses = [c for c in _CLAUSE_RE.split(sentence) if c.strip()]
    if len(clauses) < 2 or ASKING_RE.search(clauses[0]) or _ASKED_OF_RE.search(sentence):
        return True
    return not any(
        STRONG_RE.search(c) or WEAK_RE.search(c) or LEAD_RE.match(c)
        for c in clauses[:-1]
        if not ASKING_RE.search(c)
    )


def sentences_of(text: str) -> tuple[Sentence, ...]:
    """The sentences `read_statement` reads in a text."""
    return () if len(text) > MAX_STATEMENT else _sentences(_own(text))


def _own(text: str) -> str:
    return " ".join(own_voice(text).split())  # a pasted email's "I'm moving" is not the writer's


def _sentences(text: str) -> tuple[Sentence, ...]:
    said = [p for p in _SENTENCE_RE.split(text) if p.strip()]
    return tuple(map(_sentence, said)) if len(said) <= MAX_SENTENCES else ()


# A change of these is everyone's that shares them: "they cancelled the standup" moves the
# user's standup too. Any other slot is a person's own: "my friend Tom moved to Shenzhen" is
# Tom's move, never the user's.
SHARED = frozenset("meeting deadline hosting repo_host chat ci database framework lesson".split())
# Whose change a clause says, read from the word before its word of change: "I", "we",
# "my bike", a thing ("the launch") are the writer's; "he", "she", "they", "you", a name
# ("Tom", "my friend Tom") or a relation ("my sister") someone else's. A relation that is
# itself a slot of the user's ("my manager is now Daniel") changes that slot alone.
_SELF = frozenset("i i'm i've i'd we we're we've me us my our".split())
_OTHERS = frozenset("he he's she she's they they're they've you you're you've".split())
_RELATION_SLOT = {
    **dict.fromkeys("boss manager supervisor".split(), "manager"),
    **dict.fromkeys(
        "partner wife husband girlfriend boyfriend fiance fiancee fiancé fiancée".split(),
        "partner",
    ),
    **dict.fromkeys("landlord landlady".split(), "landlord"),
    **dict.fromkeys("doctor dentist therapist".split(), "doctor"),
}
_RELATIONS = frozenset(
    """sister sisters brother brothers mom mum mother dad father parents parent son sons
    daughter daughters kid kids child children baby family grandma grandmother grandpa
    grandfather grandparents aunt uncle cousin cousins niece nephew friend friends roommate
    flatmate neighbor neighbour neighbors neighbours colleague colleagues coworker coworkers
    co-worker classmate classmates buddy mate""".split()
)
# Words that may stand between "my" and the relation ("my new manager", "my best friend"),
# and capitalised words that start a clause without being anyone ("Last week", "Actually").
_BETWEEN = frozenset("new old best little big older younger former current".split())
_STARTERS = frozenset(
    """last this next yesterday today tonight since after before then so and but also
    actually recently finally oh well the a an anyway btw update ok okay yes no in on
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday week month year""".split()
)
# What may stand between a subject and its change ("Tom has just moved").
_AUX = frozenset("has have had is was just also finally recently already then".split())
# Changes only a person makes: a capitalised subject before one of them is someone's name.
_PERSON_CHANGE_RE = Lazy(
    r"(?:mov(?:ed|ing)|relocat(?:ed|ing)|left|quit|retired|divorced|broke\s+up|passed\s+away|"
    r"died|got\s+married|resigned)\b",
    re.I,
)
_ENGLISH_WORD_RE = Lazy(r"[A-Za-z][\w'’-]*")
_ZH_OTHER_RE = Lazy(
    r"^(?:我的?|我们的?)?(?:朋友|同事|同学|室友|邻居|姐姐|妹妹|哥哥|弟弟|妈妈|爸爸|父母|儿子|"
    r"女儿|家人|表[哥姐弟妹]|堂[哥姐弟妹]|叔叔|阿姨)|^(?:他|她|他们|她们|你|你们)"
)
_ZH_RELATION_SLOT = (
    (Lazy(r"^(?:我的?|我们的?)?(?:老板|经理|领导|上司|主管)"), "manager"),
    (Lazy(r"^(?:我的?)?(?:女朋友|男朋友|老婆|老公|对象|妻子|丈夫)"), "partner"),
    (Lazy(r"^(?:我的?)?房东"), "landlord"),
)
# A change only supposed, wished or planned is none yet: "If I moved to Shenzhen, …",
# "thinking about switching to Zed", 我打算明年搬到深圳.
_SUPPOSED_RE = Lazy(
    rf"{_W}(?:if|whether|might|maybe|perhaps|thinking\s+(?:about|of)|"
    rf"consider(?:ing)?|plan(?:s|ning)?\s+to|hoping\s+to|hope\s+to|should|"
    rf"says|said|told\s+me|suggests?|recommends?|in\s+case|wrote|writes|tried|tries|trying|"
    # A past told as a story ("Back in 2015 I moved", "When I was a student I moved").
    rf"(?:back\s+)?in\s+(?:19|20)\d\d|when\s+i\s+was|years\s+ago|as\s+a\s+(?:kid|child|student|teenager)"
    rf"){_E}|如果|要是|假如|万一|打算|计划|准备|考虑|可能|也许|或许|要不要|是否|不会|不想|"
    r"小时候|上大学的时候|那时候|当年|建议|推荐|评估|"
    r"(?<!不)想(?:要)?(?=搬|换|改|去|转|辞|跳|卖|戒)",
    re.I,
)


Whose = tuple[frozenset[str], frozenset[str]] | None


def _whose(clause: str, at: int) -> Whose:
    """Whose change a clause says, read from its subject (before `at`, its word of change):
    None for the writer's own ("I", "we", "my bike", a thing: every slot); else the slots
    it changes for everyone (the shared ones, and the one a relation names: "my boss
    Dana" is the manager) and the words that name who it is ("sister", "lena")."""
    before = clause[:at].strip()
    lead = LEAD_RE.match(before)  # 其实我朋友搬到…: the subject comes after the lead-in
    if lead:
        before = before[lead.end() :].lstrip(" ,，:：")
    if _CJK_CHAR_RE.search(before[:2]):
        for pattern, slot in _ZH_RELATION_SLOT:
            found = pattern.match(before)
            if found:
                return SHARED | {slot}, _words(found.group())
        found = _ZH_OTHER_RE.match(before)
        return (SHARED, _words(found.group())) if found else None
    n = len(_ENGLISH_WORD_RE.findall(before))
    words = _ENGLISH_WORD_RE.findall(f"{before} {clause[at:]}")
    lowered = [w.lower().replace("’", "'") for w in words]
    if any(w in _SELF and w not in ("my", "our") for w in lowered[:n]):
        return None  # "Last week I moved", "Tom and I moved": the writer's
    for i in range(n):
        w = lowered[i]
        if w in ("my", "our", "their"):  # "their": the user, in mem's own lines
            k = i + 1
            while k < len(lowered) and lowered[k] in _BETWEEN:
                k += 1
            owned = lowered[k] if k < len(lowered) else ""
            if owned not in _RELATION_SLOT and owned not in _RELATIONS:
                return None  # "my bike got stolen": the writer's
            name = words[k + 1] if k + 1 < len(words) and words[k + 1][:1].isupper() else ""
            who = _words(f"{owned} {name}")
            return SHARED | ({_RELATION_SLOT[owned]} if owned in _RELATION_SLOT else set()), who
        if w in _OTHERS:
            return SHARED, frozenset()  # "he", "they": who is not said here
        if w in _RELATION_SLOT:
            return SHARED | {_RELATION_SLOT[w]}, _words(w)
        if w in _RELATIONS:
            return SHARED, _words(w)
        if w in _STARTERS:
            continue
        # A name where a subject stands, right before a change only a person makes: "Tom
        # moved", "Henrik left". A capital alone says nothing: "Neovim replaced VS Code",
        # "Last Tuesday switched to Zed", "User moved to Berlin" (mem's own lines).
        if words[i][:1].isupper() and w != "user" and _PERSON_CHANGE_RE.match(clause[at:]):
            rest = lowered[i + 1 : n]
            if all(x in _AUX for x in rest):
                return SHARED, _words(w)
        return None
    return None


def _change_at(clause: str, weak: bool) -> tuple[list[str], int | None]:
    """A clause's words of change (its lead-in too) and where the change is said: past a
    lead-in, which 其实 and "Actually" also are; None when it says none."""
    said = [*STRONG_RE.finditer(clause), *(WEAK_RE.finditer(clause) if weak else ())]
    lead = LEAD_RE.match(clause)
    if lead:
        said = [m for m in said if m.start() >= lead.end()]
    words = [m.group() for m in said] + ([lead.group()] if lead else [])
    if not words:
        return [], None
    return words, min((m.start() for m in said), default=lead.end() if lead else 0)


# A change hedged after it ("I'll be moving to Lisbon next year maybe") or said as once
# done (搬到过北京: "have moved there before") is none now either.
_HEDGED_RE = Lazy(
    r"(?:\bmaybe|\bperhaps|\bprobably)\W*$|[搬换改转调]到过|\bwould\b|决定不|不打算", re.I
)

# "I used to live in Shanghai" ends what it says itself, not whatever holds the slot now
# ("we moved to Hamburg" stays): alone, these words change the statement's words, no slot.
_PAST_RE = Lazy(r"used\s+to|以前", re.I)


def _clauses(text: str) -> tuple[list[str], list[int], list[bool]]:
    """A text's clauses, the sentence each belongs to, and whether each ends with a colon
    that introduces the rest of its sentence ("New baby, new rhythm: lights out by 10"), not
    one inside a time (7:42)."""
    clauses: list[str] = []
    sentence: list[int] = []
    colon: list[bool] = []
    for n, said in enumerate(_MARKED_SENTENCE_RE.split(text)):
        start = 0
        for cut in [*_CLAUSE_RE.finditer(said), None]:
            end = len(said) if cut is None else cut.start()
            if said[start:end].strip():
                clauses.append(said[start:end])
                sentence.append(n)
                colon.append(
                    cut is not None
                    and ":" in cut.group().replace("：", ":")
                    and not (
                        said[end - 1 : end].isdigit() and said[cut.end() : cut.end() + 1].isdigit()
                    )
                )
            if cut is not None:
                start = cut.end()
    return clauses, sentence, colon


# A lead-in that frames the rest of its sentence as the change: "Flip that: mornings are my
# focus time now, put meetings after lunch", "As of Monday …, so it's four days on-site".
_FRAME_RE = Lazy(
    r"^\s*(?:flip\s+that|scratch\s+that|as\s+of\b|going\s+forward|from\s+now\s+on|"
    r"correction|update\s*$|更正|说错了|记错了|搞错了)",
    re.I,
)


def _changed(
    clauses: list[str],
    weak: bool,
    sentence: list[int] | None = None,
    colon: list[bool] | None = None,
) -> list[tuple[str, Whose, bool]]:
    """The clauses that say a change (strongly, or with `weak` weakly too), each with the
    slots its subject may change (`_whose`); a clause that is only its word of change
    ("Actually,", "Correction:", 不对，) takes the clause after it, which says what changed.
    A change only supposed or planned (`_SUPPOSED_RE`) says none. The flag says a clause
    whose only change is "used to" (`_PAST_RE`)."""
    out: list[tuple[str, Whose, bool]] = []
    for i, c in enumerate(clauses):
        found, at = _change_at(c, weak)
        # The subject and any supposing stand before the word of change, past a lead-in
        # ("Actually Tom moved": Tom's; "I moved, if you remember": the writer's).
        if at is None or _SUPPOSED_RE.search(c[:at]) or _HEDGED_RE.search(c):
            continue
        out.append((c, _whose(c, at), all(_PAST_RE.fullmatch(w) for w in found)))
        rest = c
        for word in found:
            rest = rest.replace(word, " ")
        framed = sentence is not None and (_FRAME_RE.match(c) or (colon and colon[i]))
        following = [
            j
            for j in range(i + 1, len(clauses))
            if framed and sentence[j] == sentence[i]  # type: ignore[index]
        ]
        if not following and not _words(rest) and i + 1 < len(clauses):
            following = [i + 1]
        for j in following:
            after = clauses[j]
            at_after = _change_at(after, True)[1]
            at_after = len(after) if at_after is None else at_after
            if not _SUPPOSED_RE.search(after[:at_after]):
                out.append((after, _whose(after, at_after), False))
    return out


def _slots_in(parts: list[tuple[str, Whose, bool]]) -> frozenset[str]:
    slots: set[str] = set()
    for clause, whose, past in parts:
        if past:
            continue
        found = slots_of(clause)
        slots |= found if whose is None else found & whose[0]
    return frozenset(slots)


def _parts_words(
    parts: list[tuple[str, Whose, bool]],
) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """The content words (and slots) of each change; someone else's counts only when it
    names none of a person's own slots ("Tom sold the Mazda" may be the Mazda the user
    drove; "my friend moved to Shenzhen" says nothing of where the user lives)."""
    out = []
    for clause, whose, _ in parts:
        named = slots_of(clause)
        if whose is None or not named - whose[0]:
            words = _words(clause) - _CHANGE_VERBS
            if words:
                out.append((words, named))
            # A change joined to what follows it ("Sold the old estate on Friday and picked
            # up a Kia", "Deploys moved to Thursday since QA shifted") is said by its own
            # first half: the reason or the next deed would dilute its share of the older
            # words. Only the first: a later half ("… and become better") is a sequel.
            first = _JOIN_RE.split(clause, maxsplit=1)[0]
            if first != clause and _change_at(first, False)[1] is not None:
                words = _words(first) - _CHANGE_VERBS
                # Two words or more: one shared word of a half alone is chance.
                if len(words) > 1:
                    out.append((words, slots_of(first)))
    return tuple(out)


_JOIN_RE = Lazy(
    r"\s+(?:and|but|because|since|as|so|cause|after|while|then|before)\s+|因为|所以|但是|而且|然后",
    re.I,
)


# The words of a change's own phrasing ("gave up", "can't take it"): what changed is what
# they are said of. Left out of a change's words only: an older statement's "give" or
# "take" is its own content.
_CHANGE_VERBS = frozenset(
    shingles(
        tokenize(
            "give gives gave given giving up take takes took taken taking become becomes "
            "becoming trade trades traded trading split slid slide sliding scrap scrapped "
            "kill killed ditch ditched swap swapped gone let lets letting died passed away "
            "over bump bumped lost 推迟 迟到 延期 改到 迁到 换成 换到 改成 改用 涨到 降到"
        )
    )
)


def _others_in(parts: list[tuple[str, Whose]]) -> tuple:
    return tuple(
        (slots_of(clause) - whose[0], _words(clause), whose[1])
        for clause, whose, _ in parts
        if whose is not None and whose[1] and slots_of(clause) - whose[0]
    )


def _updated(old: Sentence, new: Statement) -> bool:
    if old.asks:
        return False
    changed_words = new.changed_words
    # Someone else's slots in the older statement change only by a statement naming them.
    held = old.slots
    if old.whose is not None and not old.whose[1] & (changed_words | new.mentioned):
        held = old.slots & old.whose[0]
    slots = held & new.changed_slots
    for slots_o, words_o, who in new.others:
        if who & old.words:  # the older statement speaks of them too
            slots, changed_words = slots | (old.slots & slots_o), changed_words | words_o
    if not new.strong:
        # "now" alone restates a fact whose words it all says again ("I live in Oolong now"
        # twice: numbers aside, nothing of the older statement is gone).
        said = {w for w in old.words if not any(c.isdigit() for c in w)}
        return bool(slots & SINGLE) and old.holds and not said <= new.words
    if slots and old.holds:
        return True
    # A change of a slot the older statement does not name ("the worker's deadline moved"
    # and "started the worker's prototype") must share much more with it.
    of_old = OF_CHANGE if new.named_slots - old.slots else OF_OLD
    # A change's new value (a date, a number, a weekday) is what changed, not what it is
    # about: "The defense moved up to January 28" shares "defense" and nothing else.
    said = {w for w in old.words if not _is_value(w)}
    # The changes' words together, or one clause of them alone (held to the slots it names).
    for words, of in (
        (changed_words, of_old),
        *((w, OF_CHANGE if named - old.slots else OF_OLD) for w, named in new.changed_parts),
    ):
        words = {w for w in words if not _is_value(w)}
        shared = len(said & words)
        if shared and shared >= OF_CHANGE * len(words) and shared >= of * len(said):
            return True
    return False


_VALUES = frozenset(
    shingles(
        tokenize(
            "january february march april may june july august september october november "
            "december monday tuesday wednesday thursday friday saturday sunday spring summer "
            "autumn winter jan feb mar apr jun jul aug sep sept oct nov dec"
        )
    )
)


def _is_value(word: str) -> bool:
    # isalpha first: most words hold no digit, one test instead of a loop
    return word in _VALUES or (not word.isalpha() and any(c.isdigit() for c in word))


def updates(old: Statement, new: Statement) -> bool:
    """Whether `new`, said later, updates `old` (the caller knows which came later): a
    clause of `new` that says a change names a slot a sentence of `old` holds, or (with a
    strong word of change) shares most of its words with a sentence of `old`."""
    if new.changes and any(_updated(s, new) for s in old.sentences):
        return True
    return bool(new.restated) and any(_restates(s, new) for s in old.sentences)


def supersedes(old_text: str, new_text: str) -> bool:
    """`updates` for two texts (the later one second)."""
    return updates(read_statement(old_text), read_statement(new_text))
