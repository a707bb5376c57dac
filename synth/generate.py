"""The synthesis loop: draft from families, execute on a fresh world, validate, complete.

A draft is kept only if every call succeeds, every fact has a value, the family's checks hold
(no tie behind an argmax, one match behind a lookup), writes change the state exactly when
the family says it writes, a second execution gives the same facts, and no earlier task of
the family has the same grounded entities. Same arguments, same tasks, byte for byte.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import random
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from mcpgym.envs.toolbox import Toolbox
from mcpgym.synth.families import families_for
from mcpgym.synth.family import Draft, Family, SamplingError, WorldView
from mcpgym.tasks.execute import Execution, complete_from_run, execute_task, same_value
from mcpgym.tasks.model import Task
from mcpgym.tasks.refs import RefError, evaluate

TEST_SHARE = 5
"""One key in TEST_SHARE goes to the test split (hash of the grounded entities)."""

KIND_SHARES = {"cross-server": 0.25, "multi-turn": 0.27, "aggregation": 0.2}
"""Share of drafts drawn from these kinds when the server set has families of them; the
other kinds share the rest equally."""


def kind_weights(families: Sequence[Family]) -> dict[str, float]:
    """How often each kind of family is drawn."""
    kinds = sorted({f.kind for f in families})
    fixed = {k: KIND_SHARES[k] for k in kinds if k in KIND_SHARES}
    others = [k for k in kinds if k not in fixed]
    rest = max(0.0, 1.0 - sum(fixed.values()))
    weights = {**fixed, **{k: rest / len(others) for k in others}} if others else fixed
    total = sum(weights.values())
    return {k: w / total for k, w in weights.items()}


def pick_family(
    families: Sequence[Family], weights: dict[str, float], kept: Counter[str], rng: random.Random
) -> Family:
    """A kind drawn in proportion to how far it is behind its share of the tasks kept so far
    (so kinds whose drafts are often rejected still reach their share), then a family of
    that kind uniformly."""
    kinds = sorted(weights)
    total = sum(kept.values()) + 1
    behind = [max(weights[k] * total - kept[k], 0.05) for k in kinds]
    kind = rng.choices(kinds, behind)[0]
    return rng.choice([f for f in families if f.kind == kind])


@dataclass
class SynthReport:
    """What was kept and why the rest was not."""

    kept: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    """(family, split, difficulty bucket) -> tasks."""
    rejected: Counter[str] = field(default_factory=Counter)
    """reason -> drafts."""

    def rows(self) -> list[tuple[str, str, str, int]]:
        return [(family, split, bucket, n) for (family, split, bucket), n in sorted(self.kept.items())]


def split_of(family: str, key: str) -> str:
    digest = hashlib.sha256(f"{family}|{key}".encode()).digest()
    return "test" if digest[0] % TEST_SHARE == 0 else "train"


def choose_wordings(draft: Draft, split: str, rng: random.Random) -> list[dict[str, Any]]:
    """Each turn with one wording: the last for test, one of the others for train."""
    turns = []
    for turn in draft.turns:
        options = turn["user"] if isinstance(turn["user"], list) else [turn["user"]]
        text = options[-1] if split == "test" or len(options) == 1 else rng.choice(options[:-1])
        turns.append({**turn, "user": text})
    return turns


def validate(checks: Sequence[str], writes: bool, run: Execution, again: Execution) -> str | None:
    """Why an executed draft must go, or None to keep it."""
    if run.errors:
        return "a call failed"
    if any(value is None or value == "" or value == [] for value in run.facts):
        return "empty answer"
    for check in checks:
        try:
            if not evaluate(check, run.results):
                return "ambiguous"
        except RefError:
            return "ambiguous"
    if writes and not run.changes:
        return "write changed nothing"
    if not writes and run.changes:
        return "read changed state"
    if not all(same_value(a, b) for a, b in zip(run.facts, again.facts)) or run.changes != again.changes:
        return "not reproducible"
    return None


BATCH = 32
"""Drafts made between two rounds of validation; fixed, so results do not depend on workers."""


class Validator:
    """Executes drafts on fresh copies of one world and returns why they fail, or the
    completed task. One per process: it keeps a toolbox per server set."""

    def __init__(self, world_seed: int) -> None:
        self.world_seed = world_seed
        self.boxes: dict[tuple[str, ...], Toolbox] = {}

    def __call__(self, job: tuple[str, list[str], bool]) -> tuple[str | None, str | None]:
        task_json, checks, writes = job
        task = Task.model_validate_json(task_json)
        key = tuple(task.servers)
        if key not in self.boxes:
            self.boxes[key] = Toolbox(list(key), self.world_seed)
        box = self.boxes[key]
        run = execute_task(task, box)
        again = execute_task(task, box)
        reason = validate(checks, writes, run, again)
        if reason is not None:
            return reason, None
        return None, complete_from_run(task, run).model_dump_json()


_WORKER: Validator | None = None


def _start_worker(world_seed: int) -> None:
    global _WORKER
    _WORKER = Validator(world_seed)


def _work(job: tuple[str, list[str], bool]) -> tuple[str | None, str | None]:
    assert _WORKER is not None
    return _WORKER(job)


def synthesize(
    servers: Sequence[str],
    n: int,
    seed: int = 0,
    world_seed: int = 0,
    families: Sequence[Family] | None = None,
    max_attempts: int | None = None,
    progress: bool = False,
    workers: int = 1,
) -> tuple[list[Task], SynthReport]:
    """Up to `n` validated tasks over `servers`, families drawn by kind (`kind_weights`).

    Drafts are made in batches of `BATCH` in this process and validated by `workers`
    processes; the tasks are the same for any number of workers.
    """
    chosen = list(families) if families is not None else families_for(servers)
    if not chosen:
        raise ValueError(f"no task family covers servers {list(servers)}")
    rng = random.Random(f"mcpgym-synth:{seed}")
    needed = sorted({s for f in chosen for s in f.servers})
    view = WorldView(tuple(needed), world_seed)
    report = SynthReport()
    tasks: list[Task] = []
    seen: set[tuple[str, str]] = set()
    attempts = 0
    limit = max_attempts if max_attempts is not None else 20 * n + 100
    weights = kind_weights(chosen)
    kept_kinds: Counter[str] = Counter()
    pool = _pool(workers, world_seed)
    check = partial(pool.map, _work) if pool is not None else partial(map, Validator(world_seed))
    bar = _progress(n, progress)
    try:
        while len(tasks) < n and attempts < limit:
            batch: list[tuple[Family, Draft, Task]] = []
            while len(batch) < BATCH and attempts < limit:
                family = pick_family(chosen, weights, kept_kinds, rng)
                attempts += 1
                try:
                    draft = family.draft(view, rng)
                except SamplingError:
                    draft = None
                if draft is None:
                    report.rejected["nothing to ground"] += 1
                    continue
                if (draft.family, draft.key) in seen:
                    report.rejected["duplicate"] += 1
                    continue
                seen.add((draft.family, draft.key))
                split = split_of(draft.family, draft.key)
                batch.append((family, draft, Task.model_validate({
                    "id": f"{draft.family}-draft",
                    "servers": list(family.servers),
                    "seed": world_seed,
                    "turns": choose_wordings(draft, split, rng),
                    "tags": [f"family:{draft.family}", f"kind:{family.kind}", f"split:{split}"],
                })))
            jobs = [(task.model_dump_json(), draft.checks, draft.writes) for _, draft, task in batch]
            for (family, draft, _), (reason, done_json) in zip(batch, check(jobs)):
                if len(tasks) >= n:
                    break
                if reason is not None or done_json is None:
                    report.rejected[reason or "failed"] += 1
                    continue
                done = Task.model_validate_json(done_json)
                done = done.model_copy(update={"id": f"{draft.family}-{len(tasks):05d}"})
                tasks.append(done)
                kept_kinds[family.kind] += 1
                split = next(tag for tag in done.tags if tag.startswith("split:")).removeprefix("split:")
                report.kept[(draft.family, split, _bucket(done))] += 1
                bar.update(1)
    finally:
        bar.close()
        view.close()
        if pool is not None:
            pool.shutdown()
    return tasks, report


def _pool(workers: int, world_seed: int) -> ProcessPoolExecutor | None:
    """Worker processes for validation (forked where possible, so they share the built worlds)."""
    if workers <= 1:
        return None
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    return ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker, initargs=(world_seed,))


def _bucket(task: Task) -> str:
    calls = task.difficulty.calls if task.difficulty else len(task.calls)
    return "1-2 calls" if calls <= 2 else "3-4 calls" if calls <= 4 else "5-7 calls" if calls <= 7 else "8+ calls"


def _progress(total: int, enabled: bool) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        enabled = False
    if not enabled:
        return _Silent()
    return tqdm(total=total, desc="tasks", unit="task")


class _Silent:
    def update(self, n: int) -> None:
        return None

    def close(self) -> None:
        return None
