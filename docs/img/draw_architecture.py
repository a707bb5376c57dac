"""Draw docs/img/architecture.png, the diagram of docs/concepts.md.

    python docs/img/draw_architecture.py            # writes architecture.png next to this file

Boxes are the parts of mcpgym with the module that holds each; arrows are what flows
between them. Coordinates are in a 16 x 10 grid, one box per cell of the layout below.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.patches import FancyBboxPatch

OUT = Path(__file__).resolve().parent / "architecture.png"

RUN = "#e3ecf7"  # what drives episodes
ENV = "#fdf0d5"  # the environment and what it reads and writes
SERVE = "#e4f2e4"  # the servers and their world
EDGE = "#394b59"


@dataclass(frozen=True)
class Box:
    """A labelled box: a title, the module that holds it, and a line on what it does."""

    x: float
    y: float
    w: float
    h: float
    title: str
    module: str
    note: str
    fill: str

    @property
    def top(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h)

    @property
    def bottom(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y)

    def left(self, dy: float = 0.0) -> tuple[float, float]:
        return (self.x, self.y + self.h / 2 + dy)

    def right(self, dy: float = 0.0) -> tuple[float, float]:
        return (self.x + self.w, self.y + self.h / 2 + dy)


AGENT = Box(0.3, 8.2, 4.4, 1.4, "Agent", "mcpgym.baselines.agents", "oracle, random, no-op,\nOpenAI-compatible model, local policy", RUN)
EVAL = Box(5.8, 8.2, 4.4, 1.4, "Eval runner", "mcpgym eval · baselines/evaluate.py", "parallel, resumable runs;\nsummary.json, pass^k", RUN)
TRAIN = Box(11.3, 8.2, 4.4, 1.4, "GRPO trainer", "mcpgym train · baselines/train/", "group rollouts, clipped update,\nKL to a reference", RUN)
TASKS = Box(0.3, 5.6, 4.4, 1.5, "Tasks", "mcpgym.tasks", "user turns, ground-truth calls,\nfacts, expected changes", ENV)
ENVBOX = Box(5.8, 5.6, 4.4, 1.5, "Environment  McpEnv", "mcpgym.envs · gym.make('mcp/...')", "reset -> observation\nstep(action) -> tool results", ENV)
REWARDS = Box(11.3, 5.6, 4.4, 1.5, "Rewards", "mcpgym.rewards", "components in [0, 1],\npresets dense / outcome / process", ENV)
SYNTH = Box(0.3, 3.1, 4.4, 1.4, "Task synthesis", "mcpgym synth · mcpgym.synth", "dependency graph, families;\nexecuted, validated drafts", ENV)
TOOLBOX = Box(5.8, 3.1, 4.4, 1.4, "Toolbox", "servers/toolbox.py", "one tool namespace,\none session per mounted server", SERVE)
MCP = Box(11.3, 3.1, 4.4, 1.4, "MCP servers", "mcpgym serve · mcpgym host", "a session per client; host: scored\nepisodes over a task's servers", SERVE)
SERVERS = Box(0.3, 1.35, 15.4, 1.15, "Servers and sessions", "mcpgym.servers · servers/kernel/",
              "20 servers (schema, seeding, typed tools); a session is a private in-memory SQLite copy of the world", SERVE)
WORLD = Box(4.2, 0.1, 7.6, 0.8, "World", "servers/kernel/world.py", "seed -> people, organisations, clock", SERVE)

ARROWS: list[tuple[tuple[float, float], tuple[float, float], str, tuple[float, float]]] = [
    (AGENT.right(), EVAL.left(), "action", (0.0, 0.18)),
    (EVAL.bottom, ENVBOX.top, "reset / step", (0.75, 0.0)),
    ((TRAIN.x + 1.2, TRAIN.y), ENVBOX.right(0.5), "rollouts", (0.25, 0.22)),
    (TASKS.right(), ENVBOX.left(), "a task", (0.0, 0.18)),
    (ENVBOX.right(0.05), REWARDS.left(0.05), "trajectory", (0.0, 0.2)),
    (REWARDS.left(-0.5), ENVBOX.right(-0.5), "reward", (0.0, 0.2)),
    (SYNTH.top, TASKS.bottom, "task sets (JSONL)", (1.1, 0.0)),
    (ENVBOX.bottom, TOOLBOX.top, "tool calls", (0.65, 0.0)),
    (TOOLBOX.bottom, (TOOLBOX.bottom[0], SERVERS.top[1]), "", (0.0, 0.0)),
    (MCP.bottom, (MCP.bottom[0], SERVERS.top[1]), "", (0.0, 0.0)),
    (SYNTH.bottom, (SYNTH.bottom[0], SERVERS.top[1]), "", (0.0, 0.0)),
    (WORLD.top, (WORLD.top[0], SERVERS.y), "", (0.0, 0.0)),
]


def draw_box(ax: Axes, box: Box) -> None:
    ax.add_patch(FancyBboxPatch((box.x, box.y), box.w, box.h, boxstyle="round,pad=0.02,rounding_size=0.12",
                                facecolor=box.fill, edgecolor=EDGE, linewidth=1.4))
    cx = box.x + box.w / 2
    if box.h < 1.0:  # a one-line box: title and module on one line, the note beneath
        ax.text(cx, box.y + box.h * 0.66, f"{box.title}  ·  {box.module}", ha="center", va="center", fontsize=11.5, weight="bold")
        ax.text(cx, box.y + box.h * 0.27, box.note, ha="center", va="center", fontsize=10.5)
        return
    if box.h < 1.3:  # a wide box: title, module, one-line note
        ax.text(cx, box.y + box.h - 0.27, box.title, ha="center", va="center", fontsize=12.5, weight="bold")
        ax.text(cx, box.y + box.h - 0.58, box.module, ha="center", va="center", fontsize=10, family="monospace", color="#44525e")
        ax.text(cx, box.y + 0.24, box.note, ha="center", va="center", fontsize=10.5)
        return
    ax.text(cx, box.y + box.h - 0.25, box.title, ha="center", va="center", fontsize=12.5, weight="bold")
    ax.text(cx, box.y + box.h - 0.55, box.module, ha="center", va="center", fontsize=9.5, family="monospace", color="#44525e")
    ax.text(cx, box.y + (box.h - 0.7) / 2, box.note, ha="center", va="center", fontsize=10.5, linespacing=1.3)


def draw_arrow(ax: Axes, start: tuple[float, float], end: tuple[float, float], label: str,
               offset: tuple[float, float]) -> None:
    ax.annotate("", xy=end, xytext=start, arrowprops={"arrowstyle": "-|>", "color": EDGE, "lw": 1.6,
                                                       "shrinkA": 2, "shrinkB": 2, "mutation_scale": 16})
    if label:
        mx, my = (start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1]
        ax.text(mx, my, label, ha="center", va="center", fontsize=10, style="italic", color="#1f3a56",
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"})


def draw(out: Path = OUT) -> Path:
    """Draw the diagram into `out` (PNG) and return the path."""
    fig, ax = plt.subplots(figsize=(16, 10), dpi=100)
    ax.set_xlim(0, 16)
    ax.set_ylim(0, 10)
    ax.set_axis_off()
    for start, end, label, offset in ARROWS:
        draw_arrow(ax, start, end, label, offset)
    for box in (AGENT, EVAL, TRAIN, TASKS, ENVBOX, REWARDS, SYNTH, TOOLBOX, MCP, SERVERS, WORLD):
        draw_box(ax, box)
    fig.savefig(out, bbox_inches="tight", pad_inches=0.15, facecolor="white")
    plt.close(fig)
    return out


if __name__ == "__main__":
    print(draw(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
