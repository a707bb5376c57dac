"""`mcpgym train build-model|sft|grpo` and `mcpgym plot`: the trainer's command line.

Nothing heavy is imported until a command runs, so `mcpgym --help` stays fast and works
without the train extra.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from mcpgym import arguments
from mcpgym.arguments import CliError, UsageError

SIZES = ("tiny", "tiny-wide", "small", "34m")
"""The model shapes of `build-model` (`tiny_model.MODEL_SIZES`, kept here so help needs no torch)."""
PRESETS = ("tiny-cpu", "gpu-small", "lora-8b")
"""The training presets (`config.PRESETS`, named here so `--help` stays fast)."""


def _config(args: argparse.Namespace) -> Any:
    from mcpgym.baselines.train.config import load_config

    try:
        return load_config(args.config, args.overrides, args.preset)
    except ValueError as err:  # pydantic's ValidationError included: a readable message, no traceback
        raise UsageError(f"bad training config: {arguments.one_line(str(err))}") from None


def _need_torch() -> None:
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as err:
        raise CliError(f"training needs the train extra ({err.name} is missing): pip install 'mcpgym[train]'") from None


def cmd_build_model(args: argparse.Namespace) -> int:
    _need_torch()
    from mcpgym.baselines.train.tiny_model import build_model

    tasks = list(args.tasks.tasks) if args.tasks is not None else None
    out = build_model(args.out, size=args.size, tasks=tasks, vocab_size=args.vocab_size, seed=args.seed)
    print(f"built {args.size} model in {out}: " + (out / "build.json").read_text())
    return 0


def cmd_sft(args: argparse.Namespace) -> int:
    _need_torch()
    from mcpgym.baselines.train.sft import train_sft

    config = _config(args)
    try:
        folder = train_sft(config)
    except ValueError as err:  # no oracle episode fits the run's limits, a task set that cannot be read
        raise CliError(f"sft: {arguments.one_line(str(err))}") from None
    print(f"SFT model written to {folder}; point a GRPO run at it with model.path={folder}")
    return 0


def cmd_grpo(args: argparse.Namespace) -> int:
    _need_torch()
    from mcpgym.baselines.train.run_log import plot_run
    from mcpgym.baselines.train.trainer import GrpoTrainer

    config = _config(args)
    try:
        trainer = GrpoTrainer(config)
    except ValueError as err:  # no training tasks, a task set that cannot be read
        raise CliError(f"grpo: {arguments.one_line(str(err))}") from None
    start = trainer.step
    metrics = trainer.train()
    shown = {k: round(v, 4) for k, v in metrics.items() if isinstance(v, float)}
    print(f"steps {start} -> {trainer.step} in {config.out}; last step: {json.dumps(shown)}")
    if trainer.step > 0:
        print(f"curves: {plot_run(config.out)}")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    from mcpgym.baselines.train.run_log import plot_run

    print(plot_run(args.run_dir))
    return 0


def add_parsers(sub: Any) -> None:
    """The `train` and `plot` commands, on the main parser's subcommands."""
    p = sub.add_parser("train", help="train a policy: build-model, sft (warm start), grpo")
    train_sub = p.add_subparsers(dest="train_command", required=True)

    b = train_sub.add_parser(
        "build-model",
        help="build a small model and tokenizer from scratch (no hub needed)",
        description="Train a byte-level BPE tokenizer on the task corpus and build a Qwen2-style model with a "
        "Hermes tool-call chat template; the folder loads with AutoModelForCausalLM.",
    )
    b.add_argument("--out", type=arguments.output_folder, required=True, metavar="DIR",
                   help="folder to write (its parent must exist)")
    b.add_argument("--size", choices=SIZES, default="tiny",
                   help="Qwen2 shape: tiny (2 layers, width 64, 4 heads), tiny-wide (2 layers, width 128, 8 heads), small "
                   "(4 layers, 256) or 34m (8 layers, 512) (default tiny)")
    arguments.add_tasks(b, "the tokenizer's training corpus", absent="synth-train and the shipped tasks")
    b.add_argument("--vocab-size", type=arguments.bounded_int(512, 262_144), default=4096, metavar="N",
                   help="tokens in all (the 256 bytes, control and markup tokens, merges), 512 to 262144 (default 4096)")
    arguments.add_seed(b, "initialization seed")
    b.set_defaults(func=cmd_build_model)

    for name, func, text in (
        ("sft", cmd_sft, "supervised warm start on the oracle trajectories of the train tasks"),
        ("grpo", cmd_grpo, "GRPO against the environments (resumes from the run's latest checkpoint)"),
    ):
        c = train_sub.add_parser(
            name,
            help=text,
            description=f"{text[0].upper() + text[1:]}. Settings: defaults, then --preset, then --config, then "
            "KEY=VALUE overrides such as rollout.group_size=8 or model.path=runs/x (values parsed as JSON).",
        )
        c.add_argument("--config", default=None, metavar="FILE",
                       help="TOML or JSON file, sections as in TrainConfig (default: none)")
        c.add_argument("--preset", choices=PRESETS, default=None,
                       help="settings preset, applied before --config (default: none, TrainConfig's defaults)")
        c.add_argument("overrides", nargs="*", metavar="KEY=VALUE",
                       help="settings applied last, e.g. rollout.group_size=8 (values parsed as JSON)")
        c.set_defaults(func=func)

    p = sub.add_parser("plot", help="draw a training run's curves (metrics.jsonl) as PNG")
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run's folder (config.out)")
    p.set_defaults(func=cmd_plot)


__all__ = ["add_parsers"]
