"""Recorded ground truth: completion records each call's bound values, verification checks
them against execution, scoring reads them without executing anything, and a task file
without them still scores the same (executed once, on a warm toolbox)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from mcpgym.baselines.adversarial import FirstCallOnlyAgent
from mcpgym.baselines.agents import Agent, NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.tasks.trajectory import Trajectory
from mcpgym.rewards import PRESETS, Rewarder, score
from mcpgym.rewards.ground_truth import GroundTruths, executed_ground_truth, recorded_ground_truth
from mcpgym.tasks import execute
from mcpgym.tasks.execute import WarmToolbox, complete_task, execute_task, verify_task
from mcpgym.tasks.loader import parse_tasks, shipped_tasks, synthesized_tasks
from mcpgym.tasks.model import Task

HANDWRITTEN = shipped_tasks()
SYNTHESIZED = synthesized_tasks()
SAMPLE = [*HANDWRITTEN, *random.Random(0).sample(SYNTHESIZED, 40)]
"""Every hand-written task and a fixed sample of the synthesized ones."""
BOUND = next(t for t in HANDWRITTEN if any(c.bind for c in t.calls))
"""A task with at least one bound argument."""
WARM = WarmToolbox()
"""A warm toolbox shared by the tests of this module (hypothesis tests cannot take fixtures)."""


def stripped(task: Task) -> Task:
    """The task as a file written before `bound` was recorded holds it."""
    line = task.model_dump_json(exclude={"turns": {"__all__": {"calls": {"__all__": {"bound"}}}}})
    assert '"bound"' not in line
    return parse_tasks([line])[0]


def with_bound(task: Task, call_id: str, bound: dict[str, object] | None) -> Task:
    turns = [
        turn.model_copy(
            update={"calls": [c.model_copy(update={"bound": bound}) if c.id == call_id else c for c in turn.calls]}
        )
        for turn in task.turns
    ]
    return task.model_copy(update={"turns": turns})


@pytest.fixture(scope="module")
def warm() -> Iterator[WarmToolbox]:
    yield WARM
    WARM.close()


def play(task: Task, agent: Agent) -> Trajectory:
    env = make_env(task.servers)
    run_episode(env, agent, task)
    env.close()
    return env.trajectory


def test_every_shipped_task_records_its_truth() -> None:
    assert all(task.truth_recorded for task in [*HANDWRITTEN, *SYNTHESIZED])
    assert sum(bool(c.bound) for t in SYNTHESIZED for c in t.calls) > 1000


@pytest.mark.parametrize("task", SAMPLE, ids=[t.id for t in SAMPLE])
def test_recorded_truth_equals_executed_truth(task: Task, warm: WarmToolbox) -> None:
    assert recorded_ground_truth(task) == executed_ground_truth(task, warm.execute(task))


@pytest.mark.slow
def test_recorded_truth_equals_executed_truth_for_every_synthesized_task(warm: WarmToolbox) -> None:
    for task in SYNTHESIZED:
        assert recorded_ground_truth(task) == executed_ground_truth(task, warm.execute(task)), task.id


def test_the_warm_toolbox_executes_as_a_new_toolbox_does(warm: WarmToolbox) -> None:
    """A write of one task leaves nothing behind for the next, on any server set."""
    writing = [t for t in SAMPLE if t.expected_changes]
    fresh = {task.id: execute_task(task) for task in writing}
    for task in [*writing, *reversed(writing)]:
        assert warm.execute(task) == fresh[task.id], task.id


def test_the_warm_toolbox_grows_to_the_servers_it_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[CountedToolbox] = []

    class CountedToolbox(execute.Toolbox):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            self.closed = False
            made.append(self)

        def close(self) -> None:
            self.closed = True
            super().close()

    zendesk, crm = (next(t for t in HANDWRITTEN if t.servers == [s]) for s in ("zendesk", "crm"))
    fresh = {task.id: execute_task(task) for task in (zendesk, crm)}
    monkeypatch.setattr(execute, "Toolbox", CountedToolbox)
    with WarmToolbox() as warm:
        for task in (zendesk, crm, zendesk, crm):
            assert warm.execute(task) == fresh[task.id]
        assert [box.servers for box in made] == [("zendesk",), ("crm", "zendesk")]
        assert [box.closed for box in made] == [True, False]
    assert made[1].closed


def test_completion_records_every_bound_value(warm: WarmToolbox) -> None:
    for task in SAMPLE[:12]:
        assert complete_task(stripped(task), warm) == task


def test_scoring_a_recorded_task_never_executes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = SAMPLE[::4]
    played = {task.id: (play(task, OracleAgent()), play(task, NoOpAgent())) for task in tasks}

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the ground truth was executed")

    monkeypatch.setattr(execute, "execute_task", refuse)
    monkeypatch.setattr(WarmToolbox, "execute", refuse)
    truths = GroundTruths()
    for task in tasks:
        oracle, nothing = played[task.id]
        assert score(task, oracle, truths=truths).reward == 1.0
        assert score(task, nothing, truths=truths).reward == 0.0
    with pytest.raises(AssertionError, match="executed"):
        score(stripped(tasks[0]), played[tasks[0].id][0], truths=truths)


class CountingToolbox(WarmToolbox):
    def __init__(self) -> None:
        super().__init__()
        self.executed: list[str] = []

    def execute(self, task: Task) -> execute.Execution:
        self.executed.append(task.id)
        return super().execute(task)


def test_a_task_file_without_recorded_values_scores_identically() -> None:
    tasks = SAMPLE[1::4]
    counting = CountingToolbox()
    legacy, recorded = GroundTruths(counting), GroundTruths(CountingToolbox())
    for task in tasks:
        old = stripped(task)
        assert not old.truth_recorded and recorded_ground_truth(old) is None
        for agent in (OracleAgent(), FirstCallOnlyAgent(), NoOpAgent()):
            trajectory = play(task, agent)
            for preset in PRESETS.values():
                assert score(old, trajectory, preset, truths=legacy) == score(task, trajectory, preset, truths=recorded)
    assert counting.executed == [t.id for t in tasks], "each legacy task is executed once, then kept"
    assert recorded.warm.executed == []  # type: ignore[attr-defined]
    legacy.close()


def test_executed_truths_kept_are_bounded() -> None:
    counting = CountingToolbox()
    truths = GroundTruths(counting, limit=2)
    a, b, c = (stripped(t) for t in HANDWRITTEN[:3])
    for task in (a, b, a, c, a, b):
        truths(task)
    assert counting.executed == [a.id, b.id, c.id, b.id]
    truths.close()
    with pytest.raises(ValueError, match="at least 1"):
        GroundTruths(limit=0)


def test_a_failing_legacy_ground_truth_is_an_error_not_a_score() -> None:
    task = stripped(BOUND)
    call = next(c for c in task.calls if not c.bind)
    broken = task.model_copy(deep=True)
    for turn in broken.turns:
        for c in turn.calls:
            if c.id == call.id:
                c.tool = "no_such_tool"
    truths = GroundTruths()
    with pytest.raises(ValueError, match="ground truth fails"):
        truths(broken)
    truths.close()


def test_the_rewarder_uses_the_truth_source_it_is_given() -> None:
    counting = CountingToolbox()
    rewarder = Rewarder("dense", truths=GroundTruths(counting))
    task = stripped(BOUND)
    assert rewarder(task, play(task, OracleAgent())).reward == 1.0
    assert counting.executed == [task.id]
    counting.close()


def test_a_tampered_bound_value_fails_verification() -> None:
    call = next(c for c in BOUND.calls if c.bind)
    assert call.bound is not None
    name, value = next(iter(call.bound.items()))
    for wrong in (f"{value}x", [value], None, str(value) if not isinstance(value, str) else 0):
        problems = verify_task(with_bound(BOUND, call.id, {**call.bound, name: wrong}), WARM)
        assert any(f"call {call.id}: bound {name!r} recorded" in p for p in problems), (wrong, problems)
    problems = verify_task(with_bound(BOUND, call.id, {**call.bound, "not_bound": value}), WARM)
    assert any(f"call {call.id}: bound 'not_bound' recorded" in p for p in problems), problems


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([t for t in SAMPLE if any(c.bind for c in t.calls)]), st.data())
def test_any_changed_bound_value_is_caught(task: Task, data: st.DataObject) -> None:
    call = data.draw(st.sampled_from([c for c in task.calls if c.bind]))
    assert call.bound is not None
    name = data.draw(st.sampled_from(sorted(call.bound)))
    wrong = data.draw(st.one_of(st.integers(), st.text(max_size=8), st.booleans(), st.floats(allow_nan=False)))
    assume(not execute.same_json(wrong, call.bound[name]))
    problems = verify_task(with_bound(task, call.id, {**call.bound, name: wrong}), WARM)
    assert any(f"call {call.id}: bound {name!r} recorded" in p for p in problems)


def test_values_recorded_for_some_calls_only_fail_verification() -> None:
    call = BOUND.calls[0]
    problems = verify_task(with_bound(BOUND, call.id, None))
    assert any("not recorded for calls" in p and call.id in p for p in problems)
    assert verify_task(stripped(BOUND)) == [], "a task that records none still verifies"


def test_bound_must_name_exactly_the_bound_arguments() -> None:
    line = BOUND.model_dump_json()
    call = next(c for c in BOUND.calls if c.bind)
    task = BOUND.model_copy(deep=True)
    target = next(c for c in task.calls if c.id == call.id)
    target.bound = {**(call.bound or {}), "extra": 1}
    with pytest.raises(ValidationError, match="`bound` has values for"):
        Task.model_validate_json(task.model_dump_json())
    target.bound = {}
    with pytest.raises(ValidationError, match="`bind` names"):
        Task.model_validate_json(task.model_dump_json())
    assert Task.model_validate_json(line) == BOUND


def test_a_rewarder_with_its_truth_source_pickles() -> None:
    """Vector envs in other processes take their reward function by pickle."""
    import pickle

    counting = CountingToolbox()
    truths = GroundTruths(counting, limit=7)
    task = stripped(BOUND)
    truths(task)
    copy = pickle.loads(pickle.dumps(Rewarder("outcome-only", truths=truths)))
    assert isinstance(copy.truths, GroundTruths) and copy.truths.limit == 7
    assert copy(task, play(task, OracleAgent())).reward == 1.0
    copy.truths.close()
    truths.close()
