"""Parsing assistant turns: both documented formats, and malformed input that never raises."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgym.envs.actions import parse_action


def ids() -> itertools.count[int]:
    return itertools.count(1)


def parse(action: object):  # type: ignore[no-untyped-def]
    counter = ids()
    return parse_action(action, lambda: f"call_{next(counter)}")


def test_text_with_several_calls_and_prose() -> None:
    turn = parse(
        'Let me look.<tool_call>{"name": "get_ticket", "arguments": {"ticket_id": 1}}</tool_call>\n'
        '<tool_call>{"name": "get_user", "arguments": "{\\"user_id\\": 2}"}</tool_call>'
    )
    assert [(c.id, c.name, c.arguments) for c in turn.calls] == [
        ("call_1", "get_ticket", {"ticket_id": 1}),
        ("call_2", "get_user", {"user_id": 2}),
    ]
    assert turn.errors == [] and turn.content == "Let me look."
    assert [c["function"]["name"] for c in turn.message["tool_calls"]] == ["get_ticket", "get_user"]


def test_plain_text_is_an_answer_and_thinking_is_not_part_of_it() -> None:
    turn = parse("<think>maybe 41?</think>The answer is 42.")
    assert turn.calls == [] and turn.errors == []
    assert turn.answer == "The answer is 42."


def test_openai_message_with_tool_calls() -> None:
    turn = parse(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "abc", "type": "function", "function": {"name": "get_ticket", "arguments": '{"ticket_id": 7}'}},
                {"id": "bad", "type": "function", "function": {"name": "get_user", "arguments": "{oops"}},
            ],
        }
    )
    assert [(c.id, c.arguments) for c in turn.calls] == [("abc", {"ticket_id": 7})]
    assert len(turn.errors) == 1 and turn.errors[0].call_id == "bad"
    assert "not valid JSON" in turn.errors[0].message
    assert [c["id"] for c in turn.message["tool_calls"]] == ["abc", "bad"]


def test_malformed_text_calls_are_errors_with_a_hint() -> None:
    cases = {
        "<tool_call>{not json}</tool_call>": "not valid JSON",
        '<tool_call>{"arguments": {}}</tool_call>': "no tool 'name'",
        '<tool_call>{"name": "x", "arguments": [1]}</tool_call>': "must be a JSON object",
        '<tool_call>{"name": "x", "arguments": {}}': "not closed",
        '<tool_call>["x"]</tool_call>': "must be a JSON object",
    }
    for text, expected in cases.items():
        turn = parse(text)
        assert turn.calls == [], text
        assert any(expected in e.message for e in turn.errors), (text, turn.errors)
        assert all(e.message.startswith("format_error:") for e in turn.errors)


def test_non_text_non_dict_actions_are_errors() -> None:
    for action in (None, 42, ["a"], b"bytes"):
        turn = parse(action)
        assert turn.calls == [] and turn.errors and "format_error" in turn.errors[0].message


@settings(max_examples=300, deadline=None)
@given(st.text() | st.builds(lambda body: f"<tool_call>{body}</tool_call>", st.text()))
def test_no_text_makes_the_parser_raise(text: str) -> None:
    turn = parse(text)
    for call in turn.calls:
        assert isinstance(call.name, str) and isinstance(call.arguments, dict)
    json.dumps(turn.message)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["role", "content", "tool_calls", "x"]),
        st.none() | st.text() | st.integers() | st.lists(st.dictionaries(st.text(max_size=8), st.text(max_size=8) | st.integers())),
    )
)
def test_no_dict_makes_the_parser_raise(action: dict[str, object]) -> None:
    turn = parse(action)
    assert all(isinstance(c.arguments, dict) for c in turn.calls)


def test_a_message_with_another_role_is_refused_whole() -> None:
    turn = parse({"role": "user", "content": "hi", "tool_calls": [{"id": "a", "function": {"name": "get_ticket", "arguments": "{}"}}]})
    assert turn.calls == [] and len(turn.errors) == 1 and "role must be 'assistant'" in turn.errors[0].message


def test_blocks_close_at_the_first_closer_and_nest_nothing() -> None:
    turn = parse('<tool_call>{"name": "a"<tool_call>}</tool_call> x <think>a<think>b</think>c</think> y</tool_call>')
    assert turn.calls == [] and "not valid JSON" in turn.errors[0].message
    assert "not closed or not opened" in turn.errors[1].message
    assert turn.content == "x <think>a<think>b</think>c</think> y" and turn.answer == "x c</think> y"
