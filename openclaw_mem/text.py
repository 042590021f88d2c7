"""Plain-text helpers every layer shares: which characters are CJK, how many LLM tokens a
text is about, counted nouns that read right ("1 entry", "2 entries"), and memory text made
safe to print on a terminal (`visible`).

The per-turn client prints through `visible` without importing anything else, so this
module imports `re` only when a CJK pattern is first used. May import nothing from the
package.
"""

from __future__ import annotations

# Han (BMP and supplementary), kana, Hangul: scripts written without spaces between words.
CJK = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\uf900-\ufaff\U00020000-\U0003134f"
)


# re's flags as plain numbers (re.I, re.M, re.S, re.X, re.A): naming them imports re.
IGNORECASE, MULTILINE, DOTALL, VERBOSE, ASCII = 2, 8, 16, 64, 256


# How a pattern is compiled: re.compile, unless a process that keeps what it compiles
# (safety/prebuilt.py, for mem log and an in-process recall) handed its own in.
_compilers: list = []


def compile_with(compile_pattern) -> None:
    """Compile every pattern from now on with `compile_pattern(source, flags)` (same
    result as re.compile; safety/prebuilt.py takes engine code it kept instead)."""
    _compilers[:] = [compile_pattern]


def compiled(source: str, flags: int = 0):
    """re.compile(source, flags), by the compiler handed in when there is one."""
    if _compilers:
        return _compilers[0](source, flags)
    import re

    return re.compile(source, flags)


class Lazy:
    """A regular expression compiled where it is first used, not where it is written:
    importing `re` and compiling costs more than `mem log`'s whole append, and most runs
    use few of a module's patterns. Used like the compiled pattern (`.match`, `.sub`, …)."""

    __slots__ = ("_compiled", "_flags", "source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source, self._flags, self._compiled = source, flags, None

    def compiled(self):
        if self._compiled is None:
            self._compiled = compiled(self.source, self._flags)
        return self._compiled

    def __getattr__(self, name: str):
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"Lazy({self.source!r}, {self._flags})"


CJK_RE = Lazy(f"[{CJK}]")


# What a terminal acts on instead of showing: the C0 controls (ESC starts every escape
# sequence: a clipboard write `ESC ] 52`, a screen clear `ESC [ 2 J`, an OSC 8 link; CR and
# BS overwrite what was shown), DEL, and the C1 controls (U+009B is a one-character CSI).
# Memory text is anyone's, so what mem prints shows them as `\x1b`, never as they are.
_CONTROLS = (*range(0x20), 0x7F, *range(0x80, 0xA0))
# The bidirectional controls reorder what follows them on screen (U+202E shows "txt.exe" as
# "exe.txt"): a line reads as something other than it holds. RTL text needs none of them.
BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_SHOWN = {c: f"\\x{c:02x}" for c in _CONTROLS} | {c: f"\\u{c:04x}" for c in BIDI}
_SHOWN_KEEPING_LINES = {c: v for c, v in _SHOWN.items() if c not in (0x09, 0x0A)}
# JSON escapes C0 itself; DEL, C1 and the bidi controls it leaves as they are.
_JSON_SHOWN = {c: f"\\u{c:04x}" for c in (0x7F, *range(0x80, 0xA0), *BIDI)}
# What a curated file never holds: the same characters, removed (tabs and newlines stay).
_DROPPED = dict.fromkeys(c for c in _SHOWN_KEEPING_LINES if c != 0x0D)


def visible(text: str, *, lines: bool = True) -> str:
    """`text` with every control character written out (`\x1b`, `\x9b`, `\x0d`), so a
    terminal shows it instead of acting on it. Tabs and newlines stay when `lines` (the
    format keeps them); without, they are written out too."""
    return text.translate(_SHOWN_KEEPING_LINES if lines else _SHOWN)


def without_controls(text: str) -> str:
    """`text` without control or bidi characters (tabs, newlines and CR kept): what a model
    or a log hands consolidation is written into a curated file as its words alone."""
    return text.translate(_DROPPED)


def visible_json(text: str) -> str:
    """JSON text (json.dumps with ensure_ascii=False) with DEL and the C1 controls written
    as \\u escapes too: the same data to a parser, nothing a terminal acts on."""
    return text.translate(_JSON_SHOWN)


def cjk_share(text: str) -> float:
    """The share of a text's letters that are CJK: 0 for English, 1 for Chinese, between
    for a mix (0 without letters)."""
    letters = sum(c.isalpha() for c in text)
    cjk = sum(c.isalpha() for c in CJK_RE.findall(text))  # "・", "゛" are no letters
    return cjk / letters if letters else 0.0


def estimate_tokens(text: str) -> int:
    """LLM tokens, roughly: a CJK character is about one token, other text about four
    characters a token. Good enough to size chunks, prompts and budgets."""
    if text.isascii():  # most lines of most files: no pattern to run
        return (len(text) + 3) // 4
    cjk = len(CJK_RE.compiled().findall(text))
    return cjk + (len(text) - cjk + 3) // 4


_IRREGULAR = {"entry": "entries", "batch": "batches", "day file": "day files"}


def article(noun: str) -> str:
    """'an openai key', 'a github token': by the first letter, enough for the names we print."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def plural(n: int, noun: str) -> str:
    """`1 entry`, `3 entries`, `0 lines`."""
    if n == 1:
        return f"{n} {noun}"
    if noun in _IRREGULAR:
        return f"{n} {_IRREGULAR[noun]}"
    if noun.endswith(("s", "x", "ch", "sh")):
        return f"{n} {noun}es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return f"{n} {noun[:-1]}ies"
    return f"{n} {noun}s"


def camel_keys(data):
    """JSON for people and programs in one key style, OpenClaw's camelCase (`startLine`):
    every snake_case key of nested dicts (`dry_run`, `already_there`) becomes camelCase.
    Keys that are data, not names (`recall.mmr_threshold`, a path, a date), are left alone:
    only keys of lower-case words joined by `_` change."""
    if isinstance(data, dict):
        return {_camel(k) if isinstance(k, str) else k: camel_keys(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [camel_keys(v) for v in data]
    return data


def _camel(key: str) -> str:
    parts = key.split("_")
    if len(parts) < 2 or not all(p and p.isascii() and p.isalnum() and p.islower() for p in parts):
        return key
    return parts[0] + "".join(p.title() for p in parts[1:])


def __getattr__(name: str):
    """`blake2b` and `sha1` (`from ..text import sha1`) without `import hashlib`, which loads
    OpenSSL (~2.5 ms) where a recall only hashes words, shingles and chunk keys. CPython's
    own modules give the same digests (hashlib takes blake2b from the same one); taken when
    first named, so `mem log` loads neither."""
    if name not in ("blake2b", "sha1"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        value = getattr(__import__("_blake2" if name == "blake2b" else "_sha1"), name)
    except (ImportError, AttributeError):  # a build without them: hashlib's
        import hashlib

        value = getattr(hashlib, name)
    globals()[name] = value
    return value
