"""The docs stay true: relative links resolve, the task-format example completes and
verifies, the API reference builds without a warning, and the demo needs no torch."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXAMPLE = DOCS / "examples" / "draft-task.jsonl"
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
"""Markdown links and images; the target is group 1 or 2."""
HEAVY = ("torch", "transformers")


def _load(path: Path) -> ModuleType:
    name = f"mcpgym_docs_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_api = _load(DOCS / "build_api.py")


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def _relative_targets(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    targets = [a or b for a, b in LINK.findall(text)]
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def test_every_relative_link_points_to_a_file_that_exists() -> None:
    checked, broken = 0, []
    for page in _pages():
        for target in _relative_targets(page):
            checked += 1
            if not (page.parent / target.split("#", 1)[0]).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, f"links to missing files: {broken}"
    assert checked >= 20, "the link pattern found almost no links: is it still right?"


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("[ok](page.md), [gone](missing.md#part), ![img](img/none.png), [web](https://x.org)\n"
                    "```\n[in code](not-checked.md)\n```\n", encoding="utf-8")
    assert _relative_targets(page) == ["page.md", "missing.md#part", "img/none.png"]


def test_the_readme_lists_every_doc_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in DOCS.glob("*.md") if f"(docs/{p.name})" not in readme]
    assert not missing, f"README's Documentation list lacks {missing}"


def _mcpgym(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcpgym", *args], check=False, capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_the_example_draft_completes_and_verifies(tmp_path: Path) -> None:
    draft = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert draft and all(f["value"] is None for t in draft for turn in t["turns"] for f in turn.get("facts", []))
    done = tmp_path / "tasks.jsonl"
    completed = _mcpgym("tasks", "complete", "--tasks", str(EXAMPLE), "--out", str(done))
    assert completed.returncode == 0, completed.stderr
    tasks = [json.loads(line) for line in done.read_text(encoding="utf-8").splitlines()]
    assert [t["id"] for t in tasks] == [t["id"] for t in draft]
    assert all(f["value"] is not None for t in tasks for turn in t["turns"] for f in turn["facts"])
    assert all(t["difficulty"] and t["expected_changes"] for t in tasks)
    verified = _mcpgym("tasks", "verify", "--tasks", str(done))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert f"{len(tasks)}/{len(tasks)} tasks verified" in verified.stdout


def test_verify_refuses_a_completed_task_with_a_wrong_value(tmp_path: Path) -> None:
    done = tmp_path / "tasks.jsonl"
    assert _mcpgym("tasks", "complete", "--tasks", str(EXAMPLE), "--out", str(done)).returncode == 0
    task = json.loads(done.read_text(encoding="utf-8").splitlines()[0])
    task["turns"][0]["facts"][0]["value"] = -1
    done.write_text(json.dumps(task) + "\n", encoding="utf-8")
    verified = _mcpgym("tasks", "verify", "--tasks", str(done))
    assert verified.returncode == 1 and "recorded -1" in verified.stdout


def test_every_module_is_listed_and_imports() -> None:
    names = build_api.module_names(build_api.package_folders())
    for package in ("mcpgym", "mcpgym.servers.kernel.session", "mcpgym.tasks.refs", "mcpgym.baselines.train.trainer"):
        assert package in names
    assert not [n for n in names if n.endswith("__main__")]
    problems: list[str] = []
    assert len(build_api.import_all(names, problems)) == len(names) - len(problems)
    assert not problems, "\n".join(problems)


CORE = ("mcpgym", "mcpgym.registration", "mcpgym.envs", "mcpgym.tasks", "mcpgym.tasks.model", "mcpgym.tasks.refs",
        "mcpgym.tasks.execute", "mcpgym.rewards", "mcpgym.rewards.compose", "mcpgym.rewards.components")


def test_the_api_reference_of_the_core_modules_builds_without_warnings(tmp_path: Path) -> None:
    """The default suite renders the core modules (seconds); the slow test below renders all."""
    pytest.importorskip("pdoc", reason="the API reference needs pdoc: pip install 'mcpgym[docs]'")
    built = build_api.build(tmp_path, list(CORE), show_source=False)
    assert not built.problems, "\n".join(built.problems)
    assert set(built.modules) == set(CORE)
    page = (tmp_path / "mcpgym" / "tasks" / "refs.html").read_text(encoding="utf-8")
    assert "evaluate" in page and "RefError" in page
    assert (tmp_path / "index.html").is_file()


def test_the_build_reports_a_module_that_does_not_import(tmp_path: Path) -> None:
    problems: list[str] = []
    assert build_api.import_all(["mcpgym.tasks.refs", "mcpgym.no_such_module"], problems)[0].__name__ == "mcpgym.tasks.refs"
    assert len(problems) == 1 and problems[0].startswith("mcpgym.no_such_module: does not import")


@pytest.mark.slow
def test_the_whole_api_reference_builds_without_warnings(tmp_path: Path) -> None:
    """What `make docs` runs, every module (about 100 s of CPU on the 2-core machine)."""
    pytest.importorskip("pdoc", reason="the API reference needs pdoc: pip install 'mcpgym[docs]'")
    out = tmp_path / "api"
    built = subprocess.run([sys.executable, str(DOCS / "build_api.py"), "--no-source", str(out)],
                           check=False, capture_output=True, text=True, timeout=1200, cwd=ROOT)
    assert built.returncode == 0, built.stderr
    names = build_api.module_names(build_api.package_folders())
    shown = [n for n in names if not n.rsplit(".", 1)[-1].startswith("_")]
    assert all((out / f"{n.replace('.', '/')}.html").is_file() for n in shown)


BLOCKER = """
import sys
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {heavy!r}:
            raise ImportError(f"{{name}} is blocked: the demo must not need it")
sys.meta_path.insert(0, Blocker())
from mcpgym.cli import main
code = main({argv!r})
assert not [m for m in sys.modules if m.split(".")[0] in {heavy!r}]
sys.exit(code)
"""


@pytest.mark.parametrize("argv", [
    ["run", "--quiet", "--env", "mcp/zendesk-v0", "--agent", "oracle"],
    ["eval", "--agent", "oracle", "--tasks", "zendesk", "--limit", "2", "--quiet", "--out", "{out}"],
])
def test_the_demo_commands_never_import_torch_or_transformers(argv: list[str], tmp_path: Path) -> None:
    argv = [a.replace("{out}", str(tmp_path / "run")) for a in argv]
    ran = subprocess.run([sys.executable, "-c", BLOCKER.format(heavy=set(HEAVY), argv=argv)],
                         check=False, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert "mean reward" in ran.stdout


def test_the_import_blocker_blocks(tmp_path: Path) -> None:
    code = BLOCKER.format(heavy=set(HEAVY), argv=[]).split("from mcpgym")[0] + "import transformers\n"
    ran = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert ran.returncode == 1 and "transformers is blocked" in ran.stderr


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make: apt-get install make")
def test_make_run_and_make_test_use_separate_stamps() -> None:
    dry = subprocess.run(["make", "-n", "-B", "run"], check=False, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert dry.returncode == 0, dry.stderr
    assert 'pip install -q ".[eval]"' in dry.stdout and "torch" not in dry.stdout and ".[test]" not in dry.stdout
    dry = subprocess.run(["make", "-n", "-B", "test"], check=False, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert '".[test]"' in dry.stdout and "import torch" in dry.stdout and ".installed-run" in dry.stdout
