"""The vLLM backend's plumbing without vLLM: the engine gets its memory share and context
length from the config, and a weight sync streams the policy's (merged) tensors uncopied."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is part of the test extra")
peft = pytest.importorskip("peft", reason="the train extra (peft) is part of the test extra")

from mcpgym.baselines.train.generation import VllmGenerator  # noqa: E402


class FakeEngineModel:
    """Records what `load_weights` was given, while the sync is under way."""

    def __init__(self, live: torch.nn.Module) -> None:
        self.live = live
        self.loaded: dict[str, torch.Tensor] = {}
        self.shared_storage: dict[str, bool] = {}

    def load_weights(self, weights: Any) -> None:
        pointers = {p.data_ptr() for p in self.live.state_dict().values()}
        for name, tensor in weights:
            self.shared_storage[name] = tensor.data_ptr() in pointers
            self.loaded[name] = tensor.detach().clone()


class FakeLLM:
    made: list[dict[str, Any]] = []

    def __init__(self, **kwargs: Any) -> None:
        FakeLLM.made.append(kwargs)
        self.prefix_resets = 0
        self.llm_engine = types.SimpleNamespace(model_executor=types.SimpleNamespace(
            driver_worker=types.SimpleNamespace(model_runner=types.SimpleNamespace(model=None))))

    def reset_prefix_cache(self) -> None:
        self.prefix_resets += 1


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> type[FakeLLM]:
    module = types.ModuleType("vllm")
    module.LLM = FakeLLM  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", module)
    FakeLLM.made = []
    return FakeLLM


def _tiny() -> torch.nn.Module:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    return Qwen2ForCausalLM(Qwen2Config(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32))


def test_the_engine_takes_its_memory_share_and_context_length(fake_vllm: type[FakeLLM]) -> None:
    VllmGenerator("some/model", eos_id=2, gpu_memory_utilization=0.45, max_model_len=4096, seed=3)
    made = fake_vllm.made[-1]
    assert (made["model"], made["gpu_memory_utilization"], made["max_model_len"], made["seed"]) == ("some/model", 0.45, 4096, 3)


def test_a_lora_sync_streams_the_merged_weights_without_copying_them(fake_vllm: type[FakeLLM]) -> None:
    from peft import LoraConfig, get_peft_model

    model = get_peft_model(_tiny(), LoraConfig(r=2, target_modules=["q_proj"], init_lora_weights=False))
    generator = VllmGenerator("m", eos_id=2)
    engine_model = FakeEngineModel(model)
    generator.llm.llm_engine.model_executor.driver_worker.model_runner.model = engine_model
    before = {n: t.detach().clone() for n, t in model.state_dict().items()}
    model.merge_adapter()
    merged = {n: t.detach().clone() for n, t in model.state_dict().items()}
    model.unmerge_adapter()

    generator.sync(model)

    name = "model.layers.0.self_attn.q_proj.weight"
    assert set(engine_model.loaded) >= {name, "lm_head.weight"}
    assert not any("lora_" in n or n.startswith("base_model.") for n in engine_model.loaded)
    assert all(engine_model.shared_storage.values())  # streamed from the model, not cloned first
    merged_q = merged["base_model.model.model.layers.0.self_attn.q_proj.base_layer.weight"]
    assert torch.equal(engine_model.loaded[name], merged_q)
    assert not torch.equal(merged_q, before["base_model.model.model.layers.0.self_attn.q_proj.base_layer.weight"])
    assert all(torch.allclose(t, before[n], atol=1e-6) for n, t in model.state_dict().items())  # adapters unfolded again
    assert generator.llm.prefix_resets == 1


def test_a_full_model_sync_streams_its_own_tensors(fake_vllm: type[FakeLLM]) -> None:
    model = _tiny()
    generator = VllmGenerator("m", eos_id=2)
    engine_model = FakeEngineModel(model)
    generator.llm.llm_engine.model_executor.driver_worker.model_runner.model = engine_model
    generator.sync(model)
    assert set(engine_model.loaded) == set(model.state_dict())
    assert all(engine_model.shared_storage.values())
