"""Build hooks that pyproject.toml cannot express.

- `packages`: every package under the folders mapped in `[tool.setuptools.package-dir]`,
  found on disk, so a new server folder is packaged without editing a list;
- `mcpgym.pth`: copied to the root of the wheel (site-packages once installed), so Gymnasium
  sees our env ids in any interpreter of the environment. That holds for editable installs
  too: setuptools' `editable_wheel` (PEP 660) runs `build_py` in editable mode and ignores
  its build folder, but writes the root of the editable wheel through the `install`
  command's `install_lib`, so the `.pth` goes there; site-packages then holds it next to
  setuptools' `__editable__.mcpgym-*.pth`, which sorts (and so runs) first and puts the
  project on the import path before ours imports `mcpgym`.
"""

from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

PTH = "mcpgym.pth"
FOLDERS = {
    "mcpgym": "mcpgym",
    "mcpgym.servers": "servers",
    "mcpgym.envs": "envs",
    "mcpgym.synth": "synth",
    "mcpgym.tasks": "tasks",
    "mcpgym.rewards": "rewards",
    "mcpgym.baselines": "baselines",
    "mcpgym.external": "external",
}


DATA_FOLDERS = {"mcpgym.tasks.data": "tasks/data", "mcpgym.tasks.data.synth": "tasks/data/synth"}
"""Folders that hold only data files, shipped as packages so importlib.resources finds them."""
DATA_PACKAGES = {name: ["*.jsonl"] for name, folder in DATA_FOLDERS.items() if Path(folder).is_dir()}


def packages() -> list[str]:
    found = list(DATA_PACKAGES)
    for name, folder in FOLDERS.items():
        found.append(name)
        found += [f"{name}.{sub}" for sub in find_packages(folder)]
    return found


class BuildWithPth(build_py):
    """Copies `mcpgym/mcpgym.pth` to the root of the wheel: through the build folder for a
    regular wheel, straight into the unpacked editable wheel for an editable one."""

    def run(self) -> None:
        super().run()
        self.copy_file(str(Path("mcpgym") / PTH), str(self._pth_target()))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), str(self._pth_target())]

    def _pth_target(self) -> Path:
        if getattr(self, "editable_mode", False):
            return Path(self.get_finalized_command("install").install_lib) / PTH
        return Path(self.build_lib) / PTH


setup(
    packages=packages(),
    package_dir=FOLDERS,
    package_data=DATA_PACKAGES,
    cmdclass={"build_py": BuildWithPth},
)
