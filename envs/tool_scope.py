"""Which tools an episode shows: those of the servers its task needs, plus `distractors` other
mounted servers drawn from the episode's random generator, under an optional cap.

With twenty servers mounted, showing every tool would be several hundred schemas: more than
OpenAI's API accepts (128 tools) and a large share of a context window. The servers shown
keep their mount order, so the order of the tools never tells which servers the task needs.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Literal

import numpy as np

from mcpgym.servers.toolbox import Toolbox

Scope = Literal["task", "all"]

OPENAI_MAX_TOOLS = 128
"""The most tools OpenAI's chat API accepts in one request."""


def shown_servers(mounted: Sequence[str], needed: Collection[str], scope: Scope, distractors: int,
                  rng: np.random.Generator) -> tuple[str, ...]:
    """The servers an episode shows: every mounted one (`scope="all"`), or those the task
    needs and `distractors` others drawn from `rng`, in mount order."""
    if scope == "all":
        return tuple(mounted)
    others = [server for server in mounted if server not in needed]
    drawn = {others[int(i)] for i in rng.permutation(len(others))[: min(distractors, len(others))]}
    return tuple(server for server in mounted if server in needed or server in drawn)


def shown_tools(toolbox: Toolbox, servers: Collection[str], needed_servers: Collection[str],
                needed_tools: Collection[str], max_tools: int | None) -> tuple[str, ...]:
    """The public names of the tools of `servers`, in the toolbox's order. Under a cap of
    `max_tools` (the `finish` tool counts as one), the task's own tools are always kept, then
    the other tools of the servers it needs, then the distractors', each in order."""
    names = [name for name, (server, _) in toolbox.routes() if server in servers]
    if max_tools is None or len(names) < max_tools:
        return tuple(names)
    budget = max_tools - 1
    if len(needed_tools) > budget:
        raise ValueError(f"the task needs {len(needed_tools)} tools, more than max_tools={max_tools} leaves (one is finish)")
    kept = set(needed_tools)
    by_need = sorted(names, key=lambda name: toolbox.route(name)[0] not in needed_servers)  # type: ignore[index]
    for name in by_need:
        if len(kept) >= budget:
            break
        kept.add(name)
    return tuple(name for name in names if name in kept)
