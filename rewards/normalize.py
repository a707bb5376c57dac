"""Argument values compared the way a person would: case, spacing, number formats and dates
do not matter; list order does not matter."""

from __future__ import annotations

from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any

MAX_TIME_CHARS = 64
"""Longest text read as a date or time (an ISO date-time with fractions and offset is 32)."""


@lru_cache(maxsize=8192)
def _as_time(text: str) -> str | None:
    """An ISO date or date-time as `YYYY-MM-DDTHH:MM:SS` in UTC (dates at midnight), else None
    (remembered for recent short texts: the same dates recur in every call of a task)."""
    candidate = text.strip().replace(" ", "T", 1)
    if candidate.endswith(("Z", "z")):
        candidate = candidate[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(candidate)
    except ValueError:
        try:
            parsed = datetime.combine(date.fromisoformat(text.strip()), datetime.min.time())
        except ValueError:
            return None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed.strftime("%Y-%m-%dT%H:%M:%S")


def normalize(value: Any) -> Any:
    """A canonical form: numbers as floats, text casefolded with single spaces, times in UTC,
    lists sorted, dicts normalised by key."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:
            return value
    if isinstance(value, str):
        text = " ".join(value.split()).casefold()
        looks_like_time = len(text) <= MAX_TIME_CHARS and text[:1].isdigit() and "-" in text
        time = _as_time(text) if looks_like_time else None
        if time is not None:
            return time
        try:
            return float(text.replace(",", "")) if text and text.lstrip("-")[:1].isdigit() else text
        except ValueError:
            return text
    if isinstance(value, list | tuple):
        return sorted((normalize(v) for v in value), key=repr)
    if isinstance(value, dict):
        return {str(k): normalize(v) for k, v in sorted(value.items())}
    return value


def same_argument(expected: Any, actual: Any) -> bool:
    """Whether two argument values are equal once normalised."""
    return bool(normalize(expected) == normalize(actual))
