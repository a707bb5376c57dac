"""Argument and result field types shared by every server's tools."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, Field, PlainSerializer

from mcpgym.servers.kernel.limits import MAX_BODY_CHARS


def _to_naive_utc(value: datetime) -> datetime:
    if value.tzinfo is not None:
        try:
            value = value.astimezone(UTC).replace(tzinfo=None)
        except OverflowError:
            raise ValueError("time is out of range once converted to UTC") from None
    return value


def format_timestamp(value: datetime) -> str:
    """`2025-11-12T17:00:00Z`: how every server writes a UTC time."""
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


DateTimeArg = Annotated[datetime, AfterValidator(_to_naive_utc)]
"""An input time: ISO 8601 date or date-time; with an offset it is converted to UTC."""

Timestamp = Annotated[datetime, PlainSerializer(format_timestamp, return_type=str)]
"""An output time, always rendered as UTC with a trailing `Z`."""

Body = Annotated[str, Field(max_length=MAX_BODY_CHARS)]
"""A long text argument (a message body, a description, a note); any other string argument
gets the shorter default bound of `limits.MAX_TEXT_CHARS`."""

Page = Annotated[int, Field(ge=1, description="Page number, starting at 1.")]
PerPage = Annotated[int, Field(ge=1, le=100, description="Results per page (1-100).")]


def page_slice(page: int, per_page: int) -> tuple[int, int]:
    """Offset and limit of a 1-based page."""
    return (page - 1) * per_page, per_page


def next_page(page: int, per_page: int, total: int) -> int | None:
    """The next page number, or None on the last page."""
    return page + 1 if page * per_page < total else None


def json_value(value: Any) -> Any:
    """A value as it appears in a tool result (times as `...Z` strings)."""
    return format_timestamp(value) if isinstance(value, datetime) else value
