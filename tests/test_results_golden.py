"""Tool results stay byte-identical: every shipped task's ground truth, every tool example and
its derived error calls give the results recorded in tests/data/results_golden.json.

A deliberate change of a result (a new field, a reworded error) is recorded anew with
`python tests/results_golden.py`, and the diff of that file shows what changed.
"""

from __future__ import annotations

import json

import pytest

from results_golden import GOLDEN, all_tasks, task_digests, tool_digests

RECORDED = json.loads(GOLDEN.read_text())


def mismatches(recorded: dict[str, str], actual: dict[str, str]) -> list[str]:
    missing = sorted(set(recorded) - set(actual))
    added = sorted(set(actual) - set(recorded))
    changed = sorted(k for k in set(recorded) & set(actual) if recorded[k] != actual[k])
    return [f"missing {k}" for k in missing] + [f"new {k}" for k in added] + [f"changed {k}" for k in changed]


def test_tool_results_are_unchanged() -> None:
    problems = mismatches(RECORDED["tools"], tool_digests())
    assert not problems, f"{len(problems)} tool results differ: {problems[:20]}"


@pytest.mark.parametrize("part", range(4))
def test_ground_truth_results_are_unchanged(part: int) -> None:
    tasks = all_tasks()[part::4]
    actual = task_digests(tasks)
    recorded = {t.id: RECORDED["tasks"][t.id] for t in tasks if t.id in RECORDED["tasks"]}
    problems = mismatches(recorded, actual)
    assert not problems, f"{len(problems)} ground truths differ: {problems[:20]}"
