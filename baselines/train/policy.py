"""The policy: a causal LM and its tokenizer, loaded for training or evaluation.

`load_policy` takes any Hugging Face path or local folder (`AutoModelForCausalLM`), builds a
small model there first when the config asks for one and the folder is missing, places it on
the device in the configured precision, and wraps it in LoRA adapters through peft when
configured. `PolicyAgent` plays episodes with it through the agent interface of
`mcpgym.baselines.agents`, so `mcpgym eval --agent policy --model-path DIR` scores a checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from mcpgym.baselines.train.chat import ChatFormat, ToolParser
from mcpgym.baselines.train.config import ModelConfig
from mcpgym.baselines.train.generation import Sampling, TransformersGenerator
from mcpgym.tasks.model import Task


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def resolve_dtype(name: str, device: torch.device) -> torch.dtype:
    if name == "auto":
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    return getattr(torch, name)


@dataclass
class Policy:
    """The trained model, its tokenizer and chat format, and where it runs."""

    model: Any
    tokenizer: Any
    chat: ChatFormat
    device: torch.device

    def trainable(self) -> dict[str, torch.nn.Parameter]:
        return {name: p for name, p in self.model.named_parameters() if p.requires_grad}


def load_tokenizer(path: str | Path) -> Any:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(path))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    return tokenizer


def load_policy(config: ModelConfig, build_tasks: list[Task] | None = None, seed: int = 0) -> Policy:
    """The model of `config` on its device, built first (its tokenizer trained on
    `build_tasks`, its weights initialised with `seed`) if `config.build` asks and it is missing."""
    from transformers import AutoModelForCausalLM

    path = Path(config.path)
    if config.build is not None and not path.exists():
        from mcpgym.baselines.train.tiny_model import build_model

        build_model(path, size=config.build, tasks=build_tasks, vocab_size=config.vocab_size, seed=seed)
    device = resolve_device(config.device)
    dtype = resolve_dtype(config.dtype, device)
    tokenizer = load_tokenizer(config.path)
    model = AutoModelForCausalLM.from_pretrained(config.path, dtype=dtype).to(device)
    if config.gradient_checkpointing:
        model.gradient_checkpointing_enable()
        model.config.use_cache = False
    if config.lora is not None:
        from peft import LoraConfig, get_peft_model

        lora = LoraConfig(
            task_type="CAUSAL_LM",
            r=config.lora.r,
            lora_alpha=config.lora.alpha,
            lora_dropout=config.lora.dropout,
            target_modules=config.lora.target_modules,
        )
        model = get_peft_model(model, lora)
    model.train()
    return Policy(model=model, tokenizer=tokenizer, chat=ChatFormat(tokenizer, config.tool_parser), device=device)


@dataclass
class PolicyAgent:
    """A local model as an agent: greedy (or sampled) turns in the model's tool-call format."""

    model: Any
    chat: ChatFormat
    max_new_tokens: int = 512
    sampling: Sampling = field(default_factory=lambda: Sampling(greedy=True))

    @classmethod
    def from_pretrained(cls, path: str | Path, tool_parser: ToolParser = "hermes", device: str = "auto", **kwargs: Any) -> PolicyAgent:
        policy = load_policy(ModelConfig(path=str(path), device=device, tool_parser=tool_parser))
        policy.model.eval()
        return cls(model=policy.model, chat=policy.chat, **kwargs)

    def __post_init__(self) -> None:
        tokenizer = self.chat.tokenizer
        self.generator = TransformersGenerator(self.model, self.chat.eos_id, tokenizer.pad_token_id, batch_size=1)

    def reset(self, task: Task, observation: dict[str, Any]) -> None:
        self.tools = observation["tools"]

    def act(self, observation: dict[str, Any]) -> str | dict[str, Any]:
        prompt = self.chat.prompt(observation["messages"], observation["tools"])
        [tokens] = self.generator.generate([prompt], self.max_new_tokens, self.sampling)
        return self.chat.action(self.chat.text_of(tokens))


__all__ = ["Policy", "PolicyAgent", "load_policy", "load_tokenizer", "resolve_device", "resolve_dtype"]
