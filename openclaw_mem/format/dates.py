"""Times people write, as the days they mean: one grammar for English and Chinese.

Every time expression in a text is read against the day it was said: "last week" said on
2023-01-23 is 2023-01-16..22, "两周前" said on 2025-06-03 the week of 2025-05-19, "the
beginning of January 2023" the first half of that month, "the week before 9 June 2023"
the days before it back to the Monday of the week before. `spans` gives them all: for the
index, the days an entry speaks of; for a question, the days it asks about (read against
today). `question_time` also says whether a question asks for a time ("when", "how long",
"什么时候") and gives the question without its time words.

`resolve_relative` rewrites the relative times a memory line keeps (a line is read months
later, when "next month" no longer means anything): "打算下个月去京都旅行" said on
2025-06-03 is kept as "打算2025-07去京都旅行"; "next week" as "in the week of 2025-06-09";
"下周三" as "2025-06-11". Months are written YYYY-MM and days YYYY-MM-DD, the same in every
language, so grep finds them. It rewrites the forms it always has (next, last and this
week, month, year, weekend and named day; tomorrow, yesterday, today; their Chinese
forms); the others are read for their days and left as written.

Pure functions of their arguments: no clock, no I/O.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import date, timedelta

# ----------------------------------------------------------------- the calendar


def _month_span(year: int, month: int) -> tuple[date, date]:
    first = date(year, month, 1)
    nxt = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return first, nxt - timedelta(days=1)


def _shift_month(day: date, delta: int) -> tuple[int, int]:
    n = day.year * 12 + day.month - 1 + delta
    return n // 12, n % 12 + 1


def _monday(day: date, weeks: int = 0) -> date:
    return day - timedelta(days=day.weekday()) + timedelta(weeks=weeks)


def _week_span(day: date, weeks: int) -> tuple[date, date]:
    monday = _monday(day, weeks)
    return monday, monday + timedelta(days=6)


def _weekend_span(day: date, weeks: int) -> tuple[date, date]:
    saturday = _monday(day, weeks) + timedelta(days=5)
    return saturday, saturday + timedelta(days=1)


def _weekday(day: date, weeks: int, weekday: int) -> date:
    """A named day of this week (weeks=0), the next (1) or the last (-1); weeks run Monday
    to Sunday, so 下周三 said on a Saturday is the Wednesday four days later."""
    return _monday(day, weeks) + timedelta(days=weekday)


def _nearest_year(day: date, month: int, dom: int = 15) -> int:
    """The year that puts a month (and day) written without one nearest to `day`."""
    best, gap = day.year, None
    for year in (day.year, day.year - 1, day.year + 1):
        try:
            d = abs((date(year, month, min(dom, 28)) - day).days)
        except ValueError:
            continue
        if gap is None or d < gap:
            best, gap = year, d
    return best


def _season_span(year: int, start_month: int) -> tuple[date, date]:
    """Three months from `start_month` of `year` (winter runs into the next year)."""
    y, m = _shift_month(date(year, start_month, 1), 2)
    return date(year, start_month, 1), _month_span(y, m)[1]


def _season_near(day: date, start_month: int, which: int | None) -> tuple[date, date]:
    """The last (-1), this (0) or next (1) season of a kind, or with None the nearest."""
    seasons = [_season_span(y, start_month) for y in range(day.year - 2, day.year + 2)]
    if which == -1:
        return max((s for s in seasons if s[1] < day), key=lambda s: s[0])
    if which == 1:
        return min((s for s in seasons if s[0] > day), key=lambda s: s[0])
    for s in seasons:
        if s[0] <= day <= s[1]:
            return s
    if which == 0:  # "this summer" said in spring: the one coming
        return min((s for s in seasons if s[0] > day), key=lambda s: s[0])
    return min(seasons, key=lambda s: min(abs((s[0] - day).days), abs((s[1] - day).days)))


def _back(day: date, unit: str, lo: int, hi: int) -> tuple[date, date]:
    """From `hi` to `lo` units before `day` (negative counts: after it), in whole units:
    "two weeks ago" is the Monday-to-Sunday week two before this one."""
    if unit == "day":
        return day - timedelta(days=hi), day - timedelta(days=lo)
    if unit == "week":
        return _week_span(day, -hi)[0], _week_span(day, -lo)[1]
    if unit == "weekend":
        return _weekend_span(day, -hi)[0], _weekend_span(day, -lo)[1]
    if unit == "month":
        return _month_span(*_shift_month(day, -hi))[0], _month_span(*_shift_month(day, -lo))[1]
    return date(day.year - hi, 1, 1), date(day.year - lo, 12, 31)


_UNIT_DAYS = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}


def _duration(day: date, unit: str, n: int) -> tuple[date, date]:
    """The `n` units up to `day` ("for three years", "过去两周")."""
    return day - timedelta(days=_UNIT_DAYS[unit] * n), day


# ----------------------------------------------------------------- what is found


@dataclass(frozen=True)
class Said:
    """One time expression: where it is in the text, the days it means (inclusive), its
    unit, and how resolve_relative writes it (None: left as written)."""

    start: int
    end: int
    first: date
    last: date
    unit: str = "day"  # day, week, weekend, month, season, year, span
    rewrite: str | None = None


Found = tuple[date, date, str, str | None]  # first, last, unit, rewrite
Rule = Callable[[dict, "date | None"], "Found | None"]

_EN_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_EN_DAY_ABBR = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3}
_EN_DAY_ABBR |= {"fri": 4, "sat": 5, "sun": 6}
_MONTH_NAMES = (
    "january february march april may june july august september october november december"
).split()
_MONTHS = {name: i + 1 for i, name in enumerate(_MONTH_NAMES)}
_MONTHS |= {name[:3]: i + 1 for i, name in enumerate(_MONTH_NAMES)} | {"sept": 9}
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_WHICH = {"next": 1, "coming": 1, "this": 0, "last": -1, "past": -1, "previous": -1}
_NUMBERS = {"a": (1, 1), "an": (1, 1), "few": (2, 4), "a few": (2, 4), "several": (3, 6)}
_NUMBERS |= {"a couple of": (2, 3), "a couple": (2, 3), "couple of": (2, 3)}
_NUMBERS |= {
    w: (i, i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}
_KEPT_PREPOSITIONS = ("since", "from", "until", "till", "by", "before", "after")


def _count(word: str) -> tuple[int, int]:
    word = " ".join(word.lower().split())
    return (int(word), int(word)) if word.isdigit() else _NUMBERS[word]


def _en_usual(unit: str, first: date, prep: str | None) -> str:
    """How resolve_relative writes a relative time in English: "in 2025-07", "on 2025-06-04",
    "in the week of 2025-06-09"; a preposition that changes the meaning is kept."""
    when = {"month": first.isoformat()[:7], "year": str(first.year)}.get(unit, first.isoformat())
    if prep and prep.lower() in _KEPT_PREPOSITIONS:
        return f"{prep} {when}"
    usual = {"month": "in", "year": "in", "week": "in the week of", "weekend": "on the weekend of"}
    return f"{usual.get(unit, 'on')} {when}"


def _en_relative(g: dict, day: date | None) -> Found | None:
    """next/last/this week, month, year, weekend or named day; tomorrow, yesterday, today."""
    if day is None:
        return None
    prep, what = g["prep"], g["what"].lower()
    if g["which"] is None:
        first = day + timedelta(days={"tomorrow": 1, "yesterday": -1, "today": 0}[what])
        return first, first, "day", _en_usual("day", first, prep)
    k = _WHICH[g["which"].lower()]
    if what in _EN_DAYS:
        first = _weekday(day, k, _EN_DAYS.index(what))
        return first, first, "day", _en_usual("day", first, prep)
    if what == "month":
        first, last = _month_span(*_shift_month(day, k))
    elif what == "year":
        first, last = date(day.year + k, 1, 1), date(day.year + k, 12, 31)
    elif what == "week":
        first, last = _week_span(day, k)
    else:
        first, last = _weekend_span(day, k)
    kept = not (what == "weekend" and k == -1)  # not among the forms it always rewrote
    return first, last, what, _en_usual(what, first, prep) if kept else None


def _en_other(g: dict, day: date | None) -> Found | None:
    if day is None:
        return None
    said = " ".join(g["other"].lower().split())
    if said in ("tonight", "this morning", "this afternoon", "this evening"):
        return day, day, "day", None
    if said == "last night":
        return day - timedelta(days=1), day, "day", None
    if said.startswith("the day "):
        first = day + timedelta(days=2 if said.endswith("tomorrow") else -2)
        return first, first, "day", None
    if said == "the other day":
        return day - timedelta(days=7), day - timedelta(days=1), "week", None
    if said.endswith("weekend"):  # the one just past (this one, said on a weekend)
        first, last = _weekend_span(day, 0 if day.weekday() >= 5 else -1)
        return first, last, "weekend", None
    unit = said.rsplit(" ", 1)[1]  # the past week, this past month
    return (*_duration(day, unit, 1), "span", None)


def _en_day_abbr(g: dict, day: date | None) -> Found | None:
    if day is None:
        return None
    first = _weekday(day, _WHICH[g["which"].lower()], _EN_DAY_ABBR[g["abbr"].lower()])
    return first, first, "day", None


def _en_weekday(g: dict, day: date | None) -> Found | None:
    """ "on Friday": the one just past or the one coming; a log says both."""
    if day is None:
        return None
    wd = _EN_DAYS.index(g["wd"].lower())
    back, ahead = (day.weekday() - wd) % 7, (wd - day.weekday()) % 7
    return day - timedelta(days=back), day + timedelta(days=ahead), "day", None


def _en_counted(g: dict, day: date | None) -> Found | None:
    """ "two weeks ago", "in three days", "for 4 years", "5 years already"."""
    if day is None:
        return None
    lo, hi = _count(g["n"])
    unit = g["u"].lower()
    how = " ".join((g["dir"] or "").lower().split())
    pre = (g["pre"] or "").lower()
    if how in ("ago", "earlier", "back"):
        return (*_back(day, unit, lo, hi), unit, None)
    if how in ("later", "from now") or (not how and pre == "in"):
        return (*_back(day, unit, -hi, -lo), unit, None)
    if how in ("already", "now") or pre:
        return (*_duration(day, unit, hi), "span", None)
    return None


def _en_date(g: dict, day: date | None) -> Found | None:
    """9 June 2023, June 9th, June 9, 2023; without a year, the one nearest `day`."""
    month, dom = _MONTHS[g["m"].lower()], int(g["d"])
    if g["y"]:
        year = int(g["y"])
    elif day is not None:
        year = _nearest_year(day, month, dom)
    else:
        return None
    first = date(year, month, dom)
    return first, first, "day", None


def _en_month(g: dict, day: date | None) -> Found | None:
    """June 2023, June of 2023; a month alone ("in June") only with a capital and a word
    that times it, so "may" and a June who is a person stay words."""
    month = _MONTHS[g["m"].lower()]
    if g["y"]:
        return (*_month_span(int(g["y"]), month), "month", None)
    word = g["m"]
    if day is None or not g["cue"] or not word[0].isupper() or len(word) <= 3:
        return None
    return (*_month_span(_nearest_year(day, month), month), "month", None)


def _en_iso(g: dict, day: date | None) -> Found | None:
    year, month = int(g["y"]), int(g["mo"])
    if g["d"]:
        first = date(year, month, int(g["d"]))
        return first, first, "day", None
    return (*_month_span(year, month), "month", None)


def _en_season(g: dict, day: date | None) -> Found | None:
    start = _SEASONS[g["s"].lower()]
    if g["y"]:
        return (*_season_span(int(g["y"]), start), "season", None)
    if day is None or not (g["which"] or g["cue"]):  # "summer" alone may be a name
        return None
    which = _WHICH[g["which"].lower()] if g["which"] else None
    return (*_season_near(day, start, which), "season", None)


def _en_year(g: dict, day: date | None) -> Found | None:
    year = int(g["y"])
    return date(year, 1, 1), date(year, 12, 31), "year", None


_NUM = (
    r"(?P<n>\d{1,3}|a\s+few|a\s+couple(?:\s+of)?|couple\s+of|several|few|an?|one|two|three"
    r"|four|five|six|seven|eight|nine|ten|eleven|twelve)"
)
_MONTH = (
    r"(?P<m>january|february|march|april|may|june|july|august|september|october|november"
    r"|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
_YEAR = r"(?P<y>(?:19|20)\d\d)(?![\d:])"
_DOM = r"(?P<d>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?(?![\d:])"
_TIMING = r"in|on|of|since|during|from|until|till|by|around|through|throughout|before|after"
_DAYS_RE = "|".join(_EN_DAYS)
_UNITS = {"day", "days", "week", "weeks", "weekend", "weekends", "month", "months", "year"}
_UNITS |= {"years"}
_MONTH_WORDS = frozenset(_MONTHS) | {"sept"}


@functools.cache
def _re(source: str, flags: int = 0) -> re.Pattern:
    """A pattern compiled the first time it is used: compiling the grammar costs ~12 ms,
    which a recall (it reads every question) must not pay for rules its words never need."""
    return re.compile(source, flags)


@dataclass(frozen=True)
class _Rule:
    """A pattern that starts at a word it needs (a scan for a literal is fast), the words
    before it that it may take in (`left`; `must`: it means nothing without them), the
    words one of which a text must hold for it to be tried at all, and its reading."""

    source: str
    read: Rule
    needs: frozenset[str]
    left_source: str | None = None
    must: bool = False

    @property
    def core(self) -> re.Pattern:
        return _re(self.source)

    @property
    def left(self) -> re.Pattern | None:
        return _re(self.left_source + "$") if self.left_source else None


def _rule(core: str, read: Rule, needs, left: str | None = None, must: bool = False) -> _Rule:
    return _Rule(core, read, frozenset(needs), left, must)


# Matched on the lower-cased text; where two matches overlap, the longer wins.
_EN = (
    _rule(
        rf"\b(?=[nlty])(?:(?P<which>next|this|last)\s+(?P<what>{_DAYS_RE}|month|year|weekend"
        r"|week)|(?P<what2>tomorrow|yesterday|today))\b",
        _en_relative,
        {"tomorrow", "yesterday", "today", "week", "weekend", "month", "year", *_EN_DAYS},
        r"\b(?P<prep>on|in|since|from|until|till|by|before|after)\s+",
    ),
    _rule(
        r"\b(?=[tlo])(?P<other>tonight|last\s+night|this\s+(?:morning|afternoon|evening)"
        r"|the\s+day\s+(?:before\s+yesterday|after\s+tomorrow)|the\s+other\s+day"
        r"|(?:this\s+past|over\s+the)\s+weekend|(?:this|the)\s+past\s+(?:week|month|year))\b",
        _en_other,
        {"tonight", "night", "morning", "afternoon", "evening", "day", "weekend", "week"}
        | {"month", "year"},
    ),
    _rule(
        r"\b(?=[nlt])(?P<which>next|this|last)\s+(?P<abbr>mon|tues?|wed|thu(?:rs?)?|fri|sat"
        r"|sun)\b",
        _en_day_abbr,
        _EN_DAY_ABBR,
    ),
    _rule(
        r"\b(?=[dwmy])(?P<u>day|week|weekend|month|year)s?\b"
        r"(?:\s+(?P<dir>ago|earlier|back|later|from\s+now|already|now)\b)?",
        _en_counted,
        _UNITS,
        r"(?:\b(?P<pre>in|for|over|(?:for\s+|over\s+|in\s+)?the\s+(?:past|last))\s+)?"
        rf"(?:(?<=\s)|\b){_NUM}\s+",
        must=True,
    ),
    _rule(rf"\b(?=[mtwfs])(?P<wd>{_DAYS_RE})\b(?!s)", _en_weekday, _EN_DAYS, r"\bon\s+"),
    _rule(
        r"\b(?=[12])(?P<y>(?:19|20)\d\d)-(?P<mo>0?[1-9]|1[0-2])"
        r"(?:-(?P<d>[12]\d|3[01]|0?[1-9]))?\b",
        _en_iso,
        {"#year"},
    ),
    _rule(
        rf"\b(?=\d){_DOM}(?:\s+of)?\s+{_MONTH}(?:,?\s+{_YEAR})?\b",
        _en_date,
        _MONTH_WORDS,
    ),
    _rule(
        rf"\b(?=[jfmasond]){_MONTH}\s+{_DOM}(?:,?\s+{_YEAR})?\b",
        _en_date,
        _MONTH_WORDS,
    ),
    _rule(
        rf"\b(?=[jfmasond]){_MONTH}(?:,?\s+(?:of\s+)?{_YEAR})?\b"
        r"(?!\s+(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?\b)",
        _en_month,
        _MONTH_WORDS,
        rf"\b(?P<cue>{_TIMING}|early|late|mid|last|next|this)[\s-]+(?:the\s+)?"
        r"(?:month\s+of\s+)?",
    ),
    _rule(
        rf"\b(?=[swfa])(?P<s>spring|summer|fall|autumn|winter)(?:\s+(?:of\s+)?{_YEAR})?\b",
        _en_season,
        _SEASONS,
        r"\b(?:(?P<which>next|this|last|past|coming)\s+"
        r"|(?P<cue>in|during|over|for|through|throughout|early|late|mid)[\s-]+(?:the\s+)?)",
    ),
    _rule(
        rf"\b(?=[12]){_YEAR}",
        _en_year,
        {"#year"},
        rf"\b(?P<cue>{_TIMING}|early|late|mid|the\s+year|year)[\s-]+",
        must=True,
    ),
)

# ----------------------------------------------------------------- Chinese

_ZH_DIGITS = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "两": 2}


def _zh_number(text: str) -> tuple[int, int]:
    """一 to 九十九 in Chinese numerals or digits; 几 is a few, 半 a half (of a year: 6
    months, counted by the caller)."""
    if text.isdigit():
        return int(text), int(text)
    if text in ("几", "好几"):
        return 2, 4
    if "十" in text:
        tens, _, ones = text.partition("十")
        n = (_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[ones] if ones else 0)
        return n, n
    n = 0
    for c in text:  # 二〇二三
        n = n * 10 + _ZH_DIGITS[c]
    return n, n


_ZH_UNIT = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week"}
_ZH_UNIT |= {"月": "month", "年": "year"}
_ZH_WEEKS = {"下": 1, "这": 0, "本": 0, "上": -1}
_ZH_DAYS = "一二三四五六日"


def _zh_weekday(g: dict, day: date | None) -> Found | None:
    if day is None:
        return None
    said = g["zwd"].replace("个", "")
    name = said[-1]
    first = _weekday(day, _ZH_WEEKS[said[0]], 6 if name in "日天" else _ZH_DAYS.index(name))
    return first, first, "day", first.isoformat()


def _zh_relative(g: dict, day: date | None) -> Found | None:
    """下个月, 去年, 上周, 周末, 明天 and their kin."""
    if day is None:
        return None
    said = g["zrel"].replace("个", "")
    days = {"大前天": -3, "前天": -2, "昨天": -1, "昨晚": -1, "今天": 0, "今晚": 0, "今早": 0}
    days |= {"明天": 1, "明晚": 1, "后天": 2}
    if said in days:
        first = day + timedelta(days=days[said])
        kept = said in ("昨天", "今天", "明天", "后天")
        return first, first, "day", first.isoformat() if kept else None
    years = {"前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}
    if said in years:
        year = day.year + years[said]
        kept = said in ("去年", "今年", "明年")
        return date(year, 1, 1), date(year, 12, 31), "year", f"{year}年" if kept else None
    twice = said[:2] in ("上上", "下下")  # the one before last, the one after next
    if said.endswith("月"):  # 下月, 上月, 这月, 本月, 上上月
        first, last = _month_span(*_shift_month(day, _ZH_WEEKS[said[0]] * (1 + twice)))
        return first, last, "month", None if twice else first.isoformat()[:7]
    if said.endswith("周末") or said.endswith(("星期六", "周六")):
        k = _ZH_WEEKS.get(said[0], 0)
        first, last = _weekend_span(day, k)
        return first, last, "weekend", f"{first.isoformat()}周末" if k >= 0 else None
    k = _ZH_WEEKS[said[0]] * (1 + twice)  # 下周, 上周, 这周, 本周, 上上周
    first, last = _week_span(day, k)
    return first, last, "week", f"{first.isoformat()}那周" if k and not twice else None


def _zh_ago(g: dict, day: date | None) -> Found | None:
    if day is None:
        return None
    unit = _ZH_UNIT[g["zu"]]
    if g["zn"] == "半":
        lo = hi = 6 if unit == "year" else 0
        unit = "month" if unit == "year" else unit
        if hi == 0:
            return None
    else:
        lo, hi = _zh_number(g["zn"])
    if g["zdir"] in ("后", "以后", "之后"):
        lo, hi = -hi, -lo
    return (*_back(day, unit, lo, hi), unit, None)


def _zh_duration(g: dict, day: date | None) -> Found | None:
    if day is None:
        return None
    n = 6 if g["zn2"] == "半" else _zh_number(g["zn2"])[1]
    unit = _ZH_UNIT[g["zu2"]]
    if g["zn2"] == "半":
        unit = "month" if unit == "year" else "day"
    return (*_duration(day, unit, n), "span", None)


def _zh_date(g: dict, day: date | None) -> Found | None:
    """2023年1月5日, 2023年1月, 2023年, 1月5日, 一月 (without a year: nearest `day`)."""
    month = _zh_number(g["zm"])[0] if g["zm"] else None
    dom = _zh_number(g["zd"])[0] if g["zd"] else None
    if g["zy"]:
        year = _zh_number(g["zy"])[0]
    elif day is not None and month:
        year = _nearest_year(day, month, dom or 15)
    else:
        return None
    if month is None:
        return date(year, 1, 1), date(year, 12, 31), "year", None
    if dom is None:
        return (*_month_span(year, month), "month", None)
    first = date(year, month, dom)
    return first, first, "day", None


def _zh_season(g: dict, day: date | None) -> Found | None:
    start = {"春": 3, "夏": 6, "秋": 9, "冬": 12}[g["zs"]]
    if g["zsy"]:
        return (*_season_span(_zh_number(g["zsy"])[0], start), "season", None)
    if day is None:
        return None
    if g["zsr"]:
        year = day.year + {"前年": -2, "去年": -1, "今年": 0, "明年": 1}[g["zsr"]]
        return (*_season_span(year, start), "season", None)
    return (*_season_near(day, start, None), "season", None)


_ZN = r"\d{1,3}|[一二两三四五六七八九十]{1,3}|几|好几|半"
_ZH_DIGIT = "\\d〇零一二两三四五六七八九十"
# Each rule starts at a character it must begin with and is tried only on a text that
# holds one of the characters it needs (Chinese has no spaces to split words at).
_ZH = (
    _rule(
        # not 上周一直 / 下周一起 / 这周一定 (all week long, together, surely), 这周天天
        r"(?=[下这本上])(?P<zwd>[下这本上]个?(?:周|星期|礼拜)"
        r"(?:一(?![直起定样般切共些点下次趟遍会])|[二三四五六日]|天(?!天)))",
        _zh_weekday,
        "周期拜",
    ),
    _rule(
        r"(?=[大前昨今明后去上下这本周])(?P<zrel>大前天|前天|昨天|昨晚|今天|今晚|今早|明天"
        r"|明晚|后天|前年|去年|今年|明年|后年|(?:上上|下下|[下上])个?月|(?:这个|本)月"
        r"|[下上这]个?(?:周末|星期六|周六)|周末|(?:上上|下下|[下上这本])个?(?:周|星期|礼拜))",
        _zh_relative,
        "天晚早年月周期拜末",
    ),
    _rule(
        rf"(?=[{_ZH_DIGIT}几好半])(?P<zn>{_ZN})个?(?P<zu>天|周|星期|礼拜|月|年)"
        r"(?P<zdir>以前|之前|前|以后|之后|后)",
        _zh_ago,
        "前后",
    ),
    _rule(
        rf"(?=[过最近这])(?:过去|最近|近|这)的?(?P<zn2>{_ZN})个?(?P<zu2>天|周|星期|礼拜|月|年)",
        _zh_duration,
        "去近这",
    ),
    _rule(
        rf"(?=[{_ZH_DIGIT}])(?:(?:(?P<zy>\d{{4}}|[〇零一二三四五六七八九]{{4}})年)"
        r"(?:(?P<zm>1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])月份?"
        r"(?:(?P<zd>[12]\d|3[01]|0?[1-9]|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"
        r"[日号])?)?"
        r"|(?<![\d一二三四五六七八九十个几两])"
        r"(?P<zm2>1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])月份?"
        r"(?:(?P<zd2>[12]\d|3[01]|0?[1-9]|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"
        r"[日号])?)",
        _zh_date,
        "年月",
    ),
    _rule(
        r"(?=[春夏秋冬])(?P<zs>[春夏秋冬])(?:天|季)",
        _zh_season,
        "春夏秋冬",
        r"(?:(?P<zsr>前年|去年|今年|明年)|(?P<zsy>\d{4})年)的?",
    ),
)
_ZH_CHARS = frozenset().union(*(r.needs for r in _ZH))
_ZH_NEEDS = re.compile(f"[{''.join(sorted(_ZH_CHARS))}]")
_WORDS_RE = re.compile(r"[a-z]+|\d+")


_YEARS = frozenset(str(y) for y in range(1900, 2100))  # what the ISO and year rules need
_ANY_NEED = frozenset().union(*(rule.needs for rule in _EN))
_NEEDED = _ANY_NEED | _YEARS | _ZH_CHARS


def _rules_for(low: str, text: str, words: Collection[str] | None = None) -> list[_Rule]:
    """The rules worth trying on a text: those whose words it holds. `words`: its tokens,
    lower-cased, CJK characters single (what the index made of it), spare a second scan."""
    if words is None:
        words = set(_WORDS_RE.findall(low))
        if not text.isascii():
            words.update(_ZH_NEEDS.findall(text))
    # One pass over the tokens against every word any rule needs; most texts hold none.
    words = _NEEDED.intersection(words)
    if not words:
        return []
    found = _ANY_NEED.intersection(words)
    if not _YEARS.isdisjoint(words):
        found |= {"#year"}
    out = [rule for rule in _EN if not rule.needs.isdisjoint(found)] if found else []
    chars = _ZH_CHARS.intersection(words)
    if chars:
        out += [rule for rule in _ZH if not rule.needs.isdisjoint(chars)]
    return out


class _Groups(dict):
    """A match's groups; one the pattern does not have is None, as one that did not take
    part (a rule's words before its start are optional)."""

    def __missing__(self, key: str) -> None:
        return None


def _groups(m: re.Match, text: str) -> _Groups:
    """A match's groups as the text wrote them (it was matched lower-cased)."""
    return _Groups(
        {k: None if m.start(k) < 0 else text[m.start(k) : m.end(k)] for k in m.groupdict()}
    )


def _lower(text: str) -> str:
    """The text lower-cased, character for character (offsets stay those of `text`)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


# Words before an expression that narrow it or move it: "the beginning of", "early",
# "the week before", "since"; Chinese ones come after it: 初, 底, 上旬.
_EN_PART = (
    r"(?:\b(?:at|in|by|around)\s+)?(?:\bthe\s+)?(?:very\s+)?\b(?P<part>beginning|start|end"
    r"|middle|early|late|mid)(?:\s+(?:of|in)\s+(?:the\s+)?|\s*-\s*|\s+)$"
)
_EN_SHIFT = (
    rf"\b(?:the\s+)?(?:{_NUM}\s+)?(?P<u>day|week|weekend|month|year|{_DAYS_RE})s?"
    r"\s+(?P<dir>before|after|prior\s+to)\s+$"
)
_EN_SINCE = r"\bsince\s+$"
_ZH_PART = r"份?(?P<zpart>年初|年底|年末|年中|月初|月底|月末|上旬|中旬|下旬|初|底|末)"
# "the last week of October", "the first weekend in May"; 十月最后一周, 五月的第二个周末
_EN_NTH = (
    r"\b(?:the\s+)?(?P<nth>first|second|third|fourth|last|final)\s+(?P<nu>week|weekend)"
    r"\s+(?:(?:of|in)\s+(?:the\s+)?(?:month\s+of\s+)?)?$"
)
_ZH_NTH = r"份?的?(?:第(?P<znth>[一二三四1-4])|(?P<zlast>最后))一?个?(?P<znu>周末|周|星期|礼拜)"
_NTH = {"first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1, "final": -1}
_NTH |= {"一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4}


def _nth_week(first: date, last: date, nth: int, unit: str) -> tuple[date, date]:
    """The nth (-1: the last) week or weekend of a month: a week is seven of its days
    counted from its first (or back from its last), a weekend the nth Saturday and the
    Sunday after it."""
    if unit == "weekend":
        saturdays = [first + timedelta(days=i) for i in range((last - first).days + 1)]
        saturdays = [d for d in saturdays if d.weekday() == 5]
        if not saturdays:
            return first, last
        sat = saturdays[-1] if nth < 0 else saturdays[min(nth, len(saturdays)) - 1]
        return sat, sat + timedelta(days=1)
    if nth < 0:
        return last - timedelta(days=6), last
    lo = first + timedelta(days=7 * (nth - 1))
    return lo, min(lo + timedelta(days=6), last)


def _narrow(first: date, last: date, part: str) -> tuple[date, date]:
    """The beginning, middle or end of a span: its first half, middle half or second half
    (wide, because people say "early January" of the 16th too); 上旬, 中旬, 下旬 are the
    tens of days of a month."""
    n = (last - first).days + 1
    if n < 4:
        return first, last
    if part in ("上旬", "中旬", "下旬"):
        lo = {"上旬": 0, "中旬": 10, "下旬": 20}[part]
        hi = {"上旬": 9, "中旬": 19, "下旬": n - 1}[part]
        return first + timedelta(days=lo), first + timedelta(days=min(hi, n - 1))
    if part in ("beginning", "start", "early", "初", "年初", "月初"):
        return first, first + timedelta(days=n // 2)
    if part in ("end", "late", "底", "末", "年底", "年末", "月底", "月末"):
        return first + timedelta(days=n // 2), last
    return first + timedelta(days=n // 4), first + timedelta(days=(3 * n) // 4)


def _shift(first: date, last: date, g: dict) -> tuple[date, date]:
    """ "the week before 9 June 2023" (the seven days before it, back to the Monday of the
    week before), "two weekends before …", "the Friday before …", "the day after …"."""
    lo, hi = _count(g["n"]) if g["n"] else (1, 1)
    unit = g["u"]
    after = g["dir"] == "after"
    if unit in _EN_DAYS:
        wd = _EN_DAYS.index(unit)
        if after:
            return (last + timedelta(days=(wd - last.weekday() - 1) % 7 + 1),) * 2
        return (first - timedelta(days=(first.weekday() - wd - 1) % 7 + 1),) * 2
    if after:
        if unit == "day":
            return last + timedelta(days=lo), last + timedelta(days=hi)
        start = last + timedelta(days=1)
        return start, start + timedelta(days=_UNIT_DAYS[unit] * hi - 1)
    if unit == "day":
        return first - timedelta(days=hi), first - timedelta(days=lo)
    if unit == "weekend":  # the last Saturday and Sunday before the anchor, or `n` before
        sunday = first - timedelta(days=(first.weekday() - 6) % 7 or 7)
        return sunday - timedelta(days=7 * (hi - 1) + 1), sunday - timedelta(days=7 * (lo - 1))
    if unit == "week":
        return _week_span(first, -hi)[0], first - timedelta(days=1 + 7 * (lo - 1))
    return first - timedelta(days=_UNIT_DAYS[unit] * hi), first - timedelta(days=1)


def spans(text: str, day: date | None, words: Collection[str] | None = None) -> list[Said]:
    """Every time expression in `text`, read against `day` (the day it was said; None for
    undated text, where only absolute dates mean something), in text order. `words`: the
    text's tokens if they are at hand (search/tokenize.py's, unstemmed), to skip a scan."""
    if not text:
        return []
    if words is not None:  # most texts name no time: decided from the tokens alone
        rules = _rules_for("", text, words)
        if not rules:
            return []
        low = _lower(text)
    else:
        low = _lower(text)
        rules = _rules_for(low, text, words)
    found: list[tuple[int, int, dict, _Rule]] = []
    for rule in rules:
        for m in rule.core.finditer(low):
            start, g = m.start(), _groups(m, text)
            if rule.left is not None:
                before = rule.left.search(low, max(0, start - 40), start)
                if before is not None:
                    g |= {k: v for k, v in _groups(before, text).items() if v is not None}
                    start = before.start()
                elif rule.must:
                    continue
            found.append((start, m.end(), g, rule))
    if not found:
        return []
    found.sort(key=lambda f: (f[0], f[0] - f[1]))
    out: list[Said] = []
    end = -1
    for start, stop, g, rule in found:
        if start < end:
            continue
        for key in [k for k in g if k.endswith("2")]:
            if g[key] is not None:
                g[key[:-1]] = g[key]
        g = _Groups(g)
        try:
            got = rule.read(g, day)
        except (ValueError, OverflowError, KeyError):  # 31 February, the calendar's edge
            got = None
        if got is None:
            continue
        first, last, unit, rewrite = got
        cue = (g["cue"] or g["prep"] or "").lower()
        if cue in ("early", "late", "mid"):  # "early June", "mid-2023"
            first, last = _narrow(first, last, cue)
        elif cue == "since" and day is not None and first <= day:
            last = max(last, day)
        if g.get("prep") and rewrite is not None:
            rewrite = _en_usual(unit, first, g["prep"])
        start, stop, first, last, rewrite = _context(
            text, low, start, stop, first, last, day, rewrite, rule in _ZH
        )
        while out and start < out[-1].end:  # "the Friday before 15 July": one expression
            out.pop()
        out.append(Said(start, stop, first, last, unit, rewrite))
        end = stop
    return out


def _context(text, low, start, stop, first, last, day, rewrite, chinese):
    """An expression with the words around it that narrow or move it: after a Chinese one
    (初, 上旬), before an English one ("the beginning of", "the week before", "since").
    What they say is kept as written around the rewritten part ("early in 2025-07")."""
    try:
        if chinese:
            m = _re(_ZH_NTH).match(low, stop)
            if m and (last - first).days >= 27:  # a month's nth week
                nth = _NTH[m["znth"]] if m["znth"] else -1
                first, last = _nth_week(
                    first, last, nth, "weekend" if m["znu"] == "周末" else "week"
                )
                return start, m.end(), first, last, None
            m = _re(_ZH_PART).match(low, stop)
            if m:
                first, last = _narrow(first, last, m["zpart"])
                stop, rewrite = m.end(), rewrite and rewrite + text[m.start() : m.end()]
            return start, stop, first, last, rewrite
        m = _re(_EN_NTH).search(low, max(0, start - 40), start)
        if m and (last - first).days >= 27:  # a month's nth week ("the last week of May")
            first, last = _nth_week(first, last, _NTH[m["nth"]], m["nu"])
            return m.start(), stop, first, last, None
        m = _re(_EN_PART).search(low, max(0, start - 40), start)
        if m:
            first, last = _narrow(first, last, m["part"])
            rewrite = rewrite and text[m.start() : start] + rewrite
            start = m.start()
        m = _re(_EN_SHIFT).search(low, max(0, start - 40), start)
        if m:
            first, last = _shift(first, last, m.groupdict())
            rewrite = rewrite and text[m.start() : start] + rewrite
            start = m.start()
        elif (
            day is not None
            and first <= day
            and _re(_EN_SINCE).search(low, max(0, start - 10), start)
        ):
            last = max(last, day)
    except (ValueError, OverflowError, KeyError):
        pass
    return start, stop, first, last, rewrite


# ----------------------------------------------------------------- questions

_ASKS_EN = (
    r"^\W*when\b|\bwhen\s+(?:did|do|does|was|were|is|are|will|would|has|have|had)\b"
    r"|\bhow\s+long\b|\bsince\s+when\b|\bhow\s+many\s+(?:days|weeks|months|years)\b"
    r"|\b(?:what|which)\s+(?:year|month|day|date|time|week|weekend)\b"
)
_ASKS_ZH = r"什么时候|何时|哪天|哪一天|几号|几月|哪年|哪一年|多久|多长时间|哪个月|星期几|周几|几点"


@dataclass(frozen=True)
class QuestionTime:
    """What a question says about time: the days it names (each inclusive), whether it
    asks for a time, and its words without the time expressions."""

    spans: tuple[tuple[date, date], ...]
    asks: bool
    rest: str


def question_time(question: str, today: date) -> QuestionTime:
    """The days a question names, read against `today` ("last summer", "in the beginning of
    January 2023", "去年夏天", "上周"), whether it asks when, and the question without them."""
    found = spans(question, today)
    rest = question
    for s in reversed(found):
        rest = rest[: s.start] + " " + rest[s.end :]
    asks = bool(_re(_ASKS_EN, re.I).search(question) or _re(_ASKS_ZH).search(question))
    return QuestionTime(tuple((s.first, s.last) for s in found), asks, rest)


# ----------------------------------------------------------------- rewriting


def resolve_relative(text: str, day: date) -> str:
    """The text with each relative time it always rewrote replaced by the date it meant on
    `day`; anything else as written."""
    try:
        found = [s for s in spans(text, day) if s.rewrite is not None]
    except (ValueError, OverflowError):  # a day at the edge of the calendar: leave it be
        return text
    for s in reversed(found):
        rewrite = s.rewrite
        first = not text[: s.start].strip(" \"'“‘")
        # The time as the subject ("Today was my first day", "Last week was hectic") is
        # the day itself, with no preposition: "2026-10-19 was my first day".
        if first and _SUBJECT_AFTER_RE.match(text, s.end):
            rewrite = _LEADING_PREP_RE.sub("", rewrite, count=1)
        if first and text[s.start : s.start + 1].isupper():  # "Yesterday I…": "On 2026-…"
            rewrite = rewrite[:1].upper() + rewrite[1:]
        text = text[: s.start] + rewrite + text[s.end :]
    return text


_SUBJECT_AFTER_RE = re.compile(r"\s+(?:was|is|will\s+be|has\s+been|had\s+been)\b", re.I)
_LEADING_PREP_RE = re.compile(r"^(?:on|in)\s+")
