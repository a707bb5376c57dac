"""BFCL function docs as standard JSON Schema and as pydantic argument models.

BFCL writes parameter types in its own words ("dict", "float", "tuple", "any"); the schema
uses JSON Schema's. The argument model validates a call the way the schema reads: integers
are ints (a whole float such as 3.0 is taken as 3), numbers are ints or floats and keep
their type, strings, booleans, lists and objects are what they say, with sizes bounded.
Defaults are the doc's; BFCL writes some as the string "None" where the backend's default
is None, so callers pass the backend only the arguments given (`checked_arguments`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Annotated, Any, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    create_model,
)

MAX_STRING = 100_000
"""Characters in one string argument."""
MAX_ITEMS = 10_000
"""Items in one list argument, keys in one object argument."""
MAX_DEPTH = 16
"""Nesting of object and array types in one doc."""

TYPES: dict[str, str | None] = {
    "dict": "object",
    "object": "object",
    "float": "number",
    "number": "number",
    "integer": "integer",
    "string": "string",
    "boolean": "boolean",
    "array": "array",
    "tuple": "array",
    "any": None,
}
"""BFCL type name -> JSON Schema type (None: any value)."""

_KEPT = ("description", "enum", "default")


class SchemaError(ValueError):
    """A function doc that cannot be converted; the message names the doc and the place."""


class ArgumentsInvalid(ValueError):
    """Arguments that do not match a tool's schema; the message lists what is wrong."""


def _node(node: Any, where: str, depth: int) -> dict[str, Any]:
    if depth > MAX_DEPTH:
        raise SchemaError(f"{where}: nested deeper than {MAX_DEPTH} levels")
    if not isinstance(node, dict):
        raise SchemaError(f"{where}: a parameter schema must be an object, not {type(node).__name__}")
    out: dict[str, Any] = {}
    if "type" in node:
        if node["type"] not in TYPES:
            raise SchemaError(f"{where}: unknown type {node['type']!r}; known: {', '.join(TYPES)}")
        if TYPES[node["type"]] is not None:
            out["type"] = TYPES[node["type"]]
    for key in _KEPT:
        if key in node:
            out[key] = node[key]
    if "properties" in node:
        if not isinstance(node["properties"], dict):
            raise SchemaError(f"{where}: properties must be an object")
        out["properties"] = {
            str(name): _node(child, f"{where}.{name}", depth + 1) for name, child in node["properties"].items()
        }
    if "required" in node:
        required = node["required"]
        if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
            raise SchemaError(f"{where}: required must be a list of names")
        unknown = sorted(set(required) - set(node.get("properties") or {}))
        if unknown:
            raise SchemaError(f"{where}: required names unknown properties {unknown}")
        out["required"] = list(required)
    if "items" in node:
        out["items"] = _node(node["items"], f"{where}[]", depth + 1)
    return out


def _doc_name(doc: Any) -> str:
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str) or not doc["name"]:
        raise SchemaError("a function doc must be an object with a name")
    return doc["name"]


def json_schema(doc: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a BFCL function's arguments (an object, no other keys allowed)."""
    name = _doc_name(doc)
    schema = _node(doc.get("parameters", {"type": "dict", "properties": {}}), name, 0)
    if schema.get("type") != "object":
        raise SchemaError(f"{name}: parameters must be of type dict")
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    return schema


def _whole_number(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Integer = Annotated[StrictInt, BeforeValidator(_whole_number)]
Number = Union[StrictInt, Annotated[float, Field(strict=True, allow_inf_nan=False)]]
String = Annotated[StrictStr, Field(max_length=MAX_STRING)]


def _one_of(options: list[Any]) -> AfterValidator:
    def check(value: Any) -> Any:
        if value not in options:
            raise ValueError(f"must be one of {options[:20]}")
        return value

    return AfterValidator(check)


def _annotation(schema: dict[str, Any], where: str) -> Any:
    kind = schema.get("type")
    if kind == "integer":
        annotation: Any = Integer
    elif kind == "number":
        annotation = Number
    elif kind == "string":
        annotation = String
    elif kind == "boolean":
        annotation = StrictBool
    elif kind == "array":
        item = _annotation(schema["items"], f"{where}[]") if "items" in schema else Any
        annotation = Annotated[list[item], Field(max_length=MAX_ITEMS)]  # type: ignore[valid-type]
    elif kind == "object" and schema.get("properties"):
        annotation = _object_model(schema, where, extra="allow")
    elif kind == "object":
        annotation = Annotated[dict[str, Any], Field(max_length=MAX_ITEMS)]
    else:
        annotation = Any
    if isinstance(schema.get("enum"), list):
        annotation = Annotated[annotation, _one_of(schema["enum"])]
    return annotation


def _object_model(schema: dict[str, Any], where: str, extra: str) -> type[BaseModel]:
    required = set(schema.get("required", []))
    fields: dict[str, Any] = {}
    for index, (name, child) in enumerate(schema.get("properties", {}).items()):
        default = ... if name in required else child.get("default")
        fields[f"p{index}"] = (
            _annotation(child, f"{where}.{name}"),
            Field(default=default, alias=name, description=child.get("description")),
        )
    config = ConfigDict(extra=extra, populate_by_name=False, hide_input_in_errors=True)  # type: ignore[typeddict-item]
    return create_model(f"{where.replace('.', '_')}_arguments", __config__=config, **fields)


@lru_cache(maxsize=512)
def _model_of(canonical_doc: str) -> type[BaseModel]:
    doc = json.loads(canonical_doc)
    return _object_model(json_schema(doc), _doc_name(doc), extra="forbid")


def arguments_model(doc: dict[str, Any]) -> type[BaseModel]:
    """A pydantic model of a BFCL function's arguments (fields aliased by parameter name;
    unknown arguments rejected). Models are cached by the doc's content."""
    _doc_name(doc)
    return _model_of(json.dumps(doc, sort_keys=True))


def _place(location: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in location)[:200] or "(arguments)"


def checked_arguments(model: type[BaseModel], arguments: Any) -> dict[str, Any]:
    """The arguments, validated by `model`, as plain values: only those given (so the backend
    applies its own defaults), ints kept as ints where a number is asked for."""
    if not isinstance(arguments, dict):
        raise ArgumentsInvalid(f"arguments must be an object, not {type(arguments).__name__}")
    try:
        validated = model.model_validate(arguments)
    except ValidationError as err:
        problems = [f"{_place(error['loc'])}: {error['msg']}" for error in err.errors()[:5]]
        more = err.error_count() - len(problems)
        raise ArgumentsInvalid("; ".join(problems) + (f"; and {more} more" if more > 0 else "")) from None
    return validated.model_dump(by_alias=True, exclude_unset=True)
