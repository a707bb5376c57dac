"""The trainer's configuration: one pydantic model, presets, a file and command-line overrides.

A run is described by `TrainConfig`. `load_config(path, overrides, preset)` starts from the
defaults, applies a preset, then the file (TOML or JSON), then `key.sub=value` overrides
(values parsed as JSON where they parse, else kept as text), and validates the result, so a
misspelt key is an error and not a silent no-op.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Section(BaseModel):
    """A config section: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


class LoraConfig(Section):
    """LoRA adapters through peft; the base weights stay frozen."""

    r: int = Field(16, gt=0)
    alpha: int = Field(32, gt=0)
    dropout: float = Field(0.0, ge=0, lt=1)
    target_modules: list[str] | str = "all-linear"


class ModelConfig(Section):
    """The policy: any causal LM by Hugging Face path or local folder."""

    path: str = "runs/tiny-model"
    build: Literal["tiny", "tiny-wide", "small", "34m"] | None = None
    """When set and `path` does not exist yet, build a model of this size there from the task
    corpus (`mcpgym train build-model`): the way to start without a hub."""
    vocab_size: int = Field(4096, ge=512, le=262_144)
    """The tokenizer's vocabulary of a model `build` makes (`mcpgym train build-model --vocab-size`)."""
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    """`auto`: bfloat16 on a GPU, float32 on the CPU."""
    device: str = "auto"
    lora: LoraConfig | None = None
    gradient_checkpointing: bool = False
    tool_parser: Literal["hermes", "json"] = "hermes"
    """How the model writes tool calls: `hermes` (`<tool_call>{...}</tool_call>`, Qwen and
    Hermes templates) or `json` (a bare `{"name": ..., "arguments"|"parameters": ...}` object
    per line, Llama 3.x style)."""


class TasksConfig(Section):
    """Where episodes come from and how they are scored."""

    servers: list[str] = Field(default_factory=lambda: ["zendesk"])
    train: str = "synth-train"
    """A named task set (handwritten, synth, synth-train, synth-test; the trainer's generated
    ticket-priority-train and ticket-priority-test, `mcpgym.tasks.generated`) or a JSONL path;
    `PATH:train` / `PATH:test` keep the file's tasks of that split (`mcpgym synth` tags them)."""
    test: str = "synth-test"
    families: list[str] | None = None
    """Keep only tasks of these synthesized families (`family:<name>` tags)."""
    tools: list[str] | None = None
    """Expose only these tools (public names) to the model, to keep a small model's prompt
    short; tasks whose ground truth needs another tool are left out. None: every tool."""
    max_train: int | None = None
    max_test: int | None = 64
    reward: Literal["dense", "outcome-only", "process-only"] = "dense"


class RolloutConfig(Section):
    """Episodes per step and the context limits of each."""

    backend: Literal["transformers", "static", "vllm"] = "transformers"
    """`transformers`: `model.generate`; `static`: `decoding.StaticDecoder` (static KV cache,
    device-only decode step, CUDA graphs on a GPU); `vllm`: a vLLM engine."""
    tasks_per_step: int = Field(8, gt=0)
    group_size: int = Field(8, gt=1)
    """Episodes per task (G); advantages compare episodes of the same task."""
    temperature: float = Field(1.0, gt=0)
    top_p: float = Field(1.0, gt=0, le=1)
    max_new_tokens: int = Field(512, gt=0)
    """Per assistant turn."""
    max_turns: int = Field(8, gt=0)
    max_calls: int = Field(16, gt=0)
    max_total_tokens: int = Field(8192, gt=0)
    """Per episode, prompt and every turn included; an episode that would pass it is cut."""
    max_result_chars: int = Field(2000, gt=0)
    """Tool results longer than this are cut (with a note) before the model reads them."""
    generation_batch_size: int = Field(64, gt=0)
    """Sequences generated together (transformers and static backends)."""
    vllm_gpu_memory_utilization: float = Field(0.3, gt=0, lt=1)
    """vllm backend: the share of GPU memory the engine takes (weights and KV cache); the
    trainer keeps the rest (docs/training.md)."""
    vllm_max_model_len: int | None = Field(None, gt=0)
    """vllm backend: the longest sequence the engine holds (default: `max_total_tokens`)."""
    env_workers: int = Field(0, ge=0, le=256)
    """Processes (or Ray actors, `env_backend`) holding the rollout envs; 0 keeps them in the
    trainer's process. Each round of turns is then stepped in all of them at once (docs/scale.md)."""
    env_backend: Literal["processes", "ray"] = "processes"


class ObjectiveConfig(Section):
    """The GRPO objective. Defaults: see docs/training.md for their source."""

    beta: float = Field(0.001, ge=0)
    """Weight of the KL penalty to the reference model (0 disables the reference)."""
    ref_refresh_steps: int = Field(100, ge=0)
    """Copy the policy into the reference every this many steps (0: never)."""
    mu: int = Field(2, gt=0)
    """Policy updates per rollout batch."""
    clip_low: float = Field(0.2, ge=0)
    clip_high: float = Field(0.2, ge=0)
    scale_by_std: bool = True
    """Divide advantages by the group's standard deviation (False: Dr. GRPO)."""
    loss_aggregation: Literal["token-mean", "sequence-mean"] = "token-mean"
    """token-mean: every model token of the batch weighs the same; sequence-mean: every episode."""
    mask_truncated: bool = True
    """Overlong filtering: episodes cut by a token budget (`max_total_tokens`, or a turn at
    `max_new_tokens`) contribute no gradient; running out of turns or calls is trained on."""
    advantage: Literal["outcome", "turn", "hybrid"] = "outcome"
    """The advantage of each turn's tokens: `outcome` the episode's (plain GRPO); `turn` the
    turn's reward against the same turn of its group; `hybrid` outcome plus `turn_weight`
    times turn (docs/training.md, "Turn-level credit")."""
    turn_reward: str = Field("env", min_length=1, max_length=200)
    """Per-turn rewards for `turn` and `hybrid`: `env` (the environment's, paid at the end of
    each user turn), `env-step` (the environment's, paid after every assistant step), or
    `package.module:function`, called with each episode, returning one number per turn."""
    turn_weight: float = Field(1.0, ge=0, le=100)
    """`hybrid`: the weight of the turn-level advantage added to the outcome advantage."""
    is_correction: bool = False
    """Weight each token's surrogate by min(exp(old log-prob - sampler log-prob), `is_cap`)
    where the sampler recorded its log-probabilities (transformers and vLLM backends)."""
    is_cap: float = Field(2.0, ge=1, le=100)
    """The truncation of the importance weight."""


class OptimConfig(Section):
    lr: float = Field(1e-6, gt=0)
    warmup_steps: int = Field(20, ge=0)
    """Linear warm-up in optimizer steps, then constant."""
    weight_decay: float = Field(0.0, ge=0)
    betas: tuple[float, float] = (0.9, 0.999)
    grad_clip: float = Field(0.2, gt=0)
    micro_batch_size: int = Field(8, gt=0)
    """Episodes per forward/backward pass; gradients accumulate over the batch."""


class SftConfig(Section):
    """Supervised warm start on the oracle's trajectories of the train tasks."""

    epochs: int = Field(3, gt=0)
    lr: float = Field(1e-4, gt=0)
    warmup_steps: int = Field(0, ge=0)
    """Linear warm-up in optimizer steps, then constant. A model built from scratch learns to
    copy ids from the request only with a warm-up at a moderate rate (e.g. 50 steps to 1e-3)."""
    batch_size: int = Field(8, gt=0)
    max_tasks: int | None = None


class TrainConfig(Section):
    out: str = "runs/grpo"
    seed: int = 0
    steps: int = Field(200, ge=0)
    save_every: int = Field(50, gt=0)
    eval_every: int = Field(50, ge=0)
    """Evaluate on the held-out tasks before the first step and every this many steps
    (0: only once, after the last step)."""
    eval_samples: int = Field(0, ge=0)
    """0: one greedy episode per held-out task. k: k episodes per task sampled at the rollout
    temperature (the mean reward of the sampling policy, which training raises; less noisy
    on small task sets)."""
    time_limit_s: float | None = Field(None, ge=0)
    """Stop after the first step that ends this many seconds after `train()` began, with a
    checkpoint (the next run with `resume` goes on from it); for jobs with a wall-clock limit.
    The final held-out evaluation waits for the run that reaches `steps`."""
    tensorboard: bool = False
    resume: bool = True
    """Continue from the latest checkpoint in `out` when there is one."""
    keep_checkpoints: int = Field(2, gt=0)
    model: ModelConfig = Field(default_factory=ModelConfig)
    tasks: TasksConfig = Field(default_factory=TasksConfig)
    rollout: RolloutConfig = Field(default_factory=RolloutConfig)
    objective: ObjectiveConfig = Field(default_factory=ObjectiveConfig)
    optim: OptimConfig = Field(default_factory=OptimConfig)
    sft: SftConfig = Field(default_factory=SftConfig)

    def env_options(self) -> dict[str, Any]:
        """The environment limits every episode of the run is played under (rollouts,
        evaluation, the SFT oracle): `make_env` keyword arguments."""
        rollout = self.rollout
        return {
            "max_turns": rollout.max_turns,
            "max_calls": rollout.max_calls,
            "max_result_chars": rollout.max_result_chars,
            "tools": self.tasks.tools,
        }


PRESETS: dict[str, dict[str, Any]] = {
    "tiny-cpu": {
        "out": "runs/tiny-cpu",
        "steps": 20,
        "save_every": 10,
        "eval_every": 10,
        "eval_samples": 4,
        "model": {"path": "runs/tiny-model", "build": "tiny", "dtype": "float32", "device": "cpu"},
        "tasks": {
            "servers": ["zendesk"],
            "train": "ticket-priority-train",
            "test": "ticket-priority-test",
            "tools": ["get_ticket"],
            "max_test": None,
        },
        "rollout": {
            "tasks_per_step": 8,
            "group_size": 8,
            "max_new_tokens": 40,
            "max_turns": 3,
            "max_calls": 4,
            "max_total_tokens": 12000,
            "max_result_chars": 800,
        },
        "optim": {"lr": 1e-4, "warmup_steps": 2, "micro_batch_size": 32, "grad_clip": 1.0},
        "objective": {"mu": 1, "mask_truncated": False},
        "sft": {"epochs": 3, "lr": 1e-3, "warmup_steps": 50, "batch_size": 8},
    },
    "gpu-small": {
        "out": "runs/gpu-small",
        "steps": 300,
        "save_every": 50,
        "eval_every": 50,
        "model": {"path": "runs/small-model", "build": "34m"},
        "tasks": {"servers": ["zendesk", "crm", "calendar", "email", "finance", "flights"], "max_test": 256},
        "rollout": {"tasks_per_step": 16, "group_size": 8, "max_new_tokens": 256, "generation_batch_size": 128},
        "optim": {"lr": 1e-5, "micro_batch_size": 16},
        "sft": {"epochs": 3, "lr": 3e-4, "batch_size": 32},
    },
    "lora-8b": {
        "out": "runs/lora-8b",
        "steps": 300,
        "model": {
            "path": "Qwen/Qwen3-8B",
            "lora": {"r": 64, "alpha": 128, "target_modules": "all-linear"},
            "gradient_checkpointing": True,
        },
        "tasks": {"servers": ["zendesk", "crm", "calendar", "email", "finance", "flights"], "max_test": 256},
        "rollout": {"tasks_per_step": 8, "group_size": 8, "max_new_tokens": 1024, "max_total_tokens": 32768},
        "optim": {"lr": 1e-5, "micro_batch_size": 2},
    },
}
"""Named starting points: `tiny-cpu` (tests and a laptop), `gpu-small` (a model built from
scratch on one GPU), `lora-8b` (LoRA on a 4B-8B hub model on one 80 GB GPU)."""


def merge(base: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """`update` laid over `base`, recursing into sections."""
    out = dict(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def parse_override(text: str) -> dict[str, Any]:
    """`rollout.group_size=8` -> {"rollout": {"group_size": 8}}."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"override {text!r} is not of the form key.sub=value")
    try:
        value: Any = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    out: dict[str, Any] = {}
    node = out
    parts = key.strip().split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out


def read_file(path: str | Path) -> dict[str, Any]:
    """A config file, TOML or JSON by its suffix."""
    path = Path(path)
    text = path.read_text()
    if path.suffix == ".json":
        return json.loads(text)
    return tomllib.loads(text)


def load_config(
    path: str | Path | None = None, overrides: list[str] | None = None, preset: str | None = None
) -> TrainConfig:
    """Defaults, then the preset (also `preset = "..."` in the file), the file, the overrides."""
    data = read_file(path) if path is not None else {}
    preset = preset or data.pop("preset", None)
    layered: dict[str, Any] = {}
    if preset is not None:
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
        layered = merge(layered, PRESETS[preset])
    layered = merge(layered, data)
    for text in overrides or []:
        layered = merge(layered, parse_override(text))
    return TrainConfig.model_validate(layered)


__all__ = ["PRESETS", "TrainConfig", "load_config", "merge", "parse_override"]
