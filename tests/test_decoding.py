"""StaticDecoder: greedy outputs equal `model.generate`'s, sampling, bucket compaction, unsupported models, trainer."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is part of the test extra")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from torch.overrides import TorchFunctionMode  # noqa: E402

from mcpgym.baselines.train.config import load_config  # noqa: E402
from mcpgym.baselines.train.decoding import Slot, StaticDecoder, UnsupportedModelError, choose_tokens, decode_step  # noqa: E402
from mcpgym.baselines.train.generation import Sampling, TransformersGenerator  # noqa: E402
from mcpgym.baselines.train.trainer import GrpoTrainer  # noqa: E402
from mcpgym.tasks.loader import save_tasks  # noqa: E402
from train_support import build_tiny, status_tasks, zendesk_ticket_ids  # noqa: E402

GREEDY = Sampling(greedy=True)
EOS_BIAS = 0.3
"""Added to the eos logit of the test model: some rows end after a few tokens, others never."""


@pytest.fixture(scope="module", autouse=True)
def one_thread() -> Any:
    """Tiny matrices: one thread is fastest, and does not fight a busy machine's other work."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny(tmp_path_factory.mktemp("decoding") / "model", status_tasks(zendesk_ticket_ids(4)))


def lively(model: Any, eos_id: int) -> Any:
    """`model` with its matrices scaled up (a fresh tiny model mostly repeats the last prompt
    token; scaled, its continuations depend on the whole context) and an eos bias (rows end
    at many different lengths, so buckets shrink)."""
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if parameter.ndim == 2 and "embed" not in name:
                parameter.mul_(6.0)
        bias = torch.zeros(model.config.vocab_size)
        bias[eos_id] = EOS_BIAS
        model.lm_head.bias = torch.nn.Parameter(bias)
    return model.eval()


@pytest.fixture(scope="module")
def policy(model_dir: Path) -> tuple[Any, int, int]:
    """(model, eos id, pad id) of the test model, float32 on the CPU."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    eos_id = tokenizer.convert_tokens_to_ids("<|im_end|>")
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    return lively(model, eos_id), eos_id, tokenizer.pad_token_id


def random_prompts(seed: int, count: int, longest: int = 30, vocab: int = 1000) -> list[list[int]]:
    rng = random.Random(seed)
    return [[rng.randrange(5, vocab) for _ in range(rng.randrange(1, longest + 1))] for _ in range(count)]


def reference(model: Any, eos_id: int, pad_id: int, prompts: list[list[int]], max_new: int, batch_size: int) -> list[list[int]]:
    return TransformersGenerator(model, eos_id, pad_id, batch_size=batch_size).generate(prompts, max_new, GREEDY)


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 10_000),
    count=st.integers(1, 24),
    batch_size=st.sampled_from([1, 3, 4, 8, 16]),
    max_new=st.sampled_from([1, 2, 9, 24]),
    check_every=st.integers(1, 8),
    keep_lengths=st.integers(1, 3),
)
def test_greedy_outputs_equal_generate(
    policy: tuple[Any, int, int], seed: int, count: int, batch_size: int, max_new: int, check_every: int, keep_lengths: int
) -> None:
    model, eos_id, pad_id = policy
    prompts = random_prompts(seed, count)
    decoder = StaticDecoder(model, eos_id, pad_id, batch_size=batch_size, check_every=check_every, cache_step=16, keep_lengths=keep_lengths)
    assert decoder.generate(prompts, max_new, GREEDY) == reference(model, eos_id, pad_id, prompts, max_new, batch_size)
    assert len({length for length, _ in decoder.shapes()}) <= keep_lengths


def test_finished_rows_move_to_smaller_buckets_and_outputs_stay_equal(policy: tuple[Any, int, int]) -> None:
    model, eos_id, pad_id = policy
    prompts = random_prompts(1, 37)
    decoder = StaticDecoder(model, eos_id, pad_id, batch_size=16, check_every=1)
    got = decoder.generate(prompts, 32, GREEDY)
    assert got == reference(model, eos_id, pad_id, prompts, 32, 16)
    lengths = [len(g) for g in got]
    assert min(lengths) < 8 and any(len(g) == 32 and g[-1] != eos_id for g in got)  # the model makes early and late finishers
    assert (16, 8) in decoder.stats.compactions and (8, 4) in decoder.stats.compactions
    assert all(after <= before // 2 for before, after in decoder.stats.compactions)
    assert decoder.stats.chunks == 3
    assert decoder.stats.row_steps < 0.6 * 16 * decoder.stats.steps  # finished rows stopped costing


def test_results_come_back_in_the_callers_order(policy: tuple[Any, int, int]) -> None:
    model, eos_id, pad_id = policy
    prompts = random_prompts(2, 9)
    decoder = StaticDecoder(model, eos_id, pad_id, batch_size=4)
    forward = decoder.generate(prompts, 12, GREEDY)
    backward = decoder.generate(prompts[::-1], 12, GREEDY)
    assert backward == forward[::-1]
    assert [decoder.generate([p], 12, GREEDY)[0] for p in prompts] == forward  # batching and padding change nothing
    for tokens in forward:
        assert 1 <= len(tokens) <= 12 and eos_id not in tokens[:-1]


def test_host_reads_the_finished_flags_only_every_check_every_steps(policy: tuple[Any, int, int]) -> None:
    model, _, pad_id = policy
    never = model.config.vocab_size - 1  # an eos the model never writes: every row runs to the end
    decoder = StaticDecoder(model, never, pad_id, batch_size=8, check_every=8)
    got = decoder.generate(random_prompts(3, 8), 33, GREEDY)
    assert [len(g) for g in got] == [33] * 8
    assert decoder.stats.steps == 32 and decoder.stats.syncs == 4  # before steps 0, 8, 16, 24


def test_sampling_is_seeded_valid_and_tends_to_greedy(policy: tuple[Any, int, int]) -> None:
    model, eos_id, pad_id = policy
    prompts = random_prompts(4, 10)
    decoder = StaticDecoder(model, eos_id, pad_id, batch_size=4, check_every=2)
    draws = []
    for seed in (0, 0, 1):
        torch.manual_seed(seed)
        draws.append(decoder.generate(prompts, 16, Sampling(temperature=1.0, top_p=0.9)))
    assert draws[0] == draws[1] and draws[0] != draws[2]
    for tokens in draws[0]:
        assert 1 <= len(tokens) <= 16 and eos_id not in tokens[:-1]
        assert all(0 <= t < model.config.vocab_size for t in tokens)
    greedy = decoder.generate(prompts, 16, GREEDY)
    assert greedy != draws[0]
    assert decoder.generate(prompts, 16, Sampling(temperature=1e-6)) == greedy
    assert decoder.generate(prompts, 16, Sampling(temperature=1.0, top_p=1e-6)) == greedy


def test_a_decode_step_writes_pad_for_finished_rows_and_flags_eos(policy: tuple[Any, int, int]) -> None:
    model, _, pad_id = policy

    def step(eos_id: int) -> Slot:
        slot = Slot(model, rows=3, cache_len=8, pad_id=pad_id, device=torch.device("cpu"))
        slot.rewind()
        slot.tokens[:, 0] = torch.tensor([5, 6, 7])
        slot.finished[0] = True
        with torch.no_grad():
            decode_step(model, slot.cache, slot.tokens, slot.attention, slot.position, slot.cursor, slot.finished,
                        slot.temperature, slot.top_p, mode="greedy", eos_id=eos_id, pad_id=pad_id, pass_cache_position=False)
        return slot

    with torch.no_grad():
        want = model(input_ids=torch.tensor([[6], [7]])).logits[:, -1].argmax(-1)
    slot = step(eos_id=-1)
    assert slot.cursor.tolist() == [1] and slot.position.flatten().tolist() == [1, 1, 1]
    assert slot.tokens[:, 1].tolist() == [pad_id, *want.tolist()]  # the finished row writes pad
    assert slot.finished.tolist() == [True, False, False]
    slot = step(eos_id=int(want[0]))
    assert slot.finished.tolist() == [True, True, bool(want[1] == want[0])]


HOST_READS = {"item", "tolist", "cpu", "numpy", "nonzero", "__bool__", "__int__", "__float__", "__index__", "__len__"}
"""Tensor calls that read values back to the host (a sync on a GPU, impossible in a CUDA graph)."""


class HostReads(TorchFunctionMode):
    """Records the host-reading tensor calls made inside the block."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if getattr(func, "__name__", "") in HOST_READS:
            self.seen.append(func.__name__)
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("mode", ["greedy", "sample", "nucleus"])
def test_a_decode_step_reads_nothing_back_to_the_host(policy: tuple[Any, int, int], mode: str) -> None:
    model, eos_id, pad_id = policy
    slot = Slot(model, rows=4, cache_len=16, pad_id=pad_id, device=torch.device("cpu"))
    state = (model, slot.cache, slot.tokens, slot.attention, slot.position, slot.cursor, slot.finished, slot.temperature, slot.top_p)
    options = {"eos_id": eos_id, "pad_id": pad_id, "pass_cache_position": False}
    slot.rewind()
    with torch.no_grad():
        decode_step(*state, mode="greedy", **options)  # allocates the cache
        with HostReads() as reads:
            decode_step(*state, mode=mode, **options)
        with HostReads() as control:
            bool(slot.finished.any())  # what a host read looks like to the recorder
    assert reads.seen == [] and control.seen == ["__bool__"]


def test_choose_tokens_draws_from_the_tempered_nucleus() -> None:
    torch.manual_seed(0)
    probs = torch.tensor([0.5, 0.3, 0.15, 0.05])
    logits = probs.log().repeat(40_000, 1)
    one = torch.ones(1)

    def frequencies(mode: Any, temperature: float, top_p: float) -> torch.Tensor:
        picks = choose_tokens(logits, mode, one * temperature, one * top_p)
        return torch.bincount(picks, minlength=4).float() / len(picks)

    assert torch.allclose(frequencies("sample", 1.0, 1.0), probs, atol=0.01)
    tempered = probs ** 2 / (probs ** 2).sum()
    assert torch.allclose(frequencies("sample", 0.5, 1.0), tempered, atol=0.01)
    # top-p 0.7: tokens 0 and 1 (the mass above token 2 is 0.8), renormalised
    assert torch.allclose(frequencies("nucleus", 1.0, 0.7), torch.tensor([0.625, 0.375, 0.0, 0.0]), atol=0.01)
    assert torch.equal(choose_tokens(logits[:3], "greedy", one, one), torch.zeros(3, dtype=torch.long))


def test_buffers_are_kept_between_calls_and_dropped_for_another_model(policy: tuple[Any, int, int]) -> None:
    model, eos_id, pad_id = policy
    decoder = StaticDecoder(model, eos_id, pad_id, batch_size=8, check_every=1, cache_step=64, keep_lengths=1)
    prompts = random_prompts(5, 8)
    decoder.generate(prompts, 16, GREEDY)
    shapes = decoder.shapes()
    assert shapes[-1] == (64, 8) and all(length == 64 for length, _ in shapes)
    assert decoder.stats.new_buffers == len(shapes)
    decoder.generate(prompts[::-1], 16, GREEDY)
    assert decoder.shapes() == shapes and decoder.stats.new_buffers == 0  # the same shapes reuse their buffers
    decoder.generate([list(range(5, 65)), [5, 6]], 16, GREEDY)  # 60 + 16 tokens: a cache of 128
    assert {length for length, _ in decoder.shapes()} == {128}  # keep_lengths=1: the 64 buffers went
    decoder.sync(model)
    assert decoder.shapes() != []
    other = copy.deepcopy(model)
    decoder.sync(other)
    assert decoder.model is other and decoder.shapes() == []


class NoCache(torch.nn.Module):
    """A causal LM that drops its cache: each decode step would see one token only."""

    def __init__(self, inner: Any) -> None:
        super().__init__()
        self.inner, self.config = inner, inner.config

    def get_input_embeddings(self) -> Any:
        return self.inner.get_input_embeddings()

    def forward(self, input_ids: Any, past_key_values: Any = None, **kwargs: Any) -> Any:
        kwargs.pop("attention_mask", None)
        kwargs.pop("position_ids", None)
        return self.inner(input_ids=input_ids, **kwargs)


def test_unsupported_models_fail_at_construction(policy: tuple[Any, int, int]) -> None:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    model, eos_id, pad_id = policy
    with pytest.raises(UnsupportedModelError, match="no `config`"):
        StaticDecoder(torch.nn.Linear(4, 4), eos_id, pad_id)
    with pytest.raises(UnsupportedModelError, match="differ from a plain forward"):
        StaticDecoder(NoCache(model), eos_id, pad_id)
    sliding = Qwen2ForCausalLM(
        Qwen2Config(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                    num_key_value_heads=1, use_sliding_window=True, sliding_window=4, max_window_layers=0)
    )
    with pytest.raises(UnsupportedModelError, match="StaticSlidingWindowLayer is not supported"):
        StaticDecoder(sliding, eos_id, pad_id)


def test_a_lora_wrapped_model_decodes_like_generate(policy: tuple[Any, int, int]) -> None:
    from peft import LoraConfig, get_peft_model

    model, eos_id, pad_id = policy
    wrapped = get_peft_model(copy.deepcopy(model), LoraConfig(task_type="CAUSAL_LM", r=4, lora_alpha=8, target_modules="all-linear"))
    torch.manual_seed(0)
    with torch.no_grad():
        for name, parameter in wrapped.named_parameters():
            if "lora_B" in name:
                parameter.normal_(0, 0.5)  # adapters that change the outputs
    prompts = random_prompts(8, 12)
    got = StaticDecoder(wrapped, eos_id, pad_id, batch_size=8, check_every=2).generate(prompts, 20, GREEDY)
    assert got == reference(wrapped, eos_id, pad_id, prompts, 20, 8)
    assert got != reference(model, eos_id, pad_id, prompts, 20, 8)


def test_a_llama_model_decodes_like_generate() -> None:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, initializer_range=0.15, bos_token_id=1, eos_token_id=2, pad_token_id=0)
    model = LlamaForCausalLM(config).eval()
    prompts = random_prompts(9, 10, vocab=256)
    got = StaticDecoder(model, 2, 0, batch_size=4, check_every=3).generate(prompts, 16, GREEDY)
    assert got == reference(model, 2, 0, prompts, 16, 4)
    assert len({tuple(g) for g in got}) > 5  # outputs that depend on the prompt


def test_trainer_runs_a_grpo_step_with_the_static_backend(model_dir: Path, tmp_path: Path) -> None:
    train = status_tasks(zendesk_ticket_ids(4))
    save_tasks(train, tmp_path / "train.jsonl")
    config = load_config(
        preset="tiny-cpu",
        overrides=[
            f"out={json.dumps(str(tmp_path / 'run'))}",
            f"model.path={json.dumps(str(model_dir))}",
            f"tasks.train={json.dumps(str(tmp_path / 'train.jsonl'))}",
            f"tasks.test={json.dumps(str(tmp_path / 'train.jsonl'))}",
            "tasks.families=null",
            'tasks.tools=["get_ticket", "get_user"]',
            "tasks.max_test=0",
            "rollout.backend=static",
            "rollout.tasks_per_step=2",
            "rollout.group_size=2",
            "rollout.max_new_tokens=12",
            "rollout.max_turns=2",
            "objective.mask_truncated=false",
            "objective.beta=0.01",
            "objective.mu=1",
            "eval_every=0",
            "steps=1",
        ],
    )
    trainer = GrpoTrainer(config)
    assert isinstance(trainer.generator, StaticDecoder)
    metrics = trainer.train_step()
    assert metrics["completion_tokens"] > 0 and metrics["trained_episodes"] > 0 and "loss" in metrics
    assert trainer.policy.model.training  # generation leaves the model as it found it
    # greedy episodes are the same token for token with the model.generate backend
    tasks = trainer.pick_tasks(1)
    static = trainer.rollout(tasks, GREEDY, seed=0)
    policy = trainer.policy
    trainer.generator = TransformersGenerator(policy.model, policy.chat.eos_id, policy.tokenizer.pad_token_id)
    assert [e.tokens.ids for e in static] == [e.tokens.ids for e in trainer.rollout(tasks, GREEDY, seed=0)]


@pytest.mark.slow
def test_a_compiled_step_decodes_like_generate_and_new_shapes_do_not_recompile(policy: tuple[Any, int, int]) -> None:
    """torch.compile on the CPU (inductor's C++ backend): the same tracing as on a GPU."""
    model, eos_id, pad_id = policy
    decoder = StaticDecoder(model, eos_id, pad_id, batch_size=16, check_every=2, cache_step=16, compile=True)
    assert decoder.use_compile and not decoder.use_graphs
    for count, longest in [(16, 20), (12, 40), (16, 70), (9, 100)]:
        prompts = random_prompts(1000 + count + longest, count, longest=longest)  # seeds without exact ties
        assert decoder.generate(prompts, 24, GREEDY) == reference(model, eos_id, pad_id, prompts, 24, 16)
    assert len({length for length, _ in decoder.shapes()}) >= 3
    from torch._dynamo.utils import counters

    compiled = counters["stats"]["unique_graphs"]
    prompts = random_prompts(0, 16, longest=130)  # a new cache length: served by the dynamic graph
    assert decoder.generate(prompts, 24, GREEDY) == reference(model, eos_id, pad_id, prompts, 24, 16)
    assert counters["stats"]["unique_graphs"] == compiled


# ---------------------------------------------------------------------------- CUDA (pytest -m gpu)

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


@pytest.mark.gpu
@cuda
@pytest.mark.parametrize("compiled", [False, True], ids=["graph", "compiled-graph"])
def test_cuda_graphs_decode_like_generate(policy: tuple[Any, int, int], compiled: bool) -> None:
    model, eos_id, pad_id = policy
    model = copy.deepcopy(model).cuda()
    prompts = random_prompts(10, 37)
    decoder = StaticDecoder(model, eos_id, pad_id, batch_size=16, check_every=2, compile=compiled)
    assert decoder.use_graphs
    got = decoder.generate(prompts, 32, GREEDY)
    assert got == reference(model, eos_id, pad_id, prompts, 32, 16)
    assert decoder.stats.captures > 0 and decoder.stats.compactions
    again = decoder.generate(prompts, 32, GREEDY)
    assert again == got and decoder.stats.captures == 0  # kept graphs replayed
    torch.manual_seed(0)
    first = decoder.generate(prompts, 32, Sampling(temperature=1.0, top_p=0.9))  # captures the sampling graphs
    torch.manual_seed(0)
    second = decoder.generate(prompts, 32, Sampling(temperature=1.0, top_p=0.9))  # replays them
    assert first == second


@pytest.mark.parametrize("wrap", [False, True])
def test_the_decoder_uses_the_supported_cache_argument(policy: tuple[Any, int, int], wrap: bool) -> None:
    """No deprecation warning about the cache keyword, for a plain and a LoRA-wrapped model."""
    import warnings

    from mcpgym.baselines.train.decoding import cache_keyword

    model, eos_id, pad_id = policy
    if wrap:
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(copy.deepcopy(model), LoraConfig(task_type="CAUSAL_LM", r=4, lora_alpha=8, target_modules="all-linear"))
    import inspect

    accepted = inspect.signature(type(model.get_base_model() if wrap else model).forward).parameters
    assert cache_keyword(model) in accepted
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=FutureWarning, message=r".*(past_key_values|cache).*")
        warnings.filterwarnings("error", category=DeprecationWarning, message=r".*(past_key_values|cache).*")
        got = StaticDecoder(model, eos_id, pad_id, batch_size=4, check_every=2).generate(random_prompts(3, 5), 6, GREEDY)
    assert len(got) == 5 and all(len(row) <= 6 for row in got)
