"""Multi-turn rollouts: many episodes played turn by turn, with one batched generation per turn.

Each episode has its own environment (its own server sessions, so parallel episodes never
share a world). Every round, the episodes still running are generated for together; each
turn's text goes to its environment as the action, the tool results and next user turn come
back, and their tokens are appended to the episode's sequence. An episode ends when its
environment says so (answered, or out of turns or calls) or when its next turn would not fit
in `max_total_tokens`; an episode cut that way is scored as it stands and marked `overlong`,
as is one with a turn cut at `max_new_tokens`. Only those token budgets make an episode
overlong: one that runs out of turns or calls has failed at the task, and its score says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcpgym.baselines.remote_envs import prepare_resets, prepare_steps
from mcpgym.baselines.train.chat import ChatFormat, TokenSequence
from mcpgym.baselines.train.generation import Generator, Sampling, sampled_logprobs
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.tasks.model import Task
from mcpgym.tasks.trajectory import INVALID_STATUSES

MIN_TURN_TOKENS = 8
"""An episode with less room than this left for its next turn is cut."""


@dataclass
class Episode:
    """One finished episode: its tokens and mask, reward and how it ended."""

    task: Task
    group: int
    tokens: TokenSequence
    reward: float = 0.0
    breakdown: dict[str, Any] = field(default_factory=dict)
    terminated: bool = False
    truncated: bool = False
    overlong: bool = False
    """Cut by a token budget (`max_total_tokens`, or a turn that hit `max_new_tokens`); running
    out of turns or calls is `truncated` but not overlong."""
    turns: int = 0
    turn_rewards: list[float] = field(default_factory=list)
    """The environment's reward for each assistant turn (`tokens.turn` indexes it): the increase
    of the score with the env's `shaping`, else 0 until the last turn, which gets the reward.
    It sums to `reward`."""
    calls: int = 0
    invalid_calls: int = 0
    prompt_tokens: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)
    trajectory: dict[str, Any] = field(default_factory=dict)

    @property
    def completion_tokens(self) -> int:
        return sum(self.tokens.mask)

    def record(self, seed: int = 0, episode: int = 0) -> dict[str, Any]:
        """The episode as the eval harness writes it (`mcpgym.baselines.evaluate`)."""
        return {
            "episode": episode,
            "task_id": self.task.id,
            "servers": self.task.servers,
            "ground_truth_calls": len(self.task.calls),
            "seed": seed,
            "reward": self.reward,
            "reward_breakdown": self.breakdown,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "error": None,
            "steps": self.turns,
            "calls": self.calls,
            "invalid_calls": self.invalid_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "messages": self.messages,
            "trajectory": self.trajectory,
        }


@dataclass
class Running:
    """An episode in play: its environment, what it has so far, the last observation."""

    env: McpEnv
    episode: Episode
    observation: dict[str, Any]
    done: bool = False


def play(
    envs: Sequence[McpEnv],
    tasks: Sequence[Task],
    groups: Sequence[int],
    generator: Generator,
    chat: ChatFormat,
    sampling: Sampling,
    max_new_tokens: int,
    max_total_tokens: int,
    seed: int = 0,
) -> list[Episode]:
    """Play `tasks[i]` in `envs[i]` (group id `groups[i]`) until every episode ends."""
    if not (len(envs) == len(tasks) == len(groups)):
        raise ValueError("envs, tasks and groups must have the same length")
    remote = any(hasattr(env, "step_async") for env in envs)  # envs in worker processes: send to all, then read
    if remote:
        prepare_resets(envs, seed, tasks)
    running = [
        start(env, task, group, chat, max_total_tokens, seed) for env, task, group in zip(envs, tasks, groups, strict=True)
    ]
    while active := [r for r in running if not r.done]:
        budgets = [max_total_tokens - len(r.episode.tokens) for r in active]
        generated = generator.generate([r.episode.tokens.ids for r in active], min(max_new_tokens, max(budgets)), sampling)
        if remote:
            fits = [(run.env, new) for run, new, budget in zip(active, generated, budgets, strict=True) if len(new) <= budget]
            prepare_steps([env for env, _ in fits], [chat.action(chat.text_of(new)) for _, new in fits])
        for run, new, budget in zip(active, generated, budgets, strict=True):
            if len(new) > budget:  # the turn does not fit in the episode's context
                logprobs = sampled_logprobs(new)
                run.episode.tokens.extend(
                    new[:budget], sampled=True, turn=run.episode.turns, logprobs=None if logprobs is None else logprobs[:budget]
                )
                _cut(run)
            else:
                advance(run, new, chat, max_total_tokens)
    return [r.episode for r in running]


def start(env: McpEnv, task: Task, group: int, chat: ChatFormat, max_total_tokens: int, seed: int = 0) -> Running:
    """Reset `env` on `task`; the episode's sequence starts with the prompt's tokens."""
    observation, _ = env.reset(seed=seed, options={"task": task})
    tokens = TokenSequence()
    tokens.extend(chat.prompt(observation["messages"], observation["tools"]), sampled=False)
    run = Running(env=env, episode=Episode(task=task, group=group, tokens=tokens, prompt_tokens=len(tokens)), observation=observation)
    if len(tokens) + MIN_TURN_TOKENS > max_total_tokens:
        _cut(run)
    return run


def advance(run: Running, new: list[int], chat: ChatFormat, max_total_tokens: int) -> None:
    """Append a turn's tokens (`new`, as sampled), step the environment with its text, and
    append the environment's answer; ends the episode when the env or the budget says so."""
    episode = run.episode
    episode.tokens.extend(new, sampled=True, turn=episode.turns, logprobs=sampled_logprobs(new))
    ended_turn = bool(new) and new[-1] == chat.eos_id
    if not ended_turn:
        episode.tokens.extend([chat.eos_id], sampled=False)  # close the cut turn for the next prompt
        episode.overlong = True
    before = run.observation["messages"]
    observation, reward, terminated, truncated, info = run.env.step(chat.action(chat.text_of(new)))
    episode.turns += 1
    episode.turn_rewards.append(float(reward))
    run.observation = observation
    if terminated or truncated:
        _finish(run, reward, info, terminated, truncated)
        return
    episode.tokens.extend(chat.continuation(observation["messages"][: len(before) + 1], observation["messages"], observation["tools"]), sampled=False)
    if len(episode.tokens) + MIN_TURN_TOKENS > max_total_tokens:
        _cut(run)


def _cut(run: Running) -> None:
    """End an episode that no longer fits: scored as it stands, marked overlong."""
    env = run.env.unwrapped
    env.trajectory.finished = False
    breakdown = env.score()
    run.episode.overlong = True
    _finish(run, breakdown.reward, {"reward_breakdown": breakdown.model_dump()}, False, True)


def _settle_turn_rewards(episode: Episode) -> None:
    """One reward per assistant turn that sampled tokens (a turn cut before it reached the env
    included), the rest of the episode's reward on the last, so that they sum to `reward`."""
    sampled_turns = max(episode.tokens.turn, default=-1) + 1
    episode.turn_rewards.extend([0.0] * (sampled_turns - len(episode.turn_rewards)))
    if episode.turn_rewards:
        episode.turn_rewards[-1] += episode.reward - sum(episode.turn_rewards)


def _finish(run: Running, reward: float, info: dict[str, Any], terminated: bool, truncated: bool) -> None:
    episode = run.episode
    trajectory = run.env.unwrapped.trajectory
    episode.breakdown = info.get("reward_breakdown") or {}
    total = episode.breakdown.get("reward", reward)  # with shaping, `reward` is only the last increase
    episode.reward = float(total) if isinstance(total, int | float) else float(reward)
    _settle_turn_rewards(episode)
    episode.terminated = terminated
    episode.truncated = truncated
    episode.calls = len(trajectory.calls)
    episode.invalid_calls = sum(1 for c in trajectory.calls if c.status in INVALID_STATUSES)
    episode.messages = run.observation["messages"]
    episode.trajectory = trajectory.model_dump()
    run.done = True


__all__ = ["Episode", "MIN_TURN_TOKENS", "Running", "advance", "play", "start"]
