"""User Cypher on an ArcadeDB cluster through the servers' HTTP query API, as the read-only account.

ArcadeDB 26.3's Bolt plugin never sets the session's user on the database, so over Bolt the read-only
account's group is not applied and a ``CREATE`` sent as ``jarvishub_reader`` is committed (measured here).
Its HTTP API authenticates the user on every request and runs the statement as that user, so the group's
permissions hold: the reader may read records and nothing else (:mod:`store.arcadedb_security`).

Two mechanisms refuse writes there, and only one is a guarantee:

* the engine's **permission** for the user: a write of a record or of the schema by ``jarvishub_reader``
  raises ``SecurityException`` (HTTP 403), whatever the statement's form.  This is what the store relies on.
* the ``query`` endpoint's **idempotency check** (``QueryNotIdempotentException``, HTTP 400) refuses plain
  ``CREATE``/``MERGE``/``SET``, but not a write inside ``CALL { … }`` or a write procedure such as
  ``CALL `merge.node`(…)``: as root, those write through the ``query`` endpoint (measured here).  It only gives
  an earlier message.

A database that 26.3 *creates* at run time (``create database``) is opened without the server's security
manager, so no permission applies to it until it is opened again.  :class:`ClusterUserQueries` therefore runs
every user query inside a transaction of the reader's in which a record write by the reader has just been
refused by its permission, and rolls that transaction back afterwards.  A server that lets the write through
is made to reopen the database and checked again; one that still does not refuse gets no user query (another
server is asked, else :class:`CypherWriteRefused`).  The check is made per query, not remembered per server:
a server restarted or resynchronised from the leader since the last query is checked like any other.

Before that, the **probe gate** (:mod:`store.probe_gate`) decides which servers may be asked at all: only one
that is part of the cluster (an agreed leader, or a replica it counts online) and whose probe has passed since it
last started or rejoined.  When none has, the query fails closed with :class:`~store.errors.NoProbedServer`.

Reads go to the leader when one is known and to the replicas it counts online otherwise (or when the leader
does not answer): a read needs no quorum, and each server applies the same users file.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import time
import urllib.error
from collections.abc import Callable, Iterable
from typing import Any

from store.base import QueryResult
from store.cypher import words
from store.errors import CypherError, CypherSyntaxError, CypherWriteRefused, EngineUnavailable, QueryTimeout
from store.leader import ClusterMember, LeaderTracker, http_exchange
from store.probe_gate import ProbeGate

_ELEMENT_MARKERS = ("@rid", "@cat")
_RID = re.compile(r"#\d+:\d+")
_PATH_TEXT = re.compile(r"^\(#\d+:\d+\)(?:<?-\[#\d+:\d+\]->?\(#\d+:\d+\))*$")
_PROBE_TYPE = "CanvasMeta"
_log = logging.getLogger(__name__)
_CLAUSE_END = {"ORDER", "SKIP", "LIMIT", "UNION"}


class ClusterUserQueries:
    """Runs user Cypher on one of the cluster's servers as the read-only account, over HTTP."""

    def __init__(
        self,
        tracker: LeaderTracker,
        reader_auth: tuple[str, str],
        *,
        reopen: Callable[[ClusterMember, str], None],
        statement_timeout_s: float = 30.0,
    ) -> None:
        self._tracker = tracker
        self._statement_timeout_s = statement_timeout_s
        self._auth = reader_auth
        self._reopen = reopen
        self.gate = ProbeGate(tracker, self._probe)
        """Which servers may answer: probed since they last started or rejoined (``store/probe_gate.py``)."""

    # -- where ---------------------------------------------------------------------
    def _candidates(self) -> list[ClusterMember]:
        leader = self._tracker.known_leader
        members = self._tracker.members
        return ([leader] if leader is not None else []) + [m for m in members if m != leader]

    # -- the guarantee ---------------------------------------------------------------
    def refuses_writes(self, member: ClusterMember, database: str) -> bool:
        """Whether ``member`` refuses a record write by the reader in ``database`` (its permission, not a parser);
        :class:`EngineUnavailable` when the server answers neither way.

        The write is made in a transaction of its own that is rolled back, so it leaves nothing even where the
        server does not refuse it.
        """
        with _ReaderTransaction(member, self._auth, database) as tx:
            return tx.refuses_writes()

    def _probe(self, member: ClusterMember, database: str) -> bool:
        """The gate's probe: ``member`` refuses the reader's write on ``database``, reopening it once if not."""
        if self.refuses_writes(member, database):
            return True
        _log.warning("ArcadeDB server %s did not refuse the read-only account's write on %s (role %s); reopening "
                     "the database", member.name, database, self._role(member))
        self._reopen(member, database)
        return self.refuses_writes(member, database)

    def _checked_transaction(self, member: ClusterMember, database: str) -> _ReaderTransaction:
        """A reader transaction on ``member`` in which a write by the reader was just refused by its permission.

        The check runs in the very transaction the user query then runs in, before every query: a server that
        was restarted, resynchronised from the leader or had the database created anew since the last query
        is checked again without anyone having to notice that it was.  A server that does not refuse is made to
        reopen the database once (26.3 opens a database it created without its security manager); if it still
        does not refuse, :class:`_NotEnforced` says so and the caller uses another server.
        """
        for attempt in (1, 2):
            tx = _ReaderTransaction(member, self._auth, database).begin()
            try:
                if tx.refuses_writes():
                    return tx
            except BaseException:
                tx.rollback()
                raise
            tx.rollback()
            if attempt == 1:
                _log.warning("ArcadeDB server %s did not refuse the read-only account's write on %s (role %s); "
                             "reopening the database", member.name, database, self._role(member))
                self._reopen(member, database)
        _log.error("ArcadeDB server %s still does not refuse the read-only account's write on %s after a reopen "
                   "(role %s); no user query goes there", member.name, database, self._role(member))
        raise _NotEnforced(member.name)

    def _role(self, member: ClusterMember) -> str:
        view = self._tracker.view(member)
        return "unknown" if view is None else f"{view.role or 'none'}, leader {view.leader}"

    # -- the query -------------------------------------------------------------------
    def run(self, database: str, cypher: str, params: dict[str, Any], timeout_s: float, row_limit: int) -> QueryResult:
        """Run ``cypher`` on the first server that answers and refuses the reader's writes; others are skipped."""
        started = time.perf_counter()
        try:
            json.dumps(params)
        except (TypeError, ValueError) as error:
            raise CypherError(f"query parameters must be JSON values (strings, numbers, lists, maps): {error}") from error
        payload = {"language": "cypher", "command": cypher, "params": params, "limit": row_limit + 1}
        unreachable: list[str] = []
        unenforced: list[str] = []
        for member in self.gate.admitted(database, self._candidates()):
            try:
                tx = self._checked_transaction(member, database)
            except _NotEnforced:
                self.gate.forget(member.name)  # it passed its probe, and no longer refuses: probed again next time
                unenforced.append(member.name)
                continue
            except (OSError, EngineUnavailable) as error:  # not answering (a timeout is an OSError too)
                unreachable.append(f"{member.name} ({error})")
                continue
            try:
                # Waiting as long as the engine's statement timeout keeps the project's query slot taken while the
                # server may still be working (closing the connection does not stop it); the caller itself gets
                # QueryTimeout at ``timeout_s`` from the store.
                status, body = tx.send("query", payload, timeout=max(timeout_s, self._statement_timeout_s) + 1.0)
            except (socket.timeout, TimeoutError) as error:
                tx.rollback(timeout=1.0)
                raise QueryTimeout(f"query ran past its {timeout_s:g} s limit on server {member.name}") from error
            except (urllib.error.URLError, ConnectionError) as error:
                tx.rollback(timeout=1.0)
                unreachable.append(f"{member.name} ({error})")
                continue
            # Rolled back whatever it was: a read has nothing to keep, and a write the permission somehow let
            # through is not committed either (schema changes are not transactional: the permission stops those).
            tx.rollback()
            if status >= 400:
                raise _typed_error(status, body)
            rows = [self._row(record, cypher) for record in body.get("result") or []]
            self._resolve_elements(member, database, rows)
            truncated = len(rows) > row_limit
            rows = rows[:row_limit]
            columns = list(rows[0]) if rows else []
            return QueryResult(columns=columns, rows=rows, truncated=truncated,
                               elapsed_ms=(time.perf_counter() - started) * 1000)
        if unenforced:
            raise CypherWriteRefused(
                f"ArcadeDB server(s) {', '.join(unenforced)} do not enforce the read-only account on {database}, "
                "even after reopening it, and no other server answered; user queries are refused until they do "
                "(restart those servers)" + (f"; unreachable: {'; '.join(unreachable)}" if unreachable else "")
            )
        raise EngineUnavailable("no ArcadeDB server of the cluster answered the query: " + "; ".join(unreachable))

    @staticmethod
    def _row(record: Any, cypher: str) -> dict[str, Any]:
        """One row keyed by column.  ArcadeDB answers a one-column row holding a node or relationship with the
        element alone, without its column's name; the name is then the RETURN item's alias (or its text)."""
        if isinstance(record, dict) and any(marker in record for marker in _ELEMENT_MARKERS):
            return {_single_column(cypher): record}
        return dict(record) if isinstance(record, dict) else {_single_column(cypher): record}

    def _resolve_elements(self, member: ClusterMember, database: str, rows: list[dict[str, Any]]) -> None:
        """Nodes, relationships and paths in the shape the Bolt path gives (``store.bolt.user_queries._plain``): a node's
        labels and properties, a relationship's type, endpoints' ``id`` and properties, a path's both lists."""
        rids = set()
        for row in rows:
            for value in row.values():
                rids.update(_rids_needed(value))
        records: dict[str, dict[str, Any]] = {}
        if rids:
            literal = ", ".join(sorted(rids))  # each matched _RID: nothing but '#', digits and ':'
            status, body, _ = http_exchange(member, self._auth, f"/api/v1/query/{database}",
                                            {"language": "sql", "command": f"SELECT FROM [{literal}]"}, timeout=30.0)
            if status < 400:
                records = {r["@rid"]: r for r in body.get("result") or [] if isinstance(r, dict) and "@rid" in r}
        for row in rows:
            for key, value in row.items():
                row[key] = _plain(value, records)


class _NotEnforced(Exception):
    """A server that does not refuse the reader's writes on a database, even after reopening it."""


class _ReaderTransaction:
    """One HTTP transaction of the read-only account on one server: begun, used, and always rolled back."""

    def __init__(self, member: ClusterMember, auth: tuple[str, str], database: str) -> None:
        self.member = member
        self._auth = auth
        self._database = database
        self._session: dict[str, str] = {}

    def begin(self) -> _ReaderTransaction:
        status, _, headers = http_exchange(self.member, self._auth, f"/api/v1/begin/{self._database}",
                                           {"isolationLevel": "READ_COMMITTED"}, timeout=10.0)
        session = headers.get("arcadedb-session-id") or headers.get("Arcadedb-Session-Id")
        if status >= 400 or not session:
            raise EngineUnavailable(f"ArcadeDB server {self.member.name} would not begin a transaction for the "
                                    f"read-only account on {self._database} (HTTP {status})")
        self._session = {"arcadedb-session-id": session}
        return self

    def send(self, endpoint: str, payload: dict[str, Any], *, timeout: float) -> tuple[int, dict[str, Any]]:
        """One statement in this transaction through ``/api/v1/<endpoint>``: its status and body."""
        status, body, _ = http_exchange(self.member, self._auth, f"/api/v1/{endpoint}/{self._database}", payload,
                                        timeout=timeout, headers=self._session)
        return status, body

    def refuses_writes(self) -> bool:
        """Whether a record insert by the reader is refused here for want of permission; :class:`EngineUnavailable`
        when the answer is neither a refusal nor a write (the check then says nothing)."""
        status, body = self.send("command", {"language": "sql", "command":
                                             f"INSERT INTO {_PROBE_TYPE} SET key = 'reader-permission-probe'"},
                                 timeout=10.0)
        if status == 403 and "SecurityException" in str(body.get("exception")):
            return True
        if status < 400:
            return False
        raise EngineUnavailable(f"ArcadeDB server {self.member.name} could not check the read-only account on "
                                f"{self._database}: HTTP {status} {body.get('detail') or body.get('error')}")

    def rollback(self, *, timeout: float = 10.0) -> None:
        """Roll back; a server that went away (or is still busy with a timed-out query) drops it by itself."""
        if not self._session:
            return
        try:
            http_exchange(self.member, self._auth, f"/api/v1/rollback/{self._database}", {}, timeout=timeout,
                          headers=self._session)
        except OSError:
            pass
        self._session = {}

    def __enter__(self) -> _ReaderTransaction:
        return self.begin()

    def __exit__(self, *exc: object) -> None:
        self.rollback()


def _single_column(cypher: str) -> str:
    """The column name of a query's last RETURN with one item: its alias, else the item's first name."""
    tokens = words(cypher)
    depth, start = 0, None
    for index, token in enumerate(tokens):
        if token in "({":
            depth += 1
        elif token in ")}":
            depth -= 1
        elif depth == 0 and token.upper() == "RETURN":
            start = index + 1
    if start is None:
        return "value"
    item = [t for t in tokens[start:] if t.upper() != "DISTINCT"]
    for index, token in enumerate(item):
        if token.upper() in _CLAUSE_END:
            item = item[:index]
            break
    for index, token in enumerate(item[:-1]):
        if token.upper() == "AS":
            return item[index + 1]
    return item[0] if item else "value"


def _rids_needed(value: Any) -> Iterable[str]:
    if isinstance(value, dict):
        if value.get("@cat") == "e":
            yield from (value[end] for end in ("@out", "@in") if isinstance(value.get(end), str))
        for inner in value.values():
            yield from _rids_needed(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _rids_needed(inner)
    elif isinstance(value, str) and _PATH_TEXT.match(value):
        yield from _RID.findall(value)


def _plain(value: Any, records: dict[str, dict[str, Any]]) -> Any:
    if isinstance(value, dict):
        category = value.get("@cat")
        props = {k: _plain(v, records) for k, v in value.items() if not k.startswith("@")}
        if category == "v":
            return {"labels": [value.get("@type")], **props}
        if category == "e":
            start, end = records.get(value.get("@out", "")), records.get(value.get("@in", ""))
            return {"type": value.get("@type"), "start": start.get("id") if start else None,
                    "end": end.get("id") if end else None, **props}
        return props
    if isinstance(value, list):
        return [_plain(v, records) for v in value]
    if isinstance(value, str) and _PATH_TEXT.match(value):
        parts = [records.get(rid) for rid in _RID.findall(value)]
        if all(part is not None for part in parts):
            elements = [_plain(part, records) for part in parts]
            return {"nodes": elements[0::2], "relationships": elements[1::2]}
    return value


def _typed_error(status: int, body: dict[str, Any]) -> CypherError:
    """ArcadeDB's refusal as the store's typed error, with the engine's own words."""
    exception = str(body.get("exception") or "")
    detail = str(body.get("detail") or body.get("error") or body)
    if status == 403 or "SecurityException" in exception or "is not allowed to" in detail:
        return CypherWriteRefused(f"the engine refused the query for the read-only account: {detail}")
    if "QueryNotIdempotent" in exception:
        return CypherWriteRefused(f"the engine's query API refused a statement that writes: {detail}")
    if "Timeout" in exception or "timeout" in detail.lower():
        return QueryTimeout(f"the engine stopped the query at its time limit: {detail}")
    if "Parsing" in exception or "Syntax" in exception:
        return CypherSyntaxError(f"the engine could not parse the query: {detail}")
    return CypherError(f"the engine refused the query: {detail}")
