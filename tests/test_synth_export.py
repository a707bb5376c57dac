"""The Hugging Face export: a DatasetDict with train/test splits that gives back every task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

datasets = pytest.importorskip("datasets", reason="the Hugging Face export needs the optional extra: pip install 'mcpgym[hf]'")

from mcpgym.synth.export import COLUMNS, export_tasks, main, to_dataset_dict  # noqa: E402
from mcpgym.tasks.loader import save_tasks, synthesized_tasks  # noqa: E402
from mcpgym.tasks.model import Task  # noqa: E402


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    """Shipped synthesized tasks of both splits, one and two turns, one and several servers."""
    shipped = synthesized_tasks()
    chosen = [t for t in shipped if "split:test" in t.tags][:15] + [t for t in shipped if "split:train" in t.tags][:45]
    assert any(len(t.turns) > 1 for t in chosen) and any(len(t.servers) > 1 for t in chosen)
    return chosen


def test_every_task_comes_back_from_disk_in_its_split(tasks: list[Task], tmp_path: Path) -> None:
    export_tasks(tasks, tmp_path / "ds")
    loaded = datasets.load_from_disk(str(tmp_path / "ds"))
    assert set(loaded) == {"train", "test"}
    assert (len(loaded["train"]), len(loaded["test"])) == (45, 15)
    for split in ("train", "test"):
        assert loaded[split].column_names == list(COLUMNS)
        for row in loaded[split]:
            task = Task.model_validate_json(row["task"])
            assert task in tasks and row["id"] == task.id and row["split"] == split
            assert row["prompt"] == task.turns[0].user
            assert row["servers"] == task.servers and row["seed"] == task.seed
            assert [turn["user"] for turn in json.loads(row["turns"])] == [turn.user for turn in task.turns]
            assert row["num_turns"] == len(task.turns)
            assert f"family:{row['family']}" in task.tags and f"kind:{row['kind']}" in task.tags
            assert task.difficulty is not None
            assert (row["calls"], row["depth"], row["servers_used"], row["writes"]) == (
                task.difficulty.calls, task.difficulty.depth, task.difficulty.servers, task.difficulty.writes)


def test_same_tasks_same_files(tasks: list[Task], tmp_path: Path) -> None:
    export_tasks(tasks, tmp_path / "a")
    export_tasks(tasks, tmp_path / "b")
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert any(p.suffix == ".arrow" for p in files)
    for path in files:
        assert (tmp_path / "a" / path).read_bytes() == (tmp_path / "b" / path).read_bytes(), path


def test_a_split_may_be_empty_and_unknown_splits_are_refused(tasks: list[Task]) -> None:
    train_only = to_dataset_dict([t for t in tasks if "split:train" in t.tags])
    assert len(train_only["test"]) == 0 and train_only["test"].column_names == list(COLUMNS)
    odd = tasks[0].model_copy(update={"tags": ["split:validation"]})
    with pytest.raises(ValueError, match="validation"):
        to_dataset_dict([odd])


def test_command_line(tasks: list[Task], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "tasks.jsonl"
    save_tasks(tasks, source)
    assert main([str(source), "--out", str(tmp_path / "ds")]) == 0
    assert "60 tasks (train 45, test 15)" in capsys.readouterr().out
    assert len(datasets.load_from_disk(str(tmp_path / "ds"))["train"]) == 45


def test_synth_cli_writes_the_dataset_beside_the_jsonl(tmp_path: Path) -> None:
    from mcpgym.cli import main as cli
    from mcpgym.tasks.loader import load_tasks

    out, hf = tmp_path / "tasks.jsonl", tmp_path / "hf"
    assert cli(["synth", "--servers", "zendesk", "--n", "12", "--seed", "1", "--workers", "1", "--quiet",
                "--out", str(out), "--hf-out", str(hf)]) == 0
    loaded = datasets.load_from_disk(str(hf))
    written = load_tasks(out)
    assert len(loaded["train"]) + len(loaded["test"]) == len(written) == 12
    assert sorted([*loaded["train"]["id"], *loaded["test"]["id"]]) == sorted(t.id for t in written)
