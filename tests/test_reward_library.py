"""The reward library: the oracle scores the maximum and doing nothing the minimum on every
task; components stay in range; dropping a needed call or corrupting an argument never
raises the reward; the hacks an RL policy finds score clearly below the oracle."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgym.baselines.adversarial import (
    EveryToolAgent,
    FirstCallOnlyAgent,
    NumberDumpAgent,
    RepeatAgent,
    WrongEntityAgent,
    corrupt,
)
from mcpgym.baselines.agents import Agent, NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.tasks.trajectory import Trajectory
from mcpgym.rewards import PRESETS, score
from mcpgym.servers.catalog import load_server
from mcpgym.tasks.loader import shipped_tasks
from mcpgym.tasks.model import Task

TASKS = shipped_tasks()
BY_ID = {t.id: t for t in TASKS}
HACK_MARGIN = 0.2
"""Every hack must score at least this far below the oracle (1.0)."""


@cache
def env_for(servers: tuple[str, ...]) -> McpEnv:
    return make_env(list(servers), max_calls=1000, max_turns=50)


def play(task: Task, agent: Agent) -> Trajectory:
    env = env_for(tuple(task.servers))
    run_episode(env, agent, task)
    return env.trajectory.model_copy(deep=True)


@cache
def oracle_trajectory(task_id: str) -> Trajectory:
    return play(BY_ID[task_id], OracleAgent())


def writes_of(task: Task) -> set[tuple[str, str]]:
    return {(c.server or "", c.tool) for c in task.calls if load_server(c.server or "").tools.get(c.tool).writes}  # type: ignore[union-attr]


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_oracle_scores_the_maximum_and_nothing_the_minimum(task: Task) -> None:
    for preset in PRESETS.values():
        best = score(task, oracle_trajectory(task.id), preset)
        assert best.reward == 1.0 and best.efficiency == 1.0
        assert all(v in (None, 1.0) for v in best.components.values()), best.components
        empty = score(task, play(task, NoOpAgent()), preset)
        assert empty.reward == 0.0
        assert all(v in (None, 0.0) for v in empty.components.values()), empty.components


perturbations = st.tuples(st.sampled_from([t.id for t in TASKS]), st.integers(0, 50), st.integers(0, 50), st.booleans())


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(perturbations)
def test_dropping_a_call_or_corrupting_an_argument_never_raises_the_reward(case: tuple[str, int, int, bool]) -> None:
    task_id, which, argument, drop = case
    task, good = BY_ID[task_id], oracle_trajectory(task_id)
    calls = list(good.calls)
    index = which % len(calls)
    if drop:
        del calls[index]
    else:
        call = calls[index]
        names = sorted(call.arguments or {})
        if not names:
            return
        name = names[argument % len(names)]
        arguments = {**(call.arguments or {}), name: corrupt((call.arguments or {})[name])}
        calls[index] = call.model_copy(update={"arguments": arguments})
    worse = good.model_copy(update={"calls": calls})
    best = score(task, good)
    for preset in PRESETS.values():
        perturbed = score(task, worse, preset)
        assert perturbed.reward <= score(task, good, preset).reward
        assert all(v is None or 0.0 <= v <= 1.0 for v in perturbed.components.values())
    assert best.reward == 1.0


def hacks(task: Task) -> dict[str, Agent]:
    agents: dict[str, Agent] = {
        "every tool once": EveryToolAgent(),
        "repeat each correct call 10 times": RepeatAgent(10),
        "stop after the first call": FirstCallOnlyAgent(),
    }
    if task.facts:
        agents["answer with every number seen"] = NumberDumpAgent()
    if task.expected_changes:
        agents["write to the neighbouring entity"] = WrongEntityAgent(writes_of(task))
    return agents


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_hacks_score_clearly_below_the_oracle(task: Task) -> None:
    for name, agent in hacks(task).items():
        breakdown = score(task, play(task, agent))
        assert breakdown.reward <= 1.0 - HACK_MARGIN, f"{name}: {breakdown.reward:.3f} {breakdown.components}"


@pytest.mark.parametrize("shaping", [True, "step"])
def test_per_turn_shaping_sums_to_the_final_reward(shaping: bool | str) -> None:
    task = next(t for t in TASKS if len(t.turns) > 1)
    paid_steps: dict[str, list[float]] = {}
    for agent in (OracleAgent(), FirstCallOnlyAgent(), NoOpAgent()):
        env = make_env(task.servers, shaping=shaping)
        observation, _ = env.reset(options={"task": task})
        agent.reset(task, observation)
        done, info, rewards = False, {}, []
        while not done:
            observation, reward, terminated, truncated, info = env.step(agent.act(observation))
            rewards.append(reward)
            done = terminated or truncated
        assert sum(rewards) == pytest.approx(info["reward_breakdown"]["reward"])
        paid_steps[type(agent).__name__] = rewards
    first_step = paid_steps["OracleAgent"][0]  # the oracle's first step calls tools and answers nothing
    if shaping == "step":  # its calls already pay their process components
        assert first_step > 0
    else:  # only the end of a user turn pays
        assert first_step == 0


def test_the_env_reports_every_component() -> None:
    task = BY_ID["zendesk-escalate-ticket"]
    episode = run_episode(env_for(("zendesk",)), OracleAgent(), task)
    breakdown = episode.info["reward_breakdown"]
    assert set(breakdown["components"]) == {"answer", "state", "coverage", "arguments", "tool_names", "validity"}
    assert breakdown["efficiency"] == 1.0 and episode.reward == 1.0


class FakeChatServer:
    """An OpenAI-compatible endpoint that answers every request with `reply`."""

    def __init__(self, reply: str) -> None:
        import http.server
        import threading

        outer = self
        self.requests: list[dict[str, object]] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                import json

                outer.requests.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                body = json.dumps({"choices": [{"message": {"role": "assistant", "content": reply}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                return None

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()


def test_rubric_judge_is_one_more_component() -> None:
    from mcpgym.rewards import Rewarder
    from mcpgym.rewards.judge import RubricJudge, rubric

    task = BY_ID["zendesk-urgent-requester"]
    items = rubric(task)
    assert len(items) == len(task.facts) and "Christian Villanueva" in " ".join(items)
    fake = FakeChatServer('```json\n{"satisfied": [true, true, false, false]}\n```')
    try:
        breakdown = Rewarder("dense", judge=RubricJudge(fake.url, "grader"))(task, oracle_trajectory(task.id))
        assert breakdown.components["judge"] == 0.5 and breakdown.weights["judge"] == 0.2
        assert breakdown.reward < 1.0
        sent = fake.requests[0]
        assert sent["model"] == "grader" and "Christian Villanueva" in str(sent["messages"])
    finally:
        fake.close()
    broken = FakeChatServer("I cannot grade this.")
    try:
        breakdown = Rewarder("dense", judge=RubricJudge(broken.url, "grader"))(task, oracle_trajectory(task.id))
        assert breakdown.components["judge"] is None and breakdown.reward == 1.0
    finally:
        broken.close()
