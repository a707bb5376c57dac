"""The tool dependency graph: derived edges are real data flows."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from mcpgym.cli import main
from mcpgym.servers.catalog import load_server, server_names
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.synth.graph import PERSON, build_graph, entity_of_name
from mcpgym.tasks.refs import RefError, resolve

ISOLATED = {
    "zendesk.list_tags", "flights.nearest_airports", "flights.get_fare_rules",
    "expenses.list_categories", "hr.list_job_levels", "hr.list_time_off_policies", "shipping.list_carriers",
    "shipping.list_warehouses", "telecom.list_addons", "telecom.list_plans", "social.trending_hashtags",
    "telecom.check_network_outages",
    "hr.headcount_report", "payments.get_balance_report", "payments.list_payouts", "retail.sales_report",
    "shipping.carrier_performance", "shipping.shipping_spend",
}
"""Tools whose results and parameters name no entity: tags, cities and fare tables;
catalogues (expense categories, job levels, leave policies, carriers, warehouses, plans and
add-ons, trending tags, outages by area); reports aggregated over a period."""


def edges(graph: nx.MultiDiGraph, source: str, target: str) -> list[dict]:  # type: ignore[type-arg]
    return [d for s, t, d in graph.edges(data=True) if (s, t) == (source, target)]


def test_names_map_to_entities() -> None:
    assert entity_of_name("ticket_id") == "ticket" and entity_of_name("requester_id") == "user"
    assert entity_of_name("email") == PERSON and entity_of_name("symbol") == "ticker"
    assert entity_of_name("subject") is None


def test_zendesk_chain_edges_exist() -> None:
    graph = build_graph(["zendesk"])
    assert any(d["field"] == "tickets.[].requester_id" and d["parameter"] == "user_id" for d in edges(graph, "zendesk.search_tickets", "zendesk.get_user"))
    assert any(d["parameter"] == "ticket_id" for d in edges(graph, "zendesk.search_tickets", "zendesk.list_ticket_comments"))
    assert any(d["parameter"] == "organization_id" for d in edges(graph, "zendesk.get_user", "zendesk.get_organization"))
    assert not any(d["cross"] for *_, d in graph.edges(data=True))


def test_only_people_cross_servers() -> None:
    graph = build_graph(server_names())
    cross = [d for *_, d in graph.edges(data=True) if d["cross"]]
    assert cross and {d["entity"] for d in cross} == {PERSON}
    assert not [d for d in cross if d["field"].endswith("person_id")], "a person_id is one server's record, not an email"
    assert any(d["parameter"] == "email" for d in edges(graph, "zendesk.get_user", "crm.find_contact_by_email"))
    isolated = {n for n in graph if graph.degree(n) == 0}
    assert isolated <= ISOLATED


@pytest.mark.parametrize("server", server_names())
def test_edges_carry_values_the_target_accepts(server: str) -> None:
    """Run each source tool's example, feed the field's value to the target: the target may
    refuse on a domain rule or a clash with the example's other arguments, but must know the
    entity (no not_found) and accept the value's type (no schema error on that parameter)."""
    spec = load_server(server)
    graph = build_graph([server])
    checked = 0
    with ToolSession(spec, 0) as session:
        results = {}
        for tool in spec.tools:
            if not tool.writes and tool.examples:
                results[f"{server}.{tool.name}"] = session.call(tool.name, tool.examples[0]).data
        for source, target, data in graph.edges(data=True):
            target_tool = spec.tools.get(graph.nodes[target]["tool"])
            if source not in results or target_tool is None or not target_tool.examples or data["entity"] == PERSON:
                continue
            try:
                value = resolve("r." + data["field"].replace("[]", "0"), {"r": results[source]})
            except RefError:
                continue
            if value is None:
                continue
            schema = target_tool.input_schema["properties"][data["parameter"]]
            wants_list = schema.get("type") == "array" or any(s.get("type") == "array" for s in schema.get("anyOf", []))
            arguments = {**target_tool.examples[0], data["parameter"]: [value] if wants_list else value}
            result = session.call(target_tool.name, arguments)
            error = result.error or ""
            schema_error = error.startswith(f"invalid_arguments: {target_tool.name}: {data['parameter']}")
            assert not error.startswith("not_found") and not schema_error, (source, target, data, error)
            session.reset()
            checked += 1
    assert checked >= 10


def test_cli_writes_graph_files(tmp_path: Path) -> None:
    assert main(["synth", "graph", "--servers", "zendesk,crm", "--out", str(tmp_path)]) == 0
    loaded = nx.read_graphml(tmp_path / "graph.graphml")
    assert loaded.number_of_nodes() == len(load_server("zendesk").tools) + len(load_server("crm").tools)
    assert (tmp_path / "graph.png").read_bytes()[:4] == b"\x89PNG"
    assert '"edges"' in (tmp_path / "graph.json").read_text()
    assert main(["synth", "graph", "--servers", "nope", "--out", str(tmp_path)]) == 2
