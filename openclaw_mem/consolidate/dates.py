"""Relative times made absolute against the day they were said: a memory line is read months
later, when "next month" no longer means anything. "打算下个月去京都旅行" said on 2025-06-03 is
kept as "打算2025-07去京都旅行"; "next week" as "in the week of 2025-06-09"; "下周三" as the
Wednesday of next week, "2025-06-11". Months are written
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


def _weekday(day: date, weeks: int, weekday: int) -> str:
    """A named day of this week (weeks=0), the next (1) or the last (-1); weeks run Monday
    to Sunday, so 下周三 said on a Saturday is the Wednesday four days later."""
    monday = day - timedelta(days=day.weekday()) + timedelta(weeks=weeks)
    return (monday + timedelta(days=weekday)).isoformat()


_EN_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ZH_DAYS = "一二三四五六日"
_EN_WEEKS = {"next": 1, "this": 0, "last": -1}
_ZH_WEEKS = {"下": 1, "这": 0, "本": 0, "上": -1}


def _en_weekday(d: date, said: str) -> tuple[str, str]:
    which, name = said.split()
    return ("on", _weekday(d, _EN_WEEKS[which], _EN_DAYS.index(name)))


def _zh_weekday(d: date, said: str) -> str:
    weeks = _ZH_WEEKS[said[0]]
    name = said[-1]
    return _weekday(d, weeks, 6 if name in "日天" else _ZH_DAYS.index(name))


# (pattern, (preposition, date)) — checked in this order.
_EN: tuple[tuple[str, object], ...] = (
    (
        r"(?:next|this|last) (?:" + "|".join(_EN_DAYS) + ")",
        lambda d, said: _en_weekday(d, said),
    ),
    (r"next month", lambda d, said: ("in", _month(d, 1))),
    (r"last month", lambda d, said: ("in", _month(d, -1))),
    (r"this month", lambda d, said: ("in", _month(d, 0))),
    (r"next year", lambda d, said: ("in", str(d.year + 1))),
    (r"last year", lambda d, said: ("in", str(d.year - 1))),
    (r"this year", lambda d, said: ("in", str(d.year))),
    (r"next weekend", lambda d, said: ("on the weekend of", _weekend(d, 1))),
    (r"this weekend", lambda d, said: ("on the weekend of", _weekend(d, 0))),
    (r"next week", lambda d, said: ("in the week of", _week(d, 1))),
    (r"last week", lambda d, said: ("in the week of", _week(d, -1))),
    (r"this week", lambda d, said: ("in the week of", _week(d, 0))),
    (r"tomorrow", lambda d, said: ("on", (d + timedelta(days=1)).isoformat())),
    (r"yesterday", lambda d, said: ("on", (d - timedelta(days=1)).isoformat())),
    (r"today", lambda d, said: ("on", d.isoformat())),
)
_KEPT_PREPOSITIONS = ("since", "from", "until", "till", "by", "before", "after")
_ZH: tuple[tuple[str, object], ...] = (
    (
        # not 上周一直 / 下周一起 / 这周一定 (all week long, together, surely), 这周天天
        r"[下这本上]个?(?:周|星期|礼拜)(?:一(?![直起定样般切共些点下次趟遍会])|[二三四五六日]|天(?!天))",
        lambda d, said: _zh_weekday(d, said.replace("个", "")),
    ),
    (r"下(?:个)?月", lambda d, said: _month(d, 1)),
    (r"上(?:个)?月", lambda d, said: _month(d, -1)),
    (r"(?:这个|本)月", lambda d, said: _month(d, 0)),
    (r"明年", lambda d, said: f"{d.year + 1}年"),
    (r"去年", lambda d, said: f"{d.year - 1}年"),
    (r"今年", lambda d, said: f"{d.year}年"),
    (r"下(?:个)?(?:周末|星期六|周六)", lambda d, said: f"{_weekend(d, 1)}周末"),
    (r"(?:这个?)?周末", lambda d, said: f"{_weekend(d, 0)}周末"),
    (r"下(?:个)?(?:周|星期|礼拜)", lambda d, said: f"{_week(d, 1)}那周"),
    (r"上(?:个)?(?:周|星期|礼拜)", lambda d, said: f"{_week(d, -1)}那周"),
    (r"明天", lambda d, said: (d + timedelta(days=1)).isoformat()),
    (r"后天", lambda d, said: (d + timedelta(days=2)).isoformat()),
    (r"昨天", lambda d, said: (d - timedelta(days=1)).isoformat()),
    (r"今天", lambda d, said: d.isoformat()),
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
                usual, when = make(day, said)  # type: ignore[operator]
                if prep in _KEPT_PREPOSITIONS:
                    return f"{m['prep']} {when}"
                return f"{usual} {when}"
        return m[0]

    def zh(m: re.Match[str]) -> str:
        for (_, make), group in zip(_ZH, m.groups(), strict=True):
            if group:
                return make(day, group)  # type: ignore[operator]
        return m[0]

    try:
        return _ZH_RE.sub(zh, _EN_RE.sub(en, text))
    except (OverflowError, ValueError):  # a day at the edge of the calendar: leave it be
        return text
