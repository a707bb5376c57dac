"""The tool dependency graph: an edge A -> B where a field of A's result can fill a parameter
of B.

Derived, not declared: parameters and result fields are typed by the entity they name
(`ticket_id` and `TicketSummary.id` name a ticket; `requester_id` names a user through
`ALIASES`; an `email` names a person of the shared world). Entities are per server, except
people, whom every server knows by email: those edges cross servers.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
from pydantic import BaseModel

from mcpgym.servers.catalog import load_server
from mcpgym.servers.kernel.tools import ToolSpec

PERSON = "person"
"""The one entity shared by every server: a person of the world, known by email."""

ALIASES: dict[str, str] = {
    "requester": "user",
    "assignee": "user",
    "author": "user",
    "owner": "user",
    "source_ticket": "ticket",
    "target_ticket": "ticket",
    "reply_to_message": "message",
    "draft": "message",
    "new_flight": "flight",
    "old_flight": "flight",
    "lead_passenger": "passenger",
    "primary_calendar": "calendar",
    "default_group": "group",
    "merged_into": "ticket",
    "person": "person_record",
}
"""Role names that refer to another entity (`requester_id` is a user's id). A `person_id` is
one server's record of a person, not the shared person (known by email)."""

ROLES: dict[str, str] = {"requester": "end-user", "assignee": "agent", "author": "agent"}
"""Roles that narrow an entity: a requester's id cannot fill an assignee's parameter."""

VALUE_ENTITIES: dict[str, str] = {
    "email": PERSON,
    "to": PERSON,
    "attendee_emails": PERSON,
    "optional_attendee_emails": PERSON,
    "from_email": PERSON,
    "organizer_email": PERSON,
    "pnr": "reservation",
    "symbol": "ticker",
    "symbols": "ticker",
    "origin": "airport",
    "destination": "airport",
    "home_airport": "airport",
    **{name: f"{name} (value)" for name in (
        "order_number", "return_number", "sku", "tracking_number", "confirmation_number", "handle", "plan_code",
        "addon_code",
    )},
}
"""Fields and parameters that name an entity by value rather than by an `_id`; the numbers,
codes and handles a user quotes (an order number, a SKU, a tracking number) link only fields
and parameters of the same name."""

KEY_FIELDS = ("id", "code")
"""Fields that hold the key of the model they are in (`AirportOut.code` is an airport)."""

MODEL_SUFFIX = re.compile(r"(Summary|Detail|Out|Info|Row|Result|Item|Brief|View|Page|Record)$")


@dataclass(frozen=True)
class Field:
    """A place in a tool's result: `tickets.[].requester_id`, the entity it holds, its role."""

    path: str
    entity: str
    role: str | None = None


def role_of_name(name: str) -> str | None:
    """The role a name gives its entity (`assignee_id` -> agent), if any."""
    return ROLES.get(name.removesuffix("_id"))


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def entity_of_name(name: str) -> str | None:
    """The entity a parameter or field name refers to, or None."""
    if name in VALUE_ENTITIES:
        return VALUE_ENTITIES[name]
    if name.endswith("_ids"):
        name = name[:-1]
    if name.endswith("_id") and name != "_id":
        base = name[:-3]
        return ALIASES.get(base, base)
    return None


def _model_entity(model: type[BaseModel]) -> str:
    return _snake(MODEL_SUFFIX.sub("", model.__name__)) or _snake(model.__name__)


def _inner_models(annotation: Any) -> Iterator[tuple[type[BaseModel], bool]]:
    """Pydantic models inside an annotation, and whether they sit in a list."""
    origin = typing.get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation, False
    elif origin in (list, tuple, set, frozenset):
        for arg in typing.get_args(annotation):
            for model, _ in _inner_models(arg):
                yield model, True
    elif origin in (typing.Union, types.UnionType) or origin is typing.Annotated:
        for arg in typing.get_args(annotation):
            yield from _inner_models(arg)


def _is_scalar_list(annotation: Any) -> bool:
    """Whether an annotation is a list of plain values (`list[str]`, optionally `| None`)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_is_scalar_list(arg) for arg in typing.get_args(annotation))
    return origin in (list, tuple) and not any(True for _ in _inner_models(annotation))


def result_fields(model: type[BaseModel], prefix: str = "", depth: int = 0) -> Iterator[Field]:
    """Every field of a result model (nested models and lists included) that names an entity."""
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        entity = _model_entity(model) if name in KEY_FIELDS else entity_of_name(name)
        if entity is not None:
            scalars = _is_scalar_list(info.annotation)
            yield Field(path=f"{path}.[]" if scalars else path, entity=entity, role=role_of_name(name))
        if depth < 3:
            for inner, is_list in _inner_models(info.annotation):
                yield from result_fields(inner, f"{path}.[]." if is_list else f"{path}.", depth + 1)


def parameters(tool: ToolSpec) -> dict[str, str]:
    """Parameter -> entity, for the parameters that name an entity."""
    names = tool.input_schema.get("properties", {})
    return {name: entity for name in names if (entity := entity_of_name(name)) is not None}


def _key(server: str, entity: str) -> tuple[str, str]:
    return ("*", entity) if entity == PERSON else (server, entity)


def build_graph(servers: Sequence[str]) -> nx.MultiDiGraph:
    """Nodes `server.tool` (attributes: server, tool, writes); an edge per (result field,
    parameter) pair holding the same entity (attributes: field, parameter, entity, cross)."""
    graph = nx.MultiDiGraph()
    produces: dict[tuple[str, str], list[tuple[str, Field]]] = {}
    consumes: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for server in servers:
        for tool in load_server(server).tools:
            node = f"{server}.{tool.name}"
            graph.add_node(node, server=server, tool=tool.name, writes=tool.writes)
            for field in result_fields(tool.result):
                produces.setdefault(_key(server, field.entity), []).append((node, field))
            for parameter, entity in parameters(tool).items():
                consumes.setdefault(_key(server, entity), []).append((node, parameter))
    for key, sources in produces.items():
        for target, parameter in consumes.get(key, []):
            seen: set[str] = set()
            wanted_role = role_of_name(parameter)
            for source, field in sources:
                if source == target or source in seen:
                    continue
                if field.role and wanted_role and field.role != wanted_role:
                    continue
                seen.add(source)
                graph.add_edge(
                    source,
                    target,
                    field=field.path,
                    parameter=parameter,
                    entity=field.entity,
                    cross=graph.nodes[source]["server"] != graph.nodes[target]["server"],
                )
    return graph


def binding(field: str) -> str:
    """A field path as a reference suffix: `tickets.[].requester_id` -> `tickets.0.requester_id`."""
    return field.replace("[]", "0")
