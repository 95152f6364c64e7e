"""What each built-in tool returns: the keys of its observation, as pydantic models.

A tool's observation is the dict a skill gets back from ``ctx.call(tool, ...)`` and the
model reads after a call.  The manifest lists these schemas (``jarvishub tools --json``,
``docs/tools.md``), so a skill author knows that ``create_node`` returns ``created`` and
``generate_image`` returns ``node_id``.  ``tests/tools/test_returns.py`` runs every
built-in tool through the bridge and checks its observation against its model here
(extra keys are refused), so this table cannot drift from what the tools do.

Any tool may instead fail: its observation is then :class:`ToolFailure`.
A skill's tool (``skill__<name>``) returns ``skill`` and the skill's output model's fields.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tools.native.code import CodeRun


class _Returns(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolFailure(_Returns):
    """What any tool returns instead when it fails (the step is a failed step, the model sees why)."""

    error: str = Field(description="What went wrong, in words the model and a person can act on")
    tool: str
    error_type: str = Field(description="The error's type (QueryBusy: try again in a moment)")
    refused: str | None = Field(default=None, description="For a skill: the bridge's reason for refusing one of its "
                                                          "steps (kind_not_granted, budget, ...)")


class NodeSummary(_Returns):
    """A node as read tools show it."""

    id: str
    kind: str
    title: str
    status: str
    version: int
    group_id: str | None
    inputs: dict[str, Any]
    outputs: list[dict[str, Any]] = Field(description="sha256, mime and size of each artifact")


# -- canvas ---------------------------------------------------------------------------------------------------------
class CreateNodeReturns(_Returns):
    created: str = Field(description="The new node's id")


class UpdateNodeReturns(_Returns):
    updated: str = Field(description="The node's id")


class LinkNodesReturns(_Returns):
    edge_id: str


class UnlinkNodesReturns(_Returns):
    unlinked: dict[str, Any] = Field(description="The arguments that named the edge")


class GroupNodesReturns(_Returns):
    group_id: str = Field(description="The group node (new unless one was given)")


class MoveNodeReturns(_Returns):
    moved: str = Field(description="The node's id")


class SetStatusReturns(_Returns):
    node_id: str
    title: str = Field(default="", description="The node's title, to name it to a person")
    status: str
    rejected: list[str] | None = Field(default=None, description="Rejecting a current version: the nodes rejected "
                                                                 "with it (what was made from it)")
    restored: list[str] | None = Field(default=None, description="Rejecting a current version: the earlier "
                                                                 "versions made current again")
    superseded: list[str] | None = Field(default=None, description="Reinstating a version: the versions it replaces")
    stale: list[str] | None = Field(default=None, description="Reinstating a version: what is now stale")


class BranchNodeReturns(_Returns):
    branch: str = Field(description="The copy's id (a new version, VERSION_OF the original)")
    of: str = Field(description="The original's id")


class ReadNodeReturns(_Returns):
    node: NodeSummary
    edges_out: list[dict[str, Any]] = Field(description="edge, to, kind, title of each outgoing edge")


class ReadLineageReturns(_Returns):
    node_id: str
    lineage: list[dict[str, Any]] = Field(description="depth and the node summary of each node reached")


class QueryCanvasReturns(_Returns):
    columns: list[str]
    rows: list[dict[str, Any]]
    truncated: bool = Field(description="Whether the row limit cut the result")


class EvaluateNodeReturns(_Returns):
    evaluation_id: str = Field(description="The evaluation node (REFERENCES the node, role evaluates)")
    node_id: str
    score: float = Field(description="0..1: the weakest check's score")
    passed: bool = Field(description="score >= 0.5")
    notes: str
    checks: dict[str, Any] = Field(description="Each check's measure and score (brightness, warmth, colours, ...)")


# -- recovery -------------------------------------------------------------------------------------------------------
class CreateCheckpointReturns(_Returns):
    checkpoint: str = Field(description="The checkpoint node's id")
    canvas_version: int


class RestoreCheckpointReturns(_Returns):
    restored_to: int = Field(description="The canvas version brought back")
    checkpoint: str
    changes: int = Field(description="How many changes the restore made")


class ListAttemptsReturns(_Returns):
    node_id: str
    history: list[dict[str, Any]] = Field(description="version, status, updated_at, error of each stored version")
    versions: list[dict[str, Any]] = Field(description="Other versions: id, status, title, relation (older/newer), "
                                                       "hops, reason")


class MarkStaleReturns(_Returns):
    stale: list[str] = Field(description="Every node marked stale (the node and what was generated from it)")
    replaced: dict[str, str] | None = Field(default=None, description="A superseded node asked for -> the current "
                                                                      "version of its output, marked instead")
    skipped: dict[str, str] | None = Field(default=None, description="A node left out -> why (deleted, or rejected "
                                                                     "with no live version after it)")


class RegenerateStaleReturns(_Returns):
    regenerated: list[dict[str, Any]] = Field(description="old, new, title, kind, sha256, cache_hit per node "
                                                          "(or node_id and skipped)")


class RepairReturns(_Returns):
    regenerated: list[dict[str, Any]] = Field(description="old, new, title, kind, sha256, cache_hit per node "
                                                          "(or node_id and skipped)")
    stale: list[str] = Field(description="Nodes that could not be rebuilt, left marked stale (usually none)")
    replaced: dict[str, str] | None = Field(default=None, description="A superseded target -> the current version "
                                                                      "of its output, repaired instead")
    skipped: dict[str, str] | None = Field(default=None, description="A target left out -> why (deleted, or rejected "
                                                                     "with no live version after it)")


class VerifyArtifactsReturns(_Returns):
    checked: int
    ok: bool
    broken: list[dict[str, Any]] = Field(description="node_id, sha256, problem (missing, hash mismatch)")


# -- generation -----------------------------------------------------------------------------------------------------
class GeneratedReturns(_Returns):
    """What every generation tool returns: the new node and its artifact."""

    node_id: str = Field(description="The new node (completed, holding the artifact)")
    kind: str = Field(description="image, video or audio")
    sha256: str
    mime: str
    cache_hit: bool = Field(description="True when the same signature was made before: no provider call")
    provider: str
    model: str
    width: int | None = None
    height: int | None = None
    duration_s: float | None = None


# -- native ---------------------------------------------------------------------------------------------------------
class ReadFileReturns(_Returns):
    path: str
    encoding: str
    size: int
    truncated: bool
    content: str = Field(description="UTF-8 text, or base64 with encoding base64")


class WriteFileReturns(_Returns):
    path: str
    size: int
    uri: str
    node_id: str = Field(description="The file node holding the bytes")


class ListFilesReturns(_Returns):
    path: str
    entries: list[dict[str, Any]] = Field(description="path, kind (file, dir, symlink), size")


class RunCodeReturns(CodeRun):
    """What the run did (``tools.native.code.CodeRun``), its files as path, uri and size, and its node."""

    model_config = ConfigDict(extra="forbid")

    files: list[dict[str, Any]] = Field(description="path, uri, size of each file the run made")  # type: ignore[assignment]
    node_id: str = Field(description="The code node")


class RenderPageReturns(_Returns):
    node_id: str = Field(description="The preview image node")
    png: str = Field(description="The PNG artifact's uri")
    width: int
    height: int
    blocked_requests: list[str] = Field(description="URLs the page tried to reach and was refused")


class BuildSlidesReturns(_Returns):
    deck_node_id: str
    pptx: str = Field(description="The .pptx artifact's uri")
    slides: list[dict[str, Any]] = Field(description="node_id and preview (PNG uri) of each slide")


# -- rebuilding through the cache: what the cut and version tools spent --------------------------------------------
class RebuiltNode(_Returns):
    """One node a batch made: a new version of ``old`` (rebuilt on what changed), or a new node ``tool`` made."""

    new: str = Field(description="The node made")
    title: str | None
    old: str | None = Field(default=None, description="The node it is a new version of (set aside for it)")
    kind: str | None = None
    tool: str | None = Field(default=None, description="For a new node (a new shot's image or clip): the tool that "
                                                       "made it")
    sha256: str | None = Field(default=None, description="Its artifact")
    cache_hit: bool | None = Field(default=None, description="True when it came from the signature cache: no "
                                                             "provider call")
    copied_from: str | None = Field(default=None, description="An earlier node with the same content whose artifact "
                                                              "it reuses (no generation at all)")


class RestoredInput(_Returns):
    """An input brought back with a restored version: the version it pointed at was replaced since."""

    output: str = Field(description="The input's name (the title of its original version)")
    node_id: str = Field(description="The new version holding the input's earlier content")
    content_of: str = Field(description="The version whose content it holds")
    for_: str = Field(alias="for", description="The restored output that uses it")


class _RebuildReturns(_Returns):
    """The keys every tool that writes through :class:`tools.restore.VersionBatch` adds."""

    rebuilt: list[RebuiltNode] = Field(description="Every node made again, in the order made (what was generated "
                                                   "from what changed comes after it)")
    provider_calls: int = Field(description="Paid generations (the rest came from the cache)")
    restored_inputs: list[RestoredInput] | None = Field(default=None, description="Inputs brought back with a "
                                                                                  "restored version")
    stale: list[str] | None = Field(default=None, description="Nodes made from what changed that could not be "
                                                              "rebuilt: marked stale")
    not_rebuilt: str | None = Field(default=None, description="With stale: what to do about them (regenerate_stale)")


# -- the cut --------------------------------------------------------------------------------------------------------
class CutVersion(_Returns):
    """The cut before and after an operation."""

    old: str = Field(description="The cut's version the operation started from (now superseded)")
    new: str = Field(description="The cut's new current version")
    title: str


class _CutEditReturns(_RebuildReturns):
    cut: CutVersion
    order: list[str] = Field(description="The new cut's clips, by title, in playing order")


class ReorderCutReturns(_CutEditReturns):
    shots: list[str] = Field(description="The shots, by title, in their new order")


class RemoveFromCutReturns(_CutEditReturns):
    removed: list[str] = Field(description="The shots taken out, by title (still on the canvas)")


class ReturnToCutReturns(_CutEditReturns):
    returned: str = Field(description="The shot put back, by title")
    position: int = Field(description="Its 1-based position in the new cut")


class NewShot(_Returns):
    """A shot made by ``insert_shot`` or ``duplicate_shot``."""

    node_id: str = Field(description="The new shot node")
    title: str = Field(description="Titled like an inserted scene: after 'shot 3' comes 'shot 3a'")
    after: str | None = Field(default=None, description="insert_shot: the shot it follows in the storyboard")
    before: str | None = Field(default=None, description="insert_shot: the shot that follows it")
    duplicate_of: str | None = Field(default=None, description="duplicate_shot: the shot copied")


class NewShotReturns(_RebuildReturns):
    """What ``insert_shot`` and ``duplicate_shot`` return: the shot, its image and clip, and the cut they joined."""

    shot: NewShot
    image: str = Field(description="The new shot's image node")
    clip: str = Field(description="The new shot's clip node")
    cut: CutVersion | None = Field(description="None when the canvas has no cut yet (the shot joined the storyboard "
                                               "only)")
    order: list[str] | None = Field(default=None, description="The new cut's clips, by title, in playing order")
    position: int | None = Field(default=None, description="The new clip's 1-based position in the cut")
    note: str | None = Field(default=None, description="Said when there was no cut to put the shot in")


class RetimedClip(_Returns):
    old: str = Field(description="The clip's version before (now superseded)")
    new: str = Field(description="The clip's new version")
    title: str
    duration_s: float = Field(description="Its new length in seconds")
    was_s: float = Field(description="Its length before, in seconds")


class SetClipDurationReturns(_RebuildReturns):
    clip: RetimedClip = Field(description="The retimed clip (the cut holding it is in rebuilt)")


# -- versions -------------------------------------------------------------------------------------------------------
class ListVersionsReturns(_Returns):
    output: str = Field(description="The output's name: the title of its original version")
    root_id: str = Field(description="The original version's node")
    current: int | None = Field(description="The current version's number (None: every version was set aside)")
    versions: list[dict[str, Any]] = Field(description="Every version, oldest first: number, node_id, node_version, "
                                                       "kind, title, status, status_reason, current, at, "
                                                       "canvas_version, replaced, restored_from, tool, actor, turn_id, "
                                                       "request, changes (field -> before, after), sha256")
    history: list[int] = Field(description="The current version's number, then the one it replaced, and so on back "
                                           "to the original")


class RestoreVersionReturns(_RebuildReturns):
    """What ``undo_change`` and ``revert_version`` return: the version brought back, as a new version."""

    output: str = Field(description="The output's name: the title of its original version")
    restored_version: int = Field(description="The number of the version whose content came back")
    found_by: str = Field(description="How that version was found, in words ('version 2 (before the last change)')")
    node_id: str = Field(description="The node now current (a new version, or the head changed in place)")
    new_version: int = Field(description="The number the restore gets in list_versions")
    replaced_version: int | None = Field(description="The version that was current before (None: none was)")


class UndoneTurn(_Returns):
    turn_id: str
    thread_id: str
    request: str = Field(description="The words of the turn undone")
    canvas_before: int = Field(description="The canvas version before the turn: what it went back to")


class UndoTurnReturns(_RebuildReturns):
    undone: UndoneTurn
    restored: list[dict[str, Any]] | None = Field(default=None, description="Outputs brought back to their version "
                                                                            "before the turn: output, node_id (the new "
                                                                            "version), replaced, content_of")
    set_aside: list[str] | None = Field(default=None, description="Nodes the turn made: set aside (rejected)")
    in_place: list[str] | None = Field(default=None, description="Nodes changed back in place (content or status)")
    undeleted: list[str] | None = Field(default=None, description="Nodes the turn deleted, back")
    edges: list[dict[str, Any]] = Field(description="op, type, source, target of each edge linked or unlinked back")


class CompareVersionsReturns(_Returns):
    output: str = Field(description="The output's name: the title of its original version")
    a: dict[str, Any] = Field(description="The first version: number, node_id, title, at, sha256, request, current, "
                                          "status")
    b: dict[str, Any] = Field(description="The second version, the same keys")
    differences: dict[str, dict[str, Any]] = Field(description="What differs: field (inputs.lighting, title, "
                                                               "artifact, ...) -> before, after")
    same_artifact: bool = Field(description="Whether both hold the same artifact bytes")
    side_by_side: dict[str, Any] | None = Field(default=None, description="When both have a picture (images, clips): "
                                                                          "the PNG of the two next to each other, "
                                                                          "labelled (sha256, mime, size, uri, name)")


# -- pages and decks ------------------------------------------------------------------------------------------------
class ChangeEdit(_Returns):
    """One field a version changed, before and after."""

    field: str = Field(description="token:NAME, text:ELEMENT, layout:FIELD, sections, image:N, palette; for a deck "
                                   "slide:KEY, illustration:KEY, slides, theme")
    before: Any = Field(alias="from")
    after: Any = Field(alias="to")
    detail: dict[str, Any] = Field(description="What undoing it needs (a section's place, a slide's number)")


class ChangeRecord(_Returns):
    """What a new page or deck version changed (also stored on the version, ``inputs.change``)."""

    op: str = Field(description="set_text, set_style, add_section, edit_slide, set_theme, undo, revert, ...")
    summary: str = Field(description="The change in words (what page_read/deck_read list and an undo names)")
    edits: list[ChangeEdit]
    undoes: str | None = Field(default=None, description="For an undo: the version whose change it took back")
    request: str | None = Field(default=None, description="The words that asked for it, when a person gave them")


class PageReadReturns(_Returns):
    page_id: str = Field(description="The page's current version (its code node)")
    title: str
    html_path: str | None = Field(description="The page's HTML in the workspace")
    sections: list[str] = Field(description="The sections' names, in page order")
    layout: dict[str, Any] = Field(description="hero (contained, full-bleed), columns, theme (light, dark)")
    texts: dict[str, str] = Field(description="Every element's words by name (headline, tagline, button, "
                                              "SECTION.heading, SECTION.text, gallery.caption-N): what page_set_text "
                                              "takes")
    tokens: dict[str, str] = Field(description="Every design token's value (headline-size, accent, body-font, ...): "
                                               "what page_set_style takes")
    images: list[dict[str, Any]] = Field(description="image (its 1-based number), node_id, alt, path of each gallery "
                                                     "picture")
    hero_image: dict[str, Any] | None = Field(description="image ('hero'), node_id, alt, path of the hero's backdrop, "
                                                          "and own: false while it is gallery picture 1")
    versions: list[dict[str, Any]] = Field(description="version, page_id, change (its summary) of every version, "
                                                       "oldest first")


class PageEditReturns(_Returns):
    """What every page edit returns (``tools.page.canvas.commit_page``): the page's new version."""

    page_id: str = Field(description="The page's new version (its code node): pass it to the next page tool")
    previous_page_id: str = Field(description="The version it replaced (set aside, still readable)")
    preview_id: str = Field(description="The new version's preview image node")
    html_path: str = Field(description="The page's HTML in the workspace (rewritten)")
    change: ChangeRecord
    preview_reused: bool = Field(description="True when an earlier version showed exactly this HTML: its preview was "
                                             "reused, no render")


class PageReplaceImageReturns(PageEditReturns):
    image_id: str = Field(description="The image node the page now shows (generated, or the one given)")


class DeckReadReturns(_Returns):
    deck_id: str = Field(description="The deck's current version")
    title: str
    theme: str = Field(description="The theme's name (a preset, or the colour asked for)")
    slides: list[dict[str, Any]] = Field(description="slide (its number), node_id, title, bullets, notes, pictures "
                                                     "(image node ids), preview (PNG uri) of each slide")
    versions: list[dict[str, Any]] = Field(description="version, deck_id, change (its summary) of every version, "
                                                       "oldest first")
    mentioning: list[int] | None = Field(default=None, description="With mentioning: the numbers of the slides that "
                                                                   "mention every word of it")


class DeckSlideDrawn(_Returns):
    slide: int = Field(description="Its number, from 1")
    node_id: str
    title: str
    preview: str = Field(description="Its preview PNG's uri")
    redrawn: bool = Field(description="False when the slide is unchanged and kept its preview")


class DeckEditReturns(_Returns):
    """What every deck edit returns (``tools.deck.canvas.commit_deck``): the deck's new version."""

    deck_id: str = Field(description="The deck's new version: pass it to the next deck tool")
    previous_deck_id: str = Field(description="The version it replaced (set aside, still readable)")
    pptx: str = Field(description="The new .pptx artifact's uri")
    change: ChangeRecord
    slides: list[DeckSlideDrawn]
    previews_drawn: int = Field(description="How many slides were drawn again")


class DeckIllustrationReturns(DeckEditReturns):
    illustration_id: str = Field(description="The new picture (a new version of the old one)")


# -- MCP ------------------------------------------------------------------------------------------------------------
class McpToolReturns(_Returns):
    """What every MCP tool returns (its own output schema, if any, applies to ``structured``)."""

    content: list[dict[str, Any]] = Field(description="text blocks inline; image, audio and blob content as artifact "
                                                      "handles")
    is_error: bool
    structured: Any = Field(default=None, description="The server's structured result, when it sends one")


BUILTIN_RETURNS: dict[str, type[BaseModel]] = {
    "create_node": CreateNodeReturns,
    "update_node": UpdateNodeReturns,
    "link_nodes": LinkNodesReturns,
    "unlink_nodes": UnlinkNodesReturns,
    "group_nodes": GroupNodesReturns,
    "move_node": MoveNodeReturns,
    "set_status": SetStatusReturns,
    "branch_node": BranchNodeReturns,
    "read_node": ReadNodeReturns,
    "read_lineage": ReadLineageReturns,
    "query_canvas": QueryCanvasReturns,
    "evaluate_node": EvaluateNodeReturns,
    "create_checkpoint": CreateCheckpointReturns,
    "restore_checkpoint": RestoreCheckpointReturns,
    "list_attempts": ListAttemptsReturns,
    "mark_stale": MarkStaleReturns,
    "regenerate_stale": RegenerateStaleReturns,
    "repair": RepairReturns,
    "verify_artifacts": VerifyArtifactsReturns,
    "generate_image": GeneratedReturns,
    "generate_video": GeneratedReturns,
    "generate_audio": GeneratedReturns,
    "assemble_cut": GeneratedReturns,
    "read_file": ReadFileReturns,
    "write_file": WriteFileReturns,
    "list_files": ListFilesReturns,
    "run_code": RunCodeReturns,
    "render_page": RenderPageReturns,
    "build_slides": BuildSlidesReturns,
    "reorder_cut": ReorderCutReturns,
    "remove_from_cut": RemoveFromCutReturns,
    "return_to_cut": ReturnToCutReturns,
    "insert_shot": NewShotReturns,
    "duplicate_shot": NewShotReturns,
    "set_clip_duration": SetClipDurationReturns,
    "list_versions": ListVersionsReturns,
    "undo_change": RestoreVersionReturns,
    "revert_version": RestoreVersionReturns,
    "undo_turn": UndoTurnReturns,
    "compare_versions": CompareVersionsReturns,
    "page_read": PageReadReturns,
    **dict.fromkeys(["page_set_text", "page_set_style", "page_set_layout", "page_add_section", "page_remove_section",
                     "page_move_section", "page_undo", "page_revert"], PageEditReturns),
    "page_replace_image": PageReplaceImageReturns,
    "deck_read": DeckReadReturns,
    **dict.fromkeys(["deck_add_slide", "deck_duplicate_slide", "deck_delete_slide", "deck_move_slide", "deck_edit_slide", "deck_set_theme",
                     "deck_undo", "deck_revert"], DeckEditReturns),
    "deck_regenerate_illustration": DeckIllustrationReturns,
}
"""The observation model of every built-in tool, by tool name."""

FAMILY_RETURNS: dict[str, type[BaseModel]] = {"mcp": McpToolReturns}
"""The observation model of a whole family's tools, where they share one."""
