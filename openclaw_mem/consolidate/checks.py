"""What an edit must be before it is written, checked against the batch it came from.

- **Provenance**: the entries an edit cites must say what it says: share a content word
  (stemmed; a name, a number, a Chinese word pair). Citations that share nothing are dropped;
  an edit left with none is given the one entry of the batch that clearly supports it (more
  shared words than any other), and held for review when no entry does. An entry in another
  script than the edit (我对花生过敏 for "Is allergic to peanuts") cannot be checked word by
  word: its citation stands when no other entry supports the edit.
- **Not the log again**: a line that is a log entry copied (with its timestamp or speaker,
  or a long or many-sentence turn as it was said) is held: a memory line says a fact once.
- **Third person**: "I am allergic to peanuts" becomes "Is allergic to peanuts" in USER.md
  ("User is …" in MEMORY.md, "the user" in AGENTS.md); a line that still says I, me or my is
  held.
- **Absolute dates**: "next month" said on 2025-06-03 becomes "in 2025-07" (dates.py).

Every check is deterministic and cheap: no model is asked twice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..format.dates import resolve_relative
from ..format.markdown import without_comments
from ..search.tokenize import shingles, tokenize
from .proposal import Edit, PromptEntry

# Words every memory line may share with any entry: they prove nothing about its source.
_GENERIC = frozenset(
    shingles(
        tokenize(
            "user users prefers prefer likes like loves love wants want always never please "
            "uses use using has have lives live is are was the a an answer answers reply"
        )
    )
)
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_LATIN_RE = re.compile(r"[A-Za-z]")
_COPIED_RE = re.compile(
    r"^(?P<stamp>\[\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2})?\]\s*)?(?P<id>\[?E\d{1,4}\]?\s*)?"
    r"(?P<role>(?:user|assistant|system|note)\s*:\s*)?",
    re.I,
)
_SENTENCE_END_RE = re.compile(r"[.!?。！？](?:\s|$)")
# "I" as a pronoun, not a numeral ("type I diabetes", "World War I", "Phase I", "I-95").
_NUMERAL_BEFORE = r"(?<!type )(?<!Type )(?<!War )(?<!Phase )(?<!Stage )(?<!Part )(?<!Class )"
_FIRST_PERSON_RE = re.compile(
    rf"{_NUMERAL_BEFORE}\bI\b(?![-/.])|\bI['’](?:m|ve|d|ll)\b|\b(?:me|my|mine|myself)\b|"
    r"^(?:My|Mine|Me)\b"
)
LONG_COPY = 160  # characters: a turn this long, copied whole, is not a memory line


def content(text: str) -> set[str]:
    return shingles(tokenize(text)) - _GENERIC


def _script(words: set[str]) -> str:
    cjk = any(_CJK_RE.search(w) for w in words)
    latin = any(_LATIN_RE.search(w) for w in words)
    return "mixed" if cjk and latin else "cjk" if cjk else "latin" if latin else "none"


def same_script(a: set[str], b: set[str]) -> bool:
    sa, sb = _script(a), _script(b)
    return "none" in (sa, sb) or sa == sb or "mixed" in (sa, sb)


def _norm(text: str) -> str:
    return " ".join(text.split()).strip(" .。!！").casefold()


def _copied(text: str, prompt: Sequence[PromptEntry]) -> tuple[str, str | None]:
    """The text without a copied timestamp/speaker prefix, and why it is a copy of a log
    entry rather than a memory line (None when it is not)."""
    m = _COPIED_RE.match(text)
    rest = text[m.end() :].strip() if m else text
    said = {_norm(e.text): e for e in prompt}
    entry = said.get(_norm(rest))
    if entry is None:
        return rest or text, None
    if m and (m["stamp"] or m["role"]):
        return rest, f"it is log entry E{entry.number} copied with its timestamp or speaker"
    several = len(_SENTENCE_END_RE.findall(entry.text.strip() + " ")) > 1
    if len(rest) > LONG_COPY or several or rest.rstrip().endswith(("?", "？")):
        return rest, f"it is log entry E{entry.number} copied as it was said"
    return rest, None


_THIRD = {
    "am": "is",
    "'m": "is",
    "’m": "is",
    "have": "has",
    "'ve": "has",
    "’ve": "has",
    "do": "does",
    "don't": "doesn't",
    "don’t": "doesn't",
    "go": "goes",
}
_MODALS = ("can", "can't", "cannot", "will", "won't", "would", "should", "must", "may", "might")
_LEAD_I_RE = re.compile(
    r"^I(?P<adverbs>(?:\s+(?:[a-z]+ly|also|just|still|now|often|always|never|usually|"
    r"mostly|mainly|really|already))*)(?:\s+(?P<verb>[a-z]+(?:n't|n’t)?)|(?P<short>'m|’m|'ve|’ve))"
    r"\b\s*"
)


def _verb3(verb: str) -> str:
    v = verb.lower()
    if v in _THIRD:
        return _THIRD[v]
    if v in _MODALS or v.endswith("ed") or v in ("was", "also", "really", "just", "still"):
        return v
    if v.endswith("y") and len(v) > 2 and v[-2] not in "aeiou":
        return v[:-1] + "ies"
    if v.endswith(("s", "sh", "ch", "x", "z", "o")):
        return v + "es"
    return v + "s"


def third_person(text: str, file: str) -> str:
    """An English line spoken by the user, rewritten about them: "I am allergic to peanuts"
    -> "Is allergic to peanuts" (USER.md), "User is allergic …" (MEMORY.md); "Always answer
    me in English" -> "… the user …" (AGENTS.md). Other text comes back as it was."""
    out = text
    m = _LEAD_I_RE.match(out)
    if m:
        verb = m["verb"] or m["short"]
        rest = out[m.end() :]
        head = _verb3(verb)
        if m["verb"] and head == verb.lower() and verb.lower() not in _MODALS:
            head = verb.lower()
        adverbs = (m["adverbs"] or "").strip()
        phrase = f"{adverbs} {head} {rest}".strip()
        out = f"User {phrase}" if file != "USER" else phrase[:1].upper() + phrase[1:]
    # "Zhang Lei and I start the rotation": mid-sentence, the person is named, not "I".
    out = re.sub(r"(?<=\w)(\s+)I(?:'m|’m)(?=\s)", r"\1the user is", out)
    # Only a pronoun: "Zhang Lei and I start", "…, so I can" (followed by a verb).
    out = re.sub(r"\b(and|or|but|so|when|if|,)(\s+)I(?=\s+[a-z])", r"\1\2the user", out)
    who = "the user" if file != "USER" else "them"
    whose = "the user's" if file != "USER" else "their"
    out = re.sub(r"\bmy\b", whose, out)
    out = re.sub(r"\bMy\b", whose[:1].upper() + whose[1:], out)
    out = re.sub(r"\b(?:me|myself)\b", who, out)
    return out


def check(
    edits: Sequence[Edit], prompt: Sequence[PromptEntry]
) -> tuple[list[Edit], list[tuple[Edit, str]]]:
    """The edits that may be written (with sources, wording and dates settled) and the ones
    held for review, each with its reason."""
    ok: list[Edit] = []
    held: list[tuple[Edit, str]] = []
    by_number = {e.number: e for e in prompt}
    for edit in edits:
        # A comment inside a line is mem's metadata grammar: logged text cannot bring one
        # in and set a line's importance, date or src= by it.
        edit = replace(edit, text=without_comments(edit.text))
        text, copied = _copied(edit.text, prompt) if edit.text else ("", None)
        why = copied
        if text and not why:
            text = third_person(text, edit.file)
            if _FIRST_PERSON_RE.search(text):
                why = "it is written in the first person"
        edit = replace(edit, text=text)
        sources, unsupported = attribute(edit, prompt)
        # A held edit keeps only checked citations; what the model claimed is kept apart
        # for the person who reviews it.
        edit = replace(edit, sources=sources, claimed=edit.sources)
        why = why or unsupported
        if why:
            held.append((edit, why))
            continue
        newest = max((by_number[n].when for n in sources if by_number[n].when), default=None)
        if newest is not None and edit.text:
            edit = replace(edit, text=resolve_relative(edit.text, newest.date()))
        ok.append(edit)
    return ok, held


def attribute(edit: Edit, prompt: Sequence[PromptEntry]) -> tuple[tuple[int, ...], str]:
    """The entries an edit comes from, checked: (sources, "") or ((), why it is held)."""
    words = content(edit.text or edit.target)
    heard = {e.number: content(e.text) for e in prompt}
    scores = {n: len(words & said) for n, said in heard.items()}
    cited = [n for n in edit.sources if n in heard]
    top = max(scores.values(), default=0)
    kept = [n for n in cited if scores[n] > 0 and scores[n] * 3 >= top * 2]
    if kept:
        return tuple(kept), ""
    best = sorted(scores.items(), key=lambda kv: -kv[1])
    clear = best and best[0][1] > 0 and (len(best) == 1 or best[0][1] > best[1][1])
    if clear:
        return (best[0][0],), ""
    if not words:  # a line of generic words only ("Prefers it"): nothing to check it by
        return tuple(cited), "" if cited else "it cites no log entry and says nothing to match"
    unreadable = [n for n in cited if not same_script(words, heard[n])]
    if unreadable and not any(scores.values()):
        return tuple(unreadable), ""
    if cited:
        names = ", ".join(f"E{n}" for n in cited)
        return (), f"{names} does not say this, and no other entry of the batch clearly does"
    return (), "it cites no log entry and no entry of the batch clearly says this"
