"""Fetching entities by id with errors a model can act on."""

from __future__ import annotations

from typing import TypeVar

from mcpgym.servers.kernel.errors import NotFoundError
from mcpgym.servers.kernel.tools import ToolContext

T = TypeVar("T")


def get_or_raise(ctx: ToolContext, model: type[T], entity_id: int, label: str, hint: str) -> T:
    """The row of `model` with primary key `entity_id`, or `NotFoundError("<label> <id> ...")`."""
    row = ctx.db.get(model, entity_id)
    if row is None:
        raise NotFoundError(f"no {label} with id {entity_id}. {hint}")
    return row
