"""Every tool of every server, generically: schemas, descriptions, examples that work,
bad ids and wrong types that fail cleanly, and MCP answering exactly like the in-process path.

A new server gets all of this by being installed (an `mcpgym.servers` entry point); mcpgym's
own servers have at least 15 tools each.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp
import pytest
from jsonschema import Draft202012Validator
from mcp_clients import text_of

from mcpgym.envs.options import EnvOptions
from mcpgym.servers.catalog import discovered, load_server, server_names
from mcpgym.servers.kernel.mcp_server import SessionPool, build_mcp_server
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.kernel.tools import ToolSpec

MIN_TOOLS = {"zendesk": 17}
AGENT_READS = EnvOptions.model_fields["max_result_chars"].default
"""Characters of a tool result an env passes to the agent by default."""
CASES = [(name, tool.name) for name in server_names() for tool in load_server(name).tools]


def tool_of(server: str, name: str) -> ToolSpec:
    found = load_server(server).tools.get(name)
    assert found is not None
    return found


def test_every_server_has_enough_reads_and_writes(spec: ServerSpec) -> None:
    tools = list(spec.tools)
    builtin = discovered()[spec.name].distribution == "mcpgym"
    assert len(tools) >= (MIN_TOOLS.get(spec.name, 15) if builtin else 1)
    assert any(t.writes for t in tools) and any(not t.writes for t in tools)
    assert spec.instructions.strip() and spec.title.strip()


@pytest.mark.parametrize(("server", "name"), CASES)
def test_schema_and_description(server: str, name: str) -> None:
    tool = tool_of(server, name)
    assert tool.description.strip() and len(tool.description) >= 20
    Draft202012Validator.check_schema(tool.input_schema)
    Draft202012Validator.check_schema(tool.output_schema)
    assert tool.input_schema["type"] == "object" and tool.input_schema.get("additionalProperties") is False
    for prop, schema in tool.input_schema.get("properties", {}).items():
        described = "description" in schema or "$ref" in schema or any("description" in s for s in schema.get("anyOf", []))
        assert described, f"{server}.{name}: argument {prop} has no description"


def id_arguments(example: dict[str, Any]) -> list[str]:
    return [k for k, v in example.items() if (k == "id" or k.endswith("_id")) and isinstance(v, int | str) and not isinstance(v, bool)]


@pytest.mark.parametrize(("server", "name"), CASES)
def test_examples_work_and_bad_ids_fail_cleanly(server: str, name: str) -> None:
    """Each example answers, within what an env shows an agent by default (a longer answer
    would reach the agent, and the oracle, cut); a wrong id or argument fails and changes nothing
    (by the change log; tests/test_kernel_speed_paths.py checks it against a full comparison)."""
    tool = tool_of(server, name)
    assert tool.examples, f"{server}.{name} has no example"
    spec = load_server(server)
    with ToolSession(spec, 0) as session:
        for example in tool.examples:
            Draft202012Validator(tool.input_schema).validate(example)
            result = session.call(name, example)
            assert result.ok, f"{server}.{name}({example}): {result.error}"
            Draft202012Validator(tool.output_schema).validate(result.data)
            assert len(result.text) <= AGENT_READS, f"{server}.{name}({example}): {len(result.text)} characters"
            assert bool(session.diff()) == tool.writes
            session.reset()
            for key in id_arguments(example):
                missing = 987654321 if isinstance(example[key], int) else "does-not-exist-0000"
                bad = session.call(name, {**example, key: missing})
                assert not bad.ok, f"{server}.{name} accepted {key}={missing!r}"
                assert (bad.error or "").split(":")[0] in {"not_found", "invalid_arguments"}, bad.error
                assert not session.diff()
            wrong = session.call(name, {**example, "unexpected_argument": 1})
            assert (wrong.error or "").startswith("invalid_arguments:")
            assert not session.diff()


def test_mcp_answers_every_example_like_the_in_process_path(spec: ServerSpec) -> None:
    calls = [(t.name, e) for t in spec.tools for e in t.examples]
    calls += [(t.name, {"unexpected_argument": 1}) for t in spec.tools]
    local: list[tuple[bool, str]] = []
    with ToolSession(spec, 0) as session:
        for name, arguments in calls:
            result = session.call(name, arguments)
            local.append((not result.ok, result.text))

    async def main() -> list[tuple[bool, str]]:
        answers = []
        async with mcp.Client(build_mcp_server(SessionPool(spec))) as client:
            assert len((await client.list_tools()).tools) == len(spec.tools)
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                answers.append((bool(result.is_error), text_of(result)))
        return answers

    assert anyio.run(main) == local


DESTRUCTIVE_VERBS = ("delete", "remove", "cancel", "archive", "trash", "purge", "empty", "merge", "release", "leave",
                     "unpin", "suspend")
"""Write tools whose name starts with one of these take away what was there. Other writes say
for themselves whether they overwrite (an update in a wiki that keeps every version does not)."""


def test_writes_that_delete_or_overwrite_say_so(spec: ServerSpec) -> None:
    undeclared = [t.name for t in spec.tools if t.writes and t.name.startswith(DESTRUCTIVE_VERBS) and not t.destructive]
    assert not undeclared, f"writes that delete, cancel or overwrite without destructive=True: {undeclared}"
    assert all(t.writes for t in spec.tools if t.destructive)
    assert all(t.idempotent for t in spec.tools if not t.writes), "every read is idempotent"
    assert all(t.title and t.title[0].isupper() for t in spec.tools)


def test_a_page_past_the_end_is_empty_with_the_true_total(spec: ServerSpec) -> None:
    with ToolSession(spec, 0) as session:
        for tool in spec.tools:
            if tool.writes or not tool.examples or "page" not in tool.input_schema.get("properties", {}):
                continue
            first = session.call(tool.name, {**tool.examples[0], "page": 1})
            past = session.call(tool.name, {**tool.examples[0], "page": 999})
            assert first.ok and past.ok, f"{tool.name}: {past.error}"
            assert first.data is not None and past.data is not None
            lists = [value for value in past.data.values() if isinstance(value, list)]
            assert lists and not any(lists), f"{tool.name}: page 999 is not empty"
            if "total" in first.data:
                assert past.data["total"] == first.data["total"], tool.name


@pytest.mark.parametrize("render_mode", [None, "ansi"])
def test_gymnasium_check_env_passes_without_warnings(render_mode: str | None) -> None:
    """Gymnasium's own checker finds nothing to warn about (the render fps is declared)."""
    import warnings

    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    from mcpgym.envs.mcp_env import McpEnv

    assert isinstance(McpEnv.metadata.get("render_fps"), int)
    env = gym.make("mcp/todo-v0", render_mode=render_mode)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env.unwrapped, skip_render_check=render_mode is None)
    finally:
        env.close()
    gym_warnings = [str(w.message) for w in caught if "gymnasium" in w.filename or "fps" in str(w.message)]
    assert not gym_warnings, gym_warnings
