"""Query helpers every server's search tools share: text matching and pagination."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, func, or_, select
from sqlalchemy.orm import Session

from mcpgym.servers.kernel.fields import next_page, page_slice


def search_words(text: str | None) -> list[str]:
    """The distinct words of a search text, lowercased, in order of first appearance.

    Each word becomes one condition, so repeating a word costs nothing; the text itself is
    bounded by the argument's `maxLength`, which bounds the number of conditions.
    """
    return list(dict.fromkeys((text or "").lower().split()))


def contains_text(query: str, *columns: Any) -> ColumnElement[bool]:
    """Rows where any of `columns` contains `query`, case-insensitively (`%` and `_` are literal)."""
    needle = query.strip().lower()
    return or_(*(func.lower(column).contains(needle, autoescape=True) for column in columns))


def count_rows(db: Session, statement: Select[Any]) -> int:
    """How many rows `statement` yields (its ordering is ignored)."""
    return db.scalar(select(func.count()).select_from(statement.order_by(None).subquery())) or 0


def fetch_page(db: Session, statement: Select[Any], page: int, per_page: int) -> tuple[list[Any], int, int | None]:
    """One page of `statement`'s results, the total over all pages, and the next page number.

    A statement selecting one entity or column yields its values; one selecting several
    yields row tuples. The total comes with the page in one statement (`count(*) OVER ()`,
    counted before LIMIT); only a page past the end, or a DISTINCT statement (whose window
    would count rows before they are made distinct), costs a separate count.
    """
    offset, limit = page_slice(page, per_page)
    single = len(statement.column_descriptions) == 1
    if statement._distinct:  # noqa: SLF001 - Select exposes no public accessor for DISTINCT
        total = count_rows(db, statement)
        paged = statement.offset(offset).limit(limit)
        rows = list(db.scalars(paged)) if single else list(db.execute(paged).all())
        return rows, total, next_page(page, per_page, total)
    counted = db.execute(statement.add_columns(func.count().over()).offset(offset).limit(limit)).all()
    if counted:
        total = counted[0][-1]
    else:
        total = 0 if offset == 0 else count_rows(db, statement)
    rows = [row[0] for row in counted] if single else [row[:-1] for row in counted]
    return rows, total, next_page(page, per_page, total)
