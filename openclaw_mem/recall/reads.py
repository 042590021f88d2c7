"""One read request, `Read`: recall, context or get, as every front end asks it. The CLI,
the per-turn fast path, the resident process (over its socket, as JSON), MCP and the library
(`Memory.answer`) all pass this one type; `from_json` checks what another process sent.

Its times hold what the caller had: a datetime or date in this process, ISO text from the
command line or a socket; `moment` and `day` give them typed, read once, and `to_json`
writes them as text only at the socket.

A plain class that imports nothing: the per-turn client builds one before it knows whether
a resident will answer, and must stay at the interpreter's floor (no dataclasses, typing,
re or datetime).
"""

from __future__ import annotations

OPS = ("recall", "context", "get", "ping")

# Field -> the JSON types it may hold (None is always allowed but for `op` and `current`).
# A field named like a field of recall's options (recall/options.py) is handed to it as is.
_TEXT, _INT, _NUMBER, _FLAG = (str,), (int,), (int, float), (bool,)
_FIELDS = {
    "query": _TEXT,  # recall, context
    "spec": _TEXT,  # get: PATH, PATH:LINE, PATH:FROM:N, PATH#Lx-Ly
    "k": _INT,  # recall
    "min_score": _NUMBER,  # recall
    "budget": _INT,  # context
    "now": _TEXT,  # ISO time: "now" for decay and the recent conversation
    "since": _TEXT,  # ISO dates
    "until": _TEXT,
    "as_of": _TEXT,
    "path": _TEXT,  # recall: a glob
    "agent": _TEXT,  # who asks ("" or None: no agent)
    "role": _TEXT,  # recall: a role or speaker
    "include_forgotten": _FLAG,  # recall: what `mem forget` hid, shown
    "all_recent": _FLAG,  # context: every recent turn, not only those on the question
}
_TIMES = ("now", "since", "until", "as_of")  # a datetime, a date, or ISO text
# Fields one op alone reads; every other field (but `query`) shapes a recall, and a context
# read hands it to the recall it makes: a field added for recall reaches context unlisted.
_ONLY = {"spec": "get", "budget": "context", "all_recent": "context"}


def fields_of(op: str) -> tuple[str, ...]:
    """The fields a caller may give an op's request, `current` included: what the library's
    `Memory.recall` and `Memory.context` take as keywords."""
    if op == "get":
        return ("spec",)
    shared = tuple(n for n in _FIELDS if n not in _ONLY and n != "query")
    own = tuple(n for n, only in _ONLY.items() if only == op)
    return (*shared, "current", *own)


# A recall result as every front end shows it (OpenClaw's shape, plus what mem adds); the
# resident sends more (`date`, `deprecated`, `explain`) for --explain.
RESULT_KEYS = (
    "path",
    "startLine",
    "endLine",
    "score",
    "snippet",
    "source",
    "superseded",
    "supersededOn",
    "supersededBy",
    "subject",
)


def plain(hit: dict) -> dict:
    return {k: hit[k] for k in RESULT_KEYS if k in hit}


class Read:
    __slots__ = ("op", "current", *_FIELDS)

    def __init__(self, op: str, *, current: bool = False, **fields: object) -> None:
        if op not in OPS:
            raise ValueError(f"unknown request {op!r}")
        self.op = op
        self.current = bool(current)
        for name in _FIELDS:
            setattr(self, name, fields.pop(name, None))
        if fields:
            raise ValueError(f"unknown field {sorted(fields)[0]!r} in a {op} request")

    @classmethod
    def ask(cls, op: str, **fields: object) -> Read:
        """A request as a library caller gives it: only the fields `op` takes (fields_of),
        each of its type (a time may be a date or datetime too); TypeError names what is
        wrong, as Python names an unexpected keyword."""
        takes = ("query", *fields_of(op)) if op != "get" else fields_of(op)
        for name, value in fields.items():
            if name not in takes:
                raise TypeError(
                    f"a {op} takes no option {name!r} (it takes {', '.join(sorted(takes))})"
                )
            if value is None or (name in _TIMES and hasattr(value, "isoformat")):
                continue
            kinds = _FLAG if name == "current" else _FIELDS[name]
            if not isinstance(value, kinds) or (isinstance(value, bool) and kinds is not _FLAG):
                words = {_TEXT: "text", _INT: "an integer", _NUMBER: "a number", _FLAG: "a bool"}
                raise TypeError(f"{op} option {name} must be {words[kinds]}, not {value!r}")
        flags = {n: v or None for n, v in fields.items() if _FIELDS.get(n) is _FLAG}
        return cls(op, **{**fields, **flags})

    def but(self, op: str, **changes: object) -> Read:
        """This request as another op asks it, every field carried over but `changes`: the
        recall a context read makes, so a field added to `_FIELDS` reaches it unlisted."""
        fields = {name: getattr(self, name) for name in _FIELDS}
        fields.update(changes)
        return Read(op, current=self.current, **fields)

    def to_json(self) -> dict:
        """The request's fields, without `op` (the socket protocol carries it apart)."""
        out: dict = {name: getattr(self, name) for name in _FIELDS}
        out["current"] = self.current
        for name in _TIMES:
            value = out[name]
            if value is not None and not isinstance(value, str):
                out[name] = value.isoformat()
        return {k: v for k, v in out.items() if v is not None and v is not False}

    def replaced(self, **fields: object) -> Read:
        """The same request with some fields changed."""
        values = {name: getattr(self, name) for name in _FIELDS}
        values.update(fields)
        current = values.pop("current", self.current)
        return Read(self.op, current=bool(current), **values)

    def moment(self, name: str = "now"):
        """A time field as a naive local datetime (None when not given); an offset is read
        as local time, as the command line reads one. ValueError for text that is none."""
        value = getattr(self, name)
        if value is None or not isinstance(value, str):
            return value
        from datetime import datetime

        moment = datetime.fromisoformat(value)
        try:
            return moment.astimezone().replace(tzinfo=None) if moment.tzinfo else moment
        except OverflowError:  # year 9999 west of UTC: outside the calendar here
            raise ValueError(f"{value!r} falls outside the calendar in local time") from None

    def day(self, name: str):
        """A date field as a date (None when not given); ValueError for text that is none."""
        value = getattr(self, name)
        if value is None or not isinstance(value, str):
            return value
        from datetime import date

        return date.fromisoformat(value)

    @classmethod
    def from_json(cls, op: object, data: object) -> Read:
        """A request as another process sent it; ValueError saying what is wrong."""
        if not isinstance(op, str) or op not in OPS:
            raise ValueError(f"unknown request {op!r}")
        if not isinstance(data, dict):
            raise ValueError("a request's arguments are an object")
        for name, value in data.items():
            kinds = _FIELDS.get(name)
            if name == "current":
                if not isinstance(value, bool):
                    raise ValueError("current is true or false")
                continue
            if kinds is None:
                raise ValueError(f"unknown field {name!r} in a {op} request")
            if value is not None and (
                not isinstance(value, kinds) or (isinstance(value, bool) and kinds is not _FLAG)
            ):
                raise ValueError(f"{name} of a {op} request has the wrong type")
        return cls(op, **data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Read) and (self.op, self.to_json()) == (other.op, other.to_json())

    def __repr__(self) -> str:
        return f"Read({self.op!r}, {self.to_json()!r})"
