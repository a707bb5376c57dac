"""Tools written once as typed functions; a registry turns them into schemas and validated calls.

A tool is a plain function whose first parameter is the `ToolContext` and whose other
parameters are typed (use `Annotated[..., Field(description=...)]` to describe them). Its
docstring becomes the tool's description and its return annotation, a pydantic model, its
result schema. The same `ToolSpec` serves the in-process path and the MCP server.

Every parameter gets the kernel's bounds (`limits.bounded`): strings and lists without an
explicit `max_length` get the defaults, and numbers refuse booleans.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from sqlalchemy.orm import Session

from mcpgym.servers.kernel.errors import InvalidArgumentError
from mcpgym.servers.kernel.limits import (
    MAX_LIST_ITEMS,
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
    """A write that may delete or overwrite existing data rather than only add to it (MCP
    `destructiveHint`); touching a row's bookkeeping (`updated_at`, `updated_by_id`,
    `version`) alongside an addition does not count (tests/test_annotations.py)."""
    idempotent: bool = True
    """Calling it again with the same arguments changes nothing more (MCP `idempotentHint`)."""

    @cached_property
    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of the arguments, without pydantic's titles."""
        return _strip_titles(self.arguments.model_json_schema())

    @cached_property
    def strict_input_schema(self) -> dict[str, Any]:
        """`input_schema` in the form OpenAI's strict function calling takes (`strict_schema`)."""
        return strict_schema(self.input_schema)

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
        arguments = omit_nulls(arguments, self.input_schema)
        try:
            model = self.arguments.model_validate(arguments)
        except ValidationError as err:
            raise InvalidArgumentError(f"{self.name}: {describe_validation_error(err)}") from None
        kwargs = {name: getattr(model, name) for name in type(model).model_fields}
        where = nul_path(kwargs)
        if where is not None:
            raise InvalidArgumentError(f"{self.name}: {where}: text may not contain the NUL character (U+0000)")
        return kwargs

    def openai_schema(self, name: str | None = None, strict: bool = False) -> dict[str, Any]:
        """The tool as an OpenAI-style function entry (also what chat templates take); with
        `strict`, in the strict form (`strict_schema`) and marked `"strict": true`."""
        function: dict[str, Any] = {
            "name": name or self.name,
            "description": self.description,
            "parameters": self.strict_input_schema if strict else self.input_schema,
        }
        if strict:
            function["strict"] = True
        return {"type": "function", "function": function}


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


_BOUND_NAMES = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}
"""pydantic writes the bounds of a `Field` nested in an outer `Annotated` under their Python
names; JSON Schema spells them so."""


def _strip_titles(schema: Any) -> Any:
    """`schema` without pydantic's titles, its number bounds under their JSON Schema names."""
    if isinstance(schema, dict):
        if schema.get("type") in ("integer", "number"):
            schema = {_BOUND_NAMES.get(k, k): v for k, v in schema.items()}
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

        `writes=True` marks tools that change state; `destructive=True` a write that may
        delete or overwrite existing data rather than only add; `idempotent` (default: True for reads, False for writes) whether
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
            self.add(spec)
            return fn

        return register

    def add(self, spec: ToolSpec) -> None:
        """Register a tool built without the decorator (an object server's)."""
        if spec.name in self._tools:
            raise ValueError(f"tool {spec.name!r} registered twice")
        self._tools[spec.name] = spec

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


# ------------------------------------------------------------------ strict function calling

STRICT_KEYWORDS = frozenset({
    "type", "description", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
    "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minItems", "maxItems",
})
"""The JSON Schema keywords OpenAI's strict mode accepts that tool schemas use; the others
(`default`, `minLength`, `maxLength`, ...) are left out of the strict form. The server still
checks every bound when the tool is called."""


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """An argument schema in the form OpenAI's strict function calling takes: `$ref`s inlined,
    every object closed (`additionalProperties: false`) with every property required, and
    each optional property that cannot be null made nullable, a null meaning "not given"
    (`omit_nulls`); its default is then named in its description. Keywords outside
    `STRICT_KEYWORDS` are dropped. Applying it again changes nothing."""
    return _strict_node(schema, schema.get("$defs", {}), depth=0)


def strict_function(entry: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-style function entry with its parameters in strict form and `"strict": true`."""
    function = dict(entry["function"])
    function["parameters"] = strict_schema(function.get("parameters") or {"type": "object", "properties": {}})
    function["strict"] = True
    return {**entry, "function": function}


MAX_SCHEMA_DEPTH = 32
"""Deepest schema (counting inlined `$ref`s) `strict_schema` converts: a recursive model is an error."""


def _resolve(node: dict[str, Any], defs: dict[str, Any], depth: int) -> dict[str, Any]:
    """`node` with its local `$ref` replaced by the definition (its own keywords kept)."""
    while "$ref" in node:
        ref = node["$ref"]
        if not (isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs):
            raise ValueError(f"cannot convert a schema with the reference {ref!r}")
        depth += 1
        if depth > MAX_SCHEMA_DEPTH:
            raise ValueError("cannot convert a recursive schema to strict form")
        rest = {k: v for k, v in node.items() if k != "$ref"}
        node = {**defs[ref[8:]], **rest}
    return node


def _strict_node(node: Any, defs: dict[str, Any], depth: int) -> Any:
    if not isinstance(node, dict):
        return node
    if depth > MAX_SCHEMA_DEPTH:
        raise ValueError("cannot convert a schema this deep to strict form")
    node = _resolve(node, defs, depth)
    if "allOf" in node:
        if len(node["allOf"]) != 1:
            raise ValueError("cannot convert a schema with allOf of several members to strict form")
        node = {**_resolve(node["allOf"][0], defs, depth), **{k: v for k, v in node.items() if k != "allOf"}}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key not in STRICT_KEYWORDS:
            continue
        if key == "items":
            out[key] = _strict_node(value, defs, depth + 1)
        elif key == "anyOf":
            out[key] = [_strict_node(member, defs, depth + 1) for member in value]
        elif key == "properties":
            out[key] = {name: _strict_node(sub, defs, depth + 1) for name, sub in value.items()}
        else:
            out[key] = copy.deepcopy(value)
    if node.get("type") == "object" or "properties" in node:
        properties = out.setdefault("properties", {})
        required = set(node.get("required", []))
        for name, sub in list(properties.items()):
            if name not in required:
                properties[name] = _nullable(sub, _resolve(node["properties"][name], defs, depth))
        out["type"] = "object"
        out["required"] = list(properties)
        out["additionalProperties"] = False
    return out


def _nullable(strict: dict[str, Any], original: dict[str, Any]) -> dict[str, Any]:
    """An optional property's strict schema: as it is when null is already allowed, else
    null or the value, the default (if any) named in the description."""
    default = original.get("default")
    if admits_null(strict):
        if default is None:
            return strict
        note = f"Send {json.dumps(default)} for the default."
        return {**strict, "description": _joined(strict.get("description"), note)}
    description = strict.get("description")
    value = {k: v for k, v in strict.items() if k != "description"}
    members = value["anyOf"] if list(value) == ["anyOf"] else [value]
    note = "null: not given" + (f" (default {json.dumps(default)})." if "default" in original else ".")
    return {"anyOf": [*members, {"type": "null"}], "description": _joined(description, note)}


def _joined(description: Any, note: str) -> str:
    text = str(description or "").rstrip()
    return note if not text else (text if text.endswith(note) else f"{text} {note}")


def admits_null(schema: Any) -> bool:
    """Whether `schema` (with no `$ref`) allows a null value."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in schema and schema["const"] is None:
        return True
    if None in (schema.get("enum") or [1]):
        return True
    return any(admits_null(member) for member in schema.get("anyOf", []))


def omit_nulls(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """`arguments` without the nulls given for optional properties that cannot be null (the
    strict form's "not given"), at any depth the schema describes; the input is not changed.
    A null for a required property, or one the schema allows, stays as it is."""
    return _omit_nulls(arguments, schema, schema.get("$defs", {}), 0)


def _omit_nulls(value: Any, schema: dict[str, Any], defs: dict[str, Any], depth: int) -> Any:
    if depth > MAX_SCHEMA_DEPTH or not isinstance(schema, dict):
        return value
    try:
        schema = _resolve(schema, defs, depth)
    except ValueError:
        return value
    if isinstance(value, dict) and "properties" in schema:
        properties, required = schema["properties"], set(schema.get("required", []))
        out = value
        for name, item in value.items():
            sub = properties.get(name)
            if not isinstance(sub, dict):
                continue
            if item is None and name not in required and not admits_null(_resolve(sub, defs, depth)):
                out = out if out is not value else dict(value)
                del out[name]
                continue
            new = _omit_nulls(item, sub, defs, depth + 1)
            if new is not item:
                out = out if out is not value else dict(value)
                out[name] = new
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        if len(value) > schema.get("maxItems", MAX_LIST_ITEMS):
            return value  # refused by validation: not worth walking
        items = [_omit_nulls(item, schema["items"], defs, depth + 1) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    for member in schema.get("anyOf", []):
        new = _omit_nulls(value, member, defs, depth + 1)
        if new is not value:
            return new
    return value
