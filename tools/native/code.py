"""Run a Python snippet in a child interpreter, with a time limit, a memory limit and a write guard.

The child is ``sys.executable -I -B`` running :mod:`tools.native._code_guard`,
in its own process group, with its working folder a fresh run folder
``runs/<id>/`` inside the workspace and HOME and TMPDIR pointed at a scratch
folder inside the workspace (removed afterwards).  Limits:

* time: on expiry the whole process group is killed (SIGKILL) and the result
  says ``timed_out``;
* memory: ``RLIMIT_AS`` caps the address space, so an allocation past it raises
  ``MemoryError`` and the run ends with a non-zero exit.  The limit is set by
  the bootstrap in the child before the snippet runs rather than in a
  ``preexec_fn``, which CPython documents as unsafe in a threaded parent such
  as a LangGraph worker;
* writes: an audit hook (``sys.addaudithook``) refuses opening files for
  writing, renames, removals, ``shutil`` copies and the like outside the
  workspace, and by default refuses starting or signalling other processes
  (a child process would not carry the hook).

This is a guard against accidents, not a security sandbox: hostile code can
get past an audit hook (ctypes, inherited descriptors, ``/proc``), and the
snippet runs as the same user as the harness with the same network.  Run
untrusted code in a container or VM instead.

Files the snippet leaves in its run folder are stored in the artifact store and
returned as handles; symlinks there are skipped so a run cannot smuggle files
from outside the workspace into the canvas.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, cast

from pydantic import BaseModel, Field

from store.artifacts import ArtifactStore
from store.models import ArtifactHandle, new_id
from tools.native.files import guess_mime
from tools.native.workspace import relative_to_workspace, resolve_in_workspace

_GUARD = Path(__file__).with_name("_code_guard.py")
RUNS_FOLDER = "runs"
"""Where run folders go, relative to the workspace."""
SCRATCH_FOLDER = ".jarvishub/scratch"
"""Where each run's HOME and TMPDIR go, relative to the workspace; removed after the run."""


class CodeLimits(BaseModel):
    """How long, how big and how chatty one run may be."""

    timeout_s: float = Field(default=30.0, gt=0)
    memory_mb: int = Field(default=1024, ge=64, description="Address-space cap (RLIMIT_AS) in MiB.")
    output_limit: int = Field(
        default=64_000, ge=1, description="Bytes of stdout and of stderr kept; the rest is counted."
    )
    allow_processes: bool = Field(default=False, description="Let the snippet start subprocesses (not guarded).")


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
    files: list[CreatedFile] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the snippet ran to the end and exited 0."""
        return self.exit_code == 0 and not self.timed_out


def run_python(source: str, workspace: Path, artifacts: ArtifactStore, limits: CodeLimits | None = None) -> CodeRun:
    """Run ``source`` under the limits in a fresh run folder of ``workspace`` and collect what it made."""
    limits = limits or CodeLimits()
    root = Path(workspace).resolve()
    run_id = new_id()
    # Resolved through the workspace check, so a `runs` symlink cannot move the run outside.
    run_dir = resolve_in_workspace(root, f"{RUNS_FOLDER}/{run_id}")
    scratch = resolve_in_workspace(root, f"{SCRATCH_FOLDER}/{run_id}")
    run_dir.mkdir(parents=True)
    (scratch / "tmp").mkdir(parents=True)
    try:
        outcome = _run_child(source, root, run_dir, scratch, limits)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    files = _collect(root, run_dir, artifacts)
    return CodeRun(run_dir=relative_to_workspace(root, run_dir), files=files, **outcome)


def _run_child(source: str, root: Path, run_dir: Path, scratch: Path, limits: CodeLimits) -> dict:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(scratch),
        "TMPDIR": str(scratch / "tmp"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }
    command = [
        sys.executable,
        "-I",
        "-B",
        str(_GUARD),
        str(root),
        str(limits.memory_mb * 1024 * 1024),
        "1" if limits.allow_processes else "0",
    ]
    started = time.monotonic()
    child = subprocess.Popen(
        command,
        cwd=run_dir,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, so a timeout kills everything it started
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
