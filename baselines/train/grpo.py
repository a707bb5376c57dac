"""The GRPO objective as pure tensor functions: advantages, token log-probabilities, the loss.

- Advantage of episode i in group g: (r_i - mean_g) / (std_g + eps), the sample standard
  deviation of the group; without the division when `scale_by_std` is off (Dr. GRPO).
- Per model token t: ratio = exp(logp - old_logp); surrogate = min(ratio * A,
  clip(ratio, 1 - clip_low, 1 + clip_high) * A); KL to the reference by the k3 estimator
  exp(ref - logp) - (ref - logp) - 1 (zero when policy and reference agree, never negative);
  loss_t = -surrogate + beta * KL.
- Only masked tokens count (the model's own sampled tokens of episodes not filtered out).
  `token-mean` averages over every counted token of the batch; `sequence-mean` averages
  within each episode, then over episodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch

Aggregation = Literal["token-mean", "sequence-mean"]


def group_advantages(rewards: torch.Tensor, groups: torch.Tensor, scale_by_std: bool = True, eps: float = 1e-4) -> torch.Tensor:
    """Reward minus its group's mean, over the group's standard deviation if `scale_by_std`."""
    advantages = torch.zeros_like(rewards, dtype=torch.float32)
    for group in torch.unique(groups):
        members = groups == group
        values = rewards[members].float()
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


def sequence_logprobs(model: torch.nn.Module, ids: torch.Tensor, attention: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """log p of tokens 1..L-1 of each (right-padded) sequence given the ones before: [batch, L-1]."""
    logits = model(input_ids=ids, attention_mask=attention, use_cache=False).logits[:, :-1]
    return token_logprobs(logits, ids[:, 1:], temperature)


@dataclass
class LossParts:
    loss: torch.Tensor
    kl: float
    clip_fraction: float
    ratio_mean: float
    tokens: int


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
) -> LossParts:
    """The clipped, KL-penalised policy-gradient loss over the masked tokens.

    `logp`, `old_logp`, `ref_logp`, `mask`: [batch, length]; `advantages`: [batch].
    `normalizer` replaces the count of the batch's tokens (token-mean) or episodes
    (sequence-mean), so micro-batches of one batch add up to the loss of the whole batch."""
    mask = mask.float()
    ratio = torch.exp(logp - old_logp)
    adv = advantages.unsqueeze(-1).to(logp.dtype)
    clipped = torch.clamp(ratio, 1 - clip_low, 1 + clip_high)
    per_token = -torch.minimum(ratio * adv, clipped * adv)
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
        )


__all__ = ["LossParts", "grpo_loss", "group_advantages", "sequence_logprobs", "token_logprobs"]
