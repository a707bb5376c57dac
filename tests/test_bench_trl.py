"""bench_trl.py end to end on the CPU with the tiny model: needs trl, so slow and skipped without it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_trl.py"


@pytest.mark.slow
def test_bench_trl_times_both_trainers_on_the_same_prompt_tokens() -> None:
    pytest.importorskip("trl")
    pytest.importorskip("datasets")
    command = [sys.executable, str(BENCH), "--device", "cpu", "--steps", "1", "--prompts", "1", "--group", "2",
               "--new-tokens", "8", "--tasks", "2", "--threads", "1"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=600, check=True).stdout
    assert "same tokens in TRL: yes" in out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "grpotrainer" in line.lower()]
    assert [r.split(" | ")[0] for r in rows] == ["| ours GrpoTrainer, single-turn (max_turns=1)", "| TRL GRPOTrainer, single-turn",
                                                 "| ours GrpoTrainer, multi-turn (max_turns=4, for information)"]
    assert all(float(r.split(" | ")[5]) > 0 for r in rows)  # tokens generated per step
    assert "TRL / ours (single-turn): step" in out
