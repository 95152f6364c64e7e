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
manager, so no permission applies to it until it is opened again; :class:`ClusterUserQueries` therefore
checks, once per server and database, that the reader really is refused (a write in a transaction that is
rolled back) and has the server reopen the database when it is not.  It refuses to run user queries on a
server that still does not enforce the account.

Reads go to the leader when one is known and to any other configured server otherwise (or when the leader
does not answer): a read needs no quorum, and each server applies the same users file.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import urllib.error
from collections.abc import Callable, Iterable
from typing import Any

from store.base import QueryResult
from store.cypher import words
from store.errors import CypherError, CypherSyntaxError, CypherWriteRefused, EngineUnavailable, QueryTimeout
from store.leader import ClusterMember, LeaderTracker, http_exchange

_ELEMENT_MARKERS = ("@rid", "@cat")
_RID = re.compile(r"#\d+:\d+")
_PATH_TEXT = re.compile(r"^\(#\d+:\d+\)(?:<?-\[#\d+:\d+\]->?\(#\d+:\d+\))*$")
_PROBE_TYPE = "CanvasMeta"
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
        self._enforced: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

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
        status, _, headers = http_exchange(member, self._auth, f"/api/v1/begin/{database}",
                                           {"isolationLevel": "READ_COMMITTED"}, timeout=10.0)
        session = headers.get("arcadedb-session-id") or headers.get("Arcadedb-Session-Id")
        if status >= 400 or not session:
            raise EngineUnavailable(f"ArcadeDB server {member.name} would not begin a transaction for the "
                                    f"read-only account on {database} (HTTP {status})")
        try:
            status, body, _ = http_exchange(
                member, self._auth, f"/api/v1/command/{database}",
                {"language": "sql", "command": f"INSERT INTO {_PROBE_TYPE} SET key = 'reader-permission-probe'"},
                timeout=10.0, headers={"arcadedb-session-id": session},
            )
        finally:
            http_exchange(member, self._auth, f"/api/v1/rollback/{database}", {}, timeout=10.0,
                          headers={"arcadedb-session-id": session})
        if status == 403 and "SecurityException" in str(body.get("exception")):
            return True
        if status < 400:
            return False
        # Neither refused for want of permission nor written: the check says nothing, so nothing is reopened.
        raise EngineUnavailable(f"ArcadeDB server {member.name} could not check the read-only account on "
                                f"{database}: HTTP {status} {body.get('detail') or body.get('error')}")

    def _require_enforced(self, member: ClusterMember, database: str) -> None:
        key = (member.name, database)
        with self._lock:
            if key in self._enforced:
                return
            if not self.refuses_writes(member, database):
                # 26.3 opened a database it created without its security manager; opening it again applies it.
                self._reopen(member, database)
                if not self.refuses_writes(member, database):
                    raise CypherWriteRefused(
                        f"ArcadeDB server {member.name} does not enforce the read-only account on {database}; "
                        "user queries are refused until it does (restart that server)"
                    )
            self._enforced.add(key)

    def forget(self, member: ClusterMember) -> None:
        """Check ``member`` again before its next query (it went away, and may come back with a fresh database)."""
        with self._lock:
            self._enforced = {key for key in self._enforced if key[0] != member.name}

    # -- the query -------------------------------------------------------------------
    def run(self, database: str, cypher: str, params: dict[str, Any], timeout_s: float, row_limit: int) -> QueryResult:
        """Run ``cypher`` on the first server that answers; a server that cannot be reached is skipped."""
        started = time.perf_counter()
        try:
            json.dumps(params)
        except (TypeError, ValueError) as error:
            raise CypherError(f"query parameters must be JSON values (strings, numbers, lists, maps): {error}") from error
        payload = {"language": "cypher", "command": cypher, "params": params, "limit": row_limit + 1}
        unreachable: list[str] = []
        for member in self._candidates():
            try:
                self._require_enforced(member, database)
            except (OSError, EngineUnavailable) as error:  # not answering (a timeout is an OSError too)
                unreachable.append(f"{member.name} ({error})")
                self.forget(member)
                continue
            try:
                # Waiting as long as the engine's statement timeout keeps the project's query slot taken while the
                # server may still be working (closing the connection does not stop it); the caller itself gets
                # QueryTimeout at ``timeout_s`` from the store.
                status, body, _ = http_exchange(member, self._auth, f"/api/v1/query/{database}", payload,
                                                timeout=max(timeout_s, self._statement_timeout_s) + 1.0)
            except (socket.timeout, TimeoutError) as error:
                raise QueryTimeout(f"query ran past its {timeout_s:g} s limit on server {member.name}") from error
            except (urllib.error.URLError, ConnectionError) as error:
                unreachable.append(f"{member.name} ({error})")
                self.forget(member)
                continue
            if status >= 400:
                raise _typed_error(status, body)
            rows = [self._row(record, cypher) for record in body.get("result") or []]
            self._resolve_elements(member, database, rows)
            truncated = len(rows) > row_limit
            rows = rows[:row_limit]
            columns = list(rows[0]) if rows else []
            return QueryResult(columns=columns, rows=rows, truncated=truncated,
                               elapsed_ms=(time.perf_counter() - started) * 1000)
        raise EngineUnavailable("no ArcadeDB server of the cluster answered the query: " + "; ".join(unreachable))

    @staticmethod
    def _row(record: Any, cypher: str) -> dict[str, Any]:
        """One row keyed by column.  ArcadeDB answers a one-column row holding a node or relationship with the
        element alone, without its column's name; the name is then the RETURN item's alias (or its text)."""
        if isinstance(record, dict) and any(marker in record for marker in _ELEMENT_MARKERS):
            return {_single_column(cypher): record}
        return dict(record) if isinstance(record, dict) else {_single_column(cypher): record}

    def _resolve_elements(self, member: ClusterMember, database: str, rows: list[dict[str, Any]]) -> None:
        """Nodes, relationships and paths in the shape the Bolt path gives (``store.neo4j._plain``): a node's
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
