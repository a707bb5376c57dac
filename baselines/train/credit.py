"""Turn-level credit: per-turn rewards, their group-relative advantages, and a calibration check.

An episode of `n` assistant turns has a reward per turn, `r[i][t]`: the environment's
(`Episode.turn_rewards`, the score's increase with `shaping`), or a function's named in the
config (`objective.turn_reward = "package.module:function"`, called with the `Episode`,
returning `n` numbers). The turn-level advantage compares turn `t` of an episode with turn `t`
of the other episodes of its group that reached it, the GRPO way:
`A_turn[i][t] = (r[i][t] - mean_t) / std_t` (`grpo.group_advantages` over the (group, turn)
pairs); a turn that no other episode of the group reached gets 0.

The advantage a turn's tokens are trained with, by `objective.advantage`:
- `outcome`: the episode's outcome advantage `A_out[i]` on every turn (plain GRPO);
- `turn`: `A_turn[i][t]`;
- `hybrid`: `A_out[i] + turn_weight * A_turn[i][t]` (outcome and turn-level advantages
  combined, as in MT-GRPO).

`calibrate` tells whether a per-turn reward agrees with the outcome before it is trained on:
per turn index, the share of (episode, turn) pairs whose turn advantage has the sign of the
episode's outcome advantage, and the rank correlation of each episode's summed turn rewards
with its outcome reward.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import torch

from mcpgym.baselines.train.grpo import group_advantages

AdvantageMode = Literal["outcome", "turn", "hybrid"]
TurnRewardFn = Callable[[Any], Sequence[float]]
"""(episode) -> one reward per assistant turn of the episode."""

ENV_TURN_REWARD = "env"
"""`objective.turn_reward` value for the environment's per-turn rewards paid at the end of
each user turn (the env's `shaping=True`)."""
ENV_SHAPING: dict[str, bool | str] = {ENV_TURN_REWARD: True, "env-step": "step"}
"""The `objective.turn_reward` values read off the environment -> the env's `shaping`:
`env` pays each user turn's increase of the score, `env-step` each assistant step's (so a
turn that only calls tools is paid for its calls' process components)."""


def resolve_turn_reward(name: str) -> TurnRewardFn | None:
    """The per-turn reward function `objective.turn_reward` names: None for the environment's
    rewards (`env`, `env-step`), else `package.module:function` imported. Raises ValueError
    naming what is wrong (bad form, no such module or attribute, not callable)."""
    if name in ENV_SHAPING:
        return None
    module_name, sep, attribute = name.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"objective.turn_reward must be 'env', 'env-step' or 'package.module:function', got {name!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"objective.turn_reward: cannot import module {module_name!r} ({err})") from err
    function = getattr(module, attribute, None)
    if not callable(function):
        raise ValueError(f"objective.turn_reward: {module_name!r} has no function {attribute!r}")
    return function  # type: ignore[no-any-return]


def episode_turn_rewards(episode: Any, function: TurnRewardFn | None = None) -> list[float]:
    """One reward per assistant turn of `episode`: `function(episode)` when given, else the
    environment's (`episode.turn_rewards`). Raises ValueError when the function returns the
    wrong number of values or anything that is not a finite number."""
    if function is None:
        return [float(r) for r in episode.turn_rewards]
    expected = len(episode.turn_rewards)
    values = list(function(episode))
    if len(values) != expected:
        raise ValueError(f"the per-turn reward function returned {len(values)} values for an episode of {expected} turns")
    out = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError(f"the per-turn reward function returned {value!r}, not a finite number")
        out.append(float(value))
    return out


def turn_advantages(
    turn_rewards: Sequence[Sequence[float]], groups: Sequence[int], scale_by_std: bool = True
) -> list[list[float]]:
    """`A_turn[i][t]`: turn `t` of episode `i` against turn `t` of its group's other episodes."""
    if len(turn_rewards) != len(groups):
        raise ValueError(f"{len(turn_rewards)} episodes' turn rewards for {len(groups)} group ids")
    flat = [(i, t, float(r)) for i, rewards in enumerate(turn_rewards) for t, r in enumerate(rewards)]
    out: list[list[float]] = [[0.0] * len(rewards) for rewards in turn_rewards]
    if not flat:
        return out
    keys: dict[tuple[int, int], int] = {}
    key_ids = torch.tensor([keys.setdefault((int(groups[i]), t), len(keys)) for i, t, _ in flat])
    values = group_advantages(torch.tensor([r for _, _, r in flat]), key_ids, scale_by_std)
    for (i, t, _), value in zip(flat, values.tolist(), strict=True):
        out[i][t] = value
    return out


def combine_advantages(
    mode: AdvantageMode, outcome: Sequence[float], turns: Sequence[Sequence[float]], turn_weight: float = 1.0
) -> list[list[float]]:
    """The advantage of each turn of each episode under `mode` (see the module's docstring)."""
    if mode not in ("outcome", "turn", "hybrid"):
        raise ValueError(f"unknown advantage mode {mode!r}; modes: outcome, turn, hybrid")
    if len(outcome) != len(turns):
        raise ValueError(f"{len(outcome)} outcome advantages for {len(turns)} episodes' turn advantages")
    if mode == "outcome":
        return [[float(a)] * len(t) for a, t in zip(outcome, turns, strict=True)]
    if mode == "turn":
        return [[float(v) for v in t] for t in turns]
    return [[float(a) + turn_weight * v for v in t] for a, t in zip(outcome, turns, strict=True)]


def token_advantages(token_turns: Sequence[int], per_turn: Sequence[float]) -> list[float]:
    """Each token's advantage: its turn's (`token_turns[k]`, from `TokenSequence.turn`); 0 for
    tokens of no turn and of turns past `per_turn`."""
    return [per_turn[t] if 0 <= t < len(per_turn) else 0.0 for t in token_turns]


# ------------------------------------------------------------------ calibration


@dataclass
class TurnAgreement:
    """Sign agreement of turn and outcome advantages at one turn index."""

    turn: int
    pairs: int
    """(episode, turn) pairs where both advantages are nonzero."""
    agree: int
    zero: int
    """Pairs left out because either advantage is 0."""

    @property
    def share(self) -> float:
        return self.agree / self.pairs if self.pairs else math.nan


@dataclass
class Calibration:
    """What `calibrate` found; `verdict` is one line."""

    turns: list[TurnAgreement] = field(default_factory=list)
    pairs: int = 0
    agree: int = 0
    rank_correlation: float = math.nan
    """Spearman correlation of each episode's summed turn rewards with its outcome reward
    (over the whole batch; NaN when either is constant)."""
    episodes: int = 0
    verdict: str = ""

    @property
    def share(self) -> float:
        return self.agree / self.pairs if self.pairs else math.nan

    def table(self) -> str:
        """A Markdown table, one row per turn index and one for all, then the verdict."""
        rows = ["| turn | pairs | same sign | share | left out (a zero advantage) |", "|---|---|---|---|---|"]
        for t in self.turns:
            if t.pairs:
                rows.append(f"| {t.turn} | {t.pairs} | {t.agree} | {_fmt(t.share)} | {t.zero} |")
        rows.append(f"| all | {self.pairs} | {self.agree} | {_fmt(self.share)} | {sum(t.zero for t in self.turns)} |")
        rows.append("")
        silent = [t.turn for t in self.turns if not t.pairs]
        if silent:
            rows.append(f"turn indices with no pair (all left out): {', '.join(map(str, silent))}")
        rows.append(f"rank correlation of summed turn rewards with the outcome: {_fmt(self.rank_correlation)} ({self.episodes} episodes)")
        rows.append(f"verdict: {self.verdict}")
        return "\n".join(rows)


def _fmt(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def rank_correlation(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho (Pearson's correlation of the ranks, ties given their mean rank); NaN
    for fewer than two values or when either side is constant."""
    if len(x) != len(y):
        raise ValueError(f"{len(x)} values against {len(y)}")
    if len(x) < 2:
        return math.nan
    rx, ry = _ranks(np.asarray(x, dtype=float)), _ranks(np.asarray(y, dtype=float))
    if rx.std() == 0 or ry.std() == 0:
        return math.nan
    return float(np.corrcoef(rx, ry)[0, 1])


def _ranks(values: np.ndarray) -> np.ndarray:
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(len(values), dtype=float)
    ranks[order] = np.arange(len(values), dtype=float)
    for value in np.unique(values):  # ties share their mean rank
        tied = values == value
        ranks[tied] = ranks[tied].mean()
    return ranks


def calibrate(
    outcomes: Sequence[float],
    groups: Sequence[int],
    turn_rewards: Sequence[Sequence[float]],
    scale_by_std: bool = True,
    agree_at: float = 0.6,
    disagree_at: float = 0.4,
) -> Calibration:
    """Whether a per-turn reward agrees in sign with the outcome over a batch of episodes
    (`outcomes[i]`, `groups[i]`, `turn_rewards[i]`: episode i's reward, group and per-turn
    rewards). The verdict: `agrees` when the share of same-sign pairs is at least `agree_at`
    and the rank correlation is not negative; `disagrees` when the share is at most
    `disagree_at` or the correlation is negative; else `weak`; `no signal` when no pair has
    two nonzero advantages."""
    if not (len(outcomes) == len(groups) == len(turn_rewards)):
        raise ValueError("outcomes, groups and turn_rewards must have one entry per episode")
    outcome_adv = group_advantages(torch.tensor([float(r) for r in outcomes]), torch.tensor(list(groups)), scale_by_std).tolist()
    turn_adv = turn_advantages(turn_rewards, groups, scale_by_std)
    by_turn: dict[int, TurnAgreement] = {}
    for a_out, a_turns in zip(outcome_adv, turn_adv, strict=True):
        for t, a_turn in enumerate(a_turns):
            row = by_turn.setdefault(t, TurnAgreement(turn=t, pairs=0, agree=0, zero=0))
            if a_out == 0 or a_turn == 0:
                row.zero += 1
                continue
            row.pairs += 1
            row.agree += int((a_out > 0) == (a_turn > 0))
    report = Calibration(turns=[by_turn[t] for t in sorted(by_turn)], episodes=len(outcomes))
    report.pairs = sum(t.pairs for t in report.turns)
    report.agree = sum(t.agree for t in report.turns)
    report.rank_correlation = rank_correlation([sum(r) for r in turn_rewards], list(outcomes))
    share, rho = report.share, report.rank_correlation
    if report.pairs == 0:
        report.verdict = "no signal: no (episode, turn) pair has both advantages nonzero"
    elif share <= disagree_at or (not math.isnan(rho) and rho < 0):
        report.verdict = f"disagrees: same sign in {share:.0%} of pairs, rank correlation {_fmt(rho)}; do not train on this per-turn reward"
    elif share >= agree_at:
        report.verdict = f"agrees: same sign in {share:.0%} of pairs, rank correlation {_fmt(rho)}"
    else:
        report.verdict = f"weak: same sign in {share:.0%} of pairs, rank correlation {_fmt(rho)}; a small turn_weight at most"
    return report


def calibrate_episodes(episodes: Sequence[Any], function: TurnRewardFn | None = None, scale_by_std: bool = True) -> Calibration:
    """`calibrate` over trainer episodes, with their env per-turn rewards or `function`'s."""
    return calibrate(
        [e.reward for e in episodes],
        [e.group for e in episodes],
        [episode_turn_rewards(e, function) for e in episodes],
        scale_by_std,
    )


__all__ = [
    "ENV_SHAPING",
    "ENV_TURN_REWARD",
    "AdvantageMode",
    "Calibration",
    "TurnAgreement",
    "TurnRewardFn",
    "calibrate",
    "calibrate_episodes",
    "combine_advantages",
    "episode_turn_rewards",
    "rank_correlation",
    "resolve_turn_reward",
    "token_advantages",
    "turn_advantages",
]
