"""The page at 2,000 nodes: one bridge batch makes them, the page lays them out (dagre, in its worker) and draws
them all."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from jarvishub.web import BackgroundServer, create_app
from nodes.actions import CanvasMutation
from nodes.bridge import Usage
from nodes.grant import Grant
from store.models import EdgeType, NodeStatus
from store.mutations import CreateNode, Link

NODES = 2000
CHAIN = 10  # each chain: an image, then nine nodes GENERATED_FROM the one before
TOKEN = "scale-token"


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory, chromium: Any) -> Iterator[tuple[Runtime, dict[str, float]]]:
    """2,000 nodes committed in one batch; after the browser, so a machine without Chromium skips before building."""
    project = Project.init(tmp_path_factory.mktemp("web-scale") / "big")
    runtime = Runtime(project)
    try:
        buffer = io.BytesIO()
        Image.new("RGB", (96, 64), "#2563eb").save(buffer, format="PNG")
        thumb = project.artifacts.put_bytes(buffer.getvalue(), "image/png", "thumb.png")
        mutations: list[Any] = []
        for start in range(0, NODES, CHAIN):
            chain = [CreateNode(kind="image", title=f"take {start}", status=NodeStatus.COMPLETED, outputs=[thumb])]
            chain += [CreateNode(kind="text", title=f"note {i}", status=NodeStatus.COMPLETED,
                                 inputs={"text": f"step {i} of chain {start}"})
                      for i in range(start + 1, start + CHAIN)]
            mutations += chain
            mutations += [Link(type=EdgeType.GENERATED_FROM, source=b.id, target=a.id)
                          for a, b in zip(chain, chain[1:], strict=False)]
        grant = runtime.grants.save(Grant(actor="system"))
        started = time.perf_counter()
        result = runtime.bridge.submit(CanvasMutation(action_id="scale", mutations=mutations), grant, Usage(),
                                       thread_id="scale")
        assert result.verdict == "allow", result.message
        timings = {"commit_s": time.perf_counter() - started}
        yield runtime, timings
    finally:
        runtime.close()
        project.close()


SCREEN_POINT = """(id) => {
  const s = window.jarvishub, n = s.nodes.get(id), r = document.querySelector('#viewport').getBoundingClientRect();
  return [r.left + s.view.x + (n.x + s.card.w / 2) * s.view.k, r.top + s.view.y + (n.y + s.card.h / 2) * s.view.k];
}"""


def test_two_thousand_nodes_render(big, open_canvas) -> None:
    runtime, timings = big
    app = create_app(runtime, TOKEN, person="tester")
    with BackgroundServer(app) as server:
        started = time.perf_counter()
        page = open_canvas(server.base_url, token=TOKEN)
        wall = time.perf_counter() - started
        assert page.locator("#node-count").inner_text() == f"{NODES} nodes"
        page_timings = page.evaluate("window.jarvishub.timings")
        # Fitted to 2,000 nodes the zoom is far out: the canvas 2D overview draws every node, cards stay
        # out of rendering and no thumbnail is downloaded.
        assert page.evaluate("window.jarvishub.view.k") < 0.25
        page.wait_for_function(f"() => window.jarvishub.drawn === {NODES}", timeout=5_000)
        assert page.locator("#overview").is_visible() and not page.locator("#nodes").is_visible()
        assert page.locator(".node").count() == NODES
        assert page.locator("#edge-paths path").count() == NODES - NODES // CHAIN
        assert page.locator(".node img").count() == 0

        # Click a node in the overview, then one of its descendants in the detail panel: the view zooms in
        # on it, cards come back, and only the thumbnails in view load.
        first = runtime.project.store.find_nodes(kind="image", limit=1)[0].id
        page.mouse.click(*page.evaluate(SCREEN_POINT, first))
        page.locator(f'#detail-body[data-id="{first}"]').wait_for(timeout=10_000)
        zoomed = time.perf_counter()
        page.locator("#detail-body ul.descendants li[data-id]").first.click()
        page.wait_for_function(ALL_SHOWN_IMAGES_LOADED, timeout=10_000)
        zoom_s = time.perf_counter() - zoomed
        shown = page.locator(".node img").count()
        assert 0 < shown < NODES // CHAIN
        assert page.locator(f'.node[data-id="{first}"] img').count() == 1
        print(f"\n{NODES} nodes: commit {timings['commit_s']:.2f} s, layout in the page {page_timings['layoutMs']:.0f} ms, "
              f"page fetch {page_timings['fetchMs']:.0f} ms, render {page_timings['renderMs']:.0f} ms, "
              f"page ready {wall:.2f} s after navigation; zoomed in with {shown} thumbnails loaded in {zoom_s:.2f} s")
        page.context.close()


ALL_SHOWN_IMAGES_LOADED = """() => {
  const images = [...document.querySelectorAll('.node img')];
  return images.length > 0 && images.every((img) => img.complete && img.naturalWidth > 0);
}"""
