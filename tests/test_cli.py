"""The `mcpgym` command line: what each command does, one vocabulary across commands, help that
states every default and range, the old spellings that still work, and docs/cli.md."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcpgym.servers.catalog import load_server, server_names

from mcpgym import arguments
from mcpgym.cli import (
    build_parser,
    compare_parser,
    help_markdown,
    main,
    report_parser,
    synth_parser,
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def all_parsers() -> Iterator[argparse.ArgumentParser]:
    """Every parser the command line uses, subcommands included."""
    todo: list[argparse.ArgumentParser] = [build_parser(), synth_parser(), compare_parser(), report_parser()]
    while todo:
        parser = todo.pop()
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())


def options() -> Iterator[tuple[str, argparse.Action]]:
    """(command, action) for every argument shown in help."""
    for parser in all_parsers():
        for action in parser._actions:
            hidden = action.help is argparse.SUPPRESS
            if not hidden and not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                yield parser.prog, action


def test_list_shows_every_server_with_its_env_id_and_tool_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in server_names():
        line = next(line for line in out.splitlines() if line.startswith(name + " "))
        assert f"mcp/{name}-v0" in line and str(len(load_server(name).tools)) in line.split()


def test_tools_lists_names_and_descriptions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools", "--servers", "zendesk"]) == 0
    out = capsys.readouterr().out
    assert all(tool.name in out for tool in load_server("zendesk").tools)
    assert "write" in out and "read" in out and not out.startswith("server")


def test_tools_of_several_servers_name_each_tool_s_server(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools", "--servers", "crm,todo"]) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    assert len(rows) == len(load_server("crm").tools) + len(load_server("todo").tools)
    assert {row.split()[0] for row in rows} == {"crm", "todo"}


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
    err = capsys.readouterr().err
    assert err.startswith("mcpgym: no task 'nope'") and "zendesk-urgent-requester" in err and err.count("\n") == 1


def test_tasks_verify_passes_good_tasks_and_fails_a_wrong_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mcpgym.tasks.loader import save_tasks, shipped_tasks

    todo = [t for t in shipped_tasks() if t.servers == ["todo"]]
    assert main(["tasks", "verify", "--tasks", "todo"]) == 0
    assert f"{len(todo)}/{len(todo)} tasks verified by execution" in capsys.readouterr().out
    task = next(t for t in todo if t.facts).model_copy(deep=True)  # a copy: the shipped tasks are shared
    next(f for turn in task.turns for f in turn.facts).value = "certainly not this"
    save_tasks([task], tmp_path / "broken.jsonl")
    assert main(["tasks", "verify", "--tasks", str(tmp_path / "broken.jsonl")]) == 1
    assert capsys.readouterr().out.startswith(f"FAIL {task.id}")


def test_help_and_bad_server_name() -> None:
    helped = subprocess.run([sys.executable, "-m", "mcpgym", "--help"], capture_output=True, text=True)
    assert helped.returncode == 0 and "serve" in helped.stdout and "--servers LIST" in helped.stdout
    bad = subprocess.run([sys.executable, "-m", "mcpgym", "tools", "--servers", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("mcpgym: unknown server 'nope'; servers: calendar, chat")


def test_tasks_complete_fills_values_from_execution(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mcpgym.tasks.loader import load_tasks, save_tasks, shipped_tasks

    original = next(t for t in shipped_tasks() if t.facts and t.expected_changes)
    blank = original.model_copy(deep=True)
    for turn in blank.turns:
        turn.facts = [f.model_copy(update={"value": None}) for f in turn.facts]
    blank = blank.model_copy(update={"expected_changes": [], "difficulty": None})
    source, output = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    save_tasks([blank], source)
    assert main(["tasks", "complete", "--tasks", str(source), "--out", str(output)]) == 0
    (done,) = load_tasks(output)
    assert [f.value for f in done.facts] == [f.value for f in original.facts]
    assert {(c.table, c.key, c.op) for c in done.expected_changes} == {(c.table, c.key, c.op) for c in original.expected_changes}
    assert done.difficulty == original.difficulty


@pytest.fixture
def task_file(tmp_path: Path) -> Path:
    from mcpgym.tasks.loader import save_tasks, shipped_tasks

    path = tmp_path / "tasks.jsonl"
    save_tasks(shipped_tasks()[:2], path)
    return path


OLD_SPELLINGS = [
    (["tools", "zendesk"], ["tools", "--servers", "zendesk"], "`mcpgym tools SERVER` is deprecated"),
    (["tools", "zendesk", "crm"], ["tools", "--servers", "zendesk", "--servers", "crm"], "deprecated"),
    (["serve", "zendesk", "--transport", "http"], ["serve", "--servers", "zendesk", "--transport", "http"],
     "`mcpgym serve SERVER` is deprecated; use `mcpgym serve --servers SERVER`"),
    (["serve", "--port", "9000", "crm", "--seed=3"], ["serve", "--servers", "crm", "--port", "9000", "--seed", "3"],
     "deprecated"),
    (["serve", "--tra", "http", "todo"], ["serve", "--transport", "http", "--servers", "todo"], "deprecated"),
    (["tasks", "verify", "{task}", "{task}"], ["tasks", "verify", "--tasks", "{task}", "--tasks", "{task}"],
     "`mcpgym tasks verify FILE` is deprecated"),
    (["tasks", "complete", "{task}", "-o", "{out}"], ["tasks", "complete", "--tasks", "{task}", "--out", "{out}"],
     "-o is deprecated; use --out"),
    (["tasks", "complete", "{task}", "-o{out}"], ["tasks", "complete", "--tasks", "{task}", "--out", "{out}"],
     "-o is deprecated"),
    (["tasks", "complete", "--output={out}", "{task}"], ["tasks", "complete", "--tasks", "{task}", "--out", "{out}"],
     "--output is deprecated; use --out"),
]


@pytest.mark.parametrize(("old", "new", "note"), OLD_SPELLINGS)
def test_old_spellings_parse_as_the_new_ones_with_a_one_line_note(
    old: list[str], new: list[str], note: str, task_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def parse(argv: list[str]) -> dict[str, object]:
        return vars(build_parser().parse_args([a.format(task=task_file, out=tmp_path / "out.jsonl") for a in argv]))

    old_args = parse(old)
    old_err = capsys.readouterr().err
    assert old_args == parse(new)
    new_err = capsys.readouterr().err
    assert note in old_err and new_err == ""
    assert all(line.startswith(f"mcpgym {old[0]}") and ": note: " in line for line in old_err.splitlines())


def test_an_old_spelling_still_runs_the_command(tmp_path: Path, task_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools", "todo"]) == 0
    captured = capsys.readouterr()
    assert all(tool.name in captured.out for tool in load_server("todo").tools) and "deprecated" in captured.err
    assert main(["tasks", "complete", str(task_file), "-o", str(tmp_path / "done.jsonl")]) == 0
    assert len((tmp_path / "done.jsonl").read_text().splitlines()) == 2


def test_values_that_look_like_old_spellings_are_left_alone(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["serve", "--host", "zendesk", "--servers", "crm", "--token=abc"])
    assert (args.host, args.servers, args.token) == ("zendesk", ["crm"], "abc") and capsys.readouterr().err == ""


def test_one_vocabulary_across_commands() -> None:
    seen: dict[str, set[str]] = {}
    for prog, action in options():
        for option in action.option_strings:
            seen.setdefault(option, set()).add(prog)
        if action.dest == "servers":
            assert (action.option_strings, action.metavar) == (["--servers"], "LIST"), prog
        if action.dest == "tasks":
            shape = (action.option_strings, action.metavar, action.type)
            assert shape == (["--tasks"], "SET_OR_FILE", arguments.task_source), prog
        if action.dest == "quiet":
            assert action.help == arguments.QUIET_HELP, prog
    assert not {"-o", "--output", "--server", "--files", "--task-file"} & set(seen)
    assert seen["--env"] == {"mcpgym run"}
    assert seen["--servers"] == {"mcpgym tools", "mcpgym serve", "mcpgym host", "mcpgym synth", "mcpgym synth graph"}
    assert {"mcpgym eval", "mcpgym tasks verify", "mcpgym tasks complete", "mcpgym train build-model"} <= seen["--tasks"]
    assert {"mcpgym run", "mcpgym eval", "mcpgym synth"} <= seen["--quiet"]
    positional = {prog for prog, action in options() if not action.option_strings}
    assert positional == {"mcpgym eval compare", "mcpgym eval report", "mcpgym plot", "mcpgym train sft", "mcpgym train grpo"}


def test_every_option_states_its_default_and_range() -> None:
    checked = 0
    for prog, action in options():
        where = f"{prog} {'/'.join(action.option_strings) or action.dest}"
        assert action.help, f"{where} has no help"
        if not action.option_strings or action.nargs == 0 or action.required:
            continue
        checked += 1
        assert "default" in action.help, f"{where}: help does not state the default"
        if isinstance(action.type, (arguments.BoundedInt, arguments.BoundedFloat)):
            assert action.type.span in action.help, f"{where}: help does not state the range {action.type.span}"
        if action.choices is not None:
            assert action.metavar is None or all(str(c) in action.help for c in action.choices), f"{where}: choices hidden"
    assert checked > 40


def test_serve_states_the_limits_the_http_settings_enforce() -> None:
    from mcpgym.servers.kernel.http_access import AccessPolicy
    from mcpgym.servers.kernel.http_app import HttpSettings

    (serve,) = (p for p in all_parsers() if p.prog == "mcpgym serve")
    helps = {a.dest: a.help or "" for a in serve._actions}

    def bounds(field: object) -> dict[str, float]:
        return {name: getattr(m, name) for m in field.metadata for name in ("ge", "gt", "le", "min_length", "max_length")  # type: ignore[attr-defined]
                if getattr(m, name, None) is not None}

    for name, field in HttpSettings.model_fields.items():
        if name in ("seed", "access"):
            continue
        limit = {key: int(value) if float(value).is_integer() else value for key, value in bounds(field).items()}
        low = f"{limit['ge']} to" if "ge" in limit else f"above {limit['gt']} up to"
        assert f"{low} {limit['le']}" in helps[name], name
    token = bounds(AccessPolicy.model_fields["token"])
    assert f"{token['min_length']} to {token['max_length']} characters" in helps["token"]


def test_choices_named_for_speed_match_the_trainer() -> None:
    from mcpgym.baselines.train.commands import PRESETS, SIZES
    from mcpgym.baselines.train.config import PRESETS as CONFIG_PRESETS

    assert PRESETS == tuple(CONFIG_PRESETS)
    try:
        from mcpgym.baselines.train.tiny_model import MODEL_SIZES
    except ImportError as err:
        pytest.skip(f"the model sizes need the train extra ({err.name}): pip install 'mcpgym[train]'")
    assert SIZES == tuple(MODEL_SIZES)


def test_the_task_set_help_names_every_set() -> None:
    from mcpgym.tasks.loader import TASK_SETS

    assert all(name in arguments.TASKS_HELP for name in TASK_SETS)


def test_docs_cli_md_is_what_the_parsers_say() -> None:
    generated = help_markdown()
    assert DOCS.read_text(encoding="utf-8") == generated, (
        "docs/cli.md is out of date; regenerate it with: "
        "python -c \"from mcpgym.cli import help_markdown; print(help_markdown(), end='')\" > docs/cli.md"
    )


def test_the_reference_covers_every_command_and_option() -> None:
    text = help_markdown()
    for prog, action in options():
        assert f"## `{prog}`" in text
        if action.option_strings:
            assert f"| `{', '.join(action.option_strings)}` |" in text, (prog, action.option_strings)
    assert "| `mcpgym tasks complete -o` | `mcpgym tasks complete --out` |" in text
    assert "| `mcpgym serve SERVER` | `mcpgym serve --servers SERVER` |" in text


def test_eval_plays_an_agent_command_through_mcp_and_scores_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from mcpgym.baselines.external_agent import PLACEHOLDERS

    assert main(["eval", "--agent", "command", "--tasks", "zendesk", "--out", str(tmp_path / "none")]) == 2
    assert "--agent-command TEMPLATE" in capsys.readouterr().err
    help_text = next(a.help for p, a in options() if p == "mcpgym eval" and a.dest == "agent_command")
    assert all("{" + name + "}" in help_text for name in PLACEHOLDERS)
    out = tmp_path / "cmd"
    code = main(["eval", "--agent", "command", "--agent-command", "echo I looked and found nothing {task_id}",
                 "--tasks", "zendesk", "--limit", "2", "--quiet", "--out", str(out)])
    assert code == 0
    records = [json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(r["reward"] == 0.0 and r["calls"] == 0 for r in records)
    assert all(r["agent_runs"][0]["stdout"].startswith("I looked and found nothing zendesk-") for r in records)


def test_eval_workers_play_in_processes_with_the_same_rewards(tmp_path: Path) -> None:
    import json

    rewards = {}
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}"
        assert main(["eval", "--tasks", "zendesk", "--limit", "3", "--agent", "random", "--workers", workers,
                     "--quiet", "--out", str(out)]) == 0
        rewards[workers] = {(r["task_id"], r["reward"]) for r in map(json.loads, (out / "trajectories.jsonl").read_text().splitlines())}
    assert rewards["1"] == rewards["2"] and len(rewards["1"]) == 3


def test_eval_shows_only_the_tools_named_and_plays_the_generated_sets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    out = tmp_path / "priority"
    assert main(["eval", "--tasks", "ticket-priority-test", "--limit", "3", "--tools", "get_ticket",
                 "--max-result-chars", "800", "--quiet", "--out", str(out)]) == 0
    records = [json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines()]
    assert [r["reward"] for r in records] == [1.0, 1.0, 1.0]
    assert all(r["task_id"].startswith("ticket-priority-") for r in records)
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["env"]["tools"] == '["get_ticket"]' and manifest["env"]["max_result_chars"] == 800
    # another tool subset is another run: the folder's settings differ, so it does not resume
    assert main(["eval", "--tasks", "ticket-priority-test", "--limit", "3", "--tools", "get_ticket", "list_tickets",
                 "--quiet", "--out", str(out)]) != 0
    capsys.readouterr()
    # a tool the servers lack, and tasks that need a tool not shown, are usage errors before any episode
    assert main(["eval", "--tasks", "ticket-priority-test", "--tools", "no_such_tool", "--out", str(tmp_path / "a")]) == 2
    assert "no tools named ['no_such_tool']" in capsys.readouterr().err
    assert main(["eval", "--tasks", "zendesk", "--tools", "get_ticket", "--out", str(tmp_path / "b")]) == 2
    assert "not exposed" in capsys.readouterr().err
    assert not (tmp_path / "a" / "trajectories.jsonl").exists() and not (tmp_path / "b" / "trajectories.jsonl").exists()
