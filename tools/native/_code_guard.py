"""Bootstrap that :mod:`tools.native.code` runs in the sandboxed child interpreter before the snippet.

Run as ``python -I -B _code_guard.py WRITABLE MEMORY_BYTES ALLOW_PROCESSES HOOK``
(``WRITABLE``: folders joined by ``os.pathsep``) with the snippet on stdin.  It
caps the address space, installs (when ``HOOK`` is 1) an audit hook that refuses
writes outside the writable folders and, unless allowed, starting or killing
other processes, then executes the snippet as ``__main__``.

The hook only gives a readable first message for a snippet that tries something
it may not; code that means harm can get past an audit hook (ctypes, file
descriptors, child processes).  What holds is the bubblewrap sandbox around this
interpreter (see :mod:`tools.native.code`).  It imports only the standard
library so it runs under ``-I``.
"""

from __future__ import annotations

import errno
import linecache
import os
import resource
import sys
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


def main() -> None:
    """Cap memory, read the snippet, install the hook if asked, and run the snippet as ``__main__``."""
    folders, memory_bytes = sys.argv[1].split(os.pathsep), int(sys.argv[2])
    allow_processes, hook = sys.argv[3] == "1", sys.argv[4] == "1"
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    source = sys.stdin.read()
    sys.stdin.close()
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the snippet gets an empty stdin, as a script would under </dev/null
    sys.argv = ["<snippet>"]
    if hook:
        _install(folders, allow_processes)
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    # Let tracebacks quote the snippet's lines, as they would for a script file.
    linecache.cache["<snippet>"] = (len(source), None, source.splitlines(keepends=True), "<snippet>")
    try:
        exec(compile(source, "<snippet>", "exec"), namespace)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - reported like an uncaught error in a script
        # Drop this bootstrap's frames (the exec and the guard's hook) so the
        # traceback reads like the snippet's own.
        report = traceback.TracebackException.from_exception(exc)
        report.stack = traceback.StackSummary.from_list([f for f in report.stack if f.filename != __file__])
        sys.stderr.write("".join(report.format()))
        sys.exit(1)


if __name__ == "__main__":
    main()
