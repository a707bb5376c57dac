"""Small causal LMs built locally: a tokenizer trained on our task corpus, a Qwen2-style model,
and a chat template in the Hermes/Qwen2.5 tool-call format.

For machines with no model hub (the trainer's tests, the GPU demo); real users pass a hub path
instead. The folder `build_model` writes loads with `AutoTokenizer` / `AutoModelForCausalLM`
and speaks the same format as Qwen2.5 models: tools listed in the system turn inside
`<tools>`, calls written as `<tool_call>{"name": ..., "arguments": ...}</tool_call>`, tool
results sent back in one user turn inside `<tool_response>` blocks, turns ended by
`<|im_end|>` (the eos token).
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from mcpgym.tasks.model import Task

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerFast

log = logging.getLogger(__name__)

MODEL_SIZES: dict[str, dict[str, int]] = {
    "tiny": {
        "hidden_size": 64,
        "intermediate_size": 256,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
    },
    "tiny-wide": {
        "hidden_size": 128,
        "intermediate_size": 512,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
    },
    "small": {
        "hidden_size": 256,
        "intermediate_size": 1024,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
    },
    "34m": {
        "hidden_size": 512,
        "intermediate_size": 2048,
        "num_hidden_layers": 8,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
    },
}
"""Qwen2 shapes by name (the rest of the config is shared, see `build_model`)."""

PAD, IM_START, IM_END = "<|endoftext|>", "<|im_start|>", "<|im_end|>"
SPECIAL_TOKENS = (PAD, IM_START, IM_END)
"""Control tokens: dropped by `decode(..., skip_special_tokens=True)`."""
MARKUP_TOKENS = ("<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>")
"""Single tokens that stay in decoded text (the environment parses them)."""

PRETOKENIZE_REGEX = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
"""Qwen2's pre-tokenisation: words, single digits (`\\p{N}`), punctuation runs, whitespace."""

CHAT_TEMPLATE = """\
{%- if messages and messages[0]['role'] == 'system' %}
    {%- set system = messages[0]['content'] %}
    {%- set rest = messages[1:] %}
{%- else %}
    {%- set system = 'You are a helpful assistant.' %}
    {%- set rest = messages %}
{%- endif %}
{{- '<|im_start|>system\\n' + system }}
{%- if tools %}
    {{- '\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\n' }}
    {{- 'You are provided with function signatures within <tools></tools> XML tags:\\n<tools>' }}
    {%- for tool in tools %}
        {{- '\\n' }}{{- tool | tojson }}
    {%- endfor %}
    {{- '\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within ' }}
    {{- '<tool_call></tool_call> XML tags:\\n<tool_call>\\n{"name": <function-name>, "arguments": <args-json-object>}\\n</tool_call>' }}
{%- endif %}
{{- '<|im_end|>\\n' }}
{%- for message in rest %}
    {%- if message['role'] == 'tool' %}
        {%- if loop.first or rest[loop.index0 - 1]['role'] != 'tool' %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' + message['content'] + '\\n</tool_response>' }}
        {%- if loop.last or rest[loop.index0 + 1]['role'] != 'tool' %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- elif message['role'] == 'assistant' %}
        {%- set content = message['content'] or '' %}
        {{- '<|im_start|>assistant\\n' + content }}
        {%- if message['tool_calls'] and '<tool_call>' not in content %}
            {%- for call in message['tool_calls'] %}
                {%- set function = call['function'] if call['function'] is defined else call %}
                {{- '\\n<tool_call>\\n{"name": ' }}{{- function['name'] | tojson }}{{- ', "arguments": ' }}
                {%- if function['arguments'] is string %}
                    {{- function['arguments'] }}
                {%- else %}
                    {{- function['arguments'] | tojson }}
                {%- endif %}
                {{- '}\\n</tool_call>' }}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- else %}
        {{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""
"""Jinja chat template (Qwen2.5/Hermes tool-call format) for `apply_chat_template(messages,
tools=..., add_generation_prompt=...)`. Rendering is append-only: a conversation rendered up to
an assistant turn is a prefix of it rendered with later messages, and each assistant turn's
text is followed by exactly `<|im_end|>\\n`."""


def _pick(tasks: Sequence[Task], max_tasks: int | None) -> dict[tuple[str, ...], list[Task]]:
    """The tasks the corpus covers, by server set (in sorted order): all, or the first
    `max_tasks` of a fixed shuffle taken in turn from each server set."""
    groups: dict[tuple[str, ...], list[Task]] = {}
    for task in sorted(tasks, key=lambda t: t.id):
        groups.setdefault(tuple(task.servers), []).append(task)
    groups = dict(sorted(groups.items()))
    if max_tasks is None or len(tasks) <= max_tasks:
        return groups
    rng = random.Random(0)
    for group in groups.values():
        rng.shuffle(group)
    chosen: dict[tuple[str, ...], list[Task]] = {key: [] for key in groups}
    count, depth = 0, 0
    while count < max_tasks:
        for key, group in groups.items():
            if depth < len(group) and count < max_tasks:
                chosen[key].append(group[depth])
                count += 1
        depth += 1
    return {key: sorted(group, key=lambda t: t.id) for key, group in chosen.items() if group}


def _json(value: Any, compact: bool = False) -> str:
    separators = (",", ":") if compact else None
    return json.dumps(value, ensure_ascii=False, separators=separators, default=str)


def corpus(tasks: Sequence[Task], max_tasks: int | None = 200) -> Iterator[str]:
    """Texts a tokenizer learns from, in a deterministic order: per server set, the
    environment's system prompt and its tool schemas as JSON; per task, its user turns, its
    ground-truth calls as `<tool_call>{...}</tool_call>` text, the results of executing them
    (compact JSON, as the environment shows them) and its fact values. `max_tasks` caps the
    work: that many tasks, spread over the server sets (None: all)."""
    from mcpgym.envs import make_env
    from mcpgym.tasks.execute import execute_task

    for servers, group in _pick(tasks, max_tasks).items():
        env = make_env(list(servers), tasks=group[:1])
        try:
            observation, _ = env.reset(options={"task": group[0]})
            yield from (m["content"] for m in observation["messages"] if m["role"] == "system")
            yield from (_json(tool) for tool in observation["tools"])
            box = env.toolbox
            for task in group:
                for turn in task.turns:
                    yield turn.user
                    for call in turn.calls:
                        assert call.server is not None
                        payload = {"name": box.public_name(call.server, call.tool), "arguments": call.arguments}
                        yield f"<tool_call>{_json(payload)}</tool_call>"
                    for fact in turn.facts:
                        yield f"{fact.name}: {fact.value if isinstance(fact.value, str) else _json(fact.value)}"
                run = execute_task(task, box)
                yield from (_json(result, compact=True) for result in run.results.values())
        finally:
            env.close()


def train_tokenizer(texts: Iterable[str], vocab_size: int = 4096) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer of `vocab_size` tokens in all (fewer if the texts run out of
    merges), trained on `texts`: every digit is a token of its own, the control tokens are
    special, the tool-call markup is one (non-special) token each, and `CHAT_TEMPLATE` is its
    chat template. Decoding gives back the text encoded, in Unicode NFC form. The same texts
    give the same tokenizer.

    Its normaliser and pre-tokeniser are those transformers' `Qwen2Tokenizer` rebuilds when
    `AutoTokenizer` loads the folder of a Qwen2 model (transformers 5 keeps only the vocabulary,
    merges and added tokens of `tokenizer.json`), so the tokenizer trained here and the one
    every loader gives split text the same way."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(PRETOKENIZE_REGEX), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size - len(MARKUP_TOKENS),
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )

    def without_markup() -> Iterator[str]:
        # Tokens added whole need no merges of their pieces.
        for text in texts:
            for token in (*SPECIAL_TOKENS, *MARKUP_TOKENS):
                text = text.replace(token, "\n")
            yield text

    tokenizer.train_from_iterator(without_markup(), trainer=trainer)
    tokenizer.add_tokens([AddedToken(token, special=False, normalized=False) for token in MARKUP_TOKENS])
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token=PAD,
        eos_token=IM_END,
        pad_token=PAD,
        extra_special_tokens=[IM_START],
        chat_template=CHAT_TEMPLATE,
        padding_side="left",
        model_max_length=32768,
        clean_up_tokenization_spaces=False,
    )


def build_model(
    out: str | Path,
    size: str = "tiny",
    tasks: Sequence[Task] | None = None,
    vocab_size: int = 4096,
    seed: int = 0,
    max_tasks: int | None = 200,
) -> Path:
    """Write to `out` a freshly initialised Qwen2 model of `size` (see `MODEL_SIZES`), a
    tokenizer trained on `corpus(tasks, max_tasks)` (default tasks: the synthesized train
    split and the hand-written ones), a generation config that stops at `<|im_end|>`, and
    `build.json` (size, vocab size, seed, parameters, corpus texts). Returns `Path(out)`."""
    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    if size not in MODEL_SIZES:
        raise ValueError(f"unknown model size {size!r}; sizes: {', '.join(MODEL_SIZES)}")
    if tasks is None:
        from mcpgym.tasks.loader import named_tasks, shipped_tasks

        tasks = [*named_tasks("synth-train"), *shipped_tasks()]
    texts = list(corpus(tasks, max_tasks))
    tokenizer = train_tokenizer(texts, vocab_size)
    config = Qwen2Config(
        vocab_size=-(-len(tokenizer) // 64) * 64,
        max_position_embeddings=32768,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        tie_word_embeddings=True,
        attention_dropout=0.0,
        use_sliding_window=False,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        dtype="float32",
        **cast(dict[str, Any], MODEL_SIZES[size]),
    )
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config)
    model.generation_config = GenerationConfig(
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    parameters = sum(p.numel() for p in model.parameters())
    info = {"size": size, "vocab_size": config.vocab_size, "seed": seed, "parameters": parameters, "corpus_texts": len(texts)}
    (out / "build.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    log.info("built %s model (%d parameters, vocab %d) in %s", size, parameters, config.vocab_size, out)
    return out


__all__ = ["CHAT_TEMPLATE", "MODEL_SIZES", "build_model", "corpus", "train_tokenizer"]
