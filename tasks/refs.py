"""References into earlier tool results, and the small arithmetic that derives answer facts.

A reference is `<call id>.<path>`: `c1.tickets.0.id` is the `id` of the first ticket in the
result of call `c1`. An expression combines references with numbers: `{c1.total} - {c2.total}`,
`round({c3.average_score} - {c4.average_score}, 2)`, `[{c2.email}, {c5.email}]`,
`"Booking " + {c4.pnr}`. Only arithmetic, lists, `round`, `abs`, `min`, `max` and `len` are
allowed.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Mapping
from typing import Any

Results = Mapping[str, Any]
"""Call id -> the JSON result of that call."""

REF_PATTERN = re.compile(r"\{([A-Za-z_][\w]*(?:\.[\w\-]+)*)\}")


class RefError(ValueError):
    """A reference that does not resolve, or an expression that cannot be evaluated."""


def resolve(ref: str, results: Results) -> Any:
    """The value at `ref` (`call.path.to.value`) in `results`."""
    head, *path = ref.split(".")
    if head not in results:
        raise RefError(f"{ref}: no result for call {head!r}")
    value = results[head]
    for step in path:
        if isinstance(value, list):
            if not (step.lstrip("-").isdigit() and -len(value) <= int(step) < len(value)):
                raise RefError(f"{ref}: no index {step} in a list of {len(value)}")
            value = value[int(step)]
        elif isinstance(value, dict):
            if step not in value:
                raise RefError(f"{ref}: no key {step!r}")
            value = value[step]
        else:
            raise RefError(f"{ref}: cannot index {type(value).__name__} with {step!r}")
    return value


_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "round": round,
    "abs": abs,
    "min": min,
    "max": max,
    "len": len,
}


def evaluate(expression: str, results: Results) -> Any:
    """Evaluate an expression over references; a bare `{ref}` returns the value unchanged."""
    whole = REF_PATTERN.fullmatch(expression.strip())
    if whole:
        return resolve(whole.group(1), results)
    values: dict[str, Any] = {}

    def name_for(match: re.Match[str]) -> str:
        key = f"_r{len(values)}"
        values[key] = resolve(match.group(1), results)
        return key

    source = REF_PATTERN.sub(name_for, expression)
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as err:
        raise RefError(f"{expression!r}: {err.msg}") from None
    try:
        return _eval(tree.body, values)
    except (TypeError, ZeroDivisionError) as err:
        raise RefError(f"{expression!r}: {err}") from None


def _eval(node: ast.AST, values: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float | str):
        return node.value
    if isinstance(node, ast.Name) and node.id in values:
        return values[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_eval(node.left, values), _eval(node.right, values))
    if isinstance(node, ast.List):
        return [_eval(item, values) for item in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, values)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
    ):
        return _FUNCTIONS[node.func.id](*(_eval(arg, values) for arg in node.args))
    raise RefError(f"not allowed in an expression: {ast.dump(node)[:60]}")
