"""Read-only JSON values: what observations and `info` are made of.

An observation shares its messages with the environment's history (a step copies only the
list of references to them), so they cannot be changed in place: `FrozenDict` and `FrozenList` are `dict`
and `list` subclasses (chat templates, `json.dumps` and `isinstance` checks take them as
they are) whose mutating methods raise `TypeError`. Being immutable, their `copy.copy` and
`copy.deepcopy` return themselves, which makes Gymnasium's vector envs' copies of an
observation free; they pickle as themselves (rebuilt from a plain copy, in C). `dict(value)`
and `list(value)` (or `thaw`) give a mutable copy.
"""

from __future__ import annotations

from typing import Any, NoReturn


class FrozenDict(dict[str, Any]):
    """A `dict` that cannot be changed in place."""

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("this dict is read-only (it is part of the environment's history); copy it with dict(...)")

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return FrozenDict, (dict(self),)

    def __repr__(self) -> str:
        return dict.__repr__(self)


class FrozenList(list[Any]):
    """A `list` that cannot be changed in place (`+` still makes a new, plain list)."""

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("this list is read-only (it is part of the environment's history); copy it with list(...)")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = clear = extend = insert = pop = remove = reverse = sort = _read_only

    def __copy__(self) -> FrozenList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenList:
        return self

    def __reduce__(self) -> tuple[type[FrozenList], tuple[list[Any]]]:
        return FrozenList, (list(self),)

    def __repr__(self) -> str:
        return list.__repr__(self)


def freeze(value: Any) -> Any:
    """`value` with every dict and list in it (at any depth) made read-only; tuples become
    frozen lists. Callers bound the depth of what they pass (see `mcpgym.envs.limits`)."""
    if isinstance(value, FrozenDict | FrozenList):
        return value
    if isinstance(value, dict):
        return FrozenDict({key: freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList(freeze(item) for item in value)
    return value


def thaw(value: Any) -> Any:
    """A mutable deep copy of a (possibly frozen) JSON value."""
    if isinstance(value, dict):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(item) for item in value]
    return value
