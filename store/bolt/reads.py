"""The canvas store's reads: nodes, neighbours, lineages, history, snapshots and diffs, the commit log, the turns,
and the few batched reads a turn makes (a grant's scope facts, a model call's overview).  One statement each."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from store.base import LineageEntry, Neighbour
from store.bolt.commit_log import CommitLog, last_writes
from store.bolt.live_counts import LiveCounts
from store.bolt.schema import (
    SCOPE_EDGES,
    CanvasOverview,
    EdgeRecord,
    ScopeFacts,
    commit_from_props,
    edge_from,
    edge_from_log,
    edges_from_log,
    lineage_entries,
    live_node,
    rel_pattern,
)
from store.bolt.session import BoltSession
from store.cypher import FixedCypher
from store.engine import CANVAS_META_KEY
from store.errors import NodeNotFound
from store.models import (
    CanvasDiff,
    CanvasEdge,
    CanvasNode,
    CanvasSnapshot,
    CommitRecord,
    Direction,
    EdgeType,
    NodeStatus,
)

_NEAR_HOPS = 3
"""How far a scope check's first statement looks for a root (a shot's image, clip and cut are 1 to 3 hops down);
farther nodes are found by a walk down from the roots (``CanvasReads._descendants_among``)."""


class CanvasReads(BoltSession):
    """Every read of the canvas the store offers (the user's Cypher aside: :mod:`store.bolt.user_queries`)."""

    _live_counts: LiveCounts
    _commit_log: CommitLog

    def commit_for_key(self, idempotency_key: str) -> CommitRecord | None:
        """The commit already applied under this key, if any (a resumed turn checks before re-running)."""
        rows = self._read(
            "MATCH (c:Commit {idempotency_key: $key}) RETURN properties(c) AS c", key=idempotency_key
        )
        return commit_from_props(rows[0]["c"], replayed=True) if rows else None

    def turns(self, thread_id: str | None = None) -> list[dict[str, Any]]:
        """Recorded turns (oldest first) with the ids of the nodes each touched."""
        where = "WHERE t.thread_id = $thread " if thread_id else ""
        rows = self._read(
            f"MATCH (t:Turn) {where}OPTIONAL MATCH (t)-[:TOUCHED]->(n:CanvasNode) "
            "RETURN properties(t) AS t, collect(n.id) AS nodes ORDER BY t.canvas_version",
            **({"thread": thread_id} if thread_id else {}),
        )
        return [{**r["t"], "summary": json.loads(r["t"].get("summary_json") or "{}"), "node_ids": r["nodes"]}
                for r in rows]

    def get_node(self, node_id: str, *, include_deleted: bool = False) -> CanvasNode:
        return self.get_nodes([node_id], include_deleted=include_deleted)[0]

    def get_nodes(self, node_ids: Sequence[str], *, include_deleted: bool = False) -> list[CanvasNode]:
        ids = list(node_ids)
        if not ids:
            return []
        rows = self._read("MATCH (n:CanvasNode) WHERE n.id IN $ids RETURN properties(n) AS p", ids=ids)
        found = {node.id: node for node in (CanvasNode.from_properties(r["p"]) for r in rows)}
        result = []
        for node_id in ids:
            node = found.get(node_id)
            if node is None or (node.deleted and not include_deleted):
                raise NodeNotFound(node_id)
            result.append(node)
        return result

    def neighbours(
        self, node_id: str, edge_types: Sequence[EdgeType] | None = None, direction: Direction = Direction.OUT
    ) -> list[Neighbour]:
        return self.neighbours_of([node_id], edge_types, direction)[node_id]

    def neighbours_of(
        self, node_ids: Sequence[str], edge_types: Sequence[EdgeType] | None = None,
        direction: Direction = Direction.OUT,
    ) -> dict[str, list[Neighbour]]:
        """:meth:`neighbours` of several nodes in one statement; ``NodeNotFound`` for a missing or deleted one."""
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return {}
        pattern = rel_pattern(edge_types)
        arrow = {
            Direction.OUT: f"(a)-[r{pattern}]->(b:CanvasNode)",
            Direction.IN: f"(a)<-[r{pattern}]-(b:CanvasNode)",
            Direction.BOTH: f"(a)-[r{pattern}]-(b:CanvasNode)",
        }[Direction(direction)]
        rows = self._read(
            f"UNWIND $ids AS id MATCH (a:CanvasNode {{id: id}}) OPTIONAL MATCH {arrow} "
            "RETURN id, coalesce(a.deleted, false) AS gone, properties(b) AS b, type(r) AS type, "
            "startNode(r).id AS s, endNode(r).id AS t, properties(r) AS r",
            ids=ids,
        )
        found: dict[str, list[Neighbour]] = {}
        for row in rows:
            if row["gone"]:
                continue
            out = found.setdefault(row["id"], [])
            if row["b"] is None:
                continue
            node = CanvasNode.from_properties(row["b"])
            if not node.deleted:
                out.append(Neighbour(node=node, edge=edge_from(row["type"], row["s"], row["t"], row["r"])))
        for node_id in ids:
            if node_id not in found:
                raise NodeNotFound(node_id)
            found[node_id].sort(key=lambda n: (n.node.created_at, n.node.id))
        return found

    def lineage(
        self,
        node_id: str,
        edge_types: Sequence[EdgeType] | None = None,
        direction: Direction = Direction.OUT,
        max_depth: int | None = None,
    ) -> list[LineageEntry]:
        # Breadth-first, one query per hop: linear in the lineage's size however many
        # paths a diamond-shaped lineage has, which a variable-length pattern is not.
        self.get_node(node_id)
        pattern = rel_pattern(edge_types)
        arrow = f"(a)-[{pattern}]->(b)" if direction == Direction.OUT else f"(a)<-[{pattern}]-(b)"
        if direction == Direction.BOTH:
            arrow = f"(a)-[{pattern}]-(b)"
        seen: dict[str, int] = {node_id: 0}
        frontier = [node_id]
        depth = 0
        found: list[tuple[int, dict[str, Any]]] = []
        with self._session() as session:
            while frontier and (max_depth is None or depth < max_depth):
                depth += 1
                rows = session.run(
                    f"MATCH (a:CanvasNode) WHERE a.id IN $ids MATCH {arrow} WHERE b:CanvasNode "
                    "RETURN DISTINCT properties(b) AS b",
                    ids=frontier,
                ).data()
                frontier = []
                for row in rows:
                    other = row["b"]["id"]
                    if other not in seen:
                        seen[other] = depth
                        frontier.append(other)
                        found.append((depth, row["b"]))
        entries = [LineageEntry(node=CanvasNode.from_properties(p), depth=d) for d, p in found]
        return [e for e in entries if not e.node.deleted]

    def scope_facts(self, node_ids: Sequence[str], roots: Sequence[str], *, settled_ids: Sequence[str] = (),
                    settled_groups: Sequence[str] = ()) -> dict[str, ScopeFacts]:
        """What a grant's checks need of each node: its kind and group, whether it is deleted, and whether it
        derives from one of ``roots`` (a live root reached over outgoing lineage edges).

        Missing ids are absent from the answer.  The lineage edges are the ones a scope's ``descendants_of``
        follows: GENERATED_FROM, REFERENCES, VERSION_OF and IN_GROUP.  One statement answers for every node
        whose root is at most ``_NEAR_HOPS`` away (a version, a clip or a cut of a shot); a node it leaves
        underived is looked for among the roots' descendants, hop by hop (:meth:`_descendants_among`), unless
        the scope holds it whatever its lineage: a root, one of ``settled_ids`` (named by the scope), a member
        of one of ``settled_groups``, or a deleted node (which no scope holds).  A pattern with no hop limit
        enumerated every path: a cut after 90 edits has thousands through its earlier versions, and one check
        took 5 s.
        """
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return {}
        derived = "false AS derived"
        if roots:
            # Any live root among the node's near ancestors, as a pattern inside the row: one row per node.
            derived = (f"size([(n)-[{rel_pattern(SCOPE_EDGES)}*1..{_NEAR_HOPS}]->(r:CanvasNode) "
                       "WHERE r.id IN $roots AND (r.deleted IS NULL OR r.deleted = false) | r.id]) > 0 AS derived")
        rows = self._read(
            "UNWIND $ids AS id MATCH (n:CanvasNode {id: id}) "
            f"RETURN n.id AS id, n.kind AS kind, n.group_id AS group_id, coalesce(n.deleted, false) AS deleted, "
            f"{derived}",
            ids=ids, roots=list(roots),
        )
        facts = {r["id"]: ScopeFacts(group_id=r["group_id"], deleted=bool(r["deleted"]), derived=bool(r["derived"]),
                                     kind=r["kind"] or "") for r in rows}
        settled = {*roots, *settled_ids}
        farther = [node_id for node_id, fact in facts.items() if not fact.derived and not fact.deleted
                   and node_id not in settled and not (fact.group_id and fact.group_id in settled_groups)]
        if roots and farther:
            for node_id in self._descendants_among(roots, farther):
                facts[node_id] = facts[node_id]._replace(derived=True)
        return facts

    def _descendants_among(self, roots: Sequence[str], wanted: Sequence[str]) -> set[str]:
        """Which of ``wanted`` derive from a live root (over the scope's lineage edges, any number of hops): a
        walk down from the roots, one statement per hop, each node once, until all are found or none is left."""
        pattern = rel_pattern(SCOPE_EDGES)
        looking = set(wanted)
        frontier = [r["id"] for r in self._read(
            "UNWIND $ids AS id MATCH (r:CanvasNode {id: id}) WHERE r.deleted IS NULL OR r.deleted = false "
            "RETURN r.id AS id", ids=list(dict.fromkeys(roots)))]
        expanded = set(frontier)
        found: set[str] = set()
        while frontier and not looking <= found:
            rows = self._read(
                f"UNWIND $ids AS id MATCH (b:CanvasNode {{id: id}})<-[{pattern}]-(a:CanvasNode) "
                "RETURN DISTINCT a.id AS id", ids=frontier)
            reached = {r["id"] for r in rows}
            found |= reached & looking
            frontier = sorted(reached - expanded)
            expanded |= reached
        return found

    def edge_records(self, edge_ids: Sequence[str]) -> dict[str, list[EdgeRecord]]:
        """Every (type, source, target) the edge log holds under each edge id, and whether that edge is live now.

        An edge id names one edge for its whole life, so its endpoints come from the log (indexed by edge id),
        not from the caller: the bridge resolves an unlink by id to the nodes it really touches before it
        issues a ticket.  Ids the log never saw are absent from the answer.
        """
        ids = list(dict.fromkeys(edge_ids))
        if not ids:
            return {}
        rows = self._read(
            "UNWIND $ids AS id MATCH (h:EdgeVersion {edge_id: id}) "
            "RETURN h.edge_id AS id, h.type AS type, h.source AS s, h.target AS t, h.op AS op, "
            "h.canvas_version AS v ORDER BY v",
            ids=ids,
        )
        last: dict[str, dict[tuple[str, str, str], tuple[int, bool]]] = {}
        for row in rows:
            found = last.setdefault(row["id"], {})
            key, version = (row["type"], row["s"], row["t"]), int(row["v"] or 0)
            linked = row["op"] == "link"
            if key in found and found[key][0] == version:
                linked = linked and found[key][1]  # one commit linked and unlinked it: it is not left standing
            found[key] = (version, linked)
        return {edge_id: [EdgeRecord(EdgeType(t), s, tg, live) for (t, s, tg), (_, live) in found.items()]
                for edge_id, found in last.items()}

    def lineages(
        self,
        node_ids: Sequence[str],
        edge_types: Sequence[EdgeType] | None = None,
        direction: Direction = Direction.OUT,
        *,
        max_depth: int | None = None,
        with_start: bool = False,
    ) -> dict[str, list[LineageEntry]]:
        """The lineage of several nodes in one statement: for each, the live nodes reached over ``edge_types``
        (all when None) in ``direction``, nearest first, with their depth in hops, as :meth:`lineage` gives it.
        ``with_start``: each list begins with the start node itself at depth 0 (the caller needs no separate
        read of the nodes); a missing or deleted start node's list is empty.

        One variable-length pattern per start node, each reached node once at its shortest distance.  A
        lineage is a small DAG (versions, references, what a node was generated from), so its paths are few;
        :meth:`lineage` walks hop by hop for the general case.  Missing start nodes get an empty list.
        """
        roots = list(dict.fromkeys(node_ids))
        if not roots:
            return {}
        low = 0 if with_start else 1
        pattern = rel_pattern(edge_types) + f"*{low}.." + ("" if max_depth is None else str(int(max_depth)))
        arrow = {Direction.OUT: f"(a)-[{pattern}]->(b:CanvasNode)", Direction.IN: f"(a)<-[{pattern}]-(b:CanvasNode)",
                 Direction.BOTH: f"(a)-[{pattern}]-(b:CanvasNode)"}[Direction(direction)]
        result: dict[str, list[LineageEntry]] = {root: [] for root in roots}
        if max_depth is not None and max_depth < low:
            return result
        rows = self._read(
            f"UNWIND $ids AS id MATCH (a:CanvasNode {{id: id}}) MATCH p = {arrow} "
            "WITH id, b, min(length(p)) AS depth RETURN id, properties(b) AS b, depth",
            ids=roots,
        )
        return lineage_entries(roots, ((r["id"], int(r["depth"]), r["b"]) for r in rows), with_start=with_start)

    def overview(
        self, focus_ids: Sequence[str], *, max_depth: int, since_version: int | None, recent: int, within: int = 0,
        named: Sequence[str] = (), listed_kind: str | None = None, listed_limit: int = 0,
    ) -> CanvasOverview:
        """What a model call's view reads, in one statement: the focus nodes with their lineages (outgoing edges
        of every type, as :meth:`lineages` with ``with_start``), the live nodes' counts by kind and status, and
        the ``recent`` live nodes written after ``since_version``, most recently written first (each node
        carries the canvas version that last wrote it, so the commit log need not be read); with
        ``since_version`` None, those written in the last ``within`` versions of the canvas as this statement
        reads it, so a caller need not read the version first (it comes back as ``version``).

        The counts are read only when this process does not know them at the canvas's version
        (:class:`~store.bolt.live_counts.LiveCounts`): the canvas version is read before and after them, and
        counts read with no commit in between are kept for the next view.  The recent nodes are read through the
        index on each node's canvas version, from a version given as a parameter (ArcadeDB scans every node for a
        bound it computes, ``m.version - $within``): with ``since_version`` None, from the newest version this
        process has seen less ``within``, a window at least as wide as the one asked for, narrowed here to it.
        Only a process that has seen no version yet computes the bound in the statement.

        ``named``: ids whose titles come back too (``titles``; deleted nodes included), as :meth:`get_nodes` would
        give them, in the same statement (the view names what earlier turns changed).

        ``listed_kind``: the live nodes of that kind come back too (``listed``: id, title, status, oldest first, at
        most ``listed_limit``), for a view that answers "list the slides" itself.

        When this process made every commit in the window and knows what each wrote, the recent nodes are read
        from a floor raised to just under the newest ``recent`` of them (:meth:`CommitLog.recent_floor`), so a
        commit of hundreds of nodes in the window is not read to keep three; if the canvas has moved past what
        those commits cover, the statement is sent again from the window's own floor.
        """
        return self._overview(focus_ids, max_depth=max_depth, since_version=since_version, recent=recent,
                              within=within, named=named, listed_kind=listed_kind, listed_limit=listed_limit,
                              narrow=True)

    def _overview(
        self, focus_ids: Sequence[str], *, max_depth: int, since_version: int | None, recent: int, within: int,
        named: Sequence[str], listed_kind: str | None, listed_limit: int, narrow: bool,
    ) -> CanvasOverview:
        if narrow and not focus_ids and listed_kind is None:
            kept = self._overview_from_own_commits(since_version=since_version, recent=recent, within=within,
                                                   named=named)
            if kept is not None:
                return kept
        live = "(n.deleted IS NULL OR n.deleted = false)"
        known = self._live_counts.known_version()
        seen = self._live_counts.seen_version()
        floor = since_version if since_version is not None else (seen - int(within) if seen >= 0 else None)
        raised = self._commit_log.recent_floor(floor, int(recent)) if narrow and floor is not None else None
        rows = self._read(
            "MATCH (m:CanvasMeta {key: $meta}) "
            "RETURN 'version' AS part, null AS key, null AS status, m.version AS num, null AS p "
            # WITH ... WHERE, not MATCH ... WHERE: ArcadeDB then skips the count when the counter says the counts are
            # known (with the filter on the MATCH it still scanned the canvas, ~5 ms of a 1k-node turn's overview).
            "UNION ALL MATCH (m:CanvasMeta {key: $meta}) WITH m WHERE m.version <> $known "
            f"MATCH (n:CanvasNode) WHERE {live} "
            "RETURN 'count' AS part, n.kind AS key, n.status AS status, count(n) AS num, null AS p "
            # The recent nodes by the canvas version each node carries (indexed), not through the node history,
            # which grows with every edit.
            "UNION ALL MATCH (m:CanvasMeta {key: $meta}) "
            + (f"MATCH (n:CanvasNode) WHERE n.canvas_version > $floor AND {live} " if floor is not None else
               f"MATCH (n:CanvasNode) WHERE n.canvas_version > m.version - $within AND {live} ") +
            "WITH n ORDER BY n.canvas_version DESC, n.id LIMIT $recent "
            "RETURN 'recent' AS part, null AS key, null AS status, null AS num, properties(n) AS p "
            "UNION ALL UNWIND $ids AS id MATCH (a:CanvasNode {id: id}) "
            f"MATCH path = (a)-[{rel_pattern(None)}*0..{int(max_depth)}]->(b:CanvasNode) "
            "WITH id, b, min(length(path)) AS depth "
            "RETURN 'lineage' AS part, id AS key, null AS status, depth AS num, properties(b) AS p "
            "UNION ALL MATCH (m:CanvasMeta {key: $meta}) "
            "RETURN 'version after' AS part, null AS key, null AS status, m.version AS num, null AS p"
            # A named node's title rides in the status column (the parts share their columns).  The named and
            # listed parts are always in the text, empty when not asked for (no ids, no kind): a statement's parse
            # is cached by its exact text, and a fresh engine parsed each variant cold (25-40 ms each, on the
            # turn that first needed it).
            " UNION ALL UNWIND $named AS nid MATCH (c:CanvasNode {id: nid}) "
            "RETURN 'named' AS part, c.id AS key, c.title AS status, null AS num, null AS p"
            f" UNION ALL MATCH (l:CanvasNode) WHERE l.kind = $listed_kind AND {live.replace('n.', 'l.')} "
            "WITH l ORDER BY l.created_at, l.id LIMIT $listed_limit "
            "RETURN 'listed' AS part, l.id AS key, l.status AS status, null AS num, {title: l.title} AS p",
            floor=floor if raised is None else raised[0], within=int(within), recent=int(recent),
            ids=list(dict.fromkeys(focus_ids)),
            meta=CANVAS_META_KEY, known=known, named=list(dict.fromkeys(named)), listed_kind=listed_kind,
            listed_limit=int(listed_limit) if listed_kind else 1,
        )
        version = next((int(r["num"]) for r in rows if r["part"] == "version"), None)
        if raised is not None and version != raised[1]:  # another writer's commit since: the whole window
            return self._overview(focus_ids, max_depth=max_depth, since_version=since_version, recent=recent,
                                  within=within, named=named, listed_kind=listed_kind, listed_limit=listed_limit,
                                  narrow=False)
        if version is not None:
            if since_version is None and floor is not None and floor > version - int(within):
                # The canvas is older than a version this process saw (a database made again): read its window.
                return self.overview(focus_ids, max_depth=max_depth, since_version=max(0, version - int(within)),
                                     recent=recent, named=named, listed_kind=listed_kind, listed_limit=listed_limit)
            self._live_counts.saw(version)
        counts: list[tuple[str, str, int]] | None
        if version is None:
            counts = None  # no canvas counter to know them by: counted below
        elif version == known:
            counts = self._live_counts.at(version)  # None: a commit of this process moved them meanwhile
        else:
            counts = sorted((r["key"], r["status"], int(r["num"])) for r in rows if r["part"] == "count")
            if version is not None and version == next(int(r["num"]) for r in rows if r["part"] == "version after"):
                self._live_counts.counted(version, counts)
        if counts is None:
            counts = self.live_counts()
        latest = [CanvasNode.from_properties(r["p"]) for r in rows if r["part"] == "recent"]
        if since_version is None and version is not None:  # the window read may be wider than the one asked for
            latest = [n for n in latest if (n.canvas_version or 0) > version - int(within)]
        lineages = lineage_entries(list(dict.fromkeys(focus_ids)),
                                    ((r["key"], int(r["num"]), r["p"]) for r in rows if r["part"] == "lineage"),
                                    with_start=True)
        titles = {r["key"]: r["status"] for r in rows if r["part"] == "named"} if named else None
        listed = [(r["key"], (r["p"] or {}).get("title"), r["status"]) for r in rows if r["part"] == "listed"] \
            if listed_kind else None
        return CanvasOverview(lineages=lineages, counts=counts, recent=latest, version=version, titles=titles,
                              listed=listed)

    def _overview_from_own_commits(self, *, since_version: int | None, recent: int, within: int,
                                   named: Sequence[str]) -> CanvasOverview | None:
        """The overview of a view with no focus and no list, from what this process's own commits wrote, when they
        are every commit of its window and the canvas is still at the newest of them: one read of the canvas
        version instead of the overview statement.  None when it cannot be answered so (the statement then reads
        it).

        Why: in a long session in one process (the web canvas, ``jarvishub chat``, an evaluation) most turns follow
        this process's own: a note, a question, a status.  Their view's counts are known (:class:`LiveCounts`),
        and every node written in the window, with its title and status as the commit left it, is in the commit
        log; only another writer's commit can have changed what the statement would read, and it moves the
        version past the newest of ours.  The answer is the statement's: the live nodes last written after the
        window's floor, newest first (then by id), and the titles of the named nodes (deleted ones too; removed
        ones left out), a named node not written in the run meaning the statement is sent.
        """
        run = self._commit_log.own_run()
        if not run:
            return None
        newest = run[-1].canvas_version
        floor = since_version if since_version is not None else newest - int(within)
        if max(floor, 0) < run[0].canvas_version - 1 or self._live_counts.known_version() != newest:
            return None  # a commit in the window is not ours, or the counts are not known at the newest
        last_write = {node_id: node for node_id, (_, node) in last_writes(run).items()}  # as our last write left it
        if any(node_id not in last_write for node_id in named):
            return None
        counts = self._live_counts.at(newest)
        if counts is None or self.canvas_version() != newest:
            return None  # another writer committed after our newest: the statement reads what it changed
        self._live_counts.saw(newest)
        latest = sorted((n for n in last_write.values() if n is not None and not n.deleted
                         and (n.canvas_version or 0) > floor), key=lambda n: (-(n.canvas_version or 0), n.id))
        titles = {i: n.title for i in dict.fromkeys(named) if (n := last_write[i]) is not None} if named else None
        kept = [n.model_copy(deep=True) for n in latest[:int(recent)]]  # copies: the log's records stay as written
        return CanvasOverview(lineages={}, counts=counts, recent=kept, version=newest, titles=titles, listed=None)

    def live_counts(self) -> list[tuple[str, str, int]]:
        """The live nodes' counts by kind and status, counted on the canvas (sorted)."""
        rows = self._read("MATCH (n:CanvasNode) WHERE n.deleted IS NULL OR n.deleted = false "
                          "RETURN n.kind AS kind, n.status AS status, count(n) AS num")
        return sorted((r["kind"], r["status"], int(r["num"])) for r in rows)

    def titled(self, groups: Sequence[Sequence[str]], *, limit: int = 3) -> tuple[int, list[list[str]]]:
        """The canvas version and, per group of spellings of a title, the ids of the live, not rejected nodes
        with one of those exact titles, newest version first, at most ``limit`` each: one statement (title index).
        """
        titles = sorted({t for group in groups for t in group})
        by_title = ("UNION ALL MATCH (n:CanvasNode) WHERE n.title IN $titles AND (n.deleted IS NULL OR n.deleted = false) "
                    "AND n.status <> 'rejected' "
                    "RETURN null AS v, n.id AS id, n.title AS title, n.version AS ver, n.created_at AS at")
        rows = self._read(
            "MATCH (m:CanvasMeta {key: $key}) RETURN m.version AS v, null AS id, null AS title, null AS ver, null AS at "
            + (by_title if titles else ""),
            key=CANVAS_META_KEY, titles=titles,
        )
        version = next((int(r["v"]) for r in rows if r["v"] is not None), 0)
        found = sorted((r for r in rows if r["id"] is not None), key=lambda r: (int(r["ver"] or 0), r["at"] or ""),
                       reverse=True)
        return version, [[r["id"] for r in found if r["title"] in set(group)][:limit] for group in groups]

    def find_nodes(
        self,
        *,
        kind: str | None = None,
        status: NodeStatus | None = None,
        group_id: str | None = None,
        include_deleted: bool = False,
        limit: int | None = None,
    ) -> list[CanvasNode]:
        conditions = []
        params: dict[str, Any] = {}
        if kind is not None:
            conditions.append("n.kind = $kind")
            params["kind"] = kind
        if status is not None:
            conditions.append("n.status = $status")
            params["status"] = NodeStatus(status).value
        if group_id is not None:
            conditions.append("n.group_id = $group_id")
            params["group_id"] = group_id
        if not include_deleted:
            conditions.append("(n.deleted IS NULL OR n.deleted = false)")
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        tail = " LIMIT $limit" if limit is not None else ""
        if limit is not None:
            params["limit"] = int(limit)
        rows = self._read(
            f"MATCH (n:CanvasNode) {where} RETURN properties(n) AS p ORDER BY n.created_at, n.id{tail}", **params
        )
        return [CanvasNode.from_properties(r["p"]) for r in rows]

    def artifact_graph(self) -> tuple[list[CanvasNode], list[CanvasEdge]]:
        """The live nodes that have files, and every VERSION_OF and GENERATED_FROM edge, in one statement: what
        ``outputs/`` is planned from (a commit that touches files re-plans it), without reading the whole canvas."""
        rows = self._read(
            "MATCH (n:CanvasNode) WHERE (n.deleted IS NULL OR n.deleted = false) AND n.outputs_json <> '[]' "
            "RETURN properties(n) AS p, null AS type, null AS s, null AS t "
            "UNION ALL MATCH (a:CanvasNode)-[r:VERSION_OF|GENERATED_FROM]->(b:CanvasNode) "
            "RETURN properties(r) AS p, type(r) AS type, a.id AS s, b.id AS t"
        )
        nodes = sorted((CanvasNode.from_properties(r["p"]) for r in rows if r["type"] is None),
                       key=lambda n: (n.created_at, n.id))
        edges = sorted((edge_from(r["type"], r["s"], r["t"], r["p"]) for r in rows if r["type"] is not None),
                       key=lambda e: (e.canvas_version, e.id))
        return nodes, edges

    def output_graph(self, kinds: Sequence[str],
                     edge_types: Sequence[EdgeType]) -> tuple[list[CanvasNode], list[tuple[EdgeType, str, str]]]:
        """The live nodes of these kinds (oldest first) and every edge of these types as (type, source, target), in
        one statement: what an evaluation tells outputs apart by (``jarvishub.evaluation.outputs``), which reads it
        before and after every turn.  Every node and every edge with its properties, in two statements, took 1.3
        times as long (a 385-node canvas with 1,196 edges: 379 ms against 317 ms, medians of 7 alternated reads)."""
        typed = "|".join(EdgeType(t).value for t in edge_types)  # the enum's own names, never a caller's words
        rows = self._read(
            "MATCH (n:CanvasNode) WHERE n.kind IN $kinds AND (n.deleted IS NULL OR n.deleted = false) "
            "RETURN properties(n) AS p, null AS type, null AS s, null AS t, null AS v, null AS i "
            f"UNION ALL MATCH (a:CanvasNode)-[r:{typed}]->(b:CanvasNode) "
            "RETURN null AS p, type(r) AS type, a.id AS s, b.id AS t, r.canvas_version AS v, r.id AS i",
            kinds=sorted(kinds),
        )
        nodes = sorted((CanvasNode.from_properties(r["p"]) for r in rows if r["type"] is None),
                       key=lambda n: (n.created_at, n.id))
        edges = sorted((r for r in rows if r["type"] is not None), key=lambda r: (int(r["v"] or 0), r["i"] or ""))
        return nodes, [(EdgeType(r["type"]), r["s"], r["t"]) for r in edges]  # in the order edges() gives

    def edges(self, node_ids: Sequence[str] | None = None,
              edge_types: Sequence[EdgeType] | None = None) -> list[CanvasEdge]:
        # The types are the enum's own names, never a caller's words: safe to write into the pattern.
        typed = ":" + "|".join(EdgeType(t).value for t in edge_types) if edge_types else ""
        if node_ids is None:
            rows = self._read(
                f"MATCH (a:CanvasNode)-[r{typed}]->(b:CanvasNode) "
                "RETURN type(r) AS type, a.id AS s, b.id AS t, properties(r) AS r"
            )
        else:
            # From each id's node, out and in (the id index): ``a.id IN $ids OR b.id IN $ids`` read every edge.
            # The node found by id is written first in both patterns: ``(a)-[r]->(b {id: id})`` made ArcadeDB walk
            # every edge for each id (600 ids of a 100-turn film: 9.9 s, against 0.15 s written this way).
            rows = self._read(
                f"UNWIND $ids AS id MATCH (a:CanvasNode {{id: id}})-[r{typed}]->(b:CanvasNode) "
                "RETURN type(r) AS type, a.id AS s, b.id AS t, properties(r) AS r "
                f"UNION ALL UNWIND $ids AS id MATCH (b:CanvasNode {{id: id}})<-[r{typed}]-(a:CanvasNode) "
                "RETURN type(r) AS type, a.id AS s, b.id AS t, properties(r) AS r",
                ids=list(dict.fromkeys(node_ids)),
            )
            # An edge between two of the ids comes once from each end.
            rows = list({(r["type"], r["s"], r["t"], r["r"].get("id")): r for r in rows}.values())
        return sorted(
            (edge_from(r["type"], r["s"], r["t"], r["r"]) for r in rows), key=lambda e: (e.canvas_version, e.id)
        )

    def node_history(self, node_id: str) -> list[CanvasNode]:
        rows = self._read(
            "MATCH (h:NodeVersion {node_id: $id}) RETURN h.snapshot_json AS s ORDER BY h.canvas_version",
            id=node_id,
        )
        if not rows:
            raise NodeNotFound(node_id)
        return [CanvasNode.model_validate_json(r["s"]) for r in rows]

    def node_histories(self, node_ids: Sequence[str]) -> dict[str, list[CanvasNode]]:
        """:meth:`node_history` of several nodes in one statement (deleted ones included; a missing id maps to
        an empty list): every stored state of each, oldest first, for reading an output's versions."""
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return {}
        rows = self._read(
            "MATCH (h:NodeVersion) WHERE h.node_id IN $ids "
            "RETURN h.node_id AS id, h.canvas_version AS cv, h.snapshot_json AS s ORDER BY h.canvas_version",
            ids=ids,
        )
        found: dict[str, list[CanvasNode]] = {i: [] for i in ids}
        for row in rows:
            found[row["id"]].append(CanvasNode.model_validate_json(row["s"]))
        return found

    def snapshot(self, canvas_version: int | None = None) -> CanvasSnapshot:
        current = self.canvas_version()
        version = current if canvas_version is None else min(int(canvas_version), current)
        with self._session() as session:
            node_rows = session.run(
                "MATCH (h:NodeVersion) WHERE h.canvas_version <= $v "
                "RETURN h.node_id AS id, h.canvas_version AS cv, h.snapshot_json AS s, h.op AS op",
                v=version,
            ).data()
            edge_rows = session.run(
                "MATCH (h:EdgeVersion) WHERE h.canvas_version <= $v RETURN properties(h) AS h", v=version
            ).data()
        latest: dict[str, dict[str, Any]] = {}
        for row in node_rows:
            if row["id"] not in latest or row["cv"] > latest[row["id"]]["cv"]:
                latest[row["id"]] = row
        nodes = [
            CanvasNode.model_validate_json(r["s"])
            for r in latest.values()
            if r["op"] != "hard_delete"
        ]
        nodes = [n for n in nodes if not n.deleted]
        alive = {n.id for n in nodes}
        edges = [e for e in edges_from_log([r["h"] for r in edge_rows]) if e.source in alive and e.target in alive]
        nodes.sort(key=lambda n: (n.created_at, n.id))
        return CanvasSnapshot(canvas_version=version, nodes=nodes, edges=edges)

    def diff(self, from_version: int, to_version: int | None = None) -> CanvasDiff:
        to_version = self.canvas_version() if to_version is None else int(to_version)
        with self._session() as session:
            touched = [
                r["id"]
                for r in session.run(
                    "MATCH (h:NodeVersion) WHERE h.canvas_version > $a AND h.canvas_version <= $b "
                    "RETURN DISTINCT h.node_id AS id",
                    a=from_version,
                    b=to_version,
                ).data()
            ]
            history = session.run(
                "MATCH (h:NodeVersion) WHERE h.node_id IN $ids AND h.canvas_version <= $b "
                "RETURN h.node_id AS id, h.canvas_version AS cv, h.snapshot_json AS s, h.op AS op",
                ids=touched,
                b=to_version,
            ).data()
            edge_rows = session.run(
                "MATCH (h:EdgeVersion) WHERE h.canvas_version > $a AND h.canvas_version <= $b "
                "RETURN properties(h) AS h",
                a=from_version,
                b=to_version,
            ).data()
        before: dict[str, tuple[int, dict[str, Any]]] = {}
        after: dict[str, tuple[int, dict[str, Any]]] = {}
        for row in history:
            bucket = before if row["cv"] <= from_version else after
            if row["id"] not in bucket or row["cv"] > bucket[row["id"]][0]:
                bucket[row["id"]] = (row["cv"], row)
        result = CanvasDiff(from_version=from_version, to_version=to_version)
        for node_id in touched:
            old_row = before.get(node_id, (0, None))[1]
            new_row = after[node_id][1]
            old = live_node(old_row)
            new = live_node(new_row)
            if old is None and new is not None:
                result.added_nodes.append(new)
            elif old is not None and new is None:
                result.removed_nodes.append(old)
            elif old is not None and new is not None:
                result.changed_nodes.append((old, new))
        net: dict[str, dict[str, Any]] = {}
        first_op: dict[str, str] = {}
        for row in sorted((r["h"] for r in edge_rows), key=lambda h: h["canvas_version"]):
            first_op.setdefault(row["edge_id"], row["op"])
            net[row["edge_id"]] = row
        for edge_id, row in net.items():
            edge = edge_from_log(row)
            if row["op"] == "link" and first_op[edge_id] == "link":
                result.added_edges.append(edge)
            elif row["op"] == "unlink" and first_op[edge_id] == "unlink":
                result.removed_edges.append(edge)
        return result

    def commits(self, *, since_version: int = 0, limit: int | None = None) -> list[CommitRecord]:
        tail = " LIMIT $limit" if limit is not None else ""
        rows = self._read(
            "MATCH (c:Commit) WHERE c.canvas_version > $v RETURN properties(c) AS c ORDER BY c.canvas_version"
            + tail,
            v=since_version,
            **({"limit": int(limit)} if limit is not None else {}),
        )
        return [commit_from_props(r["c"]) for r in rows]

    def canvas_version(self) -> int:
        rows = self._read("MATCH (m:CanvasMeta {key: $key}) RETURN m.version AS v", key=CANVAS_META_KEY)
        return int(rows[0]["v"]) if rows else 0

    def count_nodes(self, *, by: str = "kind", include_deleted: bool = False) -> dict[str, int]:
        if by not in ("kind", "status"):
            raise ValueError("count_nodes groups by 'kind' or 'status'")
        where = "" if include_deleted else "WHERE n.deleted IS NULL OR n.deleted = false "
        rows = self._read(f"MATCH (n:CanvasNode) {where}RETURN n.{by} AS k, count(n) AS c")
        return {r["k"]: int(r["c"]) for r in rows}

    def fixed_read(self, cypher: FixedCypher, **params: Any) -> list[dict[str, Any]]:
        """Rows of one of JarvisHub's own read statements, outside the user-query budget.

        The layout and the live feed read with fixed Cypher; taking a user-query slot would let a burst of
        user queries stall them.  They run on the read-only account all the same (the engine refuses a
        write), and only a :class:`FixedCypher` is taken, so user text cannot come this way by accident.
        """
        if not isinstance(cypher, FixedCypher):
            raise TypeError("fixed_read runs JarvisHub's own FixedCypher statements; user Cypher goes through query()")
        return self._read(cypher, on=self._reader_session, **params)
