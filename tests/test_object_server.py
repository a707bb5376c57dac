"""Object servers (a backend object's state instead of a database), tools revealed mid-task,
and tasks that keep their tools' own names: the kernel and env parts, without any benchmark."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpgym.baselines.agents import OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.servers.kernel.initial_state import InitialStateError
from mcpgym.servers.kernel.object_server import BackendCall, ObjectServerSpec, ObjectSession, object_tool
from mcpgym.servers.kernel.object_state import ObjectState
from mcpgym.servers.kernel.tools import ToolRegistry, ToolSpec
from mcpgym.tasks.loader import shipped_tasks
from mcpgym.tasks.model import Task


class Shelf:
    """A toy backend: named boxes holding text."""

    def __init__(self, boxes: dict[str, str]) -> None:
        self.boxes = dict(boxes)
        self._calls = 0

    def put(self, name: str, text: str) -> dict[str, Any]:
        if name.startswith("!"):
            self.boxes[name] = "half-done"
            return {"error": f"bad name {name}"}
        self.boxes[name] = text
        return {"stored": name}

    def tag(self, name: str, text: str, labels: list[str]) -> dict[str, Any]:
        """Keeps the list it is given, and adds to it on the next call."""
        self.boxes[name] = text
        self.labels = labels
        self.labels.append(f"#{len(self.labels)}")
        return {"tagged": name}

    def get(self, name: str) -> Any:
        if name == "boom":
            raise RuntimeError("the shelf fell")
        return self.boxes.get(name, "Error: no such box")


def _check(arguments: dict[str, Any]) -> None:
    for key, value in arguments.items():
        if key not in ("name", "text") or not isinstance(value, str):
            raise ValueError(f"{key}: must be a string")


def _run(backend: Shelf, tool: ToolSpec, kwargs: dict[str, Any]) -> BackendCall:
    result = getattr(backend, tool.name)(**kwargs)
    if isinstance(result, dict):
        return BackendCall(text=json.dumps(result), data=result, failed="error" in result)
    return BackendCall(text=str(result), data={"result": result}, failed=str(result).startswith("Error"))


def _create(state: ObjectState | None) -> Shelf:
    boxes = (state.root if state is not None else {}).get("boxes", {})
    if not isinstance(boxes, dict):
        raise InitialStateError("boxes must be an object")
    return Shelf({str(k): str(v) for k, v in boxes.items()})


def shelf_spec(quota: int = 1 << 20) -> ObjectServerSpec:
    tools = ToolRegistry()
    string = {"type": "string", "maxLength": 10_000}
    tools.add(object_tool("put", "Store text in a box.", {"type": "object", "properties": {"name": string, "text": string},
                                                           "required": ["name", "text"], "additionalProperties": False}, _check))
    tools.add(object_tool("tag", "Store and label.", {"type": "object", "properties": {"name": string, "text": string,
                                                                                        "labels": {"type": "array"}},
                                                       "required": ["name", "text", "labels"], "additionalProperties": False},
                          lambda arguments: None))
    tools.add(object_tool("get", "Read a box.", {"type": "object", "properties": {"name": string},
                                                  "required": ["name"], "additionalProperties": False}, _check))
    return ObjectServerSpec(name="shelf", title="Shelf", instructions="A shelf of boxes.", tools=tools, create=_create,
                            run=_run, attributes=lambda shelf: {k: v for k, v in vars(shelf).items() if not k.startswith("_")},
                            storage_quota_bytes=quota)


STATE = ObjectState({"boxes": {"a": "apple"}})


def test_calls_render_as_the_backend_does_and_diff_names_changed_attributes() -> None:
    session = ObjectSession(shelf_spec(), state=STATE)
    initial = session.state_hash()
    assert session.call("get", {"name": "a"}).text == "apple"
    stored = session.call("put", {"name": "b", "text": "pear"})
    assert stored.ok and stored.text == '{"stored": "b"}' and stored.data == {"stored": "b"}
    [change] = session.diff()
    assert (change.table, change.key, change.after) == ("state", "boxes", {"value": {"a": "apple", "b": "pear"}})
    assert session.state_hash() != initial
    session.reset()
    assert session.state_hash() == initial and session.diff() == []


def test_a_backend_that_keeps_its_arguments_never_changes_the_callers_copy() -> None:
    session = ObjectSession(shelf_spec(), state=STATE)
    arguments = {"name": "b", "text": "t", "labels": ["x"]}
    assert session.call("tag", arguments).ok
    assert arguments == {"name": "b", "text": "t", "labels": ["x"]} and session.backend.labels == ["x", "#1"]


def test_bad_arguments_and_unknown_tools_change_nothing() -> None:
    session = ObjectSession(shelf_spec(), state=STATE)
    before = session.state_hash()
    for name, arguments in [("put", {"name": 3, "text": "x"}), ("put", ["a"]), ("nope", {}), ("put", {"name": "a"})]:
        result = session.call(name, arguments)
        assert not result.ok and result.error.split(":")[0] in ("invalid_arguments", "unknown_tool"), result.error
    assert session.state_hash() == before


def test_backend_errors_are_shown_as_its_benchmark_shows_them_and_keep_what_it_changed() -> None:
    session = ObjectSession(shelf_spec(), state=STATE)
    refused = session.call("put", {"name": "!x", "text": "y"})
    assert not refused.ok and refused.error == '{"error": "bad name !x"}'
    assert session.backend.boxes["!x"] == "half-done", "the backend's semantics rule: its partial change stays"
    raised = session.call("get", {"name": "boom"})
    assert not raised.ok and raised.error == "Error during execution: the shelf fell"


def test_storage_quota_refuses_and_undoes_the_call_that_exceeds_it() -> None:
    session = ObjectSession(shelf_spec(quota=30_000), state=STATE)
    for index in range(3):
        assert session.call("put", {"name": f"k{index}", "text": "x" * 9_000}).ok
    before = session.state_hash()
    refused = session.call("put", {"name": "k9", "text": "y" * 9_000})
    assert not refused.ok and refused.error.startswith("forbidden:")
    assert session.state_hash() == before, "the call over the quota is undone"
    small = ObjectSession(shelf_spec(quota=5_000), state=STATE)
    assert not small.call("put", {"name": "k", "text": "z" * 9_000}).ok
    assert small.diff() == [], "with no copy kept, the session is back in its initial state"


def test_a_state_the_backend_cannot_load_is_refused_before_anything_changes() -> None:
    spec = shelf_spec()
    with pytest.raises(InitialStateError):
        spec.check_state(ObjectState({"boxes": ["not", "an", "object"]}))
    with pytest.raises(InitialStateError):
        spec.check_state(Task.model_validate({"id": "t", "servers": ["zendesk"], "turns": [{"user": "u"}],
                                              "initial_state": {"zendesk": []}}).initial_state["zendesk"])
    session = ObjectSession(spec, state=STATE)
    with pytest.raises(InitialStateError):
        session.reset(state=ObjectState({"boxes": 3}))
    assert session.call("get", {"name": "a"}).text == "apple"


REVEALED = "add_comment"


def _revealing_task() -> Task:
    """The two-turn billing audit with its second turn's write tool held back until then."""
    [task] = [t for t in shipped_tasks(["zendesk"]) if t.id == "zendesk-billing-queue-audit"]
    data = task.model_dump(mode="json")
    data["id"] = "zendesk-audit-revealed"
    data["turns"][1]["reveals"] = [{"tool": REVEALED}]
    return Task.model_validate(data)


def test_a_tool_revealed_at_a_turn_is_hidden_and_refused_before_it() -> None:
    task = _revealing_task()
    env = make_env(["zendesk"], tasks=[task])
    observation, _ = env.reset(options={"task": task.id})
    assert REVEALED not in {t["function"]["name"] for t in observation["tools"]}
    call = '<tool_call>{"name": "add_comment", "arguments": {"ticket_id": 1380, "body": "early"}}</tool_call>'
    observation, *_ = env.step(call)
    assert observation["messages"][-1]["content"].startswith("unknown_tool:")
    assert env.toolbox.diff() == {}
    observation, *_ = env.step("Six.")
    assert REVEALED in {t["function"]["name"] for t in observation["tools"]}
    assert run_episode(make_env(["zendesk"], tasks=[task]), OracleAgent(), task.id).reward == pytest.approx(1.0)


def test_a_task_cannot_call_a_tool_before_its_turn_reveals_it() -> None:
    data = _revealing_task().model_dump(mode="json")
    data["turns"][0]["reveals"] = []
    data["turns"][1]["reveals"] = []
    data["turns"][1]["reveals"] = [{"tool": "list_groups"}]
    with pytest.raises(ValueError, match="revealed only from turn 1"):
        Task.model_validate(data)


def test_own_tool_names_across_servers() -> None:
    [task] = [t for t in shipped_tasks(["zendesk"]) if t.id == "zendesk-billing-queue-audit"]
    data = task.model_dump(mode="json")
    data.update(id="own-names", servers=["zendesk", "calendar"], tool_names="own")
    own = Task.model_validate(data)
    env = make_env(["zendesk", "calendar"], tasks=[own])
    observation, _ = env.reset(options={"task": own.id})
    names = {t["function"]["name"] for t in observation["tools"]}
    assert "list_groups" in names and "zendesk_list_groups" not in names
    assert run_episode(env, OracleAgent(), own.id).reward == pytest.approx(1.0)
    prefixed = Task.model_validate({**data, "id": "env-names", "tool_names": "env"})
    observation, _ = env.reset(options={"task": prefixed})
    assert "zendesk_list_groups" in {t["function"]["name"] for t in observation["tools"]}
    assert "tool_names" not in prefixed.model_dump_json() and "tool_names" in own.model_dump_json()


def test_own_names_that_collide_are_refused() -> None:
    [task] = [t for t in shipped_tasks(["zendesk"]) if t.id == "zendesk-billing-queue-audit"]
    data = task.model_dump(mode="json")
    data.update(id="clash", servers=["zendesk", "docs"], tool_names="own")
    with pytest.raises(ValueError, match="both have a tool named"):
        make_env(["zendesk", "docs"], tasks=[Task.model_validate(data)])


def test_max_turn_steps_cuts_an_episode_that_keeps_calling_within_one_request() -> None:
    task = _revealing_task()
    call = '<tool_call>{"name": "list_groups", "arguments": {}}</tool_call>'
    env = make_env(["zendesk"], tasks=[task], max_turn_steps=2)
    env.reset(options={"task": task.id})
    assert env.step(call)[3] is False and env.step(call)[3] is False
    *_, terminated, truncated, info = env.step(call)
    assert truncated and not terminated and len(info["calls"]) == 3, "the step beyond the bound runs, then the cut"
    env.reset(options={"task": task.id})
    for action in (call, call, "Six.", call, call):  # an answer starts the count again
        _, _, terminated, truncated, _ = env.step(action)
        assert not terminated and not truncated
    unbounded = make_env(["zendesk"], tasks=[task])
    unbounded.reset(options={"task": task.id})
    assert not any(unbounded.step(call)[3] for _ in range(5))
    with pytest.raises(ValueError, match="max_turn_steps"):
        make_env(["zendesk"], max_turn_steps=0)
