"""The synthesizer: validated, reproducible, grounded tasks that the oracle solves and that
reject planted bad drafts."""

from __future__ import annotations

import random
from pathlib import Path

import gymnasium as gym
import pytest

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.cli import main
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.world import build_world
from mcpgym.synth.family import Draft, Family, WorldView
from mcpgym.synth.generate import synthesize
from mcpgym.tasks.execute import verify_task
from mcpgym.tasks.model import Task


@pytest.fixture(scope="module")
def zendesk_tasks() -> list[Task]:
    tasks, _ = synthesize(["zendesk"], 45, seed=7)
    return tasks


def test_same_seed_same_tasks_byte_for_byte(zendesk_tasks: list[Task]) -> None:
    again, _ = synthesize(["zendesk"], 45, seed=7)
    assert [t.model_dump_json() for t in again] == [t.model_dump_json() for t in zendesk_tasks]
    other, _ = synthesize(["zendesk"], 45, seed=8)
    assert [t.model_dump_json() for t in other] != [t.model_dump_json() for t in zendesk_tasks]


def test_worker_processes_give_the_same_tasks(zendesk_tasks: list[Task]) -> None:
    parallel, _ = synthesize(["zendesk"], 45, seed=7, workers=2)
    assert [t.model_dump_json() for t in parallel] == [t.model_dump_json() for t in zendesk_tasks]


def test_every_task_verifies_and_the_oracle_solves_it(zendesk_tasks: list[Task]) -> None:
    env = gym.make("mcp/zendesk-v0").unwrapped
    families = {tag for t in zendesk_tasks for tag in t.tags if tag.startswith("family:")}
    assert len(families) >= 3 and {"split:train", "split:test"} <= {tag for t in zendesk_tasks for tag in t.tags}
    for task in zendesk_tasks:
        assert verify_task(task) == []
        assert run_episode(env, OracleAgent(), task).reward == 1.0
        assert run_episode(env, NoOpAgent(), task).reward == 0.0
    env.close()


def test_user_turns_name_what_a_user_knows(zendesk_tasks: list[Task]) -> None:
    """No internal id appears in a request; names and subjects in requests exist in the world."""
    people = {seed: {p.name for p in build_world(seed).people} for seed in {t.seed for t in zendesk_tasks}}
    for task in zendesk_tasks:
        known = {tag.removeprefix("known:") for tag in task.tags if tag.startswith("known:")}
        for call in task.calls:
            for name, value in call.arguments.items():
                if name.endswith("_id") and name not in known:
                    assert str(value) not in task.turns[0].user
        for fact in task.facts:
            if fact.name in ("requester", "author of its first comment"):
                assert fact.value in people[task.seed]


class PlantedFamily(Family):
    """Drafts one bad task: a call on a ticket that does not exist, or an ambiguous lookup."""

    servers = ("zendesk",)
    kind = "lookup"

    def __init__(self, name: str, turns: list[dict], checks: list[str]) -> None:  # type: ignore[type-arg]
        self.name, self.turns, self.checks = name, turns, checks

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        return Draft(family=self.name, key=str(rng.random()), turns=self.turns, checks=self.checks)


class WritingObserver(Family):
    """Drafts writes, and notes the state of the world each draft is sampled from."""

    name = "planted.writer"
    servers = ("zendesk",)
    kind = "write"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        self.seen.append(view.toolbox.sessions["zendesk"].state_hash())
        return Draft(family=self.name, key=str(len(self.seen)), writes=True, turns=[{
            "user": "Make ticket 1486 urgent.",
            "calls": [{"id": "c1", "tool": "add_comment", "arguments": {"ticket_id": 1486, "body": f"note {len(self.seen)}"}}],
            "facts": [],
        }])


def test_write_tasks_never_leak_into_later_sampling() -> None:
    """Every draft is sampled from the seeded world, even after write tasks ran."""
    from mcpgym.servers.catalog import load_server

    observer = WritingObserver()
    tasks, _ = synthesize(["zendesk"], 4, families=[observer])
    assert len(tasks) == 4 and all(t.expected_changes for t in tasks)
    assert set(observer.seen) == {ToolSession(load_server("zendesk"), 0).state_hash()}


def test_failing_and_ambiguous_drafts_are_rejected() -> None:
    failing = PlantedFamily("planted.failing", [{
        "user": "Who filed ticket 987654321?",
        "calls": [{"id": "c1", "tool": "get_ticket", "arguments": {"ticket_id": 987654321}}],
        "facts": [{"name": "requester", "expr": "{c1.requester_id}", "value": None}],
    }], [])
    ambiguous = PlantedFamily("planted.ambiguous", [{
        "user": "Who filed the billing ticket?",
        "calls": [{"id": "c1", "tool": "search_tickets", "arguments": {"tags": ["billing"], "per_page": 2}}],
        "facts": [{"name": "ticket", "expr": "{c1.tickets.0.id}", "value": None}],
    }], ["{c1.total} == 1"])
    tasks, report = synthesize(["zendesk"], 5, families=[failing, ambiguous], max_attempts=20)
    assert tasks == []
    assert set(report.rejected) == {"a call failed", "ambiguous"} and sum(report.rejected.values()) == 20


class NothingToGround(Family):
    """A family whose drafts never find anything."""

    name = "planted.nothing"
    servers = ("zendesk",)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        return None


def test_a_family_with_nothing_to_ground_stops_early() -> None:
    tasks, report = synthesize(["zendesk"], 50, families=[NothingToGround()])
    assert tasks == [] and not report.worlds
    assert set(report.rejected) == {"nothing to ground"} and report.rejected["nothing to ground"] < 20 * 50


def test_tasks_move_to_the_next_world_when_a_kind_runs_dry() -> None:
    """The follow-up family has a handful of open tickets per world: past them, the tasks come
    from the next world seed, run there, and stay the same for any number of workers."""
    from mcpgym.envs import make_env
    from mcpgym.synth.families.zendesk import TicketFollowUp

    tasks, report = synthesize(["zendesk"], 12, families=[TicketFollowUp()], world_seed=5)
    assert len(tasks) == 12 and len(report.worlds) >= 2 and min(report.worlds) == 5
    assert sorted({t.seed for t in tasks}) == sorted(report.worlds)
    assert report.rejected["duplicate"] > 0
    keys = [(t.seed, t.turns[0].user) for t in tasks]
    assert len(set(keys)) == len(keys)
    env = make_env(["zendesk"])
    for task in tasks:
        assert verify_task(task) == []
        assert run_episode(env, OracleAgent(), task).reward == 1.0
    env.close()
    parallel, _ = synthesize(["zendesk"], 12, families=[TicketFollowUp()], world_seed=5, workers=2)
    assert [t.model_dump_json() for t in parallel] == [t.model_dump_json() for t in tasks]


def test_only_writing_drafts_are_executed_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    import mcpgym.synth.generate as generate
    from mcpgym.synth.families.zendesk import TicketRequesterLookup

    runs: list[str] = []
    real = generate.execute_task

    def counting(task: Task, box: object = None) -> object:
        runs.append(task.tags[0])
        return real(task, box)  # type: ignore[arg-type]

    monkeypatch.setattr(generate, "execute_task", counting)
    reads, report = synthesize(["zendesk"], 6, families=[TicketRequesterLookup()], max_attempts=6)
    validated = len(reads) + sum(n for reason, n in report.rejected.items() if reason not in ("duplicate", "nothing to ground"))
    assert validated >= 4 and runs.count("family:zendesk.ticket-requester-lookup") == validated
    writes, _ = synthesize(["zendesk"], 3, families=[WritingObserver()], max_attempts=3)
    assert len(writes) == 3 and runs.count("family:planted.writer") == 6


def test_cli_writes_tasks_and_a_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tasks.jsonl"
    assert main(["synth", "--servers", "zendesk", "--n", "12", "--out", str(out), "--quiet"]) == 0
    assert len(out.read_text().splitlines()) == 12
    printed = capsys.readouterr().out
    assert "12 tasks in" in printed and "zendesk." in printed and "rejected drafts" in printed
    assert main(["synth", "--servers", "crm", "--families", "nope.", "--n", "3", "--out", str(out), "--quiet"]) == 2


def test_cross_server_families_link_servers_by_email() -> None:
    from mcpgym.envs import make_env
    from mcpgym.synth.families.cross import CROSS_FAMILIES

    tasks, report = synthesize(["zendesk", "crm", "calendar", "flights"], 9, families=CROSS_FAMILIES, seed=3)
    assert len(tasks) == 9 and report.rejected.get("a call failed", 0) == 0
    for task in tasks:
        assert len({c.server for c in task.calls}) >= 2
        assert verify_task(task) == []
        env = make_env(task.servers)
        assert run_episode(env, OracleAgent(), task).reward == 1.0
        env.close()


@pytest.mark.parametrize("name", ["crm.contact-lookup", "flights.passenger-lookup", "zendesk.ticket-then-metrics"])
def test_lookup_and_two_turn_families_name_people_the_world_has(name: str) -> None:
    """Each task verifies, the oracle solves it, no request carries an internal id, and the
    person a request names is a person of the task's world."""
    from mcpgym.envs import make_env
    from mcpgym.synth.families import ALL_FAMILIES

    family = next(f for f in ALL_FAMILIES if f.name == name)
    tasks, report = synthesize(list(family.servers), 6, families=[family], seed=2)
    assert len(tasks) == 6 and report.rejected.get("a call failed", 0) == 0
    people = {p.name for p in build_world(tasks[0].seed).people}
    env = make_env(list(family.servers))
    for task in tasks:
        assert verify_task(task) == []
        assert run_episode(env, OracleAgent(), task).reward == 1.0
        text = " ".join(turn.user for turn in task.turns)
        ids = [v for c in task.calls for k, v in c.arguments.items() if k.endswith("_id")]
        assert not any(str(v) in text for v in ids)
        named = [fact.value for fact in task.facts if fact.name == "requester"] or [p for p in people if p in text]
        assert named and all(person in people for person in named)
    env.close()


def test_paraphrase_keeps_ground_truth_and_protected_spans(zendesk_tasks: list[Task]) -> None:
    import http.server
    import json
    import threading

    from mcpgym.synth.paraphrase import keeps_meaning, paraphrase_tasks, protected_spans

    assert protected_spans('Who filed "Locked out" on 2024-12-25 for Montgomery LLC?') == ["Locked out", "2024-12-25", "Montgomery LLC"]
    assert not keeps_meaning("Tickets in October 2025?", "Tickets last autumn?")

    two = [t for t in zendesk_tasks if len(t.turns) == 1][:2]
    replies = iter(["Please tell me: " + two[0].turns[0].user, "Something else entirely."])

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            body = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": next(replies)}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return None

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        rewritten, unchanged = paraphrase_tasks(two, f"http://127.0.0.1:{server.server_address[1]}/v1", "m")
    finally:
        server.shutdown()
    assert unchanged == 1
    assert rewritten[0].turns[0].user.startswith("Please tell me: ")
    assert rewritten[1].turns[0].user == two[1].turns[0].user
    for before, after in zip(two, rewritten):
        assert after.model_copy(update={"turns": before.turns}) == before


def test_the_sampling_view_refuses_writes_and_reports_misses() -> None:
    from mcpgym.synth.family import SamplingError

    view = WorldView(("zendesk",), 0)
    try:
        with pytest.raises(SamplingError, match="not a read tool"):
            view.read("zendesk", "update_ticket", ticket_id=1486, priority="urgent")
        assert view.lookup("zendesk", "get_ticket", ticket_id=987654321) is None
        with pytest.raises(SamplingError):
            view.read("zendesk", "get_ticket", ticket_id=987654321)
        assert view.read("zendesk", "get_ticket", ticket_id=1486)["id"] == 1486
    finally:
        view.close()


def test_the_sampling_view_remembers_reads_and_hands_out_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    view = WorldView(("zendesk",), 0, memo_size=2)
    session = view.toolbox.sessions["zendesk"]
    calls: list[str] = []
    real = session.call

    def counting(name: str, arguments: object = None) -> object:
        calls.append(name)
        return real(name, arguments)

    monkeypatch.setattr(session, "call", counting)
    try:
        first = view.read("zendesk", "get_ticket", ticket_id=1486)
        first["subject"] = "changed by a family"
        again = view.read("zendesk", "get_ticket", ticket_id=1486)
        assert again["subject"] != "changed by a family" and calls == ["get_ticket"]
        assert view.lookup("zendesk", "get_ticket", ticket_id=987654321) is None
        assert view.lookup("zendesk", "get_ticket", ticket_id=987654321) is None
        assert calls == ["get_ticket"] * 2
        view.read("zendesk", "list_tags", limit=3)
        view.read("zendesk", "get_ticket", ticket_id=1486)
        assert calls == ["get_ticket"] * 2 + ["list_tags", "get_ticket"]
    finally:
        view.close()


def test_synth_help_lists_its_options_and_the_graph_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["synth", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert all(option in text for option in ("--servers", "--n", "--world-seed", "--hf-out", "--workers"))
    assert "mcpgym synth graph" in text
