"""Run a Python snippet in a child interpreter inside a bubblewrap sandbox, with time, memory and output limits.

Agent-written code is attacker input (docs/grants.md), so it runs where it cannot
reach what the grant protects.  The child is ``bwrap`` (Debian's ``bubblewrap``)
around ``python -I -B`` running :mod:`tools.native._code_guard`:

* every namespace unshared (``--unshare-all``): no network at all, so no
  loopback to the canvas engine's Bolt or HTTP port; its own pid namespace
  with a fresh ``/proc`` that shows only the sandbox's processes;
* all capabilities dropped, running as ``nobody`` inside;
* a file system of read-only system folders (``/usr``, a few ``/etc`` files,
  the interpreter's prefix, mounted after ``/tmp`` so a venv under ``/tmp``
  stays visible), size-capped empty tmpfs folders for ``/tmp`` and ``HOME``, a
  copy of the declared input files (regular files and folders only; staged in a
  private temporary folder, removed after the run) at ``/sandbox/in``
  (read-only), and a size-capped tmpfs at ``/sandbox/out``, the working folder.
  No project state folder, no home, no workspace beyond the declared inputs.

Limits (:class:`CodeLimits`, which the grant sets: ``Grant.sandbox``; a call may
ask for less, never more): time (on expiry the snippet and everything it started
are killed and the result says ``timed_out``), memory (``RLIMIT_AS``),
processes (``RLIMIT_NPROC``), the size of any one file (``RLIMIT_FSIZE``), the
size of ``/tmp`` and of the run folder (tmpfs ``size=``), and output (stdout and
stderr bounded).  The run folder's regular files leave the sandbox as a tar
stream the bootstrap writes after the snippet is done; the host extracts it into
``runs/<id>/`` of the workspace, regular files only, within the output cap.  The
bootstrap's audit hook still refuses writes outside the run folder and starting
processes, but only as a readable first message: the sandbox is the guarantee.

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
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
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
_MIB = 1024 * 1024
_MAX_FILES = 10_000
EXPORT_GRACE_S = 15.0
"""How long past the time limit the host waits for the guard to kill the snippet and export its files."""
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
    processes: int = Field(default=64, ge=2, description="Processes of the sandbox's user at once (RLIMIT_NPROC).")
    file_mb: int = Field(default=64, ge=1, description="Largest file the snippet may write (RLIMIT_FSIZE), MiB.")
    tmp_mb: int = Field(default=64, ge=1, description="Size of the sandbox's /tmp (and of its home), MiB.")
    output_mb: int = Field(default=64, ge=1, description="Size of the run folder: all the files a run keeps, MiB.")
    output_limit: int = Field(
        default=64_000, ge=1, description="Bytes of stdout and of stderr kept; the rest is counted."
    )
    allow_processes: bool = Field(default=False, description="Let the snippet start subprocesses (inside the sandbox).")
    guard: bool = Field(
        default=True,
        description="Install the bootstrap's audit hook (a friendly first message only; tests switch it off to "
        "show that the sandbox alone holds).",
    )


class SandboxLimits(BaseModel):
    """What agent code (``run_code``) may use under this grant: the grant sets these, never the model (a call
    may ask for less time or memory, not more); ``run_code`` enforces them as :class:`CodeLimits`."""

    timeout_s: float = Field(default=30.0, gt=0, le=3600, description="Wall-clock time of one run.")
    memory_mb: int = Field(default=1024, ge=64, description="Address space of the snippet (RLIMIT_AS).")
    processes: int = Field(default=64, ge=2, description="Processes at once inside the sandbox (RLIMIT_NPROC).")
    file_mb: int = Field(default=64, ge=1, description="Largest file a run may write (RLIMIT_FSIZE).")
    tmp_mb: int = Field(default=64, ge=1, description="Size of the sandbox's /tmp (a tmpfs).")
    output_mb: int = Field(default=64, ge=1, description="Size of the run folder (a tmpfs): every file a run keeps.")


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

    Raises :class:`SandboxUnavailable` when bubblewrap cannot be used, :class:`~tools.base.ToolError` for an
    input that is missing or not a regular file or folder (a named pipe would block the copy forever), and
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
    """Copy one declared input (a file or a folder; links and special files left out) under ``staged``."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        raise ToolError(f"run_code input {name!r} does not exist in the workspace") from None
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        raise ToolError(f"run_code input {name!r} is {_file_kind(info.st_mode)}, not a regular file or a folder; "
                        "only those can be inputs")
    relative = relative_to_workspace(root, path)
    target = staged / relative if relative not in ("", ".") else staged
    target.parent.mkdir(parents=True, exist_ok=True)
    if stat.S_ISDIR(info.st_mode):
        shutil.copytree(path, target, symlinks=True, ignore=_not_regular, dirs_exist_ok=True)
    else:
        _copy_regular(path, target)
    return relative


def _copy_regular(source: Path, target: Path) -> None:
    """Copy a regular file without following a link or blocking on a pipe swapped in after the check."""
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as data:
        if not stat.S_ISREG(os.fstat(data.fileno()).st_mode):
            raise ToolError(f"run_code input {source.name!r} is not a regular file")
        with open(target, "wb") as out:
            shutil.copyfileobj(data, out)


def _not_regular(folder: str, names: list[str]) -> list[str]:
    """What a folder input leaves out: links and special files (named pipes, sockets, devices)."""
    skipped = []
    for name in names:
        try:
            mode = os.lstat(os.path.join(folder, name)).st_mode
        except OSError:
            skipped.append(name)
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            skipped.append(name)
    return skipped


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symlink"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return kind
    return "a special file"


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


def system_mounts(etc_files: Sequence[str]) -> list[str]:
    """bwrap options for the system a sandboxed program needs, read-only: ``/usr``, the top-level links or
    folders into it (``/bin``, ``/lib``, ...), and the named files or folders of ``/etc`` that exist."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64"):
        top = Path("/") / name
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    for name in etc_files:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return args


def _sandbox_args(staged: Path | None, limits: CodeLimits | None) -> list[str]:
    """bwrap options: nothing shared, nothing writable but size-capped tmpfs folders, no project state, no home.

    ``/tmp`` is mounted before the interpreter's folders: bound after it, a venv under ``/tmp`` stays visible
    (bound before, the tmpfs would hide it and no snippet could start, #22).
    """
    limits = limits or CodeLimits()
    args = ["--unshare-all", "--die-with-parent", "--cap-drop", "ALL", "--uid", "65534", "--gid", "65534",
            "--hostname", "sandbox", "--size", str(limits.tmp_mb * _MIB), "--tmpfs", "/tmp",
            *system_mounts(_ETC_FILES)]
    for folder in _python_roots():
        args += ["--ro-bind", folder, folder]
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(limits.tmp_mb * _MIB), "--tmpfs", SANDBOX_HOME,
             "--ro-bind", str(_GUARD), "/sandbox/guard.py", "--clearenv"]
    if staged is not None:
        args += ["--ro-bind", str(staged), SANDBOX_IN]
    args += ["--size", str(limits.output_mb * _MIB), "--tmpfs", SANDBOX_OUT, "--chdir", SANDBOX_OUT]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": SANDBOX_HOME, "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "LC_ALL": "C.UTF-8"}
    for key, value in env.items():
        args += ["--setenv", key, value]
    return args


def _run_child(source: str, bwrap: str, run_dir: Path, staged: Path, limits: CodeLimits) -> dict:
    writable = os.pathsep.join([SANDBOX_OUT, "/tmp", SANDBOX_HOME])
    export_read, export_write = os.pipe()
    command = [
        bwrap,
        *_sandbox_args(staged, limits),
        "--",
        sys.executable,
        "-I",
        "-B",
        "/sandbox/guard.py",
        writable,
        str(limits.memory_mb * _MIB),
        "1" if limits.allow_processes else "0",
        "1" if limits.guard else "0",
        str(limits.processes),
        str(limits.file_mb * _MIB),
        repr(limits.timeout_s),
        SANDBOX_OUT,
        str(export_write),
    ]
    started = time.monotonic()
    pids = PidsCgroup.open(limits.processes)
    try:
        child = subprocess.Popen(
            command,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(export_write,),
            # Its own process group, shared by everything inside the sandbox (bwrap is not asked for a new
            # session), so the backstop's killpg reaches every process the snippet started.
            start_new_session=True,
            # Into the pids cgroup before bwrap starts, so every process of the sandbox is counted in it.
            preexec_fn=pids.join if pids else None,  # noqa: PLW1509 - writes one file, then exec
        )
    except BaseException:
        if pids:
            pids.close()
        raise
    finally:
        os.close(export_write)
    out = _BoundedReader(child.stdout, limits.output_limit)
    err = _BoundedReader(child.stderr, limits.output_limit)
    received = _Receiver(export_read, run_dir, limits.output_mb * _MIB)
    _feed(child.stdin, source.encode("utf-8"))
    killed = False
    try:
        # The guard inside keeps the time and exports the files; this is the backstop if it cannot.
        child.wait(timeout=limits.timeout_s + EXPORT_GRACE_S)
    except subprocess.TimeoutExpired:
        killed = True
        _kill_group(child.pid)
        child.wait()
    duration = time.monotonic() - started
    # Whatever the snippet left running in its group would keep the pipes open.
    _kill_group(child.pid)
    out.join()
    err.join()
    status = received.join()
    if pids:
        pids.close()
    exit_code, timed_out = child.returncode, killed
    if status is not None and not killed:
        exit_code, timed_out = int(status.get("exit_code", exit_code)), bool(status.get("timed_out"))
    return {
        "exit_code": exit_code,
        "timed_out": timed_out,
        "duration_s": round(duration, 3),
        "stdout": out.text(),
        "stderr": err.text() + received.note(),
        "stdout_truncated": out.dropped > 0,
        "stderr_truncated": err.dropped > 0,
    }


class PidsCgroup:
    """A pids cgroup that caps the processes of one run when ``RLIMIT_NPROC`` cannot.

    The kernel does not apply ``RLIMIT_NPROC`` to root, and a sandbox started by root is root outside its
    user namespace, so for root the processes limit needs a cgroup (``pids.max``).  Opened only then, and only
    where a pids hierarchy is writable (cgroup v1's ``pids`` or a cgroup2 mount with the pids controller);
    elsewhere :func:`processes_enforced` says the limit does not hold.
    """

    ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup"))
    OVERHEAD = 2
    """Tasks of the sandbox that RLIMIT_NPROC would not count: bwrap and its init (the guard and the snippet
    count, as they do under RLIMIT_NPROC)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._procs = str(path / "cgroup.procs")

    @classmethod
    def open(cls, processes: int) -> PidsCgroup | None:
        """A fresh cgroup capped at ``processes`` (plus the sandbox's own), or None when not root or none is
        writable (non-root sandboxes are capped by RLIMIT_NPROC)."""
        if os.geteuid() != 0:
            return None
        for root in cls.ROOTS:
            if not (root / "cgroup.procs").exists():
                continue
            folder = root / "jarvishub" / f"run-{new_id()}"
            try:
                folder.mkdir(parents=True)
                (folder / "pids.max").write_text(str(processes + cls.OVERHEAD))
            except OSError:
                with contextlib.suppress(OSError):
                    folder.rmdir()
                continue
            return cls(folder)
        return None

    def join(self) -> None:
        """In the child, before exec: move this process (and so all it will start) into the cgroup."""
        fd = os.open(self._procs, os.O_WRONLY)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)

    def close(self) -> None:
        """Remove the cgroup (its processes are gone by now; a straggler keeps it a moment longer)."""
        deadline = time.monotonic() + 5
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.05)


@functools.cache
def processes_enforced() -> bool:
    """Whether a run's processes limit holds here: RLIMIT_NPROC for a non-root user, a pids cgroup for root."""
    if os.geteuid() != 0:
        return True
    probe = PidsCgroup.open(1)
    if probe is None:
        return False
    probe.close()
    return True


class _Receiver:
    """Read the guard's export on a thread: its status line, then its tar of regular files, into ``run_dir``.

    Everything in the stream is the sandbox's word, so it is checked as input: a member must be a regular file
    with a plain relative name; files are created new (no link followed, nothing overwritten) and the total
    stays within ``budget`` bytes (the run folder's size); anything else is skipped and noted.
    """

    def __init__(self, fd: int, run_dir: Path, budget: int) -> None:
        self.run_dir = run_dir
        self.budget = budget
        self.status: dict | None = None
        self.problems: list[str] = []
        self._pipe = os.fdopen(fd, "rb")
        self._thread = threading.Thread(target=self._receive, daemon=True)
        self._thread.start()

    def _receive(self) -> None:
        with self._pipe:
            try:
                line = self._pipe.readline(4096)
                if not line.endswith(b"\n"):
                    return  # killed before it exported (the backstop), or not the guard speaking
                self.status = json.loads(line)
                self._extract()
            except (ValueError, OSError, tarfile.TarError) as error:
                self.problems.append(f"the run folder's files could not all be collected: {error}")
            finally:
                with contextlib.suppress(OSError):
                    while self._pipe.read(65536):  # drain, so the guard is never left blocked
                        pass

    def _extract(self) -> None:
        left = self.budget
        with tarfile.open(fileobj=self._pipe, mode="r|") as archive:
            for count, member in enumerate(archive):
                parts = Path(member.name).parts
                if count >= _MAX_FILES or not member.isfile() or not parts or Path(member.name).is_absolute() \
                        or any(p in ("", ".", "..") for p in parts) or member.size > left:
                    self.problems.append(f"skipped {member.name!r} from the run folder")
                    continue
                left -= member.size
                data = archive.extractfile(member)
                target = self.run_dir.joinpath(*parts)
                self._mkdirs(target.parent)
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
                with os.fdopen(fd, "wb") as out:
                    if data is not None:
                        shutil.copyfileobj(data, out)

    def _mkdirs(self, folder: Path) -> None:
        relative = folder.relative_to(self.run_dir)
        current = self.run_dir
        for part in relative.parts:
            current = current / part
            with contextlib.suppress(FileExistsError):
                current.mkdir(mode=0o700)
            if current.is_symlink() or not current.is_dir():
                raise OSError(f"{current} is not a folder of the run")

    def join(self) -> dict | None:
        self._thread.join(timeout=30)
        return self.status

    def note(self) -> str:
        return "".join(f"\n[jarvishub: {p}]" for p in self.problems[:10])


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
