"""Metrics of an evaluation run: overall, per server set and per difficulty."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

THRESHOLDS = (0.5, 0.75, 1.0)
SUCCESS = 1.0 - 1e-9
"""An episode succeeds when its reward is 1 (tau-bench's pass^k counts these)."""


def difficulty_bucket(calls: int) -> str:
    """Ground-truth calls, bucketed: 1-2, 3-4, 5-7, 8+."""
    if calls <= 2:
        return "1-2 calls"
    if calls <= 4:
        return "3-4 calls"
    if calls <= 7:
        return "5-7 calls"
    return "8+ calls"


def pass_hat_k(successes: dict[str, list[bool]], k: int) -> float | None:
    """pass^k: over tasks with at least k episodes, the chance that k episodes drawn without
    replacement all succeed, C(c, k) / C(n, k), averaged."""
    values = [math.comb(sum(s), k) / math.comb(len(s), k) for s in successes.values() if len(s) >= k]
    return statistics.mean(values) if values else None


def summarize(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Metrics of a set of episode records (as written by the evaluator)."""
    records = list(records)
    if not records:
        return {"episodes": 0}
    components: dict[str, list[float]] = defaultdict(list)
    for record in records:
        for name, value in (record.get("reward_breakdown") or {}).get("components", {}).items():
            if value is not None:
                components[name].append(value)
    by_task: dict[str, list[bool]] = defaultdict(list)
    for record in records:
        by_task[record["task_id"]].append(record["reward"] >= SUCCESS)
    most = max(len(s) for s in by_task.values())
    calls = sum(r["calls"] for r in records)
    invalid = sum(r["invalid_calls"] for r in records)
    return {
        "episodes": len(records),
        "tasks": len(by_task),
        "mean_reward": statistics.mean(r["reward"] for r in records),
        "components": {name: statistics.mean(values) for name, values in sorted(components.items())},
        "pass_rate": {str(t): sum(r["reward"] >= t - 1e-9 for r in records) / len(records) for t in THRESHOLDS},
        "pass_hat_k": {str(k): pass_hat_k(by_task, k) for k in range(1, most + 1)},
        "finish_rate": sum(r["terminated"] for r in records) / len(records),
        "calls_per_episode": calls / len(records),
        "invalid_call_rate": invalid / calls if calls else 0.0,
        "model_errors": sum(1 for r in records if r.get("error")),
        "tokens": {
            "prompt": sum(r.get("prompt_tokens", 0) for r in records),
            "completion": sum(r.get("completion_tokens", 0) for r in records),
        },
    }


def summarize_run(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Overall metrics plus the same per server set and per difficulty bucket."""
    groups: dict[str, dict[str, list[dict[str, Any]]]] = {"server": defaultdict(list), "difficulty": defaultdict(list)}
    for record in records:
        groups["server"]["+".join(record["servers"])].append(record)
        groups["difficulty"][difficulty_bucket(record["ground_truth_calls"])].append(record)
    return {
        "overall": summarize(records),
        "by_server": {key: summarize(rs) for key, rs in sorted(groups["server"].items())},
        "by_difficulty": {key: summarize(rs) for key, rs in sorted(groups["difficulty"].items())},
    }


def markdown_table(summary: dict[str, Any]) -> str:
    """The run's headline metrics per server set, per difficulty and overall."""
    if not summary["overall"].get("episodes"):
        return "no episodes"
    header = "| group | episodes | mean reward | pass@1.0 | pass^1 | finish | calls/ep | invalid calls | coverage |"
    lines = [header, "|---" * (header.count("|") - 1) + "|"]

    def row(name: str, s: dict[str, Any]) -> str:
        coverage = s["components"].get("coverage")
        return (
            f"| {name} | {s['episodes']} | {s['mean_reward']:.3f} | {s['pass_rate']['1.0']:.2f} | "
            f"{(s['pass_hat_k'].get('1') or 0):.2f} | {s['finish_rate']:.2f} | {s['calls_per_episode']:.1f} | "
            f"{s['invalid_call_rate']:.2f} | {'-' if coverage is None else f'{coverage:.2f}'} |"
        )

    lines += [row(f"server {k}", s) for k, s in summary["by_server"].items()]
    lines += [row(k, s) for k, s in summary["by_difficulty"].items()]
    lines.append(row("**overall**", summary["overall"]))
    return "\n".join(lines)
