"""The LLM user simulator against a local fake Chat Completions endpoint: what it sends (the
hidden script, never raw tool output), how it reads replies, and every fallback to the script."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

pytest.importorskip("openai", reason="the eval extra: pip install 'mcpgym[eval]'")

from mcpgym.envs.user_simulator import (
    MAX_MESSAGE_CHARS,
    MAX_TRANSCRIPT_CHARS,
    LlmUser,
    LlmUserConfig,
    UserReply,
    parse_reply,
    transcript,
    values,
)
from mcpgym.tasks.model import Task, Turn

TASK = Task(
    id="cancel-and-rename",
    servers=["todo"],
    turns=[
        Turn(user="Please cancel my order.", missing=["order number"]),
        Turn(user="It is order ORD-4521, placed by ann.olson@example.com."),
        Turn(user='Then rename my list "Weekend chores" to "Chores 2024".'),
    ],
)
SECRET = "SECRET-TOOL-OUTPUT-7731"
AGENT_SYSTEM = "AGENT-SYSTEM-PROMPT"


class FakeEndpoint:
    """Answers each chat completion with the next scripted reply: a string is the reply's
    content, an int that HTTP error status; records every request and its headers."""

    def __init__(self) -> None:
        self.replies: list[str | int] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                outer.requests.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                outer.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply = outer.replies.pop(0) if outer.replies else 500
                body: dict[str, Any]
                if isinstance(reply, int):
                    status, body = reply, {"error": {"message": f"scripted status {reply}", "type": "server_error"}}
                else:
                    status, body = 200, {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                         "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                                                      "finish_reason": "stop"}]}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                return None

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def script(self, *replies: str | int) -> None:
        self.replies = list(replies)
        self.requests.clear()
        self.headers.clear()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def endpoint() -> Iterator[FakeEndpoint]:
    server = FakeEndpoint()
    yield server
    server.close()


def user_for(endpoint: FakeEndpoint, **settings: Any) -> LlmUser:
    config = {"base_url": endpoint.url, "model": "sim-model", "api_key": "k", "retries": 0, "seed": 7, **settings}
    return LlmUser(LlmUserConfig(**config))


def act(action: str, message: str) -> str:
    return json.dumps({"action": action, "message": message})


def conversation(*turns: dict[str, Any]) -> list[dict[str, Any]]:
    """An env-style conversation: the agent's system prompt, the opening, then `turns`."""
    return [{"role": "system", "content": AGENT_SYSTEM}, {"role": "user", "content": TASK.turns[0].user}, *turns]


def system_of(request: dict[str, Any]) -> str:
    return str(request["messages"][0]["content"])


# ---------------------------------------------------------------------------- round trips


def test_the_opening_rewords_turn_zero_and_the_request_carries_script_model_and_settings(endpoint: FakeEndpoint) -> None:
    endpoint.script(act("next", "Hi, I'd like to cancel an order of mine."))
    user = user_for(endpoint, temperature=0.3, max_tokens=200)
    assert user.opening(TASK) == "Hi, I'd like to cancel an order of mine."
    [request] = endpoint.requests
    assert (request["model"], request["temperature"], request["seed"], request["max_tokens"]) == ("sim-model", 0.3, 7, 200)
    system = system_of(request)
    positions = [system.index(turn.user) for turn in TASK.turns]
    assert positions == sorted(positions), "every scripted request, in order"
    assert "order number" in system and "conversation has not started" in system
    assert endpoint.headers[0]["authorization"] == "Bearer k"


def test_a_question_the_current_turn_answers_gets_an_answer_and_tool_output_is_never_sent(endpoint: FakeEndpoint) -> None:
    endpoint.script(act("answer", "No, only the list name should change."))
    messages = conversation(
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "list_lists", "arguments": '{"owner": "ann"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "list_lists", "content": SECRET},
        {"role": "assistant", "content": "Should I also change the list's colour?"},
    )
    reply = user_for(endpoint).reply(TASK, 2, messages)
    assert reply == UserReply(kind="answer", message="No, only the list name should change.")
    sent = json.dumps(endpoint.requests[0])
    assert SECRET not in sent and '{"owner": "ann"}' not in sent and AGENT_SYSTEM not in sent
    shown = endpoint.requests[0]["messages"][1]["content"]
    assert "list_lists" in shown and "Should I also change the list's colour?" in shown
    assert "request 3 of 3 (the last one)" in system_of(endpoint.requests[0])


def test_asking_for_what_the_next_turn_supplies_moves_on_with_its_values_kept(endpoint: FakeEndpoint) -> None:
    endpoint.script(act("next", "Sure: the order is ORD-4521, and I placed it as ann.olson@example.com."))
    messages = conversation({"role": "assistant", "content": "Which order would you like to cancel?"})
    reply = user_for(endpoint).reply(TASK, 0, messages)
    assert reply.kind == "next" and reply.error is None and "ORD-4521" in reply.message
    assert "request 1 of 3." in system_of(endpoint.requests[0]) and "request 2 in your own words" in system_of(endpoint.requests[0])


@pytest.mark.parametrize("action", ["stop", "next"])
def test_at_the_last_turn_stop_and_next_both_stop(endpoint: FakeEndpoint, action: str) -> None:
    endpoint.script(act(action, "Thanks, that's all."))
    messages = conversation({"role": "assistant", "content": "Renamed."})
    assert user_for(endpoint).reply(TASK, 2, messages) == UserReply(kind="stop", message="Thanks, that's all.")


def test_a_finish_call_s_answer_is_shown_as_the_assistant_s_text(endpoint: FakeEndpoint) -> None:
    endpoint.script(act("stop", "Great, thanks."))
    messages = conversation({"role": "assistant", "content": "", "tool_calls": [
        {"id": "f", "type": "function", "function": {"name": "finish", "arguments": '{"answer": "The list is renamed."}'}}]})
    assert user_for(endpoint).reply(TASK, 2, messages).kind == "stop"
    shown = endpoint.requests[0]["messages"][1]["content"]
    assert "Assistant: The list is renamed." in shown and "used tools" not in shown


def test_fenced_json_amid_prose_is_read(endpoint: FakeEndpoint) -> None:
    endpoint.script("Sure, here it is:\n```json\n" + act("answer", "Yes, go ahead {please}.") + "\n```\nDone.")
    reply = user_for(endpoint).reply(TASK, 2, conversation({"role": "assistant", "content": "Shall I rename it?"}))
    assert reply == UserReply(kind="answer", message="Yes, go ahead {please}.")


# ---------------------------------------------------------------------------- fallbacks


def test_garbage_falls_back_to_the_next_scripted_turn_with_an_error(endpoint: FakeEndpoint) -> None:
    endpoint.script("I am not JSON at all")
    reply = user_for(endpoint).reply(TASK, 1, conversation({"role": "assistant", "content": "Cancelled."}))
    assert (reply.kind, reply.message) == ("next", TASK.turns[2].user)
    assert reply.error is not None and "unreadable" in reply.error


def test_an_http_500_without_retries_falls_back_with_an_error(endpoint: FakeEndpoint) -> None:
    endpoint.script(500)
    user = user_for(endpoint)
    reply = user.reply(TASK, 0, conversation({"role": "assistant", "content": "Which order?"}))
    assert (reply.kind, reply.message) == ("next", TASK.turns[1].user)
    assert reply.error is not None and "InternalServerError" in reply.error and len(endpoint.requests) == 1
    endpoint.script(500)
    assert user.opening(TASK) == TASK.turns[0].user


def test_a_failure_at_the_last_turn_stops(endpoint: FakeEndpoint) -> None:
    endpoint.script(503)
    reply = user_for(endpoint).reply(TASK, 2, conversation({"role": "assistant", "content": "Renamed."}))
    assert (reply.kind, reply.message) == ("stop", "") and reply.error


def test_a_client_failing_in_its_own_way_never_raises_out_of_reply() -> None:
    class Broken:
        def __init__(self) -> None:
            self.chat = self.completions = self.with_streaming_response = self

        def create(self, **request: Any) -> Any:
            raise RuntimeError("socket exploded")

    user = LlmUser(LlmUserConfig(base_url="http://127.0.0.1:9/v1", model="m", retries=0), client=Broken())
    reply = user.reply(TASK, 1, conversation())
    assert (reply.kind, reply.message) == ("next", TASK.turns[2].user)
    assert reply.error is not None and "RuntimeError: socket exploded" in reply.error


def test_a_reply_longer_than_the_bound_is_cut(endpoint: FakeEndpoint) -> None:
    endpoint.script(act("answer", "yes " * 2_000))
    reply = user_for(endpoint).reply(TASK, 2, conversation({"role": "assistant", "content": "Sure?"}))
    assert reply.kind == "answer" and len(reply.message) == MAX_MESSAGE_CHARS and reply.message.endswith("...")


@pytest.mark.parametrize(
    ("turn", "reply", "error"),
    [
        (0, act("next", "It's order ORD-4521."), "left out 'ann.olson@example.com'"),
        (1, act("next", "Then rename my list Weekend chore to Chores 2024."), "left out 'Weekend chores'"),
        (2, act("answer", "It was order ORD-9999."), "gave 'ORD-9999', not in the script"),
        (0, act("answer", "My order is ORD-4521."), "gave 'ORD-4521', not in the script"),
        (0, act("stop", "Bye."), "stopped at request 1 of 3"),
        (1, act("answer", ""), "empty message"),
        (1, act("dance", "hello"), "no known action"),
        (1, json.dumps({"message": "no action"}), "no known action"),
    ],
)
def test_a_reply_that_breaks_the_script_falls_back_to_it(endpoint: FakeEndpoint, turn: int, reply: str, error: str) -> None:
    endpoint.script(reply)
    got = user_for(endpoint).reply(TASK, turn, conversation({"role": "assistant", "content": "Which one?"}))
    assert (got.kind, got.message) == (("next", TASK.turns[turn + 1].user) if turn < 2 else ("stop", ""))
    assert got.error is not None and error in got.error


def test_a_value_the_assistant_said_may_be_repeated(endpoint: FakeEndpoint) -> None:
    endpoint.script(act("answer", "Yes, list L-88 is the one."))
    messages = conversation({"role": "assistant", "content": "I found list L-88 named Weekend chores. Is that it?"})
    assert user_for(endpoint).reply(TASK, 2, messages) == UserReply(kind="answer", message="Yes, list L-88 is the one.")


def test_an_opening_that_loses_or_adds_values_is_replaced_by_the_script(endpoint: FakeEndpoint) -> None:
    endpoint.script(act("next", "Cancel order ORD-4521 please."))
    reply = user_for(endpoint).start(TASK)
    assert (reply.kind, reply.message) == ("next", TASK.turns[0].user) and "ORD-4521" in (reply.error or "")


def test_without_answers_left_only_moving_on_is_offered(endpoint: FakeEndpoint) -> None:
    endpoint.script(act("answer", "Yes."))
    reply = user_for(endpoint).reply(TASK, 1, conversation({"role": "assistant", "content": "Sure?"}), allow_answer=False)
    assert (reply.kind, reply.message) == ("next", TASK.turns[2].user) and "used up" in (reply.error or "")
    system = system_of(endpoint.requests[0])
    assert '"answer"' not in system and '{"action": "next", "message": "..."}' in system


def test_at_the_last_turn_without_answers_left_the_user_stops_without_asking(endpoint: FakeEndpoint) -> None:
    endpoint.script(act("answer", "Yes."))
    reply = user_for(endpoint).reply(TASK, 2, conversation({"role": "assistant", "content": "Sure?"}), allow_answer=False)
    assert reply == UserReply(kind="stop", message="") and endpoint.requests == []


def test_a_turn_outside_the_task_is_a_caller_error(endpoint: FakeEndpoint) -> None:
    with pytest.raises(IndexError, match="turn 3 is outside task cancel-and-rename"):
        user_for(endpoint).reply(TASK, 3, conversation())


def test_the_same_conversation_gives_the_same_request(endpoint: FakeEndpoint) -> None:
    messages = conversation({"role": "assistant", "content": "Which order?"})
    endpoint.script(act("answer", "x"), act("answer", "x"))
    user_for(endpoint).reply(TASK, 0, messages)
    user_for(endpoint).reply(TASK, 0, messages)
    first, second = endpoint.requests
    assert first == second


# ---------------------------------------------------------------------------- config


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"base_url": "ftp://host/v1"}, "base_url must be an http:// or https:// URL"),
        ({"model": "   "}, "model must name a model"),
        ({"temperature": 5}, "less than or equal to 2"),
        ({"max_replies_per_turn": -1}, "greater than or equal to 0"),
        ({"retries": 100}, "less than or equal to 10"),
        ({"colour": "blue"}, "Extra inputs are not permitted"),
    ],
)
def test_config_errors_are_clear(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        LlmUserConfig(**{"base_url": "http://localhost:8000/v1", "model": "m", **settings})


def test_config_defaults_hide_the_key_and_are_frozen() -> None:
    config = LlmUserConfig(base_url="https://user:pw@example.com/v1?x=1", model="m", api_key="sk-secret")
    assert (config.temperature, config.max_tokens, config.max_replies_per_turn) == (0.0, 256, 3)
    assert "sk-secret" not in repr(config) and "api_key" not in config.model_dump()
    assert config.public()["base_url"] == "https://example.com/v1"
    with pytest.raises(ValidationError):
        config.temperature = 1.0  # type: ignore[misc]
    assert LlmUser(config).max_replies_per_turn == 3


def test_without_a_key_the_environment_s_is_used(endpoint: FakeEndpoint, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    endpoint.script(act("next", TASK.turns[0].user))
    LlmUser(LlmUserConfig(base_url=endpoint.url, model="m", retries=0)).opening(TASK)
    assert endpoint.headers[0]["authorization"] == "Bearer env-key" and "seed" not in endpoint.requests[0]


# ---------------------------------------------------------------------------- pieces


def test_parse_reply_reads_objects_in_fences_and_prose_and_refuses_the_rest() -> None:
    assert parse_reply('{"action": " NEXT ", "message": "hi"}') == ("next", "hi")
    assert parse_reply('Thinking {not json} then {"kind": "answer", "text": "ok"}') == ("answer", "ok")
    assert parse_reply('```\n{"message": "bare"}\n```') == (None, "bare")
    for bad in ("", "no braces", '{"action": "next"}', '{"message": 5}', "{" * 20_000, '{"a": ' + "[" * 50_000):
        with pytest.raises(ValueError, match="no JSON object"):
            parse_reply(bad)


def test_the_transcript_drops_tool_traffic_and_env_notes_and_keeps_the_latest() -> None:
    messages = [
        {"role": "system", "content": AGENT_SYSTEM},
        {"role": "user", "content": "Rename my list."},
        {"role": "assistant", "content": 'Let me look. <tool_call>{"name": "find", "arguments": {}}</tool_call><think>hmm',
         "tool_calls": [{"id": "c", "type": "function", "function": {"name": "find", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": SECRET},
        {"role": "user", "content": "format_error: tool call 1 is not valid JSON"},
        {"role": "assistant", "content": [{"type": "text", "text": "Which list?"}]},
    ]
    assert transcript(messages) == (
        "User: Rename my list.\n\nAssistant: Let me look.\n\n[the assistant used tools: find]\n\nAssistant: Which list?"
    )
    long = [{"role": "assistant", "content": f"{n} " + "x" * 5_000} for n in range(50)]
    shown = transcript(long)
    assert len(shown) <= MAX_TRANSCRIPT_CHARS + 100
    assert shown.startswith("(earlier messages left out)") and "49 x" in shown and "\n0 x" not in shown


def test_values_are_ids_amounts_emails_and_quoted_text() -> None:
    assert values('Refund $1,250.00 on #ORD-4521 to ann.olson@example.com for "Weekend chores" by 2024-05-01.') == [
        "1", "250.00", "ORD-4521", "2024-05-01", "ann.olson@example.com", "Weekend chores"]


# ---------------------------------------------------------------------------- in the env


def env_task() -> Task:
    """The two-turn billing audit of the shipped zendesk tasks."""
    from mcpgym.tasks.loader import shipped_tasks

    [task] = [t for t in shipped_tasks(["zendesk"]) if t.id == "zendesk-billing-queue-audit"]
    return task


def test_the_env_plays_the_llm_user_answers_within_a_turn_and_scores_as_scripted(endpoint: FakeEndpoint) -> None:
    from mcpgym.baselines.agents import OracleAgent
    from mcpgym.baselines.rollout import run_episode
    from mcpgym.envs import make_env

    task = env_task()
    config = {"base_url": endpoint.url, "model": "sim", "api_key": "k", "retries": 0, "max_replies_per_turn": 1}
    env = make_env(["zendesk"], tasks=[task], user=config)
    scripted = run_episode(make_env(["zendesk"], tasks=[task]), OracleAgent(), task)
    endpoint.script(act("next", "How many unsolved tickets does the Billing group have?"),
                    act("answer", "Yes, the Billing group."),
                    act("next", "Add an internal note to the oldest: Reviewed in the billing queue audit."),
                    act("stop", ""))
    observation, _ = env.reset(options={"task": task})
    assert observation["messages"][1]["content"] == "How many unsolved tickets does the Billing group have?"
    observation, *_ = env.step("Do you mean the Billing group?")
    assert observation["messages"][-1] == {"role": "user", "content": "Yes, the Billing group."}
    assert env._turn == 0 and env.trajectory.answers == [], "an answer to a question stays on the turn"
    agent = OracleAgent()
    agent.reset(task, observation)
    terminated = False
    while not terminated:
        observation, reward, terminated, truncated, info = env.step(agent.act(observation))
        assert not truncated
    assert reward == pytest.approx(scripted.reward)
    assert "user_errors" not in info and len(endpoint.requests) == 4


def test_an_endpoint_failure_falls_back_to_the_script_and_is_reported(endpoint: FakeEndpoint) -> None:
    from mcpgym.envs import make_env

    task = env_task()
    env = make_env(["zendesk"], tasks=[task], user={"base_url": endpoint.url, "model": "sim", "api_key": "k", "retries": 0})
    endpoint.script(500, 500)
    observation, _ = env.reset(options={"task": task})
    assert observation["messages"][1]["content"] == task.turns[0].user
    observation, _, _, _, info = env.step("Six.")
    assert observation["messages"][-1]["content"] == task.turns[1].user
    assert len(info["user_errors"]) == 2 and all("500" in error or "Error" in error for error in info["user_errors"])


def test_a_bad_user_setting_is_a_clear_env_error() -> None:
    from mcpgym.envs import make_env

    with pytest.raises(ValueError, match="user"):
        make_env(["zendesk"], user={"base_url": "ftp://x", "model": "m"})
    with pytest.raises(ValueError, match="user"):
        make_env(["zendesk"], user="llm")
