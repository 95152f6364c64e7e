"""The web canvas HTTP API and page: a FastAPI app over one :class:`~jarvishub.runtime.Runtime`.

Reads come straight from the canvas store; every write (a drag, a request, an
approval) goes through the runtime's bridge as a person's action.  Every request
but the page's own files needs the server's token: writes and ``/api/query`` in
``Authorization: Bearer <token>``, reads in that header or the session cookie that
``POST /api/session`` (with the header) sets, for what a browser cannot send a
header with (images, the event stream).  On loopback too: another local user is a
stranger (docs/web-canvas.md, "The token").  The live feed is
server-sent events fed by polling the commit log (see :mod:`jarvishub.web.live`).
OpenAPI is at ``/openapi.json`` and ``/docs``; docs/web-canvas.md describes the API.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import hashlib
import hmac
import logging
import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from jarvishub.runtime import Runtime
from jarvishub.web.guards import MAX_BODY_BYTES, BodyLimit, HostGuard
from jarvishub.web.live import EventHub, change_event, sse_stream, watch_commits
from jarvishub.web.lenses import DeckLens, LensIndex, PageLens, StoryLens, StoryPatch, is_page, page_entry
from jarvishub.web.steering import Busy, Conflict, InvalidEdit, Job, Refused, Steering
from jarvishub.web.thumbs import NotAnImage, Thumbnails
from jarvishub.web.token import new_token
from jarvishub.web.views import (LINEAGE_EDGES, CanvasPage, CanvasViews, History, Lineage, NodeBatch, NodeDetail,
                                 NodeView, node_view)
from nodes.bridge import referenced_node_ids
from nodes.verdicts import GrantDenied
from store.errors import (ArtifactCorrupted, ArtifactNotFound, CypherError, NodeNotFound, QueryBusy,
                          StaleVersion)
from store.models import EdgeType
from tools.base import ToolError
from tools.history import OutputHistory, output_history
from tools.reader import ReadOnlyCanvas

log = logging.getLogger("jarvishub.web")

STATIC_DIR = Path(__file__).parent / "static"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
"""Host names a loopback server answers to (anything else is refused: DNS rebinding)."""
SESSION_COOKIE = "jarvishub_session"
MAX_PAGE = 5000
MAX_BATCH_IDS = 200
QUERY_RETRY_AFTER_S = 1
"""Retry-After of a query refused because the user-query budget is spent: a slot frees when a query ends."""
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
             "media-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
# Artifacts are untrusted bytes (a web node's HTML, an SVG): never let one run as our origin.
_ARTIFACT_HEADERS = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox; default-src 'none'",
                     "Cache-Control": "private, max-age=31536000, immutable", "Referrer-Policy": "no-referrer"}

# A page version is untrusted HTML: served sandboxed (an opaque origin, no scripts, no forms), its own inline
# styles and its pictures from this server allowed, framed only by the canvas page.
_PAGE_FRAME = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache",
               "Content-Security-Policy": "sandbox; default-src 'none'; style-src 'unsafe-inline'; "
                                          "img-src 'self' data:; font-src data:; frame-ancestors 'self'"}


_bearer = HTTPBearer(auto_error=False, description="The server's token (printed by `jarvishub ui`).")
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
"""The ``Authorization: Bearer`` header, if any (module level: FastAPI resolves annotations here)."""


# -- request and response bodies ------------------------------------------------------------
class QueryBody(BaseModel):
    """A read-only Cypher query."""

    cypher: str = Field(min_length=1, max_length=20_000)
    params: dict[str, Any] = Field(default_factory=dict)
    limit: int = Field(default=1000, ge=1, le=10_000)


class QueryAnswer(BaseModel):
    """Rows of a query, and every node id found in any returned value (what the page highlights)."""

    columns: list[str]
    rows: list[dict[str, Any]]
    truncated: bool
    elapsed_ms: float
    node_ids: list[str]


class RequestBody(BaseModel):
    """A request or feedback about some nodes, for an agent turn."""

    text: str = Field(min_length=1, max_length=4000, examples=["redo the lighting here"])
    node_ids: list[str] = Field(default_factory=list, max_length=200,
                                description="The selected nodes; a section of a selected page as `PAGE_ID#section`.")
    thread_id: str | None = Field(default=None, description="Continue this thread; a new one when absent.")
    approval_tools: list[str] = Field(default_factory=list, description="Tools that must wait for approval.")
    ask_before_changes: bool = Field(default=False, description="Every canvas-changing tool waits for approval.")


class ResumeBody(BaseModel):
    """A person's answer to the approval a thread waits on."""

    decision: Literal["approve", "reject"]
    message: str = Field(default="", max_length=4000)


class MoveBody(BaseModel):
    """Where a person dropped a node."""

    model_config = ConfigDict(allow_inf_nan=False)

    x: float = Field(ge=-1e7, le=1e7)
    y: float = Field(ge=-1e7, le=1e7)


class RestoreBody(BaseModel):
    """Which version of an output to make current again (a number as ``GET .../versions`` lists them)."""

    version: int = Field(ge=1)


class RejectBody(BaseModel):
    """Why a person set a version aside."""

    reason: str = Field(default="rejected from the version view", min_length=1, max_length=400)


class EditBody(BaseModel):
    """A person's change of a node's inputs (merged key by key into the current inputs)."""

    inputs: dict[str, Any] = Field(min_length=1, max_length=50)


class Pending(BaseModel):
    """What a thread waits on."""

    thread_id: str
    pending: dict[str, Any] | None


class Info(BaseModel):
    """The server and project this page talks to."""

    project: str
    person: str
    canvas_version: int
    protect_reads: bool = Field(default=True, description="Always true: reads need the token, as writes do.")
    edge_types: list[EdgeType]


# -- the app ----------------------------------------------------------------------------------
def create_app(
    runtime: Runtime,
    token: str | None,
    *,
    allowed_hosts: Sequence[str] | None = tuple(LOOPBACK_HOSTS),
    person: str | None = None,
    watch: bool = True,
    max_body_bytes: int = MAX_BODY_BYTES,
) -> FastAPI:
    """The web canvas app for one runtime.

    ``token`` guards every read and write (a random one is made when None: read
    it from ``app.state.token``); reads take it as a header or as the cookie
    ``POST /api/session`` sets.  ``allowed_hosts`` is what the Host header may name (None:
    any).  ``person`` names the actor of writes (``person:<name>``; default the
    OS user).  ``watch`` runs the commit-log poller (the live feed).  Request
    bodies over ``max_body_bytes`` are refused (413) before they are read.
    """
    token = token or new_token()
    person = person or _os_user()
    store = runtime.project.store
    hub = EventHub()
    views = CanvasViews(store)
    thumbs = Thumbnails(runtime.project.artifacts, runtime.project.state_dir / "thumbs")
    steering = Steering(runtime, hub, person)
    verified: dict[str, Path] = {}
    session_value = hmac.new(token.encode(), b"jarvishub-session", hashlib.sha256).hexdigest()

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        hub.bind(asyncio.get_running_loop())
        watcher = asyncio.create_task(watch_commits(store, hub)) if watch else None
        try:
            yield
        finally:
            if watcher is not None:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
            hub.close()
            steering.close()

    app = FastAPI(
        title="JarvisHub canvas",
        version="1",
        summary="Read the canvas, watch it change, and steer the agent. Writes need `Authorization: Bearer <token>`.",
        lifespan=lifespan,
    )
    app.state.token = token
    app.state.steering = steering
    app.state.hub = hub
    app.state.thumbs = thumbs
    app.state.views = views
    # Added last, so it runs first: no route, dependency or body parser sees an oversized body.
    app.add_middleware(BodyLimit, limit=max_body_bytes)
    if allowed_hosts is not None:
        app.add_middleware(HostGuard, hosts=frozenset(allowed_hosts))

    def reader(request: Request, credentials: Credentials) -> None:
        if credentials is not None and _same(credentials.credentials, token):
            return
        if _same(request.cookies.get(SESSION_COOKIE, ""), session_value):
            return
        raise _unauthorised()

    def writer(credentials: Credentials) -> None:
        # Only the header counts for writes: a cookie would be sent by any page's cross-site form.
        if credentials is None or not _same(credentials.credentials, token):
            raise _unauthorised()

    api = APIRouter(prefix="/api", dependencies=[Depends(reader)])

    @api.get("/info", response_model=Info, summary="The project, the person writing, the canvas version")
    def info() -> Info:
        return Info(project=runtime.project.name, person=person, canvas_version=store.canvas_version(),
                    protect_reads=True, edge_types=list(EdgeType))

    @api.get("/canvas", response_model=CanvasPage, summary="Nodes (creation order) and their edges, paged")
    def canvas(offset: int = Query(0, ge=0), limit: int = Query(2000, ge=1, le=MAX_PAGE)) -> CanvasPage:
        return views.page(offset, limit)

    @api.get("/lenses", response_model=LensIndex, summary="Which lenses the canvas has, and the one it opens in")
    def lenses() -> LensIndex:
        return views.lenses()

    @api.get("/lenses/story", response_model=StoryLens | StoryPatch,
             summary="The Story lens: shots in order with current image, clip, status and version stack; the cut. "
                     "With since=VERSION (the canvas version of the answer the page holds), only what changed")
    def story(since: int | None = Query(None, ge=0, description="Answer with a patch from this canvas version's "
                                                                 "answer, when the server still keeps it")) -> Response:
        # Serialised once per canvas version: a 400-shot story is sent as stored bytes, not validated again.
        return Response(views.story_json(since), media_type="application/json")

    @api.get("/lenses/deck", response_model=DeckLens,
             summary="The Deck lens: the current deck's slides in order, each with its older versions")
    def deck() -> Response:
        return Response(views.lens_json("deck"), media_type="application/json")

    @api.get("/lenses/page", response_model=PageLens,
             summary="The Page lens: the current page, its sections and its versions")
    def page() -> PageLens:
        lens: PageLens = views.lens("page")  # type: ignore[assignment]
        if lens.page is None or lens.entry is None:
            return lens
        node_id = lens.page.node_id
        return lens.model_copy(update={"frame_src": f"/framed/{frame_key(node_id)}/{node_id}/{lens.entry}"})

    @api.get("/nodes", response_model=NodeBatch, summary="Some nodes by id, and every edge touching them")
    def nodes(ids: str = Query(..., description="Comma-separated node ids")) -> NodeBatch:
        wanted = [i for i in ids.split(",") if i]
        if not wanted or len(wanted) > MAX_BATCH_IDS:
            raise HTTPException(400, f"ask for 1 to {MAX_BATCH_IDS} ids")
        return views.batch(wanted)

    @api.get("/nodes/{node_id}", response_model=NodeDetail, summary="One node in full (inputs, metadata, edges)")
    def node(node_id: str) -> NodeDetail:
        return views.detail(node_id)

    @api.get("/nodes/{node_id}/history", response_model=History, summary="Every version, and VERSION_OF lineage")
    def history(node_id: str) -> History:
        return views.history(node_id)

    @api.get("/nodes/{node_id}/lineage", response_model=Lineage, summary="Ancestors and descendants")
    def lineage(node_id: str, max_depth: Annotated[int | None, Query(ge=1, le=100)] = None,
                edge_types: Annotated[list[EdgeType] | None, Query()] = None) -> Lineage:
        return views.lineage(node_id, edge_types or LINEAGE_EDGES, max_depth)

    # Queries need the token like writes: user Cypher is the widest door into the engine.
    @api.post("/query", response_model=QueryAnswer, dependencies=[Depends(writer)],
              summary="Run read-only Cypher (needs the token); writes are refused (400)")
    def query(body: QueryBody) -> QueryAnswer:
        result = store.query(body.cypher, body.params, row_limit=body.limit)
        ids = list(dict.fromkeys(referenced_node_ids(result.rows)))
        return QueryAnswer(columns=result.columns, rows=result.rows, truncated=result.truncated,
                           elapsed_ms=result.elapsed_ms, node_ids=ids)

    @api.get("/events", summary="Server-sent events: `canvas` (changed node ids) and `job` (turn progress)",
             response_class=StreamingResponse)
    async def events(request: Request, since: int | None = Query(None, ge=0),
                     last_event_id: str | None = Header(None)) -> StreamingResponse:
        # A reconnecting EventSource sends the last canvas version it saw; that beats the page's first `since`.
        start = int(last_event_id) if last_event_id and last_event_id.isdigit() else since
        first: list[tuple[str, dict[str, Any]]] = []
        if start is not None:  # catch up on what happened since the page's last look
            missed = await asyncio.to_thread(lambda: store.commits(since_version=start))
            if missed:
                first.append(("canvas", await asyncio.to_thread(change_event, store, missed)))
        first.append(("hello", {"canvas_version": await asyncio.to_thread(store.canvas_version)}))
        return StreamingResponse(sse_stream(hub, first, request.is_disconnected), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @api.post("/requests", response_model=Job, status_code=202, dependencies=[Depends(writer)],
              summary="Send a request or feedback about the selected nodes; an agent turn runs on it")
    def send_request(body: RequestBody) -> Job:
        return steering.request(body.text, list(dict.fromkeys(body.node_ids)), thread_id=body.thread_id,
                                approval_tools=body.approval_tools, ask_before_changes=body.ask_before_changes)

    @api.get("/jobs", response_model=list[Job], summary="Turns started from this server, newest first")
    def jobs() -> list[Job]:
        return steering.jobs()

    @api.get("/jobs/{job_id}", response_model=Job, summary="One turn started from this server")
    def job(job_id: str) -> Job:
        found = steering.job(job_id)
        if found is None:
            raise HTTPException(404, f"no job {job_id}")
        return found

    @api.get("/threads/{thread_id}/pending", response_model=Pending, summary="The approval a thread waits on")
    def pending(thread_id: str) -> Pending:
        return Pending(thread_id=thread_id, pending=steering.pending(thread_id))

    @api.post("/threads/{thread_id}/resume", response_model=Job, status_code=202, dependencies=[Depends(writer)],
              summary="Approve or reject what a thread waits on; the turn continues in the background")
    def resume(thread_id: str, body: ResumeBody) -> Job:
        return steering.resume(thread_id, body.decision, body.message)

    @api.get("/nodes/{node_id}/versions", response_model=OutputHistory,
             summary="Every version of the output a node belongs to, numbered, with what each changed")
    def versions(node_id: str) -> OutputHistory:
        return output_history(ReadOnlyCanvas(store), node_id)

    @api.post("/nodes/{node_id}/restore", dependencies=[Depends(writer)],
              summary="Make a version current again (the version tool revert_version, as the person)")
    def restore(node_id: str, body: RestoreBody) -> dict[str, Any]:
        return steering.restore(node_id, body.version)

    @api.post("/nodes/{node_id}/reject", response_model=NodeView, dependencies=[Depends(writer)],
              summary="Set a version aside (status rejected, through set_status, as the person)")
    def reject(node_id: str, body: RejectBody) -> NodeView:
        return node_view(steering.reject(node_id, body.reason))

    @api.post("/nodes/{node_id}/inputs", dependencies=[Depends(writer)],
              summary="Change a node's inputs (update_node, as the person); it and what derives from it go stale")
    def edit(node_id: str, body: EditBody) -> dict[str, Any]:
        return steering.edit(node_id, body.inputs)

    @api.post("/nodes/{node_id}/move", response_model=NodeView, dependencies=[Depends(writer)],
              summary="Move a node (pinned: the layout keeps it there)")
    def move(node_id: str, body: MoveBody) -> NodeView:
        return node_view(steering.move(node_id, body.x, body.y))

    @app.post("/api/session", status_code=204, dependencies=[Depends(writer)],
              summary="Trade the token for a same-site cookie, so images and the event stream can be read")
    def session() -> Response:
        response = Response(status_code=204)
        response.set_cookie(SESSION_COOKIE, session_value, httponly=True, samesite="strict", path="/")
        return response

    app.include_router(api)

    @app.get("/artifacts/{sha256}", dependencies=[Depends(reader)], response_class=FileResponse,
             summary="An artifact's bytes, by sha256, from the artifact store only")
    def artifact(sha256: str) -> FileResponse:
        if not _SHA256.match(sha256):
            raise HTTPException(400, "an artifact is named by 64 lowercase hex digits (its sha256)")
        path = verified.get(sha256)
        if path is None:  # verify once: blobs are write-once and read-only
            path = runtime.project.artifacts.local_path(sha256)
            verified[sha256] = path
        return FileResponse(path, media_type=sniff_mime(path), headers=_ARTIFACT_HEADERS)

    @app.get("/thumbs/{sha256}", dependencies=[Depends(reader)], response_class=FileResponse,
             summary="A WebP thumbnail of an image artifact (w: 160, 320 or 640 px), cached by its sha256")
    def thumbnail(sha256: str, w: int = Query(320, ge=16, le=2048)) -> FileResponse:
        if not _SHA256.match(sha256):
            raise HTTPException(400, "an artifact is named by 64 lowercase hex digits (its sha256)")
        return FileResponse(thumbs.path(sha256, w), media_type="image/webp", headers=_ARTIFACT_HEADERS)

    @app.get("/pages/{node_id}/{path:path}", dependencies=[Depends(reader)], include_in_schema=True,
             summary="A version of a web page (its HTML, and the pictures it names) for a sandboxed iframe")
    def page_file(node_id: str, path: str) -> Response:
        node = store.get_node(node_id)
        if not is_page(node):
            raise HTTPException(404, f"{node_id} is not a web page")
        # Everything comes from the version's own record and the artifact store, never from the workspace
        # folder: an old version shows the pictures it was made with, and no path can leave the store.
        if path in ("", page_entry(node)):
            return Response(str(node.inputs["source"]), media_type="text/html; charset=utf-8", headers=_PAGE_FRAME)
        for picture in node.inputs.get("images") or []:
            if isinstance(picture, dict) and picture.get("path") == path and _SHA256.match(str(picture.get("sha256"))):
                source = runtime.project.artifacts.local_path(str(picture["sha256"]))
                return FileResponse(source, media_type=sniff_mime(source), headers=_ARTIFACT_HEADERS)
        raise HTTPException(404, f"the page {node_id} has no file {path!r}")

    def frame_key(node_id: str) -> str:
        return hmac.new(token.encode(), f"page-frame:{node_id}".encode(), hashlib.sha256).hexdigest()

    # The Page lens's iframe is sandboxed (an opaque origin): its requests for the page's pictures carry no
    # cookie and no header.  Its path holds a key only a token holder is given (/api/lenses/page), bound to
    # that one page version: the page's relative picture paths resolve under it.
    @app.get("/framed/{key}/{node_id}/{path:path}", include_in_schema=False)
    def framed_page_file(key: str, node_id: str, path: str) -> Response:
        if not _same(key, frame_key(node_id)):
            raise _unauthorised()
        return page_file(node_id, path)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html",
                            headers={"Content-Security-Policy": _PAGE_CSP, "Referrer-Policy": "no-referrer",
                                     "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    _add_error_handlers(app)
    return app


# -- helpers ----------------------------------------------------------------------------------
def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


def _unauthorised() -> HTTPException:
    return HTTPException(401, "a valid token is needed: send Authorization: Bearer <token>",
                         headers={"WWW-Authenticate": "Bearer"})


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment (a container without one)
        return "local"


def _add_error_handlers(app: FastAPI) -> None:
    def handler(status: int):
        async def handle(_: Request, error: Exception) -> JSONResponse:
            return JSONResponse({"detail": str(error), "error": type(error).__name__}, status_code=status)

        return handle

    for error_type, status in ((NodeNotFound, 404), (ArtifactNotFound, 404), (CypherError, 400),
                               (Refused, 403), (InvalidEdit, 422), (GrantDenied, 403), (NotAnImage, 415), (ToolError, 422), (Busy, 409), (StaleVersion, 409),
                               (Conflict, 409),
                               (ArtifactCorrupted, 500)):
        app.add_exception_handler(error_type, handler(status))

    async def too_many_queries(_: Request, error: Exception) -> JSONResponse:
        # The user-query budget is spent: nothing is wrong with the query, so say when to send it again.
        return JSONResponse({"detail": str(error), "error": type(error).__name__}, status_code=429,
                            headers={"Retry-After": str(QUERY_RETRY_AFTER_S)})

    app.add_exception_handler(QueryBusy, too_many_queries)  # the most specific handler wins over CypherError's


_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF8", 0, "image/gif"),
    (b"WEBP", 8, "image/webp"),
    (b"ftyp", 4, "video/mp4"),
    (b"\x1a\x45\xdf\xa3", 0, "video/webm"),
    (b"WAVE", 8, "audio/wav"),
    (b"ID3", 0, "audio/mpeg"),
    (b"OggS", 0, "audio/ogg"),
    (b"fLaC", 0, "audio/flac"),
    (b"%PDF-", 0, "application/pdf"),
)


def sniff_mime(path: Path) -> str:
    """The media type of an artifact from its first bytes; anything else is served as opaque bytes."""
    with open(path, "rb") as f:
        head = f.read(16)
    for magic, at, mime in _MAGIC:
        if head[at: at + len(magic)] == magic:
            return mime
    if head[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return "audio/mpeg"
    return "application/octet-stream"
