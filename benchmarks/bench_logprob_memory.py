"""Peak memory and time of one policy-gradient update's log-probabilities: chunked over the
sequence against the full [batch, length, vocabulary] logits, on a model with a large vocabulary.

Each variant runs in a fresh process (its peak resident memory is its own); the model is a
small Qwen2 with Qwen's 151,936-token vocabulary, so the logits dominate as they do for an 8B
model. Prints a table; the ratios are what to read.

    python benchmarks/bench_logprob_memory.py [--length 1024] [--batch 2] [--vocab 151936]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import time
from typing import Any


def one_update(chunk: int | None, batch: int, length: int, vocab: int, out: Any) -> None:
    """Build the model, then time one forward+backward of the log-probabilities; report the
    peak resident memory above what the model itself took."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from mcpgym.baselines.train.grpo import sequence_logprobs

    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=vocab, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=length,
                         tie_word_embeddings=False)
    model = Qwen2ForCausalLM(config).float()
    ids = torch.randint(0, vocab, (batch, length))
    attention = torch.ones_like(ids)
    with torch.no_grad():  # warm up allocator and kernels on a short input
        sequence_logprobs(model, ids[:, :16], attention[:, :16], chunk=chunk)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    logp = sequence_logprobs(model, ids, attention, chunk=chunk)
    logp.mean().backward()
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out.put({"chunk": chunk, "seconds": seconds, "peak_mb": peak / 1024, "extra_mb": (peak - before) / 1024})


def measure(chunk: int | None, batch: int, length: int, vocab: int) -> dict[str, Any]:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=one_update, args=(chunk, batch, length, vocab, queue))
    process.start()
    result = queue.get()
    process.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=2, help="sequences per update (default 2)")
    parser.add_argument("--length", type=int, default=1024, help="tokens per sequence (default 1024)")
    parser.add_argument("--vocab", type=int, default=151_936, help="vocabulary size (default 151936, Qwen's)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    args = parser.parse_args()
    from mcpgym.baselines.train.grpo import LOGPROB_CHUNK

    rows = [measure(chunk, args.batch, args.length, args.vocab) for chunk in (None, LOGPROB_CHUNK, 128)]
    base = rows[0]
    print(f"one update's log-probabilities: batch {args.batch} x {args.length} tokens, vocabulary {args.vocab:,}")
    print(f"{'logits':<22}{'peak RSS growth (MB)':>22}{'vs full':>9}{'time (s)':>10}{'vs full':>9}")
    for row in rows:
        name = "full (baseline)" if row["chunk"] is None else f"chunks of {row['chunk']}"
        print(f"{name:<22}{row['extra_mb']:>22.0f}{row['extra_mb'] / base['extra_mb']:>9.2f}"
              f"{row['seconds']:>10.2f}{row['seconds'] / base['seconds']:>9.2f}")
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
