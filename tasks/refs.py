"""References into earlier tool results, and the small arithmetic that derives answer facts.

A reference is `<call id>.<path>`: `c1.tickets.0.id` is the `id` of the first ticket in the
result of call `c1`. An expression combines references with numbers: `{c1.total} - {c2.total}`,
`round({c3.average_score} - {c4.average_score}, 2)`, `[{c2.email}, {c5.email}]`,
`"Booking " + {c4.pnr}`, `{c1.total} == 1 or {c1.items.0.x} != {c1.items.1.x}`. Only
arithmetic, comparisons, `and`/`or`, lists, `round`, `abs`, `min`, `max` and `len` are allowed.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

Results = Mapping[str, Any]
"""Call id -> the JSON result of that call."""

REF_PATTERN = re.compile(r"\{([A-Za-z_][\w]*(?:\.[\w\-]+)*)\}")


class RefError(ValueError):
    """A reference that does not resolve, or an expression that cannot be evaluated."""


@lru_cache(maxsize=16_384)
def referenced_calls(expression: str) -> tuple[str, ...]:
    """Ids of the calls whose results `expression` refers to, in order of first mention."""
    return tuple(dict.fromkeys(m.group(1).split(".")[0] for m in REF_PATTERN.finditer(expression)))


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
    values: dict[str, Callable[[], Any]] = {}

    def name_for(match: re.Match[str]) -> str:
        key = f"_r{len(values)}"
        ref = match.group(1)
        values[key] = lambda: resolve(ref, results)
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


_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def _eval(node: ast.AST, values: dict[str, Callable[[], Any]]) -> Any:
    """Evaluate an allowed node; references resolve only when reached, so `a or b` does not
    need `b` when `a` holds."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float | str | None):
        return node.value
    if isinstance(node, ast.Name) and node.id in values:
        return values[node.id]()
    if isinstance(node, ast.BoolOp):
        result = None
        for item in node.values:
            result = _eval(item, values)
            if isinstance(node.op, ast.And) != bool(result):
                return result
        return result
    if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        left = _eval(node.left, values)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, values)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
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
