"""bench_eval.py end to end on a few tasks: every table comes out, and every oracle episode and
score it times is a full reward (the script asserts it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_eval.py"
HEADERS = ("scoring a fresh task", "oracle evaluation, one core", "oracle episode, fresh task", "tools taking most")
SOURCES = ("baseline: executed on a new toolbox", "legacy file: executed once, warm toolbox", "recorded in the task")


def test_bench_eval_prints_every_table() -> None:
    command = [sys.executable, str(BENCH), "--tasks", "3", "--warmup", "1", "--seed", "1"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=600, check=True).stdout
    lines = out.splitlines()
    assert all(any(line.startswith(header) for line in lines) for header in HEADERS), out
    for source in SOURCES:
        rows = [line.split() for line in lines if line.startswith(source)]
        assert len(rows) == 2, out  # one row in the scoring table, one in the evaluation table
        assert float(rows[0][-1].rstrip("x")) > 0 and float(rows[1][-1]) > 0
