"""What one version of a page or a deck changed, recorded on the version so it can be found and undone.

Every version the page and deck tools make carries ``inputs.change``: the
operation, a one-line summary in words, and the edits, each a field with its
value before and after (``{"field": "token:headline-size", "from": "56px",
"to": "70px"}``).  "Undo the full-bleed change" searches these records
(:func:`matching_changes`); undoing one applies its edits backwards on the
current version, and a revert "before the X change" restores the version the
change was made on.

The versions themselves, their numbers and which one replaced which, are the
output's history as :mod:`tools.history` reads it for every kind of output
(:func:`version_history` is that history's chain with each version's change
record), so "version 2" of a page is the version 2 ``list_versions`` shows,
and a change's words are matched the same way for a page, a deck or an image.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from store.base import CanvasReader
from store.models import CanvasNode, EdgeType, NodeStatus
from tools.base import ToolError
from tools.history import NoSuchVersion, describes, output_history, stems, text_of


class Edit(BaseModel):
    """One field of a document, before and after (``from`` and ``to`` in JSON)."""

    model_config = ConfigDict(populate_by_name=True)

    field: str = Field(description="What changed: token:NAME, text:ELEMENT, layout:FIELD, sections, image:N, "
                                   "palette; slide:KEY, slides, theme for a deck.")
    before: Any = Field(default=None, alias="from")
    after: Any = Field(default=None, alias="to")
    detail: dict[str, Any] = Field(default_factory=dict, description="What undoing it needs beyond the values "
                                   "(the section and its place, the slide's key and number).")

    def dump(self) -> dict[str, Any]:
        """The edit as stored on the canvas (``from``/``to`` keys)."""
        return self.model_dump(mode="json", by_alias=True)


class Change(BaseModel):
    """What a version changed: the operation, its summary, its edits, and the version it undid if it is an undo."""

    op: str
    summary: str
    edits: list[Edit] = Field(default_factory=list)
    undoes: str | None = Field(default=None, description="The version whose change this one took back.")
    request: str | None = Field(default=None, description="The words that asked for it, when a person gave them.")

    def dump(self) -> dict[str, Any]:
        """The change as stored in a version's ``inputs.change``."""
        return {**self.model_dump(mode="json", exclude={"edits"}, exclude_none=True),
                "edits": [e.dump() for e in self.edits]}

    @classmethod
    def read(cls, stored: Any) -> Change | None:
        """The change a version recorded (None for an original, or a page made before changes were recorded)."""
        if isinstance(stored, dict) and "op" in stored:
            return cls.model_validate(stored)
        if isinstance(stored, str) and stored.strip():  # web_revise before structured records: its words
            return cls(op="revise", summary=stored, request=stored)
        return None

    def words(self) -> set[str]:
        """The words a person could use to name this change (summary, op, fields, values), as
        :func:`tools.history.stems`."""
        parts = [self.summary, self.op, self.request or ""]
        for edit in self.edits:
            parts += [edit.field.replace(":", " "), text_of(edit.before), text_of(edit.after)]
        return stems(" ".join(parts))


def matching_changes(described: str, versions: list[tuple[str, Change]]) -> list[str]:
    """The ids of the versions (newest first, as given) whose change the words describe, newest first.

    Every content word of ``described`` must be found in the change's words (:func:`tools.history.describes`).
    """
    return [version_id for version_id, change in versions if describes(described, change.words())]


class NothingToUndo(ToolError):
    """Every change is undone already (or there never was one)."""


class NothingToChange(ToolError):
    """The page or deck is already as the request asks (the headline is 72px already, the slide already says
    that): a request satisfied as the canvas stands, not a failure.  The turn says so, changes nothing and exits
    0, as a shot edit that is already so does (``nodes.record.measured_outcome``, ``nodes/models/content.py``).
    Each tool's "already" refusal subclasses this and its own refusal, so both ``except`` clauses catch it."""


def nothing_to_change_errors() -> frozenset[str]:
    """The names of :class:`NothingToChange` and its subclasses (the ``error_type`` a step's observation records)."""
    found, pending = {NothingToChange.__name__}, list(NothingToChange.__subclasses__())
    while pending:
        cls = pending.pop()
        found.add(cls.__name__)
        pending += cls.__subclasses__()
    return frozenset(found)


@dataclass(frozen=True)
class Version:
    """One version of an output: its node, its number in the lineage (1 = the original), and its change."""

    node: CanvasNode
    number: int
    change: Change | None


def version_history(canvas: CanvasReader, head: CanvasNode) -> list[Version]:
    """The versions ``head``'s output went through as its current one, newest first (``head`` first, the original
    last), numbered as ``list_versions`` numbers them (:func:`tools.history.output_history`)."""
    history = output_history(canvas, head.id)
    chain = history.chain() or [history.of_node(head.id)]
    return [Version(node=history.state(v.number), number=v.number,
                    change=Change.read(history.state(v.number).inputs.get("change"))) for v in chain]


def current_heads(canvas: CanvasReader, nodes: list[CanvasNode]) -> list[CanvasNode]:
    """The live nodes no other of ``nodes`` replaced (``VERSION_OF``): each output's current version, once."""
    live = [n for n in nodes if n.status != NodeStatus.REJECTED]
    if not live:
        return []
    replaced = {e.target for e in canvas.edges([n.id for n in live], edge_types=[EdgeType.VERSION_OF])}
    return [n for n in live if n.id not in replaced]


def undoable(versions: list[Version]) -> list[Version]:
    """Versions whose change can be taken back: not an undo itself, and not taken back already."""
    undone = {v.change.undoes for v in versions if v.change is not None and v.change.undoes}
    return [v for v in versions if v.change is not None and v.change.op != "undo" and v.node.id not in undone]


def last_change(versions: list[Version], what: str) -> Version:
    """The newest change not yet taken back (what "undo" with no words takes back)."""
    found = undoable(versions)
    if not found:
        raise NothingToUndo(f"the {what} is as it was first made (or every change since is undone); nothing to undo")
    return found[0]


def named_change(versions: list[Version], words: str, what: str, *, any_change: bool = False) -> Version:
    """The newest version whose change the words name: among the undoable ones, or (``any_change``) all."""
    candidates = [v for v in versions if v.change is not None] if any_change else undoable(versions)
    found = matching_changes(words, [(v.node.id, v.change) for v in candidates if v.change is not None])
    if not found:
        listed = "; ".join(f"v{v.number}: {v.change.summary}" for v in candidates if v.change) or "none"
        raise NoSuchVersion(f"no change of this {what} matches {words!r}; its changes are: {listed}")
    return next(v for v in versions if v.node.id == found[0])


def version_before(versions: list[Version], version: Version) -> Version:
    """The version a change was made on (the next older one of the history)."""
    at = next(i for i, v in enumerate(versions) if v.number == version.number)
    if at + 1 >= len(versions):
        raise NoSuchVersion(f"version {version.number} is the original; there is no version before it")
    return versions[at + 1]


def pick_version(versions: list[Version], to: str, what: str) -> Version:
    """A version by what a person or a model calls it: 'original', 'previous', 2, 'v2', 'version 2', or its id."""
    said = to.strip().lower().removeprefix("version").strip().removeprefix("v")
    if said in ("original", "first", "1"):
        return versions[-1]
    if said in ("previous", "last", "before"):
        if len(versions) < 2:
            raise NoSuchVersion(f"the {what} has only its original version; there is no previous one")
        return versions[1]
    found = [v for v in versions if (said.isdigit() and v.number == int(said)) or v.node.id == to.strip()]
    if not found:
        raise NoSuchVersion(f"the {what} has no version {to!r}; its history has versions "
                            f"{', '.join(f'{v.number} ({v.node.id})' for v in reversed(versions))}")
    return found[0]


class UndoFields(BaseModel):
    """The argument of an undo tool: which change to take back."""

    change: str | None = Field(default=None, max_length=300, description="Words naming the change to take back "
                               "('the full-bleed change', 'the retitle'); default: the last change not yet undone. "
                               "Later changes stay.")

    def target(self, versions: list[Version], what: str) -> Version:
        """The version whose change to take back."""
        return named_change(versions, self.change, what) if self.change else last_change(versions, what)


class RevertFields(BaseModel):
    """The arguments of a revert tool: exactly one of ``to`` and ``before_change``."""

    to: str | None = Field(default=None, description="'original', 'previous', a version number (2 or 'v2'), or a "
                           "version's node id.")
    before_change: str | None = Field(default=None, max_length=300, description="Words naming a change: the output "
                                      "as it was just before it.")

    def target(self, versions: list[Version], what: str) -> Version:
        """The version to bring back."""
        if (self.to is None) == (self.before_change is None):
            raise NoSuchVersion("give exactly one of to ('original', 'previous', a number or id) or before_change")
        if self.before_change is not None:
            return version_before(versions, named_change(versions, self.before_change, what, any_change=True))
        return pick_version(versions, str(self.to), what)


def require_canvas(ctx: Any) -> CanvasReader:
    """The tool context's canvas reader (page and deck tools cannot work without one)."""
    if ctx.canvas is None:
        raise ToolError("this tool needs the canvas, and none is attached to its tool context")
    return ctx.canvas


__all__ = ["Change", "Edit", "NoSuchVersion", "NothingToChange", "NothingToUndo", "nothing_to_change_errors", "RevertFields", "UndoFields", "Version",
           "current_heads", "last_change", "require_canvas",
           "matching_changes",
           "named_change", "pick_version", "undoable", "version_before", "version_history"]
