"""Whose fact a line is, read from the entry that says it: a line about the user stands
only when the user said it of themselves.

"My boss Dana just moved to Singapore" says the move of Dana, so "Lives in Singapore" is
not the user's; in "I hope you find a dog-friendly spot soon" the finding is "you"'s; in
"They can do tricks like sit and stay" it is "they"'s; "Yeah, birds are amazing!" says
something of birds and nothing of its writer. The clause of the entry that shares most of
the line's words is found, and in it the subject nearest before the first word it shares:
"I" (or "we", "me") is the writer; "you", "they", "he", "she", "my boss Dana", "my dogs", a
name are someone else. A clause with no subject of its own ("Pepperoni, of course!") is
the writer's only when it answers a question put to them, or speaks of them elsewhere
("Roasted chicken is one of my favorites").

Chinese is read the same way at a clause's start: "我老板Dana刚搬到新加坡了" and "我的狗会坐
下" are someone else's, "你…", "他们…" too; "我…" is the writer's. Deterministic and cheap;
an entry in another script than these two is not read (its line stands or falls by the
other checks).
"""

from __future__ import annotations

import re
from itertools import pairwise

from .words import content

SELF = frozenset("i i'm i've i'd i'll me we we're we've we'd we'll us".split())
OTHER = frozenset(
    "you you're you've you'd you'll your yours they they're they've they'd they'll their "
    "theirs he he's he'd he'll his she she's she'd she'll her it it's".split()
)
# Who "my …" can be that is not the writer: "my boss Dana moved" is Dana's move.
RELATIONS = frozenset(
    "sister sisters brother brothers mom mum mother dad father parents parent wife husband "
    "partner boyfriend girlfriend fiance fiancee son sons daughter daughters kid kids child "
    "children baby family grandma grandmother grandpa grandfather grandparents aunt uncle "
    "cousin cousins niece nephew friend friends roommate neighbor neighbour boss manager "
    "colleague colleagues coworker coworkers co-worker team teammate teammates students "
    "dog dogs cat cats puppy puppies kitten kittens pet pets horse bird birds".split()
)
_CLAUSE_RE = re.compile(
    r"[.!?;:…]+\s*|\s+[-–—]+\s+|,?\s+(?:and|but|so|because|though|although|while)\s+"
    r"(?=(?:i|you|they|he|she|we|my|your|their|his|her|it)\b)",
    re.I,
)
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_WORD_RE = re.compile(r"[A-Za-z][\w'’-]*")
_INTERJECTIONS = frozenset(
    "yeah yes yep no nope oh ah wow hey hi hello well so and but haha lol ok okay sure "
    "totally definitely absolutely thanks".split()
)


def _words(text: str) -> set[str]:
    return content(text)


def said_of(line: str, text: str, *, answered: bool = False) -> str | None:
    """Who other than its writer the entry `text` says `line` of ("you", "they", "my boss
    Dana", "birds"), or None: the writer, or no clause to tell by. `answered`: the entry
    answers a question put to its writer, so a clause with no subject is theirs."""
    if _CJK_RE.search(text):
        return _said_of_zh(line, text)
    wanted = _words(line)
    if not wanted:
        return None
    clauses = [c for c in _CLAUSE_RE.split(text) if c and c.strip()]
    best, shared, at = "", 0, 0
    for i, clause in enumerate(clauses):
        n = len(_words(clause) & wanted)
        if n > shared:
            best, shared, at = clause, n, i
    if not shared:
        return None
    # A clause with no subject goes on from the one before it: "Changed my mind: spaces,
    # not tabs" says the spaces of the writer who changed their mind.
    after_self = at > 0 and _speaks_of_self(clauses[at - 1])
    return _subject(best, wanted, line, answered or after_self)


def _speaks_of_self(clause: str) -> bool:
    return any(
        w.lower().replace("’", "'") in SELF or w.lower() in ("my", "mine", "myself")
        for w in _WORD_RE.findall(clause)
    )


def _subject(clause: str, wanted: set[str], line: str, answered: bool) -> str | None:
    words = _WORD_RE.findall(clause)
    lowered = [w.lower().replace("’", "'") for w in words]
    first = next((i for i, w in enumerate(words) if _words(w) & wanted), len(words))
    for i in range(first - 1, -1, -1):
        w = lowered[i]
        if w in SELF:
            return None
        if w in OTHER:
            return w
        if w == "my":
            return _owned(words, lowered, i, line)
        if _named(words, lowered, i):  # "… Dana moved": a name before the verb
            mine = [j for j in range(max(0, i - 4), i) if lowered[j] == "my"]
            return _owned(words, lowered, mine[-1], line) if mine else words[i]
    if any(w in SELF or w in ("my", "mine", "myself") for w in lowered) or answered:
        return None
    subject = [w for w in lowered[: first + 1] if w not in _INTERJECTIONS]
    return " ".join(subject[:3]) or None


_NOT_BEFORE_NAME = frozenset(
    "my the a an in at to from for with on of by about into near visit visited like".split()
)
_VERB_AFTER = re.compile(
    r"(?:is|was|has|had|just|will|can|and|said|got|went|lives|works|loves|likes|wants|plans|"
    r"\w+ed)$"
)


def _named(words: list[str], lowered: list[str], i: int) -> bool:
    """Whether words[i] is a person's name as a subject ("Dana moved", "… and Dana is"),
    not a place after a preposition ("in Berlin") nor a clause's first word ("Honestly")."""
    if not words[i][:1].isupper() or lowered[i] in _INTERJECTIONS:
        return False
    if i == 0:
        return i + 1 < len(words) and bool(_VERB_AFTER.match(lowered[i + 1]))
    return lowered[i - 1] not in _NOT_BEFORE_NAME


_OWNS_RE = re.compile(r"(?:has|have|owns|own|adopted|got)\b", re.I)


def _owned(words: list[str], lowered: list[str], i: int, line: str) -> str | None:
    """ "my <relation> [Name]" as a subject: someone else, unless the line names the
    relation itself ("Has two dogs" of "My dogs are Chihuahua mixes")."""
    noun = lowered[i + 1] if i + 1 < len(lowered) else ""
    if noun not in RELATIONS or _words(noun) & _words(line) or _OWNS_RE.match(line):
        return None
    name = words[i + 2] if i + 2 < len(words) and words[i + 2][:1].isupper() else ""
    return " ".join(x for x in ("my", noun, name) if x)


SHORT_REPLY = 6  # words: a reply this short completes whatever question came before it
_YOU_RE = re.compile(r"\b(?:you|your|yours|yourself)\b", re.I)


def answers_question(text: str, before_role: str, before_text: str) -> bool:
    """Whether a reply answers a question another speaker put before it: one put to its
    writer ("Which one do you love the most?" … "Pepperoni, of course!", at any length),
    or any question when the reply is short enough to complete it ("Where to?" … "Lisbon,
    in May.")."""
    if before_role in ("user", "note"):
        return False
    asked = [q for q in re.split(r"(?<=[.!?])\s+", before_text) if q.rstrip().endswith("?")]
    if not asked:
        return False
    return len(text.split()) <= SHORT_REPLY or any(_YOU_RE.search(q) for q in asked)


# Chinese: who a clause is about, read at its start.
_ZH_RELATIONS = (
    "老板|上司|领导|经理|主管|同事|朋友|室友|邻居|同学|老师|学生|妹妹|姐姐|哥哥|弟弟|妈妈|母亲|"
    "爸爸|父亲|父母|老婆|妻子|老公|丈夫|男朋友|女朋友|对象|儿子|女儿|孩子|宝宝|家人|爷爷|奶奶|"
    "外公|外婆|姥姥|姥爷|叔叔|阿姨|舅舅|表哥|表姐|表妹|表弟|堂哥|堂姐|队友|团队|狗狗|小狗|狗|"
    "猫咪|小猫|猫|宠物"
)
_ZH_CLAUSE_RE = re.compile(r"[。！？；，,!?;…\n]+")
_ZH_LEAD_RE = re.compile(
    r"^(?:(?:嗯|啊|哈哈+|哦|噢|对|是的|好的|其实|不过|但是|然后|所以)[，,\s]*)+"
)
_ZH_OTHER_RE = re.compile(r"^(?:你们|您|你|他们|她们|它们|他|她|它)")
_ZH_MINE_RE = re.compile(rf"^我的?(?P<rel>{_ZH_RELATIONS})")
_ZH_OWNS_RE = re.compile(r"^(?:有|养了?|家里有)")


def _cjk_pairs(text: str) -> set[str]:
    chars = [c for c in text if _CJK_RE.match(c) or c.isalnum()]
    return {a + b for a, b in pairwise(chars)}


def _said_of_zh(line: str, text: str) -> str | None:
    """said_of for an entry in Chinese: the clause sharing most character pairs with the
    line, and who stands at its start."""
    wanted = _cjk_pairs(line)
    best, shared = "", 0
    for clause in _ZH_CLAUSE_RE.split(text):
        n = len(_cjk_pairs(clause) & wanted)
        if n > shared:
            best, shared = clause, n
    if not shared:
        return None
    head = _ZH_LEAD_RE.sub("", best.strip())
    other = _ZH_OTHER_RE.match(head)
    if other:
        return other.group()
    mine = _ZH_MINE_RE.match(head)
    if mine and not _ZH_OWNS_RE.match(line.strip()):
        return f"我{mine['rel']}"
    return None
