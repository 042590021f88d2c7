"""A line the user said of themselves, rewritten about them, and whether what comes out
reads as a sentence.

"I don't eat meat" is "Doesn't eat meat" in USER.md and "User doesn't eat meat" in
MEMORY.md; "I haven’t been to Japan" keeps its typographic apostrophe ("Hasn’t been …");
"I'm" is "is", "I've" "has", "I'll" "will", "I'd" "would" (or "had" before "been" and a
past participle); a modal or a past tense stays as it is ("Can't", "Won't", "Went").
A fact that opens with its own subject ("Roasted chicken is one of my favorites", "My dogs
Precious and Pixie are …") is never given "User" in front of it: it keeps its subject, the
user named in it ("… one of the user's favorites", "The user's dogs …").

What still would not read as a sentence (a contraction split apart, "User" in front of a
noun, a line that stops on "the" or mid-word, an unbalanced bracket or quote) is reported
by `not_a_sentence`, so the line is held with that reason instead of written.
"""

from __future__ import annotations

import re

# Past tenses that do not end in -ed: "I went" is "Went", never "Wents".
PAST = frozenset(
    "went got made took saw had did found lost bought met ran came gave left felt thought "
    "told said began won wrote chose drove flew grew knew spent sent built taught caught "
    "brought kept slept sold held heard paid became forgot fell broke spoke woke wore "
    "finished drew sang swam ate fought hung led lent meant rode rose shot shut stole "
    "struck threw understood wept".split()
)
# Participles "I'd" is "had" before ("I'd never seen snow"): the irregular ones.
_PARTICIPLES = frozenset(
    "been gone done seen taken given eaten written driven flown grown known spoken broken "
    "chosen forgotten begun swum sung drunk ridden risen stolen worn woken fallen".split()
)
MODALS = frozenset(
    "can could will would should must may might shall cannot can't won't wouldn't couldn't "
    "shouldn't mustn't".split()
)
_THIRD = {
    "am": "is",
    "have": "has",
    "do": "does",
    "go": "goes",
    "wanna": "wants to",
    "gotta": "has to",
    "gonna": "is going to",
    "don't": "doesn't",
    "haven't": "hasn't",
    "am not": "is not",
    "ain't": "isn't",
}
_SHORT = {"m": "is", "ve": "has", "ll": "will", "re": "is"}
_ADVERBS = (
    r"(?:[a-z]+ly|also|just|still|now|often|always|never|usually|mostly|mainly|really|"
    r"already|even|ever|once|then|too|sometimes|no longer|kind of|sort of|actually)"
)
_APOS = "['’]"
# "I" and what follows: adverbs, then a verb (with its n't), or a contraction of "I".
_LEAD_I_RE = re.compile(
    rf"^I(?:{_APOS}(?P<short>m|ve|ll|d|re)\b)?"
    rf"(?P<adverbs>(?:\s+{_ADVERBS})*)"
    rf"(?:\s+(?P<verb>[a-z]+n{_APOS}t|[a-z]+)\b)?"
)
# "I" after a conjunction or a comma, mid-sentence: "Zhang Lei and I start", "…, so I can".
_MID_I_RE = re.compile(
    rf"(?P<lead>\b(?:and|or|but|so|when|if|because|since|while|until|after|before)\s+|,\s*)"
    rf"I(?:{_APOS}(?P<short>m|ve|ll|d|re)\b)?(?P<adverbs>(?:\s+{_ADVERBS})*)"
    rf"(?:\s+(?P<verb>[a-z]+n{_APOS}t|[a-z]+)\b)?(?=\s|[.,!?;:]|$)"
)


def verb3(verb: str) -> str:
    """A verb as it reads after "she": "go" "goes", "try" "tries", "don't" "doesn't", "went"
    "went"; the apostrophe kept as it was written."""
    v = verb.lower()
    apos = "’" if "’" in v else "'"
    plain = v.replace("’", "'")
    if plain in _THIRD:
        return _THIRD[plain].replace("'", apos)
    if plain in MODALS or plain.endswith("n't") or plain in PAST or plain.endswith("ed"):
        return v
    if plain in ("was", "is", "has", "does"):
        return v
    if v.endswith("y") and len(v) > 2 and v[-2] not in "aeiou":
        return v[:-1] + "ies"
    if v.endswith(("s", "sh", "ch", "x", "z", "o")):
        return v + "es"
    return v + "s"


def _had_or_would(adverbs: str, verb: str | None) -> str:
    """ "I'd": "had" before a past participle ("I'd been", "I'd never seen"), else "would"."""
    v = (verb or "").lower()
    if v in _PARTICIPLES or (v.endswith("ed") and v not in ("need", "feed", "seed")):
        return "had"
    return "would"


def _subject_verb(m: re.Match[str]) -> str:
    """ "I <adverbs> <verb>" (or "I'm", "I've" …) as what follows "she", without "she"."""
    short, verb = m["short"], m["verb"]
    adverbs = " ".join((m["adverbs"] or "").split())
    if short == "d":
        head = _had_or_would(adverbs, verb)
        tail = verb or ""
    elif short:
        head, tail = _SHORT[short], verb or ""
    elif verb:
        head, tail = verb3(verb), ""
    else:
        return ""
    if short:  # the contraction is the verb; adverbs follow it ("I've never been")
        return " ".join(x for x in (head, adverbs, tail) if x)
    return " ".join(x for x in (adverbs, head) if x)


def third_person(text: str, file: str) -> str:
    """An English line spoken by the user, rewritten about them: "I am allergic to peanuts"
    -> "Is allergic to peanuts" (USER.md), "User is allergic …" (MEMORY.md); "Always answer
    me in English" -> "… the user …" (AGENTS.md). A line that opens with its own subject
    keeps it ("My sister Ana visits in May" -> "The user's sister Ana visits in May" outside
    USER.md, "Their sister …" in it). Other text comes back as it was."""
    out = text
    m = _LEAD_I_RE.match(out)
    phrase = _subject_verb(m) if m and (m["short"] or m["verb"]) else ""
    if phrase:
        rest = out[m.end() :]
        if _past_same(m, rest):  # "I quit smoking in October": "Quit …", not "Quits …"
            phrase = phrase.rsplit(" ", 1)[0] + " " + m["verb"] if " " in phrase else m["verb"]
        if m["verb"] and not m["short"] and m["verb"].lower() not in PAST:
            rest = _second_predicate(rest)  # "I live in Madrid and work at …"
        phrase = f"{phrase}{rest}".strip()
        out = f"User {phrase}" if file != "USER" else phrase[:1].upper() + phrase[1:]
    out = _MID_I_RE.sub(_mid, out)
    if phrase:  # the user is the subject: "our cat" is theirs, "gonna" said in full
        out = re.sub(r"\b[Oo]ur\b", "their" if file == "USER" else "the user's", out)
        out = re.sub(r"\bgonna\b", "going to", out)
    out = re.sub(rf"(?<=\w)(\s+)I{_APOS}m(?=\s)", r"\1the user is", out)
    # "them" only where the line's subject is the user, unsaid ("Asks others to call them
    # Leo"); "Home for me is Galway" would read as someone else's home.
    who = "them" if file == "USER" and verb_first(out) else "the user"
    whose = "the user's" if file != "USER" else "their"
    out = re.sub(r"\bmy\b", whose, out)
    out = re.sub(r"\bMy\b", whose[:1].upper() + whose[1:], out)
    out = re.sub(r"\b(?:me|myself)\b", who, out)
    return out


_SUBORDINATE = frozenset("when if because since while until after before".split())
# Verbs whose past is the present's form: after "when I", either tense.
_SAME_PAST = frozenset("quit put set cut hit let read hurt cost shut spread bet cast fit".split())
# Verbs a second predicate of "I …" often starts with ("I prefer Go and use vim"): the
# rewrite conjugates these after "and", and only these (an object may follow "and" too).
_SECOND_VERBS = frozenset(
    """use work go play like love prefer live drink eat run write read speak drive cook need
    want hate enjoy teach study watch take make have own keep ride walk swim cycle climb
    bike train practise practice lead manage build know think""".split()
)
_AND_VERB_RE = re.compile(r"(?P<lead>(?:,\s*|\s+)and\s+)(?P<verb>[a-z]+)\b")


def _second_predicate(text: str) -> str:
    """ "Prefers Go and use vim" -> "… and uses vim": the first bare verb after "and"."""
    m = _AND_VERB_RE.search(text)
    if m is None or m["verb"] not in _SECOND_VERBS:
        return text
    return f"{text[: m.start('verb')]}{verb3(m['verb'])}{text[m.end('verb') :]}"


# What places "I quit", "I cut", "I set" in the past ("… in October, three weeks clean").
_PAST_CUE_RE = re.compile(
    r"\b(?:yesterday|ago|earlier|already|recently|finally|last\s+\w+|this\s+morning|"
    r"in\s+(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december|(?:19|20)\d{2})|(?:days?|weeks?|months?|years?)\s+(?:clean|sober|free))\b",
    re.I,
)


def _past_same(m: re.Match[str], rest: str) -> bool:
    """Whether the verb after "I" is one whose past is itself, said of the past: by a cue in
    its sentence or an adverb before it ("I just quit")."""
    verb = (m["verb"] or "").lower()
    if m["short"] or verb not in _SAME_PAST:
        return False
    adverbs = (m["adverbs"] or "").lower().split()
    said = re.split(r"[.!?;]", rest, maxsplit=1)[0]
    if verb == "quit":  # said once, of something given up: "I quit smoking" is done
        return not re.search(r"\b(?:every|always|usually|often|whenever)\b", said, re.I)
    return bool({"just", "finally", "already", "recently"} & set(adverbs)) or bool(
        _PAST_CUE_RE.search(said)
    )


def _mid(m: re.Match[str]) -> str:
    lead = m["lead"].strip()
    clause = re.split(r"[,.;!?]", m.string[: m.start()])[-1].split()
    if lead in ("and", "or") and _names_someone(clause):
        # "Zhang Lei and I start", "My sister and I run": the two of them, so the verb stays.
        return f"{m['lead']}the user{m.group()[len(m['lead']) + 1 :]}"
    said = _subject_verb(m)
    if not said:
        return m.group()
    if lead in _SUBORDINATE and m["verb"] and m["verb"].lower() in _SAME_PAST and not m["short"]:
        said = said.rsplit(" ", 1)[0] + " " + m["verb"] if " " in said else m["verb"]
        # "…when I quit": a verb whose past is itself may be past; "when I ask" is "asks".
    return f"{m['lead']}the user {said}"


def _names_someone(words: list[str]) -> bool:
    """Whether the words before "and I" are a person (a name, "my sister"), not a clause
    with its own verb ("Loves hiking and I …")."""
    if not words or len(words) > 3:
        return False
    if words[0].lower() in ("my", "their", "the", "user's", "user’s"):
        return True
    return all(w[:1].isupper() for w in words)


def verb_first(text: str) -> bool:
    """Whether a line about the user opens with what they do or are ("Moved to …", "Never
    skips …", "Doesn't drink …"), so "The user" can be put in front of it."""
    words = re.findall(r"[\w'’-]+", text)
    while words and re.fullmatch(_ADVERBS, words[0].lower()):
        words = words[1:]
    if not words:
        return False
    w = words[0].lower().replace("’", "'")
    return (
        w in MODALS
        or w in PAST
        or w in ("is", "was", "has", "had", "does", "did", "used", "got")
        or w.endswith(("n't", "ed"))
        or (
            w.endswith("s")
            and not w.endswith("ss")
            and not opens_with_subject(text)
            # "Spaces, not tabs": a noun and its contrast, not a verb and its object
            and not re.match(rf"\W*{re.escape(words[0])}\s*,", text)
        )
    )


# --- does it read as a sentence -------------------------------------------------------

_SPLIT_CONTRACTION_RE = re.compile(rf"\w\s+{_APOS}(?:t|s|m|ve|ll|d|re)\b|\b[a-z]+s{_APOS}t\b")
_DANGLING = frozenset(
    "a an the and or but to of with for in on at by from their the user's his her its my "
    "your our is are was were has have had that which who because so as than like very "
    "about into".split()
)
_COPULA = frozenset("is are was were has have".split())
_AUX = frozenset("does did doesn't didn't doesn’t didn’t used had".split())
_PREPOSITIONS = frozenset("to in at on for with of from by about into as like".split())
_RELATIVE = frozenset("that who which where when whose whom what while".split())
# Verbs after which a clause with its own subject is their object, not the line's subject:
# "Thinks pizza is the best", "Said the trip was great".
_REPORTING = frozenset(
    "thinks believes feels says knows finds hopes guesses figures reckons means agrees "
    "realizes realized learned found thought felt said knew heard noticed wishes wished "
    "decided decides admits admitted".split()
)


def opens_with_subject(text: str) -> bool:
    """Whether a line names its own subject before its verb: "Roasted chicken is one of
    their favorites", "Games are their go-to", "Precious and Pixie are Chihuahua mixes",
    "Their sister Ana visits in May" (not "Thinks pizza is great", "Is a nurse and has a
    dog", "Loves games that are fun")."""
    words = re.findall(r"[\w'’-]+|,", text)
    if not words:
        return False
    first = words[0].lower()
    if first in ("their", "the", "a", "an", "his", "her", "our", "user's", "user’s"):
        return True
    if first in _REPORTING or first in MODALS or first in _AUX or first in _COPULA:
        return False
    for i, w in enumerate(words[1:4], 1):
        lw = w.lower()
        if lw in _RELATIVE or lw in _PREPOSITIONS or lw == ",":
            return False
        if lw in _COPULA:
            between = words[1:i]
            # "Precious and Pixie are": names joined; "Is a nurse and has": two verbs.
            return "and" not in between or any(x[:1].isupper() for x in between)
    return False


def not_a_sentence(text: str, file: str = "") -> str | None:
    """Why a line would not read as a sentence once written, or None."""
    body = text.strip()
    if _SPLIT_CONTRACTION_RE.search(body):
        return "a contraction in it is split apart"
    if re.match(r"^User\s", body) and opens_with_subject(body[5:]):
        return "it puts 'User' in front of a subject of its own"
    if body.count("(") > body.count(")"):
        return "it is cut off (an unclosed '(')"
    if body.count('"') % 2 or body.count("“") != body.count("”"):
        return "it is cut off (an unclosed quote)"
    last = re.findall(r"[\w'’]+", body.lower())
    if last and last[-1] in _DANGLING and not body.endswith((".", "!", ")")):
        return f"it stops on '{last[-1]}', mid-phrase"
    return None


def cut_word(text: str, said: str) -> str | None:
    """The line's last word when it is a word of `said` cut short ("User grows chil" of
    "I grow chillies"), or None: a line that ends mid-word was cut off."""
    words = re.findall(r"[A-Za-z]+", text)
    if not words or text.rstrip().endswith((".", "!", ")")):
        return None
    last = words[-1].lower()
    heard = {w.lower() for w in re.findall(r"[A-Za-z]+", said)}
    if len(last) < 2 or last in heard:
        return None
    if any(w.startswith(last) and len(w) > len(last) + 1 for w in heard):
        return words[-1]
    return None
