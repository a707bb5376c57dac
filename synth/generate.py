"""The synthesis loop: draft from families, execute on a fresh world, validate, complete.

A draft is kept only if every call succeeds, every fact has a value, the family's checks hold
(no tie behind an argmax, one match behind a lookup), writes change the state exactly when
the family says it writes, a second execution of a writing draft gives the same facts and
changes, and no earlier draft of the family grounded the same entities in the same world.
Same arguments, same tasks, byte for byte, for any number of worker processes.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import random
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from mcpgym.servers.toolbox import Toolbox
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
    families: Sequence[Family], weights: dict[str, float], kept: Counter[str], rng: random.Random,
    drawn: Counter[str] | None = None,
) -> Family:
    """A kind drawn in proportion to how far it is behind its share of the tasks kept so far
    (so kinds whose drafts are often rejected still reach their share), then a set of servers
    among those with families of that kind, uniformly (so a server with many families does not
    crowd out one with few), then, of their families, one of those drawn least so far (`drawn`:
    tasks kept plus drafts attempted, by family name), so that every family, and so every
    tool, gets its turn."""
    kinds = sorted(weights)
    total = sum(kept.values()) + 1
    behind = [max(weights[k] * total - kept[k], 0.05) for k in kinds]
    kind = rng.choices(kinds, behind)[0]
    of_kind = [f for f in families if f.kind == kind]
    servers = rng.choice(sorted({f.servers for f in of_kind}))
    candidates = [f for f in of_kind if f.servers == servers]
    drawn = drawn or Counter()
    least = min(drawn[f.name] for f in candidates)
    return rng.choice([f for f in candidates if drawn[f.name] == least])


@dataclass
class SynthReport:
    """What was kept and why the rest was not."""

    kept: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    """(family, split, difficulty bucket) -> tasks."""
    rejected: Counter[str] = field(default_factory=Counter)
    """reason -> drafts."""
    worlds: Counter[int] = field(default_factory=Counter)
    """world seed -> tasks kept from that world."""

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


def validate(checks: Sequence[str], writes: bool, run: Execution, again: Execution | None) -> str | None:
    """Why an executed draft must go, or None to keep it. `again` is a second execution of a
    writing draft (reads are deterministic: a kernel property, tested per server)."""
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
    if again is not None and (
        not all(same_value(a, b) for a, b in zip(run.facts, again.facts)) or run.changes != again.changes
    ):
        return "not reproducible"
    return None


BATCH = 32
"""Draft attempts per batch. A batch is drafted in one worker, from a random stream of its
own (the sampling seed and the batch's index)."""

ROUND = 8
"""Batches per round. The batches of a round see the same state (tasks kept per kind, keys
already drafted, families run dry), so they can run in any process in any order; fixed, so
the tasks do not depend on the number of workers."""

DRY_WINDOW, DRY_FRESH = 24, 2
"""A family has run dry in a world when fewer than DRY_FRESH of its last DRY_WINDOW drafts
there grounded something new; it sits out the rest of that world."""


def key_digest(family: str, key: str) -> int:
    """64 bits naming a family's grounded entities, for duplicate checks across processes."""
    return int.from_bytes(hashlib.blake2b(f"{family}|{key}".encode(), digest_size=8).digest(), "big")


@dataclass(frozen=True)
class DraftJob:
    """A batch to draft: its index (the random stream), the world, and the state of the round."""

    index: int
    world: int
    """World seed the batch samples from and its tasks run in."""
    attempts: int
    kept: dict[str, int]
    """Tasks kept so far per kind (steers which kinds are drawn)."""
    families: dict[str, int]
    """Tasks kept so far per family (steers which family of a kind is drawn)."""
    active: tuple[str, ...]
    """Families that have not run dry in this world."""
    seen: frozenset[int]
    """`key_digest`s already drafted in this world."""


@dataclass
class Drafted:
    """One draft attempt: a candidate task (`reason` None) or why there is none."""

    family: str
    kind: str
    reason: str | None
    digest: int = 0
    task: Task | None = None
    checks: list[str] = field(default_factory=list)
    writes: bool = False


@dataclass(frozen=True)
class ValidateJob:
    """Candidates of one batch to execute and validate in `world`."""

    world: int
    candidates: list[Drafted]


class BatchWorker:
    """Drafts and validates batches. One per process; it keeps the current world open: a
    read-only view to sample from, and a toolbox to execute candidates on."""

    def __init__(self, families: Sequence[Family], seed: int) -> None:
        self.families = list(families)
        self.weights = kind_weights(self.families)
        self.seed = seed
        self.servers = tuple(sorted({s for f in self.families for s in f.servers}))
        self.world: int | None = None
        self.view: WorldView | None = None
        self.box: Toolbox | None = None

    def enter(self, world: int) -> tuple[WorldView, Toolbox]:
        """The view and toolbox of `world`, built on first use (the previous world's closed)."""
        if self.world != world or self.view is None or self.box is None:
            self.close()
            self.view = WorldView(self.servers, world)
            self.box = Toolbox(list(self.servers), world)
            self.world = world
        return self.view, self.box

    def __call__(self, job: DraftJob | ValidateJob) -> list[Drafted] | list[tuple[str | None, Task | None]]:
        return self.draft(job) if isinstance(job, DraftJob) else self.validate(job)

    def draft(self, job: DraftJob) -> list[Drafted]:
        """Draft `job.attempts` candidates; duplicates of `job.seen` or of each other are marked."""
        view, _ = self.enter(job.world)
        rng = random.Random(f"mcpgym-synth:{self.seed}:{job.index}")
        active = [f for f in self.families if f.name in job.active]
        weights = {k: w for k, w in self.weights.items() if any(f.kind == k for f in active)}
        kept, seen, drawn = Counter(job.kept), set(job.seen), Counter(job.families)
        out = []
        for _ in range(job.attempts):
            family = pick_family(active, weights, kept, rng, drawn)
            drawn[family.name] += 1
            try:
                draft = family.draft(view, rng)
            except SamplingError:
                draft = None
            if draft is None:
                out.append(Drafted(family.name, family.kind, "nothing to ground"))
                continue
            digest = key_digest(draft.family, draft.key)
            if digest in seen:
                out.append(Drafted(family.name, family.kind, "duplicate"))
                continue
            seen.add(digest)
            split = split_of(draft.family, draft.key)
            task = Task.model_validate({
                "id": f"{draft.family}-draft",
                "servers": list(draft.servers or family.servers),
                "seed": job.world,
                "turns": choose_wordings(draft, split, rng),
                "tags": [f"family:{draft.family}", f"kind:{family.kind}", f"split:{split}",
                         *(f"known:{parameter}" for parameter in draft.known)],
            })
            out.append(Drafted(family.name, family.kind, None, digest, task, draft.checks, draft.writes))
        return out

    def validate(self, job: ValidateJob) -> list[tuple[str | None, Task | None]]:
        """Per candidate: why it must go, or the completed task. A writing candidate runs twice."""
        _, box = self.enter(job.world)
        out: list[tuple[str | None, Task | None]] = []
        for candidate in job.candidates:
            assert candidate.task is not None
            run = execute_task(candidate.task, box)
            again = execute_task(candidate.task, box) if candidate.writes else None
            reason = validate(candidate.checks, candidate.writes, run, again)
            out.append((reason, None) if reason is not None else (None, complete_from_run(candidate.task, run)))
        return out

    def close(self) -> None:
        for part in (self.view, self.box):
            if part is not None:
                part.close()
        self.view = self.box = None
        self.world = None


_WORKER: BatchWorker | None = None
"""This process's worker, in worker processes (set once by `_start_worker`)."""


def _start_worker(families: Sequence[Family], seed: int) -> None:
    global _WORKER
    _WORKER = BatchWorker(families, seed)


def _work(job: DraftJob | ValidateJob) -> list[Drafted] | list[tuple[str | None, Task | None]]:
    assert _WORKER is not None
    return _WORKER(job)


@dataclass
class WorldState:
    """The current world of a run: what was drafted in it and which families ran dry."""

    seed: int
    seen: set[int] = field(default_factory=set)
    recent: dict[str, deque[bool]] = field(default_factory=dict)
    """Per family, whether each of its latest drafts grounded something new."""
    dry: set[str] = field(default_factory=set)
    kept: int = 0

    def note(self, family: str, new: bool) -> None:
        window = self.recent.setdefault(family, deque(maxlen=DRY_WINDOW))
        window.append(new)
        if len(window) == DRY_WINDOW and sum(window) < DRY_FRESH:
            self.dry.add(family)

    def spent(self, families: Sequence[Family]) -> bool:
        """Whether some kind has nothing new left here (all its families ran dry)."""
        kinds = {f.kind for f in families}
        return any(all(f.name in self.dry for f in families if f.kind == kind) for kind in kinds)


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

    Tasks come from the world of `world_seed` until some kind of task has nothing new left
    there (every family of the kind ran dry), then from the next world seed, and so on.
    Work goes in rounds of `ROUND` batches of `BATCH` draft attempts: `workers` processes
    draft the batches, this process drops duplicates, the workers validate the rest. The
    tasks are the same for any number of workers.
    """
    chosen = list(families) if families is not None else families_for(servers)
    if not chosen:
        raise ValueError(f"no task family covers servers {list(servers)}")
    report = SynthReport()
    tasks: list[Task] = []
    attempts, batches = 0, 0
    limit = max_attempts if max_attempts is not None else 20 * n + 100
    kept_kinds: Counter[str] = Counter()
    kept_families: Counter[str] = Counter()
    trained: set[str] = set()
    """Families with a task in the train split: a family's test tasks wait for its first."""
    world = WorldState(world_seed)
    pool = _pool(workers, chosen, seed)
    local = BatchWorker(chosen, seed) if pool is None else None
    run: Callable[[list[Any]], Iterable[Any]] = partial(pool.map, _work) if pool is not None else partial(map, local)
    bar = _progress(n, progress)
    try:
        while len(tasks) < n and attempts < limit:
            if world.spent(chosen):
                if world.kept == 0:
                    break
                world = WorldState(world.seed + 1)
            active = tuple(f.name for f in chosen if f.name not in world.dry)
            jobs: list[DraftJob] = []
            wanted = min(ROUND, -(-2 * (n - len(tasks)) // BATCH))
            while len(jobs) < wanted and attempts < limit:
                size = min(BATCH, limit - attempts)
                jobs.append(DraftJob(batches, world.seed, size, dict(kept_kinds), dict(kept_families), active,
                                     frozenset(world.seen)))
                batches += 1
                attempts += size
            drafted: list[list[Drafted]] = list(run(jobs))
            for batch in drafted:
                for item in batch:
                    if item.reason is None and item.digest in world.seen:
                        item.reason = "duplicate"
                    elif item.reason is None:
                        world.seen.add(item.digest)
                    world.note(item.family, item.reason is None)
                    if item.reason is not None:
                        report.rejected[item.reason] += 1
            checks = [ValidateJob(world.seed, [d for d in batch if d.reason is None]) for batch in drafted]
            checks = [job for job in checks if job.candidates]
            for job, results in zip(checks, run(checks)):
                for candidate, (reason, done) in zip(job.candidates, results):
                    if reason is not None or done is None:
                        report.rejected[reason or "failed"] += 1
                        continue
                    if len(tasks) >= n:
                        continue
                    split = next(tag for tag in done.tags if tag.startswith("split:")).removeprefix("split:")
                    if split == "test" and candidate.family not in trained:
                        report.rejected["test before train"] += 1
                        continue
                    trained.add(candidate.family)
                    done = done.model_copy(update={"id": f"{candidate.family}-{len(tasks):05d}"})
                    tasks.append(done)
                    kept_kinds[candidate.kind] += 1
                    kept_families[candidate.family] += 1
                    world.kept += 1
                    report.worlds[world.seed] += 1
                    report.kept[(candidate.family, split, _bucket(done))] += 1
                    bar.update(1)
    finally:
        bar.close()
        if local is not None:
            local.close()
        if pool is not None:
            pool.shutdown()
    return tasks, report


def _pool(workers: int, families: Sequence[Family], seed: int) -> ProcessPoolExecutor | None:
    """Worker processes for drafting and validation (forked where possible)."""
    if workers <= 1:
        return None
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    return ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker, initargs=(list(families), seed))


def _bucket(task: Task) -> str:
    calls = task.difficulty.calls if task.difficulty else len(task.calls)
    return "1-2 calls" if calls <= 2 else "3-4 calls" if calls <= 4 else "5-7 calls" if calls <= 7 else "8+ calls"


def _progress(total: int, enabled: bool) -> Any:
    from mcpgym.progress import progress_bar

    return progress_bar(total, desc="tasks", unit="task", enabled=enabled)
