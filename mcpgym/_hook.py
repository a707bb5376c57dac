"""Register the environments when Gymnasium is imported, without importing it ourselves.

This runs at every interpreter start-up (through `mcpgym.pth`), so it imports almost nothing.
"""

from __future__ import annotations

import importlib.machinery
import sys
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.abc import Loader


class _RegisterAfterLoad:
    """Wraps Gymnasium's own loader and registers our ids once the module has run."""

    def __init__(self, loader: Loader) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        from mcpgym.registration import register_envs

        register_envs()


class _GymnasiumWatcher:
    """A one-shot finder: on the first `import gymnasium` it wraps the loader and steps aside."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _RegisterAfterLoad(spec.loader)  # type: ignore[assignment]
        return spec


def register_when_gymnasium_loads() -> None:
    """Register now if Gymnasium is loaded; otherwise as soon as it is imported."""
    if "gymnasium" in sys.modules:
        from mcpgym.registration import register_envs

        register_envs()
        return
    if not any(isinstance(finder, _GymnasiumWatcher) for finder in sys.meta_path):
        sys.meta_path.insert(0, _GymnasiumWatcher())


