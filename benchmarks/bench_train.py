"""Trainer throughput on the CPU with a tiny model: rollouts and updates, time split by phase.

Builds a tiny model, then measures in one run:
- rollout: episodes of the Zendesk status tasks played by `episodes.play` (batched generation,
  tools, templating), against the baseline of `model.generate` alone on the same first-turn
  prompts, batch for batch;
- update: one GRPO update (old and reference log-probabilities, loss, backward, step) against
  the baseline of a bare forward and backward pass over the same tokens.

Prints a table; ratios are what to read (absolute times on shared machines are noise).

    python benchmarks/bench_train.py [--episodes 16] [--new-tokens 32]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import torch  # noqa: E402
from train_support import status_tasks, zendesk_ticket_ids  # noqa: E402

from mcpgym.baselines.train.config import load_config  # noqa: E402
from mcpgym.baselines.train.generation import Sampling, TimedGenerator  # noqa: E402
from mcpgym.baselines.train.tiny_model import build_model  # noqa: E402
from mcpgym.baselines.train.trainer import GrpoTrainer, collate  # noqa: E402
from mcpgym.tasks.loader import save_tasks  # noqa: E402




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=16, help="episodes per rollout batch (default 16)")
    parser.add_argument("--new-tokens", type=int, default=32, help="max new tokens per turn (default 32)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(max(1, torch.get_num_threads()))
    root = Path(tempfile.mkdtemp(prefix="bench-train-"))
    tasks = status_tasks(zendesk_ticket_ids(8))
    save_tasks(tasks, root / "tasks.jsonl")
    model = build_model(root / "model", size="tiny", tasks=tasks, vocab_size=1024)
    group = 4
    config = load_config(
        preset="tiny-cpu",
        overrides=[
            f"out={root / 'run'}",
            f"model.path={model}",
            f"tasks.train={root / 'tasks.jsonl'}",
            f"tasks.test={root / 'tasks.jsonl'}",
            "tasks.families=null",
            'tasks.tools=["get_ticket"]',
            f"rollout.tasks_per_step={args.episodes // group}",
            f"rollout.group_size={group}",
            f"rollout.max_new_tokens={args.new_tokens}",
            "rollout.max_turns=2",
            "rollout.max_result_chars=300",
            "objective.mask_truncated=false",
            "objective.beta=0.001",
            "objective.mu=1",
            f"optim.micro_batch_size={args.episodes}",
        ],
    )
    trainer = GrpoTrainer(config)
    timed = TimedGenerator(trainer.generator)
    trainer.generator = timed
    chat, policy = trainer.policy.chat, trainer.policy

    rows = []
    for _ in range(args.repeats):
        timed.seconds = 0.0
        started = time.perf_counter()
        episodes = trainer.rollout(trainer.pick_tasks(0), Sampling(), seed=0)
        rollout_s = time.perf_counter() - started
        generated = sum(e.completion_tokens for e in episodes)
        turns = sum(e.turns for e in episodes)

        # baseline: model.generate alone on the same first-turn prompts, same batch, same token count
        envs = trainer.envs[: len(episodes)]
        prompts = []
        for env, episode in zip(envs, episodes, strict=True):
            observation, _ = env.reset(options={"task": episode.task})
            prompts.append(chat.prompt(observation["messages"], observation["tools"]))
        width = max(map(len, prompts))
        ids = torch.full((len(prompts), width), policy.tokenizer.pad_token_id)
        attention = torch.zeros_like(ids)
        for row, prompt in enumerate(prompts):
            ids[row, width - len(prompt) :] = torch.tensor(prompt)
            attention[row, width - len(prompt) :] = 1
        started = time.perf_counter()
        with torch.no_grad():
            out = policy.model.generate(input_ids=ids, attention_mask=attention, max_new_tokens=args.new_tokens,
                                        min_new_tokens=args.new_tokens, do_sample=True, top_k=0, pad_token_id=policy.tokenizer.pad_token_id)
        bare_s = time.perf_counter() - started
        bare_tokens = (out.shape[1] - width) * len(prompts)

        started = time.perf_counter()
        update = trainer.update(episodes)
        update_s = time.perf_counter() - started
        batch = collate([e.tokens for e in episodes], [0.0] * len(episodes), policy.tokenizer.pad_token_id, policy.device)
        started = time.perf_counter()
        logits = policy.model(input_ids=batch.ids, attention_mask=batch.attention).logits
        logits.float().mean().backward()
        policy.model.zero_grad(set_to_none=True)
        bare_update_s = time.perf_counter() - started
        rows.append(
            {
                "episodes": len(episodes),
                "turns": turns,
                "generated": generated,
                "rollout_s": rollout_s,
                "generate_s": timed.seconds,
                "env_s": rollout_s - timed.seconds,
                "rollout_tok_s": generated / rollout_s,
                "bare_tok_s": bare_tokens / bare_s,
                "update_s": update_s,
                "bare_update_s": bare_update_s,
                "tokens": int(batch.attention.sum()),
                "trained": update.get("trained_episodes", 0),
            }
        )
    best = min(rows, key=lambda r: r["rollout_s"])
    fastest_update = min(rows, key=lambda r: r["update_s"])
    print(f"tiny model {sum(p.numel() for p in policy.model.parameters()):,} parameters, {torch.get_num_threads()} threads, best of {args.repeats}")
    print("| phase | seconds | share | tokens/s | baseline tokens/s | ratio |")
    print("|---|---|---|---|---|---|")
    print(f"| rollout ({best['episodes']} episodes, {best['turns']} turns) | {best['rollout_s']:.2f} | 100% | "
          f"{best['rollout_tok_s']:.0f} | {best['bare_tok_s']:.0f} (model.generate alone) | {best['rollout_tok_s'] / best['bare_tok_s']:.2f}x |")
    print(f"| - generation | {best['generate_s']:.2f} | {best['generate_s'] / best['rollout_s']:.0%} | | | |")
    print(f"| - tools, templating, scoring | {best['env_s']:.2f} | {best['env_s'] / best['rollout_s']:.0%} | | | |")
    print(f"| update (old + ref log-probs, loss, backward, step) | {fastest_update['update_s']:.2f} | | "
          f"{fastest_update['tokens'] / fastest_update['update_s']:.0f} | {fastest_update['tokens'] / fastest_update['bare_update_s']:.0f} "
          f"(bare forward+backward) | {fastest_update['bare_update_s'] / fastest_update['update_s']:.2f}x |")


if __name__ == "__main__":
    main()
