"""Where the offline planner's playbooks find what a request points at: the canvas, or a transcript.

The playbooks (:mod:`nodes.models.edits`, :mod:`nodes.models.workflows`,
:mod:`nodes.models.playbooks`) decide *what* to do from the request grammar; a
:class:`TargetSource` says *which nodes* that is.  The canvas agent's source,
:class:`CanvasTargets`, reads the canvas view and runs read-only Cypher
(``query_canvas``); the chat-history baseline's source
(:class:`nodes.models.transcript.TranscriptTargets`) reads only earlier tool
results in its transcript.  Same playbooks, same tool-call sequences: the
evaluation measures the state representation, not the planner.

Every lookup returns either a :class:`~nodes.models.playbooks.Call` (the source
must make a tool call first; the playbook emits it) or the rows themselves.
"""

from __future__ import annotations

from typing import Any, Protocol

from nodes.models.playbooks import Call, PlannerInput

SHOTS_CYPHER = (
    "MATCH (i:CanvasNode {kind: 'image'})-[:GENERATED_FROM]->(s:CanvasNode {kind: 'shot'}) "
    "WHERE i.status <> 'rejected' AND (i.deleted IS NULL OR i.deleted = false) "
    "AND (s.deleted IS NULL OR s.deleted = false) "
    "OPTIONAL MATCH (s)-[:GENERATED_FROM]->(p:CanvasNode {kind: 'plan'}) "
    "RETURN s.id AS shot, s.title AS title, s.version AS shot_version, s.created_at AS created, "
    "i.id AS image, i.version AS version, i.inputs_json AS inputs, p.id AS plan, p.title AS plan_title "
    # Newest image first per shot: a new version is a new node (its `version` counts its own revisions, so two
    # versions of a shot tied at 1 and "which shots are at night?" read either one), then its own revisions.
    "ORDER BY s.created_at, i.created_at DESC, i.version DESC")
STALE_CYPHER = (
    "MATCH (n:CanvasNode) WHERE n.status = 'stale' AND (n.deleted IS NULL OR n.deleted = false) "
    "RETURN n.id AS id, n.title AS title, n.kind AS kind ORDER BY n.created_at")
PAGE_CYPHER = (
    "MATCH (c:CanvasNode {kind: 'code'}) WHERE c.status <> 'rejected' "
    "AND (c.deleted IS NULL OR c.deleted = false) AND c.inputs_json CONTAINS 'layout' "
    "RETURN c.id AS code ORDER BY c.created_at DESC LIMIT 1")
FOLLOWING_CYPHER = (
    "MATCH (i:CanvasNode {id: $id}) "
    "OPTIONAL MATCH (i)-[:GENERATED_FROM]->(s:CanvasNode {kind: 'shot'}) "
    "OPTIONAL MATCH (d:CanvasNode)-[:GENERATED_FROM]->(i) "
    "WHERE d.status <> 'rejected' AND (d.deleted IS NULL OR d.deleted = false) "
    "RETURN s.id AS shot, d.id AS derived")
KIND_CYPHER = ("MATCH (n:CanvasNode) WHERE n.kind = $kind AND (n.deleted IS NULL OR n.deleted = false) "
               "RETURN n.id AS id, n.title AS title, n.status AS status ORDER BY n.created_at")
VERSIONS_CYPHER = (
    "MATCH (s:CanvasNode {id: $id})<-[:GENERATED_FROM]-(i:CanvasNode {kind: 'image'}) "  # from the id index
    "WHERE i.deleted IS NULL OR i.deleted = false "
    "RETURN i.id AS id, i.title AS title, i.version AS version, i.status AS status ORDER BY i.version")
LAST_TURN_CYPHER = (
    "MATCH (t:Turn) WHERE t.id = $id OPTIONAL MATCH (t)-[:TOUCHED]->(n:CanvasNode) "
    "RETURN t.request AS request, n.id AS id, n.title AS title, n.kind AS kind, n.version AS version, "
    "n.status AS status")
SLIDES_CYPHER = (
    "MATCH (n:CanvasNode {kind: 'slide'}) WHERE n.status <> 'rejected' AND (n.deleted IS NULL OR n.deleted = false) "
    "RETURN n.id AS id, n.title AS title, n.group_id AS deck, n.inputs_json AS inputs ORDER BY n.created_at")
PAGE_COPY_CYPHER = (
    "MATCH (c:CanvasNode {id: $id}) OPTIONAL MATCH (c)-[:VERSION_OF*1..]->(o:CanvasNode) "
    "RETURN c.id AS id, c.title AS title, count(o) + 1 AS version, c.inputs_json AS inputs")
NOTES_CYPHER = ("MATCH (n:CanvasNode) WHERE n.kind = 'text' AND n.status <> 'rejected' "
                "AND (n.deleted IS NULL OR n.deleted = false) "
                "RETURN n.id AS id, n.title AS title, n.inputs_json AS inputs ORDER BY n.created_at")
CUT_CYPHER = (
    "MATCH (k:CanvasNode {kind: 'video'}) WHERE k.status <> 'rejected' AND (k.deleted IS NULL OR k.deleted = false) "
    "AND k.inputs_json CONTAINS 'clip_node_ids' "
    "OPTIONAL MATCH (k)-[:VERSION_OF]->(o:CanvasNode) "
    "OPTIONAL MATCH (k)-[:GENERATED_FROM]->(c:CanvasNode)-[:GENERATED_FROM]->(:CanvasNode {kind: 'image'})"
    "-[:GENERATED_FROM]->(s:CanvasNode {kind: 'shot'}) "
    "RETURN k.id AS cut, k.title AS title, k.inputs_json AS inputs, o.id AS older, c.id AS clip, s.id AS shot, "
    "s.title AS shot_title ORDER BY k.created_at")
"""Every live cut with the cut it is a new version of and the shot of each of its clips (nodes.models.cut_answers)."""
COUNTS_CYPHER = ("MATCH (n:CanvasNode) WHERE n.deleted IS NULL OR n.deleted = false "
                 "RETURN n.kind AS kind, count(n) AS count ORDER BY kind")

Rows = list[dict[str, Any]]


class TargetSource(Protocol):
    """Finds the nodes a request is about; ``where`` names the source in the planner's questions."""

    where: str
    """"on the canvas" or "in my transcript": how a not-found question says where it looked."""
    repairs_in_one_call: bool
    """Whether an edit uses ``repair`` (mark and regenerate in one call) when the grant offers it."""

    def shots(self, p: PlannerInput) -> Call | Rows:
        """Shot rows (shot, title, image, version, inputs, plan, plan_title), newest image version first per shot."""

    def edit_rows(self, p: PlannerInput) -> Call | Rows:
        """The rows of :meth:`shots` an edit of the intent's targets needs (its targets' current images)."""

    def stale(self, p: PlannerInput) -> Call | Rows:
        """Stale nodes (id, title, kind)."""

    def page(self, p: PlannerInput) -> Call | str | None:
        """The current code node of the web page, or None when there is none."""

    def following(self, p: PlannerInput, image_id: str) -> Call | Rows:
        """Rows (shot, derived): the shot an image was drawn for, and what was made directly from the image."""

    def focus(self, p: PlannerInput) -> Rows:
        """Nodes the request names or the person selected (``focus: True``), and their context."""

    def listing(self, p: PlannerInput, kind: str | None) -> Call | Rows:
        """Nodes of a kind (id, title, status), or with no kind the count per kind (kind, count)."""

    def versions(self, p: PlannerInput, shot_id: str) -> Call | Rows | None:
        """Every version of a shot's image (id, title, version, status); None when the source cannot tell."""

    def last_turn(self, p: PlannerInput, turn_id: str) -> Call | Rows | None:
        """What a turn changed (request, id, title, kind, version, status); None when the source cannot tell."""

    def slides(self, p: PlannerInput) -> Call | Rows | None:
        """Current slides (id, title, deck, inputs)."""

    def notes(self, p: PlannerInput) -> Call | Rows | None:
        """Text nodes (id, title, inputs: a note's words are ``inputs.text``)."""

    def page_copy(self, p: PlannerInput, code_id: str) -> Call | Rows | None:
        """The current page's code node (id, title, version: its number in the page's lineage, inputs)."""

    def cuts(self, p: PlannerInput) -> Call | Rows | None:
        """Every live cut (cut, title, inputs, older, clip, shot, shot_title: :data:`CUT_CYPHER`'s rows); None when
        the source cannot tell."""


def _rows_of(p: PlannerInput, cypher: str, params: dict[str, Any] | None = None) -> Rows | None:
    lookups = [c for c in p.made("query_canvas") if c.args.get("cypher") == cypher
               and (c.args.get("params") or None) == (params or None)]
    return (lookups[0].observation.get("rows") or []) if lookups else None


class CanvasTargets:
    """The canvas agent's source: the view for what the request names, read-only Cypher for the rest."""

    where = "on the canvas"
    repairs_in_one_call = True

    def _query(self, p: PlannerInput, cypher: str, params: dict[str, Any] | None = None) -> Call | Rows:
        rows = _rows_of(p, cypher, params)
        if rows is None:
            return Call("query_canvas", {"cypher": cypher, **({"params": params} if params else {})})
        return rows

    def shots(self, p: PlannerInput) -> Call | Rows:
        return self._query(p, SHOTS_CYPHER)

    def edit_rows(self, p: PlannerInput) -> Call | Rows:
        """The intent's edit targets as the resolve step read them (current image, version, render values): no
        lookup; a target the view did not resolve to an image sends the planner back to the query."""
        targets = [t for c in p.intent.clauses if c.operation == "edit" for t in c.targets]
        if not targets or any(not t.image_id for t in targets):
            return self.shots(p)
        return [{"shot": t.id, "title": t.title, "image": t.image_id, "version": t.version, "inputs": dict(t.current)}
                for t in targets]

    def stale(self, p: PlannerInput) -> Call | Rows:
        return self._query(p, STALE_CYPHER)

    def page(self, p: PlannerInput) -> Call | str | None:
        rows = self._query(p, PAGE_CYPHER)
        if isinstance(rows, Call):
            return rows
        return rows[0]["code"] if rows else None

    def following(self, p: PlannerInput, image_id: str) -> Call | Rows:
        return self._query(p, FOLLOWING_CYPHER, {"id": image_id})

    def focus(self, p: PlannerInput) -> Rows:
        return p.focus

    def listing(self, p: PlannerInput, kind: str | None) -> Call | Rows:
        if kind and p.listed is not None and p.listed[0] == kind:  # the view listed them just before this call
            return list(p.listed[1])
        return self._query(p, KIND_CYPHER, {"kind": kind}) if kind else self._query(p, COUNTS_CYPHER)

    def versions(self, p: PlannerInput, shot_id: str) -> Call | Rows | None:
        return self._query(p, VERSIONS_CYPHER, {"id": shot_id})

    def last_turn(self, p: PlannerInput, turn_id: str) -> Call | Rows | None:
        return self._query(p, LAST_TURN_CYPHER, {"id": turn_id})

    def slides(self, p: PlannerInput) -> Call | Rows | None:
        return self._query(p, SLIDES_CYPHER)

    def notes(self, p: PlannerInput) -> Call | Rows | None:
        return self._query(p, NOTES_CYPHER)

    def page_copy(self, p: PlannerInput, code_id: str) -> Call | Rows | None:
        return self._query(p, PAGE_COPY_CYPHER, {"id": code_id})

    def cuts(self, p: PlannerInput) -> Call | Rows | None:
        return self._query(p, CUT_CYPHER)
