"""The GRPO trainer end to end on a tiny model: masking, updates, reference, checkpoints, resume, SFT."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is part of the test extra")

from mcpgym.baselines.train.config import TrainConfig, load_config  # noqa: E402
from mcpgym.baselines.train.episodes import play  # noqa: E402
from mcpgym.baselines.train.generation import Sampling, TransformersGenerator  # noqa: E402
from mcpgym.baselines.train.policy import load_policy  # noqa: E402
from mcpgym.baselines.train.run_log import plot_run, read_metrics  # noqa: E402
from mcpgym.baselines.train.trainer import GrpoTrainer  # noqa: E402
from mcpgym.envs import make_env  # noqa: E402
from mcpgym.tasks.loader import save_tasks  # noqa: E402
from train_support import ScriptedGenerator, build_tiny, status_tasks, zendesk_ticket_ids  # noqa: E402


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("train")
    train = status_tasks(zendesk_ticket_ids(6))
    test = status_tasks(zendesk_ticket_ids(2, offset=50))
    save_tasks(train, root / "train.jsonl")
    save_tasks(test, root / "test.jsonl")
    model = build_tiny(root / "model", train + test)
    return {"root": root, "model": model, "train": root / "train.jsonl", "test": root / "test.jsonl"}


def config(world: dict[str, Path], out: Path, *overrides: str) -> TrainConfig:
    return load_config(
        preset="tiny-cpu",
        overrides=[
            f"out={json.dumps(str(out))}",
            f"model.path={json.dumps(str(world['model']))}",
            f"tasks.train={json.dumps(str(world['train']))}",
            f"tasks.test={json.dumps(str(world['test']))}",
            "tasks.families=null",
            'tasks.tools=["get_ticket", "get_user"]',
            "tasks.max_test=0",
            "rollout.tasks_per_step=2",
            "rollout.group_size=2",
            "rollout.max_new_tokens=12",
            "rollout.max_turns=2",
            "objective.mask_truncated=false",
            "objective.mu=2",
            "eval_every=0",
            "steps=2",
            "save_every=1",
            *overrides,
        ],
    )


VARIED_GROUPS = ("rollout.group_size=4", "rollout.max_new_tokens=24")
"""Enough samples per task, and tokens per sample, that the untrained model's rewards differ
within a group (an update needs a nonzero advantage); with 2 samples of 12 tokens that rests
on one lucky draw, which any change to the tokenizer's corpus (tool schemas included) moves."""


def snapshot(model: Any) -> dict[str, torch.Tensor]:
    return {n: p.detach().clone() for n, p in model.named_parameters()}


def test_mask_covers_exactly_the_model_tokens_of_a_multi_turn_episode(world: dict[str, Path]) -> None:
    policy = load_policy(config(world, world["root"] / "unused").model)
    chat = policy.chat
    [task] = status_tasks([1234])
    script = [
        "Let me look.<tool_call>{\"name\": \"get_ticket\", \"arguments\": {\"ticket_id\": 1234}}</tool_call>",
        "<tool_call>{\"name\": \"get_ticket\", \"arguments\": {\"ticket_id\": \"x\"}}</tool_call>",
        "The status is open.",
    ]
    env = make_env(["zendesk"], tasks=[task], tools=["get_ticket"])
    [episode] = play([env], [task], [0], ScriptedGenerator(chat, script), chat, Sampling(), 64, 100_000)
    assert episode.terminated and episode.turns == 3
    ids, mask = episode.tokens.ids, episode.tokens.mask
    own = [t for t, m in zip(ids, mask, strict=True) if m]
    expected: list[int] = []
    for text in script:
        expected += chat.encode(text) + [chat.eos_id]
    assert own == expected
    # the whole sequence is the chat template's rendering of the same conversation
    tools = env.reset(options={"task": task})[0]["tools"]
    rendered = chat.render(episode.messages, tools, prompt=False)
    assert policy.tokenizer.decode(ids, skip_special_tokens=False) + "\n" == rendered
    others = policy.tokenizer.decode([t for t, m in zip(ids, mask, strict=True) if not m], skip_special_tokens=False)
    assert "What is the status of ticket 1234?" in others and '"status"' in others  # user turn and tool result
    assert "Let me look." not in others


def test_transformers_generator_stops_at_eos_and_keeps_order(world: dict[str, Path]) -> None:
    policy = load_policy(config(world, world["root"] / "unused").model)
    generator = TransformersGenerator(policy.model, policy.chat.eos_id, policy.tokenizer.pad_token_id, batch_size=2)
    prompts = [policy.chat.encode("a b c"), policy.chat.encode("ticket"), policy.chat.encode("x y z w v u")]
    torch.manual_seed(0)
    greedy = generator.generate(prompts, 6, Sampling(greedy=True))
    assert [len(g) <= 6 for g in greedy] == [True] * 3
    for prompt, tokens in zip(prompts, greedy, strict=True):
        alone = generator.generate([prompt], 6, Sampling(greedy=True))[0]
        assert alone == tokens  # batching and left padding change nothing
        assert policy.chat.eos_id not in tokens[:-1]


def test_grpo_steps_update_the_model_write_metrics_and_checkpoints(world: dict[str, Path], tmp_path: Path) -> None:
    trainer = GrpoTrainer(config(world, tmp_path / "run", "tasks.max_test=2", "objective.beta=0.01", "objective.mu=1",
                                 *VARIED_GROUPS))
    before = snapshot(trainer.policy.model)
    trainer.train()
    after = snapshot(trainer.policy.model)
    assert any(not torch.equal(before[n], after[n]) for n in before)
    rows = read_metrics(tmp_path / "run")
    train_rows = [r for r in rows if r["phase"] == "train"]
    assert [r["step"] for r in train_rows] == [1, 2]
    for key in ("reward_mean", "reward_std", "kl", "clip_fraction", "completion_tokens", "calls_per_episode",
                "turns_per_episode", "finish_rate", "time/rollout", "time/update", "tokens_per_s/rollout", "grad_norm"):
        assert key in train_rows[0], key
    assert train_rows[0]["kl"] == pytest.approx(0.0, abs=1e-6)  # one update per batch: the reference is the policy that was updated
    assert [r["phase"] for r in rows].count("eval") == 1  # after the last step
    from transformers import AutoModelForCausalLM

    latest = tmp_path / "run" / "checkpoints" / "step-000002" / "model"
    loaded = AutoModelForCausalLM.from_pretrained(latest)
    saved = loaded.state_dict()
    for name, tensor in after.items():
        assert torch.equal(saved[name], tensor), name
    assert sorted(p.name for p in (tmp_path / "run" / "checkpoints").glob("step-*")) == ["step-000001", "step-000002"]
    png = plot_run(tmp_path / "run")
    assert png.exists() and png.stat().st_size > 10_000


def test_resume_reproduces_the_next_step(world: dict[str, Path], tmp_path: Path) -> None:
    straight = GrpoTrainer(config(world, tmp_path / "a"))
    straight.train()
    # a run out of time stops after its first step, with a checkpoint though none was due
    first = GrpoTrainer(config(world, tmp_path / "b", "time_limit_s=0", "save_every=100"))
    first.train()
    assert first.step == 1
    assert [p.name for p in (tmp_path / "b" / "checkpoints").glob("step-*")] == ["step-000001"]
    resumed = GrpoTrainer(config(world, tmp_path / "b"))
    assert resumed.step == 1
    resumed.train()
    a, b = snapshot(straight.policy.model), snapshot(resumed.policy.model)
    assert all(torch.equal(a[n], b[n]) for n in a)
    rows_a = [r for r in read_metrics(tmp_path / "a") if r["step"] == 2]
    rows_b = [r for r in read_metrics(tmp_path / "b") if r["step"] == 2]
    assert rows_a[0]["reward_mean"] == rows_b[0]["reward_mean"]
    assert rows_a[0]["loss"] == rows_b[0]["loss"]


def test_reference_refreshes_every_m_steps(world: dict[str, Path], tmp_path: Path) -> None:
    trainer = GrpoTrainer(config(world, tmp_path / "run", "objective.beta=0.1", "objective.ref_refresh_steps=2", "steps=2",
                                 *VARIED_GROUPS))
    assert trainer.reference is not None
    initial = {n: t.clone() for n, t in trainer.reference.weights.items()}
    trainer.train_step()
    assert all(torch.equal(initial[n], t) for n, t in trainer.reference.weights.items())  # step 1: not yet
    trainer.train_step()
    current = dict(trainer.policy.model.named_parameters())
    assert all(torch.equal(current[n].detach(), t) for n, t in trainer.reference.weights.items())  # step 2: refreshed
    assert any(not torch.equal(initial[n], t) for n, t in trainer.reference.weights.items())


def test_overlong_episodes_contribute_no_gradient(world: dict[str, Path], tmp_path: Path) -> None:
    trainer = GrpoTrainer(config(world, tmp_path / "run", "objective.mask_truncated=true", "rollout.max_new_tokens=2"))
    before = snapshot(trainer.policy.model)
    episodes = trainer.rollout(trainer.pick_tasks(0), Sampling(), seed=0)
    assert all(e.overlong for e in episodes)  # two tokens are never a whole turn
    stats = trainer.update(episodes)
    assert stats["skipped_update"] and stats["trained_episodes"] == 0
    after = snapshot(trainer.policy.model)
    assert all(torch.equal(before[n], after[n]) for n in before)


def test_running_out_of_turns_is_a_scored_failure_not_overlong(world: dict[str, Path]) -> None:
    # Only token budgets make an episode overlong (its loss masked); an agent that loops until
    # the turn budget ends it has failed, and training must see that failure.
    chat = load_policy(config(world, world["root"] / "unused").model).chat
    [task] = status_tasks([1234])
    looping = ["<tool_call>{\"name\": \"get_ticket\", \"arguments\": {\"ticket_id\": 1}}</tool_call>"]
    env = make_env(["zendesk"], tasks=[task], tools=["get_ticket"], max_turns=2)
    [episode] = play([env], [task], [0], ScriptedGenerator(chat, looping), chat, Sampling(), 64, 100_000)
    assert episode.truncated and episode.turns == 2 and not episode.overlong
    assert episode.reward < 0.5
    env = make_env(["zendesk"], tasks=[task], tools=["get_ticket"], max_turns=8)
    [cut] = play([env], [task], [0], ScriptedGenerator(chat, looping), chat, Sampling(), 64, len(episode.tokens) + 40)
    assert cut.overlong and cut.turns < 8  # the total-token budget cut it


def test_config_presets_files_and_overrides(tmp_path: Path) -> None:
    path = tmp_path / "run.toml"
    path.write_text('preset = "gpu-small"\nsteps = 7\n[rollout]\ngroup_size = 4\n')
    cfg = load_config(path, ["rollout.temperature=0.7", "model.lora={\"r\": 8}", "tasks.servers=[\"crm\"]"])
    assert cfg.steps == 7 and cfg.rollout.group_size == 4 and cfg.rollout.temperature == 0.7
    assert cfg.model.build == "34m" and cfg.model.lora is not None and cfg.model.lora.r == 8
    assert cfg.tasks.servers == ["crm"]
    assert cfg.objective.beta == 0.001 and cfg.objective.ref_refresh_steps == 100 and cfg.objective.mu == 2
    assert cfg.optim.grad_clip == 0.2 and cfg.optim.warmup_steps == 20
    with pytest.raises(ValueError, match="group_sise"):
        load_config(None, ["rollout.group_sise=4"])
    with pytest.raises(ValueError, match="unknown preset"):
        load_config(None, [], preset="huge")
    with pytest.raises(ValueError, match="key.sub=value"):
        load_config(None, ["steps"])


def test_sft_learns_the_oracle_turns_with_the_same_masking(world: dict[str, Path], tmp_path: Path) -> None:
    from mcpgym.baselines.train.sft import oracle_sequences, train_sft

    cfg = config(world, tmp_path / "run", "sft.epochs=4", "sft.lr=0.003", "sft.batch_size=3", "sft.warmup_steps=4")
    policy = load_policy(cfg.model)
    tasks = status_tasks(zendesk_ticket_ids(2))
    [first, _] = oracle_sequences(tasks, ["zendesk"], policy.chat, 100_000, tools=["get_ticket", "get_user"])
    own = policy.tokenizer.decode([t for t, m in zip(first.ids, first.mask, strict=True) if m])
    assert own.startswith('<tool_call>{"name": "get_ticket", "arguments": {"ticket_id": 1000}}</tool_call><|im_end|>')
    assert own.count("<|im_end|>") == 2 and "What is the status" not in own
    folder = train_sft(cfg, policy=policy)
    rows = read_metrics(tmp_path / "run" / "sft")
    losses = [r["loss"] for r in rows]
    assert len(losses) == 8  # 6 tasks in batches of 3, 4 epochs
    # linear warm-up over 4 steps, then constant
    assert [r["lr"] for r in rows] == pytest.approx([0.00075, 0.0015, 0.00225, 0.003, 0.003, 0.003, 0.003, 0.003])
    assert losses[-1] < losses[0] * 0.8
    from transformers import AutoModelForCausalLM

    assert AutoModelForCausalLM.from_pretrained(folder).config.vocab_size == policy.model.config.vocab_size


def test_sampled_evaluation_plays_k_episodes_per_held_out_task(world: dict[str, Path], tmp_path: Path) -> None:
    trainer = GrpoTrainer(config(world, tmp_path / "run", "tasks.max_test=2", "eval_samples=3", "steps=0"))
    summary = trainer.evaluate()
    records = [json.loads(line) for line in (tmp_path / "run" / "eval" / "step-000000" / "trajectories.jsonl").read_text().splitlines()]
    assert summary["overall"]["episodes"] == 6 and summary["overall"]["tasks"] == 2
    by_task: dict[str, list[int]] = {}
    for record in records:
        by_task.setdefault(record["task_id"], []).append(record["episode"])
    assert sorted(by_task.values()) == [[0, 1, 2], [0, 1, 2]]


def test_a_jsonl_task_file_splits_by_its_split_tags(tmp_path: Path) -> None:
    from mcpgym.baselines.train.config import TasksConfig
    from mcpgym.baselines.train.task_sets import select_tasks

    tasks = status_tasks([1001, 1002, 1003])
    tagged = [t.model_copy(update={"tags": [*t.tags, f"split:{split}"]}) for t, split in zip(tasks, ["train", "test", "train"], strict=True)]
    path = tmp_path / "tasks.jsonl"
    save_tasks(tagged, path)
    cfg = TasksConfig(train=f"{path}:train", test=f"{path}:test", max_test=None)
    assert [t.id for t in select_tasks(cfg, "train")] == ["status-1001", "status-1003"]
    assert [t.id for t in select_tasks(cfg, "test")] == ["status-1002"]
    assert len(select_tasks(TasksConfig(train=str(path)), "train")) == 3
