"""The native tool family as :class:`~tools.base.ToolSpec` objects: files, code, page renders and slides.

Each tool validates its pydantic arguments, does its work in the workspace and
the artifact store, and returns a :class:`~tools.base.ToolResult` whose
``mutations`` create the canvas nodes that record what it made (a ``file``,
``code``, ``image`` preview, or ``deck`` with its ``slide`` nodes).  The tools
never write the canvas themselves; the commit node applies those mutations.
"""

from __future__ import annotations

import base64
import binascii
import io
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from PIL import Image
from pydantic import BaseModel, Field, ValidationError, model_validator

from store.errors import ArtifactNotFound, NodeNotFound
from store.models import ArtifactHandle, CanvasNode, EdgeType, NodeStatus, Provenance, new_id
from store.mutations import CreateNode, GroupNodes, Link
from tools.base import Effect, ToolContext, ToolError, ToolFamily, ToolResult, ToolSpec
from tools.native import files
from tools.native.browser import Browser, Screenshot, Viewport, check_browser
from tools.native.kept_browser import KeptBrowser
from tools.native.code import CodeLimits, run_python
from tools.native.settings import native_settings
from tools.native.slide_spec import DeckSpec
from tools.native.slides import build_deck
from tools.native.workspace import relative_to_workspace, resolve_in_workspace

HTML_MIME = "text/html"
"""The MIME type render_page looks for among a canvas node's outputs."""


class CanvasNodeMissing(ToolError):
    """A tool argument names a canvas node that does not exist, or the tool has no canvas to read."""


class PageSourceError(ToolError):
    """render_page was given a source it cannot turn into a page (no HTML in the node, not HTML, ...)."""


# ---------------------------------------------------------------- arguments


class ReadFileArgs(BaseModel):
    """Arguments of read_file."""

    path: str = Field(description="File path relative to the workspace.")
    encoding: Literal["text", "base64"] = Field(default="text", description="UTF-8 text, or base64 for bytes.")
    max_bytes: int | None = Field(default=None, ge=1, description="Read at most this many bytes.")


class WriteFileArgs(BaseModel):
    """Arguments of write_file."""

    path: str = Field(description="File path relative to the workspace; missing folders are created.")
    content: str
    encoding: Literal["text", "base64"] = Field(default="text", description="How content is encoded.")
    mime: str | None = Field(default=None, description="MIME type; guessed from the file name when unset.")


class ListFilesArgs(BaseModel):
    """Arguments of list_files."""

    path: str = Field(default=".", description="Folder relative to the workspace.")
    recursive: bool = False


class RunCodeArgs(BaseModel):
    """Arguments of run_code."""

    source: str = Field(min_length=1, description="Python source, run as a script in a fresh run folder.")
    inputs: list[str] = Field(
        default_factory=list,
        description="Workspace files or folders the snippet reads; copies appear under /sandbox/in/<path>.",
    )
    timeout_s: float | None = Field(default=None, gt=0,
                                    description="A shorter wall-clock limit; the grant's if unset (never more).")
    memory_mb: int | None = Field(
        default=None, ge=64, description="A smaller address-space limit; the grant's if unset (never more)."
    )


class RenderPageArgs(BaseModel):
    """Arguments of render_page: exactly one source, and the viewport."""

    path: str | None = Field(default=None, description="An HTML file in the workspace.")
    html: str | None = Field(default=None, description="HTML text; relative URLs resolve against the workspace.")
    artifact: ArtifactHandle | str | None = Field(default=None, description="An HTML artifact (handle or URI).")
    node_id: str | None = Field(default=None, description="A canvas node whose HTML output (or inputs.html) to render.")
    width: int = Field(default=1280, ge=16, le=8192)
    height: int = Field(default=720, ge=16, le=8192)
    full_page: bool = False

    @model_validator(mode="after")
    def _one_source(self) -> RenderPageArgs:
        given = [n for n in ("path", "html", "artifact", "node_id") if getattr(self, n) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of path, html, artifact, node_id (got {given or 'none'})")
        return self


class BuildSlidesArgs(DeckSpec):
    """Arguments of build_slides: the deck spec itself."""


# ---------------------------------------------------------------- tools


def read_file(ctx: ToolContext, args: ReadFileArgs) -> ToolResult:
    """Return a workspace file's content to the model; changes nothing."""
    ceiling = native_settings(ctx.settings).read_max_bytes
    limit = min(args.max_bytes or ceiling, ceiling)
    if args.encoding == "text":
        content = files.read_text(ctx.workspace, args.path, limit)
    else:
        content = base64.b64encode(files.read_bytes(ctx.workspace, args.path, limit)).decode("ascii")
    size = resolve_in_workspace(ctx.workspace, args.path).stat().st_size
    return ToolResult(
        observation={
            "path": args.path,
            "encoding": args.encoding,
            "size": size,
            "truncated": size > limit,
            "content": content,
        }
    )


def write_file(ctx: ToolContext, args: WriteFileArgs) -> ToolResult:
    """Write a workspace file and record it as a ``file`` node holding the written bytes."""
    if args.encoding == "base64":
        try:
            data: bytes | str = base64.b64decode(args.content, validate=True)
        except (binascii.Error, ValueError) as exc:  # non-ASCII text is a ValueError, not a binascii.Error
            raise ToolError(f"content is not valid base64 ({exc}); send text with encoding='text'") from exc
    else:
        data = args.content
    written = files.write_file(ctx.workspace, args.path, data, ctx.artifacts, args.mime)
    node = CreateNode(
        kind="file",
        title=written.path,
        status=NodeStatus.COMPLETED,
        inputs={"path": written.path},
        outputs=[written.handle],
        metadata={"provenance": _provenance(ctx, "write_file"),
                  **({"replaced": written.replaced.model_dump(mode="json")} if written.replaced else {})},
    )
    return ToolResult(
        observation={"path": written.path, "size": written.handle.size, "uri": written.handle.uri, "node_id": node.id},
        mutations=[node],
    )


def list_files(ctx: ToolContext, args: ListFilesArgs) -> ToolResult:
    """List a workspace folder with sizes; changes nothing."""
    entries = files.list_files(ctx.workspace, args.path, args.recursive)
    return ToolResult(observation={"path": args.path, "entries": [e.model_dump() for e in entries]})


def run_code(ctx: ToolContext, args: RunCodeArgs) -> ToolResult:
    """Run a Python snippet under limits and record it as a ``code`` node with the files it made."""
    settings = native_settings(ctx.settings)
    granted = _sandbox_limits(ctx)
    # The grant sets the limits (and the deployment's settings cap them); a call may only ask for less.
    timeout = min(granted.timeout_s, settings.code_max_timeout_s)
    memory = min(granted.memory_mb, settings.code_max_memory_mb)
    limits = CodeLimits(
        timeout_s=min(args.timeout_s or timeout, timeout),
        memory_mb=max(64, min(args.memory_mb or memory, memory)),
        processes=granted.processes,
        file_mb=granted.file_mb,
        tmp_mb=granted.tmp_mb,
        output_mb=granted.output_mb,
        output_limit=settings.code_output_limit,
        allow_processes=settings.code_allow_processes,
        guard=settings.code_guard,
    )
    if ctx.progress:
        ctx.progress(f"running Python (limit {limits.timeout_s:g} s, {limits.memory_mb} MiB)")
    run = run_python(args.source, ctx.workspace, ctx.artifacts, limits, args.inputs)
    node = CreateNode(
        kind="code",
        title=_first_line(args.source),
        status=NodeStatus.COMPLETED if run.ok else NodeStatus.FAILED,
        inputs={"source": args.source, "language": "python"},
        outputs=[f.handle for f in run.files],
        metadata={
            "exit_code": run.exit_code,
            "timed_out": run.timed_out,
            "duration_s": run.duration_s,
            "run_dir": run.run_dir,
            "provenance": _provenance(ctx, "run_code"),
        },
    )
    observation = run.model_dump(exclude={"files"})
    observation["files"] = [{"path": f.path, "uri": f.handle.uri, "size": f.handle.size} for f in run.files]
    observation["node_id"] = node.id
    return ToolResult(observation=observation, mutations=[node])


def render_page(ctx: ToolContext, args: RenderPageArgs) -> ToolResult:
    """Screenshot an HTML page and record it as an ``image`` preview node (linked to its source node)."""
    viewport = Viewport(width=args.width, height=args.height, full_page=args.full_page)
    roots = [Path(ctx.workspace)] + ([Path(ctx.artifacts.root)] if hasattr(ctx.artifacts, "root") else [])
    page = _page_source(ctx, args)  # before launching Chromium, so a bad source fails fast
    with _browser(ctx) as browser:
        if page.file is not None:
            shot = browser.screenshot_file(page.file, viewport, roots)
        else:
            shot = browser.screenshot_html(page.html or "", ctx.workspace, viewport, roots)
    return _preview_result(ctx, shot, viewport, page)


def build_slides(ctx: ToolContext, args: BuildSlidesArgs) -> ToolResult:
    """Build a .pptx and slide previews, recorded as a ``deck`` node grouping one ``slide`` node per slide."""
    sources = sorted({i for s in args.slides for i in s.source_node_ids})
    if sources and ctx.canvas is not None:
        _read_nodes(ctx, sources)
    built = build_deck(args, ctx.artifacts)
    provenance = _provenance(ctx, "build_slides")
    deck_id = new_id()  # before the slides' ids: outputs/ names the earliest of one title plainly (the .pptx)
    slide_ids = [new_id() for _ in args.slides]
    deck = CreateNode(
        id=deck_id,
        kind="deck",
        title=args.title,
        status=NodeStatus.COMPLETED,
        # The slides in order: later versions of the deck (tools.deck) regroup kept slides, so the list is
        # what says which slides this version had.
        inputs={"spec": args.model_dump(mode="json"), "slide_ids": slide_ids},
        outputs=[built.pptx],
        metadata={"slide_count": len(args.slides), "provenance": provenance},
    )
    mutations: list[Any] = [deck]
    for number, (slide_id, spec, preview) in enumerate(zip(slide_ids, args.slides, built.previews, strict=True), 1):
        slide = CreateNode(
            id=slide_id,
            kind="slide",
            title=spec.title,
            status=NodeStatus.COMPLETED,
            inputs={"index": number, "spec": spec.model_dump(mode="json")},
            outputs=[preview],
            metadata={"deck_id": deck.id, "provenance": provenance},
        )
        mutations.append(slide)
        mutations += [Link(type=EdgeType.GENERATED_FROM, source=slide.id, target=s) for s in spec.source_node_ids]
    mutations.append(GroupNodes(group_id=deck.id, node_ids=slide_ids))
    return ToolResult(
        observation={
            "deck_node_id": deck.id,
            "pptx": built.pptx.uri,
            "slides": [{"node_id": i, "preview": p.uri} for i, p in zip(slide_ids, built.previews, strict=True)],
        },
        mutations=mutations,
    )


# ---------------------------------------------------------------- specs

_Args = TypeVar("_Args", bound=BaseModel)


def _spec(
    name: str, description: str, args: type[_Args], effects: set[Effect], fn: Callable[[ToolContext, _Args], ToolResult],
    preflight: Callable[[ToolContext], None] | None = None,
) -> ToolSpec:
    def run(ctx: ToolContext, given: BaseModel | Mapping[str, Any]) -> ToolResult:
        # A raw tool call may arrive as a dict or as another model: validate into ours,
        # and turn a bad argument into an error the model can read and fix.
        if isinstance(given, args):
            return fn(ctx, given)
        data = given.model_dump() if isinstance(given, BaseModel) else dict(given)
        try:
            parsed = args.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
            raise ToolError(f"invalid arguments for {name}: {problems}") from exc
        return fn(ctx, parsed)

    return ToolSpec(
        name=name,
        family=ToolFamily.NATIVE,
        description=description,
        args_schema=args,
        effects=frozenset(effects),
        run=run,
        preflight=preflight,
    )


def native_tool(name: str, description: str, args: type[_Args], effects: set[Effect],
                fn: Callable[[ToolContext, _Args], ToolResult]) -> ToolSpec:
    """A tool of the native family whose arguments arrive raw and are validated into ``args`` (a bad one is a
    :class:`ToolError` the model reads); the page and deck tools are built with it too."""
    return _spec(name, description, args, effects, fn)


READ_FILE = _spec(
    "read_file",
    "Read a file from the project workspace as UTF-8 text or base64 bytes.",
    ReadFileArgs,
    {Effect.READ_ONLY},
    read_file,
)
"""Tool: read a workspace file."""
WRITE_FILE = _spec(
    "write_file",
    "Write a file in the project workspace (creating folders) and add it to the canvas as a file node.",
    WriteFileArgs,
    {Effect.MUTATES_CANVAS},
    write_file,
)
"""Tool: write a workspace file."""
LIST_FILES = _spec(
    "list_files",
    "List files and folders of the project workspace with their sizes.",
    ListFilesArgs,
    {Effect.READ_ONLY},
    list_files,
)
"""Tool: list a workspace folder."""
RUN_CODE = _spec(
    "run_code",
    "Run a Python snippet in a sandbox (no network, no project files) with time and memory limits. Declared "
    "input files are copied to /sandbox/in; files it creates in its working folder are returned and recorded "
    "on a code node.",
    RunCodeArgs,
    {Effect.MUTATES_CANVAS, Effect.LONG_RUNNING},
    run_code,
)
"""Tool: run a Python snippet."""
RENDER_PAGE = _spec(
    "render_page",
    "Render an HTML page (workspace file, HTML text, artifact or node) to a PNG preview node; no internet.",
    RenderPageArgs,
    {Effect.MUTATES_CANVAS, Effect.LONG_RUNNING},
    render_page,
    preflight=lambda ctx: browser_ready(ctx),
)
"""Tool: screenshot an HTML page."""
BUILD_SLIDES = _spec(
    "build_slides",
    "Build a .pptx deck from slide specs, with a PNG preview per slide, as a deck node grouping slide nodes.",
    BuildSlidesArgs,
    {Effect.MUTATES_CANVAS},
    build_slides,
)
"""Tool: build a slide deck."""

NATIVE_TOOLS: tuple[ToolSpec, ...] = (READ_FILE, WRITE_FILE, LIST_FILES, RUN_CODE, RENDER_PAGE, BUILD_SLIDES)
"""Every native tool, for the manifest."""


# ---------------------------------------------------------------- helpers


def _provenance(ctx: ToolContext, tool: str) -> dict[str, Any]:
    return Provenance(actor=ctx.actor, turn_id=ctx.turn_id, thread_id=ctx.thread_id, tool=tool).model_dump(
        exclude_none=True
    )


def _sandbox_limits(ctx: ToolContext) -> Any:
    """The sandbox limits of the grant this call runs under (the defaults when it runs outside the bridge)."""
    from tools.native.code import SandboxLimits

    port, grant_id = ctx.services.get("bridge"), ctx.services.get("grant_id")
    if port is not None and grant_id and hasattr(port, "grant"):
        return port.grant(grant_id).sandbox
    return SandboxLimits()


def _first_line(source: str) -> str:
    line = next((s.strip() for s in source.splitlines() if s.strip()), "python")
    return line if len(line) <= 60 else line[:57] + "..."


def browser_ready(ctx: ToolContext) -> None:
    """``render_page``'s preflight: Chromium and bubblewrap are here (or the caller lends a running browser)."""
    shared = ctx.services.get("browser")
    if isinstance(shared, KeptBrowser):
        shared.ready()
    elif not isinstance(shared, Browser):
        check_browser(native_settings(ctx.settings).chromium)


@contextmanager
def _browser(ctx: ToolContext) -> Iterator[Browser | KeptBrowser]:
    # A runtime keeps one browser for its life (KeptBrowser, on its own thread), and a caller rendering on one
    # thread may lend a Browser; otherwise each call launches and closes its own.
    shared = ctx.services.get("browser")
    if isinstance(shared, (Browser, KeptBrowser)):
        yield shared
        return
    settings = native_settings(ctx.settings)
    roots = [Path(ctx.workspace)] + ([Path(ctx.artifacts.root)] if hasattr(ctx.artifacts, "root") else [])
    with Browser.launch(settings.chromium, settings.browser_timeout_s, roots=roots) as browser:
        yield browser


def _read_nodes(ctx: ToolContext, node_ids: list[str]) -> list[CanvasNode]:
    if ctx.canvas is None:
        raise CanvasNodeMissing(f"no canvas is available to read nodes {node_ids}")
    try:
        return list(ctx.canvas.get_nodes(node_ids))
    except NodeNotFound as exc:
        raise CanvasNodeMissing(str(exc)) from exc


def _read_node(ctx: ToolContext, node_id: str) -> CanvasNode:
    found = _read_nodes(ctx, [node_id])
    if not found:
        raise CanvasNodeMissing(f"no canvas node with id {node_id!r}")
    return found[0]


@dataclass(frozen=True)
class _Page:
    """A page to render, resolved from the arguments: a workspace file or HTML text, and what to record."""

    source: dict[str, Any]
    label: str
    file: Path | None = None
    html: str | None = None
    node: CanvasNode | None = None


def _page_source(ctx: ToolContext, args: RenderPageArgs) -> _Page:
    if args.path is not None:
        file = resolve_in_workspace(ctx.workspace, args.path)
        if not file.is_file():
            raise files.WorkspaceFileNotFound(f"no file {args.path!r} in the workspace to render")
        return _Page({"kind": "file", "path": relative_to_workspace(ctx.workspace, file)}, args.path, file=file)
    if args.html is not None:
        stored = ctx.artifacts.put_bytes(args.html.encode("utf-8"), HTML_MIME, name="page.html")
        return _Page({"kind": "html", "uri": stored.uri}, "HTML", html=args.html)
    if args.artifact is not None:
        uri = args.artifact.uri if isinstance(args.artifact, ArtifactHandle) else args.artifact
        return _Page({"kind": "artifact", "uri": uri}, uri, html=_html_artifact(ctx, args.artifact))
    assert args.node_id is not None
    node = _read_node(ctx, args.node_id)
    source, label = {"kind": "node", "node_id": node.id}, node.title or node.id
    page = next((h for h in node.outputs if h.mime.split(";")[0].strip() == HTML_MIME), None)
    if page is not None:
        return _Page(source, label, html=_html_artifact(ctx, page), node=node)
    html = node.inputs.get("html")
    if isinstance(html, str) and html.strip():
        return _Page(source, label, html=html, node=node)
    raise PageSourceError(f"canvas node {node.id} ({node.kind}) has no {HTML_MIME} output and no inputs.html to render")


def _html_artifact(ctx: ToolContext, ref: ArtifactHandle | str) -> str:
    uri = ref.uri if isinstance(ref, ArtifactHandle) else ref
    if isinstance(ref, ArtifactHandle) and ref.mime.split(";")[0].strip() != HTML_MIME:
        raise PageSourceError(f"artifact {uri} is {ref.mime}, not {HTML_MIME}")
    try:
        return ctx.artifacts.read_bytes(ref).decode("utf-8")
    except ArtifactNotFound as exc:
        raise PageSourceError(f"artifact {uri} is not in the artifact store") from exc
    except UnicodeDecodeError as exc:
        raise PageSourceError(f"artifact {uri} is not UTF-8 HTML") from exc


def _preview_result(ctx: ToolContext, shot: Screenshot, viewport: Viewport, page: _Page) -> ToolResult:
    png = ctx.artifacts.put_bytes(shot.png, "image/png", name="preview.png")
    with Image.open(io.BytesIO(shot.png)) as picture:
        width, height = picture.size  # differs from the viewport for full-page captures
    node = CreateNode(
        kind="image",
        title=f"preview of {page.label}",
        status=NodeStatus.COMPLETED,
        inputs={"viewport": viewport.model_dump(), "source": page.source},
        outputs=[png],
        metadata={"provenance": _provenance(ctx, "render_page"), "blocked_requests": shot.blocked},
    )
    mutations: list[Any] = [node]
    if page.node is not None:
        mutations.append(Link(type=EdgeType.GENERATED_FROM, source=node.id, target=page.node.id))
    return ToolResult(
        observation={
            "node_id": node.id,
            "png": png.uri,
            "width": width,
            "height": height,
            "blocked_requests": shot.blocked,
        },
        mutations=mutations,
    )
