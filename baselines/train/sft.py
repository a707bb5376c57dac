"""Supervised warm start: the oracle's trajectories of the train tasks, learnt with the GRPO masking.

The oracle plays each training task through the environment; its turns are tokenized and
played through the same episode machinery as the policy's rollouts (`episodes.advance`), so
the sequences, and the mask that keeps the loss on the assistant's own tokens, are built
exactly as in GRPO. The loss is the mean negative log-likelihood of those tokens. The result
is saved as a model folder that `model.path` of a GRPO config can point at.
"""

from __future__ import annotations

import logging
import random
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from mcpgym.baselines.agents import OracleAgent
from mcpgym.baselines.metrics import SUCCESS
from mcpgym.baselines.train.chat import ChatFormat, TokenSequence
from mcpgym.baselines.train.config import TrainConfig
from mcpgym.baselines.train.episodes import advance, start
from mcpgym.baselines.train.grpo import sequence_logprobs
from mcpgym.baselines.train.policy import Policy, load_policy
from mcpgym.baselines.train.run_log import MetricsLog
from mcpgym.baselines.train.task_sets import select_tasks
from mcpgym.baselines.train.trainer import collate, warmup_schedule
from mcpgym.envs import make_env
from mcpgym.tasks.model import Task

logger = logging.getLogger(__name__)


def oracle_sequences(
    tasks: Sequence[Task], servers: Sequence[str], chat: ChatFormat, max_total_tokens: int, **env_kwargs: Any,
) -> list[TokenSequence]:
    """The oracle's episode of each task as a token sequence with the assistant-token mask.
    Left out: episodes that do not fit in `max_total_tokens`, and episodes where the oracle
    could not read a result (cut by `max_result_chars`, say) and so scored below the maximum.
    (Turns longer than `max_new_tokens` are kept; `train_sft` warns about them.)"""
    env = make_env(list(servers), tasks=list(tasks), **env_kwargs)
    sequences = []
    try:
        for task in tasks:
            run = start(env, task, 0, chat, max_total_tokens)
            agent = OracleAgent()
            agent.reset(task, run.observation)
            while not run.done:
                action = agent.act(run.observation)
                turn = chat.encode(action) + [chat.eos_id]
                advance(run, turn, chat, max_total_tokens)
            if not run.episode.overlong and run.episode.reward >= SUCCESS:  # the oracle read every result
                sequences.append(run.episode.tokens)
    finally:
        env.close()
    return sequences


def longest_turn(sequence: TokenSequence) -> int:
    """The most tokens one assistant turn of `sequence` has (its end-of-turn token included)."""
    return max(Counter(turn for turn in sequence.turn if turn >= 0).values(), default=0)


def train_sft(config: TrainConfig, policy: Policy | None = None, out: str | Path | None = None) -> Path:
    """Fine-tune on the oracle's trajectories; returns the folder of the saved model."""
    sft, rollout = config.sft, config.rollout
    folder = Path(out) if out is not None else Path(config.out) / "sft"
    tasks = select_tasks(config.tasks, "train", config.seed)
    if sft.max_tasks is not None:
        tasks = tasks[: sft.max_tasks]
    policy = policy or load_policy(config.model, build_tasks=tasks, seed=config.seed)
    sequences = oracle_sequences(tasks, config.tasks.servers, policy.chat, rollout.max_total_tokens, **config.env_options())
    if not sequences:
        raise ValueError(
            f"no oracle trajectory fits in rollout.max_total_tokens={rollout.max_total_tokens}; raise it or pick other tasks"
        )
    longest = max(map(longest_turn, sequences))
    if longest > rollout.max_new_tokens:
        logger.warning(
            "SFT: the oracle's turns take up to %d tokens, more than rollout.max_new_tokens=%d: rollouts will cut "
            "such turns (overlong episodes); raise rollout.max_new_tokens to at least %d", longest, rollout.max_new_tokens, longest,
        )
    if len(sequences) < len(tasks):
        logger.warning("SFT: %d of %d oracle episodes left out (over max_total_tokens, or not solved)", len(tasks) - len(sequences), len(tasks))
    torch.manual_seed(config.seed)
    rng = random.Random(config.seed)
    model = policy.model
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=sft.lr, weight_decay=config.optim.weight_decay)
    scheduler = warmup_schedule(optimizer, sft.warmup_steps)
    log = MetricsLog(folder, tensorboard=config.tensorboard, resume_from_step=0)
    pad_id = policy.tokenizer.pad_token_id
    step = 0
    model.train()
    try:
        for epoch in range(sft.epochs):
            order = list(range(len(sequences)))
            rng.shuffle(order)
            for start_at in range(0, len(order), sft.batch_size):
                chosen = [sequences[i] for i in order[start_at : start_at + sft.batch_size]]
                started = time.perf_counter()
                batch = collate(chosen, [0.0] * len(chosen), pad_id, policy.device)
                logp = sequence_logprobs(model, batch.ids, batch.attention, mask=batch.mask)
                tokens = batch.mask.sum().clamp(min=1)
                loss = -(logp * batch.mask).sum() / tokens
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                grad_norm = torch.nn.utils.clip_grad_norm_(params, 1.0)
                lr = optimizer.param_groups[0]["lr"]
                optimizer.step()
                scheduler.step()
                step += 1
                log.write(
                    step,
                    "sft",
                    {
                        "loss": loss.item(),
                        "epoch": epoch,
                        "grad_norm": float(grad_norm),
                        "lr": lr,
                        "tokens": int(tokens.item()),
                        "time": time.perf_counter() - started,
                    },
                )
    finally:
        log.close()
    target = folder / "model"
    saved = model.merge_and_unload() if hasattr(model, "merge_and_unload") else model
    saved.save_pretrained(target)
    policy.tokenizer.save_pretrained(target)
    return target


__all__ = ["longest_turn", "oracle_sequences", "train_sft"]
