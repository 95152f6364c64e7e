"""What the interpreter knows about the project: its shots, decks, slides and pages, and the selection.

Read from the canvas in two statements (:func:`read_facts`), or built from a transcript by the chat
baseline.  Facts are ids, titles and a few short words per node: the interpreter resolves references on
them and never reads media.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from pydantic import BaseModel, Field

from content.page_document import PageDocument
from nodes.selection import selected_nodes, selected_parts
from store.cypher import FixedCypher
from store.engine import CANVAS_META_KEY
from store.models import CommitRecord

RENDER_KEYS = ("lighting", "framing", "weather", "outfit", "exposure", "temperature", "seed")
"""The image inputs an edit reads back (the current values a comparative moves)."""


class ShotFact(BaseModel):
    """A shot with its current image and what was made from that image."""

    id: str
    title: str
    number: int | None = None
    beat: str = Field(default="", description="What happens in the shot, in words (descriptions match it).")
    plan: str | None = None
    plan_title: str | None = None
    image: str | None = None
    version: int | None = None
    inputs: dict[str, Any] = Field(default_factory=dict, description="The current image's render values.")
    derived: list[str] = Field(default_factory=list, description="Live clips and cuts made from the image.")
    clip: str | None = Field(default=None, description="The current image's live clip (its video).")
    cut: str | None = Field(default=None, description="The live cut made from that clip.")
    image_versions: list[str] = Field(default_factory=list, description="Every version id of the image seen.")


class NodeFact(BaseModel):
    """Any other node the interpreter may need: a deck, a slide, a page, a selected node."""

    id: str
    kind: str
    title: str = ""
    status: str = ""
    group: str | None = None
    index: int | None = None
    shot: str | None = Field(default=None, description="For a selected image or clip: the shot it belongs to.")
    page: str | None = Field(default=None, description="For a selected preview, HTML file or gallery picture: the "
                             "page (code node) it belongs to.")
    sources: list[str] = Field(default_factory=list, description="For a slide: the content and pictures it shows "
                               "(what a deck tool may rewrite with it).")
    pictures: int = Field(default=0, description="For a slide: how many pictures it shows.")
    bullets: list[str] = Field(default_factory=list, description="For a slide: its bullets, in order.")
    sections: list[str] = Field(default_factory=list, description="For a selected page: the sections selected in "
                                "it (``PAGE_ID#section`` in the selection, nodes.selection).")


class CanvasFacts(BaseModel):
    """Everything the interpreter resolves references against."""

    shots: list[ShotFact] = Field(default_factory=list, description="In story order (creation order).")
    decks: list[NodeFact] = Field(default_factory=list)
    slides: list[NodeFact] = Field(default_factory=list)
    pages: list[NodeFact] = Field(default_factory=list, description="Current code nodes of web pages, newest first.")
    page_document: PageDocument | None = Field(default=None, description="The newest page as a document (its "
                                               "sections, elements and pictures), when its inputs were read.")
    selection: list[NodeFact] = Field(default_factory=list)
    where: str = "on the canvas"
    canvas_version: int | None = Field(default=None, description="The canvas version these facts were read at "
                                       "(None: not read from the canvas, as the chat baseline's).")

    @property
    def has_story(self) -> bool:
        return bool(self.shots)

    @property
    def has_deck(self) -> bool:
        return bool(self.decks)

    @property
    def has_page(self) -> bool:
        return bool(self.pages)

    def titles(self) -> list[str]:
        """Titles of the project's nodes (typo correction reads their words)."""
        return [s.title for s in self.shots] + [n.title for n in (*self.decks, *self.slides, *self.pages)]

    def story_words(self) -> set[str]:
        """Words of the shots' beats and titles (descriptions and typo correction read them)."""
        words: set[str] = set()
        for shot in self.shots:
            words.update(re.findall(r"[a-z]+", f"{shot.beat} {shot.title}".lower()))
        for node in (*self.decks, *self.slides, *self.pages):
            words.update(re.findall(r"[a-z]+", node.title.lower()))
        if self.page_document is not None:
            words.update(w for s in self.page_document.layout.sections for w in re.findall(r"[a-z]+", s))
        return words


class FactsReader(Protocol):
    """The one store read facts need."""

    def fixed_read(self, cypher: FixedCypher, **params: Any) -> list[dict[str, Any]]: ...


_LIVE = "(n.deleted IS NULL OR n.deleted = false)"
_SHOTS = (
    "MATCH (s:CanvasNode {kind: 'shot'}) WHERE (s.deleted IS NULL OR s.deleted = false) "
    "OPTIONAL MATCH (i:CanvasNode {kind: 'image'})-[:GENERATED_FROM]->(s) "
    "WHERE i.status <> 'rejected' AND (i.deleted IS NULL OR i.deleted = false) "
    "OPTIONAL MATCH (s)-[:GENERATED_FROM]->(p:CanvasNode {kind: 'plan'}) "
    "OPTIONAL MATCH (c:CanvasNode)-[:GENERATED_FROM]->(i) "
    "WHERE c.status <> 'rejected' AND (c.deleted IS NULL OR c.deleted = false) "
    "OPTIONAL MATCH (k:CanvasNode)-[:GENERATED_FROM]->(c) "
    "WHERE k.kind = 'video' AND k.status <> 'rejected' AND (k.deleted IS NULL OR k.deleted = false) "
    "RETURN 'shot' AS part, s.id AS shot, s.title AS title, s.inputs_json AS shot_inputs, s.created_at AS created, "
    "i.id AS image, i.version AS version, i.inputs_json AS inputs, p.id AS plan, p.title AS plan_title, "
    "c.id AS clip, c.kind AS clip_kind, k.id AS cut, null AS id, null AS kind, null AS status, null AS grp, "
    "null AS via_image, null AS via_version, null AS page")
# Decks, slides and pages through the kind index (one scan of every node for them and the selection together
# was most of a turn's first read on a large canvas); the selection, with what it belongs to, by id below.
_KINDS = (
    "UNWIND ['deck', 'slide', 'code'] AS k MATCH (n:CanvasNode {kind: k}) WHERE " + _LIVE + " AND n.status <> 'rejected' "
    "AND (k <> 'code' OR n.inputs_json CONTAINS '\"layout_spec\"') "
    "RETURN 'other' AS part, null AS shot, n.title AS title, null AS shot_inputs, n.created_at AS created, "
    "null AS image, null AS version, CASE WHEN n.kind IN ['slide', 'code'] THEN n.inputs_json ELSE null END AS inputs, "
    "null AS plan, null AS plan_title, null AS clip, null AS clip_kind, null AS cut, n.id AS id, n.kind AS kind, "
    "n.status AS status, n.group_id AS grp, null AS via_image, null AS via_version, null AS page")
_OTHERS = (
    "UNWIND $selected AS picked MATCH (n:CanvasNode {id: picked}) WHERE " + _LIVE + " "
    "OPTIONAL MATCH (n)-[:GENERATED_FROM]->(s:CanvasNode {kind: 'shot'}) WHERE n.id IN $selected "
    "OPTIONAL MATCH (n)-[:GENERATED_FROM]->(i:CanvasNode {kind: 'image'})-[:GENERATED_FROM]->(t:CanvasNode {kind: 'shot'}) "
    "WHERE n.id IN $selected "
    "OPTIONAL MATCH (n)-[:VERSION_OF*1..]->(o:CanvasNode)-[:GENERATED_FROM]->(u:CanvasNode {kind: 'shot'}) "
    "WHERE n.id IN $selected "
    "OPTIONAL MATCH (n)-[:GENERATED_FROM]->(pg:CanvasNode {kind: 'code'}) WHERE n.id IN $selected "
    "OPTIONAL MATCH (pr:CanvasNode {kind: 'code'})-[:REFERENCES]->(n) "
    "WHERE n.id IN $selected AND n.kind = 'image' AND pr.status <> 'rejected' "
    "RETURN 'other' AS part, s.id AS shot, n.title AS title, null AS shot_inputs, n.created_at AS created, "
    "null AS image, null AS version, CASE WHEN n.kind IN ['slide', 'code'] THEN n.inputs_json ELSE null END AS inputs, "
    "null AS plan, null AS plan_title, null AS clip, null AS clip_kind, null AS cut, n.id AS id, n.kind AS kind, "
    "n.status AS status, n.group_id AS grp, t.id AS via_image, u.id AS via_version, coalesce(pg.id, pr.id) AS page")
# The canvas version first: a commit that lands while the statement runs makes the version older than the rows,
# never newer, so facts reused at "the same version" (nodes.resolve) are never staler than their label.
_VERSION = (
    "MATCH (m:CanvasMeta {key: $meta}) "
    "RETURN 'version' AS part, null AS shot, null AS title, null AS shot_inputs, null AS created, null AS image, "
    "m.version AS version, null AS inputs, null AS plan, null AS plan_title, null AS clip, null AS clip_kind, "
    "null AS cut, null AS id, null AS kind, null AS status, null AS grp, null AS via_image, null AS via_version, "
    "null AS page")
FACTS = FixedCypher(_VERSION + " UNION ALL " + _SHOTS + " UNION ALL " + _KINDS + " UNION ALL " + _OTHERS)
"""The project's facts in one statement (one round trip): the canvas version they were read at (``part``
'version'), the shots with their current images and what derives from them (``part`` 'shot'), then the decks,
slides and pages, and the selection (``part`` 'other': a selected deck, slide or page comes twice, and
:func:`read_facts` takes what it belongs to from its second row)."""


def read_facts(store: FactsReader, selected: Sequence[str] = ()) -> CanvasFacts:
    """The project's facts in one read: shots with their current images and derived nodes; everything else."""
    shots: dict[str, ShotFact] = {}
    order: dict[str, str] = {}
    rows = store.fixed_read(FACTS, selected=list(selected), meta=CANVAS_META_KEY)
    read_at = next((r["version"] for r in rows if r["part"] == "version"), None)
    for row in (r for r in rows if r["part"] == "shot"):
        shot = shots.get(row["shot"])
        if shot is None:
            shot_inputs = json_object(row.get("shot_inputs"))
            shot = shots[row["shot"]] = ShotFact(
                id=row["shot"], title=str(row.get("title") or ""), number=_number(row.get("title"), shot_inputs),
                beat=str(shot_inputs.get("beat") or shot_inputs.get("prompt") or "")[:200],
                plan=row.get("plan"), plan_title=row.get("plan_title"))
            order[shot.id] = str(row.get("created") or "")
        image, version = row.get("image"), row.get("version")
        if image and (shot.version is None or (version or 0) > shot.version):
            inputs = json_object(row.get("inputs"))
            shot.image, shot.version = image, int(version or 1)
            shot.inputs = {k: inputs[k] for k in RENDER_KEYS if k in inputs}
            shot.derived, shot.clip, shot.cut = [], None, None
        if image == shot.image:
            for derived in (row.get("clip"), row.get("cut")):
                if derived and derived not in shot.derived:
                    shot.derived.append(derived)
            if row.get("clip_kind") == "video":
                shot.clip = shot.clip or row.get("clip")
                shot.cut = shot.cut or row.get("cut")
        if image and image not in shot.image_versions:
            shot.image_versions.append(image)
    facts = CanvasFacts(shots=sorted(shots.values(), key=lambda s: (order[s.id], s.number or 0)),
                        canvas_version=None if read_at is None else int(read_at))
    parts = selected_parts(selected)
    selected = selected_nodes(selected)
    picked = set(selected)
    seen: set[str] = set()
    documents: dict[str, dict[str, Any]] = {}
    for row in sorted((r for r in rows if r["part"] == "other"), key=lambda r: str(r.get("created"))):
        node_id = row["id"]
        shot = row.get("shot") or row.get("via_image") or row.get("via_version")
        if node_id in seen:
            if node_id in picked:
                for node in facts.selection:
                    if node.id == node_id:
                        node.shot = node.shot or shot
                        node.page = node.page or row.get("page")
            continue
        seen.add(node_id)
        inputs = json_object(row.get("inputs"))
        spec = inputs.get("spec") if isinstance(inputs.get("spec"), dict) else {}
        page = node_id if row["kind"] == "code" and "layout_spec" in inputs else row.get("page")
        node = NodeFact(id=node_id, kind=row["kind"], title=str(row.get("title") or ""),
                        status=str(row.get("status") or ""), group=row.get("grp"),
                        index=inputs.get("index") if isinstance(inputs.get("index"), int) else None, shot=shot,
                        page=page, sources=[str(i) for i in spec.get("source_node_ids") or []],
                        pictures=len(spec.get("images") or []),
                        bullets=[str(b) for b in spec.get("bullets") or []], sections=parts.get(node_id, []))
        if node_id in picked:
            facts.selection.append(node)
        if node.status in ("rejected", "failed"):
            continue
        if node.kind == "deck":
            facts.decks.append(node)
        elif node.kind == "slide":
            facts.slides.append(node)
        elif node.kind == "code" and page:
            facts.pages.insert(0, node)
            documents[node_id] = inputs
    facts.selection.sort(key=lambda n: list(selected).index(n.id))
    if facts.pages:
        facts.page_document = page_document(documents.get(facts.pages[0].id) or {})
    return facts


FOUND_BY_KIND = frozenset({"shot", "deck", "slide", "code"})
"""The kinds :data:`FACTS` finds by their kind alone; every other node it reads it reaches through an edge (an
image made from a shot, a clip from an image), or by id (the selection)."""


def leaves_facts(record: CommitRecord) -> bool:
    """Whether a commit cannot have changed what :data:`FACTS` reads: it only created nodes, none of a kind
    facts find by kind, and made or removed no edge and deleted nothing (a note, a turn's record).

    A node created with no edge is reached by nothing facts walk; any other write (an update, a status, a link)
    may be, and counts as a change."""
    written = record.written
    return (written is not None and not written.hard_deleted and not written.links and not written.unlinked
            and all(node.version == 1 and node.kind not in FOUND_BY_KIND for node in written.nodes))


class KeptFactsReader(FactsReader, Protocol):
    """What keeping facts between turns needs of the store besides :data:`FACTS`."""

    def canvas_version(self) -> int: ...

    def own_commits(self, since_version: int) -> tuple[list[CommitRecord], bool] | None: ...


class KeptFacts:
    """The facts a turn started on, kept for the next turn's start in this process while the canvas has moved only
    by this process's commits that cannot have changed them (:func:`leaves_facts`).

    Why: in a long session most turns (notes, questions, a turn's own record) leave the shots, decks and pages as
    they were, and reading them all again was most of a note turn's first statement.  A kept answer costs one
    small read instead: the canvas version, which must be the newest commit this process made, so that another
    writer's commit (another process, the web canvas) always means a full read.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: tuple[tuple[str, ...], CanvasFacts] | None = None

    def read(self, store: KeptFactsReader, selected: Sequence[str] = ()) -> CanvasFacts:
        """The facts at the canvas's version (a copy: the caller may change it)."""
        key = tuple(selected)
        with self._lock:
            kept = self._kept
        if kept is not None and kept[0] == key and kept[1].canvas_version is not None:
            version = self._unchanged_since(store, kept[1].canvas_version)
            if version is not None:  # the kept copy is never handed out: only its version moves
                with self._lock:
                    self._kept = (key, kept[1].model_copy(update={"canvas_version": version}))
                return kept[1].model_copy(deep=True, update={"canvas_version": version})
        facts = read_facts(store, selected)
        with self._lock:
            self._kept = (key, facts.model_copy(deep=True))
        return facts

    @staticmethod
    def _unchanged_since(store: KeptFactsReader, version: int) -> int | None:
        """The canvas version now, when every commit after ``version`` is this process's and leaves facts as they
        were; None otherwise (then the facts are read again)."""
        logged = store.own_commits(version)
        if logged is None:
            return None
        records, gapless = logged
        if records and not (gapless and all(leaves_facts(r) for r in records)):
            return None
        newest = records[-1].canvas_version if records else version
        return newest if store.canvas_version() == newest else None


def page_document(inputs: dict[str, Any]) -> PageDocument | None:
    """A page's document from its code node's inputs; None when they do not hold one (an older page)."""
    try:
        return PageDocument.from_inputs(inputs)
    except (KeyError, TypeError, ValueError):
        return None


def json_object(raw: Any) -> dict[str, Any]:
    """A node's JSON property (``inputs``) as a dict; ``{}`` when it is missing, malformed or not an object."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except (TypeError, json.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def _number(title: Any, inputs: dict[str, Any]) -> int | None:
    match = re.fullmatch(r"\s*shot\s+#?(\d+)\s*", str(title or ""), re.IGNORECASE)
    if match:
        return int(match.group(1))
    return None
