"""Tools written once as typed functions; a registry turns them into schemas and validated calls.

A tool is a plain function whose first parameter is the `ToolContext` and whose other
parameters are typed (use `Annotated[..., Field(description=...)]` to describe them). Its
docstring becomes the tool's description and its return annotation, a pydantic model, its
result schema. The same `ToolSpec` serves the in-process path and the MCP server.

Every parameter gets the kernel's bounds (`limits.bounded`): strings and lists without an
explicit `max_length` get the defaults, and numbers refuse booleans.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from datetime import datetime
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from sqlalchemy.orm import Session

from mcpgym.servers.kernel.errors import InvalidArgumentError
from mcpgym.servers.kernel.limits import (
    MAX_MESSAGE_CHARS,
    MAX_REPORTED_PROBLEMS,
    PREVIEW_CHARS,
    bounded,
    json_preview,
    nul_path,
)
from mcpgym.servers.kernel.sql import Sql
from mcpgym.servers.kernel.world import World


@dataclass(frozen=True)
class ToolContext:
    """What a tool body may touch: the session's database (as plain SQL in `sql`, or through
    the ORM in `db`, both in the same transaction), the world's clock and people."""

    db: Session
    now: datetime
    world: World
    sql: Sql


class ToolArguments(BaseModel):
    """Base of every generated argument model: unknown arguments are an error, not ignored."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, description, argument model and result model."""

    name: str
    description: str
    fn: Callable[..., BaseModel]
    arguments: type[ToolArguments]
    result: type[BaseModel]
    writes: bool
    examples: tuple[dict[str, Any], ...] = ()
    title: str = ""
    """A human name for the tool (MCP `title`)."""
    destructive: bool = False
    """A write that deletes, cancels or overwrites what cannot be had back (MCP `destructiveHint`)."""
    idempotent: bool = True
    """Calling it again with the same arguments changes nothing more (MCP `idempotentHint`)."""

    @cached_property
    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of the arguments, without pydantic's titles."""
        return _strip_titles(self.arguments.model_json_schema())

    @cached_property
    def output_schema(self) -> dict[str, Any]:
        """JSON Schema of the result object."""
        return _strip_titles(self.result.model_json_schema())

    def validate(self, arguments: Any) -> dict[str, Any]:
        """Validated keyword arguments for `fn`, or `InvalidArgumentError` with a readable message."""
        if not isinstance(arguments, dict):
            raise InvalidArgumentError(
                f"arguments for {self.name} must be a JSON object, got {type(arguments).__name__}"
            )
        try:
            model = self.arguments.model_validate(arguments)
        except ValidationError as err:
            raise InvalidArgumentError(f"{self.name}: {describe_validation_error(err)}") from None
        kwargs = {name: getattr(model, name) for name in type(model).model_fields}
        where = nul_path(kwargs)
        if where is not None:
            raise InvalidArgumentError(f"{self.name}: {where}: text may not contain the NUL character (U+0000)")
        return kwargs

    def openai_schema(self, name: str | None = None) -> dict[str, Any]:
        """The tool as an OpenAI-style function entry (also what chat templates take)."""
        return {
            "type": "function",
            "function": {
                "name": name or self.name,
                "description": self.description,
                "parameters": self.input_schema,
            },
        }


def describe_validation_error(err: ValidationError) -> str:
    """One line per problem: `field: message (got value)`, at most `MAX_REPORTED_PROBLEMS` of
    them, each bounded in length whatever the size of the input."""
    problems = err.errors(include_url=False, include_context=False)
    parts = []
    for problem in problems[:MAX_REPORTED_PROBLEMS]:
        where = ".".join(str(p)[:PREVIEW_CHARS] for p in problem["loc"]) or "arguments"
        text = f"{where}: {problem['msg'][:MAX_MESSAGE_CHARS]}"
        if problem["type"] not in ("missing", "extra_forbidden"):
            text += f" (got {json_preview(problem.get('input'))})"
        elif problem["type"] == "extra_forbidden":
            text = f"{where}: unknown argument"
        parts.append(text)
    if len(problems) > MAX_REPORTED_PROBLEMS:
        parts.append(f"and {len(problems) - MAX_REPORTED_PROBLEMS} more problems")
    return "; ".join(parts)


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {
            k: _strip_titles(v)
            for k, v in schema.items()
            if not (k == "title" and isinstance(v, str))
        }
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


class ToolRegistry:
    """The ordered set of tools of one server, filled with the `@registry.tool()` decorator."""

    def __init__(self) -> None:
        self._tools: dict[str, ToolSpec] = {}

    def tool(
        self, *, writes: bool = False, examples: list[dict[str, Any]] | None = None,
        title: str | None = None, destructive: bool = False, idempotent: bool | None = None,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register a function as a tool.

        `writes=True` marks tools that change state; `destructive=True` a write that deletes,
        cancels or overwrites; `idempotent` (default: True for reads, False for writes) whether
        a repeated call changes nothing more. `title` is the human name (default: the name,
        spaced). `examples` are argument sets that succeed on the seeded world of seed 0; the
        conformance tests call every one of them.
        """
        if destructive and not writes:
            raise ValueError("a destructive tool writes: pass writes=True")

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            spec = build_tool_spec(fn, writes=writes, examples=examples or [])
            spec = dataclasses.replace(
                spec,
                title=title or spec.name.replace("_", " ").capitalize(),
                destructive=destructive,
                idempotent=not writes if idempotent is None else idempotent,
            )
            if spec.name in self._tools:
                raise ValueError(f"tool {spec.name!r} registered twice")
            self._tools[spec.name] = spec
            return fn

        return register

    def get(self, name: str) -> ToolSpec | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)


def build_tool_spec(
    fn: Callable[..., Any], *, writes: bool, examples: list[dict[str, Any]] | None = None
) -> ToolSpec:
    """Derive a `ToolSpec` from a typed function: parameters after the context become arguments."""
    description = inspect.cleandoc(fn.__doc__ or "")
    if not description:
        raise ValueError(f"tool {fn.__name__} needs a docstring: it is the tool's description")
    hints = get_type_hints(fn, include_extras=True)
    result = hints.get("return")
    if not (isinstance(result, type) and issubclass(result, BaseModel)):
        raise TypeError(f"tool {fn.__name__} must declare a pydantic model as its return type")
    params = list(inspect.signature(fn).parameters.values())
    if not params or hints.get(params[0].name) is not ToolContext:
        raise TypeError(f"tool {fn.__name__}: the first parameter must be `ctx: ToolContext`")
    fields: dict[str, Any] = {}
    for param in params[1:]:
        if param.name not in hints:
            raise TypeError(f"tool {fn.__name__}: parameter {param.name} has no type")
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (bounded(hints[param.name]), default)
    model_name = "".join(part.title() for part in fn.__name__.split("_")) + "Arguments"
    arguments = create_model(model_name, __base__=ToolArguments, **fields)
    return ToolSpec(
        name=fn.__name__,
        description=description,
        fn=fn,
        arguments=arguments,
        result=result,
        writes=writes,
        examples=tuple(examples or ()),
    )
