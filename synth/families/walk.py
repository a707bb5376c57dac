"""Families sampled from the tool dependency graph (synth/graph.py) rather than written by
hand: walks that grow a chain of calls edge by edge from an entity the user names, and pairs
of walks that feed one comparison (a fan-in).

A walk starts at a tool whose one required parameter is a handle a user has (`HANDLES`: a
support ticket's number, a person's email, a booking reference, a ticker symbol); the value
is sampled live, from a listing tool the graph says produces it. Each further call follows an
edge whose field holds a value in the previous call's actual result and fills the next tool's
only required parameter (a `bind` to that field, so the data flow is recorded). A walk ends
at a fact of its last result (a field a person would ask about) or at a count (`total`) of
a search filtered by the entity reached. Requests describe the path in words: "the
organization of the requester of ticket #1204".
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from mcpgym.servers.catalog import load_server
from mcpgym.synth.family import Draft, Family, SamplingError, WorldView
from mcpgym.synth.graph import KEY_FIELDS, build_graph
from mcpgym.tasks.refs import RefError, resolve

HANDLES: dict[str, str] = {"ticket_id": "ticket #{}", "email": "{}", "pnr": "booking {}", "symbol": "{}"}
"""Parameters a user can name by value, and how a request names them."""

KNOWN_IDS = frozenset({"ticket_id"})
"""Handles that are database ids: tasks naming them carry a `known:<parameter>` tag (a
customer quotes their ticket number; no other id appears in a request)."""

SERVER_LABELS = {"zendesk": "Zendesk", "crm": "CRM", "calendar": "calendar", "email": "mailbox",
                 "finance": "investment", "flights": "airline", "chat": "chat", "docs": "wiki", "files": "drive",
                 "projects": "issue tracker", "code": "code host"}
"""How a request names each server's records; another server is named by its `title`."""


def server_label(server: str) -> str:
    return SERVER_LABELS.get(server) or load_server(server).title

NOUN_PREFIXES = ("get_", "find_", "lookup_", "list_", "search_")
NOUN_SUFFIXES = ("_by_email",)

SKIPPED_FACTS = frozenset({"id", "email", "pnr", "symbol", "code", "body", "description", "notes", "text",
                           "signature", "content", "snippet", "subject_line", "url", "page", "per_page",
                           "pages", "total", "has_more", "next_page"})
"""Result fields never asked about: keys (the user has them already), long texts, paging."""

MAX_FACT_CHARS = 60


@dataclass(frozen=True)
class Hop:
    """An edge a walk can take: `field` of `source`'s result fills `parameter` of `target`."""

    source: str
    target: str
    field: str
    parameter: str
    counts: bool
    """The target's result has a `total`: the walk ends there with a count."""
    filters: bool
    """The parameter is an optional filter of a search (not the target's own key)."""
    cross: bool
    """The hop joins two servers (the graph edge's `cross`)."""


def tool_noun(tool: str) -> str:
    """What a tool returns, in words: `find_contact_by_email` -> contact."""
    for prefix in NOUN_PREFIXES:
        tool = tool.removeprefix(prefix)
    for suffix in NOUN_SUFFIXES:
        tool = tool.removesuffix(suffix)
    return tool.replace("_", " ")


def field_role(field: str) -> str | None:
    """The role a field gives the entity it holds (`requester_id` -> requester,
    `organizer.email` -> organizer), or None when it is the entity's own key."""
    parts = field.split(".")
    last = parts[-1]
    if last in KEY_FIELDS or last in HANDLES:
        return parts[-2].replace("_", " ") if len(parts) > 1 else None
    return last.removesuffix("_id").replace("_", " ")


def words(name: str) -> str:
    return name.replace("_", " ")


class ToolGraph:
    """The read-only part of the dependency graph over some servers, as walks need it."""

    def __init__(self, servers: tuple[str, ...]) -> None:
        self.servers = servers
        graph = build_graph(servers)
        specs = {f"{s}.{t.name}": t for s in servers for t in load_server(s).tools}
        required = {node: set(spec.input_schema.get("required", [])) for node, spec in specs.items()}
        totals = {node for node, spec in specs.items() if "total" in spec.result.model_fields}
        reads = {node for node, spec in specs.items() if not spec.writes}
        self.paged = {node for node, spec in specs.items() if "page" in spec.input_schema.get("properties", {})}
        self.starts: list[tuple[str, str]] = sorted(
            (node, parameter) for node in reads for parameter in required[node]
            if parameter in HANDLES and required[node] == {parameter}
        )
        self.feeders: dict[tuple[str, str], list[tuple[str, str]]] = {}
        """(start tool, parameter) -> (listing tool with no required parameters, field path)."""
        self.hops: dict[str, list[Hop]] = {}
        for source, target, data in sorted(graph.edges(data=True), key=lambda e: (e[0], e[1], e[2]["field"], e[2]["parameter"])):
            if source not in reads or target not in reads:
                continue
            key = (target, data["parameter"])
            if "[]" in data["field"]:
                if key in self.starts and not required[source]:
                    self.feeders.setdefault(key, []).append((source, data["field"]))
                continue
            if not required[target] <= {data["parameter"]}:
                continue
            counts = target in totals and target.split(".", 1)[1].startswith(("search_", "list_"))
            filters = not required[target]
            if filters and not counts:
                continue
            self.hops.setdefault(source, []).append(
                Hop(source, target, data["field"], data["parameter"], counts, filters, data["cross"]))
        self.starts = [start for start in self.starts if start in self.feeders]

    def sample_handle(self, view: WorldView, rng: random.Random, start: tuple[str, str]) -> Any:
        """A live value for a start tool's handle, from a random page of a listing tool."""
        lister, path = rng.choice(self.feeders[start])
        server, tool = lister.split(".", 1)
        listing = view.read(server, tool)
        size = len(listing.get(path.split(".", 1)[0]) or [])
        if lister in self.paged and isinstance(listing.get("total"), int) and listing["total"] > size > 0:
            listing = view.read(server, tool, page=rng.randint(1, -(-listing["total"] // size)))
        values = sorted({str(v) for v in _values_at(listing, path.split("."))})
        if not values:
            return None
        value = rng.choice(values)
        return int(value) if start[1].endswith("_id") and value.isdigit() else value


def _values_at(data: Any, path: list[str]) -> list[Any]:
    """Every value at a path with `[]` steps (any list element)."""
    if not path:
        return [data] if data not in (None, "", []) else []
    head, rest = path[0], path[1:]
    if head == "[]":
        return [v for item in data for v in _values_at(item, rest)] if isinstance(data, list) else []
    return _values_at(data[head], rest) if isinstance(data, dict) and head in data else []


@dataclass
class Walk:
    """Calls of a walk so far, their results, the hops taken, and the request's description
    of where the walk is."""

    calls: list[dict[str, Any]]
    results: dict[str, Any]
    nodes: list[str]
    start: str
    """How the request names the handle: "ticket #1204"."""
    phrase: str
    hops: list[Hop] = field(default_factory=list)
    passed: list[Any] = field(default_factory=list)
    """Every value handed to a call so far (a walk never hands the same value on twice)."""
    question: str = ""
    fact: str = ""
    fact_name: str = ""
    counted: bool = False

    @property
    def last(self) -> str:
        return self.calls[-1]["id"]


def _call(node: str, call_id: str, arguments: dict[str, Any], bind: dict[str, str] | None = None) -> dict[str, Any]:
    server, tool = node.split(".", 1)
    call: dict[str, Any] = {"id": call_id, "server": server, "tool": tool, "arguments": arguments}
    if bind:
        call["bind"] = bind
    return call


def _scalar(value: Any) -> bool:
    return isinstance(value, int | float | str) and not isinstance(value, bool) and value != ""


class GraphWalk(Family):
    """A chain of calls along the graph from a handle the user names, ending at a fact of the
    last result or at a count. `cross`: the walk must use two servers or more."""

    def __init__(self, graph: ToolGraph, cross: bool = False, min_calls: int = 2, max_calls: int = 5) -> None:
        self.graph = graph
        self.servers = graph.servers
        self.cross = cross
        self.kind = "cross-server" if cross else "chain"
        self.name = "cross.graph-walk" if cross else f"{self.servers[0]}.graph-walk"
        self.min_calls, self.max_calls = min_calls, max_calls
        self.starts = [
            (node, parameter) for node, parameter in graph.starts
            if any(hop.field.rsplit(".", 1)[-1] != parameter for hop in graph.hops.get(node, []))
            and not (cross and parameter == "email")
        ]
        """Start tools with an edge that hands on something other than the handle itself (a
        walk never hands a value on twice); a cross-server walk starts from a handle that is
        not an email, since people cross servers by email."""

    def walk(self, view: WorldView, rng: random.Random, first_id: int = 1,
             start: tuple[str, str] | None = None, path: list[Hop] | None = None) -> Walk | None:
        """A walk from a sampled handle of `start` (default: any); along `path` when given
        (None if the path does not lead anywhere from this handle)."""
        graph = self.graph
        if not self.starts:
            return None
        node, parameter = start or rng.choice(self.starts)
        value = graph.sample_handle(view, rng, (node, parameter))
        if value is None:
            return None
        try:
            result = view.lookup(*node.split(".", 1), **{parameter: value})
        except SamplingError:
            return None
        if result is None:
            return None
        call_id = f"c{first_id}"
        named = HANDLES[parameter].format(value)
        walk = Walk([_call(node, call_id, {parameter: value})], {call_id: result}, [node], named, named, passed=[value])
        if path is not None:
            for hop in path:
                if not self._step(view, walk, hop, first_id):
                    return None
            return walk
        length = rng.randint(self.min_calls, self.max_calls)
        while len(walk.calls) < length and not walk.counted:
            options = [hop for hop in graph.hops.get(walk.nodes[-1], []) if hop.target not in walk.nodes]
            rng.shuffle(options)
            if len(walk.calls) < length - 1:
                options = [hop for hop in options if not self.reviews(hop)]
                options.sort(key=lambda hop: hop.counts)
            if not any(self._step(view, walk, hop, first_id) for hop in options):
                break
        return walk if len(walk.calls) >= self.min_calls else None

    def reviews(self, hop: Hop) -> bool:
        """Whether a hop only looks at the same entity through another tool of its server (a
        walk takes one only as its last call, for a fact the previous call does not have)."""
        return not hop.counts and not hop.cross and field_role(hop.field) is None

    def _step(self, view: WorldView, walk: Walk, hop: Hop, first_id: int) -> bool:
        """Take `hop` from the walk's last call if it leads somewhere; describe the new place."""
        try:
            value = resolve(f"{walk.last}.{hop.field}", walk.results)
        except RefError:
            return False
        if not _scalar(value) or value in walk.passed:
            return False
        server, tool = hop.target.split(".", 1)
        try:
            result = view.lookup(server, tool, **{hop.parameter: value})
        except SamplingError:
            return False
        if result is None or (hop.counts and not result.get("total")):
            return False
        call_id = f"c{first_id + len(walk.calls)}"
        call = _call(hop.target, call_id, {}, {hop.parameter: f"{{{walk.last}.{hop.field}}}"})
        role = field_role(hop.field)
        if hop.counts:
            what = tool_noun(tool).removeprefix(f"{tool_noun(walk.nodes[-1].split('.', 1)[1])} ")
            walk.phrase = f"the {role} of {walk.phrase}" if role is not None else walk.phrase
            as_role = words(hop.parameter.removesuffix("_id").removesuffix("_email"))
            walk.question = (f"how many {what} have {walk.phrase} as {as_role}" if hop.filters
                             else f"how many {what} does {walk.phrase} have")
            walk.fact, walk.fact_name, walk.counted = f"{{{call_id}.total}}", f"number of {what}", True
        elif hop.cross:
            walk.phrase = f"the {server_label(server)} {tool_noun(tool)} record of {walk.phrase}"
        elif role is not None:
            walk.phrase = f"the {role} of {walk.phrase}"
        else:
            walk.phrase = f"the {tool_noun(tool)} of {walk.phrase}"
        walk.calls.append(call)
        walk.results[call_id] = result
        walk.nodes.append(hop.target)
        walk.hops.append(hop)
        walk.passed.append(value)
        return True

    def choose_fact(self, walk: Walk, rng: random.Random, name: str | None = None) -> bool:
        """Ask about a field of the last result (`name`, or one drawn from those a person would
        ask about), unless the walk ended at a count."""
        if walk.counted:
            return name in (None, "total")
        result = walk.results[walk.last]
        if not isinstance(result, dict):
            return False
        names = sorted(
            key for key, value in result.items()
            if key not in SKIPPED_FACTS and not key.endswith(("_id", "_ids", "_at"))
            and _scalar(value) and len(str(value)) <= MAX_FACT_CHARS and str(value) not in walk.phrase
        )
        if walk.hops and self.reviews(walk.hops[-1]):
            before = walk.results[walk.calls[-2]["id"]]
            names = [key for key in names if not (isinstance(before, dict) and key in before)]
        if name is not None:
            names = [name] if name in names else []
        if not names:
            return False
        chosen = rng.choice(names)
        walk.fact, walk.fact_name = f"{{{walk.last}.{chosen}}}", words(chosen)
        walk.question = f"what is the {words(chosen)} of {walk.phrase}"
        return True

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        walk = self.walk(view, rng)
        if walk is None or not self.choose_fact(walk, rng):
            return None
        used = _servers_of(walk.calls)
        if self.cross != (len(used) > 1):
            return None
        steps = ", then ".join(f"look up the {tool_noun(node.split('.', 1)[1])}" for node in walk.nodes[1:])
        user = [
            f"{walk.question[0].upper()}{walk.question[1:]}?",
            f"Could you find out {walk.question}?",
            f"Starting from {walk.start}, {steps}: {walk.question}?",
        ]
        key = "|".join([*walk.nodes, walk.start, walk.fact_name])
        return self._draft(walk.calls, [{"name": walk.fact_name, "expr": walk.fact, "value": None}], user, key, used)

    def _draft(self, calls: list[dict[str, Any]], facts: list[dict[str, Any]], user: list[str], key: str,
               used: tuple[str, ...]) -> Draft:
        known = sorted({p for call in calls for p in call["arguments"] if p in KNOWN_IDS})
        return Draft(family=self.name, key=key, servers=used, known=known,
                     turns=[{"user": user, "calls": calls, "facts": facts}])


def _servers_of(calls: list[dict[str, Any]]) -> tuple[str, ...]:
    return tuple(sorted({call["server"] for call in calls}))


class GraphWalkComparison(GraphWalk):
    """Two walks along the same path from two handles, feeding one computation: the
    difference of a number both reach, or whether a text both reach is the same (with both
    values)."""

    def __init__(self, graph: ToolGraph) -> None:
        super().__init__(graph, cross=False, min_calls=2, max_calls=3)
        self.kind = "comparison"
        self.name = f"{self.servers[0]}.graph-walk-comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        first = self.walk(view, rng)
        if first is None or not self.choose_fact(first, rng):
            return None
        start = (first.nodes[0], next(iter(first.calls[0]["arguments"])))
        second = self.walk(view, rng, first_id=len(first.calls) + 1, start=start, path=first.hops)
        if second is None or second.start == first.start:
            return None
        name = first.fact.strip("{}").split(".", 1)[1]
        if not self.choose_fact(second, rng, name):
            return None
        a = resolve(first.fact.strip("{}"), first.results)
        b = resolve(second.fact.strip("{}"), second.results)
        label = first.fact_name
        if isinstance(a, str) or isinstance(b, str):
            if str(a).casefold() == str(b).casefold():
                return None
            facts = [{"name": f"first {label}", "expr": first.fact, "value": None},
                     {"name": f"second {label}", "expr": second.fact, "value": None},
                     {"name": "same", "expr": f"{first.fact} == {second.fact}", "value": None}]
            user = [f"What is the {label} of {first.phrase}, and of {second.phrase}? Are they the same?",
                    f"Compare the {label} of {first.phrase} with that of {second.phrase}: give me both and say whether they match.",
                    f"Tell me the {label} for {first.phrase} and for {second.phrase}, and whether they are the same."]
        else:
            if a == b:
                return None
            high, low = (first, second) if a > b else (second, first)
            gap = f"{high.fact} - {low.fact}"
            if isinstance(a, float) or isinstance(b, float):
                gap = f"round({gap}, 2)"
            facts = [{"name": f"{label} difference", "expr": gap, "value": None}]
            user = [f"By how much does the {label} of {high.phrase} exceed that of {low.phrase}?",
                    f"How much higher is the {label} of {high.phrase} than the {label} of {low.phrase}?",
                    f"Work out the difference in {label} between {high.phrase} and {low.phrase} (the first minus the second)."]
        calls = [*first.calls, *second.calls]
        key = "|".join([*first.nodes, *sorted((first.start, second.start)), name])
        return self._draft(calls, facts, user, key, _servers_of(calls))


def walk_families(servers: tuple[str, ...]) -> list[Family]:
    """Graph walks over a mounted server set: a walk and a comparison per server, and a
    cross-server walk (three calls or more) when several servers are mounted."""
    families: list[GraphWalk] = []
    for server in servers:
        graph = ToolGraph((server,))
        families += [GraphWalk(graph), GraphWalkComparison(graph)]
    if len(servers) > 1:
        families.append(GraphWalk(ToolGraph(tuple(servers)), cross=True, min_calls=3, max_calls=6))
    return [family for family in families if family.starts]
