"""The locally built model: tokenizer, Hermes/Qwen chat template, build determinism, generation."""

from __future__ import annotations

import itertools
import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is part of the test extra")

from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

from mcpgym.baselines.agents import OracleAgent  # noqa: E402
from mcpgym.baselines.rollout import run_episode  # noqa: E402
from mcpgym.baselines.train.tiny_model import MODEL_SIZES, build_model, corpus  # noqa: E402
from mcpgym.envs import make_env  # noqa: E402
from mcpgym.tasks.loader import named_tasks, shipped_tasks  # noqa: E402
from mcpgym.tasks.model import Task  # noqa: E402

VOCAB = 1024
CALL = '<tool_call>{"name": "get_ticket", "arguments": {"ticket_id": 1466}}</tool_call>'


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return [*shipped_tasks(["zendesk"]), *named_tasks("synth-train", ["zendesk"])[:6]]


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory, tasks: list[Task]) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny")
    return {
        name: build_model(root / name, size="tiny", tasks=tasks, vocab_size=VOCAB, seed=seed)
        for name, seed in [("a", 0), ("again", 0), ("other", 1)]
    }


@pytest.fixture(scope="module")
def tokenizer(builds: dict[str, Path]) -> Any:
    return AutoTokenizer.from_pretrained(builds["a"])


@pytest.fixture(scope="module")
def model(builds: dict[str, Path]) -> Any:
    return AutoModelForCausalLM.from_pretrained(builds["a"])


def encode(tokenizer: Any, text: str) -> list[int]:
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def test_folder_loads_and_records_the_build(builds: dict[str, Path], tokenizer: Any, model: Any) -> None:
    info = json.loads((builds["a"] / "build.json").read_text())
    assert info["size"] == "tiny" and info["seed"] == 0 and info["corpus_texts"] > 0
    assert info["parameters"] == sum(p.numel() for p in model.parameters())
    assert model.config.vocab_size == info["vocab_size"]
    assert model.config.vocab_size % 64 == 0 and len(tokenizer) <= model.config.vocab_size <= VOCAB
    assert model.config.hidden_size == MODEL_SIZES["tiny"]["hidden_size"]
    assert model.config.tie_word_embeddings
    assert model.get_output_embeddings().weight.data_ptr() == model.get_input_embeddings().weight.data_ptr()
    assert next(model.parameters()).dtype == torch.float32
    assert (builds["a"] / "model.safetensors").is_file()


def test_special_tokens_and_padding(tokenizer: Any, model: Any) -> None:
    assert tokenizer.eos_token == "<|im_end|>"
    assert tokenizer.pad_token == "<|endoftext|>"
    assert tokenizer.padding_side == "left"
    assert tokenizer.model_max_length == 32768
    assert encode(tokenizer, "<|im_start|>") == [tokenizer.convert_tokens_to_ids("<|im_start|>")]
    assert model.config.eos_token_id == tokenizer.eos_token_id
    assert model.generation_config.eos_token_id == tokenizer.convert_tokens_to_ids("<|im_end|>")
    assert model.generation_config.pad_token_id == tokenizer.pad_token_id
    batch = tokenizer(["a b c d", "a"], padding=True)
    assert batch["input_ids"][1][0] == tokenizer.pad_token_id and batch["attention_mask"][1][0] == 0


def test_tool_call_text_round_trips_with_markup_as_single_tokens(tokenizer: Any) -> None:
    ids = encode(tokenizer, CALL)
    assert tokenizer.decode(ids) == CALL
    for markup in ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]:
        assert len(encode(tokenizer, markup)) == 1, markup
    call_id = tokenizer.convert_tokens_to_ids("<tool_call>")
    assert ids[0] == call_id and ids[-1] == tokenizer.convert_tokens_to_ids("</tool_call>")
    assert tokenizer.decode(ids, skip_special_tokens=True) == CALL
    turn = encode(tokenizer, "<|im_start|>assistant\n" + CALL + "<|im_end|>")
    assert tokenizer.decode(turn, skip_special_tokens=True) == "assistant\n" + CALL


@pytest.mark.parametrize("number", ["1466", " 2026-11-23", "3.14159", "x0987654321", "  42"])
def test_digits_are_one_token_each(builds: dict[str, Path], tokenizer: Any, number: str) -> None:
    from tokenizers import Tokenizer

    trained = Tokenizer.from_file(str(builds["a"] / "tokenizer.json"))
    for pieces in [tokenizer.convert_ids_to_tokens(encode(tokenizer, number)), trained.encode(number).tokens]:
        digits = [p for p in pieces if any(c.isdigit() for c in tokenizer.convert_tokens_to_string([p]))]
        assert len(digits) == sum(c.isdigit() for c in number)
        assert all(len(tokenizer.convert_tokens_to_string([p]).strip()) == 1 for p in digits)


TEXT = st.text(max_size=80) | st.text(alphabet='ab <>/{}":,0123456789\n\t\r é日😀\u0301\u212b', max_size=80)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
@example(text="e\u0301 \u212b <|im_end|> <tool_call>\x00\r\n")
def test_any_text_round_trips(tokenizer: Any, text: str) -> None:
    """Exactly for NFC text; other text comes back in NFC form (the Qwen2 normaliser)."""
    assert tokenizer.decode(encode(tokenizer, text)) == unicodedata.normalize("NFC", text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
@example(text='  1466\n\n  {"a": [1, 2]}  ')
def test_auto_tokenizer_splits_like_the_trained_tokenizer(builds: dict[str, Path], tokenizer: Any, text: str) -> None:
    """transformers rebuilds a Qwen2 tokenizer's pipeline on load: it must be the one trained."""
    from tokenizers import Tokenizer

    trained = Tokenizer.from_file(str(builds["a"] / "tokenizer.json"))
    assert encode(tokenizer, text) == trained.encode(text, add_special_tokens=False).ids


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_ticket",
            "description": "One ticket <by id> & its 'details'.",
            "parameters": {"type": "object", "properties": {"ticket_id": {"type": "integer"}}, "required": ["ticket_id"]},
        },
    },
    {
        "type": "function",
        "function": {"name": "finish", "description": "End.", "parameters": {"type": "object", "properties": {}}},
    },
]

CONVERSATION = [
    {"role": "system", "content": "You are a support agent."},
    {"role": "user", "content": "Status of 7 and 8?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "get_ticket", "arguments": {"ticket_id": 7}}},
            {"id": "b", "type": "function", "function": {"name": "get_ticket", "arguments": '{"ticket_id": 8}'}},
        ],
    },
    {"role": "tool", "tool_call_id": "a", "content": '{"id":7,"status":"open"}'},
    {"role": "tool", "tool_call_id": "b", "content": '{"id":8,"status":"closed"}'},
    {"role": "assistant", "content": "7 is open, 8 is closed."},
    {"role": "user", "content": "And 9?"},
    {
        "role": "assistant",
        "content": '<tool_call>{"name": "get_ticket", "arguments": {"ticket_id": 9}}</tool_call>',
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "get_ticket", "arguments": '{"ticket_id": 9}'}}],
    },
    {"role": "tool", "tool_call_id": "c", "content": "not_found: no ticket 9"},
]

EXPECTED = (
    "<|im_start|>system\nYou are a support agent.\n\n# Tools\n\n"
    "You may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
    '{"type": "function", "function": {"name": "get_ticket", "description": "One ticket <by id> & its \'details\'.", '
    '"parameters": {"type": "object", "properties": {"ticket_id": {"type": "integer"}}, "required": ["ticket_id"]}}}\n'
    '{"type": "function", "function": {"name": "finish", "description": "End.", "parameters": {"type": "object", "properties": {}}}}\n'
    "</tools>\n\nFor each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n'
    "<|im_start|>user\nStatus of 7 and 8?<|im_end|>\n"
    "<|im_start|>assistant\n"
    '\n<tool_call>\n{"name": "get_ticket", "arguments": {"ticket_id": 7}}\n</tool_call>'
    '\n<tool_call>\n{"name": "get_ticket", "arguments": {"ticket_id": 8}}\n</tool_call><|im_end|>\n'
    '<|im_start|>user\n<tool_response>\n{"id":7,"status":"open"}\n</tool_response>'
    '\n<tool_response>\n{"id":8,"status":"closed"}\n</tool_response><|im_end|>\n'
    "<|im_start|>assistant\n7 is open, 8 is closed.<|im_end|>\n"
    "<|im_start|>user\nAnd 9?<|im_end|>\n"
    '<|im_start|>assistant\n<tool_call>{"name": "get_ticket", "arguments": {"ticket_id": 9}}</tool_call><|im_end|>\n'
    "<|im_start|>user\n<tool_response>\nnot_found: no ticket 9\n</tool_response><|im_end|>\n"
    "<|im_start|>assistant\n"
)


def render(tokenizer: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, prompt: bool) -> str:
    return tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=prompt, tokenize=False)


def test_template_renders_the_hermes_format(tokenizer: Any) -> None:
    assert render(tokenizer, CONVERSATION, TOOLS, prompt=True) == EXPECTED
    assert render(tokenizer, CONVERSATION[:2], None, prompt=False) == (
        "<|im_start|>system\nYou are a support agent.<|im_end|>\n<|im_start|>user\nStatus of 7 and 8?<|im_end|>\n"
    )
    assert render(tokenizer, [{"role": "user", "content": "hi"}], None, prompt=True) == (
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    )


def test_template_lists_every_env_tool(tokenizer: Any) -> None:
    env = make_env(["zendesk", "crm"])
    try:
        observation, _ = env.reset(seed=0)
    finally:
        env.close()
    text = render(tokenizer, observation["messages"], observation["tools"], prompt=True)
    assert text.startswith("<|im_start|>system\n" + observation["messages"][0]["content"] + "\n\n# Tools\n\n")
    lines = text.split("<tools>\n", 1)[1].split("\n</tools>", 1)[0].split("\n")
    assert [json.loads(line) for line in lines] == observation["tools"]
    assert text.endswith("<|im_end|>\n<|im_start|>assistant\n")


def test_rendering_is_append_only_over_real_episodes(tokenizer: Any) -> None:
    env = make_env(["zendesk"])
    try:
        tools = env.reset(seed=0)[0]["tools"]
        episodes = [run_episode(env, OracleAgent(), task).messages for task in shipped_tasks(["zendesk"])]
    finally:
        env.close()
    checked, grouped, multi_turn = 0, False, False
    for messages in episodes:
        roles = [m["role"] for m in messages]
        grouped |= any(a == b == "tool" for a, b in itertools.pairwise(roles))
        multi_turn |= roles.count("user") > 1
        turns = [i for i, role in enumerate(roles) if role == "assistant"]
        for i, j in itertools.pairwise(turns):
            head = render(tokenizer, messages[: i + 1], tools, prompt=False)
            full = render(tokenizer, messages[:j], tools, prompt=True)
            assert full.startswith(head)
            assert head.endswith(messages[i]["content"] + "<|im_end|>\n")
            assert full[len(head) :].startswith("<|im_start|>user\n")
            assert full.endswith("<|im_start|>assistant\n")
            checked += 1
    assert checked >= 10 and grouped and multi_turn


def test_builds_are_reproducible_per_seed(builds: dict[str, Path]) -> None:
    from safetensors.torch import load_file

    def weights(name: str) -> dict[str, Any]:
        return load_file(builds[name] / "model.safetensors")

    assert (builds["a"] / "tokenizer.json").read_bytes() == (builds["again"] / "tokenizer.json").read_bytes()
    assert (builds["a"] / "tokenizer.json").read_bytes() == (builds["other"] / "tokenizer.json").read_bytes()
    a, again, other = weights("a"), weights("again"), weights("other")
    assert a.keys() == again.keys() == other.keys()
    assert all(torch.equal(a[k], again[k]) for k in a)
    assert not torch.equal(a["model.embed_tokens.weight"], other["model.embed_tokens.weight"])


def test_corpus_is_deterministic_and_covers_the_tasks(tasks: list[Task]) -> None:
    texts = list(corpus(tasks, max_tasks=4))
    assert texts == list(corpus(list(reversed(tasks)), max_tasks=4))
    assert any(text.startswith('<tool_call>{"name": ') and text.endswith("</tool_call>") for text in texts)
    assert sum(text in {t.turns[0].user for t in tasks} for text in texts) == 4
    assert any(text.startswith('{"') and '":' in text for text in texts)


def test_generate_continues_a_rendered_prompt(tokenizer: Any, model: Any) -> None:
    prompt = render(tokenizer, CONVERSATION[:2], TOOLS, prompt=True)
    inputs = tokenizer([prompt], return_tensors="pt", add_special_tokens=False)
    out = model.generate(**inputs, max_new_tokens=8, do_sample=False)
    assert out.shape[0] == 1 and inputs["input_ids"].shape[1] < out.shape[1] <= inputs["input_ids"].shape[1] + 8
    assert torch.equal(out[0, : inputs["input_ids"].shape[1]], inputs["input_ids"][0])
    assert model.generation_config.eos_token_id == tokenizer.convert_tokens_to_ids("<|im_end|>")


@pytest.mark.parametrize("size", ["tiny", "tiny-wide"])
def test_each_small_size_builds_with_its_shape(size: str, tasks: list[Task], tmp_path: Path) -> None:
    folder = build_model(tmp_path / size, size=size, tasks=tasks[:4], vocab_size=VOCAB, seed=0)
    config = AutoModelForCausalLM.from_pretrained(folder).config
    for key, value in MODEL_SIZES[size].items():
        assert getattr(config, key) == value, key
    assert json.loads((folder / "build.json").read_text())["size"] == size
