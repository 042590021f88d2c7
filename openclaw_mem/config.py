"""Settings: one registry of keys, resolved as flag > MEM_* variable > mem.toml > default.

Each key carries its type and its constraints (choices, a range, a check), and every value is
checked when it is read, wherever it comes from, so no consumer re-checks and no bad value
surfaces later as a crash. A bad command-line flag is a one-line error (exit 2). A bad value
in mem.toml or a MEM_* variable never stops a command: mem.toml is synced, so another clone
can break it, and an agent's `mem log` must not lose its entry for it, nor `mem sync` the fix.
The value (the whole file, when it cannot be read) keeps this machine's last trusted setting,
else the default, and one warning says so (`Config.problems`). Consolidation alone refuses
(exit 6) when a setting that decides where text goes or what is hidden could not be read as
this machine set it (`Config.require`).

`mem.toml` lives at the workspace root and is committed, so a change of behaviour is a
reviewable diff like any other memory change.

May import `keys`, `store`, `providers`, `errors` and `text`.
"""

from __future__ import annotations

import os

from .errors import ConfigError, MemError, UsageError
from .keys import KEYS, Key

# Every `mem log` reads its settings: nothing here imports re, dataclasses, pathlib or
# typing until a path that needs them (a check of a pattern, the trust file, an error).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

CONFIG_FILE = "mem.toml"
FLAG = "on the command line"


_BY_NAME = {k.name: k for k in KEYS}


def key(name: str) -> Key:
    try:
        return _BY_NAME[name]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(name, _BY_NAME, n=1)
        hint = f"; did you mean {close[0]}?" if close else "; `mem config` lists them"
        raise ConfigError(f"unknown setting {name!r}{hint}") from None


def default(name: str) -> Any:
    """A setting's default: the one place it is written (option objects such as
    RecallOptions and IndexParams take theirs from here). Lists come back as tuples."""
    value = key(name).default
    return tuple(value) if isinstance(value, list) else value


def _where(origin: str) -> str:
    return origin if origin == FLAG else f"in {origin}"


def _problem(k: Key, value: Any) -> str | None:
    """What is wrong with a value of the right type, or None."""
    if k.choices and value not in k.choices:
        return f"must be one of {', '.join(k.choices)}, not {value!r}"
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value != value or value in (float("inf"), float("-inf")):
            return f"must be a finite number, not {value!r}"
        if k.min is not None and value < k.min:
            return f"must be at least {k.min:g}, not {value!r}"
        if k.max is not None and value > k.max:
            return f"must be at most {k.max:g}, not {value!r}"
    return k.check(value) if k.check else None


def _coerce(k: Key, value: Any, origin: str) -> Any:
    error: type[MemError] = UsageError if origin == FLAG else ConfigError
    try:
        value = _typed(k, value, origin)
    except ConfigError as exc:
        raise error(exc.message) from None
    problem = _problem(k, value)
    if problem:
        raise error(f"{k.name} {_where(origin)} {problem}")
    return value


def _typed(k: Key, value: Any, origin: str) -> Any:
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
        except (ValueError, OverflowError):
            raise ConfigError(
                f"{k.name} {_where(origin)} must be a {kind.__name__}, not {value!r}"
            ) from None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(f"{k.name} {_where(origin)} must be a {kind.__name__}, not {value!r}")
    if kind is list and not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{k.name} {_where(origin)} must be a list of strings, not {value!r}")
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


CONFIG_LIMIT = 2**20  # a settings file larger than this is not a settings file


def _config_bytes(path: Path) -> bytes | None:
    """mem.toml's bytes: only a regular file, not through a link, at most CONFIG_LIMIT (a
    synced link to /dev/zero or a FIFO must not hang every command); None when absent."""
    from .errors import MemError
    from .store.fsutil import read_bytes

    try:
        return read_bytes(path, CONFIG_FILE, limit=CONFIG_LIMIT)
    except FileNotFoundError:
        return None
    except MemError as exc:
        raise ConfigError(exc.message) from None


def read_config_file(path: Path) -> dict[str, Any]:
    try:
        data = _config_bytes(path)
        if data is None:
            return {}
        raw = data.decode("utf-8").removeprefix("\ufeff")  # Notepad's BOM
        if all(not line.strip() or line.lstrip().startswith("#") for line in raw.splitlines()):
            return {}  # all comments, as `mem init` writes it: no parser needed
        import tomllib

        return _flatten(tomllib.loads(raw))
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not valid UTF-8") from None
    except RecursionError:  # an array nested 100,000 deep
        raise ConfigError(f"{path} nests deeper than any settings file does") from None
    except ValueError as exc:  # tomllib.TOMLDecodeError
        import re

        m = re.search(r"Cannot declare \('?([^)']*)'?,?\) twice", str(exc))
        if m:  # two [section] blocks: say which, and what to do
            raise ConfigError(
                f"{path} declares [{m[1]}] twice; merge the two blocks into one"
            ) from None
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None


# mem.toml is committed and synced: another clone can change it. Until this machine's user
# trusts a version of the file (`mem trust`, as direnv and qmd ask), only the settings below
# count from it: they shape how memory is ranked, shown and batched, never where it goes,
# what protects it, what runs, or what is kept. Every other key keeps this machine's value
# (the last version it trusted, else the environment's and the defaults'), and `mem` says so.
UNTRUSTED_OK = (
    "log.default_role",
    "index.chunk_tokens",
    "index.chunk_overlap",
    "index.log_context",
    "recall.k",
    "recall.vector_weight",
    "recall.text_weight",
    "recall.candidate_multiplier",
    "recall.decay_lambda",
    "recall.decay_window",
    "recall.deprecated_weight",
    "recall.mmr_lambda",
    "recall.mmr_threshold",
    "recall.min_score",
    "recall.similarity",
    "recall.access_boost",
    "recall.context_cap",
    "embed.timeout",
    "embed.max_retries",
    "embed.batch",
    "llm.timeout",
    "llm.max_retries",
    "llm.context_tokens",
    "llm.tool_mode",
    "llm.structured_output",
    "llm.batch_entries",
    "consolidate.user_budget",
    "context.budget",
    "context.memories",
    "watch.debounce",
    "hooks.max_bytes",
    "hooks.timeout",
)


def trust_file(env: Mapping[str, str]) -> Path:
    """Where this machine records the mem.toml versions its user trusts (outside any
    workspace, so no sync can write it)."""
    from pathlib import Path

    if env.get("MEM_TRUST_FILE"):
        return Path(env["MEM_TRUST_FILE"])
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "openclaw-mem" / "trusted.json"


def _digest(path: Path) -> str:
    import hashlib

    try:
        data = _config_bytes(path) or b""
    except ConfigError as exc:  # a link, a FIFO, too large: never trusted, never followed
        data = f"unreadable: {exc.message}".encode()
    return hashlib.sha256(data).hexdigest()


def _file_settings(path: str) -> tuple[dict[str, Any], list[tuple[str | None, str]], bool]:
    """mem.toml's settings that hold valid values; (key or None, what is wrong) for the
    rest; and whether the file could be read at all."""
    try:
        found = read_config_file(path)
    except ConfigError as exc:
        return {}, [(None, exc.message)], False
    good: dict[str, Any] = {}
    problems: list[tuple[str | None, str]] = []
    for name, value in found.items():
        try:
            good[name] = _coerce(key(name), value, CONFIG_FILE)
        except ConfigError as exc:
            problems.append((name if name in _BY_NAME else None, exc.message))
    return good, problems, True


def _trusted(env: Mapping[str, str]) -> dict[str, dict]:
    """Per workspace: the digest of the mem.toml version trusted, and its settings."""
    import json

    try:
        data = json.loads(trust_file(env).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    out = {}
    for root, record in data.items():
        if isinstance(record, str):  # an older mem recorded the digest alone
            record = {"digest": record, "values": {}}
        if isinstance(record, dict) and isinstance(record.get("values", {}), dict):
            out[str(root)] = {"digest": str(record.get("digest")), "values": record["values"]}
    return out


def trust(root: Path, env: Mapping[str, str]) -> str:
    """Trust the workspace's mem.toml as it is now; returns its digest. Its settings are
    kept with the digest: they stay this machine's until it trusts another version."""
    import json
    from pathlib import Path

    from .store.fsutil import atomic_write_text

    root = Path(root)
    path = root / CONFIG_FILE
    if _config_bytes(path) is None:
        raise UsageError(f"{path} does not exist; there is nothing to trust")
    digest = _digest(path)
    values = read_config_file(path)
    for name, value in values.items():  # a bad value is never trusted
        _coerce(key(name), value, CONFIG_FILE)
    known = _trusted(env)
    known[str(root.resolve())] = {"digest": digest, "values": values}
    target = trust_file(env)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, json.dumps(known, indent=1, sort_keys=True, ensure_ascii=False))
    return digest


def trusted_version(root: Path, env: Mapping[str, str]) -> dict | None:
    """What this machine trusts of the workspace's mem.toml: {"digest", "values"}."""
    return _trusted(env).get(os.path.realpath(root))


def is_trusted(root: Path, env: Mapping[str, str]) -> bool:
    record = trusted_version(root, env)
    return record is not None and record["digest"] == _digest(os.path.join(root, CONFIG_FILE))


def _valid(values: Mapping[str, Any]) -> dict[str, Any]:
    """The settings of a trusted version that are still settings, with valid values."""
    out = {}
    for name, value in values.items():
        if name in _BY_NAME:
            try:
                out[name] = _coerce(_BY_NAME[name], value, CONFIG_FILE)
            except MemError:
                continue
    return out


KEYS_BY_ORDER = tuple(k.name for k in KEYS)


class Config:
    """Every setting's value and where it came from; `untrusted`: the keys mem.toml sets
    that this machine has not trusted (they kept this machine's values); `problems`: what
    could not be read, each (key or None for the whole file, message, whether the value
    would have counted had it been valid)."""

    __slots__ = ("problems", "sources", "untrusted", "values", "warnings")

    def __init__(
        self,
        values: dict[str, Any],
        sources: dict[str, str] | None = None,
        warnings: tuple[str, ...] = (),
        untrusted: tuple[str, ...] = (),
        problems: tuple[tuple[str | None, str, bool], ...] = (),
    ) -> None:
        self.values, self.sources = values, {} if sources is None else sources
        self.warnings, self.untrusted, self.problems = warnings, untrusted, problems

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Config):
            return NotImplemented
        mine = (self.values, self.sources, self.warnings, self.untrusted, self.problems)
        theirs = (other.values, other.sources, other.warnings, other.untrusted, other.problems)
        return mine == theirs

    def require(self, *names: str, what: str = "consolidation") -> None:
        """Refuse (exit 6) when one of these settings holds a value that would have counted
        and could not be read: where text goes or what is hidden is never guessed (a bad
        value that would not have counted, an untrusted mem.toml's, leaves the trusted one)."""
        for name, message, counted in self.problems:
            if counted and name in names:
                raise ConfigError(f"{message}; {what} does not run on a setting it cannot read")

    def __repr__(self) -> str:
        return f"Config({self.values!r})"

    def __getitem__(self, name: str) -> Any:
        key(name)  # a typo in code fails loudly, with a suggestion
        return self.values[name]

    def rows(self) -> list[tuple[str, Any, str]]:
        return [(k.name, self.values[k.name], self.sources[k.name]) for k in KEYS]

    def override(self, flags: Mapping[str, Any]) -> Config:
        """These settings with command-line values on top (None means not given), checked
        like any other source."""
        values, sources = dict(self.values), dict(self.sources)
        for name, value in flags.items():
            if value is None:
                continue
            try:
                k = key(name)
            except ConfigError as exc:
                raise UsageError(exc.message) from None
            values[name] = _coerce(k, value, FLAG)
            sources[name] = "flag"
        return Config(values, sources, self.warnings, self.untrusted, self.problems)


def load_config(
    root: Path | None,
    env: Mapping[str, str],
    overrides: Mapping[str, Any] | None = None,
) -> Config:
    """Resolve every key: flag override > MEM_* variable > mem.toml > default. A value that
    cannot be read keeps the one below it (mem.toml's: this machine's last trusted value)."""
    values = {k.name: k.default for k in KEYS}
    sources = {k.name: "default" for k in KEYS}
    warnings: list[str] = []
    ignored: tuple[str, ...] = ()
    problems: list[tuple[str | None, str, bool]] = []
    if root is not None:
        ignored, problems = _from_file(root, env, values, sources, warnings)
    for k in KEYS:
        if k.env in env:
            try:
                values[k.name] = _coerce(k, env[k.env], k.env)
                sources[k.name] = f"env {k.env}"
            except ConfigError as exc:
                problems.append((k.name, exc.message, True))
    if problems:
        warnings.append(_problems_line(problems))
    config = Config(values, sources, tuple(warnings), ignored, tuple(problems))
    return config.override(overrides or {})


def _problems_line(problems: list[tuple[str | None, str, bool]]) -> str:
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return (
        f"not used: {problems[0][1]}{more}; this machine's last trusted settings (else the "
        "defaults) stand until it is fixed (`mem config` lists every problem)"
    )


def _from_file(
    root: Path, env: Mapping[str, str], values: dict, sources: dict, warnings: list[str]
) -> tuple[tuple[str, ...], list[tuple[str | None, str, bool]]]:
    """mem.toml's part of the settings, into values and sources: (the keys an untrusted
    version changes, which kept this machine's values; what could not be read)."""
    path = os.path.join(root, CONFIG_FILE)
    found, bad, readable = _file_settings(path)
    if not (found or bad):  # no file, or comments only (as `mem init` writes it)
        return (), []
    record = trusted_version(root, env)
    kept = _valid(record["values"]) if record else {}
    trusted = readable and record is not None and record["digest"] == _digest(path)
    ignored: tuple[str, ...] = ()
    if not trusted:
        # The allow-listed keys count from any readable version; every other key keeps this
        # machine's value, the one it trusted last (all of them, when the file is unreadable).
        mine = kept if readable else {}
        ignored = tuple(
            n
            for n in KEYS_BY_ORDER
            if n not in UNTRUSTED_OK
            and (n in found or n in mine)
            and found.get(n, _BY_NAME[n].default) != mine.get(n, _BY_NAME[n].default)
        )
        found = {n: v for n, v in found.items() if n not in ignored}
        unread = {n for n, _ in bad if n is not None}
        for n, v in kept.items():
            if not readable or n in unread or (n not in UNTRUSTED_OK and n not in found):
                values[n], sources[n] = v, f"{CONFIG_FILE} (as trusted)"
        if ignored:
            warnings.append(
                f"{CONFIG_FILE} changes {', '.join(ignored)}, which this machine has not "
                "trusted in this version of the file: they keep this machine's values; "
                "read it, then `mem trust`"
            )
    for name, value in found.items():
        values[name], sources[name] = value, CONFIG_FILE
    counts = (lambda n: trusted or n in UNTRUSTED_OK) if readable else (lambda n: False)
    return ignored, [(n, message, n is not None and counts(n)) for n, message in bad]


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
        "# openclaw-mem settings. Every key is listed at its default: to change one, uncomment",
        "# it and its [section] line (or add your own [section] block anywhere in this file).",
        "# A MEM_<SECTION>_<KEY> environment variable overrides this file;",
        "# `mem config` shows the effective values and where each came from.",
    ]
    section = None
    order = {sec: i for i, sec in reversed(list(enumerate(k.name.split(".")[0] for k in KEYS)))}
    for k in sorted(KEYS, key=lambda k: order[k.name.split(".")[0]]):  # stable: keys keep order
        sec, name = k.name.split(".", 1)
        if sec != section:
            # The header is commented too: a user who pastes an [llm] block of their own
            # must not collide with ours (TOML forbids a table declared twice).
            lines += ["", f"# [{sec}]"]
            section = sec
        lines.append(f"# {k.doc}")
        lines.append(f"# {name} = {_toml_value(k.default)}")
    return "\n".join(lines) + "\n"
