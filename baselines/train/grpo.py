"""The GRPO objective as pure tensor functions: advantages, token log-probabilities, the loss.

- Advantage of episode i in group g: (r_i - mean_g) / (std_g + eps), the sample standard
  deviation of the group; without the division when `scale_by_std` is off (Dr. GRPO).
- Per model token t: ratio = exp(logp - old_logp); surrogate = min(ratio * A,
  clip(ratio, 1 - clip_low, 1 + clip_high) * A); KL to the reference by the k3 estimator
  exp(ref - logp) - (ref - logp) - 1 (zero when policy and reference agree, never negative);
  loss_t = -surrogate + beta * KL.
- Advantages are per episode ([batch], every token of an episode the same) or per token
  ([batch, length], e.g. each token its turn's: `credit`).
- Importance-sampling correction: where the sampler computed its log-probabilities apart from
  the trainer (vLLM, other kernels or precision), each token's surrogate is weighted by the
  truncated ratio min(exp(old_logp - sampler_logp), cap) (`importance_weights`), constant in
  the gradient.
- Only masked tokens count (the model's own sampled tokens of episodes not filtered out).
  `token-mean` averages over every counted token of the batch; `sequence-mean` averages
  within each episode, then over episodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch.utils.checkpoint import checkpoint

Aggregation = Literal["token-mean", "sequence-mean"]


EQUAL_REWARDS = 1e-6
"""Rewards closer than this are the same reward to `group_advantages`."""


def group_advantages(rewards: torch.Tensor, groups: torch.Tensor, scale_by_std: bool = True, eps: float = 1e-4) -> torch.Tensor:
    """Reward minus its group's mean, over the group's standard deviation if `scale_by_std`.

    A group whose rewards are equal (within `EQUAL_REWARDS`; float rounding leaves the mean of
    equal values a hair off them) carries no signal: its advantages are exactly 0."""
    advantages = torch.zeros_like(rewards, dtype=torch.float32)
    for group in torch.unique(groups):
        members = groups == group
        values = rewards[members].float()
        if values.numel() < 2 or float(values.max() - values.min()) <= EQUAL_REWARDS:
            continue
        centred = values - values.mean()
        if scale_by_std:
            std = values.std() if values.numel() > 1 else torch.tensor(0.0)
            centred = centred / (std + eps) if std > 0 else torch.zeros_like(centred)
        advantages[members] = centred
    return advantages


def token_logprobs(logits: torch.Tensor, targets: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """log p(target) under `logits / temperature`, computed row by row to bound memory.

    `logits` [batch, length, vocab] predicts `targets` [batch, length]."""
    out = torch.empty(targets.shape, dtype=torch.float32, device=logits.device)
    for row in range(logits.shape[0]):
        scaled = logits[row].float() / temperature
        out[row] = scaled.gather(-1, targets[row].unsqueeze(-1)).squeeze(-1) - torch.logsumexp(scaled, dim=-1)
    return out


LOGPROB_CHUNK = 512
"""Sequence positions whose logits exist at once in `sequence_logprobs`."""


def sequence_logprobs(
    model: torch.nn.Module, ids: torch.Tensor, attention: torch.Tensor | None, temperature: float = 1.0,
    chunk: int | None = LOGPROB_CHUNK, mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """log p of tokens 1..L-1 of each (right-padded) sequence given the ones before: [batch, L-1].

    With `chunk`, the model's body runs once and its output head `chunk` positions at a time,
    each chunk's logits recomputed in the backward pass rather than kept: the full
    [batch, length, vocabulary] logits (and an fp32 copy) never exist at once, which is most of
    an update's memory for a model with a large vocabulary. Models whose forward does more
    than apply the head to the last hidden state (logit soft-capping) take the full path.

    `mask` ([batch, L-1], the loss mask): the head runs only where it is nonzero, and the other
    positions are 0 (on the chunked path; the full path computes every position). The loss of
    a policy reads a few sampled tokens of long sequences, so this skips most of the head.

    A right-padded batch (every row of `attention` ones, then zeros) is run without the mask:
    causal attention alone gives every real token the same result, since padding only ever
    follows it, and attention kernels run faster without an explicit mask."""
    attention = None if attention is None or right_padded(attention) else attention
    split = _body_and_head(model) if chunk else None
    if split is None:
        logits = model(input_ids=ids, attention_mask=attention, use_cache=False).logits[:, :-1]
        return token_logprobs(logits, ids[:, 1:], temperature)
    assert chunk is not None
    body, head = split
    hidden = body(input_ids=ids, attention_mask=attention, use_cache=False).last_hidden_state[:, :-1]
    targets = ids[:, 1:]
    if mask is not None:
        where = mask.bool()
        values = _chunked(head, hidden[where].unsqueeze(0), targets[where].unsqueeze(0), temperature, chunk * ids.shape[0])
        out = torch.zeros(targets.shape, dtype=torch.float32, device=hidden.device)
        return out.masked_scatter(where, values.squeeze(0))
    return _chunked(head, hidden, targets, temperature, chunk)


def right_padded(attention: torch.Tensor) -> bool:
    """Whether every row of an attention mask is ones followed by zeros (at least one one)."""
    if attention.dim() != 2 or attention.shape[1] == 0:
        return False
    ones = attention != 0
    return bool(ones[:, 0].all()) and bool((ones[:, 1:] <= ones[:, :-1]).all())


def _chunked(head: torch.nn.Module, hidden: torch.Tensor, targets: torch.Tensor, temperature: float, chunk: int) -> torch.Tensor:
    """`token_logprobs` of `head(hidden)`, `chunk` positions at a time, each chunk's logits
    recomputed in the backward pass."""
    parts = []
    for start in range(0, targets.shape[1], chunk):
        piece, wanted = hidden[:, start : start + chunk], targets[:, start : start + chunk]
        if torch.is_grad_enabled() and piece.requires_grad:
            parts.append(checkpoint(_head_logprobs, head, piece, wanted, temperature, use_reentrant=False))
        else:
            parts.append(_head_logprobs(head, piece, wanted, temperature))
    return torch.cat(parts, dim=1) if parts else hidden.new_zeros(targets.shape, dtype=torch.float32)


def _head_logprobs(head: torch.nn.Module, hidden: torch.Tensor, targets: torch.Tensor, temperature: float) -> torch.Tensor:
    return token_logprobs(head(hidden), targets, temperature)


def _body_and_head(model: torch.nn.Module) -> tuple[torch.nn.Module, torch.nn.Module] | None:
    """The model's decoder (hidden states) and output head, for a causal LM (or a PEFT wrapper
    of one) whose logits are exactly `head(last_hidden_state)`; None for any other model."""
    config = getattr(model, "config", None)
    if config is None or getattr(config, "final_logit_softcapping", None) or getattr(config, "logit_scale", None):
        return None
    try:
        body, head = model.get_decoder(), model.get_output_embeddings()
    except (AttributeError, NotImplementedError):
        return None
    if not isinstance(body, torch.nn.Module) or not isinstance(head, torch.nn.Module) or body is model:
        return None
    return body, head


def importance_weights(old_logp: torch.Tensor, sampler_logp: torch.Tensor, cap: float) -> torch.Tensor:
    """min(exp(old_logp - sampler_logp), cap) per token, without gradient; 1 where
    `sampler_logp` is NaN (not known)."""
    if cap <= 0:
        raise ValueError(f"the importance weight cap must be positive, got {cap}")
    with torch.no_grad():
        known = ~torch.isnan(sampler_logp)
        delta = torch.where(known, old_logp.detach().float() - torch.nan_to_num(sampler_logp.float()), torch.zeros_like(old_logp, dtype=torch.float32))
        return torch.clamp(torch.exp(delta), max=cap)


@dataclass
class LossParts:
    loss: torch.Tensor
    kl: float
    clip_fraction: float
    ratio_mean: float
    tokens: int
    is_weight_mean: float = 1.0
    """Mean importance weight over the counted tokens (1 without the correction)."""
    is_truncated: float = 0.0
    """Share of counted tokens whose importance weight was cut at the cap."""


def grpo_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    ref_logp: torch.Tensor | None = None,
    beta: float = 0.0,
    clip_low: float = 0.2,
    clip_high: float = 0.2,
    aggregation: Aggregation = "token-mean",
    normalizer: float | None = None,
    is_weights: torch.Tensor | None = None,
    is_cap: float | None = None,
) -> LossParts:
    """The clipped, KL-penalised policy-gradient loss over the masked tokens.

    `logp`, `old_logp`, `ref_logp`, `mask`: [batch, length]; `advantages`: [batch] (one per
    episode) or [batch, length] (one per token). `normalizer` replaces the count of the
    batch's tokens (token-mean) or episodes (sequence-mean), so micro-batches of one batch add
    up to the loss of the whole batch. `is_weights` ([batch, length], `importance_weights`)
    multiply each token's surrogate; `is_cap` (their cap) only counts how many were cut."""
    if advantages.dim() == 1 and advantages.shape[0] == logp.shape[0]:
        adv = advantages.unsqueeze(-1).to(logp.dtype)
    elif advantages.shape == logp.shape:
        adv = advantages.to(logp.dtype)
    else:
        raise ValueError(f"advantages of shape {tuple(advantages.shape)} fit neither [batch] nor [batch, length] = {tuple(logp.shape)}")
    if is_weights is not None and is_weights.shape != logp.shape:
        raise ValueError(f"importance weights of shape {tuple(is_weights.shape)} for log-probabilities of {tuple(logp.shape)}")
    mask = mask.float()
    ratio = torch.exp(logp - old_logp)
    clipped = torch.clamp(ratio, 1 - clip_low, 1 + clip_high)
    per_token = -torch.minimum(ratio * adv, clipped * adv)
    if is_weights is not None:
        per_token = per_token * is_weights.to(per_token.dtype)
    kl = torch.zeros_like(logp)
    if ref_logp is not None and beta > 0:
        delta = ref_logp - logp
        kl = torch.exp(delta) - delta - 1
        per_token = per_token + beta * kl
    if aggregation == "token-mean":
        denominator = normalizer if normalizer is not None else mask.sum().clamp(min=1).item()
        loss = (per_token * mask).sum() / denominator
    else:
        lengths = mask.sum(-1).clamp(min=1)
        per_episode = (per_token * mask).sum(-1) / lengths
        denominator = normalizer if normalizer is not None else max(mask.shape[0], 1)
        loss = per_episode.sum() / denominator
    counted = mask.sum().clamp(min=1)
    with torch.no_grad():
        was_clipped = ((ratio < 1 - clip_low) & (adv < 0)) | ((ratio > 1 + clip_high) & (adv > 0))
        return LossParts(
            loss=loss,
            kl=float((kl * mask).sum() / counted),
            clip_fraction=float((was_clipped.float() * mask).sum() / counted),
            ratio_mean=float((ratio * mask).sum() / counted),
            tokens=int(mask.sum().item()),
            is_weight_mean=1.0 if is_weights is None else float((is_weights * mask).sum() / counted),
            is_truncated=0.0 if is_weights is None or is_cap is None else float(((is_weights >= is_cap).float() * mask).sum() / counted),
        )


__all__ = [
    "LOGPROB_CHUNK", "LossParts", "grpo_loss", "group_advantages", "importance_weights", "right_padded", "sequence_logprobs",
    "token_logprobs",
]
