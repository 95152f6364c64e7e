"""Bootstrap that :mod:`tools.native.code` runs in the sandboxed child interpreter before the snippet.

Run as ``python -I -B _code_guard.py WRITABLE MEMORY_BYTES ALLOW_PROCESSES HOOK PROCESSES FILE_BYTES TIMEOUT_S
OUT_DIR EXPORT_FD`` (``WRITABLE``: folders joined by ``os.pathsep``) with the snippet on stdin.

It forks the snippet's process and stays outside it.  The snippet's process caps its address space
(``RLIMIT_AS``), its processes (``RLIMIT_NPROC``: the sandbox's user namespace counts only its own) and the
size of any file it writes (``RLIMIT_FSIZE``), installs (when ``HOOK`` is 1) an audit hook that refuses writes
outside the writable folders and, unless allowed, starting or killing other processes, then executes the
snippet as ``__main__``.  The guard waits for it at most ``TIMEOUT_S``, then kills every other process of the
sandbox, and writes to ``EXPORT_FD`` one JSON line (``exit_code``, ``timed_out``) and a tar stream of the
regular files left in ``OUT_DIR`` (a size-capped tmpfs): that stream is how a run's files leave the sandbox,
so nothing the snippet writes lands on the host's disk unchecked or beyond the caps.

The hook only gives a readable first message for a snippet that tries something
it may not; code that means harm can get past an audit hook (ctypes, file
descriptors, child processes).  What holds is the bubblewrap sandbox and the
resource limits around this interpreter (see :mod:`tools.native.code`).  It
imports only the standard library so it runs under ``-I``.
"""

from __future__ import annotations

import errno
import json
import linecache
import os
import resource
import signal
import stat
import sys
import tarfile
import time
import traceback

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_ALWAYS_WRITABLE = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})

# Audit event -> positions of the arguments that name a path the event writes to,
# and the position of the dir_fd that relative paths are resolved against (if any).
_PATH_EVENTS: dict[str, tuple[tuple[int, ...], int | None]] = {
    "os.chflags": ((0,), None),
    "os.chmod": ((0,), 2),
    "os.chown": ((0,), 3),
    "os.link": ((1,), 3),
    "os.mkdir": ((0,), 2),
    "os.remove": ((0,), 1),
    "os.rename": ((0, 1), 2),
    "os.rmdir": ((0,), 1),
    "os.symlink": ((1,), 2),
    "os.truncate": ((0,), None),
    "os.utime": ((0,), 3),
    "shutil.chown": ((0,), None),
    "shutil.copyfile": ((1,), None),
    "shutil.copymode": ((1,), None),
    "shutil.copystat": ((1,), None),
    "shutil.copytree": ((1,), None),
    "shutil.make_archive": ((0,), None),
    "shutil.move": ((0, 1), None),
    "shutil.rmtree": ((0,), 1),
    "shutil.unpack_archive": ((1,), None),
}
_PROCESS_EVENTS = frozenset(
    {"os.exec", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.system", "subprocess.Popen", "pty.spawn"}
)


def _refuse(what: str, path: object = None) -> None:
    raise PermissionError(errno.EACCES, f"jarvishub run_code guard: {what}", path)


def _resolve(path: object, dir_fd: object) -> str | None:
    if not isinstance(path, (str, bytes, os.PathLike)):
        return None  # an already-open descriptor (its opening was checked) or nothing
    text = os.fsdecode(os.fspath(path))
    if not os.path.isabs(text) and isinstance(dir_fd, int) and dir_fd >= 0:
        text = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), text)
    return os.path.realpath(text)


def _install(folders: list[str], allow_processes: bool) -> None:
    roots = [os.path.realpath(f) for f in folders]
    me = os.getpid()

    def writable(real: str | None) -> bool:
        return real is None or real in _ALWAYS_WRITABLE or any(
            real == root or real.startswith(root + os.sep) for root in roots)

    def check(path: object, dir_fd: object, verb: str) -> None:
        real = _resolve(path, dir_fd)
        if not writable(real):
            _refuse(f"{verb} {real!r} is refused: a snippet may only write inside its run folder {roots[0]!r} "
                    "(or /tmp)", path)

    # The hook itself must raise no audit events (realpath and readlink raise none),
    # so it needs no re-entrancy guard, which threads in the snippet could slip past.
    def hook(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = args
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & _WRITE_FLAGS
            )
            if writing:
                check(path, None, "opening for writing")
        elif event in _PATH_EVENTS:
            positions, fd_at = _PATH_EVENTS[event]
            dir_fd = args[fd_at] if fd_at is not None and fd_at < len(args) else None
            for i in positions:
                check(args[i], dir_fd, f"{event} on")
        elif not allow_processes and event in _PROCESS_EVENTS:
            _refuse(f"{event} is refused: starting processes is not allowed in this run")
        elif not allow_processes and event in ("os.kill", "os.killpg") and args[0] not in (me, 0):
            _refuse(f"{event} of process {args[0]} is refused: a snippet may only signal itself")

    sys.addaudithook(hook)


def _run_snippet(source: str, folders: list[str], memory_bytes: int, allow_processes: bool, hook: bool,
                 processes: int, file_bytes: int) -> None:
    """In the forked child: cap, guard, and run the snippet as ``__main__``; never returns."""
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    if processes > 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
    if file_bytes > 0:
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the snippet gets an empty stdin, as a script would under </dev/null
    sys.argv = ["<snippet>"]
    if hook:
        _install(folders, allow_processes)
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    # Let tracebacks quote the snippet's lines, as they would for a script file.
    linecache.cache["<snippet>"] = (len(source), None, source.splitlines(keepends=True), "<snippet>")
    code = 0
    try:
        exec(compile(source, "<snippet>", "exec"), namespace)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if not isinstance(stop.code, (int, type(None))):
            sys.stderr.write(f"{stop.code}\n")
    except BaseException as exc:  # noqa: BLE001 - reported like an uncaught error in a script
        # Drop this bootstrap's frames (the exec and the guard's hook) so the
        # traceback reads like the snippet's own.
        report = traceback.TracebackException.from_exception(exc)
        report.stack = traceback.StackSummary.from_list([f for f in report.stack if f.filename != __file__])
        sys.stderr.write("".join(report.format()))
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code & 0xFF)


def _kill_the_rest() -> None:
    """Kill every process of the sandbox but this one (and its init), and reap what was ours."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:
        try:
            if os.waitpid(-1, 0)[0] == 0:
                break
        except ChildProcessError:
            break


def _export(out_dir: str, fd: int, status: dict) -> None:
    """One JSON line, then a tar stream of the regular files under ``out_dir`` (links and special files left out)."""
    with os.fdopen(fd, "wb") as export:
        export.write((json.dumps(status) + "\n").encode())
        with tarfile.open(fileobj=export, mode="w|", format=tarfile.PAX_FORMAT) as archive:
            for here, dirs, names in os.walk(out_dir, followlinks=False):
                dirs.sort()
                for name in sorted(names):
                    path = os.path.join(here, name)
                    try:
                        info = os.lstat(path)
                    except OSError:
                        continue
                    if not stat.S_ISREG(info.st_mode):
                        continue
                    member = tarfile.TarInfo(os.path.relpath(path, out_dir))
                    member.size, member.mode, member.mtime = info.st_size, 0o644, int(info.st_mtime)
                    try:
                        with open(path, "rb") as data:
                            archive.addfile(member, data)
                    except OSError:
                        continue


def main() -> None:
    """Read the snippet, run it in a child under limits, and export what it left."""
    folders = sys.argv[1].split(os.pathsep)
    memory_bytes, allow_processes, hook = int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4] == "1"
    processes, file_bytes, timeout_s = int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
    out_dir, export_fd = sys.argv[8], int(sys.argv[9])
    source = sys.stdin.read()
    sys.stdin.close()
    started = time.monotonic()
    child = os.fork()
    if child == 0:
        os.close(export_fd)
        _run_snippet(source, folders, memory_bytes, allow_processes, hook, processes, file_bytes)
    timed_out, status = False, 0
    while True:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            break
        if time.monotonic() - started > timeout_s:
            timed_out = True
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
            status = signal.SIGKILL
            break
        time.sleep(0.01)
    exit_code = -os.WTERMSIG(status) if timed_out or os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    if timed_out:
        exit_code = -signal.SIGKILL
    _kill_the_rest()  # what the snippet left running would keep changing its files while they are exported
    _export(out_dir, export_fd, {"exit_code": exit_code, "timed_out": timed_out})


if __name__ == "__main__":
    main()
