"""``jarvishub doctor``: is every part JarvisHub uses here, and how to install each one that is not.

Each check runs the part the way JarvisHub does (the sandbox probe starts bubblewrap with this very
interpreter; Chromium and ffmpeg are asked their version; the engine is started, or the project's running
one reused), so a part that is installed but cannot start here is reported too.  Exit code 0 when every
part but the optional ones works, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dataclasses import asdict, dataclass

from jarvishub.commands.common import EXIT_FAILED, EXIT_OK, command

MIN_FREE_BYTES = 2 * 1024**3
"""Free disk below this is reported: the engine's data and every artifact live in the project folder."""


@dataclass(frozen=True)
class Check:
    """One part and whether it works here (a dataclass: ``--help`` imports nothing heavy)."""

    part: str
    ok: bool
    detail: str
    """What was found, or why it does not work."""
    needed_for: str
    fix: str | None = None
    """The command that installs or repairs it."""
    optional: bool = False
    """Missing is fine unless you need what it is for."""


def add_parser(sub: Any) -> None:
    """Register ``doctor``."""
    command(sub, "doctor", cmd_doctor, "check each part JarvisHub uses here and print how to install what is missing",
            "jarvishub doctor --json")


def cmd_doctor(args: argparse.Namespace) -> int:
    """Run every check; a table (or JSON) and the command that installs each missing part."""
    checks = run_checks(getattr(args, "project", None))
    ok = all(c.ok or c.optional for c in checks)
    if args.json:
        from jarvishub.output import print_json

        print_json({"ok": ok, "checks": [asdict(c) for c in checks]})
    else:
        from jarvishub.output import console, print_rows

        print_rows(["part", "status", "detail"],
                   [{"part": c.part, "status": "ok" if c.ok else "optional, missing" if c.optional else "MISSING",
                     "detail": c.detail} for c in checks])
        missing = [c for c in checks if not c.ok]
        for check in missing:
            console.print(f"{check.part} (for {check.needed_for}): {check.fix}", markup=False, highlight=False)
        console.print("everything JarvisHub uses is here" if not missing else
                      "all required parts work" if ok else "some parts are missing: the lines above install them",
                      markup=False)
    return EXIT_OK if ok else EXIT_FAILED


def run_checks(project: str | None = None) -> list[Check]:
    """Every check, in the order ``doctor`` prints them."""
    from jarvishub.locate import NotAProject, find_project

    try:
        root: Path | None = find_project(project)
    except NotAProject:
        root = None
    checks: list[tuple[str, Callable[[], Check]]] = [
        ("python", _python), ("engine", lambda: _engine(root)), ("ffmpeg", _ffmpeg), ("chromium", _chromium),
        ("bubblewrap", _bubblewrap), ("sandbox", _sandbox), ("espeak-ng", _espeak), ("ha runtime", _ha_runtime),
        ("disk", lambda: _disk(root or Path.cwd()))]
    return [_guarded(part, check) for part, check in checks]


def _guarded(part: str, check: Callable[[], Check]) -> Check:
    try:
        return check()
    except Exception as error:  # noqa: BLE001 - a check that breaks is a failed check, with its reason
        return Check(part=part, ok=False, detail=f"the check itself failed: {type(error).__name__}: {error}",
                     fix="see the detail", needed_for="JarvisHub")


def _version(command: list[str]) -> str | None:
    """The first line a program prints for its version, or None when it does not run."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return (done.stdout or done.stderr).strip().splitlines()[0] if (done.stdout or done.stderr).strip() else ""


def _python() -> Check:
    ok = sys.version_info >= (3, 11)
    return Check(part="python", ok=ok, detail=f"{sys.version.split()[0]} at {sys.executable}",
                 fix=None if ok else "install Python 3.11 or newer and make the venv with it",
                 needed_for="everything")


def _engine_fix(error: BaseException, root: Path) -> str:
    """What to do about a project that did not open: the hint fits the failure, not one hint for all."""
    from jarvishub.commands.common import is_disk_full
    from store.private_files import UnsafeStateDir

    if isinstance(error, UnsafeStateDir):
        return "give the folder to your own user and take write access away from group and others (chown, chmod go-w)"
    if is_disk_full(error, root):
        return "free some disk space, then run doctor again"
    if os.environ.get("NEO4J_URI"):
        return "check NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD, or unset NEO4J_URI to use the embedded engine"
    return (f"read {root / '.jarvishub' / 'engine.log'}; `jarvishub engine stop` then a new command starts a fresh "
            "engine; `pip install -e .` reinstalls it")


def _engine(root: Path | None) -> Check:
    needed = "the canvas"
    if root is not None:
        from jarvishub.project import Project

        try:
            with Project.open(root, follow_outputs=False) as project:
                detail = (f"{project.engine.profile.name} for {root.name}: canvas v{project.store.canvas_version()}, "
                          f"{sum(project.store.count_nodes().values())} nodes")
        except Exception as error:  # noqa: BLE001 - reported, with what to do
            return Check(part="engine", ok=False, detail=" ".join(f"{type(error).__name__}: {error}".split())[:300],
                         fix=_engine_fix(error, root), needed_for=needed)
        return Check(part="engine", ok=True, detail=detail, needed_for=needed)
    if os.environ.get("NEO4J_URI"):
        return Check(part="engine", ok=True, detail=f"Neo4j at {os.environ['NEO4J_URI']} (run doctor inside a project "
                                                    "to connect to it)", needed_for=needed)
    import importlib.util

    spec = importlib.util.find_spec("arcadedb_embedded")  # found, not imported (that loads JPype and numpy)
    if spec is None or not spec.submodule_search_locations:
        return Check(part="engine", ok=False, detail="the arcadedb-embedded wheel is not installed",
                     fix="pip install arcadedb-embedded", needed_for=needed)
    java = Path(next(iter(spec.submodule_search_locations))) / "jre" / "bin" / "java"
    version = _version([str(java), "-version"])
    if version is None:
        return Check(part="engine", ok=False, detail=f"the embedded engine's Java runtime does not start: {java}",
                     fix="pip install --force-reinstall arcadedb-embedded", needed_for=needed)
    return Check(part="engine", ok=True, detail=f"embedded ArcadeDB ({version}); run doctor inside a project to start "
                                                "it", needed_for=needed)


def _ffmpeg() -> Check:
    needed = "video clips and cuts"
    try:
        import imageio_ffmpeg

        exe = imageio_ffmpeg.get_ffmpeg_exe()
    except Exception as error:  # noqa: BLE001 - reported
        return Check(part="ffmpeg", ok=False, detail=f"{type(error).__name__}: {error}",
                     fix="pip install --force-reinstall imageio-ffmpeg", needed_for=needed)
    version = _version([exe, "-version"])
    return Check(part="ffmpeg", ok=version is not None, detail=version or f"{exe} does not run",
                 fix=None if version else "pip install --force-reinstall imageio-ffmpeg", needed_for=needed)


def _chromium() -> Check:
    from tools.native.browser import BrowserUnavailable, find_chromium

    needed = "web page previews (render_page, design_to_web) and the web canvas tests"
    fix = "apt-get install -y chromium (or point JARVISHUB_CHROMIUM at a Chromium binary)"
    try:
        path = find_chromium()
    except BrowserUnavailable as error:
        return Check(part="chromium", ok=False, detail=str(error).split(";")[0], fix=fix, needed_for=needed)
    version = _version([str(path), "--version"])
    return Check(part="chromium", ok=version is not None, detail=version or f"{path} does not start",
                 fix=None if version else fix, needed_for=needed)


def _program(part: str, program: str, apt: str, needed_for: str) -> Check:
    """A program found on PATH, or the Debian package that installs it."""
    found = shutil.which(program)
    return Check(part=part, ok=found is not None, detail=found or f"{program} is not on PATH",
                 fix=None if found else f"apt-get install -y {apt}", needed_for=needed_for)


def _bubblewrap() -> Check:
    return _program("bubblewrap", "bwrap", "bubblewrap", "run_code (agent code runs only inside its sandbox)")


def _sandbox() -> Check:
    from tools.native.code import sandbox_status

    status = sandbox_status()
    needed = "run_code, with this interpreter inside the sandbox"
    if status.available:
        return Check(part="sandbox", ok=True, detail=f"bwrap starts {sys.executable} here", needed_for=needed)
    fix = ("apt-get install -y bubblewrap" if not shutil.which("bwrap") else
           "let unprivileged users create namespaces (sysctl kernel.unprivileged_userns_clone=1) or run in a "
           "container that allows bwrap; the detail says what failed")
    return Check(part="sandbox", ok=False, detail=status.reason or "unavailable", fix=fix, needed_for=needed)


def _espeak() -> Check:
    return _program("espeak-ng", "espeak-ng", "espeak-ng",
                    "offline speech in words (without it, offline speech is a babble of tones)")


def _ha_runtime() -> Check:
    from store.ha_runtime import default_home, find_ha_runtime

    found = find_ha_runtime()
    return Check(part="ha runtime", ok=found is not None, optional=True,
                 detail=str(found.home) if found else f"not installed (expected at {default_home()})",
                 fix=None if found else "python -m store.ha_runtime install",
                 needed_for="a replicated canvas on this machine and its tests (pytest -m slow, tests/cluster)")


def _disk(where: Path) -> Check:
    free = shutil.disk_usage(where).free
    ok = free >= MIN_FREE_BYTES
    return Check(part="disk", ok=ok, detail=f"{free / 1024**3:.1f} GiB free at {where}",
                 fix=None if ok else f"free at least {MIN_FREE_BYTES // 1024**3} GiB: the engine's data and every "
                                     "artifact live in the project folder",
                 needed_for="the canvas engine's data and the artifacts")
