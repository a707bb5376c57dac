"""Repeat rules of recurring tasks, written in words as the app shows them, and the next due
date of a series.

A rule is one of:
- `every day`, `every 3 days`;
- `every weekday` (Monday to Friday);
- `every week`, `every 2 weeks` (the due date's weekday), or named days: `every mon`,
  `every tue, thu`;
- `every month`, `every 3 months` (the due date's day of month), or a day: `every month on
  the 1st`, `every 2 months on the 15th` (clamped to the month's last day);
- `every year` (the due date's day and month).

A rule is kept in its canonical words, with the anchor a bare `every week` or `every month`
takes from the first due date written in (`every week` due on a Tuesday is `every tue`), so a
series keeps its day whatever its later dates.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_FULL_NAMES = {name: i for i, name in enumerate(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                                                  "sunday"))}
MAX_INTERVAL = 12
_PATTERN = re.compile(
    r"every(?: (?P<n>\d{1,2}))? (?P<unit>days?|weekdays?|weeks?|months?|years?|(?P<days>[a-z]+(?:\s*,\s*[a-z]+)*))"
    r"(?: on the (?P<dom>\d{1,2})(?:st|nd|rd|th))?"
)


class RecurrenceError(ValueError):
    """Words that are not a repeat rule."""


@dataclass(frozen=True)
class Rule:
    """A parsed rule: unit (day, weekday, week, month, year), interval, named weekdays
    (0 = Monday) and day of month."""

    unit: str
    interval: int = 1
    weekdays: tuple[int, ...] = ()
    month_day: int | None = None

    def text(self) -> str:
        """The canonical words of the rule."""
        every = "every" if self.interval == 1 else f"every {self.interval}"
        if self.unit == "weekday":
            return "every weekday"
        if self.weekdays:
            return "every " + ", ".join(DAY_NAMES[d] for d in self.weekdays)
        plural = "" if self.interval == 1 else "s"
        words = f"{every} {self.unit}{plural}"
        if self.month_day is not None:
            words += f" on the {ordinal(self.month_day)}"
        return words

    def anchored(self, due: date) -> Rule:
        """The rule with a bare weekly or monthly rule tied to `due`'s weekday or day."""
        if self.unit == "week" and self.interval == 1 and not self.weekdays:
            return Rule("week", 1, (due.weekday(),))
        if self.unit == "month" and self.month_day is None:
            return Rule("month", self.interval, (), due.day)
        return self

    def occurs_on(self, day: date) -> bool:
        """Whether `day` fits the rule's weekdays (rules stepped by an interval fit any day)."""
        if self.unit == "weekday":
            return day.weekday() < 5
        if self.weekdays:
            return day.weekday() in self.weekdays
        if self.month_day is not None:
            return day.day == min(self.month_day, calendar.monthrange(day.year, day.month)[1])
        return True


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def parse(words: str) -> Rule:
    """The rule written in `words` (case and spacing aside); `RecurrenceError` otherwise."""
    text = " ".join(words.lower().replace(",", ", ").split()).replace(" ,", ",")
    match = _PATTERN.fullmatch(text)
    if match is None:
        raise RecurrenceError(f"'{words[:60]}' is not a repeat rule; write e.g. 'every day', 'every weekday', "
                              "'every mon, thu', 'every 2 weeks', 'every month on the 1st' or 'every year'")
    interval = int(match["n"] or 1)
    if not 1 <= interval <= MAX_INTERVAL:
        raise RecurrenceError(f"the interval of a repeat rule is 1 to {MAX_INTERVAL}, not {interval}")
    dom = int(match["dom"]) if match["dom"] else None
    if dom is not None and not 1 <= dom <= 31:
        raise RecurrenceError(f"a day of the month is 1 to 31, not {dom}")
    if match["days"]:
        days = sorted({_weekday(name.strip()) for name in match["days"].split(",")})
        if interval != 1 or dom is not None:
            raise RecurrenceError("named weekdays repeat every week: write e.g. 'every mon, thu'")
        return Rule("week", 1, tuple(days))
    unit = match["unit"].rstrip("s")
    if dom is not None and unit != "month":
        raise RecurrenceError("'on the <day>' goes with a monthly rule, e.g. 'every month on the 1st'")
    if unit == "weekday" and interval != 1:
        raise RecurrenceError("'every weekday' takes no interval")
    return Rule(unit, interval, (), dom)


def _weekday(name: str) -> int:
    if name in DAY_NAMES:
        return DAY_NAMES.index(name)
    if name in _FULL_NAMES:
        return _FULL_NAMES[name]
    raise RecurrenceError(f"'{name[:20]}' is not a weekday; use mon, tue, wed, thu, fri, sat or sun")


def first_on_or_after(rule: Rule, day: date) -> date:
    """The first date from `day` on that fits the rule (the first due date of a new series)."""
    if rule.unit in ("day", "year") or (rule.unit in ("week", "month") and not rule.weekdays and rule.month_day is None):
        return day
    if rule.unit == "month":
        candidate = _month_day(day.year, day.month, rule.month_day or day.day)
        return candidate if candidate >= day else _add_months(day, 1, rule.month_day or day.day)
    while not rule.occurs_on(day):
        day += timedelta(days=1)
    return day


def next_due(rule: Rule, due: date, today: date) -> date:
    """The due date of the occurrence after the one due on `due`, completed `today`: the
    first date of the series strictly after both `due` and `today` (missed occurrences of an
    overdue task are skipped)."""
    after = max(due, today)
    if rule.unit == "day":
        steps = (after - due).days // rule.interval + 1
        return due + timedelta(days=steps * rule.interval)
    if rule.unit == "week" and not rule.weekdays:
        steps = (after - due).days // (7 * rule.interval) + 1
        return due + timedelta(days=steps * 7 * rule.interval)
    if rule.unit in ("weekday", "week"):
        day = after + timedelta(days=1)
        while not rule.occurs_on(day):
            day += timedelta(days=1)
        return day
    if rule.unit == "month":
        anchor = rule.month_day or due.day
        candidate = _add_months(due, rule.interval, anchor)
        while candidate <= after:
            candidate = _add_months(candidate, rule.interval, anchor)
        return candidate
    candidate = _add_years(due, 1)
    while candidate <= after:
        candidate = _add_years(candidate, 1)
    return candidate


def _month_day(year: int, month: int, day: int) -> date:
    return date(year, month, min(day, calendar.monthrange(year, month)[1]))


def _add_months(day: date, months: int, anchor: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return _month_day(index // 12, index % 12 + 1, anchor)


def _add_years(day: date, years: int) -> date:
    return _month_day(day.year + years, day.month, day.day)
