"""Metrics of an evaluation run: overall, per server set and per difficulty."""

from __future__ import annotations

import math
import re
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
    summary = {
        "overall": summarize(records),
        "by_server": {key: summarize(rs) for key, rs in sorted(groups["server"].items())},
        "by_difficulty": {key: summarize(rs) for key, rs in sorted(groups["difficulty"].items())},
    }
    categories: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        if str(record.get("family", "")).startswith(BENCHMARK_FAMILIES):
            categories[record["family"]].append(record)
    if categories:
        summary["by_category"] = {key: summarize(rs) for key, rs in sorted(categories.items())}
    return summary


BENCHMARK_FAMILIES = ("bfcl:",)
"""Families that are another benchmark's categories (`bfcl:base`, ...): a run over their tasks
also reports each category, as the benchmark does."""


SHOWN_KS = 10
"""Tables show pass^k for every k up to this; beyond it, for powers of 2 and the largest k."""


def pass_hat_ks(summary: dict[str, Any]) -> list[str]:
    """The k of the pass^k a table shows, in order: every k from 1 to the most episodes of a
    task, or with more than `SHOWN_KS` of them, 1 to `SHOWN_KS`, then powers of 2 and the last
    (summary.json has them all)."""
    ks = sorted(int(k) for k in summary["overall"].get("pass_hat_k", {}))
    if len(ks) > SHOWN_KS:
        ks = [k for k in ks if k <= SHOWN_KS or k & (k - 1) == 0 or k == ks[-1]]
    return [str(k) for k in ks]


def markdown_table(summary: dict[str, Any]) -> str:
    """The run's headline metrics per server set, per difficulty and overall, with pass^k for every k."""
    if not summary["overall"].get("episodes"):
        return "no episodes"
    ks = pass_hat_ks(summary)
    columns = ["group", "episodes", "mean reward", "pass@1.0", *(f"pass^{k}" for k in ks), "finish", "calls/ep",
               "invalid calls", "coverage"]
    lines = ["| " + " | ".join(columns) + " |", "|---" * len(columns) + "|"]

    def row(name: str, s: dict[str, Any]) -> str:
        coverage = s["components"].get("coverage")
        hats = [s["pass_hat_k"].get(k) for k in ks]
        cells = [
            name, str(s["episodes"]), f"{s['mean_reward']:.3f}", f"{s['pass_rate']['1.0']:.2f}",
            *("-" if h is None else f"{h:.2f}" for h in hats),
            f"{s['finish_rate']:.2f}", f"{s['calls_per_episode']:.1f}", f"{s['invalid_call_rate']:.2f}",
            "-" if coverage is None else f"{coverage:.2f}",
        ]
        return "| " + " | ".join(cells) + " |"

    lines += [row(f"server {k}", s) for k, s in summary["by_server"].items()]
    lines += [row(k, s) for k, s in summary.get("by_category", {}).items()]
    lines += [row(k, s) for k, s in summary["by_difficulty"].items()]
    lines.append(row("**overall**", summary["overall"]))
    return "\n".join(lines)


def task_family(task_id: str, tags: Iterable[str] = ()) -> str:
    """The family a task belongs to: a synthesized task's `family:` tag (or its id without the
    `-00042` counter), another benchmark's category tag (`bfcl:base`), `hand-written` for the
    others."""
    for tag in tags:
        if tag.startswith("family:") and len(tag) > len("family:"):
            return tag.removeprefix("family:")
        if tag.startswith(BENCHMARK_FAMILIES):
            return tag
    match = _SYNTH_ID.match(task_id)
    return match.group(1) if match else HAND_WRITTEN


HAND_WRITTEN = "hand-written"
_SYNTH_ID = re.compile(r"^([a-z0-9_]+\.[a-z0-9_.-]+)-\d{5}$")
