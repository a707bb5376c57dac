"""Clarification variants: a first request with one grounded value withheld, the user's reply
giving it, the same ground truth; the `asks` reward makes the oracle (which asks) score 1,
an agent that acts on a guess clearly less, and one that neither asks nor acts 0."""

from __future__ import annotations

import random
from functools import cache
from importlib import resources
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcpgym.baselines.adversarial import GuessingAgent
from mcpgym.baselines.agents import Agent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.rewards import PRESETS, score
from mcpgym.rewards.components import asks
from mcpgym.rewards.ground_truth import shared_ground_truths
from mcpgym.synth.clarify import (
    candidates,
    clarification_tasks,
    kind_of,
    rewrite,
    withhold,
)
from mcpgym.tasks.execute import WarmToolbox, verify_task
from mcpgym.tasks.loader import parse_tasks, shipped_tasks
from mcpgym.tasks.model import Task
from mcpgym.tasks.trajectory import CallRecord, Trajectory

SYNTH_SAMPLE = 400
"""Synthesized tasks read (the first lines of the shipped set: every family appears there)."""


@cache
def synth_sample() -> list[Task]:
    folder = resources.files("mcpgym.tasks") / "data" / "synth"
    lines: list[str] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".jsonl"):
            lines += entry.read_text("utf-8").splitlines()[:SYNTH_SAMPLE]
    return parse_tasks(lines, "synth sample")


@cache
def handwritten() -> list[Task]:
    return shipped_tasks()


def variants(tasks: list[Task], seed: int = 0) -> list[tuple[Task, Task]]:
    out = []
    for task in tasks:
        variant = withhold(task, random.Random(seed))
        if variant is not None:
            out.append((task, variant))
    return out


def withheld_value(original: Task, variant: Task) -> str:
    """The first-turn value the variant leaves out of its request and gives in its reply."""
    found = [value for value, _ in candidates(original)
             if value in original.turns[0].user and value not in variant.turns[0].user
             and value in variant.turns[1].user]
    assert len(found) == 1, (variant.turns[0].user, variant.turns[1].user, found)
    return found[0]


def check_variant(original: Task, variant: Task) -> None:
    assert Task.model_validate_json(variant.model_dump_json()) == variant
    asked, reply = variant.turns[0], variant.turns[1]
    assert asked.missing and not asked.calls and not asked.facts
    value = withheld_value(original, variant)
    assert value not in asked.user and value in reply.user
    assert reply.calls == original.turns[0].calls and reply.facts == original.turns[0].facts
    assert not reply.missing and len(reply.user) < len(value) + 40
    assert variant.turns[2:] == original.turns[1:]
    assert variant.id == f"{original.id}-ask" and variant.tags == [*original.tags, "clarify"]
    assert variant.calls == original.calls and variant.facts == original.facts
    assert (variant.difficulty, variant.expected_changes, variant.servers, variant.seed) == (
        original.difficulty, original.expected_changes, original.servers, original.seed)


# ------------------------------------------------------------------ the variants


def test_most_synthesized_tasks_and_some_handwritten_ones_yield_a_variant() -> None:
    synth = variants(synth_sample())
    hand = variants(handwritten())
    assert len(synth) >= 0.5 * len(synth_sample())
    assert len(hand) >= 0.2 * len(handwritten())
    for original, variant in [*synth, *hand]:
        check_variant(original, variant)


def test_variants_verify_against_their_ground_truth() -> None:
    servers = {tuple(v.servers) for v in episode_variants()}  # worlds the episodes seed anyway
    picked = [v for _, v in [*variants(handwritten()), *variants(synth_sample())] if tuple(v.servers) in servers]
    assert len(picked) >= 12
    with WarmToolbox() as warm:
        for variant in picked[:: len(picked) // 12][:12]:
            assert verify_task(variant, warm) == [], variant.id


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 2**32 - 1))
def test_any_task_and_seed_give_a_sound_variant_or_none(which: int, seed: int) -> None:
    pool = [*synth_sample(), *handwritten()]
    original = pool[which % len(pool)]
    variant = withhold(original, random.Random(seed))
    if variant is not None:
        check_variant(original, variant)
        assert withhold(variant, random.Random(seed)) is None  # its first turn already lacks something


@pytest.mark.parametrize(("request_text", "value", "tool", "argument", "expected", "reply"), [
    ("A customer is chasing ticket #1413. Which company filed it?", "1413", "get_ticket", "ticket_id",
     "A customer is chasing one of our tickets. Which company filed it?", "ticket #1413"),
    ("Order #1897 is packed: create its shipment.", "#1897", "get_order", "order_number",
     "One of our orders is packed: create its shipment.", "order #1897"),
    ("Add Jira issue DATA-79 to my 'Engineering follow-ups' project.", "DATA-79", "create_task", "jira_issue_key",
     "Add a Jira issue to my 'Engineering follow-ups' project.", "Jira issue DATA-79"),
    ("Who is working on WEB-214, and what's its status?", "WEB-214", "get_issue", "issue_key",
     "Who is working on one of our issues, and what's its status?", "issue WEB-214"),
    ("I'm pat@northwind.com. How much cash is in my portfolio?", "pat@northwind.com", "list_portfolios", "owner_email",
     "How much cash is in my portfolio?", "pat@northwind.com"),
    ("I'm Melissa Delacruz (melissa@x.com). How far did I fly?", "melissa@x.com", "get_passenger_by_email", "email",
     "I'm Melissa Delacruz. How far did I fly?", "melissa@x.com"),
    ("Remind me of reservation 3122876912: the hotel.", "3122876912", "get_reservation", "confirmation_number",
     "Remind me of one of our reservations: the hotel.", "reservation 3122876912"),
    ("Suspend Danielle Anderson's account.", "Danielle Anderson", "search_users", "query",
     "Suspend someone's account.", "Danielle Anderson"),
    ('My "Partner dinner" expense report won\'t go through.', "Partner dinner", "search_reports", "query",
     "One of my expense reports won't go through.", 'the "Partner dinner" expense report'),
    ("Approve Rebecca Hayes's expense report ER-10459.", "ER-10459", "get_report_by_number", "number",
     "Approve Rebecca Hayes's expense report.", "expense report ER-10459"),
    ("I'm Ann Lee (ann@x.com), booking DQZCZT. On my flight, which seats are free?", "DQZCZT", "get_reservation",
     "pnr", "I'm Ann Lee (ann@x.com). On my flight, which seats are free?", "booking DQZCZT"),
    ("How active was the api-server repository in October?", "api-server", "search_pull_requests", "repo",
     "How active was one of our repositories in October?", "api-server"),
])
def test_requests_read_naturally_without_the_value(request_text: str, value: str, tool: str, argument: str,
                                                    expected: str, reply: str) -> None:
    kind = kind_of(tool, argument, value)
    assert kind is not None
    found = rewrite(request_text, value, kind)
    assert found is not None and (found.text, found.reply) == (expected, reply)


@pytest.mark.parametrize(("request_text", "value", "tool", "argument"), [
    ("Our contact Jane Doe (jane@x.com) called: who owns her account?", "jane@x.com", "find_contact_by_email", "email"),
    ('Approve ER-10459 and DM her: "Your report ER-10459 is approved."', "ER-10459", "get_report_by_number", "number"),
    ("Create a project called 'Work' with two sections.", "Work", "list_projects", "query"),
    ("Who wrote in #acct-x-and-y? Tell me about billing-service#44.", "44", "get_pull_request", "number"),
    ("Is the line ending 7682 roaming?", "7682", "search_lines", "phone_number"),
])
def test_values_that_are_asides_repeated_or_names_being_given_stay(request_text: str, value: str, tool: str,
                                                                   argument: str) -> None:
    kind = kind_of(tool, argument, value)
    assert kind is not None and rewrite(request_text, value, kind) is None


def test_status_words_and_free_text_are_never_withheld() -> None:
    assert kind_of("search_opportunities", "status", "open") is None
    assert kind_of("send_dm", "text", "Hello there") is None
    assert kind_of("create_lead", "email", "a@b.com") is None


def test_a_share_of_a_task_set_becomes_variants() -> None:
    tasks = synth_sample()[:60]
    mixed = clarification_tasks(tasks, random.Random(3), 0.25)
    asked = [t for t in mixed if "clarify" in t.tags]
    assert len(mixed) == len(tasks) and len(asked) == round(0.25 * len(tasks))
    assert [t.id.removesuffix("-ask") for t in mixed] == [t.id for t in tasks]
    both = clarification_tasks(tasks, random.Random(3), 0.25, keep_originals=True)
    assert len(both) == len(tasks) + len(asked) and {t.id for t in tasks} <= {t.id for t in both}
    assert clarification_tasks(tasks, random.Random(3), 0.0) == list(tasks)
    with pytest.raises(ValueError, match="fraction"):
        clarification_tasks(tasks, random.Random(3), 1.5)


# ------------------------------------------------------------------ the reward


class SaysOk:
    """Answers every request with "ok" and no call."""

    def reset(self, task: Task, observation: dict[str, Any]) -> None:
        return None

    def act(self, observation: dict[str, Any]) -> str:
        return "ok"


@cache
def env_for(servers: tuple[str, ...]) -> McpEnv:
    return make_env(list(servers))


def play(task: Task, agent: Agent) -> Trajectory:
    env = env_for(tuple(task.servers))
    run_episode(env, agent, task)
    return env.trajectory.model_copy(deep=True)


def episode_variants() -> list[Task]:
    """A few variants over different servers: synthesized and handwritten, reads and writes."""
    picked: dict[tuple[str, ...], Task] = {}
    for _, variant in [*variants(handwritten())[:2], *variants(synth_sample())]:
        picked.setdefault(tuple(variant.servers), variant)
    chosen = list(picked.values())[:6]
    assert any(v.expected_changes for v in chosen) and any(v.facts for v in chosen)
    return chosen


@pytest.mark.parametrize("variant", episode_variants(), ids=lambda v: v.id)
def test_the_oracle_asks_and_scores_1_a_guesser_less_and_saying_ok_0(variant: Task) -> None:
    oracle = play(variant, OracleAgent())
    assert not [c for c in oracle.calls if c.turn == 0] and "?" in oracle.answers[0]
    assert variant.turns[0].missing[0] in oracle.answers[0]
    guess = play(variant, GuessingAgent())
    assert [c for c in guess.calls if c.turn == 0]
    nothing = play(variant, SaysOk())
    for name, preset in PRESETS.items():
        best = score(variant, oracle, preset)
        assert best.reward == 1.0 and best.components["asks"] == 1.0, name
        guessed = score(variant, guess, preset)
        assert guessed.components["asks"] == 0.0 and guessed.reward <= 1.0 - 0.2, name
        assert score(variant, nothing, preset).reward == 0.0, name
    assert score(variant, guess, PRESETS["dense"]).reward == pytest.approx(0.7)


def test_asks_needs_a_question_and_no_call_in_the_turn() -> None:
    variant = episode_variants()[0]
    truth = shared_ground_truths()(variant)
    call = CallRecord(turn=0, tool="x", status="ok")
    asked = Trajectory(task_id=variant.id, answers=["Which one do you mean?", "Done."])
    assert asks(variant, asked, truth) == 1.0
    assert asks(variant, asked.model_copy(update={"answers": ["Sure.", "Done."]}), truth) == 0.0
    assert asks(variant, asked.model_copy(update={"calls": [call]}), truth) == 0.0
    assert asks(variant, asked.model_copy(update={"calls": [call.model_copy(update={"turn": 1})]}), truth) == 1.0
    assert asks(variant, Trajectory(task_id=variant.id), truth) == 0.0


def test_tasks_that_lack_nothing_keep_their_breakdown() -> None:
    task = handwritten()[0]
    breakdown = score(task, play(task, OracleAgent()))
    assert asks(task, Trajectory(task_id=task.id), shared_ground_truths()(task)) is None
    assert "asks" not in breakdown.components and "ask_penalty" not in breakdown.model_dump()
    assert breakdown.reward == 1.0
