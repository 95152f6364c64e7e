"""A commit the engine made but whose acknowledgement was lost (a failover, a dropped connection) is retried; the
retry finds its idempotency key and replays it.  Listeners must still hear of that commit, exactly once.

The fault is real: a TCP proxy in front of the engine's Bolt port forwards the client's COMMIT, waits for the
engine's answer (so the commit is made) and cuts both connections instead of passing the answer on.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import uuid
from collections.abc import Iterator

import neo4j
import pytest

from store.arcadedb_security import ROOT_USER
from store.lifecycle import read_state
from store.mutations import CreateNode
from store.neo4j import Neo4jCanvasStore

COMMIT = b"\x00\x02\xb0\x12\x00\x00"  # one Bolt chunk holding COMMIT (a struct of no fields, signature 0x12)


class CommitDroppingProxy:
    """Forwards Bolt between the driver and the engine; once armed, loses the answer to the next COMMIT."""

    def __init__(self, port: int) -> None:
        self._target = ("127.0.0.1", port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.uri = f"bolt://127.0.0.1:{self._listener.getsockname()[1]}"
        self._armed = threading.Event()
        self.cut = threading.Event()
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self) -> None:
        """Lose the answer to the next COMMIT any connection sends."""
        self._armed.set()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self._target)
            self._open += [client, server]
            committing = threading.Event()
            threading.Thread(target=self._upstream, args=(client, server, committing), daemon=True).start()
            threading.Thread(target=self._downstream, args=(server, client, committing), daemon=True).start()

    def _upstream(self, client: socket.socket, server: socket.socket, committing: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while data := client.recv(65536):
                if self._armed.is_set() and COMMIT in data:
                    self._armed.clear()
                    committing.set()
                server.sendall(data)

    def _downstream(self, server: socket.socket, client: socket.socket, committing: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while data := server.recv(65536):
                if committing.is_set():  # the engine answered the COMMIT: it is made; the driver never hears so
                    self.cut.set()
                    for end in (client, server):
                        with contextlib.suppress(OSError):
                            end.shutdown(socket.SHUT_RDWR)
                    return
                client.sendall(data)

    def close(self) -> None:
        self._listener.close()
        for end in self._open:
            with contextlib.suppress(OSError):
                end.close()


@pytest.fixture
def through_proxy(engines, authority) -> Iterator[tuple[Neo4jCanvasStore, CommitDroppingProxy]]:
    """A fresh canvas on the session's ArcadeDB whose store account connects through the proxy."""
    engine = engines["arcadedb"]
    database = "t" + uuid.uuid4().hex[:12]
    engine.ensure_database(database)
    record = read_state(engine.data_dir)
    assert record is not None
    proxy = CommitDroppingProxy(int(record["bolt_port"]))
    driver = neo4j.GraphDatabase.driver(proxy.uri, auth=(ROOT_USER, record["password"]))
    store = Neo4jCanvasStore(driver, database, authority=authority, profile=engine.profile,
                             reader=engine.reader_driver)
    try:
        yield store, proxy
    finally:
        store.close()
        driver.close()
        proxy.close()
        engine.drop_database(database)


def test_a_commit_whose_acknowledgement_was_lost_reaches_listeners_exactly_once(through_proxy, authority):
    store, proxy = through_proxy
    heard = []
    store.on_commit(heard.append)

    node = CreateNode(kind="text", title="made, but the answer was lost")
    proxy.arm()
    made = store.apply([node], ticket=authority.issue("lost-ack", [node]), idempotency_key="thread:lost-ack")
    assert proxy.cut.is_set(), "the proxy never cut a COMMIT's answer: the test did not exercise the retry"
    assert store.canvas_version() == 1 and len(store.find_nodes()) == 1  # made once, not twice
    assert not made.replayed  # this call made it: its first attempt's answer was lost, the retry found it
    assert [r.id for r in heard] == [made.id]

    # Sending the same batch again later is a true replay: nothing changes and nobody hears of it again.
    again = store.apply([node], ticket=authority.issue("lost-ack", [node]), idempotency_key="thread:lost-ack")
    assert again.replayed and again.id == made.id
    assert [r.id for r in heard] == [made.id]
