"""Fixtures of the web canvas tests: a demo project built through the bridge, the app served in a thread, Chromium.

The browser is Debian's Chromium (never a downloaded one), driven by Playwright's sync API.
"""

from __future__ import annotations

import io
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from jarvishub.web import BackgroundServer, create_app
from nodes.actions import CanvasMutation, ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant
from store.models import EdgeType, NodeStatus
from store.mutations import CreateNode, Link

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
TOKEN = "test-token-0123456789"
REPO = Path(__file__).resolve().parents[2]


@dataclass
class Demo:
    """A project with a small canvas made the way agents make one, and the ids of its nodes by role."""

    project: Project
    runtime: Runtime
    ids: dict[str, str] = field(default_factory=dict)


class Builder:
    """Submits tool calls and mutation batches through the bridge under a system grant."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.grant = runtime.grants.save(Grant(actor="system"))
        self.usage = Usage()
        self.count = 0

    def _submit(self, action: Any) -> dict[str, Any]:
        result = self.runtime.bridge.submit(action, self.grant, self.usage, thread_id="demo")
        assert result.verdict == "allow", result.message
        assert "error" not in result.observation, result.observation
        return result.observation

    def call(self, tool: str, **args: Any) -> dict[str, Any]:
        self.count += 1
        return self._submit(ToolCall(action_id=f"demo-{self.count}", tool=tool, args=args))

    def mutate(self, *mutations: Any) -> None:
        self.count += 1
        self._submit(CanvasMutation(action_id=f"demo-{self.count}", mutations=list(mutations)))


def _preview_png(text: str) -> bytes:
    image = Image.new("RGB", (320, 200), "#f8fafc")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 320, 36), fill="#1e3a8a")
    draw.text((12, 12), text, fill="#ffffff")
    for row in range(3):
        draw.rectangle((16, 60 + row * 44, 304, 88 + row * 44), fill="#cbd5e1")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def build_demo(runtime: Runtime) -> dict[str, str]:
    """References, images (one a new version of another), a clip, ambience, a note, a web page with its
    screenshot, a group of candidates and nodes in every status; everything through the bridge."""
    b = Builder(runtime)
    ids: dict[str, str] = {}
    ids["mira"] = b.call("create_node", kind="reference", title="Mira", status="completed",
                         inputs={"role": "character", "name": "Mira", "colors": ["#c0392b", "#f5cba7"]})["created"]
    ids["harbour"] = b.call("create_node", kind="reference", title="Old harbour", status="completed",
                            inputs={"role": "scene", "name": "old harbour", "setting": "sea"})["created"]
    ids["pier"] = b.call("generate_image", prompt="Mira on the pier at dawn", title="Shot 1: pier",
                         references=[ids["mira"], ids["harbour"]], width=192, height=128)["node_id"]
    ids["pier_warm"] = b.call("generate_image", prompt="Mira on the pier at dawn", title="Shot 1: pier, warm",
                              references=[ids["mira"], ids["harbour"]], version_of=ids["pier"], lighting="warm",
                              width=192, height=128)["node_id"]
    ids["dusk"] = b.call("generate_image", prompt="The old harbour at dusk", title="Shot 2: harbour",
                         references=[ids["harbour"]], lighting="night", width=192, height=128)["node_id"]
    ids["clip"] = b.call("generate_video", source_node_id=ids["pier_warm"], camera="pan", duration_s=1, fps=8,
                         title="Shot 1 clip")["node_id"]
    ids["waves"] = b.call("generate_audio", kind="ambience", prompt="waves against the pier", duration_s=1,
                          title="Harbour ambience")["node_id"]
    ids["note"] = b.call("create_node", kind="text", title="Director's note", status="completed",
                         inputs={"text": "Keep Mira's red coat in every shot; the light warms as the story goes."})[
        "created"]
    ids["page"] = b.call("create_node", kind="web", title="Festival page", status="completed",
                         inputs={"brief": "A one-page site for the short film."})["created"]
    shot = runtime.project.artifacts.put_bytes(_preview_png("Festival page"), "image/png", "page.png")
    screenshot = CreateNode(kind="image", title="Festival page screenshot", status=NodeStatus.COMPLETED,
                            outputs=[shot], inputs={"url": "workspace/site/index.html"})
    b.mutate(screenshot, Link(type=EdgeType.GENERATED_FROM, source=screenshot.id, target=ids["page"]))
    ids["screenshot"] = screenshot.id
    ids["candidates"] = b.call("group_nodes", node_ids=[ids["pier"], ids["pier_warm"]],
                               title="Shot 1 candidates")["group_id"]
    ids["failed"] = b.call("create_node", kind="image", title="Shot 3 (provider timeout)", status="failed",
                           inputs={"prompt": "Mira on the boat"})["created"]
    ids["rendering"] = b.call("create_node", kind="video", title="Shot 2 clip", status="running",
                              inputs={"prompt": "slow zoom on the harbour"})["created"]
    b.call("set_status", node_id=ids["pier_warm"], status="selected")
    b.call("set_status", node_id=ids["pier"], status="rejected")
    b.call("set_status", node_id=ids["clip"], status="stale", reason="its source image changed")
    return ids


@pytest.fixture(scope="module")
def demo_host(engines: dict[str, Any]) -> Any:
    """The engine the demo's canvas is a database on: the worker's.  A module whose tests reach the project from
    another process (which opens the folder's own engine) overrides this with None."""
    return engines["arcadedb"]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_host: Any) -> Iterator[Demo]:
    """The demo project; one per test module, so what one module's tests add does not change what another's
    see."""
    project = Project.init(tmp_path_factory.mktemp("web") / "demo", host=demo_host)
    runtime = Runtime(project, keep_browser=True)
    try:
        ids = build_demo(runtime)
        yield Demo(project=project, runtime=runtime, ids=ids)
    finally:
        runtime.close()
        project.close()
        if demo_host is not None:
            demo_host.drop_database(project.store.database)


@pytest.fixture(scope="module")
def server(demo: Demo) -> Iterator[BackgroundServer]:
    """The web canvas of the demo project on a free port of 127.0.0.1."""
    app = create_app(demo.runtime, TOKEN, person="tester")
    with BackgroundServer(app) as running:
        yield running


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Debian's Chromium under Playwright (skipped with the install hint when absent).

    Per module, not per session: Playwright's sync API cannot start while another sync instance is alive in
    the thread, and the product's own browser tool (and other test files run later by the same worker) start
    one of their own.
    """
    from playwright.sync_api import sync_playwright

    from tests.system_tools import require_system_tool

    require_system_tool("chromium", apt="chromium")

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_page(chromium: Any, base_url: str, token: str | None = TOKEN) -> Any:
    """A fresh page on the canvas (with the token in the fragment), once it has drawn."""
    context = chromium.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(base_url + "/" + (f"#token={token}" if token else ""))
    page.wait_for_selector('body[data-ready="1"]', timeout=30_000)
    return page


@pytest.fixture
def open_canvas(chromium: Any) -> Iterator[Any]:
    """Opens canvas pages (``open_canvas(base_url, token=...)``); closes them and checks for script errors after."""
    opened: list[Any] = []

    def _open(base_url: str, token: str | None = TOKEN) -> Any:
        page = open_page(chromium, base_url, token)
        opened.append(page)
        return page

    yield _open
    errors = [e for p in opened for e in p.errors]
    for p in opened:
        p.context.close()
    assert not errors, f"the page raised: {errors}"


@pytest.fixture
def page(open_canvas: Any, server: BackgroundServer) -> Any:
    """The demo canvas open in a new browser context."""
    return open_canvas(server.base_url)


SCREENSHOTS_ENV = "JARVISHUB_TEST_SCREENSHOTS"
"""A folder the browser tests keep their screenshots in (one subfolder per test; .ci/run sets it); without it they
go to the test's temporary folder, which pytest keeps for its last three runs."""


@pytest.fixture
def screenshots(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """Where a browser test saves its screenshots, kept as the run's artifacts (never the checkout)."""
    kept = os.environ.get(SCREENSHOTS_ENV)
    if not kept:
        return tmp_path
    folder = Path(kept) / re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def until() -> Any:
    """``until(predicate, timeout_s)``: poll state outside the browser until the predicate holds."""
    return wait_until


def finished_job(server: BackgroundServer, text: str) -> Any:
    """The turn the page started for the request ``text``, once it has ended (done, failed or waiting for a
    person).  Found by its words: just after *Send*, an earlier test's job may still be the newest."""
    def settled() -> Any:
        jobs = [j for j in server.app.state.steering.jobs() if j.text == text]
        return jobs and jobs[0].status in ("done", "failed", "interrupted") and jobs[0]

    return wait_until(settled, timeout_s=120)


def send_request(page: Any, server: BackgroundServer, text: str) -> Any:
    """Type ``text`` into the page's request box, press *Send*, and wait for the turn it started to end."""
    page.fill("#request-text", text)
    page.click("#send-request")
    return finished_job(server, text)


def wait_until(predicate: Any, timeout_s: float = 10.0, interval_s: float = 0.1) -> Any:
    """Poll ``predicate`` until it returns something truthy (for state outside the browser)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {predicate}")
        time.sleep(interval_s)
