"""The GRPO objective against hand-computed values: advantages, clipping, KL, aggregation."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is part of the test extra")

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from mcpgym.baselines.train.grpo import group_advantages, grpo_loss, token_logprobs  # noqa: E402


def test_advantages_of_a_known_group() -> None:
    rewards = torch.tensor([1.0, 0.0, 0.5, 0.5, 0.2, 0.4, 0.9])
    groups = torch.tensor([0, 0, 1, 1, 2, 2, 2])
    adv = group_advantages(rewards, groups, scale_by_std=True, eps=0.0)
    # group 0: mean 0.5, sample std sqrt(0.5) -> +-0.5/0.7071
    assert adv[0].item() == pytest.approx(0.5 / math.sqrt(0.5))
    assert adv[1].item() == pytest.approx(-0.5 / math.sqrt(0.5))
    # group 1: equal rewards carry no signal (no division by zero either)
    assert adv[2].item() == 0.0 and adv[3].item() == 0.0
    # group 2: mean 0.5, sample std sqrt((0.09 + 0.01 + 0.16) / 2)
    std = math.sqrt(0.13)
    assert adv[4:].tolist() == pytest.approx([-0.3 / std, -0.1 / std, 0.4 / std])


def test_dr_grpo_advantages_skip_the_std() -> None:
    adv = group_advantages(torch.tensor([1.0, 0.0, 0.25, 0.75]), torch.tensor([0, 0, 1, 1]), scale_by_std=False)
    assert adv.tolist() == pytest.approx([0.5, -0.5, -0.25, 0.25])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=2, max_size=8))
@example([0.821503500109743] * 3)  # the fp32 mean of equal values is not quite each of them
def test_advantages_sum_to_zero_within_a_group(values: list[float]) -> None:
    adv = group_advantages(torch.tensor(values), torch.zeros(len(values), dtype=torch.long))
    assert abs(adv.sum().item()) < 1e-3
    assert all(math.isfinite(a) for a in adv.tolist())
    if len(set(values)) == 1:
        assert adv.tolist() == [0.0] * len(values)


def test_unclipped_loss_is_minus_the_mean_advantage_over_model_tokens() -> None:
    logp = torch.zeros(2, 3, requires_grad=True)
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    parts = grpo_loss(logp, logp.detach(), torch.tensor([1.0, -1.0]), mask)
    # tokens: -1, -1 (episode 0), +1 (episode 1); three counted tokens
    assert parts.loss.item() == pytest.approx(-1 / 3)
    assert parts.tokens == 3 and parts.kl == 0.0 and parts.clip_fraction == 0.0
    parts.loss.backward()
    assert logp.grad is not None
    assert torch.allclose(logp.grad, torch.tensor([[-1 / 3, -1 / 3, 0.0], [1 / 3, 0.0, 0.0]]))


def test_sequence_mean_weighs_each_episode_the_same() -> None:
    logp = torch.zeros(2, 3)
    mask = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    parts = grpo_loss(logp, logp, torch.tensor([1.0, -3.0]), mask, aggregation="sequence-mean")
    # episode means: -1 and +3; over two episodes
    assert parts.loss.item() == pytest.approx(1.0)


def test_clipped_ratio_gives_no_gradient() -> None:
    old = torch.zeros(1, 2)
    logp = torch.tensor([[math.log(1.5), math.log(1.1)]], requires_grad=True)
    parts = grpo_loss(logp, old, torch.tensor([1.0]), torch.ones(1, 2), clip_low=0.2, clip_high=0.2)
    # token 0: min(1.5, 1.2) = 1.2 (clipped); token 1: 1.1 (inside)
    assert parts.loss.item() == pytest.approx(-(1.2 + 1.1) / 2)
    assert parts.clip_fraction == pytest.approx(0.5)
    parts.loss.backward()
    assert logp.grad is not None
    assert logp.grad[0, 0].item() == 0.0
    assert logp.grad[0, 1].item() == pytest.approx(-1.1 / 2)


def test_negative_advantage_clips_below() -> None:
    logp = torch.tensor([[math.log(0.5)]], requires_grad=True)
    parts = grpo_loss(logp, torch.zeros(1, 1), torch.tensor([-1.0]), torch.ones(1, 1), clip_low=0.2)
    # -min(0.5 * -1, 0.8 * -1) = 0.8: the clipped branch, no gradient
    assert parts.loss.item() == pytest.approx(0.8)
    assert parts.clip_fraction == 1.0
    parts.loss.backward()
    assert logp.grad is not None and logp.grad.item() == 0.0


def test_kl_is_zero_for_equal_policies_and_k3_otherwise() -> None:
    logp = torch.tensor([[0.0, math.log(0.25)]])
    same = grpo_loss(logp, logp, torch.zeros(1), torch.ones(1, 2), ref_logp=logp.clone(), beta=0.1)
    assert same.kl == 0.0 and same.loss.item() == 0.0
    ref = torch.tensor([[math.log(0.5), math.log(0.25)]])
    parts = grpo_loss(logp, logp, torch.zeros(1), torch.ones(1, 2), ref_logp=ref, beta=0.1)
    k3 = 0.5 + math.log(2) - 1  # exp(d) - d - 1 with d = log 0.5
    assert parts.kl == pytest.approx(k3 / 2)
    assert parts.loss.item() == pytest.approx(0.1 * k3 / 2)


def test_masked_tokens_get_no_gradient() -> None:
    logp = torch.randn(3, 4, requires_grad=True)
    mask = torch.zeros(3, 4)
    mask[1, 2] = 1.0
    grpo_loss(logp, logp.detach(), torch.tensor([2.0, 1.0, -4.0]), mask, ref_logp=torch.zeros(3, 4), beta=0.5).loss.backward()
    assert logp.grad is not None
    nonzero = (logp.grad != 0).nonzero().tolist()
    assert nonzero == [[1, 2]]


def test_micro_batches_add_up_to_the_batch_loss() -> None:
    torch.manual_seed(0)
    logp, old = torch.randn(4, 5), torch.randn(4, 5)
    adv = torch.randn(4)
    mask = (torch.rand(4, 5) > 0.3).float()
    whole = grpo_loss(logp, old, adv, mask).loss
    n = mask.sum().item()
    halves = sum(grpo_loss(logp[i : i + 2], old[i : i + 2], adv[i : i + 2], mask[i : i + 2], normalizer=n).loss for i in (0, 2))
    assert float(halves) == pytest.approx(whole.item(), rel=1e-5)


def test_token_logprobs_match_log_softmax() -> None:
    torch.manual_seed(1)
    logits = torch.randn(2, 3, 7)
    targets = torch.randint(0, 7, (2, 3))
    expected = torch.log_softmax(logits / 0.7, dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    assert torch.allclose(token_logprobs(logits, targets, temperature=0.7), expected, atol=1e-5)


def _tiny_causal_lm(vocab: int = 300) -> torch.nn.Module:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64, tie_word_embeddings=False)
    return Qwen2ForCausalLM(config).float()


def _logprobs_and_grads(model: torch.nn.Module, chunk: int | None) -> tuple[torch.Tensor, list[torch.Tensor]]:
    from mcpgym.baselines.train.grpo import sequence_logprobs

    torch.manual_seed(2)
    ids = torch.randint(0, 300, (3, 11))
    attention = torch.ones_like(ids)
    attention[1, 8:] = 0  # right padding
    model.zero_grad()
    logp = sequence_logprobs(model, ids, attention, temperature=0.8, chunk=chunk)
    (logp * torch.linspace(-1, 1, logp.shape[1])).sum().backward()
    grads = [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]
    return logp.detach(), grads


@pytest.mark.parametrize("lora", [False, True], ids=["full-model", "lora"])
def test_chunked_logprobs_equal_the_full_logits_path_with_gradients(lora: bool) -> None:
    from mcpgym.baselines.train.grpo import _body_and_head

    model = _tiny_causal_lm()
    if lora:
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(model, LoraConfig(r=4, target_modules=["q_proj", "v_proj", "lm_head"], init_lora_weights=False))
    assert _body_and_head(model) is not None  # the chunked path is the one taken
    full, full_grads = _logprobs_and_grads(model, chunk=None)
    for chunk in (1, 4, 64):
        chunked, grads = _logprobs_and_grads(model, chunk=chunk)
        assert chunked.shape == full.shape == (3, 10)
        assert torch.allclose(chunked, full, atol=1e-5)
        assert len(grads) == len(full_grads) > 0
        assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(grads, full_grads))


def test_masked_logprobs_equal_the_full_path_where_the_loss_reads_and_are_zero_elsewhere() -> None:
    from mcpgym.baselines.train.grpo import right_padded, sequence_logprobs

    model = _tiny_causal_lm()
    torch.manual_seed(3)
    ids = torch.randint(0, 300, (3, 11))
    attention = torch.ones_like(ids)
    attention[1, 8:] = 0
    assert right_padded(attention) and not right_padded(torch.tensor([[0, 1, 1]])) and not right_padded(torch.tensor([[1, 0, 1]]))
    mask = torch.zeros(3, 10)
    mask[0, 2:5] = 1
    mask[1, 6:7] = 1
    mask[2, 9] = 1
    weights = torch.linspace(-1, 1, 10)
    results = []
    for kwargs in ({"chunk": None}, {"chunk": 2, "mask": mask}):
        model.zero_grad()
        logp = sequence_logprobs(model, ids, attention, temperature=0.8, **kwargs)  # type: ignore[arg-type]
        (logp * mask * weights).sum().backward()
        results.append((logp.detach(), [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]))
    (full, full_grads), (masked, grads) = results
    where = mask.bool()
    assert torch.allclose(masked[where], full[where], atol=1e-5) and bool((masked[~where] == 0).all())
    assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(grads, full_grads, strict=True))
    left = torch.ones_like(ids)
    left[2, :3] = 0  # left padding keeps its mask: the same values as the full path with it
    model.zero_grad()
    with torch.no_grad():
        expected = sequence_logprobs(model, ids, left, chunk=None)
        assert torch.allclose(sequence_logprobs(model, ids, left, chunk=2, mask=mask)[where], expected[where], atol=1e-5)


def test_models_with_soft_capped_logits_take_the_full_path() -> None:
    from mcpgym.baselines.train.grpo import _body_and_head

    model = _tiny_causal_lm()
    model.config.final_logit_softcapping = 30.0
    assert _body_and_head(model) is None
