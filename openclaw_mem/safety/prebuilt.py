"""What `mem log` would otherwise build again in every process, built once and kept in the
workspace's .mem/ (FILE): the engine code of the regular expressions the firewall and the
secret scan compile, and the standing-order scorer's phrase tables.

re's parser and compiler are pure Python: importing re and compiling the scorer's and the
firewall's patterns cost a `mem log` whose note holds an action word more than the rest of
the append. What re.compile makes of a source is a list of numbers that depends only on the
source, the flags and the interpreter's engine; it ends in `_sre.compile(source, flags,
code, …)`. This module keeps those numbers and hands them to the engine the next time,
without importing re. A table (a dict of phrases and word classes) is kept as marshal
keeps values.

A cache, never trusted blindly, and always rebuildable:
- the file is taken only when its header names this very interpreter and engine
  (sys.version, _sre.MAGIC) and its checksum holds; otherwise it is as if there were none;
- a pattern is found by its exact source and flags (a changed pattern is compiled anew),
  its code was checked against re.compile's when it was written, and the engine validates
  the code it is handed (an error compiles the source instead);
- a table is taken only when the source files it was built from have the length and the
  checksum of the ones this process runs.
Whatever the file lacks is compiled or built as without it, and the caller writes the file
anew (services/writing.py: atomically, only inside a real .mem/, never through a link):
this module reads and writes no file itself.
"""

from __future__ import annotations

import marshal  # loaded with the interpreter itself: free
import sys

from .. import text as _text
from ..text import Lazy as _Lazy

FILE = "prebuilt.bin"  # in .mem/
_MAGIC = b"openclaw-mem prebuilt 1\n"
_MAX_PATTERNS = 1024  # past this (custom secret patterns changed many times) start afresh

try:  # CPython's engine, code words of 4 bytes: the only one these numbers are known for
    import _sre

    _ENGINE: tuple | None = (
        (
            sys.implementation.name,
            sys.version,
            _sre.MAGIC,
            _sre.CODESIZE,
            sys.maxsize,
            sys.byteorder,
        )
        if sys.implementation.name == "cpython" and _sre.CODESIZE == 4
        else None
    )
except (ImportError, AttributeError):  # another interpreter: compile as usual
    _ENGINE = None

# From the file: (source, flags) -> (flags, code as bytes, groups, groupindex, indexgroup);
# table name -> (what the source files it was built from were, `_source`; the table).
_codes: dict[tuple[str, int], tuple] = {}
_tables: dict[str, tuple[bytes, object]] = {}
# Made in this process, for the file: what was compiled without it, tables built.
_new_patterns: set[tuple[str, int]] = set()
_new_tables: dict[str, tuple[bytes, object]] = {}
# How the file is read, handed in by the caller (`read_from`), called the first time
# something would be compiled or built: a note that needs nothing reads nothing.
_reader: list = []
# What the checksum is keyed with: the folder the file lives in, as this machine made it
# (`salt_of`). A file that arrived any other way (committed with `git add -f` and pulled, or
# copied from another workspace) does not check, so marshal never reads its body.
_salt: list[bytes] = [b""]


def salt_of(folder: str) -> bytes | None:
    """The key of the file kept in `folder` (.mem/): its device and inode and this user, which
    nobody who wrote the file elsewhere can know; None when it is no real folder."""
    import os
    import stat

    try:
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return f"{st.st_dev}.{st.st_ino}.{uid}".encode()


def read_from(read, salt: bytes = b"") -> None:
    """Take the file's bytes from `read()` (None: there is none) when first needed; `salt`:
    its folder's key (salt_of)."""
    _reader[:] = [read]
    _salt[0] = salt
    _text.compile_with(pattern)  # the patterns of every layer (text.Lazy) come from here too


def _take_file() -> None:
    try:
        read = _reader.pop()  # once: threads of a serving process may get here together
    except IndexError:
        return
    data = read()
    if data:
        load(data)


def pattern(source: str, flags: int = 0):
    """re.compile(source, flags), from the kept code when there is some."""
    _take_file()
    key = (source, int(flags))
    got = _codes.get(key)
    if got is not None:
        try:
            code = memoryview(got[1]).cast("I").tolist()
            return _sre.compile(source, got[0], code, got[2], got[3], got[4])
        except (RuntimeError, TypeError, ValueError, OverflowError):  # invalid SRE code
            del _codes[key]
    import re

    compiled = re.compile(source, flags)
    if _ENGINE is not None and len(_codes) + len(_new_patterns) < _MAX_PATTERNS:
        _new_patterns.add(key)
    return compiled


class Lazy(_Lazy):
    """text.Lazy, compiled through `pattern` (the firewall's patterns)."""

    __slots__ = ()

    def compiled(self):
        if self._compiled is None:
            self._compiled = pattern(self.source, self._flags)
        return self._compiled


def kept(*modules: str, lazy: tuple[int, ...] = ()):
    """A decorator: the tables `build()` returns, taken from the file when they were built
    from the source files of `modules` as they are now (by name: the module that holds `build` and
    every module whose constants or functions it reads), else built (and kept for the
    file). With `lazy`, `build` returns a tuple whose items at those places are dicts: from
    the file each comes as an `Unpacking` of it, a value unpacked when first asked for (a
    sentence asks for a few of hundreds). Call it once per process (inside gating.once): each call
    reads the modules' files."""

    def wrap(build):
        name = f"{build.__module__}.{build.__qualname__}"

        def get():
            _take_file()
            source = _source(modules)
            got = _tables.get(name)
            if source is not None and got is not None and got[0] == source:
                try:
                    return _unpack(got[1], lazy)
                except (EOFError, ValueError, TypeError, IndexError):
                    pass  # not what this code packs: built again
            value = build()
            if source is not None and _ENGINE is not None:
                try:
                    packed = _pack(value, lazy)
                except ValueError:  # a value marshal cannot hold: built every time
                    packed = None
                if packed is not None:
                    _new_tables[name] = (source, packed)
            return value

        get.__doc__, get.__name__ = build.__doc__, build.__name__
        return get

    return wrap


def _pack(value, lazy: tuple[int, ...]) -> bytes:
    """The tables as marshal keeps them; each item of `lazy` (a dict) as, for each key, the
    place of its value in a pool of marshalled values, or for a list the places of its
    elements (an element several keys share is marshalled once, and stays one object)."""
    if lazy:
        value = list(value)
        for item in lazy:
            at: dict[int, int] = {}  # id of an element -> its place in the pool
            pool: list[bytes] = []

            def place(element, at=at, pool=pool) -> int:
                if id(element) not in at:
                    at[id(element)] = len(pool)
                    pool.append(marshal.dumps(element))
                return at[id(element)]

            refs = {
                key: tuple(map(place, v)) if type(v) is list else place(v)
                for key, v in value[item].items()
            }
            value[item] = (refs, pool)
        value = tuple(value)
    return marshal.dumps(value)


def _unpack(data: bytes, lazy: tuple[int, ...]):
    value = marshal.loads(data)
    if lazy:
        if not isinstance(value, tuple) or not all(type(value[i]) is tuple for i in lazy):
            raise TypeError("not a packed table")
        value = list(value)
        for item in lazy:
            value[item] = Unpacking(*value[item])
        value = tuple(value)
    return value


class Unpacking:
    """A dict read from the file whose values are unpacked when first asked for (what
    `kept(..., lazy=…)` hands back): the scorer's phrase index is ~570 lists of ~230
    phrases, and unpacking all of it, or all its word classes, cost a process about what
    building them did."""

    __slots__ = ("_elements", "_got", "_pool", "_refs")

    def __init__(self, refs: dict, pool: list) -> None:
        self._refs, self._pool, self._got, self._elements = refs, pool, {}, {}

    def _element(self, i: int):
        elements = self._elements
        if i not in elements:
            elements[i] = marshal.loads(self._pool[i])
        return elements[i]

    def __getitem__(self, key):
        got = self._got
        if key not in got:
            at = self._refs[key]
            got[key] = self._element(at) if type(at) is int else [self._element(i) for i in at]
        return got[key]

    def get(self, key, default=None):
        return self[key] if key in self._refs else default

    def __contains__(self, key) -> bool:
        return key in self._refs

    def __iter__(self):
        return iter(self._refs)

    def __len__(self) -> int:
        return len(self._refs)

    def keys(self):
        return self._refs.keys()

    def values(self):
        return [self[k] for k in self._refs]

    def items(self):
        return [(k, self[k]) for k in self._refs]

    def __eq__(self, other: object) -> bool:
        return dict(self.items()) == (dict(other.items()) if hasattr(other, "items") else other)

    __hash__ = None  # type: ignore[assignment]  # like a dict's


def _source(modules: tuple[str, ...]) -> bytes | None:
    """What the modules' source files are: each one's length and `_checksum` of its bytes
    (kept in the file in place of the sources themselves, a third of its size); None when
    one is missing (run from bytecode alone: nothing to check a table against)."""
    out = []
    for name in modules:
        try:
            with open(sys.modules[name].__file__, "rb") as f:
                out.append(_checksum(f.read()))
        except (KeyError, AttributeError, TypeError, OSError):
            return None
    return b"".join(out)


def load(data: bytes, salt: bytes | None = None) -> bool:
    """Take what a file written by `dump` holds; False (nothing taken) when it is not
    one, is damaged, was written by another interpreter or engine, or for another folder
    (`salt`, else the one read_from was given)."""
    if _ENGINE is None or not data.startswith(_MAGIC) or len(data) < len(_MAGIC) + _CHECK:
        return False
    body, check = data[len(_MAGIC) : -_CHECK], data[-_CHECK:]
    if _checksum(body, _salt[0] if salt is None else salt) != check:
        return False
    try:
        engine, codes, tables = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return False
    if engine != _ENGINE or not isinstance(codes, dict) or not isinstance(tables, dict):
        return False
    _codes.update(codes)
    _tables.update(tables)
    return True


def changed() -> bool:
    """Whether this process compiled or built something the file should keep."""
    return bool(_new_patterns or _new_tables)


def dump(salt: bytes | None = None) -> bytes | None:
    """The file's bytes, keyed for its folder (`salt`, else read_from's): what was loaded
    and what was made here (None on an interpreter whose engine code is not kept)."""
    if _ENGINE is None:
        return None
    codes = dict(_codes) if len(_codes) + len(_new_patterns) <= _MAX_PATTERNS else {}
    for source, flags in sorted(_new_patterns):
        code = _code_of(source, flags)
        if code is not None:
            codes[(source, flags)] = code
    tables = {**_tables, **_new_tables}
    try:
        body = marshal.dumps((_ENGINE, codes, tables))
    except ValueError:  # a table marshal cannot hold: the patterns alone
        body = marshal.dumps((_ENGINE, codes, {}))
    return _MAGIC + body + _checksum(body, _salt[0] if salt is None else salt)


_CHECK = 16


def _checksum(body: bytes, salt: bytes = b"") -> bytes:
    """The body's length, and the salt and body read as one number modulo the prime
    2**61 - 1: what Python's hash of an int is, defined by the language, no module to import
    (zlib's would cost a `mem log` more than the check); any damage short of a multiple of
    the prime shows, and without the salt no one can make a body that checks."""
    folded = hash(int.from_bytes(salt + body, "little"))
    return len(body).to_bytes(8, "little") + folded.to_bytes(8, "little")


def saved() -> None:
    """What was made here is in the file now (or will never be): not written again."""
    _tables.update(_new_tables)
    _new_tables.clear()
    _new_patterns.clear()


def _code_of(source: str, flags: int) -> tuple | None:
    """What `pattern` hands the engine for this source: re.compile's own steps (re's
    private parser and code generator), kept only when the pattern they make is equal to
    re.compile's (same flags, same code, same source) with the same groups."""
    import array
    import re
    from re import _compiler, _parser

    try:
        parsed = _parser.parse(source, flags)
        code = _compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        args = (
            int(flags | parsed.state.flags),
            array.array("I", code).tobytes(),
            parsed.state.groups - 1,
            groupindex,
            tuple(indexgroup),
        )
        made = _sre.compile(source, args[0], [int(c) for c in code], *args[2:])
    except Exception:  # re's internals changed: this one is not kept
        return None
    reference = re.compile(source, flags)
    same = made == reference and dict(made.groupindex) == dict(reference.groupindex)
    if not same or made.groups != reference.groups or array.array("I").itemsize != 4:
        return None
    return args


def forget() -> None:
    """Drop everything loaded and made (for tests: a process as it starts)."""
    _codes.clear()
    _tables.clear()
    _new_patterns.clear()
    _new_tables.clear()
    _reader.clear()
    _salt[0] = b""
