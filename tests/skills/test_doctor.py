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
            if name not in hidden and not os.path.lexists(folder / name):  # a dangling link is there too
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


def test_a_project_that_does_not_open_gets_the_fix_for_its_own_failure(tmp_path: Path) -> None:
    """A state folder others may write is refused; doctor's fix says so, not "check NEO4J_URI" (no engine starts)."""
    from jarvishub.project import DEFAULT_PROJECT_FILE, PROJECT_FILE

    project = tmp_path / "p"
    project.mkdir()
    (project / PROJECT_FILE).write_text(DEFAULT_PROJECT_FILE.format(name="p"))
    (project / ".jarvishub").mkdir(mode=0o777)
    os.chmod(project / ".jarvishub", 0o777)
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("OPENAI_API_KEY", None)
    environment.pop("NEO4J_URI", None)
    done = subprocess.run([sys.executable, "-m", "jarvishub.cli", "doctor", "--json"], capture_output=True, text=True,
                          timeout=120, env=environment, cwd=project)
    engine = {c["part"]: c for c in json.loads(done.stdout)["checks"]}["engine"]
    assert done.returncode == 1 and not engine["ok"]
    assert "UnsafeStateDir" in engine["detail"] and "chmod go-w" in engine["fix"]
    assert "NEO4J_URI" not in engine["fix"]
