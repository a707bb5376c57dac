"""Recorded tool results that must stay byte-identical while the kernel changes underneath.

Three kinds of calls, each on a fresh session of its world:
- every shipped task's ground truth, executed in order with its bindings (one digest per
  task over every result text and the final row changes);
- every tool's documented examples;
- derived calls per example: each id argument pointed at an id that does not exist, each
  required argument dropped, each integer argument given as text, an unknown argument added.

`python tests/results_golden.py` rewrites tests/data/results_golden.json; the test compares.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).parent / "data" / "results_golden.json"


def digest(*texts: str) -> str:
    h = hashlib.sha256()
    for text in texts:
        h.update(text.encode())
        h.update(b"\x00")
    return h.hexdigest()[:20]


def derived_arguments(tool: Any, example: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Named variants of an example that probe the error paths."""
    schema = tool.input_schema
    properties: dict[str, Any] = schema.get("properties", {})
    for name, value in example.items():
        if name.endswith("_id") and isinstance(value, int) and not isinstance(value, bool):
            yield f"missing-id:{name}", {**example, name: 987_654}
        if name.endswith("_id") and isinstance(value, str):
            yield f"missing-id:{name}", {**example, name: "zz_nope_404"}
        if isinstance(value, int) and not isinstance(value, bool):
            yield f"int-as-text:{name}", {**example, name: "abc"}
    for name in schema.get("required", []):
        if name in example:
            yield f"drop:{name}", {k: v for k, v in example.items() if k != name}
    yield "unknown-argument", {**example, "zz_unknown": 1}
    if not properties:
        yield "stray-argument", {"x": 1}


def task_digests(tasks: list[Any]) -> dict[str, str]:
    """task id -> digest of every ground-truth result and the resulting row changes."""
    from mcpgym.servers.toolbox import Toolbox

    boxes: dict[tuple[str, ...], Toolbox] = {}
    out: dict[str, str] = {}
    try:
        for task in tasks:
            key = tuple(task.servers)
            box = boxes.get(key) or boxes.setdefault(key, Toolbox(list(key), task.seed))
            box.reset(task.seed)
            results: dict[str, Any] = {}
            texts: list[str] = []
            for call in task.calls:
                arguments = call.resolved_arguments(results)
                result = box.call(box.public_name(call.server or task.servers[0], call.tool), arguments)
                texts.append(result.text)
                if result.ok:
                    results[call.id] = result.data
            changes = {s: [c.model_dump() for c in rows] for s, rows in box.diff().items()}
            texts.append(json.dumps(changes, sort_keys=True, default=str))
            out[task.id] = digest(*texts)
    finally:
        for box in boxes.values():
            box.close()
    return out


def tool_digests() -> dict[str, str]:
    """`server.tool#example[:variant]` -> digest of the result text and the row changes."""
    from mcpgym.servers.catalog import load_server, server_names
    from mcpgym.servers.kernel.session import ToolSession

    out: dict[str, str] = {}
    for server in server_names():
        spec = load_server(server)
        with ToolSession(spec, 0) as session:
            for tool in spec.tools:
                for number, example in enumerate(tool.examples):
                    for variant, arguments in [("", example), *derived_arguments(tool, example)]:
                        session.reset(0)
                        result = session.call(tool.name, arguments)
                        changes = json.dumps([c.model_dump() for c in session.diff()], sort_keys=True, default=str)
                        key = f"{server}.{tool.name}#{number}" + (f":{variant}" if variant else "")
                        out[key] = digest(result.text, changes)
    return out


def all_tasks() -> list[Any]:
    from mcpgym.tasks.loader import shipped_tasks, synthesized_tasks

    return [*shipped_tasks(), *synthesized_tasks()]


def record() -> dict[str, dict[str, str]]:
    return {"tools": tool_digests(), "tasks": task_digests(all_tasks())}


if __name__ == "__main__":
    data = record()
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}: {len(data['tools'])} tool calls, {len(data['tasks'])} tasks", file=sys.stderr)
