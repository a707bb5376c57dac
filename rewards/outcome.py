"""The outcome reward: answer facts stated and state changes made, each in [0, 1].

- answer: the fraction of the task's expected facts found in the agent's final answers;
- state: expected changes made with the expected values, divided by expected changes plus
  rows the agent changed that the task did not ask for (so needless writes cost reward).

The reward is the mean of the components that apply: `answer` when the task has facts,
`state` when it expects changes or the agent changed anything. An agent that does nothing
scores 0 on every task, because every task has facts or expected changes.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from mcpgym.rewards.facts import fact_found
from mcpgym.tasks.execute import change_satisfied
from mcpgym.tasks.model import ExpectedChange, Task


class OutcomeReward(BaseModel):
    """The reward and how it was reached."""

    reward: float
    answer: float | None = None
    state: float | None = None
    facts_found: list[bool] = []
    changes_made: list[bool] = []
    unexpected_changes: int = 0


def outcome_reward(task: Task, answers: Sequence[str], changes: Sequence[ExpectedChange]) -> OutcomeReward:
    """Score final answers (one per finished user turn) and the session's state changes."""
    text = "\n".join(answers)
    found = [fact_found(fact.value, text) for fact in task.facts]
    made = [change_satisfied(expected, list(changes)) for expected in task.expected_changes]
    wanted = {(c.server, c.table, c.key) for c in task.expected_changes}
    unexpected = sum(1 for c in changes if (c.server, c.table, c.key) not in wanted)
    answer = sum(found) / len(found) if found else None
    state = None
    if task.expected_changes or unexpected:
        state = sum(made) / (len(made) + unexpected)
    parts = [p for p in (answer, state) if p is not None]
    reward = sum(parts) / len(parts) if parts else 0.0
    return OutcomeReward(
        reward=reward,
        answer=answer,
        state=state,
        facts_found=found,
        changes_made=made,
        unexpected_changes=unexpected,
    )
