"""Every setting mem has, declared once: its name ("section.key"), default, the sentence
`mem config`, `mem.toml` and docs/configuration.md show, and its constraints (choices, a
range, a check). config.py resolves them (flag > MEM_* > mem.toml > default).

May import `store`, `providers` and `errors`.
"""

from __future__ import annotations

from .store.workspace_root import DEFAULT_INCLUDE

TYPE_CHECKING = False  # every `mem log` reads its settings: typing stays out
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


_PROBE = """
import json, re, sys
for p in json.loads(sys.argv[1]):
    rx = re.compile(p)
    chars = {c for c in p if c.isalnum() or c in " _-.@:/"} | {"a", "0", " "}
    for c in sorted(chars):
        for s in (c * 26 + "\\x00!", (c + "a") * 13 + "!", c * 26):
            rx.search(s)
    print(json.dumps(p), flush=True)
"""


_PLAIN = "Booked the train back from Shanghai for Thursday evening, 我周三去上海出差."


def _regexes(value: list[str]) -> str | None:
    """Each pattern compiles, and runs in linear-looking time on strings made of its own
    characters (the shape that makes `(a+)+$` take forever). Python's re cannot be
    interrupted, so the trial runs in a child process with a time limit."""
    import re

    for pattern in value:
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            return f"holds {pattern!r}, which is not a regular expression ({exc})"
        # A pattern that takes everything hides every entry from consolidation, which then
        # records them as holding nothing: a secret's shape is never empty or plain prose.
        if compiled.search("") or compiled.fullmatch(_PLAIN):
            return f"holds {pattern!r}, which matches any text; a secret's shape is narrower"
    if not value:
        return None
    import json
    import subprocess
    import sys

    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, json.dumps(value)],
            capture_output=True,
            text=True,
            timeout=2.0,
        ).stdout.splitlines()
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        done = out.splitlines()
    finished = {json.loads(line) for line in done if line.strip()}
    slow = next((p for p in value if p not in finished), None)
    if slow is not None:
        return (
            f"holds {slow!r}, which takes too long on a string like 'aaaa…!' "
            "(nested repetition backtracks without end); rewrite it without `(x+)+`"
        )
    return None


def _registered(kind: str) -> Callable[[], tuple[str, ...]]:
    from .providers import names

    return lambda: names(kind)


class Key:
    """One setting: its name ("section.key"), default, doc, and constraints: choices,
    inclusive bounds for numbers, and a check that returns what is wrong, or None."""

    __slots__ = ("_choices", "check", "default", "doc", "max", "min", "name")

    def __init__(
        self,
        name: str,
        default: Any,
        doc: str,
        choices: tuple[str, ...] | Callable[[], tuple[str, ...]] = (),
        min: float | None = None,
        max: float | None = None,
        check: Callable[[Any], str | None] | None = None,
    ) -> None:
        self.name, self.default, self.doc, self._choices = name, default, doc, choices
        self.min, self.max, self.check = min, max, check

    def __repr__(self) -> str:
        return f"Key({self.name!r}, {self.default!r})"

    @property
    def choices(self) -> tuple[str, ...]:
        """The values it takes; a provider key's are read from the registry when asked, so
        a provider registered after this module was imported is one of them."""
        return self._choices() if callable(self._choices) else self._choices

    @property
    def env(self) -> str:
        return "MEM_" + self.name.upper().replace(".", "_")

    @property
    def kind(self) -> type:
        return type(self.default)


KEYS: tuple[Key, ...] = (
    Key(
        "log.default_role",
        "note",
        "Role written when `mem log` gets neither --role nor --speaker.",
        ("user", "assistant", "system", "note"),
    ),
    Key(
        "log.redact",
        False,
        "Replace secrets (keys, tokens, passwords) with [REDACTED] as entries are appended. "
        "Off by default: a daily log keeps what was said, and mem log warns instead.",
    ),
    Key(
        "agents.isolation",
        "shared",
        "Several agents in one workspace (mem log --agent, MEM_AGENT): shared (what one agent "
        "learns, all know; each recalls its own log entries) or isolated (a fact drawn only "
        "from one agent's entries stays private to it).",
        ("shared", "isolated"),
    ),
    Key(
        "git.autocommit",
        "consolidate",
        "When mem commits by itself: never; consolidate (each consolidation is one commit); "
        "log (also after every append).",
        ("never", "consolidate", "log"),
    ),
    Key(
        "index.include",
        list(DEFAULT_INCLUDE),
        "Globs (relative to the workspace; `*` stays in a directory, `**` crosses) of the "
        "files recall indexes.",
    ),
    Key("index.exclude", [], "Globs of files to leave out of the index."),
    Key(
        "index.chunk_tokens",
        400,
        "Largest chunk of an evergreen file, in estimated tokens.",
        min=20,
        max=8000,
    ),
    Key(
        "index.chunk_overlap",
        80,
        "Tokens of the previous chunk indexed with the next one.",
        min=0,
        max=2000,
    ),
    Key(
        "index.log_context",
        40,
        "Tokens of the previous log entry indexed with each entry (a turn answers the one "
        "before it); not part of its citation.",
        min=0,
        max=2000,
    ),
    Key("recall.k", 6, "Results `mem recall` returns.", min=1, max=1000),
    Key(
        "recall.vector_weight",
        0.7,
        "Weight of the MinHash (pseudo-vector) score in the fusion.",
        min=0,
    ),
    Key("recall.text_weight", 0.3, "Weight of the BM25 score in the fusion.", min=0),
    Key(
        "recall.candidate_multiplier",
        4,
        "Candidates taken from each list: max(k, 10) times this (the same candidates for any "
        "k up to 10, so the first result never depends on k).",
        min=1,
        max=100,
    ),
    Key(
        "recall.decay_lambda",
        0.004,
        "Time decay per day, score * exp(-λ * age_days), the age counted from the newest "
        "candidate and capped at recall.decay_window days. Evergreen files are never decayed.",
        min=0,
        max=10,
    ),
    Key(
        "recall.decay_window",
        20.0,
        "Days of age the decay counts, from the newest candidate: recency decides between "
        "near-equal results (a fact and the update that replaces it) without burying a "
        "months-old answer. 0: the age from now, uncapped (the decay before this key).",
        min=0,
        max=100000,
    ),
    Key(
        "recall.deprecated_weight",
        0.5,
        "Factor for struck-through (deprecated) lines.",
        min=0,
        max=1,
    ),
    Key(
        "recall.mmr_lambda",
        0.6,
        "MMR trade-off: 1 is pure relevance, 0 pure diversity.",
        min=0,
        max=1,
    ),
    Key(
        "recall.mmr_threshold",
        0.5,
        "MMR demotes only results more alike than this (own words' Jaccard): near-duplicates.",
        min=0,
        max=0.99,
    ),
    Key(
        "recall.min_score",
        0.0,
        "Drop results whose score is below this. A score is the result's share of the best "
        "result's times how much of the question the best holds (its words, or its meaning "
        "above the floors): the same scale for every question. 0 keeps every match.",
        min=0,
        max=1,
    ),
    Key(
        "recall.similarity",
        "membership",
        "How the vector half scores a query: membership (the IDF-weighted share of the "
        "query's words a chunk holds, read from the index), containment (from MinHash "
        "signatures' estimated Jaccard) or jaccard; the last two make the signatures.",
        ("membership", "containment", "jaccard"),
    ),
    Key(
        "recall.access_boost",
        0.0,
        "Weight of past use in ranking, score * (1 + w * log(1 + access_count)); 0 is off. "
        "Uses are counted in .mem/, never in Markdown.",
        min=0,
        max=10,
    ),
    Key(
        "recall.context_cap",
        0.5,
        "How much a log entry's borrowed context (the tail of the entry it answers) may add "
        "to its own BM25 score, as a share of it: context helps a chunk that matches, and "
        "never makes one match.",
        min=0,
        max=10,
    ),
    Key(
        "embed.provider",
        "auto",
        "Where embeddings come from: none (MinHash pseudo-vectors, nothing downloaded or "
        "sent), local (a multilingual model inside the `local` extra), openai (an "
        "OpenAI-compatible /v1/embeddings endpoint), or auto (local when installed, else none).",
        _registered("embed"),
    ),
    Key(
        "embed.model",
        "",
        "The model: for local, use (multilingual USE v3, default) or e5-small; for openai, "
        "the endpoint's model name (default text-embedding-3-small).",
    ),
    Key(
        "embed.base_url",
        "",
        "OpenAI-compatible endpoint for embeddings (else OPENAI_BASE_URL, else OpenAI's).",
    ),
    Key("embed.timeout", 30.0, "Seconds one embeddings request may take.", min=0.1, max=3600),
    Key("embed.max_retries", 2, "Retries, with backoff, after HTTP 429 and 5xx.", min=0, max=20),
    Key("embed.batch", 64, "Texts per embeddings request.", min=1, max=2048),
    Key(
        "consolidate.provider",
        "auto",
        "Who distils the logs: openai (any OpenAI-compatible endpoint), offline (rules, no "
        "network), or auto (openai when llm.base_url names an endpoint, else offline: a key "
        "or URL in the environment alone sends nothing).",
        _registered("consolidate"),
    ),
    Key(
        "consolidate.auto_consolidate",
        False,
        "Let `mem log` start `mem consolidate --auto` in the background when the window is "
        "exceeded.",
    ),
    Key(
        "consolidate.memory_window",
        50,
        "`--auto` runs only when more entries than this are not yet consolidated.",
        min=1,
    ),
    Key(
        "consolidate.keep_recent",
        20,
        "`--auto` leaves this many newest entries for next time.",
        min=0,
    ),
    Key(
        "consolidate.min_confidence",
        0.5,
        "Edits the model is less sure of are skipped and listed.",
        min=0,
        max=1,
    ),
    Key(
        "consolidate.redact_patterns",
        [],
        "Extra regular expressions for secrets to redact before anything is sent (keys, "
        "tokens, passwords and private keys are built in).",
        check=_regexes,
    ),
    Key("llm.model", "gpt-4o-mini", "Model name sent to the endpoint."),
    Key("llm.base_url", "", "OpenAI-compatible endpoint (else OPENAI_BASE_URL, else OpenAI's)."),
    Key("llm.timeout", 60.0, "Seconds one request may take.", min=0.1, max=3600),
    Key("llm.max_retries", 2, "Retries, with backoff, after HTTP 429 and 5xx.", min=0, max=20),
    Key(
        "llm.context_tokens",
        16000,
        "The model's context size; a larger backlog goes in several batches, one commit each.",
        min=1024,
    ),
    Key(
        "llm.tool_mode",
        "auto",
        "How the model answers: tools (a save_memory tool call), json (the same object in its "
        "message, for endpoints without tool calling), or auto (tools, falling back to json "
        "when the endpoint refuses them).",
        ("auto", "tools", "json"),
    ),
    Key(
        "llm.structured_output",
        "auto",
        "Ask for the answer's JSON schema through `response_format` (grammar-constrained on "
        "llama.cpp, vLLM, Ollama, LM Studio: the answer always parses): schema (always), off "
        "(never), or auto (when the endpoint's model list says it takes one).",
        ("auto", "schema", "off"),
    ),
    Key(
        "llm.strategy",
        "auto",
        "How the model is asked: batch (a batch of entries, one save_memory answer), entry "
        "(one short question per log entry, for small models: what it says about its writer), "
        "or auto (entry when the endpoint reports a model under 4B parameters, else batch).",
        ("auto", "batch", "entry"),
    ),
    Key(
        "llm.batch_entries",
        0,
        "Most log entries one batch (one commit) holds; 0: as many as llm.context_tokens "
        "takes with the batch strategy, 20 with the entry strategy.",
        min=0,
        max=100_000,
    ),
    Key(
        "llm.daily_token_budget",
        0,
        "Tokens automatic consolidations (--auto, mem watch, auto_consolidate) may spend a "
        "day, prompt and answer together; 0 is no limit. A run that would exceed it stops.",
        min=0,
    ),
    Key(
        "consolidate.user_budget",
        600,
        "Tokens USER.md may hold (CJK counted): it is read on every turn. A consolidation "
        "that leaves it larger says which low-importance lines `mem cleanup` could archive.",
        min=50,
    ),
    Key(
        "consolidate.max_edits",
        50,
        "Edits one model answer may make; the rest wait in `mem review` with the reason.",
        min=1,
        max=10_000,
    ),
    Key(
        "consolidate.max_line_chars",
        400,
        "Longest line a model may write into a curated file; a longer one waits in `mem review`.",
        min=40,
        max=100_000,
    ),
    Key(
        "consolidate.max_new_lines",
        20,
        "New lines one run may add to USER.md and to AGENTS.md each (both are read on every "
        "turn); the rest wait in `mem review`.",
        min=1,
        max=10_000,
    ),
    Key(
        "consolidate.max_offers",
        3,
        "Runs that may show an entry to a model that neither cites nor skips it; then it is "
        "recorded as passed over (kept nothing; `mem review --reoffer` offers it again). "
        "0: offered until a model takes it.",
        min=0,
        max=1000,
    ),
    Key(
        "consolidate.review",
        False,
        "Let automatic consolidation (--auto) propose for `mem review` instead of applying.",
    ),
    Key(
        "context.budget",
        500,
        "Token budget of `mem context` (CJK counted as ~1 a character).",
        min=50,
    ),
    Key("context.memories", 5, "Recalled memories `mem context` includes at most.", min=0, max=50),
    Key(
        "watch.debounce",
        1.5,
        "Seconds of quiet after a change before `mem watch` refreshes.",
        min=0.05,
        max=600,
    ),
    Key(
        "watch.idle",
        600,
        "When the embedding model is slow to load (`local`), recall and context start a "
        "resident process that keeps it loaded and exits after this many idle seconds "
        "(0: never start one).",
        min=0,
        max=86400,
    ),
    Key(
        "hooks.max_bytes",
        8192,
        "Most bytes a harness hook (`mem hook`) puts in front of the model at once: the brief "
        "at session start, the recall for a prompt. Claude Code cuts hook output over 10 KB "
        "to a preview.",
        min=256,
        max=1_000_000,
    ),
    Key(
        "hooks.timeout",
        10.0,
        "Seconds a hook may spend finding what to inject; past them it injects nothing, logs "
        "the turn all the same, records the delay in .mem/hooks.log and lets the agent go on.",
        min=0.1,
        max=600,
    ),
    Key(
        "hooks.resident",
        False,
        "Let hooks start the on-demand resident (`mem resident`, watch.idle) when the "
        "embedding model is slow to load; off, a hook leaves no process behind (one already "
        "running is used).",
    ),
    Key(
        "cleanup.min_importance",
        0.2,
        "`mem cleanup` archives lines less important than this...",
        min=0,
        max=1,
    ),
    Key("cleanup.unused_days", 30, "...once unused (not recalled) for this many days.", min=0),
    Key(
        "cleanup.deprecated_days",
        90,
        "Struck-through lines older than this are archived.",
        min=0,
    ),
    Key("cleanup.min_confidence", 0.5, "Lines with lower confidence are archived.", min=0, max=1),
    Key("sync.remote", "origin", "Git remote `mem sync` pulls from and pushes to."),
    Key("sync.branch", "", "Branch `mem sync` uses (empty: the current one)."),
)
