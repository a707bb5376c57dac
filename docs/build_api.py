"""Build the API reference of every mcpgym module from its docstrings, with pdoc.

    python docs/build_api.py site/api        # what `make docs` runs

Every module under the folders of `[tool.setuptools.package-dir]` (pyproject.toml) is
imported and rendered to `OUT/<module path>.html`, with an index and a search index. The
build fails (exit status 1, one line per problem) when a module does not import or pdoc
warns about anything, so the reference cannot silently drift from the code.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import linecache
import sys
import tomllib
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = ("__main__",)
"""Module names never imported: importing `mcpgym.__main__` runs the command line."""


@dataclass
class Build:
    """What a build rendered and what went wrong."""

    modules: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def package_folders(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, Path]:
    """Package name -> its source folder, as pyproject.toml maps them."""
    with pyproject.open("rb") as handle:
        mapping = tomllib.load(handle)["tool"]["setuptools"]["package-dir"]
    return {name: pyproject.parent / folder for name, folder in mapping.items()}


def module_names(folders: dict[str, Path]) -> list[str]:
    """Every module in the packages (folders with `__init__.py`) under `folders`, sorted."""
    names: set[str] = set()
    for package, folder in folders.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            packages = [folder.joinpath(*parts[:depth]) for depth in range(len(parts))]
            if "__pycache__" in parts or not all((p / "__init__.py").is_file() for p in packages):
                continue
            if parts[-1] in SKIPPED:
                continue
            names.add(".".join((package, *parts[:-1])) if parts[-1] == "__init__" else ".".join((package, *parts)))
    return sorted(names)


def _class_lines(path: str) -> dict[str, int]:
    """Qualified class name -> the 0-based line where its source starts (its first decorator)."""
    found: dict[str, int] = {}
    stack: list[str] = []

    class Finder(ast.NodeVisitor):
        def visit_ClassDef(self, node: ast.ClassDef) -> None:
            stack.append(node.name)
            found.setdefault(".".join(stack), (node.decorator_list[0] if node.decorator_list else node).lineno - 1)
            self.generic_visit(node)
            stack.pop()

        def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
            stack.extend((node.name, "<locals>"))
            self.generic_visit(node)
            del stack[-2:]

        visit_AsyncFunctionDef = visit_FunctionDef

    Finder().visit(ast.parse("".join(linecache.getlines(path))))
    return found


@contextmanager
def indexed_class_sources() -> Iterator[None]:
    """Within the block, `inspect` finds a class's source from one parse of its file.

    Before Python 3.13, `inspect.findsource` parses a class's whole file again for each class
    it is asked about; pdoc asks about every class, so modules with many classes took most of
    the build. The index gives the same line that search does."""
    if sys.version_info >= (3, 13):
        yield
        return
    original: Callable[[Any], tuple[list[str], int]] = inspect.findsource
    index: dict[str, dict[str, int]] = {}

    def findsource(obj: Any) -> tuple[list[str], int]:
        if inspect.isclass(obj):
            path = inspect.getsourcefile(obj)
            if path and linecache.getlines(path):
                if path not in index:
                    index[path] = _class_lines(path)
                lines = index[path]
                if obj.__qualname__ in lines:
                    return linecache.getlines(path), lines[obj.__qualname__]
        return original(obj)

    inspect.findsource = findsource  # type: ignore[assignment]
    try:
        yield
    finally:
        inspect.findsource = original  # type: ignore[assignment]


def import_all(names: list[str], problems: list[str]) -> list[ModuleType]:
    """The modules that import, each with its lazy exports resolved; one line in `problems`
    for each that does not."""
    modules = []
    for name in names:
        try:
            module = importlib.import_module(name)
            _resolve_lazy_exports(module)
        except Exception as err:  # noqa: BLE001 - any failure of a module's own code is a problem to report
            where = traceback.extract_tb(err.__traceback__)[-1]
            problems.append(f"{name}: does not import: {type(err).__name__}: {err} ({where.filename}:{where.lineno})")
        else:
            modules.append(module)
    return modules


def _resolve_lazy_exports(module: ModuleType) -> None:
    """Names of `__all__` that a module-level `__getattr__` provides on first use, set on the
    module as `from module import name` would find them: pdoc reads only what is set."""
    if "__getattr__" not in vars(module):
        return
    for name in getattr(module, "__all__", ()):
        if name not in vars(module):
            setattr(module, name, getattr(module, name))


def build(output: Path, names: list[str] | None = None, show_source: bool = True) -> Build:
    """Render the reference of `names` (default: every mcpgym module) into `output`;
    `show_source=False` leaves out each function's highlighted source (a third of the time)."""
    import pdoc.doc
    import pdoc.render

    result = Build()
    names = module_names(package_folders()) if names is None else names
    pdoc.render.configure(docformat="markdown", show_source=show_source, search=True)
    modules = import_all(names, result.problems)
    with warnings.catch_warnings(record=True) as caught, indexed_class_sources():
        warnings.simplefilter("always")
        shown = {m.__name__: pdoc.doc.Module(m) for m in modules if not m.__name__.rsplit(".", 1)[-1].startswith("_")}
        for name, module in shown.items():
            target = output / f"{name.replace('.', '/')}.html"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(pdoc.render.html_module(module, shown), encoding="utf-8")
        for filename, text in (("index.html", pdoc.render.html_index(shown)), ("search.js", pdoc.render.search_index(shown))):
            if text:
                (output / filename).write_text(text, encoding="utf-8")
    result.modules = list(shown)
    result.problems += [f"pdoc warns: {w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the API reference of every mcpgym module with pdoc.")
    parser.add_argument("output", type=Path, help="folder to write the HTML to (created if missing)")
    parser.add_argument("--no-source", action="store_true", help="leave out the source of each function (faster)")
    args = parser.parse_args(argv)
    result = build(args.output, show_source=not args.no_source)
    for problem in result.problems:
        print(problem, file=sys.stderr)
    print(f"{len(result.modules)} modules -> {args.output}/index.html; {len(result.problems)} problems")
    return 1 if result.problems else 0


if __name__ == "__main__":
    sys.exit(main())
