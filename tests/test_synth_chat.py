"""The chat task families: each grounds validated tasks, together they use every chat tool,
the oracle solves them and doing nothing does not, and the refusals they ask for are real."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from family_checks import one_task_per_family

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.servers.catalog import load_server
from mcpgym.servers.toolbox import Toolbox
from mcpgym.synth.families import families_for
from mcpgym.synth.families.chat import CHAT_FAMILIES
from mcpgym.tasks.execute import execute_task
from mcpgym.tasks.model import Task
from mcpgym.tasks.refs import evaluate

SERVERS = ("chat", "crm", "zendesk")
ATTEMPTS = 12


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(CHAT_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    assert set(validated) == {f.name for f in CHAT_FAMILIES}
    assert {f.name for f in CHAT_FAMILIES} <= {f.name for f in families_for(SERVERS)}
    assert all(f.name.startswith(("chat.", "cross.chat-")) for f in CHAT_FAMILIES)


def test_the_families_use_every_chat_tool(validated: dict[str, Task]) -> None:
    used = {call.tool for task in validated.values() for call in task.calls if call.server == "chat"}
    assert used == set(load_server("chat").tools.names())
    kinds = {f.kind for f in CHAT_FAMILIES}
    assert {"lookup", "aggregation", "write", "conditional-write", "policy", "multi-turn", "cross-server"} <= kinds
    assert any(len(t.turns) > 1 for t in validated.values())
    assert {s for t in validated.values() if len(t.servers) > 1 for s in t.servers} == set(SERVERS)


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    for family in CHAT_FAMILIES:
        task = validated[family.name]
        writes = any(load_server(c.server or "").tools.get(c.tool).writes for c in task.calls)  # type: ignore[union-attr]
        assert bool(task.expected_changes) == writes, family.name
        if family.kind == "policy":
            assert not writes and task.facts, family.name


REFUSED = {
    "chat.post-in-archived": ("post_message", lambda r, names: {"channel_id": r["c1"]["id"], "text": "Hello"}),
    "chat.archive-others-channel": ("archive_channel", lambda r, names: {"channel_id": r["c1"]["id"]}),
    "chat.edit-others-pin": ("edit_message", lambda r, names: {"message_id": r["c1"]["pins"][0]["message_id"], "text": "x"}),
    "chat.invite-guest-to-internal": ("invite_to_channel", lambda r, names: {
        "channel_id": names[0], "user_ids": [r["c1"]["users"][0]["id"]]}),
}
"""Per policy family, the write the request asks for, from the ground truth's results."""


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    assert set(REFUSED) == {f.name for f in CHAT_FAMILIES if f.kind == "policy"}
    for name, (tool, arguments) in REFUSED.items():
        task = validated[name]
        box = Toolbox(list(task.servers), task.seed)
        run = execute_task(task, box)
        channels = [box.sessions["chat"].call("find_channel", {"name": n}).data
                    for n in re.findall(r"#([a-z0-9_-]+)", task.turns[0].user)]
        before = box.state_hash()
        result = box.sessions["chat"].call(tool, arguments(run.results, [c["id"] for c in channels if c]))
        assert (result.error or "").startswith("forbidden: "), (name, result.text[:200])
        assert box.state_hash() == before
        box.close()
        for fact in task.facts:
            assert evaluate(fact.expr, run.results) == fact.value


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    envs = {}
    for name, task in validated.items():
        env = envs.setdefault(tuple(task.servers), make_env(task.servers))
        assert run_episode(env, OracleAgent(), task).reward == 1.0, name
        assert run_episode(env, NoOpAgent(), task).reward == 0.0, name
    for env in envs.values():
        env.close()


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """Ids reach the calls only through bindings (user 1, 'me', aside)."""
    for task in validated.values():
        text = " ".join(turn.user for turn in task.turns)
        for call in task.calls:
            for name, value in call.arguments.items():
                if name.endswith("_id") and value != 1:
                    assert not re.search(rf"(?<![\d-]){value}(?![\d-])", text), (task.id, name, value)
