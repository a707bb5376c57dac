"""BFCL call strings (`mv(source='a', destination='b')`) to tool calls and back.

Parsing reads the text with `ast` and takes only literal arguments (never evaluates code);
positional arguments are named from the signature of the backend method. `call_text`
writes a call the way BFCL's function-calling decoder does, so BFCL's executor evaluates
it to the same method call; it refuses anything that is not a plain name with literal JSON
values, since BFCL evaluates the text.
"""

from __future__ import annotations

import ast
import inspect
import keyword
import math
from collections.abc import Sequence
from typing import Any

from mcpgym.external.bfcl.package import backend_class, tool_owner

MAX_CALL_TEXT = 200_000
"""Characters in one call string."""
MAX_NESTING = 32
"""Nesting of lists and objects in one argument value."""


class CallError(ValueError):
    """A call string or call that cannot be read or written; the message says why."""


def _is_name(text: Any) -> bool:
    return isinstance(text, str) and text.isidentifier() and text.isascii() and not keyword.iskeyword(text)


def _plain(value: Any, where: str, depth: int = 0) -> Any:
    """`value` as JSON data (tuples become lists); an error for anything else."""
    if depth > MAX_NESTING:
        raise CallError(f"{where}: nested deeper than {MAX_NESTING} levels")
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4096:
        raise CallError(f"{where}: the integer is too large")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CallError(f"{where}: {value!r} is not a finite number")
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(item, f"{where}[{index}]", depth + 1) for index, item in enumerate(value)]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise CallError(f"{where}: object keys must be strings, not {type(key).__name__}")
            out[key] = _plain(item, f"{where}.{key[:50]}", depth + 1)
        return out
    raise CallError(f"{where}: a {type(value).__name__} is not a JSON value")


def _literal(node: ast.expr, where: str) -> Any:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise CallError(f"{where}: not a literal value") from None
    return _plain(value, where)


def _parameter_names(owner: str, tool: str) -> list[str]:
    method = getattr(backend_class(owner), tool)
    parameters = list(inspect.signature(method).parameters.values())[1:]  # after self
    return [
        parameter.name
        for parameter in parameters
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
    ]


def parse_call(text: str, involved_classes: Sequence[str] = ()) -> tuple[str, dict[str, Any]]:
    """(tool name, keyword arguments) of one BFCL call string; positional arguments are
    named after the parameters of the method of the involved class that has the tool."""
    if not isinstance(text, str):
        raise CallError(f"a call must be a string, not {type(text).__name__}")
    if len(text) > MAX_CALL_TEXT:
        raise CallError(f"the call is {len(text):,} characters, over the limit of {MAX_CALL_TEXT:,}")
    shown = text.strip()[:80]
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as err:
        reason = err.msg if isinstance(err, SyntaxError) else type(err).__name__
        raise CallError(f"{shown!r} is not a call: {reason}") from None
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise CallError(f"{shown!r} is not a call of a plain name like tool(arg=1)")
    name = call.func.id
    arguments: dict[str, Any] = {}
    for argument in call.keywords:
        if argument.arg is None:
            raise CallError(f"{name}: **arguments are not supported")
        if argument.arg in arguments:
            raise CallError(f"{name}: argument {argument.arg!r} given twice")
        arguments[argument.arg] = _literal(argument.value, f"{name}({argument.arg}=...)")
    if call.args:
        if any(isinstance(node, ast.Starred) for node in call.args):
            raise CallError(f"{name}: *arguments are not supported")
        owner = tool_owner(name, list(involved_classes))
        if owner is None:
            raise CallError(f"{name}: positional arguments, but no involved class {list(involved_classes)} has this tool")
        names = _parameter_names(owner, name)
        if len(call.args) > len(names):
            raise CallError(f"{name}: {len(call.args)} positional arguments, the tool takes {len(names)}")
        positional: dict[str, Any] = {}
        for parameter, node in zip(names, call.args):
            if parameter in arguments:
                raise CallError(f"{name}: argument {parameter!r} given by position and by name")
            positional[parameter] = _literal(node, f"{name}({parameter}=...)")
        arguments = {**positional, **arguments}
    return name, arguments


def call_text(name: str, arguments: dict[str, Any]) -> str:
    """The BFCL call string of a call: `name(k=repr(v),...)`, as BFCL's decoder writes it."""
    if not _is_name(name):
        raise CallError(f"{str(name)[:80]!r} is not a valid tool name")
    if not isinstance(arguments, dict):
        raise CallError(f"{name}: arguments must be an object, not {type(arguments).__name__}")
    parts = []
    for key, value in arguments.items():
        if not _is_name(key):
            raise CallError(f"{name}: {str(key)[:80]!r} is not a valid argument name")
        parts.append(f"{key}={_plain(value, f'{name}({key}=...)')!r}")
    return f"{name}({','.join(parts)})"
