"""Servers as plugins: an outside package declaring an `mcpgym.servers` entry point, installed
with pip, is listed, makes an env id, synthesizes tasks and passes the generic tests, with no
edit to mcpgym. Discovery leaves a broken plugin out without hiding the other servers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import EntryPoint, EntryPoints
from pathlib import Path
from typing import Any

import pytest

from mcpgym.servers import catalog

EXAMPLE = Path(__file__).parent / "plugin_example"
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example server installed with pip into a folder of its own (put on PYTHONPATH)."""
    target = tmp_path_factory.mktemp("plugin") / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(EXAMPLE)], check=True, capture_output=True)
    return target


def run(site: Path, *command: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_the_installed_plugin_is_listed_beside_the_builtin_servers(site: Path) -> None:
    listed = run(site, str(BIN / "mcpgym"), "list")
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line.split() for line in listed.stdout.splitlines() if line.strip()}
    assert rows["notes"][1:3] == ["mcp/notes-v0", "6"]
    assert {"zendesk", "crm"} <= set(rows)
    assert "notes" not in catalog.server_names(), "the plugin is installed only for the subprocesses"


def test_synth_and_gym_make_play_the_plugin_like_a_builtin(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "notes.jsonl"
    synth = run(site, str(BIN / "mcpgym"), "synth", "--servers", "notes", "--n", "6", "--workers", "1",
                "--out", str(out), "--quiet")
    assert synth.returncode == 0, synth.stderr
    families = {tag for line in out.read_text().splitlines() for tag in json.loads(line)["tags"] if tag.startswith("family:")}
    assert families == {"family:notes.notebook-size", "family:notes.delete"}
    script = (
        "import gymnasium as gym, json\n"
        "from mcpgym.baselines.agents import NoOpAgent, OracleAgent\n"
        "from mcpgym.baselines.rollout import run_episode\n"
        f"env = gym.make('mcp/notes-v0', tasks={str(out)!r}).unwrapped\n"
        "print(json.dumps([[run_episode(env, OracleAgent(), t).reward, run_episode(env, NoOpAgent(), t).reward]"
        " for t in env.tasks]))\n"
    )
    played = run(site, sys.executable, "-c", script)
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout) == [[1.0, 0.0]] * 6


@pytest.mark.slow  # the generic tests run on every built-in server in the default suite
def test_the_generic_tests_pass_on_the_plugin(site: Path) -> None:
    tests = Path(__file__).parent
    generic = ["test_conformance.py", "test_limits.py", "test_statements.py", "test_mcp.py", "test_kernel.py",
               "test_synth_graph.py"]
    result = run(site, sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-k", "notes and not crm",
                 *[str(tests / name) for name in generic], cwd=tests.parent)
    assert result.returncode == 0, result.stdout[-3000:]
    passed = int(result.stdout.strip().splitlines()[-1].split(" passed")[0].split()[-1])
    assert passed >= 2 * 6 + 7, result.stdout[-500:]  # two per tool, seven per server


# ---------------------------------------------------------------- discovery rules


class FakeDistribution:
    def __init__(self, name: str, points: dict[str, str]) -> None:
        self.metadata = {"Name": name}
        self.entry_points = EntryPoints(EntryPoint(key, value, catalog.ENTRY_POINT_GROUP) for key, value in points.items())


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Replace the installed distributions with the list the test fills."""
    dists: list[Any] = []
    monkeypatch.setattr(catalog, "distributions", lambda: dists)
    catalog.discovered.cache_clear()
    yield dists
    catalog.discovered.cache_clear()


def test_builtin_servers_come_first_and_plugins_by_name(installed: list[Any]) -> None:
    installed += [FakeDistribution("zeta-tools", {"zeta": "zeta:SERVER", "alpha": "alpha:SERVER"}),
                  FakeDistribution("mcpgym", {"zendesk": "mcpgym.servers.zendesk:SERVER", "crm": "mcpgym.servers.crm:SERVER"})]
    assert catalog.server_names() == ["crm", "zendesk", "alpha", "zeta"]
    assert catalog.discovered()["zeta"].distribution == "zeta-tools"


def test_bad_names_and_taken_names_are_left_out_with_a_warning(installed: list[Any]) -> None:
    installed += [FakeDistribution("mcpgym", {"zendesk": "mcpgym.servers.zendesk:SERVER"}),
                  FakeDistribution("hijack", {"zendesk": "hijack:SERVER", "Bad-Name": "bad:SERVER", "ok": "ok:SERVER"})]
    with pytest.warns(UserWarning) as caught:
        names = catalog.server_names()
    assert names == ["zendesk", "ok"]
    messages = " ".join(str(w.message) for w in caught)
    assert "mcpgym already provides it" in messages and "'Bad-Name'" in messages
    assert catalog.load_server("zendesk").name == "zendesk"


def test_an_entry_point_must_name_a_server_spec_of_its_own_name(installed: list[Any]) -> None:
    installed += [FakeDistribution("other", {"helpdesk": "mcpgym.servers.zendesk:SERVER",
                                             "notaspec": "mcpgym.servers.zendesk:tools"})]
    with pytest.raises(ValueError, match="entry point and ServerSpec.name must agree"):
        catalog.load_server("helpdesk")
    with pytest.raises(TypeError, match="is not a ServerSpec"):
        catalog.load_server("notaspec")
    with pytest.raises(catalog.ServerNotFound, match="unknown server 'nope'; servers: helpdesk, notaspec"):
        catalog.load_server("nope")
