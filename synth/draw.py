"""Writing the dependency graph: JSON (node-link), GraphML, and a picture a person can read."""

from __future__ import annotations

import json
import math
from pathlib import Path

import networkx as nx

COLORS = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C")


def simple_graph(graph: nx.MultiDiGraph) -> nx.DiGraph:
    """One edge per (source, target), with the number of parameter links it stands for."""
    simple = nx.DiGraph()
    simple.add_nodes_from(graph.nodes(data=True))
    for source, target, data in graph.edges(data=True):
        if simple.has_edge(source, target):
            simple[source][target]["links"] += 1
        else:
            simple.add_edge(source, target, links=1, cross=data["cross"])
    return simple


def layout(graph: nx.DiGraph) -> dict[str, tuple[float, float]]:
    """Each server's tools on a small circle; the servers on a large circle."""
    servers = sorted({d["server"] for _, d in graph.nodes(data=True)})
    positions: dict[str, tuple[float, float]] = {}
    for i, server in enumerate(servers):
        cx, cy = (0.0, 0.0) if len(servers) == 1 else (3.2 * math.cos(2 * math.pi * i / len(servers)), 3.2 * math.sin(2 * math.pi * i / len(servers)))
        tools = sorted(n for n, d in graph.nodes(data=True) if d["server"] == server)
        for j, node in enumerate(tools):
            angle = 2 * math.pi * j / max(1, len(tools))
            positions[node] = (cx + 1.2 * math.cos(angle), cy + 1.2 * math.sin(angle))
    return positions


def draw(graph: nx.MultiDiGraph, path: Path) -> None:
    """A PNG: tools as dots coloured by server (writes with a black ring), same-server links
    grey, cross-server links (people, by email) red."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    simple = simple_graph(graph)
    servers = sorted({d["server"] for _, d in simple.nodes(data=True)})
    color = {s: COLORS[i % len(COLORS)] for i, s in enumerate(servers)}
    pos = layout(simple)
    size = 9 if len(servers) == 1 else 16
    fig, ax = plt.subplots(figsize=(size, size))
    inner = [(u, v) for u, v, d in simple.edges(data=True) if not d["cross"]]
    cross = [(u, v) for u, v, d in simple.edges(data=True) if d["cross"]]
    nx.draw_networkx_edges(simple, pos, edgelist=inner, ax=ax, edge_color="#B0B0B0", width=0.5, arrowsize=6, alpha=0.6)
    nx.draw_networkx_edges(simple, pos, edgelist=cross, ax=ax, edge_color="#D62728", width=0.4, arrowsize=5, alpha=0.35)
    nodes = list(simple.nodes)
    nx.draw_networkx_nodes(
        simple, pos, nodelist=nodes, ax=ax, node_size=90,
        node_color=[color[simple.nodes[n]["server"]] for n in nodes],
        edgecolors=["black" if simple.nodes[n]["writes"] else "none" for n in nodes], linewidths=1.2,
    )
    for node, (x, y) in pos.items():
        ax.text(x, y + 0.07, simple.nodes[node]["tool"], fontsize=7 if len(servers) == 1 else 5.5, ha="center", va="bottom")
    for server in servers:
        ax.scatter([], [], color=color[server], label=server)
    ax.scatter([], [], facecolor="white", edgecolor="black", label="writes state")
    ax.plot([], [], color="#D62728", label="cross-server (a person, by email)")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.set_title(f"Tool dependency graph: {simple.number_of_nodes()} tools, {simple.number_of_edges()} links "
                 f"({graph.number_of_edges()} field-to-parameter edges)")
    ax.set_axis_off()
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def write_graph(graph: nx.MultiDiGraph, out: Path) -> list[Path]:
    """graph.json (node-link), graph.graphml and graph.png in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "graph.json", out / "graph.graphml", out / "graph.png"]
    paths[0].write_text(json.dumps(nx.node_link_data(graph, edges="edges"), indent=1), encoding="utf-8")
    nx.write_graphml(graph, paths[1])
    draw(graph, paths[2])
    return paths
