"""`jarvishub doctor` on a machine without Chromium, bubblewrap or espeak-ng (hidden from its PATH, as on a fresh
machine): each missing part is named with the command that installs it, and the exit code says something is
missing; the parts that are there are reported working."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli_run import ROOT

HIDDEN = ("bwrap", "chromium", "espeak-ng")


def doctor(path: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": path, **env}
    environment.pop("OPENAI_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "jarvishub.cli", "doctor", "--json"], capture_output=True, text=True,
                          timeout=120, env=environment, cwd=ROOT)


def path_without(tmp_path: Path, hidden: tuple[str, ...]) -> str:
    """A PATH with every program of this one but ``hidden``."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for name in os.listdir(directory):
            if name not in hidden and not (folder / name).exists():
                (folder / name).symlink_to(Path(directory) / name)
    return str(folder)


def test_a_fresh_machine_is_told_what_to_install(tmp_path: Path) -> None:
    done = doctor(path_without(tmp_path, HIDDEN), JARVISHUB_CHROMIUM=str(tmp_path / "no-chromium"))
    assert done.returncode == 1, done.stderr
    checks = {c["part"]: c for c in json.loads(done.stdout)["checks"]}
    assert not checks["chromium"]["ok"] and "apt-get install -y chromium" in checks["chromium"]["fix"]
    assert not checks["bubblewrap"]["ok"] and checks["bubblewrap"]["fix"] == "apt-get install -y bubblewrap"
    assert not checks["sandbox"]["ok"] and "bubblewrap" in checks["sandbox"]["fix"]
    assert not checks["espeak-ng"]["ok"] and checks["espeak-ng"]["fix"] == "apt-get install -y espeak-ng"
    assert checks["ha runtime"]["optional"] and (checks["ha runtime"]["ok"]
                                                 or checks["ha runtime"]["fix"] == "python -m store.ha_runtime install")
    for part in ("python", "engine", "ffmpeg", "disk"):
        assert checks[part]["ok"], checks[part]
    assert "Traceback" not in done.stderr


def test_with_every_part_here_doctor_passes() -> None:
    from tests.system_tools import require_system_tool

    for program, package in (("bwrap", "bubblewrap"), ("chromium", "chromium"), ("espeak-ng", "espeak-ng")):
        require_system_tool(program, apt=package)
    done = doctor(os.environ["PATH"])
    checks = {c["part"]: c for c in json.loads(done.stdout)["checks"]}
    assert done.returncode == 0, checks
    assert all(c["ok"] for c in checks.values() if not c["optional"]), checks
