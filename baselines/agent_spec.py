"""An agent as data: its kind and settings, from which any process can build the agent.

Worker processes and Ray actors cannot receive a function that makes agents (a lambda does
not pickle, and a loaded model or an HTTP client should not travel), so parallel evaluation
sends an `AgentSpec` and each worker calls `spec.factory()` once: a function from an episode
seed to a fresh agent, whose agents share what is costly to make (one HTTP client and its
connection pool, one loaded model). `spec.settings()` is what a run's manifest records of
the agent; it never holds the API key.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from mcpgym.baselines.agents import Agent, NoOpAgent, OracleAgent, RandomAgent
from mcpgym.baselines.run_folder import Setting
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

AgentKind = Literal["oracle", "noop", "random", "openai", "openai-text", "policy"]
AGENT_KINDS: tuple[str, ...] = ("oracle", "noop", "random", "openai", "openai-text", "policy")
REMOTE_KINDS = frozenset({"openai", "openai-text"})
"""Kinds whose turns wait on a model endpoint (their episodes overlap, `concurrency` at a time)."""


class AgentBuildError(RuntimeError):
    """The agent cannot be made here: an optional package is missing or the model does not load."""


class AgentSpec(BaseModel):
    """`AgentSpec(kind="random")`, `AgentSpec(kind="openai", base_url=..., model=...)`, ...

    Only the settings of the chosen kind matter; the others keep their defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: AgentKind = "oracle"
    base_url: str | None = Field(None, max_length=2048)
    """OpenAI-compatible endpoint (kinds openai, openai-text), e.g. http://127.0.0.1:8000/v1."""
    model: str | None = Field(None, min_length=1, max_length=512)
    """Model name sent to the endpoint."""
    api_key: SecretStr | None = Field(None, max_length=4096)
    """Sent to the endpoint (default: $OPENAI_API_KEY where the agent is built); never recorded."""
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: int = Field(1024, ge=1, le=1_000_000)
    """Per model reply (openai kinds) or per turn (policy)."""
    timeout: float = Field(60.0, gt=0, le=3600)
    retries: int = Field(3, ge=0, le=20)
    backoff: float = Field(1.0, ge=0, le=600)
    model_path: str | None = Field(None, min_length=1, max_length=4096)
    """Model folder or Hugging Face repo id (kind policy)."""
    strict_tools: bool = False
    """Kind openai: send the tool schemas in OpenAI's strict form."""

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            parts = urlsplit(value)
            parts.port  # noqa: B018 (raises on a port out of range)
        except ValueError as err:
            raise ValueError(f"not a URL: {err}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("not an http(s) URL with a host, e.g. http://127.0.0.1:8000/v1")
        return value

    @model_validator(mode="after")
    def _complete(self) -> AgentSpec:
        if self.kind in REMOTE_KINDS and (not self.base_url or not self.model):
            raise ValueError(f"agent kind {self.kind} needs base_url and model")
        if self.kind == "policy" and not self.model_path:
            raise ValueError("agent kind policy needs model_path (a model folder or Hugging Face path)")
        return self

    @classmethod
    def from_args(cls, args: Any) -> AgentSpec:
        """The spec of `mcpgym eval`'s parsed arguments (`--agent`, `--base-url`, ...)."""
        names = ("base_url", "model", "api_key", "temperature", "max_tokens", "timeout", "retries", "backoff", "model_path",
                 "strict_tools")
        given = {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
        return cls(kind=args.agent, **given)

    @property
    def remote(self) -> bool:
        """The agent's turns wait on a model endpoint."""
        return self.kind in REMOTE_KINDS

    def settings(self) -> dict[str, Setting]:
        """What identifies the agent in a run's manifest (never the API key)."""
        if self.kind in REMOTE_KINDS:
            from mcpgym.baselines.chat_agent import public_url

            assert self.base_url is not None
            shown: dict[str, Setting] = {"kind": self.kind, "model": self.model, "base_url": public_url(self.base_url),
                                         "temperature": self.temperature, "max_tokens": self.max_tokens}
            return shown | ({"strict_tools": True} if self.strict_tools else {})
        if self.kind == "policy":
            assert self.model_path is not None
            local = Path(self.model_path)
            return {"kind": "policy", "model_path": str(local.resolve()) if local.exists() else self.model_path,
                    "max_tokens": self.max_tokens}
        return {"kind": self.kind}

    def factory(self) -> Callable[[int], Agent]:
        """A function from an episode seed to a fresh agent; call it once per process.

        Raises `AgentBuildError` when the agent cannot be made here."""
        if self.kind in REMOTE_KINDS:
            return self._chat_factory()
        if self.kind == "policy":
            agent = self._policy()
            return lambda seed: agent  # one model; `reset` starts each episode afresh
        if self.kind == "random":
            return RandomAgent
        return (lambda seed: OracleAgent()) if self.kind == "oracle" else (lambda seed: NoOpAgent())

    def build(self, seed: int) -> Agent:
        """One agent for the episode seeded `seed` (a run should use `factory()` instead)."""
        return self.factory()(seed)

    def _chat_factory(self) -> Callable[[int], Agent]:
        try:
            from mcpgym.baselines.chat_agent import ChatAgent
        except ImportError as err:
            raise AgentBuildError(f"agent kind {self.kind} needs the eval extra ({err.name} is missing): pip install 'mcpgym[eval]'") from None
        assert self.base_url is not None and self.model is not None
        first = ChatAgent(
            base_url=self.base_url, model=self.model, api_key=self.api_key.get_secret_value() if self.api_key else None,
            mode="tools" if self.kind == "openai" else "text", temperature=self.temperature, max_tokens=self.max_tokens,
            timeout=self.timeout, retries=self.retries, backoff=self.backoff, strict_tools=self.strict_tools,
        )
        return first.sibling

    def _policy(self) -> Agent:
        try:
            from mcpgym.baselines.train.policy import PolicyAgent
        except ImportError as err:
            raise AgentBuildError(f"agent kind policy needs the train extra ({err.name} is missing): pip install 'mcpgym[train]'") from None
        try:
            return PolicyAgent.from_pretrained(self.model_path, max_new_tokens=self.max_tokens)  # type: ignore[arg-type]
        except (OSError, ValueError) as err:  # transformers' errors for a folder or repo it cannot load
            message = " ".join(str(err).split())[:300]
            raise AgentBuildError(f"cannot load the model {self.model_path!r}: {message}") from None


__all__ = ["AGENT_KINDS", "REMOTE_KINDS", "AgentBuildError", "AgentKind", "AgentSpec"]
