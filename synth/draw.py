"""Writing the dependency graph: JSON (node-link), GraphML, and a picture a person can read."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

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


def server_graph(simple: nx.DiGraph) -> nx.DiGraph:
    """One node per server (with its number of tools), one edge per pair of servers linked
    across, with the number of tool-to-tool links it stands for."""
    servers = nx.DiGraph()
    for _, data in simple.nodes(data=True):
        if not servers.has_node(data["server"]):
            servers.add_node(data["server"], tools=0)
        servers.nodes[data["server"]]["tools"] += 1
    for source, target, data in simple.edges(data=True):
        if data["cross"]:
            a, b = simple.nodes[source]["server"], simple.nodes[target]["server"]
            if servers.has_edge(a, b):
                servers[a][b]["links"] += 1
            else:
                servers.add_edge(a, b, links=1)
    return servers


def panel_grid(panels: int) -> tuple[int, int]:
    """(rows, columns) of the figure: at most three panels a row."""
    columns = min(3, panels)
    return math.ceil(panels / columns), columns


def draw_summary(ax: Any, servers: nx.DiGraph, color: dict[str, str]) -> None:
    """The cross-server links as a server-by-server table of counts (row: the server whose
    output is used; column: the server whose parameter takes it)."""
    import numpy as np

    names = sorted(servers.nodes)
    counts = np.zeros((len(names), len(names)), dtype=int)
    for a, b, data in servers.edges(data=True):
        counts[names.index(a), names.index(b)] = data["links"]
    ax.imshow(np.ma.masked_equal(counts, 0), cmap="Reds", vmin=0, vmax=max(1, int(counts.max())) * 1.3, aspect="equal")
    for i in range(len(names)):
        for j in range(len(names)):
            text = "-" if i == j else str(counts[i, j])
            ax.text(j, i, text, ha="center", va="center", fontsize=11, color="#333333" if counts[i, j] else "#AAAAAA")
    labels = [f"{name} ({servers.nodes[name]['tools']})" for name in names]
    ax.set_xticks(range(len(names)), labels, rotation=45, ha="right", fontsize=9)
    ax.set_yticks(range(len(names)), labels, fontsize=9)
    for tick_labels in (ax.get_xticklabels(), ax.get_yticklabels()):
        for label, name in zip(tick_labels, names, strict=True):
            label.set_color(color[name])
            label.set_fontweight("bold")
    ax.set_xticks(np.arange(-0.5, len(names)), minor=True)
    ax.set_yticks(np.arange(-0.5, len(names)), minor=True)
    ax.grid(which="minor", color="#DDDDDD", linewidth=0.8)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel("server whose parameter takes it", fontsize=8)
    ax.set_ylabel("server whose output is used", fontsize=8)
    total = int(counts.sum())
    ax.set_title(f"Cross-server links (a person, by email): {total} tool pairs\n(servers with their number of tools)",
                 fontsize=11)


def draw_server(ax: Any, simple: nx.DiGraph, server: str, color: str) -> None:
    """One server's links as a matrix: row = the tool whose output is used, column = the tool
    whose parameter takes it; darker = more parameters; writes in bold, red."""
    import numpy as np

    tools = sorted((n for n, d in simple.nodes(data=True) if d["server"] == server),
                   key=lambda n: (simple.nodes[n]["writes"], simple.nodes[n]["tool"]))
    index = {n: i for i, n in enumerate(tools)}
    counts = np.zeros((len(tools), len(tools)))
    for source, target, data in simple.edges(data=True):
        if source in index and target in index:
            counts[index[source], index[target]] = data["links"]
    shown = np.ma.masked_equal(counts, 0)
    image = ax.imshow(shown, cmap="Blues", vmin=0, vmax=max(1.0, counts.max()), aspect="equal")
    names = [simple.nodes[n]["tool"] for n in tools]
    ax.set_xticks(range(len(tools)), names, rotation=90, fontsize=6.5)
    ax.set_yticks(range(len(tools)), names, fontsize=6.5)
    for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
        for label, node in zip(labels, tools, strict=True):
            if simple.nodes[node]["writes"]:
                label.set_color("#B22222")
                label.set_fontweight("bold")
    ax.set_xticks(np.arange(-0.5, len(tools)), minor=True)
    ax.set_yticks(np.arange(-0.5, len(tools)), minor=True)
    ax.grid(which="minor", color="#EEEEEE", linewidth=0.5)
    ax.tick_params(which="minor", length=0)
    links = int((counts > 0).sum())
    ax.set_title(f"{server}: {len(tools)} tools, {links} links", fontsize=11, color=color, fontweight="bold")
    ax.set_xlabel("tool whose parameter takes it", fontsize=8)
    ax.set_ylabel("tool whose output is used", fontsize=8)
    from matplotlib.ticker import MaxNLocator

    bar = ax.figure.colorbar(image, ax=ax, fraction=0.035, pad=0.02)
    bar.ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    bar.ax.tick_params(labelsize=7)
    bar.set_label("parameters linked", fontsize=7)


def draw(graph: nx.MultiDiGraph, path: Path) -> None:
    """A PNG a person can read at any number of servers: with several, a summary of the
    servers and their cross-server links first; then one panel per server, its tools'
    links as a matrix (a node-link drawing of hundreds of links is a hairball)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    simple = simple_graph(graph)
    servers = sorted({d["server"] for _, d in simple.nodes(data=True)})
    color = {s: COLORS[i % len(COLORS)] for i, s in enumerate(servers)}
    summary = len(servers) > 1
    rows, columns = panel_grid(len(servers) + summary)
    fig, axes = plt.subplots(rows, columns, figsize=(7.2 * columns, 7.4 * rows), squeeze=False)
    cells = list(axes.flat)
    if summary:
        draw_summary(cells.pop(0), server_graph(simple), color)
    for server in servers:
        draw_server(cells.pop(0), simple, server, color[server])
    for ax in cells:
        ax.set_axis_off()
    fig.suptitle(f"Tool dependency graph: {simple.number_of_nodes()} tools, {simple.number_of_edges()} links "
                 f"({graph.number_of_edges()} field-to-parameter edges); write tools in red", fontsize=13)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def write_graph(graph: nx.MultiDiGraph, out: Path) -> list[Path]:
    """graph.json (node-link), graph.graphml and graph.png in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "graph.json", out / "graph.graphml", out / "graph.png"]
    paths[0].write_text(json.dumps(nx.node_link_data(graph, edges="edges"), indent=1), encoding="utf-8")
    nx.write_graphml(graph, paths[1])
    draw(graph, paths[2])
    return paths
