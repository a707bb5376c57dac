"""An optional rubric judge behind the reward interface: off by default, never needed.

The rubric comes from the task's ground truth (one item per expected fact and per expected
state change); any OpenAI-compatible chat endpoint marks each item satisfied or not, and the
component is the share satisfied. When the endpoint fails or answers in the wrong shape the
component is `None` (left out of the reward), never a guess.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from typing import Any

from mcpgym.tasks.trajectory import Trajectory
from mcpgym.tasks.model import Task

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "You grade an assistant's work against a rubric. For each numbered rubric item, decide from the "
    "final answers and the tool calls whether it is satisfied. Reply with JSON only: "
    '{"satisfied": [true, false, ...]} with one boolean per item, in order.'
)


def rubric(task: Task) -> list[str]:
    """Rubric items from the ground truth: facts the answer must state, changes that must happen."""
    items = [f"The answer states {fact.name}: {json.dumps(fact.value)}." for fact in task.facts]
    items += [
        f"A {change.op} on {change.server}.{change.table} (row {change.key}) sets {json.dumps(change.fields, sort_keys=True)}."
        for change in task.expected_changes
    ]
    return items


class RubricJudge:
    """`RubricJudge(base_url, model)(task, trajectory)` -> share of rubric items satisfied."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60.0) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.timeout = timeout

    def __call__(self, task: Task, trajectory: Trajectory) -> float | None:
        items = rubric(task)
        if not items:
            return None
        calls = [f"{c.tool}({json.dumps(c.arguments)}) -> {c.status}" for c in trajectory.calls]
        prompt = (
            "Rubric:\n" + "\n".join(f"{n}. {item}" for n, item in enumerate(items, start=1))
            + "\n\nFinal answers:\n" + ("\n---\n".join(trajectory.answers) or "(none)")
            + "\n\nTool calls:\n" + ("\n".join(calls) or "(none)")
        )
        try:
            reply = self._complete([{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": prompt}])
            verdicts = json.loads(_json_part(reply))["satisfied"]
        except (OSError, ValueError, KeyError, TypeError, urllib.error.URLError) as err:
            log.warning("rubric judge gave no usable verdict for %s: %s", task.id, err)
            return None
        if not isinstance(verdicts, list) or len(verdicts) != len(items):
            log.warning("rubric judge answered %r for %d items of %s", verdicts, len(items), task.id)
            return None
        return sum(v is True for v in verdicts) / len(items)

    def _complete(self, messages: list[dict[str, str]]) -> str:
        body = json.dumps({"model": self.model, "messages": messages, "temperature": 0}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            payload: dict[str, Any] = json.loads(response.read())
        return str(payload["choices"][0]["message"]["content"])


def _json_part(text: str) -> str:
    """The JSON object in a reply, without code fences or prose around it."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError(f"no JSON object in {text[:80]!r}")
    return text[start : end + 1]
