"""Settings: one registry of keys, resolved as flag > MEM_* variable > mem.toml > default.

`mem.toml` lives at the workspace root and is committed, so a change of behaviour is a
reviewable diff like any other memory change.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError

CONFIG_FILE = "mem.toml"


@dataclass(frozen=True)
class Key:
    name: str  # "section.key"
    default: Any
    doc: str
    choices: tuple[str, ...] = ()

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
        "git.autocommit",
        "consolidate",
        "When mem commits by itself: never; consolidate (each consolidation is one commit); "
        "log (also after every append).",
        ("never", "consolidate", "log"),
    ),
    Key(
        "index.include",
        ["*.md", "memory/**/*.md"],
        "Globs (relative to the workspace; `*` stays in a directory, `**` crosses) of the "
        "files recall indexes.",
    ),
    Key("index.exclude", [], "Globs of files to leave out of the index."),
    Key("index.chunk_tokens", 400, "Largest chunk of an evergreen file, in estimated tokens."),
    Key("index.chunk_overlap", 80, "Tokens of the previous chunk indexed with the next one."),
    Key(
        "index.log_context",
        40,
        "Tokens of the previous log entry indexed with each entry (a turn answers the one "
        "before it); not part of its citation.",
    ),
    Key("recall.k", 6, "Results `mem recall` returns."),
    Key("recall.vector_weight", 0.7, "Weight of the MinHash (pseudo-vector) score in the fusion."),
    Key("recall.text_weight", 0.3, "Weight of the BM25 score in the fusion."),
    Key("recall.candidate_multiplier", 4, "Candidates taken from each list: k times this."),
    Key(
        "recall.decay_lambda",
        0.002,
        "Time decay per day, score * exp(-λ * age_days); 0.002 is a half-life of about a "
        "year. Evergreen files are never decayed.",
    ),
    Key("recall.deprecated_weight", 0.5, "Factor for struck-through (deprecated) lines."),
    Key("recall.mmr_lambda", 0.6, "MMR trade-off: 1 is pure relevance, 0 pure diversity."),
    Key("recall.min_score", 0.0, "Drop results whose final score is below this."),
    Key(
        "recall.similarity",
        "membership",
        "How MinHash signatures score a query: membership (IDF-weighted containment, each "
        "query word tested against the signature), containment (from the estimated Jaccard) "
        "or jaccard.",
        ("membership", "containment", "jaccard"),
    ),
    Key(
        "recall.access_boost",
        0.0,
        "Weight of past use in ranking, score * (1 + w * log(1 + access_count)); 0 is off. "
        "Uses are counted in .mem/, never in Markdown.",
    ),
    Key(
        "consolidate.provider",
        "auto",
        "Who distils the logs: openai (any OpenAI-compatible endpoint), offline (rules, no "
        "network), or auto (openai when OPENAI_API_KEY, OPENAI_BASE_URL or llm.base_url is "
        "set, else offline).",
        ("auto", "openai", "offline"),
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
    ),
    Key("consolidate.keep_recent", 20, "`--auto` leaves this many newest entries for next time."),
    Key(
        "consolidate.min_confidence", 0.5, "Edits the model is less sure of are skipped and listed."
    ),
    Key(
        "consolidate.redact_patterns",
        [],
        "Extra regular expressions for secrets to redact before anything is sent (keys, "
        "tokens, passwords and private keys are built in).",
    ),
    Key("llm.model", "gpt-4o-mini", "Model name sent to the endpoint."),
    Key("llm.base_url", "", "OpenAI-compatible endpoint (else OPENAI_BASE_URL, else OpenAI's)."),
    Key("llm.timeout", 60.0, "Seconds one request may take."),
    Key("llm.max_retries", 2, "Retries, with backoff, after HTTP 429 and 5xx."),
    Key(
        "llm.context_tokens",
        16000,
        "The model's context size; a larger backlog goes in several batches, one commit each.",
    ),
    Key("context.budget", 500, "Token budget of `mem context` (CJK counted as ~1 a character)."),
    Key("context.memories", 5, "Recalled memories `mem context` includes at most."),
    Key("watch.debounce", 1.5, "Seconds of quiet after a change before `mem watch` refreshes."),
    Key("cleanup.min_importance", 0.2, "`mem cleanup` archives lines less important than this..."),
    Key("cleanup.unused_days", 30, "...once unused (not recalled) for this many days."),
    Key("cleanup.deprecated_days", 90, "Struck-through lines older than this are archived."),
    Key("cleanup.min_confidence", 0.5, "Lines with lower confidence are archived."),
    Key("sync.remote", "origin", "Git remote `mem sync` pulls from and pushes to."),
    Key("sync.branch", "", "Branch `mem sync` uses (empty: the current one)."),
)

_BY_NAME = {k.name: k for k in KEYS}


def key(name: str) -> Key:
    try:
        return _BY_NAME[name]
    except KeyError:
        close = difflib.get_close_matches(name, _BY_NAME, n=1)
        hint = f"; did you mean {close[0]}?" if close else "; `mem config` lists them"
        raise ConfigError(f"unknown setting {name!r}{hint}") from None


def _coerce(k: Key, value: Any, origin: str) -> Any:
    kind = k.kind
    if isinstance(value, str) and kind is not str:
        text = value.strip()
        try:
            if kind is bool:
                if text.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                    raise ValueError(text)
                value = text.lower() in ("1", "true", "yes", "on")
            elif kind is list:
                value = [part.strip() for part in text.split(",") if part.strip()]
            else:
                value = kind(text)
        except ValueError:
            raise ConfigError(
                f"{k.name} in {origin} must be a {kind.__name__}, not {value!r}"
            ) from None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(f"{k.name} in {origin} must be a {kind.__name__}, not {value!r}")
    if kind is list and not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{k.name} in {origin} must be a list of strings, not {value!r}")
    if k.choices and value not in k.choices:
        raise ConfigError(
            f"{k.name} in {origin} must be one of {', '.join(k.choices)}, not {value!r}"
        )
    return value


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for name, value in table.items():
        full = f"{prefix}{name}"
        if isinstance(value, dict):
            flat.update(_flatten(value, full + "."))
        else:
            flat[full] = value
    return flat


def read_config_file(path: Path) -> dict[str, Any]:
    import tomllib

    try:
        raw = path.read_bytes().decode("utf-8")
        return _flatten(tomllib.loads(raw))
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not valid UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None


@dataclass(frozen=True)
class Config:
    values: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        key(name)  # a typo in code fails loudly, with a suggestion
        return self.values[name]

    def rows(self) -> list[tuple[str, Any, str]]:
        return [(k.name, self.values[k.name], self.sources[k.name]) for k in KEYS]


def load_config(
    root: Path | None,
    env: Mapping[str, str],
    overrides: Mapping[str, Any] | None = None,
) -> Config:
    """Resolve every key: flag override > MEM_* variable > mem.toml > default."""
    values = {k.name: k.default for k in KEYS}
    sources = {k.name: "default" for k in KEYS}
    if root is not None:
        path = root / CONFIG_FILE
        for name, value in read_config_file(path).items():
            k = key(name)
            values[name] = _coerce(k, value, CONFIG_FILE)
            sources[name] = CONFIG_FILE
    for k in KEYS:
        if k.env in env:
            values[k.name] = _coerce(k, env[k.env], k.env)
            sources[k.name] = f"env {k.env}"
    for name, value in (overrides or {}).items():
        if value is None:
            continue
        k = key(name)
        values[name] = _coerce(k, value, "the command line")
        sources[name] = "flag"
    return Config(values, sources)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return repr(value)


def default_config_text() -> str:
    """The mem.toml `mem init` writes: every key at its default, commented out."""
    lines = [
        "# openclaw-mem settings. Every key is listed at its default; uncomment to change.",
        "# A MEM_<SECTION>_<KEY> environment variable overrides this file;",
        "# `mem config` shows the effective values and where each came from.",
    ]
    section = None
    for k in KEYS:
        sec, name = k.name.split(".", 1)
        if sec != section:
            lines += ["", f"[{sec}]"]
            section = sec
        lines.append(f"# {k.doc}")
        lines.append(f"# {name} = {_toml_value(k.default)}")
    return "\n".join(lines) + "\n"
