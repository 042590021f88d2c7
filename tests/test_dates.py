"""The time grammar (format/dates.py): what days a text's time expressions mean, read
against the day they were said, in English and Chinese; what a question asks about time."""

from __future__ import annotations

from datetime import date

import pytest

from openclaw_mem.format.dates import question_time, resolve_relative, spans

D = date


def days(text: str, said: date | None) -> list[tuple[str, date, date]]:
    return [(text[s.start : s.end], s.first, s.last) for s in spans(text, said)]


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # relative to the day it was said (2023-01-23 is a Monday)
        (
            "I finished a project last week",
            D(2023, 1, 23),
            [("last week", D(2023, 1, 16), D(2023, 1, 22))],
        ),
        ("got mentored yesterday", D(2023, 6, 16), [("yesterday", D(2023, 6, 15), D(2023, 6, 15))]),
        ("we move next month", D(2023, 12, 5), [("next month", D(2024, 1, 1), D(2024, 1, 31))]),
        (
            "we had a blast last year",
            D(2023, 8, 17),
            [("last year", D(2022, 1, 1), D(2022, 12, 31))],
        ),
        (
            "camping two weekends ago",
            D(2023, 7, 17),
            [("two weekends ago", D(2023, 7, 8), D(2023, 7, 9))],
        ),
        ("a few days ago", D(2023, 6, 9), [("a few days ago", D(2023, 6, 5), D(2023, 6, 7))]),
        ("3 months ago", D(2023, 6, 9), [("3 months ago", D(2023, 3, 1), D(2023, 3, 31))]),
        ("in two weeks", D(2023, 6, 9), [("in two weeks", D(2023, 6, 19), D(2023, 6, 25))]),
        (
            "married 5 years already!",
            D(2023, 6, 9),
            [("5 years already", D(2018, 6, 10), D(2023, 6, 9))],
        ),
        ("a reading last Fri", D(2023, 10, 13), [("last Fri", D(2023, 10, 6), D(2023, 10, 6))]),
        (
            "this past weekend",
            D(2023, 10, 13),
            [("this past weekend", D(2023, 10, 7), D(2023, 10, 8))],
        ),
        ("last summer", D(2023, 7, 1), [("last summer", D(2022, 6, 1), D(2022, 8, 31))]),
        (
            "since last month",
            D(2023, 10, 13),
            [("since last month", D(2023, 9, 1), D(2023, 10, 13))],
        ),
        # absolute, with or without the year
        ("in July 2023", None, [("in July 2023", D(2023, 7, 1), D(2023, 7, 31))]),
        ("on May 23, 2023", None, [("May 23, 2023", D(2023, 5, 23), D(2023, 5, 23))]),
        ("on 1 February, 2023", None, [("1 February, 2023", D(2023, 2, 1), D(2023, 2, 1))]),
        ("the 9th of June", D(2023, 7, 1), [("9th of June", D(2023, 6, 9), D(2023, 6, 9))]),
        ("back in 2016", None, [("in 2016", D(2016, 1, 1), D(2016, 12, 31))]),
        ("deadline 2026-11-30", None, [("2026-11-30", D(2026, 11, 30), D(2026, 11, 30))]),
        ("summer 2022", None, [("summer 2022", D(2022, 6, 1), D(2022, 8, 31))]),
        # narrowed and moved by the words around
        (
            "in the beginning of January 2023",
            None,
            [("in the beginning of January 2023", D(2023, 1, 1), D(2023, 1, 16))],
        ),
        ("early 2023", None, [("early 2023", D(2023, 1, 1), D(2023, 7, 2))]),
        (
            "the week before 9 June 2023",
            None,
            [("the week before 9 June 2023", D(2023, 5, 29), D(2023, 6, 8))],
        ),
        (
            "The Friday before 15 July 2023",
            None,
            [("The Friday before 15 July 2023", D(2023, 7, 14), D(2023, 7, 14))],
        ),
        (
            "the weekend before 17 July 2023",
            None,
            [("the weekend before 17 July 2023", D(2023, 7, 15), D(2023, 7, 16))],
        ),
    ],
)
def test_english_times_are_the_days_they_meant(text, said, expected):
    assert days(text, said) == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        # a month's nth week is not "last week" said today plus the whole month
        (
            "What did she do in the last week of October 2023?",
            D(2023, 12, 1),
            [("the last week of October 2023", D(2023, 10, 25), D(2023, 10, 31))],
        ),
        (
            "in the second weekend in June 2023",
            None,
            [("the second weekend in June 2023", D(2023, 6, 10), D(2023, 6, 11))],
        ),
        (
            "during the first week of July",
            D(2023, 12, 1),
            [("the first week of July", D(2023, 7, 1), D(2023, 7, 7))],
        ),
        (
            "the last weekend of July",
            D(2023, 12, 1),
            [("the last weekend of July", D(2023, 7, 29), D(2023, 7, 30))],
        ),
    ],
)
def test_a_months_nth_week_is_seven_of_its_days(text, said, expected):
    assert days(text, said) == expected


@pytest.mark.parametrize(
    "text, said, expected",
    [
        ("上周去了杭州", D(2023, 6, 3), [("上周", D(2023, 5, 22), D(2023, 5, 28))]),
        ("去年夏天", D(2023, 6, 3), [("去年夏天", D(2022, 6, 1), D(2022, 8, 31))]),
        ("三天前", D(2023, 6, 3), [("三天前", D(2023, 5, 31), D(2023, 5, 31))]),
        ("两个月前", D(2023, 6, 3), [("两个月前", D(2023, 4, 1), D(2023, 4, 30))]),
        ("下个月初", D(2023, 6, 3), [("下个月初", D(2023, 7, 1), D(2023, 7, 16))]),
        ("2023年1月初", None, [("2023年1月初", D(2023, 1, 1), D(2023, 1, 16))]),
        ("2023年5月23日", None, [("2023年5月23日", D(2023, 5, 23), D(2023, 5, 23))]),
        ("1月下旬", D(2023, 6, 3), [("1月下旬", D(2023, 1, 21), D(2023, 1, 31))]),
        ("十一月", D(2023, 6, 3), [("十一月", D(2023, 11, 1), D(2023, 11, 30))]),
        ("最近几周", D(2023, 6, 3), [("最近几周", D(2023, 5, 6), D(2023, 6, 3))]),
        ("下周三去上海", D(2025, 6, 3), [("下周三", D(2025, 6, 11), D(2025, 6, 11))]),
        # the week and the month before last (2023-11-02 is a Thursday), not last week's
        ("上上周去爬山了", D(2023, 11, 2), [("上上周", D(2023, 10, 16), D(2023, 10, 22))]),
        ("上上个月搬家", D(2023, 11, 2), [("上上个月", D(2023, 9, 1), D(2023, 9, 30))]),
        ("下下周", D(2023, 11, 2), [("下下周", D(2023, 11, 13), D(2023, 11, 19))]),
        # a month's nth week or weekend
        ("十月最后一周", D(2023, 12, 1), [("十月最后一周", D(2023, 10, 25), D(2023, 10, 31))]),
        ("2023年5月的第一周", None, [("2023年5月的第一周", D(2023, 5, 1), D(2023, 5, 7))]),
        (
            "十月最后一个周末",
            D(2023, 12, 1),
            [("十月最后一个周末", D(2023, 10, 28), D(2023, 10, 29))],
        ),
    ],
)
def test_chinese_times_are_the_days_they_meant(text, said, expected):
    assert days(text, said) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I may go to the market",  # a modal, not the month
        "June said hi",  # a person, not the month
        "one day I will",  # no count of days back or ahead
        "every day at 14:05",  # a time of day is no date
        "2000 people came",  # a count, not a year
    ],
)
def test_words_that_only_look_like_times_mean_no_days(text):
    assert spans(text, D(2023, 10, 20)) == []


def test_an_undated_text_keeps_only_its_absolute_dates():
    assert days("last week, and in March 2024", None) == [
        ("in March 2024", D(2024, 3, 1), D(2024, 3, 31))
    ]


def test_a_day_the_calendar_lacks_is_no_day():
    assert spans("see you tomorrow", D(9999, 12, 31)) == []
    # 30 February is not a day; February 2023 still is a month
    assert days("30 February 2023", None) == [("February 2023", D(2023, 2, 1), D(2023, 2, 28))]


def test_a_question_names_its_days_asks_when_and_loses_its_time_words():
    q = question_time("When did Melanie go camping in June?", D(2023, 10, 23))
    assert q.spans == ((D(2023, 6, 1), D(2023, 6, 30)),) and q.asks
    assert q.rest.split() == ["When", "did", "Melanie", "go", "camping", "?"]
    q = question_time("What was Jolene working on in the beginning of January 2023?", D(2024, 1, 1))
    assert q.spans == ((D(2023, 1, 1), D(2023, 1, 16)),) and not q.asks
    q = question_time("去年夏天我们去了哪里？", D(2023, 10, 23))
    assert q.spans == ((D(2022, 6, 1), D(2022, 8, 31)),) and not q.asks
    assert question_time("我们什么时候开会？", D(2023, 10, 23)).asks
    assert question_time("How long have they been married?", D(2023, 10, 23)).asks
    q = question_time("What did Melanie say when she saw the painting?", D(2023, 10, 23))
    assert not q.asks and q.spans == ()


def test_a_time_that_is_the_subject_is_the_day_itself():
    """'Today was my first day' read as 'on 2026-10-19 was their first day' in a curated
    line: the time as the subject takes no preposition, and a sentence still starts with a
    capital."""
    d = D(2026, 10, 19)
    assert resolve_relative("Today was my first day at Halcyon", d) == (
        "2026-10-19 was my first day at Halcyon"
    )
    assert resolve_relative("Last week was hectic", d) == "The week of 2026-10-12 was hectic"
    assert resolve_relative("Yesterday I adopted a cat", d) == "On 2026-10-18 I adopted a cat"
    assert resolve_relative("I moved today", d) == "I moved on 2026-10-19"
    assert resolve_relative("The launch is next week", d) == (
        "The launch is in the week of 2026-10-26"
    )


def test_the_rewrite_keeps_the_words_around_as_written():
    assert resolve_relative("early next month", D(2025, 6, 3)) == "early in 2025-07"
    assert resolve_relative("Since last month", D(2025, 6, 3)) == "Since 2025-05"
    assert resolve_relative("下个月初去京都", D(2025, 6, 3)) == "2025-07初去京都"
    # forms read for their days but never rewritten
    assert resolve_relative("two weeks ago", D(2025, 6, 3)) == "two weeks ago"
