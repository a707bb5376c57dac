"""Working-day arithmetic: time off counts Mondays to Fridays."""

from __future__ import annotations

from datetime import date, timedelta


def working_days(start: date, end: date) -> int:
    """Weekdays from `start` to `end`, both included (0 when `end` is before `start`)."""
    total = (end - start).days + 1
    if total <= 0:
        return 0
    weeks, extra = divmod(total, 7)
    return weeks * 5 + sum(1 for n in range(extra) if (start + timedelta(days=weeks * 7 + n)).weekday() < 5)
