"""Hugging Face Hub cards: a dataset card beside every task export and a model card in every
checkpoint the trainer saves (README.md files with YAML metadata, built with `huggingface_hub`).

The dataset card's `configs` point at the Arrow files `DatasetDict.save_to_disk` writes, so the
exported folder loads with `datasets.load_dataset(folder)` as well as `load_from_disk`, and
pushed as is to a Hub dataset repository it loads from there too.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcpgym.tasks.model import Task

CARD = "README.md"
LICENSE = "apache-2.0"


def _front_matter(card_data: Any, body: str) -> str:
    return f"---\n{card_data.to_yaml()}\n---\n\n{body.strip()}\n"


def dataset_card(tasks: Sequence[Task], split_sizes: Mapping[str, int], columns: Mapping[str, str]) -> str:
    """The dataset card of an export of `tasks` with these splits and columns (name -> type)."""
    from huggingface_hub import DatasetCardData

    servers = Counter(s for t in tasks for s in t.servers)
    families = Counter(next((tag.removeprefix("family:") for tag in t.tags if tag.startswith("family:")), "hand-written")
                       for t in tasks)
    turns = Counter(len(t.turns) for t in tasks)
    splits = [s for s, n in split_sizes.items()]
    data = DatasetCardData(
        license=LICENSE,
        language=["en"],
        pretty_name="mcpgym tool-use tasks",
        task_categories=["text-generation"],
        tags=["tool-use", "function-calling", "agents", "mcp", "reinforcement-learning", "mcpgym"],
        size_categories=[_size_category(len(tasks))],
        configs=[{"config_name": "default", "data_files": [{"split": s, "path": f"{s}/*.arrow"} for s in splits]}],
    )
    field_rows = "\n".join(f"| `{name}` | {kind} |" for name, kind in columns.items())
    split_rows = "\n".join(f"| {s} | {n} |" for s, n in split_sizes.items())
    server_list = ", ".join(f"{name} ({n})" for name, n in sorted(servers.items()))
    family_list = ", ".join(f"{name} ({n})" for name, n in families.most_common(12))
    turn_list = ", ".join(f"{k} request{'s' if k > 1 else ''}: {n}" for k, n in sorted(turns.items()))
    body = f"""
# mcpgym tool-use tasks

Tasks for training and evaluating tool-calling agents against mcpgym's stateful MCP servers.
Each row is one task: the user's requests, the servers it runs on, the world seed, and the
recorded ground truth (calls, expected answer facts, expected state changes) that mcpgym's
judge-free reward scores an episode against. The rows are not conversations to imitate: an
agent plays a task in an mcpgym environment (`gym.make("mcp/<server>-v0")`), which serves the
tools and computes the reward.

## Splits

| split | tasks |
|---|---|
{split_rows}

Servers (tasks using each): {server_list}.
Requests per task: {turn_list}.
Families (largest): {family_list}.

## Fields

| column | type |
|---|---|
{field_rows}

`task` is the whole task as JSON (`mcpgym.tasks.model.Task.model_validate_json(row["task"])`);
`turns` the user requests with their ground truth; `calls`, `depth`, `servers_used` and
`writes` its difficulty.

## How it was made

Synthesized by `mcpgym synth` (or written by hand) over seeded worlds, then completed: every
task's ground-truth calls were executed on a fresh world and the values they give recorded
(`mcpgym tasks complete`), and every task was validated (the oracle scores 1.0, doing nothing
0.0). The split is the task's `split:` tag. Exported with `python -m mcpgym.synth.export`.

## How to load

```python
from datasets import load_dataset, load_from_disk

tasks = load_dataset("PATH_OR_REPO_ID")          # this folder, or the Hub repository it was pushed to
tasks = load_from_disk("PATH")                   # the same DatasetDict
import gymnasium as gym
from mcpgym.tasks.model import Task
task = Task.model_validate_json(tasks["train"][0]["task"])
env = gym.make("mcp/" + task.servers[0] + "-v0")  # a multi-server task: mcpgym.envs.make_env(task.servers)
observation, info = env.reset(options={{"task": task}})
```

## Limits

The people, companies and records are synthetic (Faker, seeded); nothing refers to real
persons. Requests are templated English: they test tool use, not language variety.
"""
    return _front_matter(data, body)


def _size_category(n: int) -> str:
    for bound, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < bound:
            return name
    return "n>1M"


def write_dataset_card(out: Path, tasks: Sequence[Task], split_sizes: Mapping[str, int], columns: Mapping[str, str]) -> Path:
    """Write `out/README.md`; returns its path."""
    path = Path(out) / CARD
    path.write_text(dataset_card(tasks, split_sizes, columns), encoding="utf-8")
    return path


def model_card(config: Any, step: int, eval_metrics: Mapping[str, Any] | None = None, eval_step: int | None = None) -> str:
    """The model card of a GRPO checkpoint: `config` is the run's `TrainConfig`, `eval_metrics`
    the latest held-out evaluation (taken at `eval_step`), if any."""
    from huggingface_hub import ModelCardData

    base = config.model.path
    tasks = config.tasks
    data = ModelCardData(
        base_model=base,
        library_name="peft" if config.model.lora is not None else "transformers",
        license=LICENSE,
        pipeline_tag="text-generation",
        tags=["mcpgym", "grpo", "tool-use", "function-calling", "reinforcement-learning"],
        datasets=[tasks.train] if not Path(tasks.train).exists() else None,
    )
    settings = {
        "steps_done": step,
        "tasks": tasks.model_dump(),
        "rollout": config.rollout.model_dump(),
        "objective": config.objective.model_dump(),
        "optim": config.optim.model_dump(),
        "lora": None if config.model.lora is None else config.model.lora.model_dump(),
        "seed": config.seed,
    }
    if eval_metrics:
        keys = ("mean_reward", "pass@0.5", "pass@1.0", "finish_rate", "calls_per_episode", "episodes")
        rows = "\n".join(f"| {k} | {_number(eval_metrics[k])} |" for k in keys if k in eval_metrics)
        evaluation = f"Held-out tasks (`{tasks.test}`), evaluated at step {eval_step}:\n\n| metric | value |\n|---|---|\n{rows}"
    else:
        evaluation = "No held-out evaluation had run when this checkpoint was saved; see `eval/` in the run folder."
    body = f"""
# mcpgym GRPO checkpoint, step {step}

A tool-calling policy trained with mcpgym's multi-turn GRPO trainer (`mcpgym train grpo`)
against mcpgym's MCP tool servers ({", ".join(tasks.servers)}).

- **Base model:** `{base}`{" with LoRA adapters" if config.model.lora is not None else ""}
- **Training data:** task set `{tasks.train}` (servers {", ".join(tasks.servers)}; families
  {", ".join(tasks.families) if tasks.families else "all"}; tools {", ".join(tasks.tools) if tasks.tools else "all"}),
  reward `{tasks.reward}`
- **Tool-call format:** `{config.model.tool_parser}`

## Evaluation

{evaluation}

## Intended use and limits

For research on tool-using agents: evaluating or continuing training in mcpgym's environments
(`mcpgym eval --agent policy --model-path THIS_FOLDER`). It learned from synthetic worlds and
templated requests and was rewarded by mcpgym's judge-free reward, which checks calls, facts
and state changes on those servers only; it is not meant to act on real systems or for
general chat, and its scores do not carry over to other tools or domains.

## Training settings

```json
{json.dumps(settings, indent=2, default=str)}
```
"""
    return _front_matter(data, body)


def _number(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def write_model_card(folder: Path, config: Any, step: int, eval_metrics: Mapping[str, Any] | None = None,
                     eval_step: int | None = None) -> Path:
    """Write `folder/README.md`; returns its path."""
    path = Path(folder) / CARD
    path.write_text(model_card(config, step, eval_metrics, eval_step), encoding="utf-8")
    return path


__all__ = ["CARD", "dataset_card", "model_card", "write_dataset_card", "write_model_card"]
