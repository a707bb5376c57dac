"""How well each reward component separates good trajectories from bad ones.

Plays a spread of trajectory kinds on every shipped task (the oracle, near misses, a random
policy, reward hacks, doing nothing) and prints each component's mean per kind. A component
that scores bad kinds as high as the oracle does not separate them.

Usage: python benchmarks/reward_report.py [--markdown]
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from collections.abc import Callable

from mcpgym.baselines.adversarial import (
    DropStepAgent,
    EveryToolAgent,
    FirstCallOnlyAgent,
    NumberDumpAgent,
    RepeatAgent,
    WrongArgumentAgent,
    WrongEntityAgent,
)
from mcpgym.baselines.agents import Agent, NoOpAgent, OracleAgent, RandomAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.rewards.compose import COMPONENTS, PRESETS, score
from mcpgym.servers.catalog import load_server
from mcpgym.tasks.loader import shipped_tasks
from mcpgym.tasks.model import Task


def kinds(task: Task) -> dict[str, Callable[[], Agent] | None]:
    """Trajectory kind -> agent factory (None where the kind does not apply to the task)."""
    middle = task.calls[len(task.calls) // 2]
    with_arguments = next((c for c in task.calls if c.arguments), None)
    writes = {(c.server or "", c.tool) for c in task.calls if load_server(c.server or "").tools.get(c.tool).writes}  # type: ignore[union-attr]
    return {
        "oracle": OracleAgent,
        "drop one step": lambda: DropStepAgent(middle.id),
        "one wrong argument": (lambda: WrongArgumentAgent(with_arguments.id, sorted(with_arguments.arguments)[0])) if with_arguments else None,
        "wrong entity written": (lambda: WrongEntityAgent(writes)) if writes else None,
        "repeat every call x10": lambda: RepeatAgent(10),
        "first call, then stop": FirstCallOnlyAgent,
        "every number seen": NumberDumpAgent if task.facts else None,
        "every tool once": EveryToolAgent,
        "random": lambda: RandomAgent(0),
        "nothing": NoOpAgent,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    names = [*COMPONENTS, "efficiency", "dense", "outcome-only", "process-only"]
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    counts: dict[str, int] = defaultdict(int)
    tasks = shipped_tasks()
    for task in tasks:
        env = make_env(task.servers, max_calls=1000, max_turns=60)
        for kind, factory in kinds(task).items():
            if factory is None:
                continue
            run_episode(env, factory(), task)
            counts[kind] += 1
            breakdown = score(task, env.trajectory)
            for name, value in breakdown.components.items():
                if value is not None:
                    values[kind][name].append(value)
            values[kind]["efficiency"].append(breakdown.efficiency)
            for preset in ("dense", "outcome-only", "process-only"):
                values[kind][preset].append(score(task, env.trajectory, PRESETS[preset]).reward)
        env.close()
    header = ["trajectory", "n", *names]
    rows = [
        [kind, str(counts[kind]), *(f"{statistics.mean(values[kind][n]):.2f}" if values[kind][n] else "-" for n in names)]
        for kind in counts
    ]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" for _ in header) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
    print(f"\n{len(tasks)} shipped tasks; means over the tasks each kind applies to ('-': never applies)")


if __name__ == "__main__":
    main()
