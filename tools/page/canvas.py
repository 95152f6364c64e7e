"""A web page on the canvas: find its current version, list its versions, and make a new one in one batch.

A page is a lineage of ``code`` nodes (``VERSION_OF``), each holding the page
document (:class:`~content.page_document.PageDocument`), the HTML source and what
changed in it (``inputs.change``).  Made from each version: its HTML ``file``
node (the workspace's ``index.html`` as that version wrote it) and its preview
``image``.  A new version supersedes all three at once (each new node
``VERSION_OF`` the old, the old set aside as ``superseded by …``), so
``outputs/`` and every reader see one current page, and the old ones stay
readable.  Everything is one batch: the tools return it, the bridge checks it
against the grant and commits it, all or nothing.
"""

from __future__ import annotations

import hashlib
from typing import Any

from content.page_document import PageDocument
from store.base import CanvasReader
from store.errors import NodeNotFound
from store.models import CanvasNode, Direction, EdgeType, NodeStatus, Provenance, new_id
from store.mutations import CreateNode, Link, SetStatus
from tools.base import ToolContext, ToolError, ToolResult
from tools.changes import Change, Version, current_heads
from tools.native import files
from tools.native.tools import RenderPageArgs, render_page
from tools.versions import current_version

OUTPUTS_FOLDER = "web"
"""Where ``outputs/`` files a page's nodes (metadata ``outputs_folder``), whichever actor made them."""
VIEWPORT = {"width": 1280, "height": 800}
"""The viewport every page preview is rendered at."""
PAGE_KEYS = ("layout_spec", "design", "images", "site_dir")


class NotAWebPage(ToolError):
    """The node named is not a web page (a ``code`` node made by ``design_to_web`` or a page tool)."""


class NoPage(ToolError):
    """No page was named and the canvas has none, or several (the message lists them)."""


def is_page(node: CanvasNode) -> bool:
    """Whether a node is a page's code node."""
    return node.kind == "code" and all(k in node.inputs for k in PAGE_KEYS)


def find_page(canvas: CanvasReader, page_id: str | None) -> CanvasNode:
    """The current version of the page ``page_id`` names (a code node, its preview or its file), or of the
    canvas's only page when ``page_id`` is None."""
    if page_id is None:
        pages = current_pages(canvas)
        if len(pages) == 1:
            return pages[0]
        if not pages:
            raise NoPage("there is no web page on the canvas; design one first (skill__design_to_web)")
        listed = ", ".join(f"{p.id} ({p.title})" for p in pages)
        raise NoPage(f"the canvas has {len(pages)} pages; pass page_id, one of {listed}")
    try:
        node = canvas.get_node(page_id)
    except NodeNotFound:
        raise NotAWebPage(f"no canvas node {page_id}; pass a page's code node id") from None
    if node.kind in ("image", "file"):  # a preview or the HTML file: the page is what it was made from
        made_from = [n.node for n in canvas.neighbours(node.id, [EdgeType.GENERATED_FROM]) if is_page(n.node)]
        node = made_from[0] if made_from else node
    if not is_page(node):
        raise NotAWebPage(f"node {node.id} ({node.kind} {node.title!r}) is not a web page; pass the code node "
                          "design_to_web made (or a page tool returned)")
    # Edits apply to the page as it is now: a patch made on an older version would drop the changes since.
    return current_version(canvas, node)


def current_pages(canvas: CanvasReader) -> list[CanvasNode]:
    """Every page's current version."""
    return current_heads(canvas, [n for n in canvas.find_nodes(kind="code") if is_page(n)])


def made_from_page(canvas: CanvasReader, code_id: str) -> tuple[CanvasNode | None, CanvasNode | None]:
    """The HTML file node and the preview image node made from a page version (None where it has none)."""
    found = [n.node for n in canvas.neighbours(code_id, [EdgeType.GENERATED_FROM], Direction.IN)]
    live = sorted((n for n in found if not n.deleted), key=lambda n: (n.status != NodeStatus.REJECTED, n.created_at))
    html = [n for n in live if n.kind == "file" and str(n.inputs.get("path", "")).endswith(".html")]
    previews = [n for n in live if n.kind == "image" and n.provenance.tool == "render_page"]
    return (html[-1] if html else None), (previews[-1] if previews else None)


def earlier_preview(canvas: CanvasReader, versions: list[Version], page_html: str) -> CanvasNode | None:
    """The preview of an earlier version whose HTML is exactly ``page_html`` (same bytes: same picture)."""
    for version in versions:
        if version.node.inputs.get("source") == page_html:
            preview = made_from_page(canvas, version.node.id)[1]
            if preview is not None and preview.outputs:
                return preview
    return None


def commit_page(ctx: ToolContext, head: CanvasNode, doc: PageDocument, change: Change, *, tool: str,
                reuse: CanvasNode | None = None, made: list[Any] | None = None) -> ToolResult:
    """One batch that makes ``doc`` the page's new version: HTML written, preview rendered (or reused), the
    old code, file and preview nodes superseded by the new ones.

    ``reuse`` is an earlier version's preview showing exactly this HTML: its picture is reused, no render.
    ``made`` are mutations the tool made first (a generated picture) that belong in the same batch.
    """
    site_dir = str(head.inputs["site_dir"])
    html_path = f"{site_dir}/index.html"
    page_html = doc.html()
    provenance = {"provenance": Provenance(actor=ctx.actor, turn_id=ctx.turn_id, thread_id=ctx.thread_id,
                                           tool=tool).model_dump(exclude_none=True),
                  "outputs_folder": OUTPUTS_FOLDER}
    mutations: list[Any] = list(made or [])
    code_id = new_id()
    # The HTML and picture files are workspace writes like write_file's (readers key "a page's file" on that
    # tool); which page tool wrote them is kept beside it.
    written_by = {**provenance, "provenance": {**provenance["provenance"], "tool": "write_file"}, "written_by": tool}
    mutations += _image_copies(ctx, doc, site_dir, written_by)
    written = files.write_file(ctx.workspace, html_path, page_html, ctx.artifacts, "text/html")
    file_node = CreateNode(kind="file", title=written.path, status=NodeStatus.COMPLETED, inputs={"path": written.path},
                           outputs=[written.handle], metadata={**written_by, **(
                               {"replaced": written.replaced.model_dump(mode="json")} if written.replaced else {})})
    layout_id = head.inputs.get("layout_id")
    code = CreateNode(id=code_id, kind="code", title=f"{doc.design.title} page", status=NodeStatus.COMPLETED,
                      inputs={"language": "html", "html_path": html_path, "site_dir": site_dir, **doc.inputs(),
                              "source": page_html, "html_uri": written.handle.uri, "change": change.dump(),
                              **({"layout_id": layout_id} if layout_id else {})},
                      metadata=provenance)
    old_file, old_preview = made_from_page(ctx.canvas, head.id)
    try:
        preview = _preview(ctx, html_path, reuse, provenance)
    except Exception:
        # No preview (no Chromium, a render that timed out): no version, so the workspace goes back as it was.
        files.take_back_refused(ctx.workspace, ctx.artifacts, [*mutations, file_node])
        raise
    mutations += [code, file_node, preview]
    mutations += [Link(type=EdgeType.VERSION_OF, source=code_id, target=head.id),
                  Link(type=EdgeType.GENERATED_FROM, source=file_node.id, target=code_id),
                  Link(type=EdgeType.GENERATED_FROM, source=preview.id, target=code_id)]
    if layout_id:
        mutations.append(Link(type=EdgeType.GENERATED_FROM, source=code_id, target=str(layout_id)))
    mutations += [Link(type=EdgeType.REFERENCES, source=code_id, target=node_id, properties={"role": role})
                  for node_id, role in {**({doc.hero_image.node_id: "hero"} if doc.hero_image else {}),
                                        **{i.node_id: "gallery" for i in doc.images}}.items()]
    replaced = [(head, code_id), *((old, new) for old, new in ((old_file, file_node.id), (old_preview, preview.id))
                                   if old is not None and old.status != NodeStatus.REJECTED)]
    for old, new in replaced:
        if old is not head:
            mutations.append(Link(type=EdgeType.VERSION_OF, source=new, target=old.id))
        # Only if it is still current at commit: a turn that replaced it first makes this batch StaleVersion.
        mutations.append(SetStatus(node_id=old.id, status=NodeStatus.REJECTED, reason=f"superseded by {new}",
                                   expected_version=old.version))
    observation = {"page_id": code_id, "previous_page_id": head.id, "preview_id": preview.id, "html_path": html_path,
                   "change": change.dump(), "preview_reused": reuse is not None}
    return ToolResult(observation=observation, mutations=mutations)


def _preview(ctx: ToolContext, html_path: str, reuse: CanvasNode | None, provenance: dict[str, Any]) -> CreateNode:
    if reuse is not None:
        return CreateNode(kind="image", title=reuse.title, status=NodeStatus.COMPLETED,
                          inputs={**reuse.inputs, "reused_from": reuse.id}, outputs=list(reuse.outputs),
                          metadata={**provenance, "provenance": {**provenance["provenance"], "tool": "render_page"}})
    rendered = render_page(ctx, RenderPageArgs(path=html_path, **VIEWPORT))
    (node,) = [m for m in rendered.mutations if isinstance(m, CreateNode)]
    return node.model_copy(update={"metadata": {**node.metadata, "outputs_folder": OUTPUTS_FOLDER}})


def _image_copies(ctx: ToolContext, doc: PageDocument, site_dir: str, provenance: dict[str, Any]) -> list[Any]:
    """A workspace copy of each picture the page shows, unless the same bytes are there already."""
    made: list[Any] = []
    for image in doc.pictures():
        target = ctx.workspace / site_dir / image.path
        if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == image.sha256:
            continue
        data = ctx.artifacts.read_bytes(f"artifact://sha256/{image.sha256}")
        written = files.write_file(ctx.workspace, f"{site_dir}/{image.path}", data, ctx.artifacts, "image/png")
        copy = CreateNode(kind="file", title=written.path, status=NodeStatus.COMPLETED, inputs={"path": written.path},
                          outputs=[written.handle], metadata=dict(provenance))
        made += [copy, Link(type=EdgeType.GENERATED_FROM, source=copy.id, target=image.node_id,
                            properties={"as": "copy"})]
    return made


__all__ = ["OUTPUTS_FOLDER", "VIEWPORT", "NoPage", "NotAWebPage", "commit_page", "current_pages", "earlier_preview",
           "find_page", "is_page", "made_from_page"]
