"""Before/after table of two training runs' held-out evaluations, overall and per server.

    python benchmarks/grpo_report.py RUN_BEFORE RUN_AFTER

Each RUN is a trainer output folder; its first (BEFORE) and last (AFTER) `eval/step-N/summary.json`
are compared: mean reward, pass rate at 0.5 / 0.75 / 1.0, coverage, finish rate and calls per
task. Prints Markdown.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

COLUMNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mean reward", ("mean_reward",)),
    ("pass@0.5", ("pass_rate", "0.5")),
    ("pass@0.75", ("pass_rate", "0.75")),
    ("pass@1.0", ("pass_rate", "1.0")),
    ("coverage", ("components", "coverage")),
    ("finish rate", ("finish_rate",)),
    ("calls per task", ("calls_per_episode",)),
)
"""Label and key path in a summary block of the eval harness."""


def summary(run: Path, last: bool) -> tuple[int, dict[str, Any]]:
    """The step and summary of the run's first or last held-out evaluation."""
    folders = sorted((run / "eval").glob("step-*"))
    if not folders:
        raise SystemExit(f"{run} has no evaluation (eval/step-*/summary.json)")
    folder = folders[-1] if last else folders[0]
    return int(folder.name.removeprefix("step-")), json.loads((folder / "summary.json").read_text("utf-8"))


def value(block: dict[str, Any], path: tuple[str, ...]) -> float | None:
    """The number at `path` in `block` (None where a key is missing or null)."""
    found: Any = block
    for key in path:
        found = found.get(key) if isinstance(found, dict) else None
    return found


def rows(name: str, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    out = []
    for label, path in COLUMNS:
        a, b = value(before, path), value(after, path)
        if a is None or b is None:
            continue
        out.append(f"| {name} | {label} | {a:.3f} | {b:.3f} | {b - a:+.3f} |")
    return out


def report(before_run: Path, after_run: Path) -> str:
    step_a, before = summary(before_run, last=False)
    step_b, after = summary(after_run, last=True)
    lines = [
        f"Held-out evaluation: {before['overall']['episodes']} episodes before (step {step_a} of {before_run}), "
        f"{after['overall']['episodes']} after (step {step_b} of {after_run}).",
        "",
        "| scope | measure | before | after | change |",
        "|---|---|---|---|---|",
        *rows("all", before["overall"], after["overall"]),
    ]
    for server in sorted(set(before.get("by_server", {})) & set(after.get("by_server", {}))):
        lines += rows(server, before["by_server"][server], after["by_server"][server])
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="run folder whose first evaluation is 'before'")
    parser.add_argument("after", type=Path, help="run folder whose last evaluation is 'after'")
    args = parser.parse_args()
    print(report(args.before, args.after))


if __name__ == "__main__":
    main()
