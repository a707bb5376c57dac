"""Turn-level credit and the importance-sampling correction of the GRPO trainer: per-turn
advantages against hand-computed values, tokens carrying their turn's advantage, the outcome
mode unchanged, the calibration report, and the truncated importance weight."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is part of the test extra")

from pydantic import ValidationError  # noqa: E402

from mcpgym.baselines.train.chat import NO_TURN, TokenSequence  # noqa: E402
from mcpgym.baselines.train.config import ObjectiveConfig, TrainConfig, load_config  # noqa: E402
from mcpgym.baselines.train.credit import (  # noqa: E402
    calibrate,
    calibrate_episodes,
    combine_advantages,
    episode_turn_rewards,
    rank_correlation,
    resolve_turn_reward,
    token_advantages,
    turn_advantages,
)
from mcpgym.baselines.train.episodes import Episode, play  # noqa: E402
from mcpgym.baselines.train.generation import Sampled, Sampling, TransformersGenerator  # noqa: E402
from mcpgym.baselines.train.grpo import group_advantages, grpo_loss, importance_weights, sequence_logprobs  # noqa: E402
from mcpgym.baselines.train.trainer import GrpoTrainer, collate, warmup_schedule  # noqa: E402

# ------------------------------------------------------------------ per-turn advantages


def test_turn_advantages_compare_each_turn_with_the_same_turn_of_the_group() -> None:
    rewards = [[1.0, 0.0], [0.0, 1.0, 2.0], [0.0], [0.3, 0.3], [0.5]]
    groups = [0, 0, 0, 1, 1]
    adv = turn_advantages(rewards, groups, scale_by_std=False)
    # group 0, turn 0: 1, 0, 0 (mean 1/3); turn 1: 0, 1 (mean 1/2); turn 2: episode 1 alone
    assert adv[0] == pytest.approx([2 / 3, -0.5])
    assert adv[1] == pytest.approx([-1 / 3, 0.5, 0.0])
    assert adv[2] == pytest.approx([-1 / 3])
    # group 1, turn 0: 0.3 and 0.5 (mean 0.4), never mixed with group 0; turn 1 alone
    assert adv[3] == pytest.approx([-0.1, 0.0])
    assert adv[4] == pytest.approx([0.1])
    scaled = turn_advantages(rewards, groups, scale_by_std=True)
    std_turn0 = math.sqrt(((2 / 3) ** 2 + 2 * (1 / 3) ** 2) / 2)  # sample std of 1, 0, 0
    assert scaled[0][0] == pytest.approx((2 / 3) / (std_turn0 + 1e-4))
    assert scaled[0][1] == pytest.approx(-0.5 / (math.sqrt(0.5) + 1e-4))
    assert scaled[1][2] == 0.0


def test_the_three_modes_combine_outcome_and_turn_advantages() -> None:
    outcome = [1.0, -1.0]
    turns = [[0.5, -0.5], [0.25]]
    assert combine_advantages("outcome", outcome, turns) == [[1.0, 1.0], [-1.0]]
    assert combine_advantages("turn", outcome, turns) == [[0.5, -0.5], [0.25]]
    assert combine_advantages("hybrid", outcome, turns, turn_weight=2.0) == [[2.0, 0.0], [-0.5]]
    with pytest.raises(ValueError, match="unknown advantage mode"):
        combine_advantages("episode", outcome, turns)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="2 outcome advantages for 1"):
        combine_advantages("turn", outcome, turns[:1])


def sequence_of_two_turns() -> TokenSequence:
    tokens = TokenSequence()
    tokens.extend([1, 2, 3], sampled=False)  # prompt
    tokens.extend([10, 11, 99], sampled=True, turn=0, logprobs=[-0.1, -0.2, -0.3])
    tokens.extend([4, 5], sampled=False)  # tool result, next generation prompt
    tokens.extend([12, 99], sampled=True, turn=1)  # no log-probabilities from this sampler
    return tokens


def test_every_sampled_token_gets_its_turns_advantage() -> None:
    tokens = sequence_of_two_turns()
    assert tokens.turn == [NO_TURN] * 3 + [0] * 3 + [NO_TURN] * 2 + [1] * 2
    assert token_advantages(tokens.turn, [0.7, -0.4]) == [0.0] * 3 + [0.7] * 3 + [0.0] * 2 + [-0.4] * 2
    # collated, the advantages line up with the mask (both predict token t + 1)
    batch = collate([tokens], [token_advantages(tokens.turn, [0.7, -0.4])], pad_id=0, device=torch.device("cpu"))
    assert batch.advantages.shape == batch.mask.shape
    counted = batch.advantages[batch.mask.bool()].tolist()
    assert counted == pytest.approx([0.7] * 3 + [-0.4] * 2)
    # the sampler's log-probabilities travel the same way; unknown ones are NaN
    with_logprobs = collate([tokens], [0.0], pad_id=0, device=torch.device("cpu"), sampler_logprobs=True)
    assert with_logprobs.sampler_logp is not None
    known = with_logprobs.sampler_logp[with_logprobs.mask.bool()]
    assert known[:3].tolist() == pytest.approx([-0.1, -0.2, -0.3]) and torch.isnan(known[3:]).all()
    assert not tokens.has_logprobs  # turn 1 has none
    assert collate([tokens], [0.0], pad_id=0, device=torch.device("cpu")).sampler_logp is None  # not asked for


def test_a_token_sequence_refuses_log_probabilities_of_the_wrong_length() -> None:
    tokens = TokenSequence()
    with pytest.raises(ValueError, match="2 log-probabilities for 3 tokens"):
        tokens.extend([1, 2, 3], sampled=True, turn=0, logprobs=[-0.1, -0.2])
    assert tokens.ids == [] and tokens.turn == [] and tokens.logprobs == []


# ------------------------------------------------------------------ the loss


def old_grpo_loss(logp: torch.Tensor, old: torch.Tensor, adv: torch.Tensor, mask: torch.Tensor, clip: float = 0.2) -> torch.Tensor:
    """The loss as the trainer computed it before per-token advantages (token-mean, no KL)."""
    ratio = torch.exp(logp - old)
    a = adv.unsqueeze(-1)
    per_token = -torch.minimum(ratio * a, torch.clamp(ratio, 1 - clip, 1 + clip) * a)
    return (per_token * mask).sum() / mask.sum().clamp(min=1).item()


def test_per_episode_and_per_token_advantages_give_the_same_loss_as_before() -> None:
    torch.manual_seed(0)
    logp = torch.randn(3, 7, requires_grad=True)
    old = (logp + 0.3 * torch.randn(3, 7)).detach()
    mask = (torch.rand(3, 7) > 0.3).float()
    adv = torch.tensor([1.2, -0.7, 0.4])
    episode = grpo_loss(logp, old, adv, mask)
    token = grpo_loss(logp, old, adv.unsqueeze(-1).expand(3, 7).clone(), mask)
    assert torch.equal(episode.loss, old_grpo_loss(logp, old, adv, mask))
    assert torch.equal(episode.loss, token.loss)
    assert episode.clip_fraction == token.clip_fraction and episode.is_weight_mean == 1.0
    with pytest.raises(ValueError, match="fit neither"):
        grpo_loss(logp, old, torch.zeros(3, 6), mask)


def test_the_importance_weight_is_one_when_sampler_and_trainer_agree_and_cut_at_the_cap() -> None:
    old = torch.tensor([[-1.0, -2.0, -0.5, -0.1]])
    assert torch.equal(importance_weights(old, old.clone(), cap=2.0), torch.ones(1, 4))
    sampler = torch.tensor([[-1.0 - math.log(5), -2.0 + math.log(2), -0.5 - math.log(1.5), float("nan")]])
    weights = importance_weights(old, sampler, cap=2.0)
    # ratios 5 (cut to 2), 0.5, 1.5; an unknown sampler log-probability weighs 1
    assert weights.tolist() == [pytest.approx([2.0, 0.5, 1.5, 1.0])]
    with pytest.raises(ValueError, match="positive"):
        importance_weights(old, sampler, cap=0.0)


def test_the_importance_weight_scales_each_tokens_gradient() -> None:
    logp = torch.zeros(1, 3, requires_grad=True)
    mask = torch.ones(1, 3)
    weights = torch.tensor([[2.0, 0.5, 1.0]])
    parts = grpo_loss(logp, logp.detach(), torch.tensor([1.0]), mask, is_weights=weights, is_cap=2.0)
    parts.loss.backward()
    assert logp.grad is not None
    assert logp.grad.tolist() == [pytest.approx([-2 / 3, -0.5 / 3, -1 / 3])]
    assert parts.is_weight_mean == pytest.approx(3.5 / 3) and parts.is_truncated == pytest.approx(1 / 3)


# ------------------------------------------------------------------ calibration


def constructed_batch() -> tuple[list[float], list[int], list[list[float]]]:
    """Two groups of four episodes; outcome rewards known, two or three turns each."""
    outcomes = [1.0, 0.6, 0.2, 0.0, 0.9, 0.5, 0.4, 0.1]
    groups = [0, 0, 0, 0, 1, 1, 1, 1]
    turns = [2, 3, 2, 3, 3, 2, 3, 2]
    return outcomes, groups, [[r / n + 0.01 * t for t in range(n)] for r, n in zip(outcomes, turns, strict=True)]


def test_calibration_passes_a_reward_that_follows_the_outcome() -> None:
    outcomes, groups, agreeing = constructed_batch()
    report = calibrate(outcomes, groups, agreeing)
    assert report.share == 1.0 and report.pairs > 0
    assert report.rank_correlation == pytest.approx(1.0)
    assert report.verdict.startswith("agrees")
    assert "| all |" in report.table() and "verdict: agrees" in report.table()


def test_calibration_flags_an_anti_correlated_reward() -> None:
    outcomes, groups, agreeing = constructed_batch()
    report = calibrate(outcomes, groups, [[-r for r in turns] for turns in agreeing])
    assert report.share == 0.0 and report.rank_correlation == pytest.approx(-1.0)
    assert report.verdict.startswith("disagrees")
    assert [row.turn for row in report.turns] == [0, 1, 2]
    # a reward the same for every episode says nothing
    flat = calibrate(outcomes, groups, [[0.0] * len(turns) for turns in agreeing])
    assert flat.verdict.startswith("no signal") and math.isnan(flat.rank_correlation)


def test_rank_correlation_gives_ties_their_mean_rank() -> None:
    assert rank_correlation([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert rank_correlation([1, 1, 2, 3], [3, 3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(rank_correlation([1.0], [2.0]))
    with pytest.raises(ValueError):
        rank_correlation([1, 2], [1])


# ------------------------------------------------------------------ per-turn reward functions


def turn_index_reward(episode: Any) -> list[float]:
    """A per-turn reward for the tests: the later the turn, the more it pays."""
    return [float(t) for t in range(len(episode.turn_rewards))]


def reversed_env_reward(episode: Any) -> list[float]:
    """A per-turn reward for the tests: the env's per-turn rewards, last turn first."""
    return [float(r) for r in reversed(episode.turn_rewards)]


def test_per_turn_reward_functions_are_named_in_the_config_and_checked() -> None:
    assert resolve_turn_reward("env") is None and resolve_turn_reward("env-step") is None
    assert resolve_turn_reward("test_train_credit:turn_index_reward") is turn_index_reward
    for bad, message in [
        ("turn_index_reward", "package.module:function"),
        ("no_such_module_xyz:f", "cannot import module"),
        ("math:no_such_function", "has no function"),
        ("math:pi", "has no function"),
    ]:
        with pytest.raises(ValueError, match=message):
            resolve_turn_reward(bad)
    episode = SimpleNamespace(turn_rewards=[0.0, 1.0])
    assert episode_turn_rewards(episode) == [0.0, 1.0]
    assert episode_turn_rewards(episode, turn_index_reward) == [0.0, 1.0]
    with pytest.raises(ValueError, match="returned 1 values for an episode of 2 turns"):
        episode_turn_rewards(episode, lambda e: [1.0])
    with pytest.raises(ValueError, match="not a finite number"):
        episode_turn_rewards(episode, lambda e: [1.0, float("nan")])
    with pytest.raises(ValidationError):
        ObjectiveConfig.model_validate({"advantage": "per-token"})
    with pytest.raises(ValidationError):
        ObjectiveConfig.model_validate({"turn_reward": "m:" + "f" * 300})
    defaults = ObjectiveConfig()
    assert (defaults.advantage, defaults.is_correction) == ("outcome", False)  # today's objective by default


# ------------------------------------------------------------------ episodes: turn indices, turn rewards


class StubChat:
    """A chat format without a tokenizer: token 10 + k stands for the k-th text of `script`."""

    eos_id = 99

    def __init__(self, script: list[str]) -> None:
        self.script = script

    def prompt(self, messages: list[dict[str, Any]], tools: Any) -> list[int]:
        return [1, 2, 3]

    def continuation(self, before: list[dict[str, Any]], after: list[dict[str, Any]], tools: Any) -> list[int]:
        return [4] * (len(after) - len(before))

    def text_of(self, generated: list[int]) -> str:
        return self.script[generated[0] - 10]

    def action(self, text: str) -> str:
        return text


class StubGenerator:
    """Turn k of every episode: [10 + k, 5, eos], with made-up sampler log-probabilities."""

    def __init__(self) -> None:
        self.turn = 0

    def generate(self, prompts: list[list[int]], max_new_tokens: int, sampling: Sampling) -> list[list[int]]:
        out: list[list[int]] = [Sampled([10 + self.turn, 5, 99], [-0.5, -0.25, -0.125]) for _ in prompts]
        self.turn += 1
        return out

    def sync(self, model: Any) -> None:
        pass


@pytest.fixture(scope="module")
def status_task() -> Any:
    from train_support import status_tasks

    [task] = status_tasks([1234])
    return task


def test_an_episode_records_each_tokens_turn_and_the_envs_reward_per_turn(status_task: Any) -> None:
    from mcpgym.envs import make_env

    script = [
        '<tool_call>{"name": "get_ticket", "arguments": {"ticket_id": 1234}}</tool_call>',
        '<tool_call>{"name": "get_ticket", "arguments": {"ticket_id": "x"}}</tool_call>',
        "The status is open.",
    ]
    episodes = {}
    for shaping in (False, True):
        env = make_env(["zendesk"], tasks=[status_task], tools=["get_ticket"], shaping=shaping)
        [episodes[shaping]] = play([env], [status_task], [0], StubGenerator(), StubChat(script), Sampling(), 8, 1000)  # type: ignore[arg-type]
    plain, shaped = episodes[False], episodes[True]
    assert shaped.turns == 3 and shaped.terminated
    sampled_turns = [t for t, m in zip(shaped.tokens.turn, shaped.tokens.mask, strict=True) if m]
    assert sampled_turns == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert shaped.tokens.has_logprobs
    assert [v for v, m in zip(shaped.tokens.logprobs, shaped.tokens.mask, strict=True) if m] == [-0.5, -0.25, -0.125] * 3
    # one reward per turn, summing to the episode's reward, which shaping does not change
    assert len(shaped.turn_rewards) == 3 and sum(shaped.turn_rewards) == pytest.approx(shaped.reward)
    assert shaped.reward == pytest.approx(plain.reward) and plain.reward > 0
    assert plain.turn_rewards[:2] == [0.0, 0.0] and plain.turn_rewards[2] == pytest.approx(plain.reward)
    report = calibrate_episodes([plain, shaped])
    assert report.episodes == 2


# ------------------------------------------------------------------ the update, on a model built in the test


def tiny_model(seed: int = 0) -> Any:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=128, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
        num_key_value_heads=1, max_position_embeddings=128, tie_word_embeddings=False,
    )
    return Qwen2ForCausalLM(config).float()


def bare_trainer(model: Any, *overrides: str) -> GrpoTrainer:
    """A trainer with only what `update` uses: the model, its optimizer and the objective."""
    config: TrainConfig = load_config(overrides=["objective.beta=0", "objective.mu=1", "optim.lr=0.01", "optim.grad_clip=100", *overrides])
    trainer = object.__new__(GrpoTrainer)
    trainer.config = config
    trainer.policy = SimpleNamespace(model=model, device=torch.device("cpu"), tokenizer=SimpleNamespace(pad_token_id=0))  # type: ignore[assignment]
    trainer.params = [p for p in model.parameters() if p.requires_grad]
    trainer.optimizer = torch.optim.AdamW(trainer.params, lr=config.optim.lr)
    trainer.scheduler = warmup_schedule(trainer.optimizer, 0)
    trainer.reference = None
    objective = config.objective
    trainer.turn_reward = resolve_turn_reward(objective.turn_reward) if objective.advantage != "outcome" else None
    return trainer


def made_episodes(sampler_shift: float | None = None, model: Any = None) -> list[Episode]:
    """Two groups of two episodes of two turns each, random tokens, known rewards; with
    `sampler_shift`, the sampler's log-probabilities are the model's plus the shift."""
    generator = torch.Generator().manual_seed(1)
    rewards = [(1.0, [0.2, 0.8]), (0.0, [0.6, -0.6]), (0.5, [0.5, 0.0]), (0.25, [0.0, 0.25])]
    episodes = []
    for i, (reward, per_turn) in enumerate(rewards):
        tokens = TokenSequence()
        tokens.extend(torch.randint(1, 128, (5,), generator=generator).tolist(), sampled=False)
        for turn in range(2):
            tokens.extend(torch.randint(1, 128, (4,), generator=generator).tolist(), sampled=True, turn=turn)
            tokens.extend(torch.randint(1, 128, (3,), generator=generator).tolist(), sampled=False)
        if sampler_shift is not None:
            with torch.no_grad():
                ids = torch.tensor([tokens.ids])
                logp = sequence_logprobs(model, ids, torch.ones_like(ids))[0].tolist()
            tokens.logprobs = [math.nan] + [v + sampler_shift if m else math.nan for v, m in zip(logp, tokens.mask[1:], strict=True)]
        episodes.append(Episode(task=None, group=i // 2, tokens=tokens, reward=reward, turns=2, turn_rewards=per_turn))  # type: ignore[arg-type]
    return episodes


def weights_after(model: Any) -> dict[str, torch.Tensor]:
    return {n: p.detach().clone() for n, p in model.named_parameters()}


def test_one_update_in_each_mode_moves_the_model_and_hybrid_at_weight_zero_is_outcome() -> None:
    results = {}
    for name, overrides in {
        "outcome": [],
        "turn": ["objective.advantage=turn"],
        "hybrid": ["objective.advantage=hybrid", "objective.turn_weight=0.5"],
        "hybrid-0": ["objective.advantage=hybrid", "objective.turn_weight=0"],
        "function": ["objective.advantage=turn", "objective.turn_reward=test_train_credit:reversed_env_reward"],
    }.items():
        model = tiny_model()
        before = weights_after(model)
        stats = bare_trainer(model, *overrides).update(made_episodes())
        results[name] = weights_after(model)
        assert stats["trained_episodes"] == 4 and stats["grad_norm"] > 0, name
        assert any(not torch.equal(before[n], t) for n, t in results[name].items()), name
    assert all(torch.equal(results["outcome"][n], t) for n, t in results["hybrid-0"].items())
    for name in ("turn", "hybrid", "function"):
        assert any(not torch.equal(results["outcome"][n], t) for n, t in results[name].items()), name
    assert any(not torch.equal(results["turn"][n], t) for n, t in results["function"].items())


def test_the_trainers_advantages_follow_the_mode() -> None:
    episodes = made_episodes()
    outcome = bare_trainer(tiny_model()).advantages(episodes)
    expected = group_advantages(torch.tensor([e.reward for e in episodes]), torch.tensor([e.group for e in episodes])).tolist()
    assert outcome == expected  # one per episode: the loss takes today's path
    per_token = bare_trainer(tiny_model(), "objective.advantage=turn", "objective.scale_by_std=false").advantages(episodes)
    first = per_token[0]
    assert isinstance(first, list) and len(first) == len(episodes[0].tokens)
    # episode 0 against episode 1 at each turn: turn 0 0.2 vs 0.6, turn 1 0.8 vs -0.6
    by_turn = {t: a for t, a in zip(episodes[0].tokens.turn, first, strict=True) if t != NO_TURN}
    assert by_turn == {0: pytest.approx(-0.2), 1: pytest.approx(0.7)}


def test_the_correction_is_inert_when_sampler_and_trainer_agree_and_capped_when_they_do_not() -> None:
    plain_model, agree_model, far_model = tiny_model(), tiny_model(), tiny_model()
    bare_trainer(plain_model).update(made_episodes())
    stats = bare_trainer(agree_model, "objective.is_correction=true").update(made_episodes(0.0, agree_model))
    assert stats["is_weight_mean"] == pytest.approx(1.0, abs=1e-5) and stats["is_truncated"] == 0.0
    plain, agreed = weights_after(plain_model), weights_after(agree_model)
    assert all(torch.allclose(plain[n], t, atol=1e-6) for n, t in agreed.items())
    # the sampler found every token e^3 times less likely than the trainer: every weight is cut to the cap
    stats = bare_trainer(far_model, "objective.is_correction=true", "objective.is_cap=1.5").update(made_episodes(-3.0, far_model))
    assert stats["is_weight_mean"] == pytest.approx(1.5) and stats["is_truncated"] == 1.0
    # without the sampler's log-probabilities there is no correction
    stats = bare_trainer(tiny_model(), "objective.is_correction=true").update(made_episodes())
    assert stats["is_weight_mean"] == 1.0 and stats["is_truncated"] == 0.0


def test_the_transformers_generator_records_the_trainers_log_probabilities() -> None:
    model = tiny_model()
    prompts = [[5, 6, 7, 8], [9, 10], [11, 12, 13]]
    plain = TransformersGenerator(model, eos_id=3, pad_id=0, batch_size=2)
    recording = TransformersGenerator(model, eos_id=3, pad_id=0, batch_size=2, record_logprobs=True)
    for sampling in (Sampling(temperature=0.7), Sampling(greedy=True)):
        torch.manual_seed(0)
        expected = plain.generate(prompts, 6, sampling)
        torch.manual_seed(0)
        got = recording.generate(prompts, 6, sampling)
        assert [list(g) for g in got] == expected  # recording changes no token
        temperature = 1.0 if sampling.greedy else sampling.temperature
        for prompt, new in zip(prompts, got, strict=True):
            assert isinstance(new, Sampled) and new.logprobs is not None and len(new.logprobs) == len(new)
            ids = torch.tensor([prompt + list(new)])
            with torch.no_grad():
                trainer = sequence_logprobs(model, ids, torch.ones_like(ids), temperature)[0, len(prompt) - 1 :]
            assert new.logprobs == pytest.approx(trainer.tolist(), abs=1e-4)
    assert not isinstance(plain.generate(prompts, 2, Sampling())[0], Sampled)


# ------------------------------------------------------------------ end to end


@pytest.mark.slow
def test_a_grpo_step_in_hybrid_mode_with_env_shaping_and_the_correction(tmp_path: Path) -> None:
    from mcpgym.tasks.loader import save_tasks
    from train_support import build_tiny, status_tasks, zendesk_ticket_ids

    tasks = status_tasks(zendesk_ticket_ids(4))
    save_tasks(tasks, tmp_path / "train.jsonl")
    model = build_tiny(tmp_path / "model", tasks)
    config = load_config(
        preset="tiny-cpu",
        overrides=[
            f"out={json.dumps(str(tmp_path / 'run'))}", f"model.path={json.dumps(str(model))}",
            f"tasks.train={json.dumps(str(tmp_path / 'train.jsonl'))}", "tasks.test=handwritten", "tasks.max_test=0",
            "tasks.families=null", 'tasks.tools=["get_ticket"]', "rollout.tasks_per_step=2", "rollout.group_size=4",
            "rollout.max_new_tokens=24", "rollout.max_turns=2", "objective.mask_truncated=false", "objective.mu=2",
            "objective.advantage=hybrid", "objective.turn_reward=env-step", "objective.is_correction=true",
            "eval_every=0", "steps=1",
        ],
    )
    trainer = GrpoTrainer(config)
    assert all(env.unwrapped.shaping == "step" for env in trainer.envs)
    metrics = trainer.train_step()
    # the calibration check ran on the step's own episodes: a share in [0, 1] or None (no pair)
    assert "turn_sign_agreement" in metrics and "turn_rank_correlation" in metrics
    assert metrics["turn_sign_agreement"] is None or 0.0 <= metrics["turn_sign_agreement"] <= 1.0
    assert metrics["is_weight_mean"] == pytest.approx(1.0, abs=0.05)  # same model, same precision: weights near 1
    assert "advantage_abs_mean" in metrics and math.isfinite(metrics["loss"])
