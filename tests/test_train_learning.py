"""GRPO teaches on the documented path: the `tiny-cpu` preset and the commands of
docs/training.md, run as written with three seeds, raise the held-out reward (slow;
`pytest -m slow`).

Per seed, through the command line's own entry point:

    mcpgym train sft  --preset tiny-cpu seed=S out=RUN model.path=MODEL
    mcpgym train grpo --preset tiny-cpu seed=S out=RUN model.path=RUN/sft/model

The preset's tasks are "What is the priority of ticket N?" for three-digit N (the generated
`ticket-priority-train` / `-test` sets, disjoint tickets), one `get_ticket` call whose id the
model must copy from the request; the preset's `dense` reward scores calls and answer. `sft` builds
the tiny model from scratch (tokenizer from the training tasks) and warm starts it on the
oracle's trajectories; `grpo` evaluates the sampling policy on the held-out tickets before its
first step and after its last (`eval_samples` episodes per task at the rollout temperature).

Asserted: SFT taught the call format (well-formed calls in over 40% of the sampled held-out
episodes, where the freshly built model writes none); the warm start is not already perfect; every seed gains; the
mean gain exceeds the spread of the gains across seeds (max - min). Measured (docs/training.md):
warm starts 0.235-0.269, after GRPO 0.289-0.291, gains 0.020-0.055 (mean 0.038, spread 0.035);
well-formed calls 0.47-0.64 after SFT. Each seed takes about 8 minutes on one CPU thread; the
test runs torch on one thread, as the documented runs did, so it replays them exactly.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is part of the test extra")

from mcpgym.baselines.train.run_log import read_metrics  # noqa: E402
from mcpgym.cli import main  # noqa: E402

SEEDS = (0, 1, 2)


def documented_path(root: Path, seed: int) -> list[dict[str, float]]:
    """The two training commands of docs/training.md for one seed; the run's eval rows."""
    run, model = root / f"tiny-cpu-{seed}", root / f"tiny-model-{seed}"
    common = ["--preset", "tiny-cpu", f"seed={seed}", f"out={run}"]
    assert main(["train", "sft", *common, f"model.path={model}"]) == 0
    assert main(["train", "grpo", *common, f"model.path={run / 'sft' / 'model'}"]) == 0
    return [row for row in read_metrics(run) if row["phase"] == "eval"]


@pytest.fixture
def one_thread() -> Iterator[None]:
    """torch on one CPU thread (the documented runs' OMP_NUM_THREADS=1), restored after."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.slow
@pytest.mark.usefixtures("one_thread")
def test_the_documented_tiny_cpu_path_raises_held_out_reward_over_seed_spread(tmp_path: Path) -> None:
    before, after, well_formed = [], [], []
    for seed in SEEDS:
        evals = documented_path(tmp_path, seed)
        assert evals[0]["step"] == 0 and evals[-1]["step"] > 0
        before.append(evals[0]["mean_reward"])
        after.append(evals[-1]["mean_reward"])
        well_formed.append(evals[0]["well_formed_rate"])
    gains = [b - a for a, b in zip(before, after, strict=True)]
    spread = max(gains) - min(gains)
    report = f"held-out reward {before} -> {after}: gains {gains}, spread {spread:.3f}; well-formed calls {well_formed}"
    assert min(well_formed) > 0.4, report
    assert max(before) < 0.95, report
    assert min(gains) > 0, report
    assert statistics.fmean(gains) > spread, report
