"""The scenario suite ships inside the package: a non-editable wheel has it, and the loader finds it there.

The wheel is built from a copy of the source (so the checkout gets no build folders) and unpacked into a
folder that a fresh interpreter puts first on its path, run from a folder that is not the checkout: the
scenarios it finds can only come from the package's own data, through ``importlib.resources``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from jarvishub.evaluation.scenario import SCENARIO_DIR

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("store", "nodes", "graphs", "skills", "tools", "jarvishub")
PROBE = """
import json, jarvishub
from jarvishub.evaluation.scenario import SCENARIO_DIR, find_scenarios
suite = find_scenarios()
print(json.dumps({"package": jarvishub.__file__, "folder": str(SCENARIO_DIR), "names": [s.name for _, s in suite]}))
"""


def test_a_wheel_install_finds_the_shipped_scenarios(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for name in SOURCES:
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(tmp_path / "dist"), str(source)], capture_output=True, text=True, timeout=240)
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = (tmp_path / "dist").glob("jarvishub-*.whl")
    shipped = sorted(p.name for p in SCENARIO_DIR.glob("*.toml"))
    with zipfile.ZipFile(wheel) as archive:
        inside = sorted(Path(n).name for n in archive.namelist() if n.startswith("jarvishub/evaluation/scenarios/"))
        archive.extractall(tmp_path / "installed")
    assert inside == shipped and len(shipped) >= 12

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "installed")}
    probe = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, env=env,
                           cwd=elsewhere)
    assert probe.returncode == 0, probe.stderr
    found = json.loads(probe.stdout)
    installed = str(tmp_path / "installed")
    assert found["package"].startswith(installed) and found["folder"].startswith(installed)
    assert sorted(f"{n}.toml" for n in found["names"]) == shipped
