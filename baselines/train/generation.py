"""Generation backends: token prompts in, sampled token continuations out.

One interface, `Generator.generate(prompts, max_new_tokens, sampling)`, two backends:
- `TransformersGenerator`: the policy model itself, batched with left padding and the
  model's KV cache (`model.generate`); nothing to sync, it is the trained weights;
- `VllmGenerator`: a vLLM engine on the same model, where vLLM is installed; the policy's
  weights are loaded into it after every update (`sync`).
A third, `decoding.StaticDecoder`, decodes the policy model with a loop of its own (static KV
cache, CUDA graphs) and the same results as `TransformersGenerator`.

Prompts are sorted by length before batching, so a batch pads little; results come back in
the caller's order. Each continuation stops after the end-of-turn token (kept) or at
`max_new_tokens`.

With `record_logprobs`, each continuation is a `Sampled` list whose `logprobs` hold the
sampler's log-probability of every token it chose, for the importance-sampling correction
of the loss (`grpo.importance_weights`). A plain list (the static decoder's) has none.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import torch


@dataclass(frozen=True)
class Sampling:
    """How to pick tokens: greedy, or temperature and nucleus sampling."""

    temperature: float = 1.0
    top_p: float = 1.0
    greedy: bool = False


class Sampled(list[int]):
    """A continuation's token ids (a list) with the sampler's log-probability of each token
    (`logprobs`, same length), or None where the backend did not give them."""

    def __init__(self, ids: list[int], logprobs: list[float] | None = None) -> None:
        super().__init__(ids)
        if logprobs is not None and len(logprobs) != len(ids):
            raise ValueError(f"{len(logprobs)} log-probabilities for {len(ids)} tokens")
        self.logprobs = logprobs


def sampled_logprobs(tokens: list[int]) -> list[float] | None:
    """The sampler's log-probabilities of a continuation, when its generator recorded them."""
    return getattr(tokens, "logprobs", None)


class _ChosenLogprobs:
    """Records, during `model.generate`, the log-probability of each token chosen: at every
    step it keeps the log-softmax of the scores it is given (at the sampling temperature), and
    at the next step reads off the token that was picked. One [batch, vocabulary] tensor is
    kept, never the logits of every step (`output_logits` would hold them all). Custom
    processors run before generate's temperature and top-p warpers, so the scores are the
    model's (after any penalty its generation config sets) and the probabilities are those
    of the temperature-scaled distribution, the one the trainer scores."""

    def __init__(self, temperature: float) -> None:
        self.temperature = temperature
        self.previous: torch.Tensor | None = None
        self.chosen: list[torch.Tensor] = []

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        if self.previous is not None:
            self.take(input_ids[:, -1])
        self.previous = torch.log_softmax(scores.float() / self.temperature, dim=-1)
        return scores

    def take(self, tokens: torch.Tensor) -> None:
        assert self.previous is not None
        self.chosen.append(self.previous.gather(-1, tokens.unsqueeze(-1)).squeeze(-1))
        self.previous = None

    def finish(self, sequences: torch.Tensor, new_tokens: int) -> torch.Tensor:
        """[batch, new_tokens]: the log-probability of every generated position."""
        if self.previous is not None:
            self.take(sequences[:, -1])
        if len(self.chosen) != new_tokens:
            raise RuntimeError(f"recorded {len(self.chosen)} log-probabilities for {new_tokens} generated tokens")
        return torch.stack(self.chosen, dim=1) if self.chosen else sequences.new_zeros((sequences.shape[0], 0), dtype=torch.float32)


class Generator(Protocol):
    def generate(self, prompts: list[list[int]], max_new_tokens: int, sampling: Sampling) -> list[list[int]]: ...

    def sync(self, model: Any) -> None: ...


def cut_at_eos(tokens: list[int], eos_id: int) -> list[int]:
    """The tokens up to and including the first end-of-turn token (all of them if none)."""
    try:
        return tokens[: tokens.index(eos_id) + 1]
    except ValueError:
        return tokens


class TransformersGenerator:
    """Batched generation with the policy model (left padding, KV cache); with
    `record_logprobs`, continuations are `Sampled` with the chosen tokens' log-probabilities."""

    def __init__(self, model: Any, eos_id: int, pad_id: int, batch_size: int = 64, record_logprobs: bool = False) -> None:
        self.model = model
        self.eos_id = eos_id
        self.pad_id = pad_id
        self.batch_size = batch_size
        self.record_logprobs = record_logprobs

    def sync(self, model: Any) -> None:
        self.model = model

    @torch.no_grad()
    def generate(self, prompts: list[list[int]], max_new_tokens: int, sampling: Sampling) -> list[list[int]]:
        order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
        out: list[list[int]] = [[] for _ in prompts]
        device = next(self.model.parameters()).device
        was_training = self.model.training
        self.model.eval()
        try:
            for start in range(0, len(order), self.batch_size):
                chunk = order[start : start + self.batch_size]
                width = max(len(prompts[i]) for i in chunk)
                ids = torch.full((len(chunk), width), self.pad_id, dtype=torch.long)
                attention = torch.zeros((len(chunk), width), dtype=torch.long)
                for row, i in enumerate(chunk):
                    ids[row, width - len(prompts[i]) :] = torch.tensor(prompts[i])
                    attention[row, width - len(prompts[i]) :] = 1
                options: dict[str, Any] = {"do_sample": False}
                if not sampling.greedy:
                    options = {"do_sample": True, "temperature": sampling.temperature, "top_p": sampling.top_p, "top_k": 0}
                recorder = _ChosenLogprobs(1.0 if sampling.greedy else sampling.temperature) if self.record_logprobs else None
                if recorder is not None:
                    from transformers import LogitsProcessorList

                    options["logits_processor"] = LogitsProcessorList([recorder])
                result = self.model.generate(
                    input_ids=ids.to(device),
                    attention_mask=attention.to(device),
                    max_new_tokens=max_new_tokens,
                    eos_token_id=self.eos_id,
                    pad_token_id=self.pad_id,
                    use_cache=True,
                    **options,
                )
                logprobs = recorder.finish(result, result.shape[1] - width).tolist() if recorder is not None else None
                for row, i in enumerate(chunk):
                    tokens = cut_at_eos(result[row, width:].tolist(), self.eos_id)
                    out[i] = Sampled(tokens, logprobs[row][: len(tokens)]) if logprobs is not None else tokens
        finally:
            self.model.train(was_training)
        return out


class TimedGenerator:
    """Any generator, counting the seconds spent inside `generate` (for benchmarks)."""

    def __init__(self, inner: Generator) -> None:
        self.inner = inner
        self.seconds = 0.0

    def generate(self, prompts: list[list[int]], max_new_tokens: int, sampling: Sampling) -> list[list[int]]:
        started = time.perf_counter()
        try:
            return self.inner.generate(prompts, max_new_tokens, sampling)
        finally:
            self.seconds += time.perf_counter() - started

    def sync(self, model: Any) -> None:
        self.inner.sync(model)


class VllmGenerator:
    """Generation through vLLM (when installed); weights follow the policy through `sync`.

    `gpu_memory_utilization` is the share of GPU memory vLLM takes for its weights and KV cache
    (the rest is the trainer's); `max_model_len` bounds a sequence (prompt and completion),
    which sizes the KV cache it must be able to hold."""

    def __init__(
        self, model_path: str, eos_id: int, dtype: str = "auto", gpu_memory_utilization: float = 0.3,
        max_model_len: int | None = None, seed: int = 0, record_logprobs: bool = False,
    ) -> None:
        """`record_logprobs`: ask for the sampled token's log-probability (`logprobs=0` in
        `SamplingParams`, which returns the chosen token's alone) after temperature and top-p
        (`logprobs_mode="processed_logprobs"`, vLLM 0.10.2 or later; the default mode gives
        the model's raw distribution, before the temperature)."""
        try:
            from vllm import LLM
        except ImportError as err:  # pragma: no cover - depends on the machine
            raise ImportError("rollout.backend = 'vllm' needs vLLM: pip install 'mcpgym[vllm]'") from err
        extra: dict[str, Any] = {"logprobs_mode": "processed_logprobs"} if record_logprobs else {}
        self.llm = LLM(
            model=model_path, dtype=dtype, gpu_memory_utilization=gpu_memory_utilization, max_model_len=max_model_len,
            seed=seed, enable_prefix_caching=True, **extra,
        )
        self.eos_id = eos_id
        self.record_logprobs = record_logprobs

    def sync(self, model: Any) -> None:
        """Load the policy's weights into the engine. The tensors are streamed from the model's
        own state (with LoRA, while the adapters are folded in), never copied first: a sync
        needs no second copy of the weights."""
        if hasattr(model, "merge_adapter"):  # LoRA: the base weights with the adapters folded in
            model.merge_adapter()
            try:
                self._load(
                    (name.removeprefix("base_model.model.").replace(".base_layer", ""), tensor)
                    for name, tensor in model.state_dict().items()
                    if "lora_" not in name
                )
            finally:
                model.unmerge_adapter()
        else:
            self._load(iter(model.state_dict().items()))
        self.llm.reset_prefix_cache()

    def _load(self, weights: Iterator[tuple[str, Any]]) -> None:
        self.llm.llm_engine.model_executor.driver_worker.model_runner.model.load_weights(weights)

    def generate(self, prompts: list[list[int]], max_new_tokens: int, sampling: Sampling) -> list[list[int]]:  # pragma: no cover
        from vllm import SamplingParams, TokensPrompt

        params = SamplingParams(
            temperature=0.0 if sampling.greedy else sampling.temperature,
            top_p=1.0 if sampling.greedy else sampling.top_p,
            max_tokens=max_new_tokens,
            stop_token_ids=[self.eos_id],
            skip_special_tokens=False,
            logprobs=0 if self.record_logprobs else None,
        )
        results = self.llm.generate([TokensPrompt(prompt_token_ids=p) for p in prompts], params, use_tqdm=False)
        out: list[list[int]] = []
        for result in results:
            completion = result.outputs[0]
            tokens = cut_at_eos(list(completion.token_ids), self.eos_id)
            if not self.record_logprobs or completion.logprobs is None:
                out.append(tokens)
                continue
            # one {token id: Logprob} per position, holding at least the sampled token
            steps = completion.logprobs[: len(tokens)]
            known = len(steps) == len(tokens) and all(t in step for t, step in zip(tokens, steps, strict=True))
            out.append(Sampled(tokens, [float(step[t].logprob) for t, step in zip(tokens, steps, strict=True)]) if known else tokens)
        return out


__all__ = ["Generator", "Sampled", "Sampling", "TimedGenerator", "TransformersGenerator", "VllmGenerator", "cut_at_eos", "sampled_logprobs"]
