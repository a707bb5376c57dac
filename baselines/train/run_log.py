"""A training run's metrics: one JSON line per step, optional TensorBoard, and PNG curves.

`metrics.jsonl` in the run folder holds `{"step": n, "phase": "train"|"eval"|"sft", ...}`
per line; a resumed run appends after dropping lines from steps it is about to redo.
`plot_run(run_dir)` draws the curves a person checks first (reward and its components, pass
rate, KL, clip fraction, lengths, calls, time per phase) into `run_dir/plots/`.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

METRICS = "metrics.jsonl"


class MetricsLog:
    """Appends metrics rows to `run_dir/metrics.jsonl` (and TensorBoard when asked)."""

    def __init__(self, run_dir: str | Path, tensorboard: bool = False, resume_from_step: int | None = None) -> None:
        self.path = Path(run_dir) / METRICS
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if resume_from_step is not None and self.path.exists():
            kept = [row for row in read_metrics(self.path.parent) if row["step"] <= resume_from_step]
            self.path.write_text("".join(json.dumps(row) + "\n" for row in kept), encoding="utf-8")
        self.writer = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(self.path.parent / "tensorboard"))

    def write(self, step: int, phase: str, metrics: dict[str, Any]) -> None:
        row = {"step": step, "phase": phase, **metrics}
        with self.path.open("a", encoding="utf-8") as sink:
            sink.write(json.dumps(row) + "\n")
        if self.writer is not None:
            for key, value in metrics.items():
                if isinstance(value, int | float) and not isinstance(value, bool):
                    self.writer.add_scalar(f"{phase}/{key}", value, step)
            self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def read_metrics(run_dir: str | Path) -> list[dict[str, Any]]:
    """Every complete row of a run's metrics file (a line cut short by a crash is skipped)."""
    path = Path(run_dir) / METRICS
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


PANELS: list[tuple[str, list[str]]] = [
    ("reward", ["reward_mean", "eval/mean_reward"]),
    ("reward components", ["reward/answer", "reward/state", "reward/coverage", "reward/arguments", "reward/tool_names", "reward/validity"]),
    ("pass rate", ["pass_rate", "eval/pass@1.0", "eval/pass@0.5"]),
    ("KL to reference", ["kl"]),
    ("clip fraction", ["clip_fraction"]),
    ("completion tokens / episode", ["completion_tokens"]),
    ("calls and turns / episode", ["calls_per_episode", "turns_per_episode"]),
    ("finish and overlong rate", ["finish_rate", "overlong_rate"]),
    ("seconds per step", ["time/rollout", "time/update"]),
    ("SFT loss", ["sft/loss"]),
]


def plot_run(run_dir: str | Path) -> Path:
    """Curves of a run's metrics as one PNG grid, `run_dir/plots/curves.png`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_metrics(run_dir)
    if not rows:
        raise FileNotFoundError(f"no metrics in {Path(run_dir) / METRICS}")
    series: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for row in rows:
        prefix = "eval/" if row.get("phase") == "eval" else "sft/" if row.get("phase") == "sft" else ""
        for key, value in row.items():
            if key in ("step", "phase") or isinstance(value, bool) or not isinstance(value, int | float):
                continue
            if math.isfinite(value):
                series[prefix + key].append((row["step"], float(value)))
    panels = [(title, [k for k in keys if k in series]) for title, keys in PANELS]
    panels = [(title, keys) for title, keys in panels if keys]
    cols = 3
    rows_n = max(1, math.ceil(len(panels) / cols))
    fig, axes = plt.subplots(rows_n, cols, figsize=(5 * cols, 3.4 * rows_n), squeeze=False)
    for ax, (title, keys) in zip(axes.flat, panels, strict=False):
        for key in keys:
            steps, values = zip(*series[key], strict=True)
            ax.plot(steps, values, marker="o" if len(steps) < 30 else None, markersize=3, label=key)
        ax.set_title(title)
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels) :]:
        ax.axis("off")
    fig.suptitle(f"training run {Path(run_dir).resolve().name}")
    fig.tight_layout()
    out = Path(run_dir) / "plots" / "curves.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


__all__ = ["METRICS", "MetricsLog", "plot_run", "read_metrics"]
