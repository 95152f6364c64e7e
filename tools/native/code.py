"""Run a Python snippet in a child interpreter inside a bubblewrap sandbox, with time, memory and output limits.

Agent-written code is attacker input (docs/grants.md), so it runs where it cannot
reach what the grant protects.  The child is ``bwrap`` (Debian's ``bubblewrap``)
around ``python -I -B`` running :mod:`tools.native._code_guard`:

* every namespace unshared (``--unshare-all``): no network at all, so no
  loopback to the canvas engine's Bolt or HTTP port; its own pid namespace
  with a fresh ``/proc`` that shows only the sandbox's processes;
* all capabilities dropped, running as ``nobody`` inside;
* a file system of read-only system folders (``/usr``, a few ``/etc`` files,
  the interpreter's prefix), an empty ``/tmp`` and ``HOME``, a copy of the
  declared input files (staged in a private temporary folder, removed after
  the run) at ``/sandbox/in`` (read-only) and the run folder
  ``runs/<id>/`` of the workspace at ``/sandbox/out`` (its working folder,
  the only writable place whose contents survive).  No project state folder, no
  home, no workspace beyond the declared inputs.

Limits: time (on expiry the sandbox's process group is killed and the result
says ``timed_out``), memory (``RLIMIT_AS``, set by the bootstrap before the
snippet runs) and output (stdout and stderr bounded).  The bootstrap's audit
hook still refuses writes outside the run folder and starting processes, but
only as a readable first message: the sandbox is the guarantee.

Where ``bwrap`` is missing or cannot create namespaces, :func:`sandbox_status`
says why, ``run_code`` is left out of the manifest, and :func:`run_python`
raises :class:`SandboxUnavailable`; there is no unsandboxed fallback.

Files the snippet leaves in its run folder are stored in the artifact store and
returned as handles; symlinks there are skipped so a run cannot smuggle files
from outside into the canvas.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, cast

from pydantic import BaseModel, Field

from store.artifacts import ArtifactStore
from store.models import ArtifactHandle, new_id
from tools.base import ToolError
from tools.native.files import guess_mime
from tools.native.workspace import relative_to_workspace, resolve_in_workspace

_GUARD = Path(__file__).with_name("_code_guard.py")
RUNS_FOLDER = "runs"
"""Where run folders go, relative to the workspace."""
SANDBOX_IN = "/sandbox/in"
"""Where the declared input files appear inside the sandbox (read-only)."""
SANDBOX_OUT = "/sandbox/out"
"""The run folder inside the sandbox: the snippet's working folder and the only place whose files are kept."""
SANDBOX_HOME = "/sandbox/home"
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) so run_code can sandbox agent code"
_ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "mime.types", "fonts",
              "ssl/openssl.cnf")


class SandboxUnavailable(ToolError):
    """``run_code`` cannot run because the OS sandbox (bubblewrap) is missing or does not work here."""


class SandboxStatus(BaseModel):
    """Whether agent code can be sandboxed on this machine, and if not, why (``jarvishub doctor``/``status``)."""

    available: bool
    bwrap: str | None = Field(default=None, description="The bwrap binary used.")
    reason: str = ""


class CodeLimits(BaseModel):
    """How long, how big and how chatty one run may be."""

    timeout_s: float = Field(default=30.0, gt=0)
    memory_mb: int = Field(default=1024, ge=64, description="Address-space cap (RLIMIT_AS) in MiB.")
    output_limit: int = Field(
        default=64_000, ge=1, description="Bytes of stdout and of stderr kept; the rest is counted."
    )
    allow_processes: bool = Field(default=False, description="Let the snippet start subprocesses (inside the sandbox).")
    guard: bool = Field(
        default=True,
        description="Install the bootstrap's audit hook (a friendly first message only; tests switch it off to "
        "show that the sandbox alone holds).",
    )


class CreatedFile(BaseModel):
    """A file the run left in its run folder, and the artifact holding its bytes."""

    path: str = Field(description="Path relative to the workspace.")
    handle: ArtifactHandle


class CodeRun(BaseModel):
    """What one run did."""

    exit_code: int = Field(description="The child's exit status; negative means killed by that signal.")
    timed_out: bool
    duration_s: float
    stdout: str
    stderr: str
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    run_dir: str = Field(description="The run folder, relative to the workspace.")
    inputs: list[str] = Field(default_factory=list, description=f"Input files copied to {SANDBOX_IN}.")
    files: list[CreatedFile] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the snippet ran to the end and exited 0."""
        return self.exit_code == 0 and not self.timed_out


@functools.cache
def sandbox_status() -> SandboxStatus:
    """Whether bubblewrap is installed and can build the sandbox here (checked once per process)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return SandboxStatus(available=False, reason=f"bwrap was not found on PATH; {INSTALL_HINT}")
    probe = [bwrap, *_sandbox_args(None, None), sys.executable, "-I", "-S", "-c", "pass"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return SandboxStatus(available=False, bwrap=bwrap, reason=f"bwrap could not start: {error}")
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip()[:500]
        return SandboxStatus(available=False, bwrap=bwrap,
                             reason=f"bwrap cannot create the sandbox here (user namespaces disabled?): {detail}")
    return SandboxStatus(available=True, bwrap=bwrap)


def run_python(source: str, workspace: Path, artifacts: ArtifactStore, limits: CodeLimits | None = None,
               inputs: Sequence[str] = ()) -> CodeRun:
    """Run ``source`` in the sandbox with ``inputs`` (workspace paths) copied in; collect what it made.

    Raises :class:`SandboxUnavailable` when bubblewrap cannot be used, and
    :class:`~tools.native.workspace.PathOutsideWorkspace` for an input outside the workspace.
    """
    status = sandbox_status()
    if not status.available:
        raise SandboxUnavailable(f"run_code is unavailable: {status.reason}")
    limits = limits or CodeLimits()
    root = Path(workspace).resolve()
    _check_not_exposed(root)
    run_id = new_id()
    # Resolved through the workspace check, so a `runs` symlink cannot move the run outside.
    run_dir = resolve_in_workspace(root, f"{RUNS_FOLDER}/{run_id}")
    sources = [(name, resolve_in_workspace(root, name)) for name in inputs]
    # Staged outside the workspace (a private temp folder), so declaring "." cannot copy the copy into itself.
    staged = Path(tempfile.mkdtemp(prefix=f"jarvishub-run-{run_id}-"))
    try:
        copied = [_stage(name, path, root, staged) for name, path in sources]
        run_dir.mkdir(parents=True)
        outcome = _run_child(source, cast(str, status.bwrap), run_dir, staged, limits)
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    files = _collect(root, run_dir, artifacts)
    return CodeRun(run_dir=relative_to_workspace(root, run_dir), inputs=copied, files=files, **outcome)


def _stage(name: str, path: Path, root: Path, staged: Path) -> str:
    """Copy one declared input (a file or a folder, symlinks left out) to the same place under ``staged``."""
    if not path.exists():
        raise ToolError(f"run_code input {name!r} does not exist in the workspace")
    relative = relative_to_workspace(root, path)
    target = staged / relative if relative not in ("", ".") else staged
    target.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        shutil.copytree(path, target, symlinks=True, ignore=_symlinks, dirs_exist_ok=True)
    else:
        shutil.copyfile(path, target)
    return relative


def _symlinks(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if os.path.islink(os.path.join(folder, n))]


def _python_roots() -> list[str]:
    """Folders the interpreter needs, read-only: its prefixes (a venv's and its base's) outside /usr."""
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, os.path.dirname(sys.executable))}
    return sorted(r for r in roots if not (r == "/usr" or r.startswith("/usr/")))


def _check_not_exposed(root: Path) -> None:
    for exposed in ["/usr", *_python_roots()]:
        if root == Path(exposed) or Path(exposed) in root.parents:
            raise SandboxUnavailable(
                f"the workspace {root} lies inside {exposed}, which the sandbox mounts read-only for the "
                "interpreter; move the project elsewhere")


def _sandbox_args(run_dir: Path | None, staged: Path | None) -> list[str]:
    """bwrap options: nothing shared, nothing writable but ``run_dir``, no project state, no home."""
    args = ["--unshare-all", "--die-with-parent", "--cap-drop", "ALL", "--uid", "65534", "--gid", "65534",
            "--hostname", "sandbox", "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64"):
        top = Path("/") / name
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    for name in _ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for folder in _python_roots():
        args += ["--ro-bind", folder, folder]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", SANDBOX_HOME,
             "--ro-bind", str(_GUARD), "/sandbox/guard.py", "--clearenv"]
    if staged is not None:
        args += ["--ro-bind", str(staged), SANDBOX_IN]
    if run_dir is not None:
        args += ["--bind", str(run_dir), SANDBOX_OUT, "--chdir", SANDBOX_OUT]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": SANDBOX_HOME, "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "LC_ALL": "C.UTF-8"}
    for key, value in env.items():
        args += ["--setenv", key, value]
    return args


def _run_child(source: str, bwrap: str, run_dir: Path, staged: Path, limits: CodeLimits) -> dict:
    writable = os.pathsep.join([SANDBOX_OUT, "/tmp", SANDBOX_HOME])
    command = [
        bwrap,
        *_sandbox_args(run_dir, staged),
        "--",
        sys.executable,
        "-I",
        "-B",
        "/sandbox/guard.py",
        writable,
        str(limits.memory_mb * 1024 * 1024),
        "1" if limits.allow_processes else "0",
        "1" if limits.guard else "0",
    ]
    started = time.monotonic()
    child = subprocess.Popen(
        command,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # Its own process group, shared by everything inside the sandbox (bwrap is not asked for a new
        # session), so a timeout's killpg reaches every process the snippet started.
        start_new_session=True,
    )
    out = _BoundedReader(child.stdout, limits.output_limit)
    err = _BoundedReader(child.stderr, limits.output_limit)
    _feed(child.stdin, source.encode("utf-8"))
    timed_out = False
    try:
        child.wait(timeout=limits.timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(child.pid)
        child.wait()
    duration = time.monotonic() - started
    # Whatever the snippet left running in its group would keep the pipes open.
    _kill_group(child.pid)
    out.join()
    err.join()
    return {
        "exit_code": child.returncode,
        "timed_out": timed_out,
        "duration_s": round(duration, 3),
        "stdout": out.text(),
        "stderr": err.text(),
        "stdout_truncated": out.dropped > 0,
        "stderr_truncated": err.dropped > 0,
    }


def _feed(stdin: IO[bytes] | None, data: bytes) -> None:
    if stdin is None:
        return
    try:
        stdin.write(data)
        stdin.close()
    except BrokenPipeError:
        pass  # the child died before reading its snippet; its stderr says why


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


class _BoundedReader:
    """Drain a pipe on a thread, keeping the first ``limit`` bytes and counting the rest."""

    def __init__(self, pipe: IO[bytes] | None, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.dropped = 0
        self._pipe = pipe
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        if self._pipe is None:
            return
        # Popen's pipes are buffered readers; read1 returns what is there without waiting for more.
        pipe = cast(io.BufferedReader, self._pipe)
        with pipe:
            while chunk := pipe.read1(65536):
                room = self.limit - len(self.kept)
                self.kept += chunk[:room]
                self.dropped += max(0, len(chunk) - room)

    def join(self) -> None:
        self._thread.join(timeout=5)

    def text(self) -> str:
        decoded = bytes(self.kept).decode("utf-8", errors="replace")
        if self.dropped:
            decoded += f"\n[... {self.dropped} more bytes not shown]"
        return decoded


def _collect(root: Path, run_dir: Path, artifacts: ArtifactStore) -> list[CreatedFile]:
    files: list[CreatedFile] = []
    for here, dirs, names in os.walk(run_dir, followlinks=False):
        dirs.sort()
        for name in sorted(names):
            path = Path(here) / name
            if path.is_symlink() or not path.is_file():
                continue
            handle = artifacts.put_file(path, mime=guess_mime(name), name=name)
            files.append(CreatedFile(path=relative_to_workspace(root, path), handle=handle))
    return files
