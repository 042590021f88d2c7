"""What an edit must be before it is written, checked against the batch it came from.

- **Provenance that cannot launder**: a line stands only on the entries it cites, and only
  when they say it: at least half of the line's content words (stemmed; a name, a number, a
  Chinese word pair) are theirs, and each cited entry shares one. A citation is never moved
  to another entry that merely shares a word; a line that cites nothing is given the one
  entry of the batch that says it by the same rule, or held. An entry in another script
  than the line (我对花生过敏 for "Is allergic to peanuts") cannot be checked word by word:
  its citation stands when it is the line's own and no entry of the line's script says it.
- **Whose words**: a USER.md line comes only from the user's own entries (role user or
  note), an AGENTS.md rule only from the user asking the agent for something.
- **A line, not something else**: wrapper text ("Added '…' as a durable fact."), mem's own
  metadata (`~~…~~`, `i=0.8`, `src=`, `#L12`), a question, and a line that repeats the
  instructions' own example are held.
- **Not the log again**: a line that is a log entry copied (with its timestamp or speaker,
  or a long or many-sentence turn as it was said) is held: a memory line says a fact once.
- **Third person**: "I am allergic to peanuts" becomes "Is allergic to peanuts" in USER.md
  ("User is …" in MEMORY.md, "the user" in AGENTS.md), "我对花生过敏" becomes "对花生过敏";
  a line that still speaks in the first person (I, me, we, our, 我, 我们, 私は, 저는 …) is held.
- **Absolute dates**: "next month" said on 2025-06-03 becomes "in 2025-07" (dates.py).

Every check is deterministic and cheap: no model is asked twice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..format.dates import resolve_relative
from ..format.markdown import core, without_comments
from .person import PAST, cut_word, not_a_sentence, third_person
from .proposal import Edit, PromptEntry
from .words import content

__all__ = ["PAST", "content", "third_person"]  # other modules read them here

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


# "you" in a memory line is whoever the user was talking to: "Your new hair color looks
# amazing" is a compliment to the other speaker, never a fact a reader can place.
_YOU_RE = re.compile(r"\b(?:you|your|yours|yourself|yourselves|y'all)\b", re.I)
USER_ROLES = ("user", "note")  # the user's own words, and what they (or their agent) noted
_KANA_RE = re.compile(r"[\u3040-\u30ff]")
# First person in the languages mem reads: English plural too ("we switched" is someone's
# team, said by someone the reader cannot see), Chinese 我 (not 自我, "self", nor 我司 "the
# firm", 我国 …), Japanese
# only beside kana (私 is "private" in Chinese), Korean as a whole word.
# "the new US teammates": the country, not the speakers.
_WE_RE = re.compile(r"\b(?:we|(?!(?-i:US)\b)us|our|ours|ourselves|let['’]s)\b", re.I)
_ZH_I_RE = re.compile(r"(?<!自)我(?![司国方校院军])|咱们|俺")  # 我司 names the firm
_JA_I_RE = re.compile(r"私|僕|俺")
_KO_I_RE = re.compile(r"(?:^|\s)(?:저는|제가|저의|나는|내가|나의)(?=\s|$)")
_WRAPPER_RE = re.compile(
    r"^(?:i\s+(?:have\s+|'ve\s+)?)?(?:added|saved|stored|noted|recorded|remembered|created|"
    r"updated|deprecated|deleted|removed|appended)\b|\bas\s+an?\s+(?:new\s+|durable\s+)?"
    r"(?:fact|memory|preference|rule|identity|goal|line|entry|edit)\b",
    re.I,
)
_METADATA_RE = re.compile(
    r"~~|<!--|-->|\b[ic]=\d|\b(?:src|eid|type|importance|confidence)\s*[=:]\s*\S|#L\d+|"
    r"\[E\d+\]|\b(?:MEMORY|USER|AGENTS|HISTORY)(?:\.md)?#",
    re.I,
)
# The user asking the agent for something: a rule for AGENTS.md is never drawn from talk.
_REQUEST_RE = re.compile(
    r"\b(?:please|pls|always|never|from now on|make sure|remember|don['’]t|do not|stop|avoid|"
    r"i (?:want|need|would like|'d like) you|you (?:should|must|need to|have to)|"
    r"(?:can|could|would|will) you)\b|(?:^|[.!?;:]\s*)(?:answer|reply|respond|write|use|keep|"
    r"call|give|show|format|add|include|tell|send|put)\b|请|以后|今后|不要|别|记住|每次|总是|"
    r"一律|务必|帮我|你要|你得",
    re.I,
)


def first_person(text: str) -> str | None:
    """The first-person word a line still holds, in any language mem reads, or None."""
    for pattern in (_FIRST_PERSON_RE, _WE_RE, _ZH_I_RE, _KO_I_RE):
        m = pattern.search(text)
        if m:
            return m.group().strip()
    if _KANA_RE.search(text) and (m := _JA_I_RE.search(text)):
        return m.group()
    return None


def not_a_line(text: str) -> str | None:
    """Why a text is not a memory line at all (wrapper text, metadata, a question), or
    None."""
    if _METADATA_RE.search(text):
        return "it carries mem's metadata, not a fact"
    if _WRAPPER_RE.search(text):
        return "it says what was saved, not the fact itself"
    if text.rstrip().endswith(("?", "？")):
        return "it is a question, not a fact"
    return None


def repeats_example(text: str) -> bool:
    """Whether a line or a summary is the instructions' own example said again."""
    from .prompt import EXAMPLE_ANSWER

    said = content(text)
    if not said:
        return False
    examples = [EXAMPLE_ANSWER["history_entry"].split("]", 1)[-1]]
    examples += [e["text"] for e in EXAMPLE_ANSWER["edits"]]
    for example in examples:
        theirs = content(example)
        shared = len(said & theirs)
        if shared * 3 >= len(said) * 2 and shared * 2 >= len(theirs):
            return True
    return False


def chinese_third(text: str, file: str) -> str:
    """ "我对花生过敏" -> "对花生过敏" (USER.md), "用户对花生过敏" (elsewhere)."""
    m = re.match(r"^(?:我的|我)(?![们司国方校院军])", text)
    if not m:
        return text
    rest = text[m.end() :]
    return rest if file == "USER" else ("用户的" if m.group() == "我的" else "用户") + rest


def check(
    edits: Sequence[Edit], prompt: Sequence[PromptEntry]
) -> tuple[list[Edit], list[tuple[Edit, str]]]:
    """The edits that may be written (with sources, wording and dates settled) and the ones
    held for review, each with its reason."""
    ok: list[Edit] = []
    held: list[tuple[Edit, str]] = []
    by_number = {e.number: e for e in prompt}
    for edit in edits:
        edit, why = _worded(edit, prompt)
        sources, unsupported = attribute(edit, prompt)
        # A held edit keeps only checked citations; what the model claimed is kept apart
        # for the person who reviews it.
        edit = replace(edit, sources=sources, claimed=edit.sources)
        why = why or unsupported or _whose(edit, prompt)
        if why:
            held.append((edit, why))
            continue
        newest = max((by_number[n].when for n in sources if by_number[n].when), default=None)
        if newest is not None and edit.text:
            edit = replace(edit, text=resolve_relative(edit.text, newest.date()))
        ok.append(edit)
    return ok, held


def _worded(edit: Edit, prompt: Sequence[PromptEntry]) -> tuple[Edit, str | None]:
    """The edit in the third person, without mem's comments, and why its wording alone
    holds it (a copy of the log, the first person, not a line at all), or None."""
    # A comment inside a line is mem's metadata grammar: logged text cannot bring one in
    # and set a line's importance, date or src= by it.
    edit = replace(edit, text=without_comments(edit.text))
    text, why = _copied(edit.text, prompt) if edit.text else ("", None)
    if text and not why:
        why = not_a_line(text) or _spoken_as(text, prompt)
    if text and not why:
        text = chinese_third(third_person(text, edit.file), edit.file)
        if first_person(text):
            why = "it is written in the first person"
        elif edit.file in ("USER", "MEMORY") and (you := _YOU_RE.search(text)):
            why = f"it speaks to someone ('{you.group()}'), not of anyone it names"
        elif broken := not_a_sentence(text):
            why = f"it would not read as a sentence: {broken}"
        elif cut := cut_word(text, " ".join(e.text for e in prompt if e.number in edit.sources)):
            why = f"it ends mid-word ('{cut}'): the answer was cut off"
        elif repeats_example(text) and not _says(content(text), prompt, edit.sources):
            why = "it repeats the instructions' example, not the entries"
    return replace(edit, text=text), why


def _spoken_as(text: str, prompt: Sequence[PromptEntry]) -> str | None:
    """Why a line that opens with a speaker's name and a colon is a turn copied ("Gina:
    Yes, me too!"), not a fact about them; None for any other line ("Manager: Chen Jing"
    names no speaker of the batch)."""
    label, colon, rest = text.replace("：", ":", 1).partition(":")
    if not colon or not rest.strip():
        return None
    speakers = {p.role.casefold() for p in prompt} | {"user", "assistant"}
    if label.strip().casefold() in speakers:
        return f"it copies {label.strip()}'s turn, speaker and all, not a fact"
    return None


def _whose(edit: Edit, prompt: Sequence[PromptEntry]) -> str | None:
    """Why the entries an edit cites cannot be its source for its file: USER.md is the
    user's own words, AGENTS.md the user's requests to the agent."""
    if edit.op == "delete" or edit.file not in ("USER", "AGENTS", "MEMORY"):
        return None
    if edit.file == "MEMORY":
        return _said_of_another(edit, [e for e in prompt if e.number in edit.sources], prompt)
    by_number = {e.number: e for e in prompt}
    cited = [by_number[n] for n in edit.sources if n in by_number]
    others = [e for e in cited if e.role not in USER_ROLES]
    if others:
        names = ", ".join(f"E{e.number} ({e.role})" for e in others)
        return f"{edit.file}.md is about the user: {names} is another speaker's words"
    if edit.file == "AGENTS" and cited and not any(_REQUEST_RE.search(e.text) for e in cited):
        return "an AGENTS.md rule comes from the user asking the agent, and no cited entry asks"
    return _said_of_another(edit, cited, prompt)


def _said_of_another(
    edit: Edit, cited: Sequence[PromptEntry], prompt: Sequence[PromptEntry]
) -> str | None:
    """Why a line about the user (USER.md, or "User …" in MEMORY.md) is someone else's
    fact: the entry it cites says it of "you", "they", "my boss Dana" (whose.py)."""
    from .whose import answers_question, said_of

    about_user = edit.file == "USER" or (edit.file == "MEMORY" and edit.text.startswith("User "))
    if edit.op == "delete" or not about_user or edit.file == "AGENTS":
        return None
    by_number = {e.number: e for e in prompt}
    text = edit.text.removeprefix("User ")
    for entry in cited:
        before = by_number.get(entry.number - 1)
        answered = before is not None and answers_question(entry.text, before.role, before.text)
        who = said_of(text, entry.text, answered=answered)
        if who:
            return f"E{entry.number} says this of {who}, not of the user"
    return None


def _says(words: set[str], prompt: Sequence[PromptEntry], numbers: Sequence[int]) -> bool:
    """Whether the entries `numbers` together say at least half of `words`."""
    heard = set().union(*(content(e.text) for e in prompt if e.number in numbers))
    return _supports(words, heard)


def _supports(words: set[str], said: set[str]) -> bool:
    """Whether what an entry said holds at least half of a line's content words."""
    # A number the entry does not hold is a date the model worked out ("yesterday" said on
    # 2026-12-01 is "since 2026-11-30"): it neither supports nor counts against the line.
    words = {w for w in words if not w.isdigit() or w in said}
    return bool(words) and len(words & said) * 2 >= len(words)


def attribute(edit: Edit, prompt: Sequence[PromptEntry]) -> tuple[tuple[int, ...], str]:
    """The entries an edit comes from, checked: (sources, "") or ((), why it is held)."""
    words = content(edit.text or edit.target)
    heard = {e.number: content(e.text) for e in prompt}
    cited = [n for n in edit.sources if n in heard]
    if edit.op == "deprecate" and not edit.text and edit.target:
        # A line struck with nothing in its place never shares the entry's words: the entry
        # supports it when it updates the line, as recall reads an update (currency.py).
        from ..search.currency import supersedes

        old = core(edit.target)
        texts = {e.number: e.text for e in prompt}
        updating = [n for n in cited if supersedes(old, texts[n])]
        if updating:
            return tuple(updating), ""
    if not words:  # a line of generic words only ("Prefers it"): nothing to check it by
        return tuple(cited), "" if cited else "it cites no log entry and says nothing to match"
    readable = [n for n in cited if same_script(words, heard[n])]
    sharing = [n for n in readable if words & heard[n]]
    if sharing and _says(words, prompt, sharing):
        return tuple(sharing), ""
    saying = [n for n, said in heard.items() if _script(said) == _script(words)]
    saying = [n for n in saying if _supports(words, heard[n])]
    # An entry in two scripts may say the rest in the one the line lacks ("主要用Go写后端"
    # for "Mainly uses Go for backend work"): a shared word does, unless another entry
    # plainly says the line.
    mixed = [n for n in sharing if _script(heard[n]) == "mixed" != _script(words)]
    if mixed and not saying:
        return tuple(mixed), ""
    other_script = [n for n in cited if n not in readable]
    if other_script and not saying and not sharing:
        return tuple(other_script), ""  # another script: its own citation, nothing better
    if cited:
        names = ", ".join(f"E{n}" for n in cited)
        return (), f"{names} does not say this (at most a word of it)"
    if len(saying) == 1:
        return tuple(saying), ""
    return (), "it cites no log entry and no one entry of the batch says this"
