"""Fact matching in answers, and argument normalisation."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mcpgym.rewards.facts import fact_found, numbers_in


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


def test_argument_normalisation() -> None:
    from mcpgym.rewards.normalize import same_argument

    assert same_argument("Danielle  Anderson", "danielle anderson")
    assert same_argument(1486, "1486") and same_argument(2.0, 2)
    assert same_argument("2025-11-01", "2025-11-01T00:00:00Z")
    assert same_argument("2025-11-12T18:00:00+01:00", "2025-11-12T17:00:00Z")
    assert same_argument(["b", "a"], ["a", "b"])
    assert not same_argument("2025-11-01", "2025-11-02") and not same_argument(1486, 1487)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40)
    | st.integers(min_value=10**308, max_value=10**400).map(str) | st.integers(min_value=10**308, max_value=10**400),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(JSON, JSON)
def test_argument_comparison_takes_any_json_value(a: object, b: object) -> None:
    """Hostile argument values (numbers beyond floats, nesting, any text) compare without
    raising; every value equals itself and comparison is symmetric."""
    from mcpgym.rewards.normalize import same_argument

    assert same_argument(a, a)
    assert same_argument(a, b) == same_argument(b, a)

