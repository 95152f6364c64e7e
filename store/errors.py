"""Typed errors of the canvas store.  Each says what went wrong and what to do about it."""

from __future__ import annotations

from collections.abc import Iterator


class CanvasError(Exception):
    """Base class of every canvas store error."""


class NodeNotFound(CanvasError, KeyError):
    """A mutation or read named a canvas node id that does not exist (or is deleted)."""

    def __init__(self, node_id: str) -> None:
        self.node_id = node_id
        super().__init__(f"no canvas node with id {node_id!r}; list nodes with `jarvishub status` or a query")

    def __str__(self) -> str:  # KeyError would repr() the message otherwise
        return self.args[0]


class StaleVersion(CanvasError):
    """A batch expected a node version that is no longer current: someone else changed it first."""

    def __init__(self, node_id: str, expected: int, actual: int) -> None:
        self.node_id = node_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"node {node_id} is at version {actual}, the batch expected {expected}; "
            "re-read the node and propose the change again"
        )


class InvalidMutation(CanvasError, ValueError):
    """A mutation is malformed for the canvas (unknown kind, self-loop where not allowed, ...)."""


class TicketRequired(CanvasError, PermissionError):
    """A write reached the store without a valid ticket from the validation node."""


class CypherError(CanvasError):
    """A user query failed; carries the engine's own message."""


class CypherSyntaxError(CypherError):
    """The engine could not parse the query."""


class CypherWriteRefused(CypherError, PermissionError):
    """A user query tried to write; user Cypher is read-only."""


class NoProbedServer(CypherWriteRefused):
    """No server of a cluster has passed the read-only account's probe since it last started or rejoined: user
    queries are refused (the cluster fails closed) until one does (``store/probe_gate.py``)."""


class QueryTimeout(CypherError, TimeoutError):
    """A user query ran past its time limit."""


class QueryBusy(CypherError):
    """Every user-query slot of the project is taken; the query was refused without reaching the engine."""


class ArtifactNotFound(CanvasError, FileNotFoundError):
    """No artifact is stored under that hash."""


class ArtifactCorrupted(CanvasError):
    """An artifact's bytes no longer match their hash."""


class EngineUnavailable(CanvasError, RuntimeError):
    """The canvas engine could not be started or reached."""


class EngineInconsistent(CanvasError, RuntimeError):
    """The engine acknowledged a change that did not happen (records a delete of everything left behind)."""


ENGINE_OUTAGES = frozenset({"EngineUnavailable", "ServiceUnavailable", "SessionExpired", "IncompleteCommit"})
"""The errors (by class name, so that this module imports no driver) that say the engine, or the connection to
it, is gone: ours, and the Bolt driver's."""


def causes(error: BaseException) -> Iterator[BaseException]:
    """``error``, then what caused it (``raise ... from``) or was being handled when it was raised, once each."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def is_engine_outage(error: BaseException) -> bool:
    """Whether the canvas engine stopped answering somewhere under ``error``.

    A step that meets an outage has not failed and must not be recorded as failed: nothing it asked of the
    canvas can be known to have happened, and a resume replays it (each commit carries its idempotency key).
    So the turn loop lets such an error through every place that turns a tool's error into an observation.
    """
    return any(cls.__name__ in ENGINE_OUTAGES and cls.__module__.split(".")[0] in ("store", "neo4j")
               for cause in causes(error) for cls in type(cause).__mro__)
