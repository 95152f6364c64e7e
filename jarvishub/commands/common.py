"""What every command shares: exit codes, the project it acts on, opening it, and how errors are told.

Nothing heavy is imported at module level: ``jarvishub --help`` and argument
errors must not load LangGraph, the engine driver or Pillow.  Functions that
need them import them when called.
"""

from __future__ import annotations

import argparse
import errno
import gc
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jarvishub.commands.interrupts import resumable_thread
from jarvishub.locate import NotAProject, find_project
from store.errors import ENGINE_OUTAGES, causes

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_REFUSED, EXIT_NOT_FOUND, EXIT_PAUSED = 0, 1, 2, 3, 4, 5
EXIT_BUSY = 75  # sysexits' EX_TEMPFAIL: nothing is wrong with the command, run it again in a moment
EXIT_CODES_HELP = ("exit codes: 0 done, 1 a step failed, 2 bad input, 3 refused, 4 not found, 5 paused for a person, "
                   "75 busy (the project's user-query budget is spent, or a provider is rate limiting): try again, "
                   "130 interrupted (Ctrl-C): `jarvishub resume` continues the turn")

Handler = Callable[[argparse.Namespace], int]


# -- declaring commands ---------------------------------------------------------------------
def command(sub: Any, name: str, handler: Handler, help_text: str, example: str) -> argparse.ArgumentParser:
    """A subcommand with ``--json`` and an example in its help."""
    parser = sub.add_parser(name, help=help_text, description=help_text,
                            epilog=f"example:\n  {example}\n\n{EXIT_CODES_HELP}",
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.set_defaults(handler=handler, example=example)
    return parser


def bounded(kind: type, low: float, high: float) -> Callable[[str], Any]:
    """An argparse type: a number in [low, high], refused with the range otherwise."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {kind.__name__}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is out of range: give a value from {low:g} to {high:g}")
        return value

    parse.__name__ = kind.__name__
    return parse


# -- files the command makes ---------------------------------------------------------------------
_USER_UMASK: list[int] = []


def private_umask() -> None:
    """From now on, what this process creates is the user's alone (umask 077): the project's databases, leases,
    caches, outputs and workspace files.  The user's own umask is kept for :func:`users_umask`."""
    previous = os.umask(0o077)
    if not _USER_UMASK:
        _USER_UMASK.append(previous)


@contextmanager
def users_umask() -> Iterator[None]:
    """Create files with the user's own umask (``export`` copies into a folder of their choosing)."""
    if not _USER_UMASK:
        yield
        return
    previous = os.umask(_USER_UMASK[0])
    try:
        yield
    finally:
        os.umask(previous)


# -- the project a command acts on -------------------------------------------------------------
def project_path(args: argparse.Namespace) -> Path:
    """-C (or a command's DIR), then $JARVISHUB_PROJECT, then the current folder and its parents."""
    return find_project(getattr(args, "project", None))


def project_line(root: Path, name: str | None = None) -> str:
    """The first line of every command's text output: which project it acts on."""
    return f"[dim]project {name or root.name} · {root}[/dim]"


_FROZEN: list[bool] = []
"""Whether this process has frozen its start-up objects already (see :func:`paused_gc`)."""


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run a command's start (its heavy imports, opening the project) without the cyclic garbage collector.

    Importing the driver and the models allocates a few hundred thousand objects that live as long as the
    process (the driver alone builds tables of every day of years 1 to 9999), and the collector would walk
    them again and again while they are made, then once more at exit: about a tenth of the CPU of a warm
    ``status`` or ``query``.  Afterwards they are frozen (``gc.freeze``: never scanned again, as they can
    never be freed anyway) and collection resumes as before for everything the command makes from then on.
    Only the first start of a process freezes: a later one (``main`` called again in the same process)
    imports nothing new, and freezing again could keep that process's garbage cycles forever.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not _FROZEN:
            gc.freeze()
            _FROZEN.append(True)
        if enabled:
            gc.enable()


@contextmanager
def opened_project(args: argparse.Namespace) -> Iterator[Any]:
    """The command's project, opened (its engine started or reused), outputs/ following its commits."""
    root = project_path(args)  # refuse "not a project" before loading the engine driver
    with paused_gc():
        from jarvishub.project import Project

        project = Project.open(root)
    with project:
        yield project


@contextmanager
def opened_trajectories(args: argparse.Namespace) -> Iterator[tuple[Any, Any]]:
    """The command's project and its recorded turns, without a runtime: a command that only reads them leaves
    LangGraph unloaded (loading it is most of the 5-6 s of CPU a `jarvishub` process took, docs/benchmarks.md)."""
    with opened_project(args) as project:
        from store.trajectories import TrajectoryStore

        trajectories = TrajectoryStore(project.state_dir / "trajectories.sqlite")
        try:
            yield project, trajectories
        finally:
            trajectories.close()


@contextmanager
def opened_runtime(args: argparse.Namespace, **kwargs: Any) -> Iterator[Any]:
    """The command's project and a runtime on it, both closed afterwards."""
    project_path(args)  # refuse "not a project" before loading LangGraph
    with paused_gc():
        from jarvishub.runtime import Runtime

    with opened_project(args) as project:
        runtime = Runtime(project, **kwargs)
        try:
            yield runtime
        finally:
            runtime.close()


def emit(args: argparse.Namespace, project: Any, data: dict[str, Any], text: Callable[[], None]) -> None:
    """Print a result: one JSON object with a ``project`` field, or the project line and then ``text()``."""
    if args.json:
        from jarvishub.output import print_json

        print_json({"project": str(project.root), **data})
    else:
        from jarvishub.output import console

        console.print(project_line(project.root, project.name))
        text()


# -- errors --------------------------------------------------------------------------------------
class TurnCrashed(Exception):
    """The engine or its connection failed during a turn; the turn's checkpoint lets it resume."""

    def __init__(self, thread_id: str, cause: BaseException) -> None:
        self.thread_id = thread_id
        self.cause = cause
        super().__init__(f"{engine_failure_text(cause)}; the turn is saved: "
                         f"resume it with `jarvishub resume {thread_id}`")


class ProviderStopped(Exception):
    """A model or media provider failed mid-turn (an outage, or a refusal of the request itself); the turn is
    saved where it stopped, with nothing of the failed call written, and ``jarvishub resume`` continues it."""

    def __init__(self, thread_id: str, cause: BaseException, exit_code: int, label: str) -> None:
        self.thread_id = thread_id
        self.cause = cause
        self.exit_code = exit_code
        self.label = label
        spent = getattr(getattr(cause, "spend", None), "cost_usd", None)
        billed = f" ({getattr(cause, 'paid_calls', 0)} billed answer(s), ${spent:.4f})" if spent else ""
        super().__init__(f"{cause}{billed}; nothing of it was written, the turn is saved: "
                         f"`jarvishub resume {thread_id}` continues it")


def provider_stop(thread_id: str, error: BaseException) -> ProviderStopped | None:
    """The one-line stop for a provider's failure during a turn (None for any other error).

    A rate limit is "busy" (75: the same command later is all it takes), a refusal under the content
    policy is "refused" (3), any other outage or failure of the provider "failed" (1).
    """
    from tools.generate.base import GenerationError
    from tools.generate.errors import ContentRefused, ProviderUnavailable

    if isinstance(error, ProviderUnavailable):
        return ProviderStopped(thread_id, error, EXIT_BUSY if error.busy else EXIT_FAILED,
                               "busy" if error.busy else "failed")
    if isinstance(error, ContentRefused):
        return ProviderStopped(thread_id, error, EXIT_REFUSED, "refused")
    if isinstance(error, GenerationError):
        return ProviderStopped(thread_id, error, EXIT_FAILED, "failed")
    return None


_ENGINE_FAILURES = ENGINE_OUTAGES | {"ConnectionRefusedError", "ConnectionResetError", "BrokenPipeError"}


def is_engine_failure(error: BaseException) -> bool:
    """Whether the canvas engine (or the connection to it) failed, rather than the request.

    A refused connection inside a model or media provider's failure is the provider's (an OpenAI-compatible
    endpoint that is down), not the engine's: the first such failure on the way down the causes decides."""
    from tools.generate.base import GenerationError
    from tools.generate.errors import ProviderUnavailable

    for cause in causes(error):
        if isinstance(cause, (ProviderUnavailable, GenerationError)):
            return False
        if any(cls.__name__ in _ENGINE_FAILURES for cls in type(cause).__mro__):
            return True
    return False


def engine_failure_text(error: BaseException) -> str:
    """One line saying the engine stopped answering, with the driver's own words shortened."""
    detail = " ".join(str(error).split())[:160]
    return f"the canvas engine stopped answering ({type(error).__name__}: {detail})"


_DISK_FULL_WORDS = ("no space left on device", "database or disk is full", "disk quota exceeded")


_NEARLY_FULL_BYTES = 1 << 20
"""Below this much free space, an I/O error SQLite cannot name (its shared-memory file could not grow) is the
disk being full."""


def is_disk_full(error: BaseException, where: Path | None = None) -> bool:
    """Whether the disk (or the user's quota) ran out under the command, wherever it was noticed: an OSError,
    SQLite's "database or disk is full" (or its "disk I/O error" with the disk at ``where`` nearly full), or
    the engine's own message."""
    for cause in causes(error):
        if isinstance(cause, OSError) and cause.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        text = str(cause).lower()
        if any(words in text for words in _DISK_FULL_WORDS):
            return True
        if "disk i/o error" in text and where is not None and _free_bytes(where) < _NEARLY_FULL_BYTES:
            return True
    return False


def _free_bytes(where: Path) -> int:
    import shutil

    try:
        return shutil.disk_usage(where).free
    except OSError:
        return _NEARLY_FULL_BYTES


def disk_full_text(where: Path | None) -> str:
    """One line: the disk is full, how full, and that nothing was lost: what to do once space is freed."""
    free = f" ({_free_bytes(where) // 1024} KB free at {where})" if where is not None else ""
    thread = resumable_thread()
    then = f"continue the turn with `jarvishub resume {thread}`" if thread else "run the command again"
    return f"failed: the disk is full{free}; nothing was lost: free some space, then {then}"


def exit_for_error(error: BaseException, where: Path | None = None) -> tuple[int, str]:
    """The exit code and one-line message for an error that ended a command (``where``: the project, if known)."""
    from store.errors import (CanvasError, CypherSyntaxError, CypherWriteRefused, NodeNotFound, QueryBusy,
                              QueryTimeout)
    from store.private_files import UnsafeStateDir

    if is_disk_full(error, where):
        return EXIT_FAILED, disk_full_text(where)
    if isinstance(error, UnsafeStateDir):
        return EXIT_REFUSED, f"refused: {error}"
    from store.postgres import PostgresUnavailable

    if isinstance(error, PostgresUnavailable):
        return EXIT_FAILED, f"failed: {error}"
    if isinstance(error, TurnCrashed):
        return EXIT_FAILED, f"failed: {error}"
    if isinstance(error, ProviderStopped):
        return error.exit_code, f"{error.label}: {error}"
    if isinstance(error, QueryBusy):
        return EXIT_BUSY, f"busy: {error}"
    if isinstance(error, CypherWriteRefused):
        return EXIT_REFUSED, f"refused: {error}"
    if isinstance(error, (NodeNotFound, NotAProject, FileNotFoundError)):
        return EXIT_NOT_FOUND, f"not found: {error}"
    if isinstance(error, CypherSyntaxError):
        return EXIT_BAD_INPUT, f"error: {error}"
    if isinstance(error, (QueryTimeout, ValueError, KeyError)):
        return EXIT_BAD_INPUT, f"error: {error}"
    if isinstance(error, OSError) and error.errno == errno.EADDRINUSE:
        return EXIT_BAD_INPUT, f"error: {error}"
    if is_engine_failure(error):
        return EXIT_FAILED, f"failed: {engine_failure_text(error)}; run the command again"
    if isinstance(error, CanvasError):
        return EXIT_FAILED, f"error: {error}"
    raise error


def print_error(args: argparse.Namespace, code: int, message: str, **extra: Any) -> None:
    """An error on stderr (and, with --json, as a JSON object on stdout so scripts see it too)."""
    from jarvishub.output import errors, print_json

    from rich.markup import escape

    label, _, rest = message.partition(": ")
    errors.print(f"[red]{label}:[/red] {escape(rest)}", highlight=False)
    if getattr(args, "json", False):
        print_json({"error": rest, "exit_code": code, **extra})


MAX_PARAM_DEPTH = 32
"""How deeply a ``--param`` JSON value may nest: plenty for a query parameter, far from any recursion limit."""


def parse_params(pairs: list[str]) -> dict[str, Any]:
    """``--param key=value`` pairs; values are JSON when they parse as JSON, else strings."""
    params: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--param takes key=value, got {pair!r}")
        key, raw = pair.split("=", 1)
        if _nesting(raw) > MAX_PARAM_DEPTH:
            raise ValueError(f"--param {key} nests more than {MAX_PARAM_DEPTH} levels of JSON; flatten it")
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


def _nesting(text: str) -> int:
    """The deepest bracket nesting of a JSON text (brackets inside strings are not counted), read before parsing:
    the parser and the driver both recurse once per level."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest
