"""BFCL's eight multi-turn backends as mcpgym object servers (`bfcl_files`, `bfcl_math`, ...).

Each server's tools are its class's documented functions, with BFCL's descriptions and
argument schemas (converted to JSON Schema, `schemas.py`); a call runs the backend's method
with the arguments as sent and shows its result as BFCL's executor renders it (a string as
it is, an object as JSON, anything else as `str`; a raised error as `Error during
execution: ...`). An initial state is `{"scenario": <BFCL's initial_config for the class>,
"long_context": <bool>}`, loaded through the backend's own `_load_scenario`.
"""

from __future__ import annotations

import json
from functools import cache, partial
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from mcpgym.external.bfcl.package import CLASSES, backend_class, function_docs
from mcpgym.external.bfcl.schemas import arguments_model, checked_arguments, json_schema
from mcpgym.servers.kernel.initial_state import InitialStateError
from mcpgym.servers.kernel.object_server import BackendCall, ObjectServerSpec, object_tool
from mcpgym.servers.kernel.object_state import ObjectState
from mcpgym.servers.kernel.tools import ToolRegistry, ToolSpec

MAX_STATE_DEPTH = 64
"""Nesting followed when a backend's attributes are read as JSON (deeper: `repr`)."""


class BackendState(BaseModel):
    """What an initial state of a BFCL server holds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scenario: dict[str, JsonValue] = {}
    long_context: bool = False


def create(class_name: str, state: ObjectState | None) -> Any:
    """A backend of `class_name` loaded with the state's scenario (BFCL's defaults for None)."""
    try:
        config = BackendState.model_validate(state.root if state is not None else {})
    except ValidationError as err:
        raise InitialStateError(f"a BFCL state is {{'scenario': {{...}}, 'long_context': bool}}: {err.errors()[0]['msg']}") from None
    backend = backend_class(class_name)()
    if hasattr(backend, "_load_scenario"):
        try:
            backend._load_scenario(json.loads(json.dumps(config.scenario)), long_context=config.long_context)
        except Exception as err:  # the backend's own refusal of its configuration
            raise InitialStateError(f"{class_name} cannot load this scenario: {str(err)[:300]}") from None
    return backend


def run(backend: Any, tool: ToolSpec, kwargs: dict[str, Any]) -> BackendCall:
    """Run one method and render its result as BFCL's executor does."""
    result = getattr(backend, tool.name)(**kwargs)
    if isinstance(result, str):
        return BackendCall(text=result, data={"result": result}, failed=result.startswith("Error"))
    if isinstance(result, dict):
        try:
            text = json.dumps(result)
        except (TypeError, ValueError):
            return BackendCall(text=str(result), data={"result": str(result)}, failed="error" in result)
        return BackendCall(text=text, data=json.loads(text), failed="error" in result)
    return BackendCall(text=str(result), data={"result": str(result)}, failed=False)


def attributes(backend: Any) -> dict[str, Any]:
    """The backend's public attributes (those BFCL's state checker compares) as JSON values:
    objects as their public attributes, a reference back to an enclosing object as `null`."""
    return {name: _plain(value, (id(backend),), 0) for name, value in vars(backend).items() if not name.startswith("_")}


def _plain(value: Any, path: tuple[int, ...], depth: int) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if id(value) in path:
        return None
    if depth >= MAX_STATE_DEPTH:
        return repr(value)[:200]
    inner = (*path, id(value))
    if isinstance(value, dict):
        return {str(key): _plain(item, inner, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [_plain(item, inner, depth + 1) for item in items]
    if hasattr(value, "__dict__"):
        return {name: _plain(item, inner, depth + 1) for name, item in vars(value).items() if not name.startswith("_")}
    return repr(value)[:200]


TEXT_IDS: dict[str, str] = {"TicketAPI": "ticket_id"}
"""Class -> an argument BFCL documents as an integer but whose scenarios also use text ids:
BFCL's scenario 173 (in every category) holds the ticket `"ticket_001"`, and its ground truth
closes it with `ticket_id='ticket_001'`; BFCL's executor does not check types, so that call
succeeds there. Text is accepted for this argument (at most `MAX_TEXT_ID` characters); the
schema shown stays BFCL's."""

MAX_TEXT_ID = 200


def _check(model: type[BaseModel], text_id: str | None, arguments: dict[str, Any]) -> None:
    """Validate `arguments` with `model`, a short text accepted for `text_id`."""
    value = arguments.get(text_id) if text_id else None
    if isinstance(value, str) and len(value) <= MAX_TEXT_ID:
        arguments = {**arguments, text_id: 0}  # type: ignore[dict-item]
    checked_arguments(model, arguments)


def tools_of(class_name: str) -> ToolRegistry:
    """The tools of one class, from BFCL's function docs."""
    registry = ToolRegistry()
    for doc in function_docs(class_name):
        text_id = TEXT_IDS.get(class_name)
        if text_id not in doc.get("parameters", {}).get("properties", {}):
            text_id = None
        registry.add(object_tool(doc["name"], doc.get("description", ""), json_schema(doc),
                                 partial(_check, arguments_model(doc), text_id)))
    return registry


def server_spec(server: str) -> ObjectServerSpec:
    """The object server `server` (a key of `CLASSES`)."""
    class_name = CLASSES[server]
    description = getattr(backend_class(class_name)(), "_api_description", f"BFCL's {class_name} backend.")
    return ObjectServerSpec(
        name=server,
        title=f"BFCL {class_name}",
        instructions=description,
        tools=tools_of(class_name),
        create=partial(create, class_name),
        run=run,
        attributes=attributes,
    )


def __getattr__(name: str) -> ObjectServerSpec:
    """`FILES`, `MATH`, ...: each server's spec, built on first use (entry points name them)."""
    server = f"bfcl_{name.lower()}"
    if server not in CLASSES:
        raise AttributeError(name)
    return _spec(server)


@cache
def _spec(server: str) -> ObjectServerSpec:
    return server_spec(server)
