"""The MCP hints of every write tool, checked against what its examples do.

- `idempotent`: calling an example twice leaves the state it left once, whenever the second
  call succeeds (a refused repeat changes nothing by construction, so it tells nothing);
- not `destructive`: an example only inserts rows, or updates bookkeeping columns
  (`BOOKKEEPING`) of existing ones: it never deletes a row or overwrites a value.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp
import pytest

from mcpgym.servers.catalog import load_server, server_names
from mcpgym.servers.kernel.database import RowChange
from mcpgym.servers.kernel.mcp_server import SessionPool, build_mcp_server
from mcpgym.servers.kernel.session import ToolSession

SERVERS = server_names()
BOOKKEEPING = frozenset({"updated_at", "updated_by_id", "version"})
"""Columns that record that a row changed, when and by whom (a wiki page's version number
counts its kept versions): a write that adds a comment, a version or a tag touches them on
the parent row without taking anything away."""


def state(changes: list[RowChange]) -> list[tuple[str, str, str, str]]:
    return sorted((c.table, c.key, c.op, json.dumps(c.after, sort_keys=True, default=str)) for c in changes)


def overwrites(changes: list[RowChange]) -> list[str]:
    """The deleted rows and overwritten columns in `changes`, as `table.key` / `table.column`."""
    found = [f"{c.table}[{c.key}] deleted" for c in changes if c.op == "delete"]
    found += [f"{c.table}.{column}" for c in changes if c.op == "update" for column in set(c.changed) - BOOKKEEPING]
    return found


@pytest.mark.parametrize("server", SERVERS)
def test_write_hints_match_what_the_examples_do(server: str) -> None:
    spec = load_server(server)
    repeated: dict[str, list[bool]] = {}
    with ToolSession(spec, 0) as session:
        for tool in spec.tools:
            if not tool.writes:
                continue
            for example in tool.examples:
                session.reset()
                first = session.call(tool.name, example)
                assert first.ok, f"{server}.{tool.name}({example}): {first.error}"
                once = session.diff()
                if not tool.destructive:
                    assert not overwrites(once), f"{server}.{tool.name} claims non-destructive: {overwrites(once)}"
                second = session.call(tool.name, example)
                twice = session.diff()
                if second.ok:
                    repeated.setdefault(tool.name, []).append(state(once) == state(twice))
                else:
                    assert state(once) == state(twice), f"{server}.{tool.name}: a refused repeat changed state"
        session.reset()
    for name, same in repeated.items():
        tool = spec.tools.get(name)
        assert tool is not None
        if tool.idempotent:
            assert all(same), f"{server}.{name} claims idempotent, but a repeat changed the state"
        else:
            assert not all(same), f"{server}.{name} claims non-idempotent, but every repeat changed nothing"


def test_the_checks_can_fail() -> None:
    """The rules above catch an overwrite and a repeat that adds a row."""
    update = RowChange(table="t", key="1", op="update", before={"a": 1, "updated_at": 1}, after={"a": 2, "updated_at": 2})
    touch = RowChange(table="t", key="1", op="update", before={"a": 1, "updated_at": 1}, after={"a": 1, "updated_at": 2})
    insert = RowChange(table="t", key="2", op="insert", after={"a": 1})
    assert overwrites([update]) == ["t.a"] and overwrites([touch, insert]) == []
    assert overwrites([RowChange(table="t", key="1", op="delete", before={"a": 1})]) == ["t[1] deleted"]
    assert state([insert]) != state([insert, RowChange(table="t", key="3", op="insert", after={"a": 1})])


@pytest.mark.parametrize("server", SERVERS)
def test_every_tool_has_a_title_in_words(server: str) -> None:
    """A short capitalised name in words, one per tool of the server."""
    tools = list(load_server(server).tools)
    for tool in tools:
        assert tool.title and tool.title[0].isupper() and len(tool.title) <= 60, tool.name
        assert "_" not in tool.title, f"{server}.{tool.name}: title {tool.title!r}"
    titles = [tool.title for tool in tools]
    assert len(set(titles)) == len(titles), f"{server}: tools share a title"


def test_mcp_lists_the_hints() -> None:
    spec = load_server("todo")

    async def main() -> dict[str, Any]:
        async with mcp.Client(build_mcp_server(SessionPool(spec))) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    listed = anyio.run(main)
    for tool in spec.tools:
        hints = listed[tool.name].annotations
        assert hints is not None and listed[tool.name].title == tool.title == hints.title
        assert hints.read_only_hint is (not tool.writes) and hints.idempotent_hint is tool.idempotent
        assert hints.destructive_hint is (tool.destructive if tool.writes else None)
    assert listed["add_comment"].annotations.destructive_hint is False  # type: ignore[union-attr]
    assert listed["delete_task"].annotations.destructive_hint is True  # type: ignore[union-attr]
