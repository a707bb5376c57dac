"""Eval runs that report true numbers: the run folder's manifest, lock and records, model
failures said on the console and in the exit status, and env work kept on one thread."""

from __future__ import annotations

import fcntl
import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from chat_server import ScriptedChatServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgym.baselines.chat_agent import ChatAgent, ModelError
from mcpgym.baselines.evaluate import GIVE_UP_AFTER, evaluate
from mcpgym.baselines.run_folder import LOCK, MANIFEST, TRAJECTORIES, RunFolder, RunFolderError, RunManifest
from mcpgym.cli import main
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.tasks.loader import shipped_tasks

ZENDESK = 6  # shipped zendesk tasks


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / TRAJECTORIES).read_text().splitlines()]


def keys(rows: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return sorted((r["task_id"], r["episode"]) for r in rows)


def oracle(out: Path, *extra: str) -> int:
    return main(["eval", "--tasks", "zendesk", "--out", str(out), "--quiet", *extra])


def chat(server: ScriptedChatServer, out: Path, *extra: str) -> int:
    return main(["eval", "--agent", "openai", "--base-url", server.url, "--model", "m", "--api-key", "secret-key",
                 "--tasks", "zendesk", "--retries", "0", "--out", str(out), "--quiet", *extra])


# --- manifest: a resume must match the run it continues


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (["--agent", "noop"], "agent.kind 'oracle' there, 'noop' now"),
        (["--seed", "7"], "seed 0 there, 7 now"),
        (["--limit", "2"], "tasks 6 there, 2 now"),
        (["--episodes-per-task", "2"], "episodes_per_task 1 there, 2 now"),
        (["--max-turns", "3"], "env.max_turns 24 there, 3 now"),
        (["--reward", "outcome-only"], "env.reward 'dense' there, 'outcome-only' now"),
    ],
)
def test_a_resume_with_other_settings_is_refused_naming_what_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: list[str], named: str
) -> None:
    out = tmp_path / "run"
    assert oracle(out) == 0
    before = (out / TRAJECTORIES).read_bytes()
    capsys.readouterr()
    assert oracle(out, *change) == 1
    err = capsys.readouterr().err
    assert named in err and "--overwrite" in err and err.count("\n") == 1
    assert (out / TRAJECTORIES).read_bytes() == before, "a refused run must not touch the records"


def test_overwrite_starts_over_with_the_new_settings(tmp_path: Path) -> None:
    out = tmp_path / "run"
    (tmp_path / "run").mkdir()
    (out / "notes.txt").write_text("mine")
    assert oracle(out, "--limit", "2") == 0
    assert oracle(out, "--agent", "noop", "--overwrite") == 0
    rows = records(out)
    assert len(rows) == ZENDESK and all(r["reward"] == 0.0 for r in rows)
    assert json.loads((out / MANIFEST).read_text())["agent"] == {"kind": "noop"}
    assert (out / "notes.txt").read_text() == "mine", "only the run's own files are cleared"


def test_the_manifest_names_the_model_but_never_the_key(tmp_path: Path) -> None:
    server = ScriptedChatServer()
    try:
        assert chat(server, tmp_path / "run", "--limit", "1") == 0
    finally:
        server.close()
    manifest = json.loads((tmp_path / "run" / MANIFEST).read_text())
    assert manifest["agent"] == {"kind": "openai", "model": "m", "base_url": server.url, "temperature": 0.0, "max_tokens": 1024}
    assert "secret-key" not in (tmp_path / "run" / MANIFEST).read_text()


def test_records_without_a_manifest_are_not_resumed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert oracle(out, "--limit", "1") == 0
    (out / MANIFEST).unlink()
    capsys.readouterr()
    assert oracle(out, "--limit", "1") == 1
    assert f"no {MANIFEST}" in capsys.readouterr().err


# --- the lock: one run per folder


def test_a_locked_folder_is_refused_naming_the_lock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    out.mkdir()
    with (out / LOCK).open("a+b") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        assert oracle(out) == 1
    assert str(out / LOCK) in capsys.readouterr().err
    assert not (out / TRAJECTORIES).exists()
    assert oracle(out) == 0, "the lock is free once its holder lets go"


def eval_command(url: str, out: Path, concurrency: int) -> list[str]:
    """`mcpgym eval` of the zendesk tasks against the chat server at `url`, as its own process."""
    return [sys.executable, "-m", "mcpgym", "eval", "--agent", "openai", "--base-url", url, "--model", "m",
            "--api-key", "k", "--tasks", "zendesk", "--concurrency", str(concurrency), "--out", str(out), "--quiet"]


def test_two_concurrent_runs_on_one_folder_never_duplicate_episodes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    slow = ScriptedChatServer(delay=0.15)
    command = eval_command(slow.url, out, concurrency=1)
    try:
        first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not (out / TRAJECTORIES).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        second = subprocess.run(command, capture_output=True, text=True, timeout=60)
        first.communicate(timeout=120)
    finally:
        slow.close()
    assert first.returncode == 0
    assert second.returncode == 1 and "holds the lock" in second.stderr and "Traceback" not in second.stderr
    assert keys(records(out)) == sorted((t.id, 0) for t in shipped_tasks() if t.servers == ["zendesk"])


def test_an_interrupted_run_says_so_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    slow = ScriptedChatServer(delay=0.15)
    command = eval_command(slow.url, out, concurrency=2)
    try:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not ((out / TRAJECTORIES).exists() and (out / TRAJECTORIES).read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        assert process.returncode == 130 and "interrupted" in err and "Traceback" not in err
        assert 1 <= len(records(out)) < ZENDESK
        assert subprocess.run(command, capture_output=True, timeout=120).returncode == 0, "the lock was released"
    finally:
        slow.close()
    assert len(set(keys(records(out)))) == len(records(out)) == ZENDESK


# --- records: model errors played again, a cut last line dropped


def test_episodes_that_ended_in_a_model_error_are_played_again(tmp_path: Path) -> None:
    out = tmp_path / "run"
    failing = ScriptedChatServer(always_fail="exactly one open ticket")
    try:
        assert chat(failing, out) == 0
    finally:
        failing.close()
    assert [r["task_id"] for r in records(out) if r["error"]] == ["zendesk-urgent-requester"]
    healthy = ScriptedChatServer(port=failing.port)  # the same URL: the manifest names it
    try:
        assert chat(healthy, out) == 0
    finally:
        healthy.close()
    rows = records(out)
    assert len(rows) == ZENDESK and not any(r["error"] for r in rows) and len(set(keys(rows))) == ZENDESK
    assert list(healthy.per_episode) == [next(u for u in failing.per_episode if "exactly one open ticket" in u)]


@pytest.mark.parametrize("cut", ["mid-line", "no-newline"])
def test_a_cut_last_line_is_dropped_and_its_episode_played_again(tmp_path: Path, cut: str) -> None:
    out = tmp_path / "run"
    assert oracle(out) == 0
    lines = (out / TRAJECTORIES).read_text().splitlines(keepends=True)
    last = lines[-1]
    lines[-1] = last[: len(last) // 2] if cut == "mid-line" else last.rstrip("\n")
    (out / TRAJECTORIES).write_text("".join(lines))
    assert oracle(out) == 0
    rows = records(out)
    assert len(rows) == ZENDESK and len(set(keys(rows))) == ZENDESK
    assert rows[-1]["task_id"] == json.loads(last)["task_id"], "the cut episode is the one played again"
    assert json.loads((out / "summary.json").read_text())["overall"]["episodes"] == ZENDESK


def fake_record(number: int, error: str | None = None) -> dict[str, Any]:
    return {"task_id": f"t{number}", "episode": 0, "error": error, "payload": "x" * number}


MANIFEST_OF_TESTS = RunManifest(agent={"kind": "test"}, tasks_digest="d", tasks=1, episodes_per_task=1, seed=0, env={})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    errors=st.lists(st.booleans(), min_size=1, max_size=8),
    cut=st.floats(min_value=0.0, max_value=1.0),
)
def test_opening_a_folder_keeps_exactly_the_complete_error_free_records(tmp_path: Path, errors: list[bool], cut: float) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    (folder / MANIFEST).write_text(MANIFEST_OF_TESTS.model_dump_json())
    rows = [fake_record(n, "boom" if failed else None) for n, failed in enumerate(errors)]
    text = "".join(json.dumps(r) + "\n" for r in rows)
    size = int(len(text) * cut)
    (folder / TRAJECTORIES).write_text(text[:size])
    complete = text[:size].count("\n")
    with RunFolder(folder, MANIFEST_OF_TESTS) as run:
        kept = run.records
    expected = [r for r in rows[:complete] if r["error"] is None]
    assert kept == expected
    assert (folder / TRAJECTORIES).read_text() == "".join(json.dumps(r) + "\n" for r in expected)


def test_a_damaged_line_before_the_last_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / MANIFEST).write_text(MANIFEST_OF_TESTS.model_dump_json())
    good = json.dumps(fake_record(1)) + "\n"
    (tmp_path / TRAJECTORIES).write_text(good + "{not json\n" + good)
    with pytest.raises(RunFolderError, match=rf"{TRAJECTORIES}:2 is not an episode record"):
        RunFolder(tmp_path, MANIFEST_OF_TESTS).__enter__()
    (tmp_path / TRAJECTORIES).write_text(good + '{"episode": 0}\n')
    with pytest.raises(RunFolderError, match=":2 is not an episode record"):
        RunFolder(tmp_path, MANIFEST_OF_TESTS).__enter__()


# --- a model that never answers is said, and is a failure


@pytest.mark.parametrize(("status", "kind"), [(401, "AuthenticationError"), (404, "NotFoundError")])
def test_a_refusing_endpoint_fails_the_run_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], status: int, kind: str
) -> None:
    server = ScriptedChatServer(status=status)
    try:
        code = chat(server, tmp_path / "run", "--concurrency", "1")
    finally:
        server.close()
    err = capsys.readouterr().err
    assert code == 1
    assert kind in err and server.url in err and "no episode got an answer from the model (stopped early)" in err
    rows = records(tmp_path / "run")
    assert len(rows) == GIVE_UP_AFTER < ZENDESK and all(kind in r["error"] for r in rows), "stops once it is clear"


def test_an_unreachable_endpoint_fails_the_run_and_names_the_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = "http://127.0.0.1:9/v1"  # the discard port: nothing listens
    code = main(["eval", "--agent", "openai", "--base-url", url, "--model", "m", "--api-key", "k", "--tasks", "zendesk",
                 "--retries", "1", "--backoff", "0", "--timeout", "2", "--out", str(tmp_path / "run"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and "APIConnectionError" in err and url in err


def test_a_non_json_answer_is_that_episodes_error_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = ScriptedChatServer(body=b"<html>502 Bad Gateway</html>", body_for="exactly one open ticket")
    try:
        code = chat(server, tmp_path / "run")
    finally:
        server.close()
    assert code == 0
    failed = [r for r in records(tmp_path / "run") if r["error"]]
    assert [r["task_id"] for r in failed] == ["zendesk-urgent-requester"]
    assert "not JSON" in failed[0]["error"] and "text/html" in failed[0]["error"]
    assert "1 of 6 episodes ended in a model error" in capsys.readouterr().err
    everywhere = ScriptedChatServer(body=b"not json at all")
    try:
        assert chat(everywhere, tmp_path / "all") == 1
    finally:
        everywhere.close()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"x": 1}', "choices: Field required"),
        (b"[1, 2]", "not a chat completion"),
        (b'{"choices": []}', "no choices"),
        (b'{"choices": [{"message": {"content": 5}}]}', "choices.0.message.content"),
    ],
)
def test_json_that_is_not_a_completion_is_a_model_error(body: bytes, message: str) -> None:
    server = ScriptedChatServer(body=body)
    agent = ChatAgent(base_url=server.url, model="m", api_key="k", retries=0)
    observation = {"messages": [{"role": "user", "content": "hi"}], "tools": []}
    try:
        with pytest.raises(ModelError, match=message):
            agent.act(observation)
    finally:
        server.close()


def test_a_reply_over_the_size_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import mcpgym.baselines.chat_agent as chat_agent

    monkeypatch.setattr(chat_agent, "MAX_REPLY_BYTES", 1000)
    server = ScriptedChatServer(body=b'{"choices": [{"message": {"content": "' + b"a" * 5000 + b'"}}]}')
    try:
        with pytest.raises(ModelError, match="over 1000 bytes"):
            ChatAgent(base_url=server.url, model="m", api_key="k", retries=0).act({"messages": [{"role": "user", "content": "hi"}], "tools": []})
    finally:
        server.close()


# --- concurrency: model calls overlap, env work stays on one thread, results do not change


def test_env_work_runs_on_the_calling_thread_and_concurrency_changes_no_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: set[str] = set()
    for method in ("reset", "step", "score"):
        original = getattr(McpEnv, method)

        def spy(self: McpEnv, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            threads.add(threading.current_thread().name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(McpEnv, method, spy)
    shipped = shipped_tasks()
    tasks = [t for t in shipped if t.servers == ["zendesk"]][:5] + [t for t in shipped if len(t.servers) > 1][:5]
    assert {len(t.servers) > 1 for t in tasks} == {True, False}
    server = ScriptedChatServer(delay=0.01, always_fail="exactly one open ticket")
    try:
        def agent(seed: int) -> ChatAgent:
            return ChatAgent(base_url=server.url, model="m", api_key="k", retries=0, seed=seed)

        one = evaluate(tasks, agent, tmp_path / "one", concurrency=1, progress=False)
        many = evaluate(tasks, agent, tmp_path / "many", concurrency=8, progress=False)
    finally:
        server.close()
    assert threads == {threading.current_thread().name}
    assert one.summary == many.summary and one.ran == many.ran == len(tasks) and one.errors == many.errors
    strip = ("messages", "trajectory")
    assert sorted(({k: v for k, v in r.items() if k not in strip} for r in records(tmp_path / "one")), key=str) == sorted(
        ({k: v for k, v in r.items() if k not in strip} for r in records(tmp_path / "many")), key=str
    )
