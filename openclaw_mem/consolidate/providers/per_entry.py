"""The per-entry strategy (llm.strategy = entry): what a small model can do well, asked one
entry at a time.

A 1.5B model fails a multi-edit tool call with files, sections, targets, sources and a skip
list; asked about one message (with the one before it as context) for the standalone facts
it tells about its writer, it mostly answers, and the answer always parses when the server
takes the schema (response_format). Everything else is code (facts.py): which entries are
worth a question, the facts made lines, where each goes, whether the files already say it.
Whether a new line replaces an older one that opens the same way ("Lives in …") is a second
small question. Provenance is exact by construction: a line cites the entry it was asked
about, and only a line that entry says is proposed.

Every entry asked about is either cited by a line or listed in `skip` (it told nothing
lasting); an entry whose question got no usable answer, asked twice, stays pending. The
history paragraph is left to the pipeline, which makes it of the lines kept.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from ...errors import UnusableAnswer
from ..proposal import Edit, PromptEntry, Proposal, Request, Usage
from ..schema import decode_arguments
from ..whose import said_of
from .facts import Known, answers, line_of, named_line, names, place, says, worth_asking


class Chat(Protocol):
    """What the per-entry strategy needs of its provider (openai_compat's, which calls this
    module: a protocol, not an import, keeps the two apart)."""

    model: str

    def schema_on(self) -> bool: ...

    def call(self, convo: list[dict], **kwargs: Any) -> Any: ...

    def message(self, response: Any) -> Any: ...

    def usage(self, response: Any, convo: list[dict], answer: str) -> Usage: ...


MAX_FACTS = 3  # facts one message may give
# Lines one entry may give: the first of its facts that makes one. Annotators write about one
# fact a turn, and a small model's second and third are mostly the first said again or a
# mood; measured on the tuning part (bench/consolidate_live.py, 1.5B, 2 and 6 sessions):
# precision 0.56 / 0.65 with all of them, 0.67 / 0.71 with one, recall 0.27 / 0.24 vs
# 0.27 / 0.22.
LINES_PER_ENTRY = 1
ANSWER_TOKENS = 256  # a short list; a model that repeats itself stops here
CONTEXT_CHARS = 300  # of the message before: what it answers
MAX_REPLACE_QUESTIONS = 3  # second questions a batch may ask

FACTS_SYSTEM = """You read one chat message and list what it tells about its writer (the \
speaker) that will still matter next month: their work, home, family, pets, hobbies, tastes, \
plans, decisions and the things they did or went through.
Each fact is one short sentence in the third person about the speaker, using the message's \
own words. Use only what this message says; nothing about the other person, no greetings, \
thanks, questions, compliments, advice or passing moods.
Most messages tell nothing lasting: then the list is empty.
Answer with JSON: {"facts": [...]}"""

FACTS_SCHEMA = {
    "type": "object",
    "properties": {
        "facts": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_FACTS},
    },
    "required": ["facts"],
    "additionalProperties": False,
}

REPLACE_SYSTEM = """You keep a profile up to date. Given a line of the profile and a new \
fact, answer whether the new fact makes the old line no longer true (the new one replaces \
it). Answer with JSON: {"replaces": true} or {"replaces": false}"""

REPLACE_SCHEMA = {
    "type": "object",
    "properties": {"replaces": {"type": "boolean"}},
    "required": ["replaces"],
    "additionalProperties": False,
}


def _format(name: str, schema: dict) -> dict:
    return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}


class _Asker:
    """The small questions, each asked once more when its answer is unusable."""

    def __init__(self, provider: Chat) -> None:
        self.provider = provider
        self.prompt = self.completion = 0
        self.estimated = False

    def ask(self, system: str, user: str, name: str, schema: dict) -> dict:
        try:
            return self._once(system, user, name, schema)
        except UnusableAnswer as exc:
            if exc.silent:  # no answer in llm.timeout: asking again waits as long again
                raise
            return self._once(system, user, name, schema)

    def _once(self, system: str, user: str, name: str, schema: dict) -> dict:
        provider = self.provider
        convo = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        how: dict = {"max_tokens": ANSWER_TOKENS, "temperature": 0}
        if provider.schema_on():
            how["response_format"] = _format(name, schema)
        response = provider.call(convo, **how)
        text = getattr(provider.message(response), "content", None) or ""
        usage = provider.usage(response, convo, text)
        self.prompt += usage.prompt_tokens
        self.completion += usage.completion_tokens
        self.estimated |= usage.estimated
        if _finish(response) == "length" or not balanced(text):
            # JSON repair would close the brackets and make "User grows chil" a fact: an
            # answer cut short is asked again, never read.
            raise UnusableAnswer("the answer was cut off before it ended", cut=True)
        return decode_arguments(text)

    @property
    def usage(self) -> Usage:
        return Usage(self.prompt, self.completion, self.estimated)


def _finish(response: Any) -> str | None:
    choices = getattr(response, "choices", None) or [None]
    return getattr(choices[0], "finish_reason", None)


def balanced(text: str) -> bool:
    """Whether every bracket and string a JSON answer opens is closed (prose around it and
    a ``` fence are ignored): an answer that stops inside one was cut off."""
    depth, quoted, escaped = 0, False, False
    body = text[text.find("{") :] if "{" in text else ""
    for ch in body:
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
            continue
        if ch == '"':
            quoted = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return True
    return depth <= 0 and not quoted


def _question(entry: PromptEntry, before: PromptEntry | None) -> str:
    when = f" on {entry.when:%Y-%m-%d}" if entry.when else ""
    context = ""
    if before is not None:
        said = " ".join(before.text.split())[:CONTEXT_CHARS]
        context = f"The message before it, by {before.role} (context only):\n{said}\n\n"
    return f"{context}The message, written by the speaker{when}:\n{entry.text}"


def _facts(answer: dict) -> list[str]:
    items = answer.get("facts", [])
    if isinstance(items, str):
        items = [items]
    if not isinstance(items, list):
        raise UnusableAnswer("the model's facts are not a list")
    out = []
    for item in items[:MAX_FACTS]:
        if isinstance(item, dict):
            item = item.get("text") or item.get("fact") or ""
        if isinstance(item, str) and item.strip():
            out.append(item)
    return out


def propose_per_entry(provider: Chat, request: Request) -> Proposal:
    asker = _Asker(provider)
    known = Known.of(request.documents)
    edits: list[Edit] = []
    skip: list[int] = []
    failed: list[UnusableAnswer] = []
    replacing = [MAX_REPLACE_QUESTIONS]
    answered = 0
    entries = request.entries
    for i, entry in enumerate(entries):
        before = entries[i - 1] if i else None
        if not worth_asking(entry, before):
            skip.append(entry.number)
            continue
        try:
            said = _facts(asker.ask(FACTS_SYSTEM, _question(entry, before), "facts", FACTS_SCHEMA))
        except UnusableAnswer as exc:
            failed.append(exc)  # left pending: offered again by the next run
            if exc.silent:  # the server stopped answering: the rest would wait too
                break
            continue
        answered += 1
        others = names(entry, before)
        lines = [x for x in (line_of(f, others) for f in said) if x and says(x, entry)]
        lines = [x for x in (_whose_line(x, entry, before) for x in lines) if x]
        lines = list(dict.fromkeys(lines))[:LINES_PER_ENTRY]
        made = [e for x in lines if (e := _edit(x, entry, known, asker, replacing))]
        if made:
            edits += made
        else:
            skip.append(entry.number)
    if failed and not answered:  # no question got an answer: the batch has none
        # Each question was asked twice already: asking the batch again would ask each
        # entry twice more, at a small model's 10-40 s a call.
        raise UnusableAnswer(failed[0].message, silent=failed[0].silent, final=True)
    return Proposal("", tuple(edits), skip=tuple(skip), usage=asker.usage, model=provider.model)


def _whose_line(line: str, entry: PromptEntry, before: PromptEntry | None) -> str | None:
    """The line when the entry says it of its writer; when it says it of someone the writer
    names ("My boss Dana just moved to Singapore"), the entry's own words about them as a
    line that names them; otherwise (of "you", "they", the other speaker) None."""
    who = said_of(line, entry.text, answered=answers(entry, before))
    if who is None:
        return line
    return named_line(entry.text, who)


def _updated(known: Known, entry: PromptEntry) -> tuple[str, str] | None:
    """(file, line) of the newest known line the entry's words update (search/currency.py),
    if any."""
    from ...search.currency import read_statement, updates

    said = read_statement(entry.text)
    if not said.changes:
        return None
    found = None
    for file, line, _ in known.lines:
        if updates(read_statement(line), said):
            found = (file, line)
    return found


def _edit(
    line: str, entry: PromptEntry, known: Known, asker: _Asker, replacing: list[int]
) -> Edit | None:
    """The line as an edit citing its entry: an add, a deprecate of the line it replaces,
    or None when the files already say it."""
    file, section, kind, text = place(line)
    updated = _updated(known, entry)
    if updated is None and known.repeated(text):
        return None
    edit = Edit(file, "add", kind, 0.6, 0.7, section=section, text=text, sources=(entry.number,))
    if updated is not None:  # the entry says a change of that line: no question needed
        known.add(file, text)
        return replace(edit, file=updated[0], op="deprecate", target=updated[1], section="")
    for old in known.rivals(file, text):
        if replacing[0] <= 0:
            break
        replacing[0] -= 1
        question = f"Profile line: {old}\nNew fact: {text}"
        try:
            answer = asker.ask(REPLACE_SYSTEM, question, "replaces", REPLACE_SCHEMA)
        except UnusableAnswer:
            continue
        if answer.get("replaces") is True:
            edit = replace(edit, op="deprecate", target=old, section="")
            break
    known.add(file, text)
    return edit
