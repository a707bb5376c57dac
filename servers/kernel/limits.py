"""The bounds every tool input, stored database and result is held to.

`bounded` rewrites a tool parameter's type so that every string and list in it, at any depth
(inside unions, lists and nested argument models), has a maximum length, and so that no
integer or number accepts a boolean. Explicit bounds (`Field(max_length=...)`) win over the
defaults, so a domain can allow more where it needs to. The bounds appear in the tool's JSON
schema (`maxLength`, `maxItems`), where models and clients can read them.
"""

from __future__ import annotations

import copy
import json
import types
from collections.abc import Iterator
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from annotated_types import Ge, Gt, Le, Lt, MaxLen, MultipleOf
from pydantic import BaseModel, BeforeValidator, create_model
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

MAX_TEXT_CHARS = 200
"""Default bound of a string argument: names, ids, codes, addresses and search text."""

MAX_BODY_CHARS = 10_000
"""Bound of a long text argument (a message body, a description, a note): see `fields.Body`."""

MAX_LIST_ITEMS = 100
"""Default bound of a list argument."""

MAX_RESULT_CHARS = 1_000_000
"""Longest result, in characters of its JSON text; a longer one is an error asking for less."""

STORAGE_QUOTA_BYTES = 32 * 1024 * 1024
"""Default room a session may fill beyond its seeded database (`ServerSpec.storage_quota_bytes`)."""

MAX_REPORTED_PROBLEMS = 10
"""Most validation problems listed in one error message."""

PREVIEW_CHARS = 80
"""Longest rendering of a rejected value (or of a misspelt argument's name) in an error message."""

MAX_MESSAGE_CHARS = 300
"""Longest text of one validation problem."""


def _not_a_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise PydanticCustomError("bool_type_for_number", "Input should be a number, not a boolean")
    return value


_REJECT_BOOL = BeforeValidator(_not_a_bool)


def bounded(annotation: Any, *, has_bound: bool = False) -> Any:
    """`annotation` with the kernel's default bounds added wherever it has none.

    `has_bound` says that an enclosing `Annotated` already sets a maximum length, which then
    holds for the strings and lists of the union it annotates.
    """
    return _bounded(annotation, has_bound, in_union=False)


def _bounded(annotation: Any, has_bound: bool, in_union: bool) -> Any:
    origin = get_origin(annotation)
    if origin is Annotated:
        inner, *metadata = get_args(annotation)
        inner, metadata = _number_bounds_off_none(inner, metadata)
        inner = _bounded(inner, has_bound or _sets_max_length(metadata), in_union)
        return Annotated[(inner, *metadata)]
    if origin in (Union, types.UnionType):
        # The boolean check wraps the whole union, so that pydantic's per-member error
        # locations (`event_id.int`, `event_id.str`) stay as they are.
        members = tuple(_bounded(member, has_bound, in_union=True) for member in get_args(annotation))
        rebuilt = Union[members]  # noqa: UP007 (built from a tuple of members)
        return Annotated[rebuilt, _REJECT_BOOL] if any(map(_is_numeric, members)) else rebuilt
    if annotation is str:
        return annotation if has_bound else Annotated[str, MaxLen(MAX_TEXT_CHARS)]
    if origin in (list, set, frozenset):
        (item,) = get_args(annotation)
        rebuilt = origin[_bounded(item, False, in_union=False)]
        return rebuilt if has_bound else Annotated[rebuilt, MaxLen(MAX_LIST_ITEMS)]
    if origin is tuple or origin is dict:
        raise TypeError(f"tool arguments of type {annotation} are not supported; use a list or a model")
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return bounded_model(annotation)
    if _is_numeric(annotation) and not in_union:
        return Annotated[annotation, _REJECT_BOOL]
    return annotation


_NUMBER_BOUNDS = (Ge, Gt, Le, Lt, MultipleOf)


def _number_bounds_off_none(inner: Any, metadata: list[Any]) -> tuple[Any, list[Any]]:
    """Move the number bounds (`ge`, `lt`, ...) of an optional number onto its non-None
    members: pydantic applies an `Annotated` bound to the whole union, so an explicit null
    would fail the comparison inside pydantic instead of passing as "not given"."""
    if get_origin(inner) not in (Union, types.UnionType) or type(None) not in get_args(inner):
        return inner, metadata
    bounds = [b for item in metadata for b in (item.metadata if isinstance(item, FieldInfo) else [item])
              if isinstance(b, _NUMBER_BOUNDS)]
    if not bounds:
        return inner, metadata
    members = tuple(m if m is type(None) else Annotated[(m, *bounds)] for m in get_args(inner))
    kept = []
    for item in metadata:
        if isinstance(item, FieldInfo):
            item = copy.copy(item)
            item.metadata = [b for b in item.metadata if not isinstance(b, _NUMBER_BOUNDS)]
            kept.append(item)
        elif not isinstance(item, _NUMBER_BOUNDS):
            kept.append(item)
    return Union[members], kept  # noqa: UP007 (built from a tuple of members)


@cache
def bounded_model(model: type[BaseModel]) -> type[BaseModel]:
    """A subclass of `model` (same name and schema title) whose fields have the default bounds."""
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        annotation = bounded(info.annotation, has_bound=_sets_max_length(info.metadata))
        fields[name] = (annotation, info)
    return create_model(model.__name__, __base__=model, __module__=model.__module__, **fields)


def _sets_max_length(metadata: list[Any]) -> bool:
    for item in metadata:
        if isinstance(item, FieldInfo) and _sets_max_length(item.metadata):
            return True
        if isinstance(item, MaxLen) or getattr(item, "max_length", None) is not None:
            return True
    return False


def _is_numeric(annotation: Any) -> bool:
    """Types pydantic would fill from a boolean: int, float and integer literals."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if annotation in (int, float):
        return True
    if get_origin(annotation) is Literal:
        return any(isinstance(v, int | float) and not isinstance(v, bool) for v in get_args(annotation))
    return False


def json_preview(value: Any, limit: int = PREVIEW_CHARS) -> str:
    """The first `limit` characters of `json.dumps(value, default=str)`, computed in time and
    depth proportional to `limit` whatever the size or nesting of `value`."""
    text = ""
    for piece in _json_pieces(value, limit):
        text += piece
        if len(text) >= limit:
            break
    return text[:limit]


def _json_pieces(value: Any, limit: int) -> Iterator[str]:
    if isinstance(value, str):
        yield json.dumps(value[:limit])
    elif isinstance(value, bool) or value is None or isinstance(value, float):
        yield json.dumps(value)
    elif isinstance(value, int):
        yield json.dumps(value) if value.bit_length() <= 256 else f"<an integer of {value.bit_length()} bits>"
    elif isinstance(value, list | tuple):
        yield "["
        for index, item in enumerate(value):
            yield ", " if index else ""
            yield from _json_pieces(item, limit)
        yield "]"
    elif isinstance(value, dict):
        yield "{"
        for index, (key, item) in enumerate(value.items()):
            yield ", " if index else ""
            yield from _json_pieces(key if isinstance(key, str) else str(key)[:limit], limit)
            yield ": "
            yield from _json_pieces(item, limit)
        yield "}"
    else:
        yield json.dumps(str(value)[:limit])


def nul_path(value: Any, path: str = "") -> str | None:
    """The path of the first text holding a NUL character in validated arguments (whose sizes
    the schema bounds), or None. SQLite reads a `LIKE` pattern only up to a NUL, so a NUL in a
    search would match too much, and one stored would cut what other tools read."""
    if isinstance(value, str):
        return path or "arguments" if "\x00" in value else None
    if isinstance(value, BaseModel):
        value = {name: getattr(value, name) for name in type(value).model_fields}
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list | tuple | set | frozenset):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = nul_path(item, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None
