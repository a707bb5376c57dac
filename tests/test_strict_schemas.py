"""Strict tool schemas: every tool converts to a schema OpenAI's strict mode accepts, and
calling a tool with the strict form's arguments (a null for each optional one) does what
omitting them does."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from mcpgym.baselines.chat_agent import ChatAgent
from mcpgym.servers.catalog import load_server, server_names
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.tools import (
    admits_null,
    omit_nulls,
    strict_function,
    strict_schema,
)

SERVERS = server_names()
TOOLS = [(server, tool.name) for server in SERVERS for tool in load_server(server).tools]
EXAMPLES = [(server, tool.name, i) for server in SERVERS for tool in load_server(server).tools
            for i in range(len(tool.examples))]

# OpenAI's documented subset of JSON Schema for strict mode (Structured Outputs, "Supported schemas").
TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
KEYWORDS = {
    "any": {"type", "description", "enum", "const", "anyOf", "$ref", "$defs"},
    "string": {"pattern", "format"},
    "number": {"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"},
    "integer": {"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"},
    "array": {"items", "minItems", "maxItems"},
    "object": {"properties", "required", "additionalProperties"},
}
FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
MAX_PROPERTIES, MAX_DEPTH, MAX_ENUM_VALUES = 5000, 10, 1000


def strict_problems(schema: dict[str, Any]) -> list[str]:
    """Every way `schema` breaks OpenAI's strict-mode rules (empty: it is accepted)."""
    problems: list[str] = []
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("root: must be an object, not anyOf")
    counts = {"properties": 0, "enum": 0}

    def visit(node: Any, where: str, depth: int) -> None:
        if not isinstance(node, dict):
            problems.append(f"{where}: not a schema")
            return
        if depth > MAX_DEPTH:
            problems.append(f"{where}: nested deeper than {MAX_DEPTH}")
        kinds = node.get("type", [])
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if not set(kinds) <= TYPES:
            problems.append(f"{where}: type {kinds}")
        allowed = KEYWORDS["any"].union(*(KEYWORDS.get(kind, set()) for kind in kinds))
        problems.extend(f"{where}: unsupported keyword {key!r}" for key in node if key not in allowed)
        if "format" in node and node["format"] not in FORMATS:
            problems.append(f"{where}: format {node['format']!r}")
        if "object" in kinds or "properties" in node:
            properties = node.get("properties", {})
            counts["properties"] += len(properties)
            if node.get("additionalProperties") is not False:
                problems.append(f"{where}: additionalProperties must be false")
            if sorted(node.get("required", [])) != sorted(properties):
                problems.append(f"{where}: every property must be required")
            for name, sub in properties.items():
                visit(sub, f"{where}.{name}", depth + 1)
        if "enum" in node:
            counts["enum"] += len(node["enum"])
        if "items" in node:
            visit(node["items"], f"{where}[]", depth + 1)
        for i, member in enumerate(node.get("anyOf", [])):
            visit(member, f"{where}|{i}", depth)
        for name, sub in node.get("$defs", {}).items():
            visit(sub, f"$defs.{name}", depth)

    visit(schema, "parameters", 1)
    if counts["properties"] > MAX_PROPERTIES:
        problems.append(f"{counts['properties']} properties")
    if counts["enum"] > MAX_ENUM_VALUES:
        problems.append(f"{counts['enum']} enum values")
    return problems


def tool_of(server: str, name: str) -> Any:
    found = load_server(server).tools.get(name)
    assert found is not None
    return found


def strict_arguments(tool: Any, example: dict[str, Any]) -> dict[str, Any]:
    """`example` as a strict-mode client sends it: every argument present, at every depth, a
    null for each one left out, or its default where null has a meaning of its own."""
    properties = tool.input_schema.get("properties", {})
    full = filled(example, tool.strict_input_schema)
    for name, sub in properties.items():
        if name not in example and admits_null(sub) and sub.get("default") is not None:
            full[name] = sub["default"]
    return full


def filled(value: Any, schema: dict[str, Any]) -> Any:
    """`value` with a null for every property its (strict, `$ref`-free) schema lists and it lacks."""
    if isinstance(value, list) and "items" in schema:
        return [filled(item, schema["items"]) for item in value]
    if isinstance(value, dict):
        for member in [schema, *schema.get("anyOf", [])]:
            if "properties" in member:
                return {name: filled(value[name], sub) if name in value else None
                        for name, sub in member["properties"].items()}
        return value
    for member in schema.get("anyOf", []):
        if isinstance(value, list) and "items" in member:
            return filled(value, member)
    return value


def test_the_checker_refuses_what_strict_mode_refuses() -> None:
    optional = {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}, "additionalProperties": False}
    assert any("every property must be required" in p for p in strict_problems(optional))
    assert any("'default'" in p for p in strict_problems(optional))
    open_object = {"type": "object", "properties": {}, "required": []}
    assert any("additionalProperties" in p for p in strict_problems(open_object))
    bounded_text = {"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}, "required": ["a"],
                    "additionalProperties": False}
    assert any("'maxLength'" in p for p in strict_problems(bounded_text))
    assert strict_problems(strict_schema(optional)) == []


@pytest.mark.parametrize("server", SERVERS)
def test_every_tool_converts_to_a_strict_schema(server: str) -> None:
    for tool in load_server(server).tools:
        schema = tool.strict_input_schema
        Draft202012Validator.check_schema(schema)
        assert strict_problems(schema) == [], f"{server}.{tool.name}: {strict_problems(schema)}"
        assert strict_schema(schema) == schema, f"{server}.{tool.name}: converting twice changes it"
        entry = tool.openai_schema(strict=True)
        assert entry["function"]["strict"] is True and entry["function"]["parameters"] == schema
        assert strict_function(tool.openai_schema()) == entry
        assert set(schema["properties"]) == set(tool.input_schema.get("properties", {}))


def test_optional_parameters_become_required_and_nullable() -> None:
    tool = tool_of("todo", "list_users")
    assert "page" not in tool.input_schema.get("required", [])
    page = tool.strict_input_schema["properties"]["page"]
    assert "page" in tool.strict_input_schema["required"] and admits_null(page)
    assert "default 1" in page["description"]
    validator = Draft202012Validator(tool.strict_input_schema)
    assert validator.is_valid({"query": None, "project_id": None, "page": None, "per_page": 10})
    assert not validator.is_valid({"query": None, "project_id": None, "page": 2})  # per_page missing


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(EXAMPLES))
def test_a_null_for_an_optional_argument_is_omission(case: tuple[str, str, int]) -> None:
    server, name, index = case
    check_strict_call(server, name, index)


@pytest.mark.slow
@pytest.mark.parametrize("server", SERVERS)
def test_every_example_in_strict_form_answers_like_the_example(server: str) -> None:
    for tool in load_server(server).tools:
        for index in range(len(tool.examples)):
            check_strict_call(server, tool.name, index)


def check_strict_call(server: str, name: str, index: int) -> None:
    tool = tool_of(server, name)
    example = tool.examples[index]
    full = strict_arguments(tool, example)
    Draft202012Validator(tool.strict_input_schema).validate(full)
    answers = []
    with ToolSession(load_server(server), 0) as session:
        for arguments in (example, full):
            result = session.call(name, arguments)
            answers.append((result.ok, result.text, session.diff()))
            session.reset()
    assert answers[0][0], answers[0][1]
    assert answers[1] == answers[0], f"{server}.{name}({full})"


def test_a_null_with_a_meaning_of_its_own_keeps_it() -> None:
    """`pipeline_summary(status=null)` means every status; omitted, it means the default, open."""
    tool = tool_of("crm", "pipeline_summary")
    status = tool.strict_input_schema["properties"]["status"]
    assert '"open"' in status["description"]
    with ToolSession(load_server("crm"), 0) as session:
        default = session.call("pipeline_summary", {})
        every = session.call("pipeline_summary", {"status": None})
        opened = session.call("pipeline_summary", {"status": "open"})
    assert default.ok and every.ok and default.text == opened.text != every.text


def test_nulls_are_dropped_only_where_the_schema_says_optional_and_not_nullable() -> None:
    tool = tool_of("todo", "list_users")
    given_args = {"query": None, "page": None, "per_page": 5}
    kept = copy.deepcopy(given_args)
    assert omit_nulls(given_args, tool.input_schema) == {"query": None, "per_page": 5}
    assert given_args == kept, "the caller's arguments are not changed"
    required = tool_of("todo", "get_task")
    assert omit_nulls({"task_id": None}, required.input_schema) == {"task_id": None}
    with ToolSession(load_server("todo"), 0) as session:
        assert (session.call("get_task", {"task_id": None}).error or "").startswith("invalid_arguments")
        assert (session.call("list_users", {"page": "x"}).error or "").startswith("invalid_arguments")


def test_nested_models_convert_and_take_nulls() -> None:
    nested = [(server, tool) for server in SERVERS for tool in load_server(server).tools if "$defs" in tool.input_schema]
    assert nested, "some tool takes a nested model"
    for server, tool in nested:
        schema = tool.strict_input_schema
        assert "$ref" not in json.dumps(schema), f"{server}.{tool.name}: references left"
        assert strict_problems(schema) == []


def test_the_env_shows_strict_schemas_when_asked() -> None:
    env = gym.make("mcp/todo-v0", strict_tools=True)
    plain = gym.make("mcp/todo-v0")
    try:
        obs, _ = env.reset(seed=0)
        plain_obs, _ = plain.reset(seed=0)
        assert [t["function"]["name"] for t in obs["tools"]] == [t["function"]["name"] for t in plain_obs["tools"]]
        assert all(t["function"]["strict"] is True and strict_problems(t["function"]["parameters"]) == []
                   for t in obs["tools"])
        assert not any("strict" in t["function"] for t in plain_obs["tools"])
        assert env.observation_space.contains(obs)
        arguments = {name: None for name in obs["tools"][0]["function"]["parameters"]["properties"]}
        arguments["email"] = "ann.olson@northwindsystems.com"
        action = {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "get_user_by_email", "arguments": json.dumps(arguments)}}]}
        obs, *_ = env.step(action)
        assert obs["messages"][-1]["role"] == "tool" and '"email"' in obs["messages"][-1]["content"]
    finally:
        env.close()
        plain.close()
    with pytest.raises(ValueError, match="strict_tools"):
        gym.make("mcp/todo-v0", strict_tools="yes")


class RecordingClient:
    """An OpenAI client stand-in that records each request and answers with a final answer."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.chat = self
        self.completions = self
        self.with_streaming_response = self

    @contextmanager
    def create(self, **request: Any) -> Iterator[Any]:
        self.requests.append(request)
        body = json.dumps({"choices": [{"message": {"content": "done"}}]}).encode()

        class Response:
            headers: ClassVar[dict[str, str]] = {"content-type": "application/json"}

            def iter_bytes(self) -> Iterator[bytes]:
                yield body

        yield Response()


@pytest.mark.parametrize("strict", [False, True])
def test_the_chat_agent_sends_strict_schemas_when_asked(strict: bool) -> None:
    pytest.importorskip("openai", reason="the eval extra: pip install 'mcpgym[eval]'")
    tool = tool_of("todo", "list_users")
    client = RecordingClient()
    agent = ChatAgent(base_url="http://127.0.0.1:9/v1", model="m", client=client, strict_tools=strict)
    observation = {"messages": [{"role": "user", "content": "hi"}], "tools": [tool.openai_schema()]}
    assert agent.act(observation) == {"role": "assistant", "content": "done"}
    sent = client.requests[0]["tools"]
    assert sent == ([tool.openai_schema(strict=True)] if strict else [tool.openai_schema()])
