"""The episode host: official MCP SDK clients as the agent, scored by the env through the
result endpoint; and `evaluate_external` driving an agent command."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp_clients import http_json, text_of

from mcpgym.baselines.agents import format_value
from mcpgym.baselines.external_agent import CommandTemplate, evaluate_external, run_command
from mcpgym.envs.mcp_host import HostSettings, host_app, hosted
from mcpgym.tasks.loader import shipped_tasks
from mcpgym.tasks.model import Task
from mcpgym.tasks.refs import RefError, evaluate

SINGLE = "zendesk-escalate-ticket"
"""One request, three calls, two of them writes."""
MULTI_TURN = "zendesk-billing-queue-audit"
MULTI_SERVER = "docs-known-issue-ticket-handoff"


def shipped(task_id: str) -> Task:
    return next(task for task in shipped_tasks() if task.id == task_id)


async def oracle_turn(client: mcp.Client, task: Task, turn: int, results: dict[str, Any]) -> str:
    """Play the ground-truth calls of one user turn through MCP; the answer with its facts."""
    prefixed = len(task.servers) > 1
    for call in task.turns[turn].calls:
        name = f"{call.server}_{call.tool}" if prefixed else call.tool
        result = await client.call_tool(name, call.resolved_arguments(results))
        assert not result.is_error, text_of(result)
        results[call.id] = json.loads(text_of(result))
    lines = []
    for fact in task.turns[turn].facts:
        try:
            lines.append(f"{fact.name}: {format_value(evaluate(fact.expr, results))}")
        except RefError:
            continue
    return "\n".join(lines) or "Done."


async def play_oracle(url: str, task: Task) -> list[Any]:
    """Every turn of `task` through the MCP endpoint at `url`, each answered with `finish`;
    the structured results of the `finish` calls."""
    results: dict[str, Any] = {}
    finished = []
    async with mcp.Client(url) as client:
        for turn in range(len(task.turns)):
            answer = await oracle_turn(client, task, turn, results)
            reply = await client.call_tool("finish", {"answer": answer})
            assert not reply.is_error
            finished.append(json.loads(text_of(reply)))
    return finished


def create(base: str, body: Any) -> dict[str, Any]:
    status, created = http_json(base + "/episodes", "POST", body)
    assert status == 201, created
    return created


@pytest.fixture(scope="module")
def host() -> Any:
    with hosted(HostSettings(max_sessions=16)) as base:
        yield base


def test_oracle_through_the_endpoint_scores_one_and_doing_nothing_zero(host: str) -> None:
    task = shipped(SINGLE)
    created = create(host, {"task": SINGLE})
    assert created["request"] == task.turns[0].user and created["tools"][-1] == "finish"
    assert created["mcp_endpoint"] == f"/episodes/{created['episode_id']}/mcp"
    finished = anyio.run(play_oracle, host + created["mcp_endpoint"], task)
    assert finished == [{"done": True, "message": "The user has no further requests; the episode is over."}]
    status, result = http_json(host + f"/episodes/{created['episode_id']}/result")
    assert status == 200 and result["done"] and result["terminated"]
    assert result["reward"] == pytest.approx(1.0)
    assert result["reward_breakdown"]["reward"] == result["reward"]
    assert len(result["calls"]) == len(task.calls) and all(c["status"] == "ok" for c in result["calls"])
    expected = {(c.server, c.table, c.key, c.op) for c in task.expected_changes}
    assert expected and expected <= {(c["server"], c["table"], c["key"], c["op"]) for c in result["state_diff"]}

    idle = create(host, {"task": SINGLE})
    status, untouched = http_json(host + f"/episodes/{idle['episode_id']}/result")
    assert status == 200 and not untouched["done"] and untouched["reward"] == 0.0 and untouched["calls"] == []

    async def give_up(url: str) -> None:
        async with mcp.Client(url) as client:
            assert not (await client.call_tool("finish", {"answer": ""})).is_error
            late = await client.call_tool("get_ticket", {"ticket_id": 1486})
            assert late.is_error and text_of(late).startswith("episode_over:")

    anyio.run(give_up, host + idle["mcp_endpoint"])
    status, gave_up = http_json(host + f"/episodes/{idle['episode_id']}/result")
    assert status == 200 and gave_up["done"] and gave_up["reward"] == 0.0 and gave_up["state_diff"] == []


def test_multi_turn_and_multi_server_tasks(host: str) -> None:
    for task_id in (MULTI_TURN, MULTI_SERVER):
        task = shipped(task_id)
        created = create(host, {"task": task_id})
        assert created["servers"] == task.servers and created["turns"] == len(task.turns)
        if len(task.servers) > 1:
            assert all(name == "finish" or name.split("_")[0] in task.servers for name in created["tools"])
        finished = anyio.run(play_oracle, host + created["mcp_endpoint"], task)
        expected_next = [turn.user for turn in task.turns[1:]]
        assert [f.get("request") for f in finished[:-1]] == expected_next and finished[-1]["done"]
        status, result = http_json(host + f"/episodes/{created['episode_id']}/result")
        assert status == 200 and result["reward"] == pytest.approx(1.0), result["reward_breakdown"]
        assert len(result["answers"]) == len(task.turns)


def test_reply_answers_a_request_from_outside_mcp(host: str) -> None:
    created = create(host, {"task": MULTI_TURN})
    key = created["episode_id"]
    status, progress = http_json(host + f"/episodes/{key}/reply", "POST", {"answer": "no idea"})
    assert status == 200 and progress["turn"] == 1 and progress["request"] == shipped(MULTI_TURN).turns[1].user
    status, progress = http_json(host + f"/episodes/{key}/reply", "POST", {})
    assert status == 200 and progress["done"] and progress["request"] is None
    assert http_json(host + f"/episodes/{key}/result")[1]["answers"] == ["no idea", ""]


def test_concurrent_episodes_never_share_a_world(host: str) -> None:
    a = create(host, {"servers": ["zendesk"], "request": "raise ticket 1486 to urgent"})
    b = create(host, {"servers": ["zendesk"]})
    assert a["request"] == "raise ticket 1486 to urgent" and a["task_id"] != b["task_id"]

    async def main() -> dict[str, str]:
        seen: dict[str, str] = {}

        async def writer() -> None:
            async with mcp.Client(host + a["mcp_endpoint"]) as client:
                for priority in ("low", "urgent"):
                    assert not (await client.call_tool("update_ticket", {"ticket_id": 1486, "priority": priority})).is_error
                seen["a"] = text_of(await client.call_tool("get_ticket", {"ticket_id": 1486}))

        async def reader() -> None:
            async with mcp.Client(host + b["mcp_endpoint"]) as client:
                for _ in range(3):
                    seen["b"] = text_of(await client.call_tool("get_ticket", {"ticket_id": 1486}))

        async with anyio.create_task_group() as group:
            group.start_soon(writer)
            group.start_soon(reader)
        return seen

    seen = anyio.run(main)
    assert '"priority":"urgent"' in seen["a"] and '"priority":"high"' in seen["b"]
    assert len(http_json(host + f"/episodes/{a['episode_id']}/result")[1]["state_diff"]) == 1
    assert http_json(host + f"/episodes/{b['episode_id']}/result")[1]["state_diff"] == []


@asynccontextmanager
async def in_process(**settings: Any) -> AsyncIterator[Any]:
    """An HTTP client of `host_app(HostSettings(**settings))` with its lifespan running."""
    import httpx2

    app = host_app(HostSettings(**settings), tasks=[shipped(SINGLE)])
    async with app.router.lifespan_context(app):
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000", timeout=60) as client:
            yield client


def test_bad_ids_and_bodies_get_clear_4xx_and_change_nothing() -> None:
    async def main() -> None:
        async with in_process(max_sessions=2) as client:
            for method, path in (("GET", "/episodes/nope"), ("GET", "/episodes/nope/result"),
                                 ("POST", "/episodes/nope/reply"), ("DELETE", "/episodes/nope"),
                                 ("POST", "/episodes/nope/mcp")):
                answer = await client.request(method, path, json={})
                assert answer.status_code == 404 and answer.json()["error"].startswith("no_episode: there is no episode nope")
            assert (await client.get("/episodes/bad%20id!/result")).status_code == 400
            bodies: list[tuple[Any, str]] = [
                (b"{not json", "invalid body"),
                ({}, 'give either "task"'),
                ({"task": SINGLE, "servers": ["zendesk"]}, 'give either "task"'),
                ({"task": "no-such-task"}, "no task 'no-such-task'"),
                ({"task": "x" * 10_000}, "task"),
                ({"servers": ["nowhere"]}, "not served here"),
                ({"servers": ["zendesk", "zendesk"]}, "listed twice"),
                ({"servers": ["zendesk"], "extra": 1}, "extra"),
                ({"task": SINGLE, "request": "hi"}, '"request" is for a free session'),
                ({"task": {"id": "t", "servers": ["zendesk"], "turns": []}}, "turns"),
                ({"servers": ["zendesk"], "episode_id": "../x"}, "episode_id"),
                ({"servers": ["zendesk"], "request": "x" * 70_000}, "request"),
                ([1, 2], "invalid body"),
            ]
            for body, message in bodies:
                content = body if isinstance(body, bytes) else json.dumps(body).encode()
                answer = await client.post("/episodes", content=content)
                assert answer.status_code == 400 and message in answer.json()["error"], (body, answer.text)
                assert len(answer.text) < 2000
            huge = await client.post("/episodes", content=b" " * (2 << 20))
            assert huge.status_code == 413
            assert (await client.get("/healthz")).json()["episodes"] == 0

            first = await client.post("/episodes", json={"servers": ["zendesk"], "episode_id": "mine"})
            assert first.status_code == 201
            assert (await client.post("/episodes", json={"servers": ["crm"], "episode_id": "mine"})).status_code == 409
            assert (await client.post("/episodes/mine/reply", json={"answer": 3})).status_code == 400
            assert (await client.post("/episodes", json={"task": SINGLE})).status_code == 201
            full = await client.post("/episodes", json={"task": SINGLE})
            assert full.status_code == 503 and "Retry-After" in full.headers
            assert (await client.delete("/episodes/mine")).status_code == 200
            gone = await client.get("/episodes/mine/result")
            assert gone.status_code == 404 and gone.json()["error"].startswith("episode_closed:")
            assert (await client.post("/episodes", json={"servers": ["zendesk"], "episode_id": "mine"})).status_code == 409

    anyio.run(main)


def test_token_and_host_rules_guard_every_episode_route() -> None:
    token = "t" * 32

    async def main() -> None:
        async with in_process(access={"token": token}) as client:
            assert (await client.post("/episodes", json={"task": SINGLE})).status_code == 401
            assert (await client.get("/healthz")).status_code == 200
            made = await client.post("/episodes", json={"task": SINGLE}, headers={"Authorization": f"Bearer {token}"})
            assert made.status_code == 201
            key = made.json()["episode_id"]
            assert (await client.get(f"/episodes/{key}/result")).status_code == 401
            foreign = await client.get(f"/episodes/{key}/result", headers={"Authorization": f"Bearer {token}", "Host": "evil.example"})
            assert foreign.status_code == 421

    anyio.run(main)


# ---------------------------------------------------------------------- the agent command

AGENT_SCRIPT = """
import json, sys
import anyio, mcp

task_file, url, turn = sys.argv[1], sys.argv[2], int(sys.argv[3])
task = json.load(open(task_file))[sys.argv[4]]

def shown(value):
    if isinstance(value, list):
        return ", ".join(shown(v) for v in value)
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)

async def main():
    step = task["turns"][turn]
    async with mcp.Client(url) as client:
        for call in step["calls"]:
            name = call["server"] + "_" + call["tool"] if len(task["servers"]) > 1 else call["tool"]
            result = await client.call_tool(name, {**call["arguments"], **(call["bound"] or {})})
            assert not result.is_error, result
        answer = "\\n".join(f"{fact['name']}: {shown(fact['value'])}" for fact in step["facts"]) or "Done."
        if len(task["turns"]) == 1:
            await client.call_tool("finish", {"answer": answer})
        else:
            print(answer)

anyio.run(main)
"""
"""An agent command that replays a task's recorded ground truth (calls with their executed
arguments, facts with their values) through MCP: `agent.py TASKS.json URL TURN TASK_ID`. It answers
a one-request task with `finish`, and each request of a longer one on its stdout."""


@pytest.mark.slow  # three agent processes, each importing the MCP SDK: about 15 s of CPU
def test_external_agent_command_plays_the_oracle_to_one(tmp_path: Path) -> None:
    script, truth = tmp_path / "agent.py", tmp_path / "tasks.json"
    script.write_text(AGENT_SCRIPT)
    tasks = [shipped(MULTI_SERVER), shipped(MULTI_TURN)]
    truth.write_text(json.dumps({task.id: task.model_dump(mode="json") for task in tasks}))
    command = f"{sys.executable} {script} {truth} {{mcp_url}} {{turn}} {{task_id}}"
    report = evaluate_external(tasks, command, tmp_path / "run", concurrency=2, timeout=120, progress=False)
    assert report.ran == len(tasks) and report.answered == len(tasks) and not report.errors
    records = [json.loads(line) for line in (tmp_path / "run" / "trajectories.jsonl").read_text().splitlines()]
    assert [r["reward"] for r in records] == pytest.approx([1.0] * len(tasks))
    runs = {r["task_id"]: r["agent_runs"] for r in records}
    assert {task.id: len(runs[task.id]) for task in tasks} == {task.id: len(task.turns) for task in tasks}
    assert all(run["returncode"] == 0 for task_runs in runs.values() for run in task_runs)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["overall"]["mean_reward"] == pytest.approx(1.0)
    assert (tmp_path / "run" / "reward_by_server.png").is_file()
    again = evaluate_external(tasks, command, tmp_path / "run", concurrency=2, timeout=120, progress=False)
    assert again.resumed == len(tasks) and again.ran == 0


def test_external_agent_that_does_nothing_scores_zero_and_failures_are_recorded(tmp_path: Path) -> None:
    tasks = [shipped(SINGLE), shipped(MULTI_TURN)]
    report = evaluate_external(tasks, "true {mcp_url}", tmp_path / "noop", progress=False)
    assert report.ran == 2 and not report.errors
    records = [json.loads(line) for line in (tmp_path / "noop" / "trajectories.jsonl").read_text().splitlines()]
    assert [r["reward"] for r in records] == [0.0, 0.0] and all(r["terminated"] for r in records)

    failing = evaluate_external(tasks[:1], "echo oops >&2; exit 3", tmp_path / "fail", progress=False)
    record = json.loads((tmp_path / "fail" / "trajectories.jsonl").read_text())
    assert failing.answered == 0 and record["error"].startswith("agent_failed: the agent command exited with status 3: oops")
    assert record["reward"] == 0.0 and record["agent_runs"][0]["stderr"] == "oops\n"


def test_command_template_quotes_values_and_refuses_unknown_fields() -> None:
    hostile = "it's $(touch /tmp/pwned) `id`; echo \"x\" {turn}"
    template = CommandTemplate(text="printf %s {request}")
    run = run_command(template.fill({"request": hostile}), {"PATH": "/usr/bin:/bin"}, 10, 0)
    assert run.returncode == 0 and run.stdout == hostile
    for bad in ("go {nope}", "go {request.__class__}", "go {request!r}", "go {", "go {request:>10}"):
        with pytest.raises(ValueError):
            CommandTemplate(text=bad).fields()
    start = time.monotonic()
    slow = run_command("sleep 30", {"PATH": "/usr/bin:/bin"}, 0.3, 0)
    assert slow.timed_out and slow.error is not None and time.monotonic() - start < 10
