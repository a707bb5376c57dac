"""Does a per-turn reward agree with the outcome? The calibration step before turn-level credit.

Plays a group of scripted trajectories of every shipped task of the chosen servers (the
oracle, near misses, a policy that stops early, a random one, one that does nothing) in
environments with `shaping=True`, so each assistant turn has the environment's per-turn
reward, and prints `credit.calibrate`'s table for each per-turn reward:
- `env`: the environment's shaping reward (the increase of the score at the end of each
  user turn; 0 on turns that only call tools);
- `ok calls`: a naive dense reward, the number of the turn's calls that ran without error,
  which pays activity whatever it achieves;
- `--turn-reward package.module:function`: any function `objective.turn_reward` can name,
  called with each episode (a trainer `Episode` without tokens).

Per turn index: (episode, turn) pairs whose turn advantage has the sign of the episode's
outcome advantage; then the rank correlation of summed turn rewards with the outcome, and a
verdict. No model and no `mcpgym train`: the trajectories come from the scripted agents.

Usage: python benchmarks/turn_credit_report.py [--servers zendesk crm ...] [--max-tasks N] [--turn-reward M:F]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from mcpgym.baselines.adversarial import DropStepAgent, FirstCallOnlyAgent, RepeatAgent, WrongArgumentAgent
from mcpgym.baselines.agents import Agent, NoOpAgent, OracleAgent, RandomAgent
from mcpgym.baselines.train.chat import TokenSequence
from mcpgym.baselines.train.credit import Calibration, TurnRewardFn, calibrate_episodes, resolve_turn_reward
from mcpgym.baselines.train.episodes import Episode
from mcpgym.envs import make_env
from mcpgym.tasks.loader import shipped_tasks
from mcpgym.tasks.model import Task

SERVERS = ["zendesk", "crm", "calendar", "email", "finance", "flights"]
MAX_TURNS = 24


def group_of(task: Task) -> dict[str, Callable[[], Agent]]:
    """The scripted trajectories played for one task: a group of mixed quality."""
    middle = task.calls[len(task.calls) // 2]
    with_arguments = next((c for c in task.calls if c.arguments), None)
    agents: dict[str, Callable[[], Agent]] = {
        "oracle": OracleAgent,
        "drop one step": lambda: DropStepAgent(middle.id),
        "first call, then stop": FirstCallOnlyAgent,
        "repeat every call x3": lambda: RepeatAgent(3),
        "random": lambda: RandomAgent(0),
        "nothing": NoOpAgent,
    }
    if with_arguments is not None:
        argument = min(with_arguments.arguments)
        agents["one wrong argument"] = lambda: WrongArgumentAgent(with_arguments.id, argument)
    return agents


def play(task: Task, group: int, agent: Agent) -> tuple[Episode, list[float]]:
    """One episode of `agent` on `task` with shaping; returns it (per-turn env rewards in
    `turn_rewards`) and the number of calls of each turn that ran without error."""
    env = make_env(task.servers, max_turns=MAX_TURNS, max_calls=4 * MAX_TURNS, shaping=True)
    try:
        observation, _ = env.reset(options={"task": task})
        agent.reset(task, observation)
        rewards: list[float] = []
        ok_calls: list[float] = []
        seen = 0
        info: dict[str, Any] = {}
        done = False
        while not done:
            observation, reward, terminated, truncated, info = env.step(agent.act(observation))
            calls = list(info["calls"])
            ok_calls.append(float(sum(1 for c in calls[seen:] if c["status"] == "ok")))
            seen = len(calls)
            rewards.append(float(reward))
            done = terminated or truncated
        breakdown = info.get("reward_breakdown", {})
        episode = Episode(
            task=task, group=group, tokens=TokenSequence(), reward=float(breakdown.get("reward", sum(rewards))),
            breakdown=dict(breakdown), terminated=terminated, truncated=truncated, turns=len(rewards),
            turn_rewards=rewards, messages=list(observation["messages"]), trajectory=env.unwrapped.trajectory.model_dump(),
        )
        return episode, ok_calls
    finally:
        env.close()


def report(title: str, calibration: Calibration) -> str:
    return f"## {title}\n\n{calibration.table()}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", nargs="+", default=SERVERS, help="servers whose shipped tasks are played")
    parser.add_argument("--max-tasks", type=int, default=0, help="at most this many tasks (0: all)")
    parser.add_argument("--turn-reward", default=None, help="a per-turn reward function to check, package.module:function")
    args = parser.parse_args()
    if args.max_tasks < 0:
        parser.error("--max-tasks must be 0 or more")
    function: TurnRewardFn | None = None
    if args.turn_reward is not None:
        try:
            function = resolve_turn_reward(args.turn_reward[:200])
        except ValueError as err:
            parser.error(str(err))
    tasks = [t for t in shipped_tasks(args.servers) if t.calls]
    if args.max_tasks:
        tasks = tasks[: args.max_tasks]
    episodes: list[Episode] = []
    ok_calls: dict[int, list[float]] = {}
    for group, task in enumerate(tasks):
        for make_agent in group_of(task).values():
            episode, ok = play(task, group, make_agent())
            ok_calls[id(episode)] = ok
            episodes.append(episode)
    multi = sum(1 for t in tasks if len(t.turns) > 1)
    print(f"{len(tasks)} shipped tasks of {', '.join(args.servers)} ({multi} with more than one user turn), "
          f"{len(episodes)} episodes, groups of {len(episodes) / max(len(tasks), 1):.1f} scripted trajectories\n")
    print(report("env: the environment's shaping reward", calibrate_episodes(episodes)))
    print(report("ok calls: calls of the turn that ran without error", calibrate_episodes(episodes, lambda e: ok_calls[id(e)])))
    if function is not None:
        print(report(f"{args.turn_reward}", calibrate_episodes(episodes, function)))


if __name__ == "__main__":
    main()
