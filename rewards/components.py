"""Reward components: small pure functions of (task, trajectory, ground truth), each in [0, 1].

`None` means the component does not apply to the task (an answer score for a task with no
facts); the composition leaves it out. Every formula is in the docstring.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from mcpgym.tasks.trajectory import CallRecord, Trajectory
from mcpgym.rewards.facts import fact_found, numbers_in
from mcpgym.rewards.ground_truth import GroundTruth, TruthCall
from mcpgym.rewards.normalize import normalize
from mcpgym.tasks.execute import changes_made
from mcpgym.tasks.model import Task

VALIDITY_CREDIT = {"malformed": 0.0, "rejected": 1 / 3, "error": 2 / 3, "ok": 1.0}


def validity(task: Task, trajectory: Trajectory, truth: GroundTruth) -> float | None:
    """Graduated validity: mean credit per call, malformed 0, rejected (unknown tool, schema
    violation) 1/3, executed with an error 2/3, executed successfully 1.

    validity = sum(credit(c) for c in calls) / len(calls); 0 with no calls when the task has
    ground-truth calls; not applicable when it has none and none were made.
    """
    if not trajectory.calls:
        return 0.0 if len(truth) else None
    return sum(VALIDITY_CREDIT[c.status] for c in trajectory.calls) / len(trajectory.calls)


def argument_score(truth_call: TruthCall, call: CallRecord) -> float:
    """Share of the ground-truth call's arguments the agent's call gives the same value
    (normalised: case, whitespace, number formats, dates, list order); 1 if it has none."""
    if not truth_call.arguments:
        return 1.0
    given = call.arguments or {}
    hits = sum(1 for k, v in truth_call.normalized.items() if k in given and v == normalize(given[k]))
    return hits / len(truth_call.arguments)


def _same_tool(truth_call: TruthCall, call: CallRecord) -> bool:
    return (call.server, call.server_tool) == (truth_call.server, truth_call.tool)


def reproduces(truth_call: TruthCall, call: CallRecord) -> bool:
    """An agent call reproduces a ground-truth call when it is the same tool, executed
    successfully, with every bound (data-flow) argument equal and at least half of all the
    ground-truth arguments equal."""
    if call.status != "ok" or not _same_tool(truth_call, call):
        return False
    given = call.arguments or {}
    bound_ok = all(k in given and truth_call.normalized[k] == normalize(given[k]) for k in truth_call.bound)
    return bound_ok and argument_score(truth_call, call) >= 0.5


def match_calls(truth: GroundTruth, trajectory: Trajectory) -> dict[str, int]:
    """Ground-truth call id -> index of the agent call that reproduces it, taking calls in
    ground-truth order, each agent call used once and never before its parents' matches."""
    matched: dict[str, int] = {}
    used: set[int] = set()
    for truth_call in truth.calls:
        after = max((matched[p] for p in truth_call.parents if p in matched), default=-1)
        for index, call in enumerate(trajectory.calls):
            if index > after and index not in used and reproduces(truth_call, call):
                matched[truth_call.id] = index
                used.add(index)
                break
    return matched


def coverage(task: Task, trajectory: Trajectory, truth: GroundTruth) -> float | None:
    """Dependency-aware coverage: the share of ground-truth calls reproduced, where a call
    counts only if every parent (the calls whose results feed its arguments) counts too.

    coverage = |{g : reproduced(g) and all parents of g count}| / |ground-truth calls|
    """
    if not len(truth):
        return None
    matched = match_calls(truth, trajectory)
    counted: set[str] = set()
    for truth_call in truth.calls:
        if truth_call.id in matched and truth_call.parents <= counted:
            counted.add(truth_call.id)
    return len(counted) / len(truth)


def arguments(task: Task, trajectory: Trajectory, truth: GroundTruth) -> float | None:
    """Argument-value match: for each ground-truth call, the best `argument_score` over the
    agent's executed calls of the same tool (0 when it never called that tool); the mean over
    ground-truth calls, each agent call credited to one ground-truth call at most."""
    if not len(truth):
        return None
    used: set[int] = set()
    total = 0.0
    for truth_call in truth.calls:
        best, best_index = 0.0, None
        for index, call in enumerate(trajectory.calls):
            if index in used or call.status not in ("ok", "error") or not _same_tool(truth_call, call):
                continue
            score = argument_score(truth_call, call)
            if score > best or best_index is None:
                best, best_index = score, index
        if best_index is not None:
            used.add(best_index)
            total += best
    return total / len(truth)


def tool_names(task: Task, trajectory: Trajectory, truth: GroundTruth) -> float | None:
    """Tool-name signal: F1 of the multiset of tools called (executed or refused by the tool)
    against the multiset of ground-truth tools: 2PR / (P + R), so calling every tool is
    punished through precision as missing one is through recall."""
    if not len(truth):
        return None
    wanted = Counter((c.server, c.tool) for c in truth.calls)
    made = Counter((c.server, c.server_tool) for c in trajectory.calls if c.status in ("ok", "error"))
    common = sum((wanted & made).values())
    if not common:
        return 0.0
    precision, recall = common / sum(made.values()), common / sum(wanted.values())
    return 2 * precision * recall / (precision + recall)


def call_budget(truth: GroundTruth) -> int:
    """Calls allowed before the efficiency penalty starts: ceil(1.5 n + depth + servers) for
    n ground-truth calls, so longer, deeper and wider tasks get more room to explore."""
    return math.ceil(1.5 * len(truth) + truth.depth + truth.servers)


def efficiency(task: Task, trajectory: Trajectory, truth: GroundTruth) -> float:
    """Adaptive efficiency: 1 within the call budget with no needless repeats, falling by 0.1
    per call over the budget and by 0.25 per repeated identical call (same tool and
    arguments as an earlier call, beyond the repeats the ground truth itself makes):

    efficiency = max(0, 1 - 0.1 * over_budget - 0.25 * extra_repeats)

    It is a penalty, never a credit: the composition subtracts weight * (1 - efficiency).
    """
    attempted = [c for c in trajectory.calls if c.status != "malformed"]
    over = max(0, len(attempted) - call_budget(truth))
    keys = Counter((c.tool, repr(sorted((c.arguments or {}).items()))) for c in attempted)
    repeats = sum(n - 1 for n in keys.values())
    truth_keys = Counter((c.server, c.tool, repr(sorted(c.arguments.items()))) for c in truth.calls)
    allowed = sum(n - 1 for n in truth_keys.values())
    return max(0.0, 1.0 - 0.1 * over - 0.25 * max(0, repeats - allowed))


WORDS = re.compile(r"\w+")


def answer(task: Task, trajectory: Trajectory, truth: GroundTruth) -> float | None:
    """Answer facts: recall of the task's facts in the final answers, times the square of a
    spam factor so that pasting every number seen earns little:

    spam = min(1, (3F + 6) / numbers_written, (25F + 40) / words_written)
    answer = found / F * spam ** 2

    for F facts (an answer twice as long as allowed keeps a quarter of its credit). Numbers match by value (tolerance to the precision written), times in ISO or
    `YYYY-MM-DD HH:MM` form, text case- and space-insensitively.
    """
    facts = task.facts
    if not facts:
        return None
    text = "\n".join(trajectory.answers)
    recall = sum(fact_found(f.value, text) for f in facts) / len(facts)
    numbers, words = len(numbers_in(text)), len(WORDS.findall(text))
    spam = min(1.0, (3 * len(facts) + 6) / max(1, numbers), (25 * len(facts) + 40) / max(1, words))
    return recall * spam**2


def state(task: Task, trajectory: Trajectory, truth: GroundTruth) -> float | None:
    """Final state against the expected diff: expected changes made with the expected values,
    over expected changes plus rows changed that the task did not ask for, squared:

    state = (made / (expected + unexpected)) ** 2; not applicable when the task expects no
    change and the agent made none. A row the agent inserted counts under another key than
    the expected one when its values are the expected ones (the key depends on the order of
    independent writes; `tasks.execute.changes_made`).

    Squared because the rows of one write go together: an email sent to the wrong person
    still inserts the right message, thread and label rows, and linear credit would call it
    three-quarters right.
    """
    wanted = {(c.server, c.table, c.key) for c in task.expected_changes}
    unexpected = sum(1 for c in trajectory.changes if (c.server, c.table, c.key) not in wanted)
    if not task.expected_changes and not unexpected:
        return None
    made = changes_made(task.expected_changes, trajectory.changes)
    return (made / (len(task.expected_changes) + unexpected)) ** 2


def asks(task: Task, trajectory: Trajectory, truth: GroundTruth) -> float | None:
    """Asking before acting: for each user turn that lacks information (`Turn.missing`), 1
    when the agent made no tool call in that turn and its answer to it is a question (holds
    a `?`), else 0 (a turn never answered counts 0):

    asks = |{t missing : no call in t and "?" in answer(t)}| / |{t missing}|

    Not applicable when no turn lacks anything. The presets use it as a penalty, never a
    credit (see `compose`): asking earns nothing by itself, guessing costs.
    """
    wanted = [index for index, turn in enumerate(task.turns) if turn.missing]
    if not wanted:
        return None
    acted = {call.turn for call in trajectory.calls}
    answers = trajectory.answers
    asked = sum(1 for index in wanted if index not in acted and index < len(answers) and "?" in answers[index])
    return asked / len(wanted)
