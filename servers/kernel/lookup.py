"""Fetching entities by id with errors a model can act on."""

from __future__ import annotations

from functools import cache

from sqlalchemy import Table
from sqlalchemy.orm import DeclarativeBase

from mcpgym.servers.kernel.database import quote
from mcpgym.servers.kernel.errors import NotFoundError
from mcpgym.servers.kernel.sql import Row, table_columns
from mcpgym.servers.kernel.tools import ToolContext


def row_or_raise(ctx: ToolContext, model: type[DeclarativeBase], entity_id: int, label: str, hint: str) -> Row:
    """The row of `model`'s table with primary key `entity_id`, every column converted, or
    `NotFoundError("no <label> with id <id>. <hint>")`."""
    row = ctx.sql.one(_select_by_key(model.__table__), [entity_id], model)  # type: ignore[arg-type]
    if row is None:
        raise missing(label, entity_id, hint)
    return row


@cache
def _select_by_key(table: Table) -> str:
    """`SELECT *` of the row of `table` with a given primary key."""
    key, _ = table_columns(table)
    return f"SELECT * FROM {quote(table.name)} WHERE {quote(key)} = ?"


def missing(label: str, entity_id: int, hint: str) -> NotFoundError:
    """The error for an id that names no row: `no <label> with id <id>. <hint>`."""
    return NotFoundError(f"no {label} with id {entity_id}. {hint}")
