"""The state reward counts an inserted row by its values, whatever key the order of the
writes gave it; updates and deletes must still be of the expected row."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mcpgym.servers.toolbox import Toolbox
from mcpgym.tasks.execute import change_satisfied, changes_made, key_columns, observed_changes
from mcpgym.tasks.model import ExpectedChange

COMMENTS = [(1499, "First, about the invoice."), (1486, "Second, about the login.")]
"""Two open tickets of seed 0 and a comment for each."""


def comments_in_order(order: list[int]) -> list[ExpectedChange]:
    box = Toolbox(["zendesk"], 0)
    for index in order:
        ticket, body = COMMENTS[index]
        assert box.call("add_comment", {"ticket_id": ticket, "body": body, "public": False}).ok
    changes = observed_changes(box.diff())
    box.close()
    return changes


def test_independent_inserts_in_the_other_order_make_every_expected_change() -> None:
    expected = comments_in_order([0, 1])
    actual = comments_in_order([1, 0])
    inserted = [c for c in expected if c.op == "insert" and c.table == "comments"]
    assert len(inserted) == 2
    assert not all(change_satisfied(c, actual) for c in inserted), "the keys did swap"
    assert changes_made(expected, actual) == len(expected)


def test_an_insert_with_another_value_is_not_made() -> None:
    expected = comments_in_order([0, 1])
    box = Toolbox(["zendesk"], 0)
    box.call("add_comment", {"ticket_id": 1486, "body": "Second, about the login.", "public": False})
    box.call("add_comment", {"ticket_id": 1499, "body": "Something else entirely.", "public": False})
    actual = observed_changes(box.diff())
    box.close()
    assert changes_made(expected, actual) < len(expected)


def test_the_key_columns_come_from_the_schema() -> None:
    assert key_columns("zendesk", "comments") == {"id"}
    assert key_columns("zendesk", "no_such_table") == frozenset()
    assert key_columns("no_such_server", "comments") == frozenset()


rows = st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 3)), min_size=1, max_size=6)


@given(rows, st.randoms(use_true_random=False))
def test_permuting_the_keys_of_inserts_changes_nothing(values: list[tuple[str, int]], rng: object) -> None:
    expected = [ExpectedChange(server="zendesk", table="comments", key=str(100 + i), op="insert",
                               fields={"id": 100 + i, "body": b, "ticket_id": t}) for i, (b, t) in enumerate(values)]
    keys = list(range(100, 100 + len(values)))
    rng.shuffle(keys)  # type: ignore[attr-defined]
    actual = [c.model_copy(update={"key": str(k), "fields": {**c.fields, "id": k}}) for c, k in zip(expected, keys)]
    assert changes_made(expected, actual) == len(expected)
    assert changes_made(expected, actual[1:]) == len(expected) - 1, "each actual row counts once"


def test_an_update_of_another_row_is_not_the_expected_update() -> None:
    want = ExpectedChange(server="zendesk", table="tickets", key="5", op="update", fields={"status": "solved"})
    other = want.model_copy(update={"key": "6"})
    assert changes_made([want], [other]) == 0
    assert changes_made([want], [want]) == 1
