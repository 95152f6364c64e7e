"""Page renders with the real Chromium: exact sizes and colours, relative images, and the network fence."""

from __future__ import annotations

import io
import os
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image

from store.models import CanvasNode, EdgeType, NodeStatus
from store.mutations import CreateNode, Link
from tools.base import Effect, ToolContext
from tests.system_tools import require_system_tool
from tools.native.browser import Browser, BrowserUnavailable, Viewport, find_chromium, request_allowed
from tools.native.tools import RENDER_PAGE, CanvasNodeMissing, PageSourceError, RenderPageArgs

RED = (220, 20, 60)
BLUE = (0, 90, 255)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """One jailed Chromium for the whole module, able to read the session's temporary folders (every test's
    workspace is one); skipped with the install hint when absent."""
    require_system_tool("chromium", apt="chromium")
    require_system_tool("bwrap", apt="bubblewrap")
    try:
        launched = Browser.launch(roots=[tmp_path_factory.getbasetemp()])
    except BrowserUnavailable as exc:
        pytest.fail(str(exc))
    with launched:
        yield launched


@pytest.fixture
def render_ctx(ctx: ToolContext, browser: Browser) -> ToolContext:
    ctx.services["browser"] = browser
    return ctx


def pixels(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def write_png(path: Path, colour: tuple[int, int, int], size: tuple[int, int] = (40, 40)) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, colour).save(path)


def test_coloured_div_renders_at_exactly_the_viewport_size(browser: Browser, workspace: Path) -> None:
    html = f"""<body style="margin:0;background:#fff">
      <div style="position:absolute;left:100px;top:50px;width:200px;height:100px;background:rgb{RED}"></div>
    </body>"""
    shot = browser.screenshot_html(html, workspace, Viewport(width=640, height=360))
    image = pixels(shot.png)
    assert image.size == (640, 360)
    assert image.getpixel((200, 100)) == RED
    assert image.getpixel((20, 20)) == (255, 255, 255)
    assert shot.blocked == []
    assert list(workspace.iterdir()) == []  # the temporary page is removed


def test_full_page_captures_below_the_fold(browser: Browser, workspace: Path) -> None:
    html = (
        '<body style="margin:0"><div style="height:900px"></div>'
        f'<div style="height:100px;background:rgb{RED}"></div></body>'
    )
    shot = browser.screenshot_html(html, workspace, Viewport(width=300, height=200, full_page=True))
    image = pixels(shot.png)
    assert image.size == (300, 1000)
    assert image.getpixel((150, 950)) == RED


def test_relative_image_in_a_workspace_page_loads(browser: Browser, workspace: Path) -> None:
    write_png(workspace / "site" / "img" / "logo.png", BLUE)
    write_png(workspace / "assets" / "red.png", RED)
    page = workspace / "site" / "index.html"
    page.write_text(
        '<body style="margin:0"><img src="img/logo.png" style="display:block;width:100px;height:100px">'
        '<img src="../assets/red.png" style="display:block;width:100px;height:100px"></body>'
    )
    image = pixels(browser.screenshot_file(page, Viewport(width=200, height=200), [workspace]).png)
    assert image.getpixel((50, 50)) == BLUE
    assert image.getpixel((50, 150)) == RED

    # An HTML string resolves relative paths against the workspace root.
    inline = browser.screenshot_html(
        '<body style="margin:0"><img src="assets/red.png" width="80" height="80"></body>',
        workspace,
        Viewport(width=100, height=100),
    )
    assert pixels(inline.png).getpixel((40, 40)) == RED


def test_external_urls_and_files_outside_the_roots_are_blocked_quickly(
    browser: Browser, workspace: Path, tmp_path: Path
) -> None:
    write_png(tmp_path / "elsewhere.png", RED)
    html = f"""<body style="margin:0;background:#fff">
      <img src="https://example.com/tracker.png" width="50" height="50">
      <img src="http://93.184.216.34/direct-ip.png" width="50" height="50">
      <img src="file://{tmp_path}/elsewhere.png" width="50" height="50">
      <script>fetch("https://example.org/api").catch(() => {{}}); new WebSocket("wss://example.net/socket");</script>
    </body>"""
    started = time.monotonic()
    shot = browser.screenshot_html(html, workspace, Viewport(width=300, height=100))
    assert time.monotonic() - started < 10
    assert "https://example.com/tracker.png" in shot.blocked
    assert "http://93.184.216.34/direct-ip.png" in shot.blocked
    assert f"file://{tmp_path}/elsewhere.png" in shot.blocked
    assert pixels(shot.png).getpixel((125, 25)) != RED  # the file outside the workspace did not load


def test_a_page_cannot_reach_a_loopback_service(browser: Browser, workspace: Path, monkeypatch) -> None:
    """A page that fetches a loopback HTTP server started here gets nothing, with the route fence switched off:
    the jail's network namespace is the guarantee (#23: Chromium used to reach every loopback service)."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(b"engine secrets")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setattr("tools.native.browser.request_allowed", lambda url, roots: True)  # the fence, off
    try:
        port = server.server_address[1]
        # The control: the server answers a client outside the jail.
        import urllib.request

        assert urllib.request.urlopen(f"http://127.0.0.1:{port}/control", timeout=10).read() == b"engine secrets"
        html = (f'<body style="margin:0;background:rgb{RED}"><img src="http://127.0.0.1:{port}/img.png">'
                f'<img src="http://localhost:{port}/named.png">'
                f'<script>fetch("http://127.0.0.1:{port}/fetch").then(r => r.text())'
                f'.then(t => document.body.style.background = "rgb{BLUE}").catch(() => {{}});'
                f'new WebSocket("ws://127.0.0.1:{port}/socket");</script></body>')
        shot = browser.screenshot_html(html, workspace, Viewport(width=100, height=100))
        time.sleep(0.5)
    finally:
        server.shutdown()
        server.server_close()
    assert hits == ["/control"], hits
    assert pixels(shot.png).getpixel((50, 50)) == RED  # the fetch never answered


def test_chromium_runs_in_namespaces_of_its_own_with_no_capability(browser: Browser, workspace: Path) -> None:
    """Every Chromium process of the browser, seen from the host: its own user and network namespaces, no
    capabilities, uid 65534 inside (never root with --no-sandbox on the host's namespaces)."""
    browser.screenshot_html("<body>hi</body>", workspace, Viewport(width=40, height=40))
    parents: dict[int, int] = {}
    commands: dict[int, bytes] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                commands[int(entry.name)] = (entry / "cmdline").read_bytes()
            except (OSError, ValueError, IndexError):
                continue
    # This browser's jails only (other processes on the machine may render too, and their Chromiums come and go).
    jails = {pid for pid, command in commands.items() if command.split(b"\0")[0].endswith(b"bwrap")
             and b"\0--hostname\0render\0" in command and _descends(pid, {os.getpid()}, parents)}
    inside = {pid for pid in parents if pid not in jails and _descends(pid, jails, parents)}
    chromium = [pid for pid in inside if b"chromium" in commands.get(pid, b"")]
    assert chromium, "found no Chromium process under a render jail"
    mine = {ns: os.readlink(f"/proc/self/ns/{ns}") for ns in ("user", "net", "mnt")}
    checked = 0
    for pid in chromium:
        try:  # a helper process (a renderer, a utility) may exit between the scan and this read
            theirs = {ns: os.readlink(f"/proc/{pid}/ns/{ns}") for ns in mine}
            status = Path(f"/proc/{pid}/status").read_text()
            uid_map = Path(f"/proc/{pid}/uid_map").read_text()
        except FileNotFoundError:
            continue
        assert theirs["user"] != mine["user"] and theirs["net"] != mine["net"], pid
        assert "CapEff:\t0000000000000000" in status, pid
        assert uid_map.split()[0] == "65534", pid  # uid 65534 inside
        checked += 1
    assert checked, "every Chromium process under the jail exited before it was checked"


def _descends(pid: int, ancestors: set[int], parents: dict[int, int]) -> bool:
    seen = set()
    while pid in parents and pid not in seen:
        seen.add(pid)
        pid = parents[pid]
        if pid in ancestors:
            return True
    return False


def test_fence_rules(tmp_path: Path) -> None:
    roots = [tmp_path]
    assert request_allowed(f"file://{tmp_path}/a.png", roots)
    assert not request_allowed(f"file://{tmp_path}/../x.png", roots)
    assert not request_allowed("http://localhost:8000/", roots) and not request_allowed("http://[::1]/", roots)
    assert not request_allowed("http://127.0.0.1:7687/", roots)
    assert request_allowed("data:image/png;base64,AAAA", roots)
    assert not request_allowed("https://example.com/", roots)
    assert not request_allowed("http://10.0.0.1/", roots)
    assert not request_allowed("ftp://127.0.0.1/", roots)


def test_missing_chromium_raises_with_an_install_hint(tmp_path: Path) -> None:
    with pytest.raises(BrowserUnavailable, match="apt-get install -y chromium"):
        find_chromium(str(tmp_path / "no-such-chromium"))
    with pytest.raises(BrowserUnavailable, match="JARVISHUB_CHROMIUM"):
        Browser.launch(str(tmp_path / "no-such-chromium"))


# ---------------------------------------------------------------- the render_page tool


def test_render_page_tool_from_a_workspace_file(render_ctx: ToolContext) -> None:
    assert RENDER_PAGE.effects == {Effect.MUTATES_CANVAS, Effect.LONG_RUNNING}
    page = render_ctx.workspace / "index.html"
    page.write_text(f'<body style="margin:0;background:rgb{BLUE}"></body>')
    result = RENDER_PAGE.run(render_ctx, RenderPageArgs(path="index.html", width=320, height=240))
    [node] = result.mutations
    assert isinstance(node, CreateNode)
    assert (node.kind, node.title, node.status) == ("image", "preview of index.html", NodeStatus.COMPLETED)
    assert node.inputs["viewport"] == {"width": 320, "height": 240, "full_page": False}
    assert node.inputs["source"] == {"kind": "file", "path": "index.html"}
    assert node.metadata["provenance"]["tool"] == "render_page"
    assert node.metadata["provenance"]["actor"] == "agent"
    image = pixels(render_ctx.artifacts.read_bytes(node.outputs[0]))
    assert image.size == (320, 240) and image.getpixel((10, 10)) == BLUE
    assert result.observation["png"] == node.outputs[0].uri


def test_render_page_tool_from_a_canvas_node_links_the_preview_to_it(render_ctx: ToolContext, canvas) -> None:
    html = render_ctx.artifacts.put_bytes(
        f'<body style="margin:0;background:rgb{RED}"></body>'.encode(), "text/html", name="index.html"
    )
    web = canvas.add(CanvasNode(kind="web", title="landing page", status=NodeStatus.COMPLETED, outputs=[html]))
    result = RENDER_PAGE.run(render_ctx, RenderPageArgs(node_id=web.id, width=200, height=100))
    node, link = result.mutations
    assert node.title == "preview of landing page"
    assert isinstance(link, Link)
    assert (link.type, link.source, link.target) == (EdgeType.GENERATED_FROM, node.id, web.id)
    assert pixels(render_ctx.artifacts.read_bytes(node.outputs[0])).getpixel((100, 50)) == RED

    code = canvas.add(CanvasNode(kind="code", inputs={"html": f'<body style="background:rgb{BLUE}"></body>'}))
    from_inputs = RENDER_PAGE.run(render_ctx, RenderPageArgs(node_id=code.id, width=100, height=100))
    assert pixels(render_ctx.artifacts.read_bytes(from_inputs.mutations[0].outputs[0])).getpixel((50, 50)) == BLUE

    empty = canvas.add(CanvasNode(kind="text", inputs={"text": "no page here"}))
    with pytest.raises(PageSourceError, match="no text/html output"):
        RENDER_PAGE.run(render_ctx, RenderPageArgs(node_id=empty.id))
    with pytest.raises(CanvasNodeMissing, match="no canvas node with id 'missing'"):
        RENDER_PAGE.run(render_ctx, RenderPageArgs(node_id="missing"))


def test_render_page_args_need_exactly_one_source() -> None:
    with pytest.raises(ValueError, match="exactly one of"):
        RenderPageArgs(path="a.html", html="<p>")
    with pytest.raises(ValueError, match="exactly one of"):
        RenderPageArgs()


def test_render_page_tool_from_html_text_and_artifacts(render_ctx: ToolContext) -> None:
    html = f'<body style="margin:0;background:rgb{RED}"></body>'
    from_text = RENDER_PAGE.run(render_ctx, RenderPageArgs(html=html, width=64, height=64))
    [node] = from_text.mutations
    assert node.inputs["source"]["kind"] == "html"
    assert render_ctx.artifacts.read_bytes(node.inputs["source"]["uri"]) == html.encode()
    assert pixels(render_ctx.artifacts.read_bytes(node.outputs[0])).getpixel((32, 32)) == RED

    stored = render_ctx.artifacts.put_bytes(html.encode(), "text/html; charset=utf-8", name="p.html")
    from_artifact = RENDER_PAGE.run(render_ctx, RenderPageArgs(artifact=stored, width=64, height=64))
    assert from_artifact.mutations[0].inputs["source"] == {"kind": "artifact", "uri": stored.uri}

    picture = render_ctx.artifacts.put_bytes(b"\x89PNG", "image/png")
    with pytest.raises(PageSourceError, match="is image/png, not text/html"):
        RENDER_PAGE.run(render_ctx, RenderPageArgs(artifact=picture))
    with pytest.raises(PageSourceError, match="not in the artifact store"):
        RENDER_PAGE.run(render_ctx, RenderPageArgs(artifact="artifact://sha256/" + "1" * 64))
