"""Tasks as a Hugging Face `datasets.DatasetDict` with train and test splits (optional extra
`hf`: `pip install 'mcpgym[hf]'`).

One row per task, one column per field a trainer needs: the id, the servers to mount, the
world seed, the first user turn as the prompt, every turn as JSON, the whole task as JSON
(what `Task.model_validate_json` reads back), the family, kind and split from the task's
tags, and the difficulty. The split is the task's `split:` tag (tasks without one are
training tasks). A dataset card (`README.md`, Hub conventions) is written beside the splits.

Usage: python -m mcpgym.synth.export TASKS.jsonl [...] --out DIR
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpgym.tasks.model import Task

if TYPE_CHECKING:
    from datasets import DatasetDict, Features

SPLITS = ("train", "test")

COLUMNS: dict[str, str] = {
    "id": "string",
    "servers": "list[string]",
    "seed": "int64",
    "prompt": "string",
    "turns": "string",
    "num_turns": "int32",
    "task": "string",
    "family": "string",
    "kind": "string",
    "split": "string",
    "calls": "int32",
    "depth": "int32",
    "servers_used": "int32",
    "writes": "int32",
}
"""Column -> type. `turns` and `task` are JSON text; `calls`, `depth`, `servers_used` and
`writes` are the task's difficulty (ground-truth calls, dependency depth, servers its calls
touch, writing calls)."""


def _tag(task: Task, prefix: str, default: str = "") -> str:
    return next((tag.removeprefix(prefix) for tag in task.tags if tag.startswith(prefix)), default)


def task_row(task: Task) -> dict[str, Any]:
    """The dataset row of one task."""
    difficulty = task.difficulty
    return {
        "id": task.id,
        "servers": list(task.servers),
        "seed": task.seed,
        "prompt": task.turns[0].user,
        "turns": json.dumps([turn.model_dump(mode="json") for turn in task.turns], ensure_ascii=False),
        "num_turns": len(task.turns),
        "task": task.model_dump_json(),
        "family": _tag(task, "family:"),
        "kind": _tag(task, "kind:"),
        "split": _tag(task, "split:", "train"),
        "calls": difficulty.calls if difficulty else len(task.calls),
        "depth": difficulty.depth if difficulty else task.depth(),
        "servers_used": difficulty.servers if difficulty else len({c.server for c in task.calls}),
        "writes": difficulty.writes if difficulty else 0,
    }


def features() -> Features:
    """The `datasets.Features` of `COLUMNS`."""
    from datasets import Features, Value

    try:
        from datasets import List as ListOf  # datasets 4 and later
    except ImportError:
        from datasets import Sequence as ListOf
    return Features({
        name: ListOf(Value("string")) if kind == "list[string]" else Value(kind) for name, kind in COLUMNS.items()
    })


def to_dataset_dict(tasks: Sequence[Task]) -> DatasetDict:
    """Train and test `datasets.Dataset`s of `tasks`, in their order. Each split's fingerprint
    is a hash of its rows, so the same tasks give the same dataset."""
    import pyarrow as pa
    from datasets import Dataset, DatasetDict, DatasetInfo, NamedSplit
    from datasets.table import InMemoryTable

    rows = [task_row(task) for task in tasks]
    unknown = sorted({row["split"] for row in rows} - set(SPLITS))
    if unknown:
        raise ValueError(f"tasks tagged with splits other than {SPLITS}: {unknown}")
    schema = features()
    splits = {}
    for split in SPLITS:
        chosen = [row for row in rows if row["split"] == split]
        table = pa.Table.from_pylist(chosen, schema=schema.arrow_schema)
        digest = hashlib.sha256("\n".join(row["task"] for row in chosen).encode()).hexdigest()[:16]
        splits[split] = Dataset(
            InMemoryTable(table), info=DatasetInfo(features=schema), split=NamedSplit(split), fingerprint=digest,
        )
    return DatasetDict(splits)


def export_tasks(tasks: Sequence[Task], out: Path) -> DatasetDict:
    """Write `tasks` to `out` with `DatasetDict.save_to_disk` and a dataset card (`README.md`,
    whose YAML `configs` name the splits' Arrow files), and return the dataset. Read back with
    `datasets.load_from_disk(out)` or `datasets.load_dataset(out)`."""
    from mcpgym.baselines.integrations.cards import write_dataset_card

    dataset = to_dataset_dict(tasks)
    dataset.save_to_disk(str(out))
    write_dataset_card(Path(out), tasks, {split: len(dataset[split]) for split in SPLITS}, COLUMNS)
    return dataset


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mcpgym.synth.export",
        description="Write task JSONL files as a Hugging Face DatasetDict (train/test) with save_to_disk.",
    )
    parser.add_argument("tasks", nargs="+", type=Path, help="JSONL files of tasks (e.g. from mcpgym synth)")
    parser.add_argument("--out", required=True, type=Path, help="folder to write the dataset to")
    args = parser.parse_args(argv)
    try:
        import datasets  # noqa: F401
    except ImportError:
        print("mcpgym: the export needs the optional extra: pip install 'mcpgym[hf]'", file=sys.stderr)
        return 2
    from mcpgym.tasks.loader import load_tasks

    tasks = [task for path in args.tasks for task in load_tasks(path)]
    dataset = export_tasks(tasks, args.out)
    sizes = ", ".join(f"{split} {len(dataset[split])}" for split in SPLITS)
    print(f"{len(tasks)} tasks ({sizes}) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
