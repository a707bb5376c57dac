"""`mcpgym eval`: oracle and random baselines, a real OpenAI client against a scripted
endpoint (malformed calls, unknown tools, a timeout, 500s), metrics, plots, and resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chat_server import ScriptedChatServer

from mcpgym.baselines.metrics import pass_hat_k
from mcpgym.cli import main
from mcpgym.tasks.loader import shipped_tasks


def records(out: Path) -> list[dict]:  # type: ignore[type-arg]
    """The complete records (a line cut by a kill has no newline yet)."""
    return [json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines(keepends=True) if line.endswith("\n")]


def test_oracle_scores_the_maximum_and_random_far_below(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--agent", "oracle", "--episodes-per-task", "2", "--out", str(tmp_path / "oracle"), "--quiet"]) == 0
    oracle = json.loads((tmp_path / "oracle" / "summary.json").read_text())["overall"]
    assert oracle["mean_reward"] == 1.0 and oracle["pass_hat_k"]["2"] == 1.0 and oracle["invalid_call_rate"] == 0.0
    for run in ("random-a", "random-b"):
        assert main(["eval", "--agent", "random", "--seed", "3", "--out", str(tmp_path / run), "--quiet"]) == 0
    random_a, random_b = (json.loads((tmp_path / r / "summary.json").read_text())["overall"] for r in ("random-a", "random-b"))
    assert random_a["mean_reward"] < 0.2 and random_a == random_b
    def rewards(run: str) -> list[tuple[str, float]]:
        return sorted((r["task_id"], r["reward"]) for r in records(tmp_path / run))

    assert rewards("random-a") == rewards("random-b")
    capsys.readouterr()
    assert main(["eval", "compare", str(tmp_path / "oracle"), str(tmp_path / "random-a")]) == 0
    table = capsys.readouterr().out
    assert "| mean reward | 1.000 |" in table and "-0." in table
    for plot in ("reward_by_server.png", "reward_by_difficulty.png"):
        assert (tmp_path / "oracle" / plot).read_bytes()[:4] == b"\x89PNG"


def test_openai_agent_against_a_scripted_endpoint(tmp_path: Path) -> None:
    server = ScriptedChatServer(fail_once={3}, stall_once={5}, always_fail="exactly one open ticket", stall_seconds=2.5)
    try:
        out = tmp_path / "run"
        code = main([
            "eval", "--agent", "openai", "--base-url", server.url, "--model", "scripted", "--api-key", "k",
            "--tasks", "zendesk", "--timeout", "1", "--retries", "2", "--backoff", "0.05",
            "--concurrency", "3", "--out", str(out), "--quiet",
        ])
    finally:
        server.close()
    assert code == 0
    runs = records(out)
    summary = json.loads((out / "summary.json").read_text())["overall"]
    assert summary["episodes"] == len(runs) == 6
    failed = [r for r in runs if r["error"]]
    assert [r["task_id"] for r in failed] == ["zendesk-urgent-requester"] and summary["model_errors"] == 1
    assert "InternalServerError" in failed[0]["error"]
    statuses = [c["status"] for r in runs if not r["error"] for c in r["trajectory"]["calls"]]
    assert statuses.count("rejected") == 5 and statuses.count("malformed") == 5 and "ok" in statuses
    assert summary["invalid_call_rate"] > 0.5 and summary["tokens"]["prompt"] > 0
    assert all(r["reward"] < 0.5 for r in runs)
    text_out = tmp_path / "text"
    server = ScriptedChatServer()
    try:
        assert main(["eval", "--agent", "openai-text", "--base-url", server.url, "--model", "m", "--api-key", "k",
                     "--tasks", "zendesk", "--limit", "2", "--out", str(text_out), "--quiet"]) == 0
    finally:
        server.close()
    assert json.loads((text_out / "summary.json").read_text())["overall"]["episodes"] == 2


def test_a_killed_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    out = tmp_path / "run"
    slow = ScriptedChatServer(delay=0.3)
    command = [sys.executable, "-m", "mcpgym", "eval", "--agent", "openai", "--base-url", slow.url, "--model", "m",
               "--api-key", "k", "--tasks", "shipped", "--concurrency", "1", "--out", str(out), "--quiet"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            path = out / "trajectories.jsonl"
            if path.exists() and len(path.read_text().splitlines()) >= 3:
                break
            time.sleep(0.1)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    finally:
        slow.close()
    before = records(out)
    shipped = len(shipped_tasks())
    assert 3 <= len(before) < shipped
    fast = ScriptedChatServer(port=slow.port)  # the same URL, as the run's manifest records it
    try:
        assert main(["eval", "--agent", "openai", "--base-url", fast.url, "--model", "m", "--api-key", "k",
                     "--tasks", "shipped", "--concurrency", "4", "--out", str(out), "--quiet"]) == 0
    finally:
        fast.close()
    after = records(out)
    assert len(after) == shipped and after[: len(before)] == before
    assert len({(r["task_id"], r["episode"]) for r in after}) == shipped
    assert len(fast.per_episode) == shipped - len(before), "finished episodes must not run again"


def test_pass_hat_k_follows_its_definition() -> None:
    successes = {"a": [True, True, False, False], "b": [True, True, True, True]}
    assert pass_hat_k(successes, 1) == pytest.approx((0.5 + 1.0) / 2)
    assert pass_hat_k(successes, 2) == pytest.approx((1 / 6 + 1.0) / 2)
    assert pass_hat_k(successes, 4) == pytest.approx((0.0 + 1.0) / 2)
    assert pass_hat_k(successes, 5) is None
