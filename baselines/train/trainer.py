"""The GRPO loop: rollouts against the environments, group-relative advantages, clipped updates.

Each step:
1. pick `tasks_per_step` training tasks (seeded by the run seed and the step) and play
   `group_size` episodes of each, turn by turn (`episodes.play`);
2. advantages within each task's group (`grpo.group_advantages`), per episode, or per turn
   with `objective.advantage` `turn` or `hybrid` (`credit`);
3. log-probabilities of the sampled tokens under the policy before the update (`old`) and
   under the reference (when `beta > 0`);
4. `mu` optimizer updates over the batch, in micro-batches whose gradients add up to the
   batch's, with the gradient norm clipped;
5. every `ref_refresh_steps` steps the reference becomes a copy of the policy.

Every random choice of a step is seeded from (run seed, step), so a run resumed from a
checkpoint replays the same next step as the run that wrote it.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import shutil
import statistics
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from mcpgym.baselines.evaluate import TRAJECTORIES, write_summary
from mcpgym.baselines.integrations.cards import write_model_card
from mcpgym.baselines.metrics import THRESHOLDS, summarize
from mcpgym.baselines.remote_envs import RemoteEnvs
from mcpgym.baselines.train.chat import TokenSequence
from mcpgym.baselines.train.config import TrainConfig
from mcpgym.baselines.train.credit import (
    ENV_SHAPING,
    TurnRewardFn,
    calibrate,
    combine_advantages,
    episode_turn_rewards,
    resolve_turn_reward,
    token_advantages,
    turn_advantages,
)
from mcpgym.baselines.train.decoding import StaticDecoder
from mcpgym.baselines.train.episodes import Episode, play
from mcpgym.baselines.train.generation import Generator, Sampling, TransformersGenerator, VllmGenerator
from mcpgym.baselines.train.grpo import group_advantages, grpo_loss, importance_weights, sequence_logprobs
from mcpgym.baselines.train.policy import Policy, load_policy
from mcpgym.baselines.train.run_log import MetricsLog
from mcpgym.baselines.train.task_sets import select_tasks
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.tasks.model import Task

CHECKPOINTS = "checkpoints"
LATEST = "latest"


class ReferenceWeights:
    """The reference policy as a copy of the trainable parameters, swapped in when needed.

    With LoRA only the adapters are copied (the frozen base is shared); with full
    fine-tuning, every parameter."""

    def __init__(self, model: torch.nn.Module) -> None:
        self.weights: dict[str, torch.Tensor] = {}
        self.refresh(model)

    def refresh(self, model: torch.nn.Module) -> None:
        self.weights = {n: p.detach().clone() for n, p in model.named_parameters() if p.requires_grad}

    @contextlib.contextmanager
    def applied(self, model: torch.nn.Module) -> Iterator[None]:
        """Inside the block the model computes with the reference weights; the tensors are
        swapped, not copied, so no third copy of the weights is made."""
        params = dict(model.named_parameters())

        def swap() -> None:
            for name in self.weights:
                params[name].data, self.weights[name] = self.weights[name], params[name].data

        swap()
        try:
            yield
        finally:
            swap()


@dataclass
class Batch:
    """Right-padded sequences of a micro-batch, with the mask of the tokens that count."""

    ids: torch.Tensor
    attention: torch.Tensor
    mask: torch.Tensor
    """[batch, length - 1]: 1 where token t + 1 was sampled by the model and counts."""
    advantages: torch.Tensor
    """[batch] (one per episode) or [batch, length - 1] (one per token, aligned with `mask`)."""
    sampler_logp: torch.Tensor | None = None
    """[batch, length - 1]: the sampler's log-probability of token t + 1, NaN where not known;
    None when no sequence of the batch has them (or they were not asked for)."""


def collate(
    sequences: list[TokenSequence], advantages: Sequence[float | list[float]], pad_id: int, device: torch.device,
    sampler_logprobs: bool = False,
) -> Batch:
    """Right-pad `sequences` into one batch on `device`. `advantages`: one per sequence, or
    (all of them) one list per sequence with one per token; `sampler_logprobs`: carry the sampler's."""
    width = max(len(s) for s in sequences)
    ids = torch.full((len(sequences), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(sequences), width), dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.float32)
    per_token = bool(advantages) and isinstance(advantages[0], list)
    token_adv = torch.zeros((len(sequences), width), dtype=torch.float32) if per_token else None
    logp = torch.full((len(sequences), width), float("nan"), dtype=torch.float32) if sampler_logprobs else None
    for row, sequence in enumerate(sequences):
        n = len(sequence)
        ids[row, :n] = torch.tensor(sequence.ids)
        attention[row, :n] = 1
        mask[row, :n] = torch.tensor(sequence.mask, dtype=torch.float32)
        if token_adv is not None:
            token_adv[row, :n] = torch.tensor(advantages[row], dtype=torch.float32)  # type: ignore[arg-type]
        if logp is not None and sequence.logprobs:
            logp[row, :n] = torch.tensor(sequence.logprobs, dtype=torch.float32)
    known = logp is not None and not bool(torch.isnan(logp).all())
    return Batch(
        ids=ids.to(device),
        attention=attention.to(device),
        mask=mask[:, 1:].to(device),
        advantages=(token_adv[:, 1:] if token_adv is not None else torch.tensor(advantages, dtype=torch.float32)).to(device),
        sampler_logp=logp[:, 1:].to(device) if known and logp is not None else None,
    )


def warmup_schedule(optimizer: torch.optim.Optimizer, warmup_steps: int) -> torch.optim.lr_scheduler.LambdaLR:
    """Linear warm-up over `warmup_steps` optimizer steps, then the constant learning rate."""
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda n: min(1.0, (n + 1) / warmup_steps) if warmup_steps > 0 else 1.0)


def step_seed(seed: int, step: int) -> int:
    return (seed * 1_000_003 + step) % (2**31)


class GrpoTrainer:
    """`GrpoTrainer(config).train()`: the whole run, resumable from its latest checkpoint."""

    def __init__(self, config: TrainConfig, policy: Policy | None = None) -> None:
        self.config = config
        self.out = Path(config.out)
        self.out.mkdir(parents=True, exist_ok=True)
        torch.manual_seed(config.seed)
        self.train_tasks = select_tasks(config.tasks, "train", config.seed)
        self.test_tasks = select_tasks(config.tasks, "test", config.seed)
        if not self.train_tasks:
            raise ValueError(f"no training tasks for servers {config.tasks.servers} in {config.tasks.train!r}")
        self.policy = policy or load_policy(config.model, build_tasks=self.train_tasks, seed=config.seed)
        model = self.policy.model
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(
            self.params, lr=config.optim.lr, betas=config.optim.betas, weight_decay=config.optim.weight_decay
        )
        self.scheduler = warmup_schedule(self.optimizer, config.optim.warmup_steps)
        self.reference = ReferenceWeights(model) if config.objective.beta > 0 else None
        self.generator = self._generator()
        rollout, objective = config.rollout, config.objective
        self.turn_reward: TurnRewardFn | None = (
            resolve_turn_reward(objective.turn_reward) if objective.advantage != "outcome" else None
        )
        env_kwargs = {"tasks": self.train_tasks, "reward": config.tasks.reward, **config.env_options()}
        if objective.advantage != "outcome" and objective.turn_reward in ENV_SHAPING:
            env_kwargs["shaping"] = ENV_SHAPING[objective.turn_reward]  # the env pays each turn's increase of the score
        count = rollout.tasks_per_step * rollout.group_size
        self.remote_envs = (
            RemoteEnvs(config.tasks.servers, env_kwargs, count, rollout.env_workers, rollout.env_backend)
            if rollout.env_workers else None
        )
        self.envs: list[McpEnv] = (
            self.remote_envs.envs if self.remote_envs else [make_env(config.tasks.servers, **env_kwargs) for _ in range(count)]
        )  # type: ignore[assignment]
        self.step = 0
        self.last_eval: tuple[int, dict[str, Any]] | None = None
        """The step and metrics of the latest held-out evaluation (for the model card)."""
        latest = self.out / CHECKPOINTS / LATEST
        if config.resume and latest.exists():
            self.load(self.out / CHECKPOINTS / latest.read_text().strip())
        self.log = MetricsLog(self.out, tensorboard=config.tensorboard, resume_from_step=self.step)
        (self.out / "config.json").write_text(config.model_dump_json(indent=2), encoding="utf-8")

    def _generator(self) -> Generator:
        tokenizer, rollout = self.policy.tokenizer, self.config.rollout
        record = self.config.objective.is_correction  # the sampler's log-probabilities, for the correction
        if rollout.backend == "vllm":
            return VllmGenerator(
                self.config.model.path, self.policy.chat.eos_id, gpu_memory_utilization=rollout.vllm_gpu_memory_utilization,
                max_model_len=rollout.vllm_max_model_len or rollout.max_total_tokens, seed=self.config.seed,
                record_logprobs=record,
            )
        if rollout.backend == "static":
            return StaticDecoder(self.policy.model, self.policy.chat.eos_id, tokenizer.pad_token_id, rollout.generation_batch_size)
        return TransformersGenerator(
            self.policy.model, self.policy.chat.eos_id, tokenizer.pad_token_id, rollout.generation_batch_size,
            record_logprobs=record,
        )

    # ------------------------------------------------------------------ the loop

    def train(self) -> dict[str, Any]:
        """Run from the current step to `config.steps` (or until `config.time_limit_s` has
        passed: then the run stops at a checkpoint and the next one resumes there); returns
        the last step's metrics."""
        config = self.config
        metrics: dict[str, Any] = {}
        evaluated = -1
        deadline = None if config.time_limit_s is None else time.monotonic() + config.time_limit_s
        try:
            if config.eval_every and self.step == 0 and self.test_tasks:
                self.evaluate()
                evaluated = 0
            while self.step < config.steps:
                metrics = self.train_step()
                out_of_time = deadline is not None and time.monotonic() >= deadline and self.step < config.steps
                if self.step % config.save_every == 0 or self.step == config.steps or out_of_time:
                    self.save()
                if config.eval_every and self.step % config.eval_every == 0 and self.test_tasks:
                    self.evaluate()
                    evaluated = self.step
                if out_of_time:
                    return metrics
            if metrics and self.test_tasks and evaluated != self.step:
                self.evaluate()
        finally:
            self.log.close()
        return metrics

    def rollout(self, tasks: list[Task], sampling: Sampling, seed: int, group_size: int | None = None) -> list[Episode]:
        """`group_size` episodes of each task (default: the config's; one when greedy), in
        waves as wide as the env pool."""
        if group_size is None:
            group_size = self.config.rollout.group_size if not sampling.greedy else 1
        jobs = [(task, g) for g, task in enumerate(tasks) for _ in range(group_size)]
        episodes: list[Episode] = []
        for start in range(0, len(jobs), len(self.envs)):
            wave = jobs[start : start + len(self.envs)]
            episodes += play(
                self.envs[: len(wave)],
                [t for t, _ in wave],
                [g for _, g in wave],
                self.generator,
                self.policy.chat,
                sampling,
                self.config.rollout.max_new_tokens,
                self.config.rollout.max_total_tokens,
                seed=seed,
            )
        return episodes

    def pick_tasks(self, step: int) -> list[Task]:
        rng = np.random.default_rng([self.config.seed, step])
        n = self.config.rollout.tasks_per_step
        picks = rng.choice(len(self.train_tasks), size=n, replace=len(self.train_tasks) < n)
        return [self.train_tasks[int(i)] for i in picks]

    def train_step(self) -> dict[str, Any]:
        """One rollout batch and its `mu` updates; returns (and logs) the step's metrics."""
        config, rollout = self.config, self.config.rollout
        seed = step_seed(config.seed, self.step)
        torch.manual_seed(seed)
        random.seed(seed)
        started = time.perf_counter()
        episodes = self.rollout(self.pick_tasks(self.step), Sampling(rollout.temperature, rollout.top_p), seed)
        rolled = time.perf_counter()
        update = self.update(episodes)
        finished = time.perf_counter()
        self.step += 1
        if self.reference is not None and config.objective.ref_refresh_steps and self.step % config.objective.ref_refresh_steps == 0:
            self.reference.refresh(self.policy.model)
            update["reference_refreshed"] = True
        self.generator.sync(self.policy.model)
        generated = sum(e.completion_tokens for e in episodes)
        metrics = {
            **episode_metrics(episodes),
            **update,
            "lr": self.scheduler.get_last_lr()[0],
            "time/rollout": rolled - started,
            "time/update": finished - rolled,
            "tokens_per_s/rollout": generated / max(rolled - started, 1e-9),
            "tokens_per_s/update": update.get("update_tokens", 0) * config.objective.mu / max(finished - rolled, 1e-9),
        }
        self.log.write(self.step, "train", metrics)
        return metrics

    def turn_rewards(self, episodes: list[Episode]) -> list[list[float]] | None:
        """Each episode's per-turn rewards (`objective.turn_reward`); None with `outcome`."""
        if self.config.objective.advantage == "outcome":
            return None
        return [episode_turn_rewards(e, self.turn_reward) for e in episodes]

    def advantages(
        self, episodes: list[Episode], turn_rewards: list[list[float]] | None = None
    ) -> Sequence[float | list[float]]:
        """One advantage per episode (`outcome`), or, with `turn` and `hybrid`, one per token of
        each episode: its turn's (0 on tokens the model did not sample). `turn_rewards`: those
        of `self.turn_rewards(episodes)`, when already read."""
        objective = self.config.objective
        rewards = torch.tensor([e.reward for e in episodes])
        groups = torch.tensor([e.group for e in episodes])
        outcome = group_advantages(rewards, groups, objective.scale_by_std).tolist()
        if objective.advantage == "outcome":
            return outcome
        if turn_rewards is None:
            turn_rewards = self.turn_rewards(episodes)
            assert turn_rewards is not None
        per_turn = combine_advantages(
            objective.advantage, outcome, turn_advantages(turn_rewards, groups.tolist(), objective.scale_by_std), objective.turn_weight
        )
        return [token_advantages(e.tokens.turn, turns) for e, turns in zip(episodes, per_turn, strict=True)]

    def update(self, episodes: list[Episode]) -> dict[str, Any]:
        """The `mu` optimizer updates of one rollout batch."""
        objective, optim = self.config.objective, self.config.optim
        model, device = self.policy.model, self.policy.device
        turn_rewards = self.turn_rewards(episodes)
        advantages = self.advantages(episodes, turn_rewards)
        counted: list[list[float]] = [
            [a for a, m in zip(adv, e.tokens.mask, strict=True) if m] if isinstance(adv, list) else [adv]
            for adv, e in zip(advantages, episodes, strict=True)
        ]  # the advantages that reach the loss, per episode
        keep = [
            i
            for i, e in enumerate(episodes)
            if not (objective.mask_truncated and e.overlong) and e.completion_tokens > 0
            and (any(a != 0 for a in counted[i]) or objective.beta > 0)
        ]
        stats: dict[str, Any] = {
            "advantage_abs_mean": statistics.fmean(abs(a) for values in counted for a in values) if any(counted) else 0.0,
            "trained_episodes": len(keep),
        }
        if turn_rewards is not None:  # the calibration check, on the policy's own episodes
            calibration = calibrate(
                [e.reward for e in episodes], [e.group for e in episodes], turn_rewards, objective.scale_by_std
            )
            stats["turn_sign_agreement"] = None if math.isnan(calibration.share) else calibration.share
            stats["turn_rank_correlation"] = None if math.isnan(calibration.rank_correlation) else calibration.rank_correlation
        if not keep:
            return stats | {"skipped_update": True}
        size = optim.micro_batch_size
        chunks = [keep[i : i + size] for i in range(0, len(keep), size)]
        pad_id = self.policy.tokenizer.pad_token_id
        batches = [
            collate([episodes[i].tokens for i in chunk], [advantages[i] for i in chunk], pad_id, device,
                    sampler_logprobs=objective.is_correction)
            for chunk in chunks
        ]
        temperature = self.config.rollout.temperature
        tokens = int(sum(b.mask.sum().item() for b in batches))
        normalizer = float(tokens) if objective.loss_aggregation == "token-mean" else float(len(keep))
        old: list[torch.Tensor | None] = [None] * len(batches)
        ref: list[torch.Tensor | None] = [None] * len(batches)
        with torch.no_grad():
            if objective.mu > 1:
                old = [sequence_logprobs(model, b.ids, b.attention, temperature, mask=b.mask) for b in batches]
            if self.reference is not None:
                with self.reference.applied(model):
                    ref = [sequence_logprobs(model, b.ids, b.attention, temperature, mask=b.mask) for b in batches]
        totals: dict[str, list[float]] = defaultdict(list)
        for _ in range(objective.mu):
            self.optimizer.zero_grad(set_to_none=True)
            for batch, old_logp, ref_logp in zip(batches, old, ref, strict=True):
                logp = sequence_logprobs(model, batch.ids, batch.attention, temperature, mask=batch.mask)
                old_used = logp.detach() if old_logp is None else old_logp
                weights = None if batch.sampler_logp is None else importance_weights(old_used, batch.sampler_logp, objective.is_cap)
                parts = grpo_loss(
                    logp,
                    old_used,
                    batch.advantages,
                    batch.mask,
                    ref_logp=ref_logp,
                    beta=objective.beta,
                    clip_low=objective.clip_low,
                    clip_high=objective.clip_high,
                    aggregation=objective.loss_aggregation,
                    normalizer=normalizer,
                    is_weights=weights,
                    is_cap=objective.is_cap,
                )
                parts.loss.backward()
                weight = parts.tokens / max(tokens, 1)
                totals["loss"].append(parts.loss.item())
                totals["kl"].append(parts.kl * weight)
                totals["clip_fraction"].append(parts.clip_fraction * weight)
                totals["ratio_mean"].append(parts.ratio_mean * weight)
                totals["is_weight_mean"].append(parts.is_weight_mean * weight)
                totals["is_truncated"].append(parts.is_truncated * weight)
            grad_norm = torch.nn.utils.clip_grad_norm_(self.params, optim.grad_clip)
            totals["grad_norm"].append(float(grad_norm))
            self.optimizer.step()
            self.scheduler.step()
        mu = objective.mu
        if objective.is_correction:
            stats |= {"is_weight_mean": sum(totals["is_weight_mean"]) / mu, "is_truncated": sum(totals["is_truncated"]) / mu}
        return stats | {
            "loss": sum(totals["loss"]) / mu,
            "kl": sum(totals["kl"]) / mu,
            "clip_fraction": sum(totals["clip_fraction"]) / mu,
            "ratio_mean": sum(totals["ratio_mean"]) / mu,
            "grad_norm": statistics.fmean(totals["grad_norm"]),
            "update_tokens": tokens,
        }

    # ------------------------------------------------------------------ evaluation

    def evaluate(self, tasks: list[Task] | None = None) -> dict[str, Any]:
        """Episodes on the held-out tasks (greedy, or `eval_samples` sampled ones per task),
        summarized by the eval harness into `out/eval/step-N/` and logged as `eval` metrics."""
        tasks = self.test_tasks if tasks is None else tasks
        started = time.perf_counter()
        samples, rollout = self.config.eval_samples, self.config.rollout
        if samples:
            sampling = Sampling(rollout.temperature, rollout.top_p)
            episodes = self.rollout(tasks, sampling, seed=self.config.seed, group_size=samples)
            records = [e.record(seed=self.config.seed, episode=i % samples) for i, e in enumerate(episodes)]
        else:
            episodes = self.rollout(tasks, Sampling(greedy=True), seed=self.config.seed)
            records = [e.record(seed=self.config.seed) for e in episodes]
        folder = self.out / "eval" / f"step-{self.step:06d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / TRAJECTORIES).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        summary = write_summary(records, folder, plots=False)
        overall = summary["overall"]
        metrics = {
            "mean_reward": overall["mean_reward"],
            **{f"pass@{t}": overall["pass_rate"][str(t)] for t in THRESHOLDS},
            "finish_rate": overall["finish_rate"],
            "calls_per_episode": overall["calls_per_episode"],
            "well_formed_rate": well_formed_rate(episodes),
            **{f"component/{k}": v for k, v in overall["components"].items()},
            "episodes": overall["episodes"],
            "time": time.perf_counter() - started,
        }
        self.log.write(self.step, "eval", metrics)
        self.last_eval = (self.step, metrics)
        return summary

    # ------------------------------------------------------------------ checkpoints

    def save(self) -> Path:
        """`out/checkpoints/step-N/`: the model (loadable by `from_pretrained`) with its model
        card (`model/README.md`), and the trainer state (trainable weights, optimizer, scheduler, reference, step)."""
        root = self.out / CHECKPOINTS
        folder = root / f"step-{self.step:06d}"
        folder.mkdir(parents=True, exist_ok=True)
        self.policy.model.save_pretrained(folder / "model")
        self.policy.tokenizer.save_pretrained(folder / "model")
        eval_step, eval_metrics = self.last_eval if self.last_eval is not None else (None, None)
        write_model_card(folder / "model", self.config, self.step, eval_metrics, eval_step)
        torch.save(
            {
                "step": self.step,
                "trainable": {n: p.detach().cpu() for n, p in self.policy.model.named_parameters() if p.requires_grad},
                "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict(),
                "reference": None if self.reference is None else {n: t.cpu() for n, t in self.reference.weights.items()},
            },
            folder / "trainer_state.pt",
        )
        (folder / "config.json").write_text(self.config.model_dump_json(indent=2), encoding="utf-8")
        (root / LATEST).write_text(folder.name)
        for old in sorted(root.glob("step-*"))[: -self.config.keep_checkpoints]:
            shutil.rmtree(old)
        return folder

    def load(self, folder: Path) -> None:
        """Restore the state `save` wrote; the next step is the one the saved run took next."""
        state = torch.load(folder / "trainer_state.pt", map_location=self.policy.device, weights_only=True)
        params = dict(self.policy.model.named_parameters())
        with torch.no_grad():
            for name, tensor in state["trainable"].items():
                params[name].copy_(tensor)
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        if self.reference is not None and state["reference"] is not None:
            self.reference.weights = {n: t.to(self.policy.device) for n, t in state["reference"].items()}
        self.step = int(state["step"])
        self.generator.sync(self.policy.model)


def well_formed_rate(episodes: Sequence[Episode]) -> float:
    """The share of episodes that made at least one tool call and whose every call was well
    formed: parsed, of an exposed tool, with arguments that pass its schema (no invalid call;
    a call the tool refused, a wrong id say, is well formed)."""
    if not episodes:
        return 0.0
    return sum(e.calls > 0 and e.invalid_calls == 0 for e in episodes) / len(episodes)


def episode_metrics(episodes: list[Episode]) -> dict[str, Any]:
    """Means over a batch of episodes: the eval harness's summary (reward and its components,
    pass and finish rates, calls, invalid calls) plus what only training needs."""
    summary = summarize([e.record() for e in episodes])
    n = len(episodes)
    groups: dict[int, list[float]] = defaultdict(list)
    for episode in episodes:
        groups[episode.group].append(episode.reward)
    return {
        "reward_mean": summary["mean_reward"],
        "reward_std": statistics.pstdev(e.reward for e in episodes),
        **{f"reward/{name}": value for name, value in summary["components"].items()},
        "pass_rate": summary["pass_rate"]["1.0"],
        "finish_rate": summary["finish_rate"],
        "overlong_rate": sum(e.overlong for e in episodes) / n,
        "zero_variance_groups": sum(max(g) == min(g) for g in groups.values()) / len(groups),
        "calls_per_episode": summary["calls_per_episode"],
        "turns_per_episode": sum(e.turns for e in episodes) / n,
        "invalid_call_rate": summary["invalid_call_rate"],
        "well_formed_rate": well_formed_rate(episodes),
        "completion_tokens": sum(e.completion_tokens for e in episodes) / n,
        "episode_tokens": sum(len(e.tokens) for e in episodes) / n,
    }


__all__ = ["GrpoTrainer", "ReferenceWeights", "collate", "episode_metrics", "step_seed", "well_formed_rate"]
