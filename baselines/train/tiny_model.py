"""Small causal LMs built locally: a tokenizer trained on our task corpus, a Qwen2-style model,
and a chat template in the Hermes/Qwen tool-call format.

For machines with no model hub (tests, the GPU demo); real users pass a hub path instead. The
folder `build_model` writes loads with `AutoTokenizer` / `AutoModelForCausalLM` and speaks
the same format as Qwen2.5 models: tools listed in the system turn inside `<tools>`, calls
written as `<tool_call>{"name": ..., "arguments": ...}</tool_call>`, tool results sent back
in a user turn inside `<tool_response>`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from mcpgym.tasks.model import Task

MODEL_SIZES: dict[str, dict[str, int]] = {
    "tiny": {"hidden_size": 64, "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2},
    "small": {"hidden_size": 256, "intermediate_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2},
    "34m": {"hidden_size": 512, "intermediate_size": 1536, "num_hidden_layers": 8, "num_attention_heads": 8, "num_key_value_heads": 4},
}

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
MARKUP = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]
"""Single tokens that stay in decoded text (the env parses them)."""

DEFAULT_SYSTEM = "You are a helpful assistant."

CHAT_TEMPLATE = (
    "{% if messages and messages[0]['role'] == 'system' %}"
    "{% set system = messages[0]['content'] %}{% set rest = messages[1:] %}"
    "{% else %}{% set system = '" + DEFAULT_SYSTEM + "' %}{% set rest = messages %}{% endif %}"
    "<|im_start|>system{{ '\\n' }}{{ system }}"
    "{% if tools %}"
    "{{ '\\n\\n' }}# Tools{{ '\\n\\n' }}You may call one or more functions to assist with the user query.{{ '\\n\\n' }}"
    "You are provided with function signatures within <tools></tools> XML tags:{{ '\\n' }}<tools>"
    "{% for tool in tools %}{{ '\\n' }}{{ tool | tojson }}{% endfor %}"
    "{{ '\\n' }}</tools>{{ '\\n\\n' }}For each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:{{ '\\n' }}<tool_call>{{ '\\n' }}"
    '{"name": <function-name>, "arguments": <args-json-object>}{{ \'\\n\' }}</tool_call>'
    "{% endif %}"
    "<|im_end|>{{ '\\n' }}"
    "{% for message in rest %}"
    "{% if message['role'] == 'tool' %}"
    "{% if loop.first or rest[loop.index0 - 1]['role'] != 'tool' %}<|im_start|>user{% endif %}"
    "{{ '\\n' }}<tool_response>{{ '\\n' }}{{ message['content'] }}{{ '\\n' }}</tool_response>"
    "{% if loop.last or rest[loop.index0 + 1]['role'] != 'tool' %}<|im_end|>{{ '\\n' }}{% endif %}"
    "{% elif message['role'] == 'assistant' %}"
    "<|im_start|>assistant{{ '\\n' }}{{ message['content'] or '' }}"
    "{% if message.get('tool_calls') and '<tool_call>' not in (message['content'] or '') %}"
    "{% for call in message['tool_calls'] %}"
    "{% set function = call['function'] if call.get('function') else call %}"
    "{{ '\\n' }}<tool_call>{{ '\\n' }}{\"name\": \"{{ function['name'] }}\", \"arguments\": "
    "{% if function['arguments'] is string %}{{ function['arguments'] }}{% else %}{{ function['arguments'] | tojson }}{% endif %}"
    "}{{ '\\n' }}</tool_call>"
    "{% endfor %}"
    "{% endif %}"
    "<|im_end|>{{ '\\n' }}"
    "{% else %}"
    "<|im_start|>{{ message['role'] }}{{ '\\n' }}{{ message['content'] }}<|im_end|>{{ '\\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant{{ '\\n' }}{% endif %}"
)


def corpus(tasks: Sequence[Task], max_tasks: int | None = 400) -> Iterator[str]:
    """Texts the tokenizer learns from: each server set's system prompt and tool schemas, the
    tasks' user turns, their ground-truth calls as tool-call text, the results of executing
    them, and the fact values. Deterministic for the same tasks."""
    from mcpgym.envs import make_env
    from mcpgym.tasks.execute import execute_task

    chosen = sorted(tasks, key=lambda t: t.id)
    if max_tasks is not None and len(chosen) > max_tasks:
        random.Random(0).shuffle(chosen)
        chosen = sorted(chosen[:max_tasks], key=lambda t: t.id)
    seen: set[tuple[str, ...]] = set()
    for task in chosen:
        key = tuple(task.servers)
        if key not in seen:
            seen.add(key)
            env = make_env(list(key), tasks=[task])
            observation, _ = env.reset(options={"task": task})
            env.close()
            yield observation["messages"][0]["content"]
            for tool in observation["tools"]:
                yield json.dumps(tool)
        for turn in task.turns:
            yield turn.user
            for call in turn.calls:
                yield "<tool_call>" + json.dumps({"name": call.tool, "arguments": call.arguments}) + "</tool_call>"
            for fact in turn.facts:
                yield f"{fact.name}: {fact.value}"
        run = execute_task(task)
        for result in run.results.values():
            yield json.dumps(result, separators=(",", ":"), default=str)


def train_tokenizer(texts: Iterable[str], vocab_size: int = 4096) -> Any:
    """A byte-level BPE tokenizer (any text round-trips) with one token per digit."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(list(texts), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<|endoftext|>",
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
        padding_side="left",
        model_max_length=32768,
    )
    fast.add_tokens(MARKUP)
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_model(
    out: str | Path,
    size: str = "tiny",
    tasks: Sequence[Task] | None = None,
    vocab_size: int = 4096,
    seed: int = 0,
    max_tasks: int | None = 400,
) -> Path:
    """Write a freshly initialised model of `size` with a tokenizer trained on `tasks` (default:
    the synthesized train split and the hand-written tasks) to `out`; returns `out`."""
    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    if size not in MODEL_SIZES:
        raise ValueError(f"unknown size {size!r}; sizes: {', '.join(MODEL_SIZES)}")
    if tasks is None:
        from mcpgym.tasks.loader import named_tasks, shipped_tasks

        tasks = [*named_tasks("synth-train"), *shipped_tasks()]
    texts = list(corpus(tasks, max_tasks))
    tokenizer = train_tokenizer(texts, vocab_size)
    config = Qwen2Config(
        vocab_size=-(-len(tokenizer) // 64) * 64,
        max_position_embeddings=32768,
        rope_theta=10000.0,
        tie_word_embeddings=True,
        attention_dropout=0.0,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        **MODEL_SIZES[size],
    )
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config)
    model.generation_config = GenerationConfig(
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id
    )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    parameters = sum(p.numel() for p in model.parameters())
    (out / "build.json").write_text(
        json.dumps({"size": size, "vocab_size": config.vocab_size, "seed": seed, "parameters": parameters, "corpus_texts": len(texts)})
    )
    return out


__all__ = ["CHAT_TEMPLATE", "MODEL_SIZES", "build_model", "corpus", "train_tokenizer"]
