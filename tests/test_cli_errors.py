"""The command line fails clearly: a bad argument is one line on stderr and exit status 2,
checked before any work starts, never a traceback or a run that does the wrong thing."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpgym import arguments
from mcpgym.cli import main
from mcpgym.registration import env_ids


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one-line message of a usage error (exit status 2) of `mcpgym ARGV`."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    return captured.err


@pytest.fixture
def task_files(tmp_path: Path) -> dict[str, Path]:
    files = {
        "missing": tmp_path / "missing.jsonl",
        "empty": tmp_path / "empty.jsonl",
        "blank": tmp_path / "blank.jsonl",
        "binary": tmp_path / "binary.jsonl",
        "latin1": tmp_path / "latin1.jsonl",
        "garbage": tmp_path / "garbage.jsonl",
        "not-a-task": tmp_path / "not-a-task.jsonl",
        "folder": tmp_path / "folder.jsonl",
    }
    files["empty"].write_bytes(b"")
    files["blank"].write_text("\n  \n\n")
    files["binary"].write_bytes(b"\x7fELF\x00\x01\x02" * 10)
    files["latin1"].write_bytes('{"id": "caf\xe9"}\n'.encode("latin-1"))
    files["garbage"].write_text("this is not json\n")
    files["not-a-task"].write_text('{"id": "x"}\n')
    files["folder"].mkdir()
    return files


EXPECTED = {
    "missing": "No such file or directory",
    "empty": "is empty",
    "blank": "is empty",
    "binary": "is binary",
    "latin1": "is not UTF-8 text (byte",
    "garbage": "garbage.jsonl:1: 1 validation error for Task; Invalid JSON",
    "not-a-task": "not-a-task.jsonl:1:",
    "folder": "is a folder, not a task file",
}


@pytest.mark.parametrize("kind", list(EXPECTED))
def test_a_bad_task_file_is_a_usage_error_of_every_command_that_reads_one(
    kind: str, task_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(task_files[kind])
    out = tmp_path / "run"
    for argv in (
        ["eval", "--tasks", path, "--out", str(out), "--quiet"],
        ["tasks", "verify", "--tasks", path],
        ["tasks", "complete", "--tasks", path, "--out", str(tmp_path / "done.jsonl")],
        ["train", "build-model", "--tasks", path, "--out", str(tmp_path / "model")],
        ["tasks", "verify", path],  # the old spellings fail the same way, in one line (the note waits for a parse)
        ["tasks", "complete", path, "-o", str(tmp_path / "done.jsonl")],
    ):
        assert EXPECTED[kind] in usage_error(argv, capsys)
    assert not out.exists() and not (tmp_path / "done.jsonl").exists() and not (tmp_path / "model").exists()


def test_a_device_is_not_a_task_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert "is not a regular file" in usage_error(["eval", "--tasks", "/dev/zero", "--out", str(tmp_path / "r")], capsys)


def test_an_unknown_task_set_lists_the_names(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = usage_error(["eval", "--tasks", "nope", "--out", str(tmp_path / "r")], capsys)
    assert "no task file or task set 'nope'" in err and "synth-train" in err and "zendesk" in err


def test_an_unknown_env_id_lists_the_ids(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(["run", "--env", "mcp/nope-v0"], capsys)
    assert "no env id 'mcp/nope-v0'" in err and all(env in err for env in env_ids())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--seed", "-5"], "argument --seed: -5 is out of range: from 0 to 4294967295"),
        (["run", "--seed", "1e3"], "argument --seed: '1e3' is not a whole number"),
        (["eval", "--seed", "-5"], "argument --seed: -5 is out of range"),
        (["eval", "--concurrency", "0"], "argument --concurrency: 0 is out of range: from 1 to 256"),
        (["eval", "--concurrency", "100000"], "argument --concurrency: 100000 is out of range"),
        (["eval", "--limit", "0"], "argument --limit: 0 is out of range"),
        (["eval", "--limit", "-1"], "argument --limit: -1 is out of range"),
        (["eval", "--episodes-per-task", "0"], "argument --episodes-per-task: 0 is out of range"),
        (["eval", "--max-turns", "0"], "argument --max-turns: 0 is out of range"),
        (["eval", "--timeout", "0"], "argument --timeout: '0' is out of range: above 0 to 3600"),
        (["eval", "--timeout", "inf"], "argument --timeout: 'inf' is out of range"),
        (["eval", "--temperature", "nan"], "argument --temperature: 'nan' is out of range"),
        (["eval", "--retries", "-1"], "argument --retries: -1 is out of range"),
        (["eval", "--base-url", "localhost:8000"], "is not an http(s) URL with a host"),
        (["eval", "--base-url", "http://127.0.0.1:99999/v1"], "Port out of range"),
        (["eval", "--model-path", "/no/such/model"], "no model folder '/no/such/model'"),
        (["eval", "--model-path", "../up"], "no model folder '../up'"),
        (["train", "build-model", "--vocab-size", "0"], "argument --vocab-size: 0 is out of range: from 512"),
        (["synth", "--servers", "crm", "--n", "0"], "argument --n: 0 is out of range"),
        (["synth", "--servers", "crm", "--seed", "-1"], "argument --seed: -1 is out of range"),
        (["synth", "--servers", "crm", "--workers", "0"], "argument --workers: 0 is out of range"),
    ],
)
def test_out_of_range_numbers_and_bad_values_are_usage_errors(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    required = {"eval": ["--out", str(out)], "train": ["--out", str(out)], "synth": ["--out", str(tmp_path / "t.jsonl")]}
    err = usage_error([*argv, *required.get(argv[0], [])], capsys)
    assert message in err and f"see mcpgym {argv[0]}" in err
    assert not out.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "--out", "{missing}/run"],
        ["synth", "--servers", "crm", "--n", "3", "--out", "{missing}/tasks.jsonl"],
        ["synth", "graph", "--out", "{missing}/graph"],
        ["tasks", "complete", "--tasks", "{task}", "--out", "{missing}/done.jsonl"],
        ["train", "build-model", "--out", "{missing}/model"],
    ],
)
def test_an_output_in_a_folder_that_does_not_exist_is_refused_before_any_work(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mcpgym.tasks.loader import save_tasks, shipped_tasks

    task = tmp_path / "task.jsonl"
    save_tasks(shipped_tasks()[:1], task)
    missing = tmp_path / "no" / "such"
    err = usage_error([a.format(missing=missing, task=task) for a in argv], capsys)
    assert f"folder '{missing}' does not exist" in err
    assert not (tmp_path / "no").exists()


def test_an_output_of_the_wrong_kind_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "file"
    file.write_text("x")
    assert "exists and is not a folder" in usage_error(["eval", "--out", str(file)], capsys)
    assert "is a folder; give a file name" in usage_error(["synth", "--servers", "crm", "--out", str(tmp_path)], capsys)


def test_errors_found_while_running_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--agent", "openai", "--out", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == "mcpgym: --agent openai needs --model (the model name the endpoint serves)\n"
    assert main(["eval", "--agent", "policy", "--out", str(tmp_path / "r")]) == 2
    assert "--agent policy needs --model-path" in capsys.readouterr().err
    assert main(["eval", "compare", str(tmp_path), str(tmp_path)]) == 2
    assert "has no summary.json" in capsys.readouterr().err
    assert main(["synth", "--servers", "crm,nope", "--n", "1", "--out", str(tmp_path / "t.jsonl"), "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("mcpgym: unknown server 'nope'; servers: calendar, chat, code, crm,")
    assert main(["synth", "--servers", "crm", "--llm-base-url", "http://x", "--n", "1", "--out", str(tmp_path / "t.jsonl")]) == 2
    assert "--llm-base-url needs --llm-model" in capsys.readouterr().err and not (tmp_path / "t.jsonl").exists()


def test_a_model_folder_that_does_not_load_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("transformers")
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text('{"model_type": "no-such-architecture"}')
    assert main(["eval", "--agent", "policy", "--model-path", str(model), "--out", str(tmp_path / "r"), "--quiet"]) == 1
    err = capsys.readouterr().err  # transformers may log warnings of its own first
    assert err.splitlines()[-1].startswith(f"mcpgym: cannot load the model '{model}'") and "Traceback" not in err
    assert not (tmp_path / "r").exists()


def test_a_bad_training_config_is_a_one_line_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    assert main(["train", "sft", "--preset", "tiny-cpu", "rollout.group_size=-3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcpgym: bad training config") and err.count("\n") == 1


def test_help_states_the_limits() -> None:
    helped = subprocess.run([sys.executable, "-m", "mcpgym", "eval", "--help"], capture_output=True, text=True)
    text = " ".join(helped.stdout.split())
    assert helped.returncode == 0
    assert "1 to 256" in text and "0 to 2^32-1" in text and "--overwrite" in text and "parent folder must exist" in text


@given(st.text(max_size=30))
def test_a_bounded_number_either_parses_in_range_or_says_why(text: str) -> None:
    parse = arguments.bounded_int(1, 256)
    try:
        value = parse(text)
    except argparse.ArgumentTypeError as err:
        assert "\n" not in str(err) and ("out of range" in str(err) or "not a whole number" in str(err))
    else:
        assert 1 <= value <= 256 and value == int(text)


@given(st.text(max_size=40))
def test_a_float_setting_is_finite_and_in_range_or_refused(text: str) -> None:
    parse = arguments.bounded_float(0, 3600, low_open=True)
    try:
        value = parse(text)
    except argparse.ArgumentTypeError as err:
        assert "\n" not in str(err)
    else:
        assert 0 < value <= 3600


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tools"], "the following arguments are required: --servers; servers: calendar, chat,"),
        (["serve"], "the following arguments are required: --servers; servers: calendar, chat,"),
        (["synth", "--out", "t.jsonl"], "the following arguments are required: --servers; servers: calendar,"),
        (["tasks", "complete", "--out", "t.jsonl"], "required: --tasks; a JSONL task file or a set: shipped, handwritten,"),
        ([], "the following arguments are required: {list,tools,serve,host,run,eval,synth,train,plot,tasks}"),
        (["tasks"], "the following arguments are required: {verify,complete}"),
        (["train", "sft", "--preset", "big"],
         "argument --preset: invalid choice: 'big' (choose from 'tiny-cpu', 'gpu-small', 'lora-8b')"),
        (["serve", "--servers", "crm", "--transport", "tcp"], "invalid choice: 'tcp' (choose from 'stdio', 'http')"),
        (["eval", "--tasks", "nope", "--out", "r"], "sets: shipped, handwritten, synth, synth-train, synth-test, calendar,"),
    ],
)
def test_a_missing_or_wrong_choice_names_the_valid_ones(
    argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert message in usage_error(argv, capsys)


def test_servers_are_checked_and_bounded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools", "--servers", "crm,nope,zilch"]) == 2
    assert capsys.readouterr().err.startswith("mcpgym: unknown servers 'nope', 'zilch'; servers: calendar,")
    assert main(["tools", "--servers", " , "]) == 2
    assert "no server named in --servers ' , '" in capsys.readouterr().err
    assert main(["serve", "--servers", "x" * 10_000]) == 2
    err = capsys.readouterr().err
    assert "a --servers list over 4096 characters" in err and len(err) < 600
    assert main(["serve", "--servers", "crm,todo"]) == 2
    assert "serve takes one server, not 2" in capsys.readouterr().err
    assert main(["serve", "--servers", "crm", "--servers", "todo,crm"]) == 2
    assert "serve takes one server, not 2" in capsys.readouterr().err
    assert main(["serve", "--servers", ",", "--servers", "x" * 3000, "--servers", "y" * 3000]) == 2
    assert "a --servers list over 4096 characters" in capsys.readouterr().err


def test_an_unknown_family_lists_the_prefixes_and_families_in_bounded_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mcpgym.synth.families import families_for

    servers = "zendesk,crm,calendar,email,finance,flights"
    argv = ["synth", "--servers", servers, "--families", "nosuch" * 100, "--n", "1", "--out", str(tmp_path / "t.jsonl")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mcpgym: no task family of {servers} starts with 'nosuch") and err.count("\n") == 1
    assert "prefixes: calendar., crm., cross., email., finance., flights., zendesk.;" in err
    assert families_for(servers.split(","))[0].name in err and " more" in err and len(err) < 1000
    assert not (tmp_path / "t.jsonl").exists()


def test_the_openai_agents_default_to_openai_s_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert arguments.openai_url(None) == arguments.OPENAI_URL == "https://api.openai.com/v1"
    assert main(["eval", "--agent", "openai", "--model", "gpt-x", "--out", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == (
        "mcpgym: --agent openai on https://api.openai.com/v1 needs an API key: --api-key or $OPENAI_API_KEY "
        "(or --base-url for another endpoint)\n"
    )
    monkeypatch.setenv("OPENAI_BASE_URL", "  ")
    assert arguments.openai_url(None) == arguments.OPENAI_URL
    monkeypatch.setenv("OPENAI_BASE_URL", "ftp://x")
    assert main(["eval", "--agent", "openai-text", "--model", "m", "--out", str(tmp_path / "r")]) == 2
    assert "$OPENAI_BASE_URL: 'ftp://x' is not an http(s) URL" in capsys.readouterr().err
    assert arguments.openai_url("http://127.0.0.1:1/v1") == "http://127.0.0.1:1/v1"
    assert not (tmp_path / "r").exists()


def test_the_agent_and_its_manifest_take_the_endpoint_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcpgym.cli import agent_spec, build_parser

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    args = build_parser().parse_args(["eval", "--agent", "openai", "--model", "m", "--out", str(tmp_path / "r")])
    spec = agent_spec(args)
    assert spec.build(0).base_url == "http://127.0.0.1:9/v1"
    assert spec.settings()["base_url"] == "http://127.0.0.1:9/v1"
    args = build_parser().parse_args(["eval", "--agent", "openai", "--model", "m", "--base-url", "http://h:1/v1", "--out", "r"])
    assert agent_spec(args).build(0).base_url == "http://h:1/v1"


@pytest.mark.slow
def test_openai_base_url_from_the_environment_is_used_and_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from chat_server import ScriptedChatServer

    server = ScriptedChatServer()
    try:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        assert main(["eval", "--agent", "openai", "--model", "m", "--api-key", "k", "--tasks", "zendesk", "--limit", "1",
                     "--out", str(tmp_path / "r"), "--quiet"]) == 0
    finally:
        server.close()
    assert server.count > 0
    manifest = json.loads((tmp_path / "r" / "run.json").read_text())
    assert server.url.rstrip("/") in json.dumps(manifest["agent"])
