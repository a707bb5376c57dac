"""A fast decode loop for the policy model: a static KV cache and a device-only decode step.

`StaticDecoder` implements the `Generator` protocol with the same contract as
`TransformersGenerator` (results in the caller's order, each cut after the first end-of-turn
token, kept, or at `max_new_tokens`; greedy outputs equal `model.generate`'s), but decodes
with its own loop instead of `model.generate`:

- prompts are sorted by length and batched (`batch_size`), left padded, and prefilled in one
  forward into a transformers `StaticCache` as long as the prompt width plus
  `max_new_tokens`, rounded up to `cache_step`; position ids come from the attention mask's
  cumulative sum, so left padding does not shift positions;
- a decode step does everything on the device with fixed shapes: the one-token forward, the
  choice of the next token (argmax, or temperature and top-p sampling by an exponential race,
  so without `torch.multinomial`'s host sync), writing it into a preallocated token buffer and
  updating the per-row finished flags (a finished row emits pad). The host looks at the
  finished flags only every `check_every` steps;
- on CUDA each step is captured once into a CUDA graph (optionally after `torch.compile`
  fuses its kernels) and replayed; on the CPU it runs eagerly;
- when the rows still running fall to half of the batch bucket or fewer, they are gathered,
  KV cache included, into the next smaller power-of-two bucket, so finished rows stop costing;
- the buffers (and graphs) of each bucket size and cache length are kept for later calls, so
  repeated rollout turns do not capture or compile again.

Supports models whose forward takes a `StaticCache` (as `cache`, or `past_key_values` before
transformers renamed it), `position_ids`, a 2D `attention_mask` and `logits_to_keep` and
whose cache layers are all full-attention
`StaticLayer`s (Qwen2, Llama, Mistral without a sliding window, and peft LoRA wrappers of
them). A construction-time probe decodes a few tokens through the cache and compares them with
a plain forward, so a model this loop cannot drive fails there with `UnsupportedModelError`,
never with wrong tokens later.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import torch

from mcpgym.baselines.train.generation import Sampling, cut_at_eos

Mode = Literal["greedy", "sample", "nucleus"]
"""How a step picks tokens: argmax; sampling at a temperature; the same within the top-p nucleus."""

WARMUP_STEPS = 3
"""Eager runs of a step on a side stream before it is captured (compiles and autotunes)."""

PROBE_TOLERANCE = {torch.float32: 1e-3, torch.float64: 1e-6}
"""Largest relative gap between cached and plain logits the probe accepts; 16-bit: 5e-2."""

PROBE_CACHE = 8
"""Cache length of the construction-time probe."""


class UnsupportedModelError(ValueError):
    """The model cannot be decoded with a static cache by this loop."""


@dataclass
class DecodeStats:
    """What the last `generate` call did (for tests and benchmarks)."""

    chunks: int = 0
    steps: int = 0
    """Decode steps run (one-token forwards), summed over chunks."""
    row_steps: int = 0
    """Rows computed by those steps (bucket size per step, summed): what compaction saves."""
    compactions: list[tuple[int, int]] = field(default_factory=list)
    """(rows before, rows after) of each bucket change."""
    new_buffers: int = 0
    """Sets of static buffers (KV cache included) allocated during the call."""
    captures: int = 0
    """CUDA graphs captured during the call."""
    syncs: int = 0
    """Reads of the finished flags (host syncs) during decoding."""


def sampling_mode(sampling: Sampling) -> Mode:
    if sampling.greedy:
        return "greedy"
    return "nucleus" if sampling.top_p < 1.0 else "sample"


def choose_tokens(logits: torch.Tensor, mode: Mode, temperature: torch.Tensor, top_p: torch.Tensor) -> torch.Tensor:
    """The next token of each row of `logits` [rows, vocab], on the device, without host syncs.

    Sampling is an exponential race: argmax of p / E with E ~ Exp(1) draws from p, and tokens
    outside the top-p nucleus get p = 0. `temperature` and `top_p` are one-element tensors, so
    new values need no new graph."""
    if mode == "greedy":
        return logits.argmax(-1)
    probs = (logits.float() / temperature).softmax(-1)
    tiny = torch.finfo(torch.float32).tiny
    if mode == "sample":
        return (probs / torch.empty_like(probs).exponential_().clamp_min_(tiny)).argmax(-1)
    ranked, order = probs.sort(dim=-1, descending=True, stable=True)
    ranked = ranked.masked_fill(ranked.cumsum(-1) - ranked >= top_p, 0.0)  # the mass ranked above >= top_p
    pick = (ranked / torch.empty_like(ranked).exponential_().clamp_min_(tiny)).argmax(-1, keepdim=True)
    return order.gather(-1, pick).squeeze(-1)


def bucket_size(rows: int, batch_size: int) -> int:
    """The smallest power of two holding `rows`, at most `batch_size`."""
    return min(1 << max(rows - 1, 0).bit_length(), batch_size)


def round_up(n: int, step: int) -> int:
    return -(-n // step) * step


# ---------------------------------------------------------------------------- the KV cache


def new_static_cache(model: Any, cache_len: int) -> Any:
    """An empty transformers `StaticCache` for `model` (allocated by its first update)."""
    from transformers import StaticCache

    config = getattr(model, "config", None)
    if config is None:
        raise UnsupportedModelError(f"{type(model).__name__} has no `config`; StaticDecoder needs a transformers causal LM")
    return StaticCache(config=config, max_cache_len=cache_len)


def cache_layers(cache: Any) -> list[Any]:
    """The layers of `cache`, checked to be plain full-attention static layers."""
    from transformers.cache_utils import StaticLayer

    layers = list(getattr(cache, "layers", []))
    if not layers:
        raise UnsupportedModelError("this transformers version's StaticCache has no `layers`; StaticDecoder needs transformers >= 4.56")
    for layer in layers:
        if type(layer) is not StaticLayer:
            raise UnsupportedModelError(
                f"cache layer {type(layer).__name__} is not supported (sliding-window, linear-attention or other "
                "non-static layers keep host-side state); StaticDecoder needs full-attention StaticLayer caches"
            )
    return layers


def positions_itself(cache: Any) -> bool:
    """Whether the cache's layers keep their own write position (a `cumulative_length` tensor,
    transformers 5) rather than taking `cache_position` from the forward (transformers 4)."""
    return all(isinstance(getattr(layer, "cumulative_length", None), torch.Tensor) for layer in cache_layers(cache))


def set_cache_length(cache: Any, length: torch.Tensor | int) -> None:
    """Set the write position of a self-positioned cache, in place (graphs keep its address)."""
    for layer in cache_layers(cache):
        counter = getattr(layer, "cumulative_length", None)
        if isinstance(counter, torch.Tensor):
            if isinstance(length, torch.Tensor):
                counter.copy_(length.reshape(counter.shape))
            else:
                counter.fill_(length)


# ---------------------------------------------------------------------------- one decode step


def forward_logits(
    model: Any,
    ids: torch.Tensor,
    attention: torch.Tensor,
    position: torch.Tensor,
    cache: Any,
    cache_position: torch.Tensor | None,
) -> torch.Tensor:
    """Logits [rows, vocab] of the last position of `ids` [rows, n], written into `cache`."""
    extra = {} if cache_position is None else {"cache_position": cache_position}
    out = model(
        input_ids=ids,
        attention_mask=attention,
        position_ids=position,
        use_cache=True,
        logits_to_keep=1,
        **{cache_keyword(model): cache},
        **extra,
    )
    return out.logits[:, -1, :]


def cache_keyword(model: Any) -> str:
    """The keyword `model`'s forward takes its KV cache by: `cache` in transformers releases
    that renamed it (where `past_key_values` still works, with a deprecation warning), else
    `past_key_values`. A wrapper (a PEFT model) is looked through to the model it wraps."""
    inner = model.get_base_model() if callable(getattr(model, "get_base_model", None)) else model
    return _cache_keyword_of(type(inner))


@functools.cache
def _cache_keyword_of(model_class: type) -> str:
    try:
        parameters = inspect.signature(model_class.forward).parameters
    except (AttributeError, TypeError, ValueError):
        return "past_key_values"
    return "cache" if "cache" in parameters else "past_key_values"


def decode_step(
    model: Any,
    cache: Any,
    tokens: torch.Tensor,
    attention: torch.Tensor,
    position: torch.Tensor,
    cursor: torch.Tensor,
    finished: torch.Tensor,
    temperature: torch.Tensor,
    top_p: torch.Tensor,
    mode: Mode,
    eos_id: int,
    pad_id: int,
    pass_cache_position: bool,
) -> None:
    """Feed the token at `cursor` of each row, write the next one at `cursor + 1`.

    Every argument is updated in place, nothing is read back to the host: fixed shapes and
    addresses, so the step can be captured in a CUDA graph."""
    ids = tokens.index_select(1, cursor)
    attention.index_fill_(1, cursor, 1)
    logits = forward_logits(model, ids, attention, position, cache, cursor if pass_cache_position else None)
    chosen = choose_tokens(logits, mode, temperature, top_p)
    chosen = chosen.masked_fill(finished, pad_id)
    finished.logical_or_(chosen == eos_id)
    cursor.add_(1)
    tokens.index_copy_(1, cursor, chosen.unsqueeze(1))
    position.add_(1)


class Slot:
    """The static buffers of one bucket size and cache length, and the graphs that use them."""

    def __init__(self, model: Any, rows: int, cache_len: int, pad_id: int, device: torch.device) -> None:
        self.rows, self.cache_len = rows, cache_len
        self.cache = new_static_cache(model, cache_len)
        self.tokens = torch.full((rows, cache_len), pad_id, dtype=torch.long, device=device)
        self.attention = torch.zeros((rows, cache_len), dtype=torch.long, device=device)
        self.position = torch.zeros((rows, 1), dtype=torch.long, device=device)
        self.cursor = torch.zeros(1, dtype=torch.long, device=device)
        self.finished = torch.zeros(rows, dtype=torch.bool, device=device)
        self.temperature = torch.ones(1, dtype=torch.float32, device=device)
        self.top_p = torch.ones(1, dtype=torch.float32, device=device)
        self.graphs: dict[Mode, Any] = {}

    def rewind(self) -> None:
        """A harmless state to run a throwaway step from (warm-up, capture)."""
        self.attention.zero_()
        self.attention[:, 0] = 1
        self.position.zero_()
        self.cursor.zero_()
        self.finished.zero_()
        set_cache_length(self.cache, 0)

    def take(self, other: Slot, index: torch.Tensor, running: torch.Tensor) -> None:
        """Become rows `index` of `other` (same cache length), cache included; rows where
        `running` is False are marked finished."""
        for mine, theirs in zip(cache_layers(self.cache), cache_layers(other.cache), strict=True):
            mine.keys.copy_(theirs.keys.index_select(0, index))
            mine.values.copy_(theirs.values.index_select(0, index))
        set_cache_length(self.cache, other.cursor)
        for name in ("tokens", "attention", "position"):
            getattr(self, name).copy_(getattr(other, name).index_select(0, index))
        self.finished.copy_(other.finished.index_select(0, index).logical_or(~running))
        self.cursor.copy_(other.cursor)
        self.temperature.copy_(other.temperature)
        self.top_p.copy_(other.top_p)


# ---------------------------------------------------------------------------- the decoder


class StaticDecoder:
    """Batched decoding with a static KV cache and a device-only, graph-captured step.

    `compile`: fuse the step's kernels with `torch.compile` before capturing it (None: on
    CUDA only). `cuda_graph`: capture each step in a CUDA graph (None: on CUDA only; CUDA
    needed). `keep_lengths`: how many cache lengths keep their buffers between calls (each
    holds a KV cache per bucket size, up to about twice the largest bucket's)."""

    def __init__(
        self,
        model: Any,
        eos_id: int,
        pad_id: int,
        batch_size: int = 64,
        check_every: int = 8,
        compile: bool | None = None,
        cuda_graph: bool | None = None,
        cache_step: int = 256,
        keep_lengths: int = 4,
    ) -> None:
        if batch_size < 1 or check_every < 1 or cache_step < 1 or keep_lengths < 1:
            raise ValueError("batch_size, check_every, cache_step and keep_lengths must be positive")
        self.eos_id, self.pad_id = eos_id, pad_id
        self.batch_size, self.check_every = batch_size, check_every
        self.cache_step, self.keep_lengths = cache_step, keep_lengths
        self._compile_option, self._graph_option = compile, cuda_graph
        self.stats = DecodeStats()
        self._slots: OrderedDict[int, dict[int, Slot]] = OrderedDict()
        self._pool: Any = None
        self._weights: tuple[int, ...] = ()
        self._bind(model)

    # -------------------------------------------------------------- set-up

    def _bind(self, model: Any) -> None:
        """Take `model`: resolve the device options, drop old buffers, probe the model."""
        self.model = model
        try:
            parameter = next(model.parameters())
        except (AttributeError, StopIteration) as err:
            raise UnsupportedModelError(f"{type(model).__name__} has no parameters; StaticDecoder needs a causal LM") from err
        self.device = parameter.device
        on_cuda = self.device.type == "cuda"
        if self._graph_option and not on_cuda:
            raise ValueError(f"cuda_graph=True needs the model on a CUDA device, not {self.device}")
        self.use_graphs = on_cuda if self._graph_option is None else self._graph_option
        self.use_compile = on_cuda if self._compile_option is None else self._compile_option
        # dynamic=None: the first shape compiles static, a second one marks the changed sizes
        # (rows, cache length) dynamic, and that graph serves every later bucket and length
        self._step_impl: Callable[..., None] = torch.compile(decode_step, dynamic=None) if self.use_compile else decode_step
        self.clear()
        self.pass_cache_position = self._probe(parameter.dtype)

    def shapes(self) -> list[tuple[int, int]]:
        """(cache length, rows) of every kept set of buffers, oldest cache length first."""
        return [(length, rows) for length, slots in self._slots.items() for rows in sorted(slots)]

    def clear(self) -> None:
        """Free every kept buffer and graph (the next call allocates and captures again)."""
        self._slots.clear()
        self._pool = None
        self._weights = ()

    def sync(self, model: Any) -> None:
        """Follow the policy: the same model object keeps its buffers and graphs (its weights
        are read in place); another one is probed and starts afresh."""
        if model is not self.model:
            self._bind(model)

    @torch.no_grad()
    def _probe(self, dtype: torch.dtype) -> bool:
        """Decode two left-padded rows through a static cache and compare the logits with a
        plain forward of each row alone; returns whether `cache_position` must be passed.
        Raises `UnsupportedModelError` when the model cannot be driven this way."""
        name = type(self.model).__name__
        with self._eval():
            cache = new_static_cache(self.model, PROBE_CACHE)
            pass_cache_position = not positions_itself(cache)
            try:
                vocab = self.model.get_input_embeddings().num_embeddings
                rows = [[(7 * i + 3) % vocab for i in range(5)], [(11 * i + 5) % vocab for i in range(2)]]
                got = self._probe_cached(cache, rows, pass_cache_position)
                cache_layers(cache)
                want = torch.stack([self.model(input_ids=torch.tensor([r], device=self.device)).logits[0, -1] for r in rows])
            except UnsupportedModelError:
                raise
            except Exception as err:
                raise UnsupportedModelError(
                    f"StaticDecoder cannot drive {name}: its forward must accept a StaticCache, "
                    f"position_ids, a 2D attention_mask and logits_to_keep ({type(err).__name__}: {err})"
                ) from err
        gap = float((got.float() - want.float()).abs().max() / want.float().abs().max().clamp_min(1e-6))
        if not gap <= PROBE_TOLERANCE.get(dtype, 5e-2):
            raise UnsupportedModelError(
                f"StaticDecoder cannot drive {name}: logits decoded through a StaticCache differ from a plain "
                f"forward by {gap:.2g} of their scale (the model ignores the cache, the positions or the mask)"
            )
        return pass_cache_position

    def _probe_cached(self, cache: Any, rows: list[list[int]], pass_cache_position: bool) -> torch.Tensor:
        """Last-position logits of `rows`: all but the last token prefilled (left padded), the
        last one decoded as a one-token step."""
        device, width = self.device, max(len(r) for r in rows) - 1
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long, device=device)
        attention = torch.zeros((len(rows), PROBE_CACHE), dtype=torch.long, device=device)
        for i, row in enumerate(rows):
            ids[i, width - len(row) + 1 :] = torch.tensor(row[:-1], device=device)
            attention[i, width - len(row) + 1 : width] = 1
        position = (attention[:, :width].cumsum(-1) - 1).clamp_min(0)
        cache_position = torch.arange(width, device=device) if pass_cache_position else None
        forward_logits(self.model, ids, attention, position, cache, cache_position)
        last = torch.tensor([[row[-1]] for row in rows], device=device)
        position = attention[:, :width].sum(-1, keepdim=True)
        attention[:, width] = 1
        cache_position = torch.tensor([width], device=device) if pass_cache_position else None
        return forward_logits(self.model, last, attention, position, cache, cache_position)

    # -------------------------------------------------------------- generation

    @torch.no_grad()
    def generate(self, prompts: list[list[int]], max_new_tokens: int, sampling: Sampling) -> list[list[int]]:
        """Continuations of `prompts`, in their order, each cut after its first eos or at
        `max_new_tokens`."""
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be positive, not {max_new_tokens}")
        if any(not p for p in prompts):
            raise ValueError("every prompt needs at least one token")
        self.stats = DecodeStats()
        out: list[list[int]] = [[] for _ in prompts]
        order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
        with self._eval():
            self._check_weights()
            for start in range(0, len(order), self.batch_size):
                chunk = order[start : start + self.batch_size]
                for i, tokens in zip(chunk, self._decode_chunk([prompts[i] for i in chunk], max_new_tokens, sampling), strict=True):
                    out[i] = tokens
        return out

    @contextlib.contextmanager
    def _eval(self) -> Iterator[None]:
        was_training = self.model.training
        self.model.eval()
        try:
            yield
        finally:
            self.model.train(was_training)

    def _check_weights(self) -> None:
        """Graphs read the weights where they were at capture: drop them if they moved."""
        if not self.use_graphs:
            return
        weights = tuple(t.data_ptr() for t in (*self.model.parameters(), *self.model.buffers()))
        if weights != self._weights:
            self.clear()
            self._weights = weights

    def _decode_chunk(self, prompts: list[list[int]], max_new_tokens: int, sampling: Sampling) -> list[list[int]]:
        self.stats.chunks += 1
        mode = sampling_mode(sampling)
        width = max(len(p) for p in prompts)
        cache_len = round_up(width + max_new_tokens, self.cache_step)
        slot = self._slot(bucket_size(len(prompts), self.batch_size), cache_len, mode)
        self._prefill(slot, prompts, width, mode, sampling)
        rows = list(range(len(prompts)))  # rows[j]: the prompt in row j of the slot; rows past these are fillers
        out: list[list[int]] = [[] for _ in prompts]
        span = slice(width, width + max_new_tokens)
        for step in range(max_new_tokens - 1):
            if step % self.check_every == 0:
                slot, rows = self._check(slot, rows, out, span, mode)
                if not rows:
                    break
            self._run(slot, mode)
            self.stats.steps += 1
            self.stats.row_steps += slot.rows
        self._harvest(slot, rows, range(len(rows)), out, span)
        return [cut_at_eos(tokens, self.eos_id) for tokens in out]

    def _prefill(self, slot: Slot, prompts: list[list[int]], width: int, mode: Mode, sampling: Sampling) -> None:
        """Left-pad `prompts` into the slot, run the prompt forward, choose the first token."""
        device = self.device
        ids = torch.full((slot.rows, width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((slot.rows, width), dtype=torch.long)
        for row, prompt in enumerate(prompts):
            ids[row, width - len(prompt) :] = torch.tensor(prompt)
            mask[row, width - len(prompt) :] = 1
        mask[len(prompts) :, -1] = 1  # filler rows: one pad token, finished from the start
        ids, mask = ids.to(device), mask.to(device)
        slot.attention.zero_()
        slot.attention[:, :width] = mask
        set_cache_length(slot.cache, 0)
        position = (mask.cumsum(-1) - 1).masked_fill(mask == 0, 0)
        cache_position = torch.arange(width, device=device) if self.pass_cache_position else None
        logits = forward_logits(self.model, ids, slot.attention, position, slot.cache, cache_position)
        slot.temperature.fill_(sampling.temperature)
        slot.top_p.fill_(sampling.top_p)
        first = choose_tokens(logits, mode, slot.temperature, slot.top_p)
        slot.finished.copy_(first == self.eos_id)
        slot.finished[len(prompts) :] = True
        slot.tokens[:, width:] = self.pad_id
        slot.tokens[:, width] = first
        slot.position.copy_(mask.sum(-1, keepdim=True))
        slot.cursor.fill_(width)

    def _check(self, slot: Slot, rows: list[int], out: list[list[int]], span: slice, mode: Mode) -> tuple[Slot, list[int]]:
        """One host sync: collect the finished rows when few run; move the running ones into a
        smaller bucket when they fill half of this one or less."""
        finished = slot.finished.tolist()
        self.stats.syncs += 1
        running = [j for j in range(len(rows)) if not finished[j]]
        if not running:
            self._harvest(slot, rows, range(len(rows)), out, span)
            return slot, []
        if len(running) > slot.rows // 2:
            return slot, rows
        keep = set(running)
        self._harvest(slot, rows, [j for j in range(len(rows)) if j not in keep], out, span)
        smaller = self._slot(bucket_size(len(running), self.batch_size), slot.cache_len, mode)
        index = running + [running[0]] * (smaller.rows - len(running))
        live = torch.arange(smaller.rows, device=self.device) < len(running)
        smaller.take(slot, torch.tensor(index, device=self.device), live)
        self.stats.compactions.append((slot.rows, smaller.rows))
        return smaller, [rows[j] for j in running]

    def _harvest(self, slot: Slot, rows: list[int], which: Any, out: list[list[int]], span: slice) -> None:
        """Copy the generated tokens of slot rows `which` into `out`."""
        picked = list(which)
        if not picked:
            return
        tokens = slot.tokens[torch.tensor(picked, device=self.device), span].tolist()
        for j, row_tokens in zip(picked, tokens, strict=True):
            out[rows[j]] = row_tokens

    # -------------------------------------------------------------- buffers and graphs

    def _slot(self, rows: int, cache_len: int, mode: Mode) -> Slot:
        """The kept slot of this shape (made on first use) with a graph for `mode` if graphs are on."""
        by_rows = self._slots.get(cache_len)
        if by_rows is None:
            while len(self._slots) >= self.keep_lengths:
                self._slots.popitem(last=False)
            by_rows = self._slots[cache_len] = {}
        self._slots.move_to_end(cache_len)
        slot = by_rows.get(rows)
        if slot is None:
            slot = by_rows[rows] = Slot(self.model, rows, cache_len, self.pad_id, self.device)
            self.stats.new_buffers += 1
            slot.rewind()
            self._call_step(slot, "greedy", decode_step)  # allocates the cache (no random draws)
        if self.use_graphs and mode not in slot.graphs:
            slot.graphs[mode] = self._capture(slot, mode)
            self.stats.captures += 1
        return slot

    def _call_step(self, slot: Slot, mode: Mode, impl: Callable[..., None] | None = None) -> None:
        with self._recompile_room():
            (impl or self._step_impl)(
                self.model,
                slot.cache,
                slot.tokens,
                slot.attention,
                slot.position,
                slot.cursor,
                slot.finished,
                slot.temperature,
                slot.top_p,
                mode=mode,
                eos_id=self.eos_id,
                pad_id=self.pad_id,
                pass_cache_position=self.pass_cache_position,
            )

    def _run(self, slot: Slot, mode: Mode) -> None:
        if self.use_graphs:
            slot.graphs[mode].replay()
        else:
            self._call_step(slot, mode)

    def _capture(self, slot: Slot, mode: Mode) -> Any:
        """Warm the step up on a side stream, then capture it; the slot's state is garbage
        afterwards (a prefill or `take` sets it), the random generator's state is unchanged."""
        if self._pool is None:
            self._pool = torch.cuda.graph_pool_handle()
        with torch.random.fork_rng(devices=[self.device]):
            stream = torch.cuda.Stream(self.device)
            stream.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(stream):
                for _ in range(WARMUP_STEPS):
                    slot.rewind()
                    self._call_step(slot, mode)
            torch.cuda.current_stream(self.device).wait_stream(stream)
            slot.rewind()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, pool=self._pool):
                self._call_step(slot, mode)
        return graph

    def _recompile_room(self) -> contextlib.AbstractContextManager[Any]:
        """Room for the few recompilations of new shapes and modes, so that none silently
        falls back to eager kernels (the default limit is 8)."""
        if not self.use_compile:
            return contextlib.nullcontext()
        import torch._dynamo.config as dynamo_config

        name = "recompile_limit" if hasattr(dynamo_config, "recompile_limit") else "cache_size_limit"
        return dynamo_config.patch({name: max(getattr(dynamo_config, name), 256)})


__all__ = [
    "DecodeStats",
    "StaticDecoder",
    "UnsupportedModelError",
    "bucket_size",
    "choose_tokens",
    "decode_step",
    "sampling_mode",
]
