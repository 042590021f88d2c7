"""Consolidation by rules: no model, no network, no key, and the same answer every time.

It reads what the user said, sentence by sentence, in English or Chinese:
- explicit requests ("remember …", "记住…") -> MEMORY Facts, or AGENTS Rules when they say
  always / never / 不要 / 每次;
- identity ("I am …", "my name is …", "我是…", "我叫…") -> USER Identity;
- preferences ("I prefer / like …", "please keep …", "我喜欢 / 习惯…") -> USER Preferences;
- tools and projects ("I'm using …", "我在用…") -> MEMORY Projects;
- goals ("I plan to …", "我打算…") -> USER Goals;
- corrections ("actually …", "不对…", "现在改用…", "switched to …") -> deprecate the existing
  line they replace (the one sharing most words with them), or add a fact when none does.
The history paragraph is built from the entries' times and first sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..consolidate.schema import read_answer
from ..markdown import core, history_stamp, is_live_bullet, split_doc
from ..proposal import PromptEntry, Proposal, Request, Usage
from ..search.tokenize import shingles, tokenize
from ..secrets import REDACTED
from ..text import plural

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|[。！？；;\n]+")
_QUESTION_RE = re.compile(
    r"[?？]\s*$|^(?:what|how|why|when|where|who|which|can|could|do|does|is|are)\b|吗$|么$", re.I
)
_RULE_WORDS = re.compile(
    r"\b(?:always|never|don't|do not|must)\b|每次|总是|不要|别|禁止|必须|不许", re.I
)
_LEAD_RE = re.compile(
    r"^(?:hi|hello|hey|ok|okay|so|well|btw|by the way|quick update(?: about me)?|嗯|好的|对)"
    r"[\s,，:：!！.-]*",
    re.I,
)

_NOT_IDENTITY = (
    "using|working|going|planning|trying|not|so|very|really|just|still|also|glad|happy|sorry|fine|"
    "good|ok|okay|sure|done|back|here|on|in|at|about|thinking|looking|afraid|excited|tired|busy"
)
RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("correction", re.compile(r"^(?:actually|correction|update)\b[\s,:：]*(?P<x>.+)", re.I)),
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
            r"^(?:please\s+)?(?:remember(?:\s+(?:this|that))?\b|note\s+(?:that|down)\b|note(?=\s*:))"
            r"[\s:：,，]*(?P<x>.+)",
            re.I,
        ),
    ),
    ("remember", re.compile(r"^(?:请)?(?:记住|别忘了|记一下|记得)[\s:：，,]*(?P<x>.+)")),
    (
        "identity",
        re.compile(rf"\b(?:I am|I'm|my name is)\s+(?!(?:{_NOT_IDENTITY})\b)(?P<x>.+)", re.I),
    ),
    ("identity", re.compile(r"^我(?:是|叫)(?P<x>.+)")),
    (
        "preference",
        re.compile(
            r"\bI\s+(?:really\s+|also\s+|much\s+)?"
            r"(?:prefer|like|love|enjoy|hate|dislike|don't like|do not like)\b(?P<x>.+)",
            re.I,
        ),
    ),
    (
        "preference",
        re.compile(
            r"^please\s+(?:always\s+)?(?:keep|use|answer|reply|write|suggest|"
            r"avoid|give)\b(?P<x>.+)",
            re.I,
        ),
    ),
    (
        "preference",
        re.compile(r"^我(?:更|比较|很|也|一直)?(?:喜欢|偏好|习惯|讨厌|不喜欢)(?P<x>.+)"),
    ),
    (
        "tool",
        re.compile(r"\bI(?:'m| am)\s+(?:now\s+)?(?:using|working on|building)\s+(?P<x>.+)", re.I),
    ),
    ("tool", re.compile(r"^我(?:最近|现在|正在|目前)?(?:在用|在做|用的是)(?P<x>.+)")),
    (
        "goal",
        re.compile(r"\bI\s+(?:plan|want|intend|hope|aim|am going|'m going)\s+to\s+(?P<x>.+)", re.I),
    ),
    ("goal", re.compile(r"^我(?:打算|计划|准备|想要|希望|的目标是)(?P<x>.+)")),
)
# kind -> (file, section, type, importance, confidence)
TARGETS = {
    "remember": ("MEMORY", "Facts", "fact", 0.8, 0.9),
    "rule": ("AGENTS", "Rules", "rule", 0.8, 0.9),
    "identity": ("USER", "Identity", "identity", 0.8, 0.8),
    "preference": ("USER", "Preferences", "preference", 0.6, 0.8),
    "tool": ("MEMORY", "Projects", "fact", 0.5, 0.7),
    "goal": ("USER", "Goals", "goal", 0.6, 0.75),
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


def sentences(text: str) -> list[str]:
    out = []
    for part in _SENTENCE_RE.split(text):
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


def _clean(text: str) -> str:
    text = " ".join(text.split()).strip(" ,，:：;；").rstrip(".。")
    return (text[:1].upper() + text[1:])[:300]


class OfflineProvider:
    name = "offline"
    label = "offline (rules, no network)"
    context_tokens = 10**9

    def __init__(self) -> None:
        self.calls = 0
        self.tokens_sent = 0

    def propose(self, request: Request) -> Proposal:
        self.calls += 1
        existing = _existing(request.documents)
        edits: list[dict] = []
        seen: set[str] = set()
        used: list[str] = []
        for entry in request.entries:
            if entry.role in ("assistant", "system"):
                continue
            for sentence in sentences(entry.text):
                if REDACTED in sentence or _QUESTION_RE.search(sentence):
                    continue
                edit = self._edit(_LEAD_RE.sub("", sentence), existing)
                if edit is None:
                    continue
                edit["sources"] = [entry.number]
                key = edit["text"].casefold()
                if key in seen:
                    continue
                seen.add(key)
                edits.append(edit)
                used.append(f"{_hhmm(entry)}{sentence.rstrip('.。')}")
        history = self._history(request.entries, used, request.now)
        timed = [e.when for e in request.entries if e.when]
        answer = {"history_entry": history, "edits": edits}
        found = read_answer(
            answer, entries=len(request.entries), last=max(timed, default=request.now)
        )
        return replace(found, usage=Usage(0, 0), model="rules")

    def _edit(self, sentence: str, existing: list[_Line]) -> dict | None:
        for kind, pattern in RULES:
            m = pattern.search(sentence)
            if not m:
                continue
            text = _clean(m["x"] if kind in ("remember", "correction") else sentence)
            if len(text) < 4:
                return None
            if kind == "remember" and _RULE_WORDS.search(text):
                kind = "rule"
            file, section, typ, importance, confidence = TARGETS[kind]
            edit = {
                "file": file,
                "op": "add",
                "section": section,
                "text": text,
                "type": typ,
                "importance": importance,
                "confidence": confidence,
            }
            if kind == "correction":
                old = _replaced(text, existing)
                if old is not None:
                    edit.update(file=old.file, op="deprecate", target=old.text)
                    del edit["section"]
            return edit
        return None

    @staticmethod
    def _history(entries: tuple[PromptEntry, ...], used: list[str], now) -> str:
        timed = [e.when for e in entries if e.when]
        last = max(timed) if timed else now
        first = min(timed) if timed else now
        stamp = history_stamp(last)
        span = f" from {first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M}"
        talk = [e for e in entries if e.role not in ("assistant", "system")]
        head = f"{stamp} {plural(len(entries), 'log entry')}{span}, {len(talk)} from the user."
        points = used[:4]
        if not points:  # nothing matched a rule: the first sentences of the longest turns
            longest = sorted(talk, key=lambda e: -len(e.text))[:3]
            points = [
                f"{_hhmm(e)}{(sentences(e.text) or [e.text])[0].rstrip('.。')}"
                for e in sorted(longest, key=lambda e: e.cite)
            ]
        body = " ".join(f"{' '.join(p.split())[:240]}." for p in points if p)
        return f"{head} {body}".strip()


def _hhmm(entry: PromptEntry) -> str:
    return f"{entry.when:%m-%d %H:%M} " if entry.when else ""
