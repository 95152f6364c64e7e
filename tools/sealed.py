"""Objects a caller can use but not reach: its calls go through a queue to threads that hold the object.

Installed Python (tools, skills) is handed a canvas reader and a bridge port, never the store, the bridge or
the ticket authority (docs/grants.md).  Whatever a Python object refers to can be reached from it: attributes,
slots, closures, a method's ``__globals__`` (and a module-level map there), the garbage collector's referents.
So the reader and the port refer to neither the store nor the bridge, in any of those ways.  They hold a
:class:`Handle`: a request queue, an event that says the far side is gone, and nothing else.  A
:class:`Desk`, made and kept by the trusted owner (the store, the bridge), serves the queue from worker
threads that hold the object by a weak reference (the owner's own reference decides its lifetime); only the
methods named when the desk was opened can be called.

What comes back is the method's value (canvas data: nodes, edges, query rows, a submit result) or its
exception with the worker's traceback cut off, since a traceback's frames hold the worker's locals.  A call
runs in a copy of the caller's context variables (LangGraph's run config, so a tool a skill calls still
runs under the turn), or, for a desk opened with ``fresh_context``, in empty ones: the desk that runs skills
does not hand a skill its caller's run config, whose parent loop holds the turn's graph nodes and through
them the bridge.  The desk keeps one idle worker ready, so a call made while serving another
(a skill's step that runs a skill) never waits for itself; idle extra workers leave after a while.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import weakref
from collections.abc import Iterable
from typing import Any

IDLE_S = 30.0
"""How long an extra idle worker waits for a request before it leaves."""
_POLL_S = 1.0
_STOP = object()


class DeskClosed(RuntimeError):
    """The object behind a handle is gone (its owner closed or dropped it)."""


class _Reply:
    """Where a worker leaves one call's value or error (never a reference back to the worker)."""

    __slots__ = ("_done", "_error", "_value")

    def __init__(self) -> None:
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None

    def set(self, value: Any = None, error: BaseException | None = None) -> None:
        self._value, self._error = value, error
        self._done.set()

    def wait(self, closed: threading.Event, timeout: float) -> bool:
        if self._done.wait(timeout):
            return True
        if closed.is_set():
            raise DeskClosed("the canvas or bridge behind this handle is closed")
        return False

    def result(self) -> Any:
        if self._error is not None:
            raise self._error
        return self._value


class Handle:
    """What an untrusted holder keeps: a request queue to a :class:`Desk`, and whether the desk has closed."""

    __slots__ = ("__weakref__", "_closed", "_requests")

    def __init__(self, requests: queue.SimpleQueue, closed: threading.Event) -> None:
        self._requests = requests
        self._closed = closed

    def __reduce__(self) -> Any:
        raise TypeError("a handle to a desk cannot be pickled or copied")

    def call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Call ``method`` on the desk's object; its value, or its exception (raised here)."""
        if self._closed.is_set():
            raise DeskClosed("the canvas or bridge behind this handle is closed")
        reply = _Reply()
        self._requests.put((method, args, kwargs, contextvars.copy_context(), reply))
        while not reply.wait(self._closed, _POLL_S):
            pass
        return reply.result()


class Desk:
    """Serves calls to ``target``'s ``methods`` from worker threads; :meth:`handle` gives what callers hold."""

    def __init__(self, target: Any, methods: Iterable[str], *, name: str, fresh_context: bool = False) -> None:
        self._target = weakref.ref(target)
        self._fresh_context = fresh_context
        self._methods = frozenset(methods)
        self._name = name
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._idle = 0
        self._workers = 0
        with self._lock:
            self._spawn()

    def handle(self) -> Handle:
        """A handle to this desk (handles share the queue; none refers to the desk or its object)."""
        return Handle(self._requests, self._closed)

    def close(self) -> None:
        """Stop the workers; calls made after this raise :class:`DeskClosed`."""
        self._closed.set()
        with self._lock:
            workers = self._workers
        for _ in range(workers):
            self._requests.put(_STOP)

    def _spawn(self) -> None:  # with self._lock held
        self._idle += 1
        self._workers += 1
        threading.Thread(target=self._work, name=f"{self._name}-desk", daemon=True).start()

    def _leave(self) -> None:  # with self._lock held
        self._idle -= 1
        self._workers -= 1

    def _work(self) -> None:
        while True:
            try:
                request = self._requests.get(timeout=IDLE_S)
            except queue.Empty:
                with self._lock:
                    gone = self._target() is None or self._closed.is_set()
                    if gone or self._idle > 1:
                        if gone:
                            self._closed.set()
                        self._leave()
                        return
                continue
            if request is _STOP:
                with self._lock:
                    self._leave()
                return
            with self._lock:
                self._idle -= 1
                if self._idle == 0:  # someone must be free for a call this one makes (a skill's nested step)
                    self._spawn()
            try:
                self._serve(*request)
            finally:
                with self._lock:
                    self._idle += 1

    def _serve(self, method: str, args: tuple, kwargs: dict, context: contextvars.Context, reply: _Reply) -> None:
        target = self._target()
        if target is None or self._closed.is_set():
            reply.set(error=DeskClosed(f"the {self._name} behind this handle is closed"))
            return
        if method not in self._methods:
            reply.set(error=AttributeError(f"{method} is not offered through this handle"))
            return
        if self._fresh_context:  # the caller's context variables would lead back to it (LangGraph's run config)
            context = contextvars.Context()
        try:
            value = context.run(getattr(target, method), *args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - every error goes back to the caller, detached
            reply.set(error=_detached(error))
        else:
            reply.set(value)
        finally:
            del target


def _detached(error: BaseException) -> BaseException:
    """``error`` without tracebacks (theirs and those of its causes): their frames hold the worker's locals."""
    seen: set[int] = set()
    pending = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        current.__traceback__ = None
        pending.extend([current.__cause__, current.__context__])  # type: ignore[list-item]
    return error


__all__ = ["Desk", "DeskClosed", "Handle"]
