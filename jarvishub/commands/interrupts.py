"""Ctrl-C is a pause: one line naming ``jarvishub resume THREAD``, never a traceback, never a hang.

The CLI installs :func:`on_sigint` for SIGINT.  The first Ctrl-C unwinds the command (a ``KeyboardInterrupt``)
and arms a grace period; :func:`report_interrupted` then says, once, how to take the turn up again.  A step
running on a worker thread may finish meanwhile (its commit is idempotent, so a resume replays it at no cost);
a second Ctrl-C, or the end of the grace period, ends the process at once, so nothing can hang in
``threading._shutdown``.  A turn is named only once its start is recorded (:func:`resumable`), so the
``resume`` the line names always finds it.
"""

from __future__ import annotations

import _thread
import argparse
import os
import threading
import time
from collections.abc import Callable
from typing import Any

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped with Ctrl-C
INTERRUPT_GRACE_S = 5.0
"""After a Ctrl-C, how long the command may take to wind down (a tool step finishing on a worker thread, the
engine lease given back) before it exits anyway; a second Ctrl-C exits at once."""

_RESUMABLE: list[str] = []
_INTERRUPT: dict[str, Any] = {}
"""``at``: when the first Ctrl-C came; ``said``: whether the line was written; ``command``: the command run."""


def resumable(thread_id: str) -> None:
    """The turn on ``thread_id`` has its start recorded: from now on an interrupt names it for ``resume``."""
    _RESUMABLE.append(thread_id)


TURN_COMMANDS = frozenset({"run", "resume", "demo"})
"""Commands that name the turn they start (and so can say how to take it up again)."""


def interrupted_line(command: str | None = None) -> str:
    """What an interrupted command says, in one line."""
    if _RESUMABLE:
        thread = _RESUMABLE[-1]
        return (f"interrupted: the turn is paused and nothing it did is lost; continue it with "
                f"`jarvishub resume {thread}`")
    if command is None or command in TURN_COMMANDS:
        return "interrupted: stopped before a turn started; run the command again"
    return "interrupted: stopped; what it had already committed is kept (`jarvishub status` shows the canvas)"


def _say_interrupted_now() -> None:
    """Write the line straight to stderr (a watchdog or a signal handler may not wait for a console lock)."""
    if not _INTERRUPT.get("said"):
        _INTERRUPT["said"] = True
        os.write(2, (interrupted_line(_INTERRUPT.get("command")) + "\n").encode())


def allow_wind_down(seconds: float) -> None:
    """Let this command take up to ``seconds`` after a Ctrl-C to wind down, instead of
    :data:`INTERRUPT_GRACE_S` (a command whose own stop is bounded and longer: ``eval --jobs`` gives its children
    ``STOP_WAIT_S`` to give their runs up, then stops the engines of the ones it had to kill)."""
    _INTERRUPT["grace"] = max(INTERRUPT_GRACE_S, float(seconds))


def _exit_after_grace() -> None:
    time.sleep(_INTERRUPT.get("grace", INTERRUPT_GRACE_S))
    _say_interrupted_now()
    os._exit(EXIT_INTERRUPTED)


def watch_interrupts(command: str) -> None:
    """Make Ctrl-C a pause for the rest of this process (``command``: what the CLI runs, for the line)."""
    import signal

    _INTERRUPT["command"] = command
    signal.signal(signal.SIGINT, on_sigint)


def on_sigint(signum: int, frame: Any) -> None:
    """SIGINT handler: the first Ctrl-C unwinds the command (a ``KeyboardInterrupt``) with a bounded grace period
    to wind down; a second one, or the end of the grace period, exits at once with the line said.

    A Ctrl-C that lands while a finaliser runs (the driver's ``__del__``, on the main thread at any moment) is
    delivered again once it has returned: Python drops an exception raised in a finaliser, printing "Exception
    ignored in ..." on stderr, and the command would go on as if no one had pressed Ctrl-C."""
    if _INTERRUPT.get("at"):
        _say_interrupted_now()
        os._exit(EXIT_INTERRUPTED)
    if _in_finaliser(frame):
        threading.Timer(_REDELIVER_AFTER_S, _thread.interrupt_main, args=(signum,)).start()
        return
    _INTERRUPT["at"] = time.monotonic()
    threading.Thread(target=_exit_after_grace, name="jarvishub-interrupt-grace", daemon=True).start()
    raise KeyboardInterrupt


_REDELIVER_AFTER_S = 0.02
"""How soon a Ctrl-C that came during a finaliser is delivered again (finalisers are short)."""


def _in_finaliser(frame: Any) -> bool:
    """Whether ``frame`` (where the signal handler interrupted the program) is inside a ``__del__``."""
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def resumable_thread() -> str | None:
    """The thread of the turn this command started (its start recorded), if any."""
    return _RESUMABLE[-1] if _RESUMABLE else None


def report_interrupted(args: argparse.Namespace, say: Callable[..., None]) -> int:
    """Say that the command was interrupted (once), and how to take the turn up again; exit code 130.

    ``say(args, code, line, **extra)`` writes it (``commands.common.print_error``, passed in: that module is
    above this one).
    """
    if not _INTERRUPT.get("said"):
        _INTERRUPT["said"] = True
        say(args, EXIT_INTERRUPTED, interrupted_line(getattr(args, "command", None)),
            **({"thread_id": _RESUMABLE[-1]} if _RESUMABLE else {}))
    return EXIT_INTERRUPTED
