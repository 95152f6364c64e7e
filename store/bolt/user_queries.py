"""User and agent Cypher on the engine's read-only account: within the project's query budget, a time limit and a
row limit.  The lexical check (:func:`store.cypher.check_read_only`) only gives a friendly message first; the
account's permissions are the guarantee (docs/DESIGN §4)."""

from __future__ import annotations

import contextlib
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import neo4j
from neo4j.exceptions import ClientError, CypherSyntaxError as DriverSyntaxError, Neo4jError

from store.base import QueryResult
from store.bolt.session import BoltSession
from store.cypher import check_read_only
from store.engine import EngineProfile, UserQueries
from store.errors import CypherError, CypherSyntaxError, CypherWriteRefused, QueryTimeout
from store.locks import ProjectLocks, QueryBudget


class UserCypher(BoltSession):
    """:meth:`query`: read-only Cypher written by a person or the agent."""

    _user_queries: UserQueries | None
    _locks: ProjectLocks | None
    _profile: EngineProfile
    _query_pool: ThreadPoolExecutor

    def query(
        self, cypher: str, params: dict[str, Any] | None = None, *, timeout_s: float = 10.0, row_limit: int = 1000,
        budget: QueryBudget = "user",
    ) -> QueryResult:
        """Run user Cypher on the engine's read-only account, within the project's query budget.

        ``budget`` says whose query it is: a person's (refused with QueryBusy when the user slots are taken)
        or the agent's (``query_canvas``: it waits in line for a slot of the agent's own budget).  The lexical
        check only gives a friendly message early; the account's permissions are the guarantee.
        """
        check_read_only(cypher)
        slot = self._locks.query_slot(budget=budget) if self._locks else contextlib.nullcontext(0)
        slot.__enter__()  # a person's query: QueryBusy at once when the budget is spent; the agent's: it queues
        try:
            future = self._query_pool.submit(self._run_user_query, cypher, dict(params or {}), timeout_s, row_limit)
        except BaseException:
            slot.__exit__(None, None, None)
            raise
        # The slot is given back when the engine is done with the query, not when we stop waiting: an
        # abandoned query still runs on the engine until its statement timeout ends it.
        future.add_done_callback(lambda _: slot.__exit__(None, None, None))
        try:
            return future.result(timeout=timeout_s)
        except FutureTimeout as error:
            raise QueryTimeout(
                f"query ran past its {timeout_s:g} s limit and was abandoned; the engine stops it at its statement "
                "timeout. Narrow the MATCH or add a LIMIT"
            ) from error

    def _run_user_query(
        self, cypher: str, params: dict[str, Any], timeout_s: float, row_limit: int
    ) -> QueryResult:
        if self._user_queries is not None:
            # An engine whose Bolt reader is not enforced (an ArcadeDB 26.3 cluster) runs them its own way.
            return self._user_queries.run(self._database, cypher, params, timeout_s, row_limit)
        started = time.perf_counter()
        with self._reader_session() as session:
            try:
                # EXPLAIN plans without running, on every engine: it surfaces the engine's own
                # syntax message (an explicit transaction on ArcadeDB hides it) and, where the
                # engine reports it faithfully, the query type.
                summary = session.run("EXPLAIN " + cypher, **params).consume()
                if self._profile.explain_reports_query_type:
                    if summary.query_type not in ("r", None):
                        raise CypherWriteRefused(
                            f"the engine classifies this query as '{summary.query_type}', not read-only; "
                            "user Cypher may only read"
                        )
                # Auto-commit on the read-only account: the engine refuses a write before any row comes
                # back (inside an explicit transaction ArcadeDB would only refuse it at commit).  Neo4j
                # kills the query at this timeout; ArcadeDB applies its server-wide statement timeout.
                result = session.run(neo4j.Query(cypher, timeout=timeout_s), params)
                columns = list(result.keys())
                rows: list[dict[str, Any]] = []
                truncated = False
                for record in result:
                    if len(rows) >= row_limit:
                        truncated = True
                        break
                    rows.append({k: _plain(record[k]) for k in columns})
            except DriverSyntaxError as error:
                raise CypherSyntaxError(f"the engine could not parse the query: {error.message}") from error
            except ClientError as error:
                code = (error.code or "").lower()
                if "security" in code or "forbidden" in code:
                    raise CypherWriteRefused(
                        f"the engine refused the query for the read-only account: {error.message}"
                    ) from error
                if "timedout" in code or "timeout" in (error.message or "").lower():
                    raise QueryTimeout(f"the engine stopped the query at its time limit: {error.message}") from error
                if "syntax" in code or "syntax" in (error.message or "").lower():
                    raise CypherSyntaxError(f"the engine could not parse the query: {error.message}") from error
                raise CypherError(f"the engine refused the query: {error.message}") from error
            except Neo4jError as error:
                raise CypherError(f"the query failed on the engine: {error.message}") from error
        return QueryResult(
            columns=columns, rows=rows, truncated=truncated, elapsed_ms=(time.perf_counter() - started) * 1000
        )


def _plain(value: Any) -> Any:
    """Turn driver values (nodes, relationships, paths, temporals) into JSON-able Python."""
    if isinstance(value, neo4j.graph.Node):
        return {"labels": sorted(value.labels), **{k: _plain(v) for k, v in value.items()}}
    if isinstance(value, neo4j.graph.Relationship):
        return {
            "type": value.type,
            "start": value.start_node.get("id") if value.start_node else None,
            "end": value.end_node.get("id") if value.end_node else None,
            **{k: _plain(v) for k, v in value.items()},
        }
    if isinstance(value, neo4j.graph.Path):
        return {"nodes": [_plain(n) for n in value.nodes], "relationships": [_plain(r) for r in value.relationships]}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "iso_format"):
        return value.iso_format()
    return value
