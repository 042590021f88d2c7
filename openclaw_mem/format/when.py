"""Times and dates as people type them on a command line (--at, --now, --since)."""

from __future__ import annotations

from datetime import date, datetime

from ..errors import UsageError


def parse_when(value: str | None, now: datetime) -> datetime:
    """--at / --now: an ISO date or time; a time alone means today; an offset is
    converted to local time."""
    if value is None:
        return now
    text = value.strip()
    try:
        if len(text) <= 8 and ":" in text and "-" not in text:
            t = datetime.strptime(text if text.count(":") == 2 else text + ":00", "%H:%M:%S")
            return now.replace(hour=t.hour, minute=t.minute, second=t.second)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"{value!r} is not an ISO date or time (e.g. 2026-11-30, 2026-11-30T14:05, 14:05)"
        ) from None
    if moment.tzinfo is not None:
        try:
            moment = moment.astimezone().replace(tzinfo=None)
        except (OverflowError, ValueError):  # year 9999 west of UTC, year 1 east of it
            raise UsageError(
                f"{value!r} falls outside the calendar (years 1 to 9999) in local time"
            ) from None
    return moment


def parse_day(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value.strip()).date()
    except ValueError:
        raise UsageError(f"{value!r} is not an ISO date (e.g. 2026-11-30)") from None
