"""Decode throughput: `StaticDecoder` against `model.generate`, greedy, on one model in one run.

Builds a Qwen2 model of `--size` from scratch (no hub; its vocabulary resized to `--vocab`),
draws `--batch` random prompts of `--prompt` tokens, and times, after a warm-up run each:
- `model.generate` (the `transformers` backend, the baseline);
- `StaticDecoder` in each variant of `--variants`: `eager` (the step run eagerly), `graph`
  (captured in a CUDA graph), `compiled-graph` (fused by torch.compile, then captured).

Prints a table: generated tokens per second, the ratio to `model.generate`, milliseconds per
forward (prefills included), a floor (one bare one-token forward of the model at that batch
and cache length, captured in a CUDA graph on a GPU, with the variant's compilation) and the
share of rows whose greedy tokens equal `model.generate`'s. In 16-bit precision near-tied
logits of a random model may flip an argmax and the rows part ways from there: compare with
`--dtype float32` for token-for-token equality.

    python benchmarks/bench_decode.py                    # 34m, batch 64, prompt 512, 256 new tokens on CUDA
    python benchmarks/bench_decode.py --device cpu       # tiny, batch 16, prompt 64, 32 new tokens
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import torch  # noqa: E402
from train_support import status_tasks, zendesk_ticket_ids  # noqa: E402

from mcpgym.baselines.train.decoding import Slot, StaticDecoder, forward_logits  # noqa: E402
from mcpgym.baselines.train.generation import Sampling, TransformersGenerator  # noqa: E402
from mcpgym.baselines.train.tiny_model import build_model  # noqa: E402

GREEDY = Sampling(greedy=True)
VARIANTS = ("eager", "graph", "compiled-graph")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", help="auto (cuda if available), cuda, cpu")
    parser.add_argument("--size", choices=["tiny", "small", "34m"], help="model size (default: 34m on CUDA, tiny on the CPU)")
    parser.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"], help="auto: bfloat16 on CUDA")
    parser.add_argument("--batch", type=int, help="prompts (default 64 on CUDA, 16 on the CPU)")
    parser.add_argument("--prompt", type=int, help="prompt tokens (default 512 on CUDA, 64 on the CPU)")
    parser.add_argument("--new-tokens", type=int, help="max new tokens (default 256 on CUDA, 32 on the CPU)")
    parser.add_argument("--vocab", type=int, default=4096, help="vocabulary size of the model (default 4096)")
    parser.add_argument("--variants", help=f"comma-separated of {', '.join(VARIANTS)} (default: graph,compiled-graph on CUDA, eager on the CPU)")
    parser.add_argument("--check-every", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each, the best is reported")
    args = parser.parse_args()
    cuda = (args.device == "auto" and torch.cuda.is_available()) or args.device.startswith("cuda")
    args.device = torch.device(("cuda" if cuda else "cpu") if args.device == "auto" else args.device)
    args.size = args.size or ("34m" if cuda else "tiny")
    args.dtype = getattr(torch, "bfloat16" if args.dtype == "auto" and cuda else "float32" if args.dtype == "auto" else args.dtype)
    args.batch = args.batch or (64 if cuda else 16)
    args.prompt = args.prompt or (512 if cuda else 64)
    args.new_tokens = args.new_tokens or (256 if cuda else 32)
    args.variants = (args.variants or ("graph,compiled-graph" if cuda else "eager")).split(",")
    for variant in args.variants:
        if variant not in VARIANTS:
            parser.error(f"unknown variant {variant!r}; variants: {', '.join(VARIANTS)}")
        if variant != "eager" and not cuda:
            parser.error(f"variant {variant!r} needs CUDA")
    return args


def load_model(size: str, vocab: int, dtype: torch.dtype, device: torch.device) -> tuple[Any, int, int]:
    """(model, eos id, pad id): a freshly initialised model of `size` with `vocab` tokens."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = build_model(Path(tempfile.mkdtemp(prefix="bench-decode-")) / "model", size=size, tasks=status_tasks(zendesk_ticket_ids(4)))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    model.resize_token_embeddings(vocab, mean_resizing=False)
    return model.to(device=device, dtype=dtype).eval(), tokenizer.convert_tokens_to_ids("<|im_end|>"), tokenizer.pad_token_id


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def best_time(run: Callable[[], Any], device: torch.device, repeats: int) -> tuple[float, Any]:
    """The fastest of `repeats` timed runs (after one untimed warm-up) and the last result."""
    result = run()
    best = float("inf")
    for _ in range(repeats):
        synchronize(device)
        started = time.perf_counter()
        result = run()
        synchronize(device)
        best = min(best, time.perf_counter() - started)
    return best, result


@torch.no_grad()
def floor_seconds(model: Any, pad_id: int, rows: int, cache_len: int, variant: str, device: torch.device) -> float:
    """Seconds of one bare one-token forward (no token choice, no bookkeeping) at this batch
    and cache length: captured in a CUDA graph unless `variant` is eager, compiled if it is."""
    slot = Slot(model, rows, cache_len, pad_id, device)
    impl = torch.compile(forward_logits, dynamic=False) if variant == "compiled-graph" else forward_logits

    def step() -> None:
        impl(model, slot.tokens[:, :1], slot.attention, slot.position, slot.cache, None)

    slot.rewind()
    step()  # allocates the cache
    if variant != "eager":
        stream = torch.cuda.Stream(device)
        stream.wait_stream(torch.cuda.current_stream(device))
        with torch.cuda.stream(stream):
            for _ in range(3):
                slot.rewind()
                step()
        torch.cuda.current_stream(device).wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        step = graph.replay
    steps = min(cache_len - 8, 64)
    slot.rewind()
    synchronize(device)
    started = time.perf_counter()
    for _ in range(steps):
        step()
    synchronize(device)
    return (time.perf_counter() - started) / steps


def equal_rows(ours: list[list[int]], theirs: list[list[int]]) -> float:
    return sum(a == b for a, b in zip(ours, theirs, strict=True)) / len(ours)


def main() -> None:
    args = parse_args()
    if args.device.type == "cpu":
        torch.set_num_threads(1)
    torch.manual_seed(0)
    model, eos_id, pad_id = load_model(args.size, args.vocab, args.dtype, args.device)
    prompts = torch.randint(3, args.vocab, (args.batch, args.prompt)).tolist()
    reference = TransformersGenerator(model, eos_id, pad_id, batch_size=args.batch)
    base_s, base_out = best_time(lambda: reference.generate(prompts, args.new_tokens, GREEDY), args.device, args.repeats)
    base_tokens = sum(map(len, base_out))
    base_forwards = max(map(len, base_out))
    rows = [("model.generate", base_tokens / base_s, 1.0, 1e3 * base_s / base_forwards, None, 1.0)]
    for variant in args.variants:
        decoder = StaticDecoder(
            model, eos_id, pad_id, batch_size=args.batch, check_every=args.check_every,
            compile=variant == "compiled-graph", cuda_graph=variant != "eager",
        )
        seconds, out = best_time(lambda d=decoder: d.generate(prompts, args.new_tokens, GREEDY), args.device, args.repeats)
        forwards = decoder.stats.steps + decoder.stats.chunks
        cache_len = decoder.shapes()[-1][0]
        floor = floor_seconds(model, pad_id, args.batch, cache_len, variant, args.device)
        tokens = sum(map(len, out))
        rows.append((f"StaticDecoder {variant}", tokens / seconds, (tokens / seconds) / (base_tokens / base_s),
                     1e3 * seconds / forwards, 1e3 * floor, equal_rows(out, base_out)))
    parameters = sum(p.numel() for p in model.parameters())
    print(f"{args.size} model ({parameters / 1e6:.1f}M parameters, vocab {args.vocab}), {args.dtype}, {args.device}, "
          f"batch {args.batch}, prompt {args.prompt}, {args.new_tokens} new tokens, greedy, best of {args.repeats}")
    print("| decoder | tokens/s | vs generate | ms/forward | floor ms/forward | vs floor | greedy rows equal to generate's |")
    print("|---|---|---|---|---|---|---|")
    for name, rate, ratio, ms, floor_ms, equal in rows:
        floor_cells = "| | |" if floor_ms is None else f"| {floor_ms:.3f} | {ms / floor_ms:.2f}x |"
        print(f"| {name} | {rate:,.0f} | {ratio:.1f}x | {ms:.3f} {floor_cells} {equal:.0%} |")
    if args.dtype != torch.float32:
        print(f"({args.dtype}: near-tied logits may flip an argmax; --dtype float32 compares token for token)")
    print("floor: one bare one-token forward at the batch and cache length (graph-captured on CUDA, compiled for the "
          "compiled variant); ms/forward counts every forward, prefills included")


if __name__ == "__main__":
    main()
