"""Fetching entities by id with errors a model can act on."""

from __future__ import annotations

from sqlalchemy.orm import DeclarativeBase

from mcpgym.servers.kernel.database import quote
from mcpgym.servers.kernel.errors import NotFoundError
from mcpgym.servers.kernel.sql import Row
from mcpgym.servers.kernel.tools import ToolContext


def row_or_raise(ctx: ToolContext, model: type[DeclarativeBase], entity_id: int, label: str, hint: str) -> Row:
    """The row of `model`'s table with primary key `entity_id`, every column converted, or
    `NotFoundError("no <label> with id <id>. <hint>")`."""
    table = model.__table__
    (key,) = table.primary_key.columns  # type: ignore[attr-defined]
    row = ctx.sql.one(f"SELECT * FROM {quote(table.name)} WHERE {quote(key.name)} = ?", [entity_id], model)  # type: ignore[attr-defined]
    if row is None:
        raise missing(label, entity_id, hint)
    return row


def missing(label: str, entity_id: int, hint: str) -> NotFoundError:
    """The error for an id that names no row: `no <label> with id <id>. <hint>`."""
    return NotFoundError(f"no {label} with id {entity_id}. {hint}")
