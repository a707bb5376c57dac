"""The outcome reward and the fact matcher it uses."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mcpgym.rewards.facts import fact_found, numbers_in
from mcpgym.rewards.outcome import outcome_reward
from mcpgym.tasks.model import ExpectedChange, Task


def test_numbers_match_by_value() -> None:
    assert numbers_in("We had 1,234 tickets, 3.5 on average, -2 net") == [1234.0, 3.5, -2.0]
    assert fact_found(1234, "a total of 1,234")
    assert fact_found(3.7, "average 3.70")
    assert fact_found(2.84, "about 2.84 stars")
    assert not fact_found(25, "there were 250 tickets")
    assert not fact_found(3.7, "average 3.9")


def test_times_match_in_common_forms() -> None:
    value = "2025-11-04T08:19:21Z"
    assert fact_found(value, "last login 2025-11-04T08:19:21Z")
    assert fact_found(value, "last login 2025-11-04 08:19")
    assert not fact_found(value, "last login 2025-11-05 08:19")


def test_text_matches_case_and_space_insensitively() -> None:
    assert fact_found("Montgomery LLC", "works at montgomery  llc.")
    assert not fact_found("Montgomery LLC", "works at Montgomery")
    assert fact_found(["a", "b"], "a and b") and not fact_found(["a", "b"], "just a")
    assert fact_found(True, "Yes, it is.") and not fact_found(True, "No.")


@given(st.integers(min_value=-10**9, max_value=10**9))
def test_any_integer_written_is_found(n: int) -> None:
    assert fact_found(n, f"the count is {n}.")
    assert fact_found(n, f"the count is {n:,}.")


def make_task(facts: int, changes: int) -> Task:
    return Task.model_validate(
        {
            "id": "t",
            "servers": ["zendesk"],
            "turns": [{"user": "u", "facts": [{"name": f"f{i}", "expr": "1", "value": 10 + i} for i in range(facts)]}],
            "expected_changes": [
                {"server": "zendesk", "table": "tickets", "key": str(i), "op": "update", "fields": {"status": "open"}}
                for i in range(changes)
            ],
        }
    )


def change(key: str, status: str = "open") -> ExpectedChange:
    return ExpectedChange(server="zendesk", table="tickets", key=key, op="update", fields={"status": status})


def test_reward_is_mean_of_answer_and_state() -> None:
    task = make_task(facts=2, changes=2)
    assert outcome_reward(task, ["10 and 11"], [change("0"), change("1")]).reward == 1.0
    half = outcome_reward(task, ["10"], [change("0"), change("1", "closed")])
    assert half.answer == 0.5 and half.state == 0.5 and half.reward == 0.5
    assert outcome_reward(task, [""], []).reward == 0.0


def test_needless_writes_cost_reward() -> None:
    read_only = make_task(facts=1, changes=0)
    clean = outcome_reward(read_only, ["10"], [])
    dirty = outcome_reward(read_only, ["10"], [change("99")])
    assert clean.reward == 1.0 and dirty.reward == 0.5 and dirty.unexpected_changes == 1
