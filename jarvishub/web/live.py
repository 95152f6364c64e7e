"""The live feed: server-sent events about canvas changes and background turns.

Commits may come from any process of the project (a ``jarvishub run`` in a
terminal, a notebook), and they all land in the same database, so the server
watches the commit log itself instead of listening to its own store:
:func:`watch_commits` polls ``canvas_version`` every 250 ms, reads the new
commits and publishes the ids of the nodes that changed.  Pages then fetch
those nodes (and lay them out themselves).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from store.cypher import FixedCypher
from store.models import CommitRecord
from store.neo4j import Neo4jCanvasStore

log = logging.getLogger("jarvishub.web")

POLL_INTERVAL_S = 0.25
"""How often the commit log is polled."""
MAX_IDS_PER_EVENT = 500
"""A change touching more nodes than this is sent as ``resync`` (the page reloads the canvas)."""
KEEP_ALIVE_S = 15.0
_QUEUE_SIZE = 1000
# By a list of ids from the id indexes, one lookup per id (as every read by ids: docs/architecture.md).
_EDGE_ENDS = FixedCypher("UNWIND $ids AS id MATCH (h:EdgeVersion {edge_id: id}) "
                         "RETURN DISTINCT h.source AS s, h.target AS t")
_KINDS = FixedCypher("UNWIND $ids AS id MATCH (n:CanvasNode {id: id}) RETURN DISTINCT n.kind AS kind")


class EventHub:
    """Fans events out to every open event stream; ``publish`` may be called from any thread."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queues: set[asyncio.Queue[tuple[str, dict[str, Any]] | None]] = set()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Attach to the server's event loop (at startup)."""
        self._loop = loop

    def subscribe(self) -> asyncio.Queue[tuple[str, dict[str, Any]] | None]:
        """A queue that receives every event from now on (call on the loop)."""
        queue: asyncio.Queue[tuple[str, dict[str, Any]] | None] = asyncio.Queue(maxsize=_QUEUE_SIZE)
        self._queues.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[tuple[str, dict[str, Any]] | None]) -> None:
        """Stop delivering to a queue."""
        self._queues.discard(queue)

    def publish(self, event: str, data: dict[str, Any]) -> None:
        """Send an event to every subscriber (thread-safe; dropped before startup)."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._fan_out, (event, data))

    def close(self) -> None:
        """End every open stream, so a stopping server is not held up by open pages (thread-safe)."""
        if self._loop is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop stopped meanwhile: nothing left to end
                self._loop.call_soon_threadsafe(self._end_all)

    def _end_all(self) -> None:
        for queue in list(self._queues):
            _offer(queue, None)

    def _fan_out(self, item: tuple[str, dict[str, Any]]) -> None:
        for queue in list(self._queues):
            if not _offer(queue, item):
                # A page that stopped reading lost events: tell it to reload instead of lying.
                queue.get_nowait()
                _offer(queue, ("canvas", {"resync": True}))


def _offer(queue: asyncio.Queue[Any], item: Any) -> bool:
    try:
        queue.put_nowait(item)
        return True
    except asyncio.QueueFull:
        return False


def touched_node_ids(store: Neo4jCanvasStore, commits: list[CommitRecord]) -> list[str]:
    """The ids of the nodes some commits touched, in order.

    A link or unlink changes its two nodes' edges even though it does not
    change the nodes, so edge endpoints count as touched.
    """
    node_ids = dict.fromkeys(i for c in commits for i in c.node_ids)
    edge_ids = [i for c in commits for i in c.edge_ids]
    if edge_ids:
        for row in store.fixed_read(_EDGE_ENDS, ids=edge_ids):  # ours: outside the user-query budget
            node_ids.update(dict.fromkeys((row["s"], row["t"])))
    return list(node_ids)


def change_event(store: Neo4jCanvasStore, commits: list[CommitRecord]) -> dict[str, Any]:
    """What the page needs to know about some commits: the ids of the nodes they touched (see
    :func:`touched_node_ids`) and their kinds, so a lens refetches only for a change it shows (a node it holds,
    or a new node of a kind it lists)."""
    node_ids = touched_node_ids(store, commits)
    event: dict[str, Any] = {
        "canvas_version": commits[-1].canvas_version if commits else store.canvas_version(),
        "commits": [{"canvas_version": c.canvas_version, "actor": c.actor, "thread_id": c.thread_id,
                     "nodes": len(c.node_ids)} for c in commits[-20:]],
    }
    if len(node_ids) > MAX_IDS_PER_EVENT:
        event["resync"] = True
    else:
        event["node_ids"] = node_ids
        event["kinds"] = sorted({str(row["kind"]) for row in store.fixed_read(_KINDS, ids=node_ids)}) if node_ids else []
    return event


async def watch_commits(
    store: Neo4jCanvasStore,
    hub: EventHub,
    *,
    interval_s: float = POLL_INTERVAL_S,
) -> None:
    """Poll the commit log forever; publish a ``canvas`` event per change."""
    version = await asyncio.to_thread(store.canvas_version)
    while True:
        await asyncio.sleep(interval_s)
        try:
            if await asyncio.to_thread(store.canvas_version) <= version:
                continue
            commits = await asyncio.to_thread(store.commits, since_version=version)
            if not commits:
                continue
            event = await asyncio.to_thread(change_event, store, commits)
            version = commits[-1].canvas_version
            hub.publish("canvas", event)
        except asyncio.CancelledError:
            raise
        except Exception:  # an engine hiccup must not end the feed; the next poll tries again
            log.exception("watching the commit log failed; retrying")
            await asyncio.sleep(1.0)


async def sse_stream(
    hub: EventHub,
    first: list[tuple[str, dict[str, Any]]],
    is_disconnected: Callable[[], Any],
) -> AsyncIterator[str]:
    """The text of one ``text/event-stream`` response: ``first`` events, then everything published."""
    queue = hub.subscribe()
    try:
        yield "retry: 1000\n\n"
        for event, data in first:
            yield _format(event, data)
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), timeout=KEEP_ALIVE_S)
            except TimeoutError:
                if await is_disconnected():
                    return
                yield ": keep-alive\n\n"
                continue
            if item is None:
                return
            yield _format(*item)
    finally:
        hub.unsubscribe(queue)


def _format(event: str, data: dict[str, Any]) -> str:
    # The canvas version is the event id, so a reconnecting EventSource sends it back as Last-Event-ID.
    head = f"id: {data['canvas_version']}\n" if event == "canvas" and "canvas_version" in data else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, default=str)}\n\n"
