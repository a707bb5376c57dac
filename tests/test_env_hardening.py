"""Hostile and careless use of the environment: huge or deep actions, stepping past the end,
bad options, the call budget, custom rewards, observations an agent mutates, installs."""

from __future__ import annotations

import copy
import itertools
import json
import math
import pickle
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.error import ResetNeeded
from hypothesis import given, settings
from hypothesis import strategies as st

import mcpgym  # noqa: F401  (registers the ids)
from mcpgym.envs import make_env
from mcpgym.envs.actions import FORMAT_HINT, parse_action
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.tasks.loader import TASK_SETS

TASK = "zendesk-urgent-requester"
GUARD_S = 30.0
"""A quadratic parser takes minutes on the adversarial actions below; a linear one well under
a second. The guard only turns a hang into a failure: it is not a timing assertion."""


def call(name: str, **arguments: object) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def within_guard(fn: Callable[[], Any]) -> Any:
    """Run `fn` in a worker thread; fail (instead of hanging) if it is not done in GUARD_S."""
    done: dict[str, Any] = {}

    def target() -> None:
        try:
            done["value"] = fn()
        except BaseException as err:  # noqa: BLE001  (re-raised below)
            done["error"] = err

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(GUARD_S)
    assert not worker.is_alive(), f"still running after {GUARD_S} s: parsing is not linear"
    if "error" in done:
        raise done["error"]
    return done["value"]


def fresh(**kwargs: Any) -> McpEnv:
    env = make_env(["zendesk"], **kwargs)
    env.reset(options={"task": TASK})
    return env


def snapshot(env: McpEnv) -> tuple[Any, ...]:
    """Everything a refused step must leave as it was."""
    return (env.toolbox.state_hash(), env.trajectory.model_dump(), env._turn, env._budget_used)


# ---------------------------------------------------------------- 1. linear parsing

OLD_TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
OLD_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL)


def old_parse_text(text: str) -> tuple[list[tuple[str, dict[str, Any]]], list[str], str, str]:
    """The regex parser this module replaced: (calls, errors, content, answer)."""
    calls, errors = [], []
    for number, block in enumerate(OLD_TOOL_CALL.findall(text), start=1):
        where = f"tool call {number}"
        try:
            raw = json.loads(block)
        except json.JSONDecodeError as err:
            errors.append(f"format_error: {where} is not valid JSON ({err.msg} at char {err.pos}). {FORMAT_HINT}")
            continue
        if not isinstance(raw, dict):
            errors.append(f"format_error: {where} must be a JSON object with 'name' and 'arguments'. {FORMAT_HINT}")
            continue
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            errors.append(f"format_error: {where} has no tool 'name'. {FORMAT_HINT}")
            continue
        arguments = raw.get("arguments", raw.get("parameters", {}))
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError as err:
                errors.append(f"format_error: arguments of {name} are not valid JSON ({err.msg} at char {err.pos}).")
                continue
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            errors.append(f"format_error: arguments of {name} must be a JSON object, got {type(arguments).__name__}.")
            continue
        calls.append((name, arguments))
    content = OLD_TOOL_CALL.sub("", text)
    if "<tool_call>" in content or "</tool_call>" in content:
        errors.append(f"format_error: a <tool_call> tag is not closed or not opened. {FORMAT_HINT}")
        content = content.replace("<tool_call>", "").replace("</tool_call>", "")
    content = content.strip()
    return calls, errors, content, OLD_THINKING.sub("", content).strip()


FRAGMENTS = st.sampled_from(
    [
        "<tool_call>", "</tool_call>", "<think>", "</think>", "<tool_", "call>", "</", "<",
        '{"name": "get_ticket", "arguments": {"ticket_id": 1}}', '{"name": "x", "arguments": "{\\"a\\": 2}"}',
        '{"name": "y"}', '{"arguments": {}}', "[1]", "{", "}", '"', " ", "\n", "hello", "42",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(FRAGMENTS | st.text(max_size=6), max_size=14).map("".join))
def test_the_linear_parser_agrees_with_the_regex_parser(text: str) -> None:
    counter = itertools.count(1)
    turn = parse_action(text, lambda: f"call_{next(counter)}")
    calls, errors, content, answer = old_parse_text(text)
    assert [(c.name, c.arguments) for c in turn.calls] == calls
    assert [e.message for e in turn.errors] == errors
    assert (turn.content, turn.answer) == (content, answer)
    assert turn.message["content"] == text


@pytest.mark.parametrize(
    "unit", ["<tool_call>", "<think>", "<tool_call><think>", "<tool_call>{", "</tool_call><tool_call>"]
)
def test_a_megabyte_of_unclosed_tags_is_parsed_in_linear_time(unit: str) -> None:
    text = unit * (1_100_000 // len(unit))
    turn = within_guard(lambda: parse_action(text, lambda: "call_1", max_chars=len(text)))
    assert turn.calls == [] and bool(turn.errors) == ("tool_call" in unit)
    assert within_guard(lambda: turn.answer) == turn.content  # every tag is unclosed: nothing to strip


def test_a_megabyte_action_is_answered_by_step_with_its_parser_in_linear_time() -> None:
    """Raised limit: the env really parses the megabyte, and answers it."""
    env = fresh(max_action_chars=2_000_000)
    before = snapshot(env)
    obs, reward, terminated, truncated, info = within_guard(lambda: env.step("<tool_call>" * 100_000))
    assert obs["messages"][-1]["content"].startswith("format_error: a <tool_call> tag is not closed")
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert snapshot(env)[0] == before[0]


def test_an_action_over_the_limit_is_refused_unread_and_changes_nothing() -> None:
    env = fresh()
    before = snapshot(env)
    action = call("update_ticket", ticket_id=1486, priority="urgent") + "<think>" * 200_000
    obs, reward, terminated, truncated, info = within_guard(lambda: env.step(action))
    assert "more than the limit of 64,000" in obs["messages"][-1]["content"]
    assert obs["messages"][-1]["content"].startswith("format_error:")
    assert len(obs["messages"][-2]["content"]) < 64_100  # the refused turn is kept, cut
    assert env.toolbox.state_hash() == before[0]
    assert [c["status"] for c in info["calls"]] == ["malformed"]
    assert not terminated and not truncated


def test_max_action_chars_is_an_option_with_a_bound() -> None:
    env = fresh(max_action_chars=300)
    obs, *_ = env.step(call("get_ticket", ticket_id=1380) + " " * 300)
    assert "more than the limit of 300" in obs["messages"][-1]["content"]
    obs, *_ = env.step(call("get_ticket", ticket_id=1380))
    assert json.loads(obs["messages"][-1]["content"])["id"] == 1380
    with pytest.raises(ValueError, match="max_action_chars"):
        make_env(["zendesk"], max_action_chars=10)


# ---------------------------------------------------------------- 2. values json cannot take


def deep(levels: int) -> str:
    return '{"a": ' * levels + "1" + "}" * levels


HOSTILE_ACTIONS = {
    "deep JSON (recursion)": '<tool_call>{"name": "get_ticket", "arguments": ' + deep(30_000)[:-1] + "}</tool_call>",
    "deep JSON (over the depth bound)": '<tool_call>{"name": "get_ticket", "arguments": ' + deep(40) + "}</tool_call>",
    "deep JSON string arguments": json.dumps(
        {"tool_calls": [{"id": "c", "function": {"name": "get_ticket", "arguments": deep(5_000)}}]}
    ),
    "5,000-digit number": '<tool_call>{"name": "get_ticket", "arguments": {"ticket_id": ' + "9" * 5_000 + "}}</tool_call>",
    "2,000-digit number": '<tool_call>{"name": "get_ticket", "arguments": {"ticket_id": ' + "9" * 2_000 + "}}</tool_call>",
}


def dict_action(arguments: Any, content: Any = "") -> dict[str, Any]:
    return {"role": "assistant", "content": content, "tool_calls": [{"id": "c1", "function": {"name": "get_ticket", "arguments": arguments}}]}


def nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


HOSTILE_DICTS = {
    "bytes": dict_action({"ticket_id": b"1380"}),
    "a set": dict_action({"ticket_id": {1380}}),
    "bytes content": dict_action({"ticket_id": 1380}, content=b"hi"),
    "an object": dict_action({"ticket_id": object()}),
    "a non-string key": dict_action({1: 1380}),
    "a 5,000-digit int": dict_action({"ticket_id": 10**5_000}),
    "deep nesting": dict_action(nested(100_000)),
    "too long": dict_action({"body": "x" * 70_000}),
    "too long a call list": {"tool_calls": [{"id": str(n), "function": {"name": "get_ticket"}} for n in range(20_000)]},
    "too many calls": {"tool_calls": [{"function": {"name": "list_groups"}}] * 129},
}


@pytest.mark.parametrize("name", list(HOSTILE_ACTIONS))
def test_hostile_text_json_is_a_format_error_not_an_exception(name: str) -> None:
    env = fresh()
    before = snapshot(env)
    action = HOSTILE_ACTIONS[name]
    if name == "deep JSON string arguments":
        action = json.loads(action)
    obs, reward, terminated, truncated, info = env.step(action)
    errors = [m["content"] for m in obs["messages"] if m["content"].startswith("format_error")]
    assert errors and info["errors"] and not terminated and not truncated
    assert env.toolbox.state_hash() == before[0] and env._budget_used == 0
    assert all(c["status"] == "malformed" for c in info["calls"])
    json.dumps(obs)


@pytest.mark.parametrize("name", list(HOSTILE_DICTS))
def test_hostile_dict_actions_are_format_errors_not_exceptions(name: str) -> None:
    env = fresh()
    before = snapshot(env)
    obs, reward, terminated, truncated, info = env.step(HOSTILE_DICTS[name])
    assert obs["messages"][-1]["content"].startswith("format_error:"), obs["messages"][-1]
    assert not terminated and not truncated and env.toolbox.state_hash() == before[0]
    assert env._budget_used == 0
    json.dumps(obs)
    pickle.loads(pickle.dumps(obs))


def test_a_turn_of_more_than_128_calls_is_refused_unread() -> None:
    env = fresh(max_calls=1_000)
    for action in ("<tool_call></tool_call>" * 1_000, call("list_groups") * 129):
        obs, *_ = env.step(action)
        assert "more than 128 tool calls" in obs["messages"][-1]["content"]
        assert len(obs["messages"]) == 4 and env._budget_used == 0
        env.reset(options={"task": TASK})
    obs, *_ = env.step(call("list_groups") * 128)
    assert env._budget_used == 128 and sum(m["role"] == "tool" for m in obs["messages"]) == 128


def test_bounded_values_within_the_limits_still_run() -> None:
    env = fresh()
    within = '{"name": "get_ticket", "arguments": {"ticket_id": 1380, "x": ' + deep(10) + "}}"
    obs, *_ = env.step(f"<tool_call>{within}</tool_call>")
    assert obs["messages"][-1]["content"].startswith("invalid_arguments:")  # reached the tool, which refused x
    obs, *_ = env.step(dict_action({"ticket_id": 1380}))
    assert json.loads(obs["messages"][-1]["content"])["id"] == 1380


# ---------------------------------------------------------------- 3. stepping past the end


@pytest.mark.parametrize("ending", ["terminated", "truncated"])
def test_step_after_the_end_raises_and_changes_nothing(ending: str) -> None:
    env = fresh(max_turns=2) if ending == "truncated" else fresh()
    if ending == "truncated":
        env.step(call("list_groups"))
    obs, reward, terminated, truncated, info = env.step("Done." if ending == "terminated" else call("list_groups"))
    assert (terminated, truncated) == ((True, False) if ending == "terminated" else (False, True))
    before = snapshot(env)
    messages = list(env._messages)
    for action in ("Done.", call("update_ticket", ticket_id=1486, priority="urgent")):
        with pytest.raises(ResetNeeded, match="episode has ended"):
            env.step(action)
    assert snapshot(env) == before and env._messages == messages
    obs, info = env.reset(options={"task": TASK})
    assert len(obs["messages"]) == 2 and env.step("Done.")[2]


def test_step_before_reset_raises() -> None:
    env = make_env(["zendesk"])
    with pytest.raises(ResetNeeded, match="reset"):
        env.step("hi")


# ---------------------------------------------------------------- 4. options


def test_bad_reset_options_are_clear_errors() -> None:
    env = fresh()
    count = len(env.tasks)
    with pytest.raises(ValueError, match=r"unknown option 'bogus'.*accepted: task"):
        env.reset(options={"bogus": 1})
    with pytest.raises(ValueError, match="task"):
        env.reset(options={"task": 1.5})
    with pytest.raises(ValueError, match="task"):
        env.reset(options={"task": True})
    with pytest.raises(ValueError, match="reset options"):
        env.reset(options=["task"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=f"this env has {count} tasks"):
        env.reset(options={"task": 999})
    with pytest.raises(ValueError, match="out of range"):
        env.reset(options={"task": -1})
    with pytest.raises(KeyError, match="no task with id"):
        env.reset(options={"task": "x" * 10_000})
    obs, info = env.reset(options={"task": count - 1})
    assert info["task_id"] == env.tasks[-1].id


def test_bad_env_options_are_clear_errors() -> None:
    with pytest.raises(TypeError, match="bogus"):
        gym.make("mcp/zendesk-v0", bogus=1)
    with pytest.raises(ValueError, match="max_turns"):
        gym.make("mcp/zendesk-v0", max_turns="5")
    with pytest.raises(ValueError, match="max_calls"):
        make_env(["zendesk"], max_calls=0)
    with pytest.raises(ValueError, match="shaping"):
        make_env(["zendesk"], shaping="yes")
    with pytest.raises(ValueError, match="render_mode"):
        make_env(["zendesk"], render_mode="human")
    with pytest.raises(ValueError, match="'dense', 'outcome-only', 'process-only'"):
        gym.make("mcp/zendesk-v0", reward="bogus")
    with pytest.raises(ValueError, match=", ".join(TASK_SETS)):
        gym.make("mcp/zendesk-v0", tasks="nope")


# ---------------------------------------------------------------- 5. the call budget


def test_every_call_past_the_budget_gets_its_own_answer_across_turns() -> None:
    env = fresh(max_calls=2)
    obs, *_ = env.step(call("list_groups"))
    obs, reward, terminated, truncated, info = env.step(call("list_groups") + call("get_ticket", ticket_id=1380) + call("list_groups"))
    replies = [m for m in obs["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in replies] == ["call_1", "call_2", "call_3", "call_4"]
    assert [m["content"].startswith("budget_exceeded") for m in replies] == [False, False, True, True]
    assert truncated and [c["status"] for c in info["calls"]] == ["ok", "ok", "rejected", "rejected"]
    assert sum(e.startswith("budget_exceeded") for e in info["errors"]) == 2


# ---------------------------------------------------------------- 6. custom rewards


class Scored:
    """A breakdown-like object: `.reward` and `.model_dump()`."""

    reward = 0.25

    def model_dump(self) -> dict[str, Any]:
        return {"reward": self.reward, "mine": 1}


@pytest.mark.parametrize(
    ("result", "reward", "breakdown"),
    [
        (0.75, 0.75, {"reward": 0.75}),
        (1, 1.0, {"reward": 1.0}),
        ({"reward": 0.5, "answer": 1.0}, 0.5, {"reward": 0.5, "answer": 1.0}),
        ({"answer": 0.25, "state": 0.5, "note": "x"}, 0.75, {"reward": 0.75, "answer": 0.25, "state": 0.5, "note": "x"}),
        (Scored(), 0.25, {"reward": 0.25, "mine": 1}),
    ],
)
def test_a_custom_reward_may_return_a_number_a_mapping_or_a_breakdown(result: Any, reward: float, breakdown: dict[str, Any]) -> None:
    env = fresh(reward=lambda task, trajectory: result)
    obs, paid, terminated, truncated, info = env.step("Done.")
    assert terminated and paid == reward and info["reward_breakdown"] == breakdown


@pytest.mark.parametrize(("result", "error"), [("high", TypeError), (math.nan, ValueError), ({"reward": "x"}, TypeError), (None, TypeError)])
def test_a_custom_reward_of_another_kind_is_a_clear_error(result: Any, error: type[Exception]) -> None:
    env = fresh(reward=lambda task, trajectory: result)
    with pytest.raises(error, match="reward"):
        env.step("Done.")


def test_shaping_with_a_float_reward_pays_the_increase() -> None:
    env = make_env(["zendesk"], reward=lambda task, trajectory: 0.5 * len(trajectory.answers), shaping=True)
    env.reset(options={"task": "zendesk-billing-queue-audit"})
    assert env.step("first")[1] == 0.5 and env.step("second")[1] == 0.5


# ---------------------------------------------------------------- 8. shared, read-only observations


def test_observations_are_read_only_snapshots_that_are_free_to_copy() -> None:
    env = make_env(["zendesk"])
    first, _ = env.reset(options={"task": TASK})
    obs, _, _, _, info = env.step(call("get_ticket", ticket_id=1380))
    with pytest.raises(TypeError, match="read-only"):
        obs["messages"].append({"role": "user", "content": "injected"})
    with pytest.raises(TypeError, match="read-only"):
        obs["messages"][0]["content"] = "changed"
    with pytest.raises(TypeError, match="read-only"):
        obs["messages"][-2]["tool_calls"][0]["function"]["name"] = "x"
    with pytest.raises(TypeError, match="read-only"):
        obs["tools"][0]["function"]["name"] = "x"
    with pytest.raises(TypeError, match="read-only"):
        info["calls"][0]["status"] = "ok"
    assert len(first["messages"]) == 2  # earlier observations do not grow
    mine = [dict(m) for m in obs["messages"]] + [{"role": "user", "content": "more"}]
    mine[0]["content"] = "mine"
    later, *_ = env.step("Done.")
    assert later["messages"][0]["content"] == env._view.system and len(later["messages"]) == 5
    copied = copy.deepcopy(later)
    assert copied == later and copied["messages"] is later["messages"]
    assert pickle.loads(pickle.dumps(later)) == later
    assert json.loads(json.dumps(later)) == later


def test_info_calls_are_cumulative_and_dumped_once() -> None:
    env = fresh()
    _, _, _, _, first = env.step(call("get_ticket", ticket_id=1380))
    _, _, _, _, second = env.step(call("get_user", user_id=594) + "<tool_call>{bad</tool_call>")
    assert [c["tool"] for c in second["calls"]] == ["get_ticket", "", "get_user"]  # malformed ones first, as answered
    assert second["calls"][0] is first["calls"][0] and len(first["calls"]) == 1
    assert second["calls"][0] == env.trajectory.calls[0].model_dump()


# ---------------------------------------------------------------- 7. registration


def run_in_fresh_interpreter(code: str, python: str = sys.executable) -> str:
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120, cwd="/")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_module_qualified_id_works_in_a_fresh_interpreter() -> None:
    out = run_in_fresh_interpreter(
        "import gymnasium as gym\nenv = gym.make('mcpgym:mcp/zendesk-v0')\nprint(type(env.unwrapped).__name__)"
    )
    assert out.strip() == "McpEnv"


@pytest.mark.slow
def test_an_editable_install_registers_the_ids(tmp_path: Path) -> None:
    """`pip install -e` of a copy of the project into a throwaway venv (dependencies borrowed
    from this one through a path file, no network): `gym.make` works with no import."""
    root = Path(__file__).resolve().parents[1]
    tree = tmp_path / "tree"
    shutil.copytree(root, tree, ignore=shutil.ignore_patterns(".venv", ".git", "build", "runs", "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.base_prefix + "/bin/python3", "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    here = next(p for p in sys.path if p.endswith("site-packages") and Path(p, "gymnasium").is_dir())
    (site / "a_dependencies.pth").write_text(here + "\n")
    python = str(venv / "bin" / "python")
    install = [python, "-m", "pip", "install", "-q", "-e", str(tree), "--no-deps", "--no-build-isolation"]
    subprocess.run(install, check=True, capture_output=True, timeout=300)
    assert (site / "mcpgym.pth").is_file()
    out = run_in_fresh_interpreter(
        "import gymnasium as gym, sys\nenv = gym.make('mcp/zendesk-v0')\n"
        "print(type(env.unwrapped).__name__, sys.modules['mcpgym'].__file__)",
        python,
    )
    assert out.split() == ["McpEnv", str(tree / "mcpgym" / "__init__.py")]
