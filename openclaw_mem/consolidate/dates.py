"""Relative times made absolute against the day they were said: a memory line is read months
later, when "next month" no longer means anything. "打算下个月去京都旅行" said on 2025-06-03 is
kept as "打算2025-07去京都旅行"; "next week" as "in the week of 2025-06-09". Months are written
YYYY-MM and days YYYY-MM-DD, the same in every language, so grep finds them.
"""

from __future__ import annotations

import re
from datetime import date, timedelta


def _month(day: date, delta: int) -> str:
    n = day.year * 12 + day.month - 1 + delta
    return f"{n // 12:04d}-{n % 12 + 1:02d}"


def _week(day: date, delta: int) -> str:
    monday = day - timedelta(days=day.weekday()) + timedelta(weeks=delta)
    return monday.isoformat()


def _weekend(day: date, delta: int) -> str:
    saturday = day - timedelta(days=day.weekday()) + timedelta(days=5, weeks=delta)
    return saturday.isoformat()


# (pattern, (preposition, date)) — checked in this order.
_EN: tuple[tuple[str, object], ...] = (
    (r"next month", lambda d: ("in", _month(d, 1))),
    (r"last month", lambda d: ("in", _month(d, -1))),
    (r"this month", lambda d: ("in", _month(d, 0))),
    (r"next year", lambda d: ("in", str(d.year + 1))),
    (r"last year", lambda d: ("in", str(d.year - 1))),
    (r"this year", lambda d: ("in", str(d.year))),
    (r"next weekend", lambda d: ("on the weekend of", _weekend(d, 1))),
    (r"this weekend", lambda d: ("on the weekend of", _weekend(d, 0))),
    (r"next week", lambda d: ("in the week of", _week(d, 1))),
    (r"last week", lambda d: ("in the week of", _week(d, -1))),
    (r"this week", lambda d: ("in the week of", _week(d, 0))),
    (r"tomorrow", lambda d: ("on", (d + timedelta(days=1)).isoformat())),
    (r"yesterday", lambda d: ("on", (d - timedelta(days=1)).isoformat())),
    (r"today", lambda d: ("on", d.isoformat())),
)
_KEPT_PREPOSITIONS = ("since", "from", "until", "till", "by", "before", "after")
_ZH: tuple[tuple[str, object], ...] = (
    (r"下(?:个)?月", lambda d: _month(d, 1)),
    (r"上(?:个)?月", lambda d: _month(d, -1)),
    (r"(?:这个|本)月", lambda d: _month(d, 0)),
    (r"明年", lambda d: f"{d.year + 1}年"),
    (r"去年", lambda d: f"{d.year - 1}年"),
    (r"今年", lambda d: f"{d.year}年"),
    (r"下(?:个)?(?:周末|星期六|周六)", lambda d: f"{_weekend(d, 1)}周末"),
    (r"(?:这个?)?周末", lambda d: f"{_weekend(d, 0)}周末"),
    (r"下(?:个)?(?:周|星期|礼拜)", lambda d: f"{_week(d, 1)}那周"),
    (r"上(?:个)?(?:周|星期|礼拜)", lambda d: f"{_week(d, -1)}那周"),
    (r"明天", lambda d: (d + timedelta(days=1)).isoformat()),
    (r"后天", lambda d: (d + timedelta(days=2)).isoformat()),
    (r"昨天", lambda d: (d - timedelta(days=1)).isoformat()),
    (r"今天", lambda d: d.isoformat()),
)
_EN_RE = re.compile(
    r"\b(?:(?P<prep>on|in|since|from|until|till|by|before|after)\s+)?(?P<when>"
    + "|".join(p for p, _ in _EN)
    + r")\b",
    re.I,
)
_ZH_RE = re.compile("|".join(f"({p})" for p, _ in _ZH))


def resolve_relative(text: str, day: date) -> str:
    """The text with each relative time it holds replaced by the date it meant on `day`."""

    def en(m: re.Match[str]) -> str:
        said = m["when"].casefold()
        prep = (m["prep"] or "").casefold()
        for pattern, make in _EN:
            if re.fullmatch(pattern, said):
                usual, when = make(day)  # type: ignore[operator]
                if prep in _KEPT_PREPOSITIONS:
                    return f"{m['prep']} {when}"
                return f"{usual} {when}"
        return m[0]

    def zh(m: re.Match[str]) -> str:
        for (_, make), group in zip(_ZH, m.groups(), strict=True):
            if group:
                return make(day)  # type: ignore[operator]
        return m[0]

    try:
        return _ZH_RE.sub(zh, _EN_RE.sub(en, text))
    except (OverflowError, ValueError):  # a day at the edge of the calendar: leave it be
        return text
