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
    """Batched generation with the policy model (left padding, KV cache)."""

    def __init__(self, model: Any, eos_id: int, pad_id: int, batch_size: int = 64) -> None:
        self.model = model
        self.eos_id = eos_id
        self.pad_id = pad_id
        self.batch_size = batch_size

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
                result = self.model.generate(
                    input_ids=ids.to(device),
                    attention_mask=attention.to(device),
                    max_new_tokens=max_new_tokens,
                    eos_token_id=self.eos_id,
                    pad_token_id=self.pad_id,
                    use_cache=True,
                    **options,
                )
                for row, i in enumerate(chunk):
                    out[i] = cut_at_eos(result[row, width:].tolist(), self.eos_id)
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
        max_model_len: int | None = None, seed: int = 0,
    ) -> None:
        try:
            from vllm import LLM
        except ImportError as err:  # pragma: no cover - depends on the machine
            raise ImportError("rollout.backend = 'vllm' needs vLLM: pip install 'mcpgym[vllm]'") from err
        self.llm = LLM(
            model=model_path, dtype=dtype, gpu_memory_utilization=gpu_memory_utilization, max_model_len=max_model_len,
            seed=seed, enable_prefix_caching=True,
        )
        self.eos_id = eos_id

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
        )
        results = self.llm.generate([TokensPrompt(prompt_token_ids=p) for p in prompts], params, use_tqdm=False)
        return [cut_at_eos(list(r.outputs[0].token_ids), self.eos_id) for r in results]


__all__ = ["Generator", "Sampling", "TimedGenerator", "TransformersGenerator", "VllmGenerator", "cut_at_eos"]
