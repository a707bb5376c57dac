"""The `mcpgym` command line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mcpgym.cli import main
from mcpgym.servers.catalog import load_server, server_names


def test_list_shows_every_server_with_its_env_id_and_tool_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in server_names():
        line = next(line for line in out.splitlines() if line.startswith(name + " "))
        assert f"mcp/{name}-v0" in line and str(len(load_server(name).tools)) in line.split()


def test_tools_lists_names_and_descriptions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools", "zendesk"]) == 0
    out = capsys.readouterr().out
    assert all(tool.name in out for tool in load_server("zendesk").tools)
    assert "write" in out and "read" in out


def test_run_prints_the_episode_and_the_reward(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--task", "zendesk-urgent-requester"]) == 0
    out = capsys.readouterr().out
    assert "[user] We have exactly one open ticket" in out
    assert "reward 1.000" in out and "mean reward over 1 tasks: 1.000" in out
    assert "answer 1.00" in out and "coverage 1.00" in out


def test_run_with_do_nothing_agent_scores_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--agent", "noop", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("mean reward over") and lines[-1].endswith(": 0.000")
    assert "[user]" not in "\n".join(lines)


def test_unknown_task_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--task", "nope"]) == 2
    assert "no task 'nope'" in capsys.readouterr().err


def test_tasks_verify(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "verify"]) == 0
    assert "tasks verified by execution" in capsys.readouterr().out


def test_help_and_bad_server_name() -> None:
    helped = subprocess.run([sys.executable, "-m", "mcpgym", "--help"], capture_output=True, text=True)
    assert helped.returncode == 0 and "serve" in helped.stdout
    bad = subprocess.run([sys.executable, "-m", "mcpgym", "tools", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_tasks_complete_fills_values_from_execution(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    from mcpgym.tasks.loader import load_tasks, save_tasks, shipped_tasks

    original = next(t for t in shipped_tasks() if t.facts and t.expected_changes)
    blank = original.model_copy(deep=True)
    for turn in blank.turns:
        turn.facts = [f.model_copy(update={"value": None}) for f in turn.facts]
    blank = blank.model_copy(update={"expected_changes": [], "difficulty": None})
    source, output = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    save_tasks([blank], source)
    assert main(["tasks", "complete", str(source), "-o", str(output)]) == 0
    (done,) = load_tasks(output)
    assert [f.value for f in done.facts] == [f.value for f in original.facts]
    assert {(c.table, c.key, c.op) for c in done.expected_changes} == {(c.table, c.key, c.op) for c in original.expected_changes}
    assert done.difficulty == original.difficulty
