"""Bounds on tool arguments, stored data and results: every hostile input is a clear error
that changes no state, and the bounds are visible in every tool's schema."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from typing import Annotated, Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from mcpgym.servers.catalog import load_server, server_names
from mcpgym.servers.kernel import limits, session as session_module
from mcpgym.servers.kernel.errors import database_refusal
from mcpgym.servers.kernel.limits import MAX_BODY_CHARS, MAX_LIST_ITEMS, MAX_TEXT_CHARS, json_preview
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.kernel.tools import ToolContext, build_tool_spec

SERVERS = server_names()
TOOLS = [(server, tool.name) for server in SERVERS for tool in load_server(server).tools]


def walk_schema(schema: Any, defs: dict[str, Any], path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every sub-schema of an input schema with its path, following `$ref`s into `$defs`."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            yield from walk_schema(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, path)
            return
        yield path, schema
        for key in ("anyOf", "oneOf", "allOf"):
            for sub in schema.get(key, []):
                yield from walk_schema(sub, defs, path)
        if "items" in schema:
            yield from walk_schema(schema["items"], defs, path + "[]")
        for name, sub in schema.get("properties", {}).items():
            yield from walk_schema(sub, defs, f"{path}.{name}")


def types_of(schema: dict[str, Any], defs: dict[str, Any]) -> set[str]:
    """The JSON types a property accepts at its top level."""
    return {sub["type"] for path, sub in walk_schema(schema, defs) if path == "" and "type" in sub}


# ---------------------------------------------------------------- schemas


@pytest.mark.parametrize("server", SERVERS)
def test_every_string_and_list_argument_is_bounded_in_the_schema(server: str) -> None:
    unbounded = []
    for tool in load_server(server).tools:
        schema = tool.input_schema
        for path, sub in walk_schema(schema, schema.get("$defs", {})):
            free_text = "enum" not in sub and "const" not in sub and "format" not in sub
            if sub.get("type") == "string" and free_text and "maxLength" not in sub:
                unbounded.append(f"{tool.name}{path}")
            if sub.get("type") == "array" and "maxItems" not in sub:
                unbounded.append(f"{tool.name}{path}")
    assert not unbounded, f"arguments without a bound: {unbounded}"


def test_search_text_gets_the_short_bound_and_bodies_the_long_one() -> None:
    zendesk = load_server("zendesk").tools
    query = zendesk.get("search_tickets").input_schema["properties"]["query"]["anyOf"][0]
    body = zendesk.get("add_comment").input_schema["properties"]["body"]
    assert query["maxLength"] == MAX_TEXT_CHARS
    assert body["maxLength"] == MAX_BODY_CHARS and body["minLength"] == 1


class Nested(BaseModel):
    names: list[str]
    note: str | None = None


class Out(BaseModel):
    ok: bool = True


def sample_tool(
    ctx: ToolContext,
    name: str,
    tags: list[str] | None = None,
    long_note: Annotated[str, Field(max_length=5000)] = "",
    nested: Nested | None = None,
    count: Annotated[int, Field(ge=0)] = 0,
    ratio: float | None = None,
    ref: int | str = 0,
    flag: Literal[0, 1] = 0,
) -> Out:
    """A tool that exercises the kernel's default bounds."""
    return Out()


def test_kernel_defaults_reach_nested_and_optional_parameters_and_explicit_bounds_win() -> None:
    spec = build_tool_spec(sample_tool, writes=False)
    schema = spec.input_schema
    props = schema["properties"]
    assert props["name"]["maxLength"] == MAX_TEXT_CHARS
    tags = props["tags"]["anyOf"][0]
    assert tags["maxItems"] == MAX_LIST_ITEMS and tags["items"]["maxLength"] == MAX_TEXT_CHARS
    assert props["long_note"]["maxLength"] == 5000
    nested = schema["$defs"]["Nested"]["properties"]
    assert nested["names"]["maxItems"] == MAX_LIST_ITEMS
    assert nested["names"]["items"]["maxLength"] == MAX_TEXT_CHARS
    assert nested["note"]["anyOf"][0]["maxLength"] == MAX_TEXT_CHARS
    assert spec.validate({"name": "x", "long_note": "y" * 5000})["long_note"] == "y" * 5000
    with pytest.raises(Exception, match="nested.names.0: String should have at most"):
        spec.validate({"name": "x", "nested": {"names": ["z" * (MAX_TEXT_CHARS + 1)]}})


@pytest.mark.parametrize("field", ["count", "ratio", "ref", "flag"])
def test_booleans_are_not_numbers(field: str) -> None:
    spec = build_tool_spec(sample_tool, writes=False)
    with pytest.raises(Exception, match=f"{field}: Input should be a number, not a boolean"):
        spec.validate({"name": "x", field: True})
    assert spec.validate({"name": "x", field: 1})[field] == 1


def test_integers_given_as_text_are_still_read() -> None:
    with ToolSession(load_server("zendesk"), 0) as session:
        as_text = session.call("get_ticket", {"ticket_id": "1380"})
        as_int = session.call("get_ticket", {"ticket_id": 1380})
        rejected = session.call("get_ticket", {"ticket_id": True})
    assert as_text.ok and as_text.text == as_int.text
    assert rejected.text == "invalid_arguments: get_ticket: ticket_id: Input should be a number, not a boolean (got true)"


# ---------------------------------------------------------------- the findings, one by one


@pytest.fixture(scope="module")
def zendesk() -> Iterator[ToolSession]:
    with ToolSession(load_server("zendesk"), 0) as fresh:
        yield fresh


def refused(session: ToolSession, tool: str, arguments: dict[str, Any], code: str = "invalid_arguments") -> str:
    """Call, assert it failed with `code` and left the state as it was; return the message."""
    before = session.state_hash()
    result = session.call(tool, arguments)
    assert not result.ok and result.text.startswith(f"{code}: "), result.text[:300]
    assert session.state_hash() == before
    return result.text


def test_huge_comment_is_refused_before_it_is_stored(zendesk: ToolSession) -> None:
    text = refused(zendesk, "add_comment", {"ticket_id": 1486, "body": "x" * 4_000_000})
    assert f"at most {MAX_BODY_CHARS} characters" in text and len(text) < 400


def test_a_thousand_tags_are_invalid_arguments_not_an_internal_error(zendesk: ToolSession) -> None:
    tags = [f"t{i}" for i in range(1000)]
    for tool, arguments in [("search_tickets", {"tags": tags}), ("ticket_stats", {"tags": tags}),
                            ("add_ticket_tags", {"ticket_id": 1486, "tags": tags})]:
        assert f"at most {MAX_LIST_ITEMS} items" in refused(zendesk, tool, arguments)


def test_a_full_list_of_filters_is_answered(zendesk: ToolSession) -> None:
    tags = [f"t{i}" for i in range(MAX_LIST_ITEMS)]
    query = " ".join(f"w{i}" for i in range(MAX_TEXT_CHARS // 4))
    result = zendesk.call("search_tickets", {"tags": tags, "query": query})
    assert result.ok and result.data == {"tickets": [], "total": 0, "page": 1, "next_page": None}


@pytest.mark.parametrize(("server", "tool", "argument"), [
    ("zendesk", "search_tickets", "query"), ("email", "search_messages", "body"),
    ("calendar", "list_events", "query"), ("crm", "search_opportunities", "query"),
])
def test_long_search_text_is_refused_at_once(server: str, tool: str, argument: str) -> None:
    with ToolSession(load_server(server), 0) as session:
        text = refused(session, tool, {argument: "ab " * 16_000})
    assert f"{argument}: String should have at most {MAX_TEXT_CHARS} characters" in text


def test_repeated_search_words_count_once() -> None:
    assert search_words("Pricing pricing  PLAN pricing") == ["pricing", "plan"]
    assert search_words(None) == [] and search_words("   ") == []


def test_error_messages_stay_short_whatever_the_input(zendesk: ToolSession) -> None:
    deep: list[Any] = []
    for _ in range(50_000):
        deep = [deep]
    many_unknown = {f"arg{i}" * 50: i for i in range(5000)}
    for arguments in [{"ticket_id": deep}, {"ticket_id": 10**5000}, many_unknown,
                      {"ticket_id": {"k" * 10_000: "v" * 10_000}}]:
        text = refused(zendesk, "get_ticket", arguments)
        assert len(text) < 4000


def test_json_preview_matches_json_dumps_and_is_bounded() -> None:
    for value in ["abc", 42, 1.5, None, True, [1, "x", {"a": [None, False]}], {"k": "v" * 200}, "é☃" * 50]:
        assert json_preview(value) == json.dumps(value, default=str)[:80]
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    assert json_preview(deep) == "[" * 80


# ---------------------------------------------------------------- storage quota


@pytest.fixture(scope="module")
def small_quota() -> ServerSpec:
    return dataclasses.replace(load_server("zendesk"), storage_quota_bytes=256 * 1024)


def test_writes_beyond_the_storage_quota_are_refused_whole(small_quota: ServerSpec) -> None:
    with ToolSession(small_quota, 0) as session:
        arguments = {"subject": "Export", "description": "y" * 9000, "requester_id": 594}
        stored = 0
        while (result := session.call("create_ticket", arguments)).ok:
            stored += 1
            assert stored < 100, "the quota never stopped the writes"
        assert stored >= 10
        assert "storage quota" in refused(session, "create_ticket", arguments, code="forbidden")
        assert session.call("get_ticket", {"ticket_id": 1380}).ok
        session.reset()
        assert session.call("create_ticket", arguments).ok


def test_the_quota_is_set_again_after_every_reset(small_quota: ServerSpec) -> None:
    with ToolSession(small_quota, 0) as session:
        for seed in (0, 1, 0):
            session.reset(seed)
            connection: sqlite3.Connection = session.context.db.connection().connection.dbapi_connection  # type: ignore[assignment]
            pages, limit = (connection.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_count", "max_page_count"))
            page_size = connection.execute("PRAGMA page_size").fetchone()[0]
            assert limit * page_size <= pages * page_size + small_quota.storage_quota_bytes + page_size


def test_database_refusals_name_their_cause() -> None:
    full = sqlite3.OperationalError("database or disk is full")
    full.sqlite_errorcode = 13  # type: ignore[attr-defined]
    deep = sqlite3.OperationalError("Expression tree is too large (maximum depth 1000)")
    assert database_refusal("t", full).render().startswith("forbidden: t: this session's storage quota")  # type: ignore[union-attr]
    assert database_refusal("t", deep).render().startswith("invalid_arguments: t: the request is too large")  # type: ignore[union-attr]
    assert database_refusal("t", sqlite3.OperationalError("no such table: x")) is None


# ---------------------------------------------------------------- result size


def test_an_oversized_result_is_an_error_asking_for_less(monkeypatch: pytest.MonkeyPatch, zendesk: ToolSession) -> None:
    monkeypatch.setattr(session_module, "MAX_RESULT_CHARS", 2000)
    text = refused(zendesk, "search_tickets", {"per_page": 50})
    assert "over the limit of 2,000" in text and "fewer results per page" in text
    assert zendesk.call("search_tickets", {"per_page": 1}).ok


def test_an_oversized_write_result_writes_nothing(monkeypatch: pytest.MonkeyPatch, zendesk: ToolSession) -> None:
    monkeypatch.setattr(session_module, "MAX_RESULT_CHARS", 2000)
    zendesk.reset()
    refused(zendesk, "add_comment", {"ticket_id": 1486, "body": "z" * 3000})
    assert zendesk.writes == 0 and zendesk.diff() == []


def test_the_result_bound_is_far_above_a_full_page() -> None:
    with ToolSession(load_server("email"), 0) as session:
        page = session.call("search_messages", {"per_page": 100})
    assert page.ok and len(page.text) < limits.MAX_RESULT_CHARS // 10


# ---------------------------------------------------------------- property: hostile values


def hostile_values(schema: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values that no property with this schema accepts."""
    kinds = types_of(schema, defs)
    bounds = [sub for _, sub in walk_schema(schema, defs) if sub.get("type") in ("string", "array")]
    longest_text = max((sub.get("maxLength", 0) for sub in bounds if sub.get("type") == "string"), default=0)
    longest_list = max((sub.get("maxItems", 0) for sub in bounds if sub.get("type") == "array"), default=0)
    options = [
        st.integers(longest_text + 1, longest_text + 5000).map(lambda n: "q" * n),
        st.integers(longest_list + 1, longest_list + 2000).map(lambda n: ["x"] * n),
        st.integers(100, 20_000).map(nested_lists),
    ]
    if "boolean" not in kinds:
        options.append(st.booleans())
    return st.one_of(options)


def nested_lists(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.fixture(scope="module")
def sessions() -> Iterator[dict[str, ToolSession]]:
    opened = {server: ToolSession(load_server(server), 0) for server in SERVERS}
    yield opened
    for session in opened.values():
        session.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(data=st.data())
def test_hostile_values_are_invalid_arguments_and_change_nothing(
    data: st.DataObject, sessions: dict[str, ToolSession]
) -> None:
    server, name = data.draw(st.sampled_from(TOOLS), label="tool")
    session = sessions[server]
    tool = load_server(server).tools.get(name)
    assert tool is not None
    schema = tool.input_schema
    properties = schema.get("properties", {})
    if not properties:
        return
    argument = data.draw(st.sampled_from(sorted(properties)), label="argument")
    value = data.draw(hostile_values(properties[argument], schema.get("$defs", {})), label="value")
    base = dict(tool.examples[0]) if tool.examples else {}
    result = session.call(name, {**base, argument: value})
    assert result.text.startswith("invalid_arguments: "), result.text[:300]
    assert len(result.text) < 4000
    assert not session.diff()


@pytest.mark.parametrize("server", SERVERS)
def test_an_explicit_null_for_a_bounded_optional_number_is_not_given(server: str) -> None:
    """`Annotated[int | None, Field(ge=0)]`: null passes as "not given", never into the bound."""
    with ToolSession(load_server(server), 0) as session:
        seeded = session.state_hash()
        tried = 0
        for tool in load_server(server).tools:
            if not tool.examples:
                continue
            schema = tool.input_schema
            for argument, sub in schema.get("properties", {}).items():
                members = sub.get("anyOf", [])
                bounded_number = any(m.get("type") in ("integer", "number") and set(m) & {"minimum", "maximum",
                                     "exclusiveMinimum", "exclusiveMaximum"} for m in members)
                if not (bounded_number and {"type": "null"} in members):
                    continue
                tried += 1
                result = session.call(tool.name, {**tool.examples[0], argument: None})
                assert not (result.error or "").startswith("internal_error"), f"{tool.name}.{argument}: {result.error}"
                session.reset(0)
        assert session.state_hash() == seeded
    if server in ("crm", "finance", "calendar"):
        assert tried, f"{server} has optional bounded numbers to try"


@pytest.mark.parametrize("server", SERVERS)
def test_a_nul_character_in_any_text_argument_is_refused(server: str) -> None:
    with ToolSession(load_server(server), 0) as session:
        seeded = session.state_hash()
        for tool in load_server(server).tools:
            for example in tool.examples[:1]:
                for argument, value in example.items():
                    if isinstance(value, str):
                        result = session.call(tool.name, {**example, argument: value[:1] + "\x00" + value[1:]})
                        assert (result.error or "").startswith("invalid_arguments"), result.text[:200]
                        assert "NUL" in result.text or "should" in result.text, result.text[:200]
                        assert not session.diff()
