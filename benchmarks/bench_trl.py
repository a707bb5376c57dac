"""One GRPO step of our trainer against TRL's `GRPOTrainer`: same model, tasks, sizes and objective.

TRL's trainer is single-turn (a prompt dataset and reward functions); ours plays multi-turn
episodes against the environments. The like-for-like rows compare one step of each on:
- the same model folder (built here by `build_model`, or `--model`), dtype and device;
- the same tasks: Zendesk status tasks ("what is the status of ticket N?"), the same prompt
  tokens (our env's first observation, system prompt and the `get_ticket` + `finish` tool
  schemas, rendered by the model's chat template; TRL gets them as plain-text prompts, since
  its datasets cannot carry tool schemas other than through its own tool-executing loop);
- P prompts x G completions per step, at most `--new-tokens` new tokens each, sampled by
  `model.generate` (temperature 1, top-p 1, no top-k; TRL `use_vllm=False`);
- the same reward: the completion's text is the one assistant turn of our env with
  `max_turns=1` (reset on the task, `env.step(text)`, its reward), i.e. exactly the first-turn
  score our trainer gives with `rollout.max_turns=1`;
- the same objective and optimizer: group-normalized advantages, token-mean clipped loss
  (TRL `loss_type="dapo"`, clip 0.2), KL to a reference with the preset's beta, one policy
  update per generation batch (mu 1, TRL `num_iterations=1`, one optimizer step of one
  micro-batch of P x G sequences), no truncation masking, torch AdamW at the preset's
  learning rate (constant), gradient-norm clip, no gradient checkpointing, no autocast.

A third row times our normal multi-turn step (the preset's `max_turns`) for information.

Each system runs one warm-up step, then `--steps` timed steps; the table shows medians.
Columns: seconds per step; inside it, generation (`model.generate` only) and the rollout
(generation plus prompts, decoding, environment and reward); the update is the rest (the
reference log-probabilities, loss, backward, optimizer step, logging). Ratios are TRL over
ours; absolute times on shared machines are noise.

    python benchmarks/bench_trl.py [--steps 3] [--size tiny] [--prompts 2] [--group 4] [--new-tokens 48]

Needs `trl` (not a project dependency): `pip install trl datasets accelerate`; for the GPU
machine, `../shared/gpu/wheels.sh trl datasets accelerate` and carry `.whl`.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import statistics
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import torch  # noqa: E402
from train_support import status_tasks, zendesk_ticket_ids  # noqa: E402

from mcpgym.baselines.train.chat import ChatFormat  # noqa: E402
from mcpgym.baselines.train.config import TrainConfig, load_config  # noqa: E402
from mcpgym.baselines.train.generation import TimedGenerator  # noqa: E402
from mcpgym.baselines.train.policy import load_policy  # noqa: E402
from mcpgym.baselines.train.tiny_model import build_model  # noqa: E402
from mcpgym.baselines.train.trainer import GrpoTrainer  # noqa: E402
from mcpgym.envs.mcp_env import McpEnv  # noqa: E402
from mcpgym.tasks.loader import save_tasks  # noqa: E402
from mcpgym.tasks.model import Task  # noqa: E402

SERVERS = ["zendesk"]
TOOLS = ["get_ticket"]
INSTALL_HINT = (
    "bench_trl.py needs TRL, which is not a dependency of the project: `pip install trl datasets accelerate` "
    "(on the GPU machine: run `../shared/gpu/wheels.sh trl datasets accelerate` here and carry `.whl`)"
)


def require_trl() -> None:
    """Exit with a clear message when trl (or datasets) is missing."""
    for name in ("trl", "datasets"):
        try:
            importlib.import_module(name)
        except ImportError as err:
            sys.exit(f"error: cannot import {name} ({err}).\n{INSTALL_HINT}")


def synchronize() -> None:
    """Wait for queued GPU work, so a clock read after it counts it."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


@dataclass
class Row:
    """Median timings of one system's steps."""

    system: str
    step_s: float
    generate_s: float
    rollout_s: float
    update_s: float
    """The step less its rollout."""
    tokens: float
    reward: float


def median_row(system: str, samples: list[dict[str, float]]) -> Row:
    """The median of each measure over the timed steps."""
    keys = ("step_s", "generate_s", "rollout_s", "tokens", "reward")
    medians = {k: statistics.median(s[k] for s in samples) for k in keys}
    return Row(system, update_s=statistics.median(s["step_s"] - s["rollout_s"] for s in samples), **medians)


# ---------------------------------------------------------------------- our trainer




def our_config(args: argparse.Namespace, root: Path, model: Path, tasks_file: Path, max_turns: int | None, name: str) -> TrainConfig:
    """The preset at the benchmark's sizes; `max_turns` None keeps the preset's (multi-turn)."""
    episodes = args.prompts * args.group
    overrides = [
        f"out={root / name}",
        "resume=false",
        f"model.path={model}",
        "model.build=null",
        f"model.device={args.device}",
        f"model.dtype={args.dtype}",
        f"tasks.servers={SERVERS}".replace("'", '"'),
        f"tasks.train={tasks_file}",
        f"tasks.test={tasks_file}",
        "tasks.families=null",
        f"tasks.tools={TOOLS}".replace("'", '"'),
        "rollout.backend=transformers",
        f"rollout.tasks_per_step={args.prompts}",
        f"rollout.group_size={args.group}",
        f"rollout.max_new_tokens={args.new_tokens}",
        f"rollout.generation_batch_size={episodes}",
        "rollout.temperature=1.0",
        "rollout.top_p=1.0",
        "objective.mu=1",
        "objective.mask_truncated=false",
        "objective.loss_aggregation=token-mean",
        "objective.scale_by_std=true",
        "optim.warmup_steps=0",
        f"optim.micro_batch_size={episodes}",
    ]
    if max_turns is not None:
        overrides.append(f"rollout.max_turns={max_turns}")
    return load_config(preset=args.preset, overrides=overrides)


def time_ours(config: TrainConfig, steps: int, system: str) -> Row:
    """One warm-up step, then `steps` timed `train_step` calls."""
    trainer = GrpoTrainer(config)
    timed = TimedGenerator(trainer.generator)
    trainer.generator = timed
    samples = []
    try:
        for step in range(steps + 1):
            timed.seconds = 0.0
            synchronize()
            started = time.perf_counter()
            metrics = trainer.train_step()
            synchronize()
            if step == 0:
                continue
            samples.append(
                {
                    "step_s": time.perf_counter() - started,
                    "generate_s": timed.seconds,
                    "rollout_s": metrics["time/rollout"],
                    "tokens": metrics["completion_tokens"] * config.rollout.tasks_per_step * config.rollout.group_size,
                    "reward": metrics["reward_mean"],
                }
            )
    finally:
        trainer.log.close()
        for env in trainer.envs:
            env.close()
    return median_row(system, samples)


# ---------------------------------------------------------------------- TRL


def first_prompts(tasks: list[Task], chat: ChatFormat) -> list[str]:
    """Each task's first observation (system prompt, tools, user turn) as prompt text."""
    env = McpEnv(servers=SERVERS, tasks=tasks, tools=TOOLS)
    try:
        prompts = []
        for task in tasks:
            observation, _ = env.reset(options={"task": task})
            prompts.append(chat.render(observation["messages"], observation["tools"], prompt=True))
        return prompts
    finally:
        env.close()


class EnvReward:
    """TRL reward function: each completion is the single assistant turn of our env
    (`max_turns=1`) on its task, scored as our trainer scores a single-turn episode."""

    __name__ = "mcpgym_first_turn"

    def __init__(self, tasks: list[Task], chat: ChatFormat, config: TrainConfig, pool: int) -> None:
        self.tasks = {t.id: t for t in tasks}
        self.chat = chat
        rollout = config.rollout
        self.envs = [
            McpEnv(
                servers=SERVERS,
                tasks=tasks,
                tools=TOOLS,
                max_turns=1,
                max_calls=rollout.max_calls,
                max_result_chars=rollout.max_result_chars,
                reward=config.tasks.reward,
            )
            for _ in range(pool)
        ]
        self.means: list[float] = []
        """The mean reward of each call (one per step)."""

    def __call__(self, prompts: list[str], completions: list[str], completion_ids: list[list[int]], task_id: list[str], **_: Any) -> list[float]:
        rewards = []
        for i, (ids, task) in enumerate(zip(completion_ids, task_id, strict=True)):
            env = self.envs[i % len(self.envs)]
            env.reset(options={"task": self.tasks[task]})
            _, reward, _, _, _ = env.step(self.chat.action(self.chat.text_of(ids)))
            rewards.append(float(reward))
        self.means.append(statistics.fmean(rewards))
        return rewards

    def close(self) -> None:
        for env in self.envs:
            env.close()


def trl_config(args: argparse.Namespace, out: Path, config: TrainConfig) -> Any:
    """A `GRPOConfig` whose optimizer step is one generation batch of P prompts x G completions."""
    from trl import GRPOConfig

    objective, optim = config.objective, config.optim
    episodes = args.prompts * args.group
    return GRPOConfig(
        output_dir=str(out),
        max_steps=args.steps + 1,
        per_device_train_batch_size=episodes,  # completions, not prompts
        gradient_accumulation_steps=1,
        steps_per_generation=1,
        num_generations=args.group,
        num_iterations=objective.mu,
        max_completion_length=args.new_tokens,
        temperature=config.rollout.temperature,
        top_p=config.rollout.top_p,
        top_k=0,
        use_vllm=False,
        beta=objective.beta,
        epsilon=objective.clip_low,
        epsilon_high=objective.clip_high,
        loss_type="dapo",  # token mean over the batch, as our "token-mean"
        scale_rewards="group" if objective.scale_by_std else "none",
        mask_truncated_completions=objective.mask_truncated,
        learning_rate=optim.lr,
        lr_scheduler_type="constant",
        warmup_steps=0,
        optim="adamw_torch",
        adam_beta1=optim.betas[0],
        adam_beta2=optim.betas[1],
        weight_decay=optim.weight_decay,
        max_grad_norm=optim.grad_clip,
        gradient_checkpointing=False,  # TRL's default is True
        bf16=False,  # TRL's default is bf16 autocast; the model is loaded in the run's dtype instead
        fp16=False,
        use_cpu=torch.device(config.model.device).type == "cpu",
        report_to="none",
        logging_steps=1,
        save_strategy="no",
        disable_tqdm=True,
        dataloader_num_workers=0,
        seed=config.seed,
    )


class StepClock:
    """Trainer callback: the time of every optimizer step's end."""

    def __init__(self) -> None:
        from transformers import TrainerCallback

        outer = self

        class Callback(TrainerCallback):
            def on_train_begin(self, *args: Any, **kwargs: Any) -> None:
                synchronize()
                outer.ends.append(time.perf_counter())

            def on_step_end(self, *args: Any, **kwargs: Any) -> None:
                synchronize()
                outer.ends.append(time.perf_counter())

        self.ends: list[float] = []
        self.callback = Callback()


def instrument(trainer: Any, name: str, seconds: dict[str, list[float]], after: Callable[[Any], None] | None = None) -> None:
    """Wrap the bound method `name` of `trainer` so each call's seconds are appended to `seconds[name]`."""
    inner = getattr(trainer, name)

    @functools.wraps(inner)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        result = inner(*args, **kwargs)
        seconds[name].append(time.perf_counter() - started)
        if after is not None:
            after(result)
        return result

    setattr(trainer, name, wrapper)


def time_trl(args: argparse.Namespace, root: Path, tasks: list[Task], config: TrainConfig) -> tuple[Row, int, bool]:
    """TRL's steps; also the prompt length and whether TRL's prompt tokens equal ours."""
    from datasets import Dataset
    from transformers import PrinterCallback, ProgressCallback
    from trl import GRPOTrainer

    policy = load_policy(config.model)
    prompts = first_prompts(tasks, policy.chat)
    dataset = Dataset.from_dict({"prompt": prompts, "task_id": [t.id for t in tasks]})
    reward = EnvReward(tasks, policy.chat, config, args.prompts * args.group)
    clock = StepClock()
    trainer = GRPOTrainer(
        model=policy.model,
        reward_funcs=[reward],
        args=trl_config(args, root / "trl", config),
        train_dataset=dataset,
        processing_class=policy.tokenizer,
        callbacks=[clock.callback],
    )
    for callback in (PrinterCallback, ProgressCallback):
        trainer.remove_callback(callback)
    ours = policy.chat.encode(prompts[0])  # what our trainer feeds: ChatFormat.prompt of that observation
    same_prompt = list(trainer.processing_class(text=[prompts[0]])["input_ids"][0]) == ours

    seconds: dict[str, list[float]] = defaultdict(list)
    tokens: list[int] = []
    instrument(trainer, "_generate_single_turn", seconds)
    instrument(trainer, "_generate", seconds, after=lambda out: tokens.append(sum(len(ids) for ids in out[1])))
    instrument(trainer, "_calculate_rewards", seconds)
    try:
        trainer.train()
    finally:
        reward.close()
    steps = [b - a for a, b in zip(clock.ends, clock.ends[1:])]
    if len(steps) != args.steps + 1 or len(seconds["_generate"]) != args.steps + 1:
        raise RuntimeError(
            f"expected {args.steps + 1} TRL steps with one generation each, got {len(steps)} steps and "
            f"{len(seconds['_generate'])} generations: check the GRPOConfig batch settings"
        )
    samples = [
        {
            "step_s": steps[i],
            "generate_s": seconds["_generate_single_turn"][i],
            "rollout_s": seconds["_generate"][i] + seconds["_calculate_rewards"][i],
            "tokens": tokens[i],
            "reward": reward.means[i],
        }
        for i in range(1, args.steps + 1)
    ]
    return median_row("TRL GRPOTrainer, single-turn", samples), len(ours), same_prompt


# ---------------------------------------------------------------------- report


def versions() -> str:
    import transformers
    import trl

    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "no CUDA device"
    return f"torch {torch.__version__}, transformers {transformers.__version__}, trl {trl.__version__}; {device}"


def print_table(rows: list[Row], baseline: Row) -> None:
    print("| system | s/step | generate s | rollout s | update s | tokens/step | tokens/s (step) | reward mean | step vs ours 1-turn |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row.system} | {row.step_s:.2f} | {row.generate_s:.2f} | {row.rollout_s:.2f} | {row.update_s:.2f} | "
            f"{row.tokens:.0f} | {row.tokens / row.step_s:.0f} | {row.reward:.3f} | {row.step_s / baseline.step_s:.2f}x |"
        )


def print_ratios(trl_row: Row, ours: Row) -> None:
    parts = [
        ("step", trl_row.step_s, ours.step_s),
        ("generation", trl_row.generate_s, ours.generate_s),
        ("rollout", trl_row.rollout_s, ours.rollout_s),
        ("update", trl_row.update_s, ours.update_s),
        ("s/token generated", trl_row.step_s / max(trl_row.tokens, 1), ours.step_s / max(ours.tokens, 1)),
    ]
    print("TRL / ours (single-turn): " + ", ".join(f"{name} {a / b:.2f}x" for name, a, b in parts))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    parser.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"], help="auto: bfloat16 on cuda, float32 on cpu")
    parser.add_argument("--size", default=None, choices=["tiny", "small", "34m"], help="model built here (default: tiny on cpu, 34m on cuda)")
    parser.add_argument("--model", type=Path, default=None, help="an existing model folder instead of building one")
    parser.add_argument("--prompts", type=int, default=None, help="prompts (tasks) per step, P (default: the preset's)")
    parser.add_argument("--group", type=int, default=None, help="completions per prompt, G (default: the preset's)")
    parser.add_argument("--new-tokens", type=int, default=None, help="max new tokens per completion (default: the preset's)")
    parser.add_argument("--steps", type=int, default=3, help="timed steps per system, after one warm-up step")
    parser.add_argument("--tasks", type=int, default=None, help="status tasks in the task set (default: 8, at least --prompts)")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    args = parser.parse_args()
    args.device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    on_gpu = torch.device(args.device).type == "cuda"
    args.preset = "gpu-small" if on_gpu else "tiny-cpu"
    args.size = args.size or ("34m" if on_gpu else "tiny")
    rollout = load_config(preset=args.preset).rollout
    args.prompts = args.prompts or rollout.tasks_per_step
    args.group = args.group or rollout.group_size
    args.new_tokens = args.new_tokens or rollout.max_new_tokens
    args.tasks = args.tasks or max(8, args.prompts)
    if args.steps < 1 or args.group < 2 or args.prompts < 1:
        parser.error("need --steps >= 1, --group >= 2 and --prompts >= 1")
    if args.tasks < args.prompts:
        parser.error("--tasks must be at least --prompts: TRL's sampler drops a batch with fewer distinct prompts")
    return args


def quiet() -> None:
    """No progress bars, warnings or info logs from the libraries: the table is the output."""
    import datasets
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    datasets.disable_progress_bars()
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)


def main() -> None:
    args = parse_args()
    require_trl()
    if args.threads:
        torch.set_num_threads(args.threads)
    quiet()
    root = Path(tempfile.mkdtemp(prefix="bench-trl-"))
    tasks = status_tasks(zendesk_ticket_ids(args.tasks))
    tasks_file = root / "tasks.jsonl"
    save_tasks(tasks, tasks_file)
    model = args.model or build_model(root / "model", size=args.size, tasks=tasks)

    single = our_config(args, root, model, tasks_file, max_turns=1, name="ours-single")
    multi = our_config(args, root, model, tasks_file, max_turns=None, name="ours-multi")
    ours = time_ours(single, args.steps, "ours GrpoTrainer, single-turn (max_turns=1)")
    trl_row, prompt_tokens, same_prompt = time_trl(args, root, tasks, single)
    multi_row = time_ours(multi, args.steps, f"ours GrpoTrainer, multi-turn (max_turns={multi.rollout.max_turns}, for information)")

    check = load_policy(single.model).model
    parameters = sum(p.numel() for p in check.parameters())
    print(versions())
    print(
        f"model {model} ({parameters:,} parameters), {check.device} {str(check.dtype).removeprefix('torch.')}, {torch.get_num_threads()} threads; "
        f"{args.prompts} prompts x {args.group} completions, <= {args.new_tokens} new tokens, beta {single.objective.beta}, "
        f"lr {single.optim.lr}; prompt {prompt_tokens} tokens, same tokens in TRL: {'yes' if same_prompt else 'NO'}; "
        f"median of {args.steps} steps after 1 warm-up"
    )
    print_table([ours, trl_row, multi_row], ours)
    print_ratios(trl_row, ours)


if __name__ == "__main__":
    main()
