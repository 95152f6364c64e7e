"""Story lens at 2,000 nodes in Chromium: prints JSON (server shaping time, time to drawn, thumbnails, scroll fps).

A storyboard of 400 shots made through the bridge in one batch, each shot with five nodes: the shot, its
original image (set aside), its current image (``VERSION_OF`` the original), its clip and an evaluation; every
image its own PNG (so thumbnails are really made), one short MP4 shared by the clips.  Then, in one run:

* ``server``: ``GET /api/lenses/story`` cold (first read of the canvas after a commit) and warm (kept per
  canvas version), medians over ``ROUNDS`` fresh commits;
* ``page``: Debian's Chromium opens the project (which opens in the Story lens by default), ``ROUNDS`` times:
  from navigation start to the lens drawn (``data-lens-ready``), and to every thumbnail in view loaded;
* ``scroll``: the shot row scrolled sideways by 40 px a frame for 3 s: frames per second from
  ``requestAnimationFrame``, the 95th-percentile frame time, and frames over 20 ms; beside it the frame rate of
  the same page doing nothing for 1 s (``idle_fps``), the ceiling this machine gives at the time;
* ``update``: with the Story lens open, ``ROUNDS`` commits each add a new image version to one shot; the bytes
  the page fetched to follow each (a patch of the changed column, ``/api/lenses/story?since=V``) against the
  whole answer it fetched before patches (``whole_answer_bytes``), and commit to the new picture drawn;
* ``graph``: the Graph lens opened (400 evaluations and 400 old images folded): navigation to drawn, the
  layout pass (dagre in the page's worker; the page's own share of it), and the longest main-thread task.

Goal (issue #24): drawn in at most 1 s, scrolling at 60 fps.  ``python bench/lenses.py [--shots N]``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parents[1])

import httpx  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402
from jarvishub.web import BackgroundServer, create_app  # noqa: E402
from nodes.actions import CanvasMutation  # noqa: E402
from nodes.bridge import Usage  # noqa: E402
from nodes.grant import Grant  # noqa: E402
from store.lifecycle import stop_engine  # noqa: E402
from store.models import EdgeType, NodeStatus  # noqa: E402
from store.mutations import CreateNode, Link, SetStatus  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ROUNDS = 5
GRAPH_ROUNDS = 3
NODES_PER_SHOT = 5

SCROLL = """async () => {
  const row = document.querySelector('#story-shots');
  const times = [];
  const until = performance.now() + 3000;
  await new Promise((done) => {
    const step = (t) => {
      times.push(t);
      row.scrollLeft += 40;
      if (t < until) requestAnimationFrame(step); else done();
    };
    requestAnimationFrame(step);
  });
  const gaps = times.slice(1).map((t, i) => t - times[i]).sort((a, b) => a - b);
  return { frames: gaps.length, seconds: (times[times.length - 1] - times[0]) / 1000,
           p95_ms: gaps[Math.floor(gaps.length * 0.95)], over_20ms: gaps.filter((g) => g > 20).length,
           scrolled_px: row.scrollLeft };
}"""

IDLE = """async () => {
  const times = [];
  const until = performance.now() + 1000;
  await new Promise((done) => {
    const step = (t) => { times.push(t); if (t < until) requestAnimationFrame(step); else done(); };
    requestAnimationFrame(step);
  });
  return (times.length - 1) / ((times[times.length - 1] - times[0]) / 1000);
}"""

LONG_TASKS = """window.__longTasks = [];
try {
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
    .observe({ type: 'longtask', buffered: true });
} catch (_) { /* no long-task timing here: the figure stays empty */ }"""
"""Collects the page's main-thread tasks over 50 ms (installed before the page's own scripts)."""

IN_VIEW_LOADED = """() => {
  const w = innerWidth, h = innerHeight;
  const imgs = [...document.querySelectorAll('#story-shots img.still')].filter((i) => {
    const r = i.getBoundingClientRect();
    return r.right > 0 && r.left < w && r.bottom > 0 && r.top < h;
  });
  return imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth > 0) ? imgs.length : 0;
}"""


def _png(text: str, hue: int) -> bytes:
    image = Image.new("RGB", (640, 360), f"hsl({hue % 360}, 55%, 55%)")
    ImageDraw.Draw(image).text((20, 20), text, fill="#ffffff")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _mp4(folder: Path) -> bytes:
    out = folder / "clip.mp4"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x180:rate=12",
                    "-t", "1", "-pix_fmt", "yuv420p", str(out)], check=True)
    return out.read_bytes()


def build(runtime: Runtime, shots: int, folder: Path) -> float:
    """The storyboard, committed in one bridge batch; returns the commit's seconds."""
    artifacts = runtime.project.artifacts
    clip = artifacts.put_bytes(_mp4(folder), "video/mp4", "clip.mp4")
    mutations: list[Any] = []
    previous: str | None = None
    for n in range(1, shots + 1):
        shot = CreateNode(kind="shot", title=f"shot {n}", status=NodeStatus.COMPLETED,
                          inputs={"index": n, "description": f"shot {n} of {shots}"})
        first = CreateNode(kind="image", title=f"shot {n} image", status=NodeStatus.COMPLETED,
                           outputs=[artifacts.put_bytes(_png(f"shot {n} v1", n * 7), "image/png", "v1.png")])
        second = CreateNode(kind="image", title=f"shot {n} image", status=NodeStatus.COMPLETED,
                            outputs=[artifacts.put_bytes(_png(f"shot {n} v2", n * 7 + 40), "image/png", "v2.png")])
        video = CreateNode(kind="video", title=f"shot {n} clip", status=NodeStatus.COMPLETED, outputs=[clip])
        score = CreateNode(kind="evaluation", title="evaluation: 1.00", status=NodeStatus.COMPLETED,
                           inputs={"score": 1.0})
        mutations += [shot, first, second, video, score,
                      Link(type=EdgeType.GENERATED_FROM, source=first.id, target=shot.id),
                      Link(type=EdgeType.GENERATED_FROM, source=second.id, target=shot.id),
                      Link(type=EdgeType.VERSION_OF, source=second.id, target=first.id),
                      SetStatus(node_id=first.id, status=NodeStatus.REJECTED, reason="superseded"),
                      Link(type=EdgeType.GENERATED_FROM, source=video.id, target=second.id),
                      Link(type=EdgeType.REFERENCES, source=score.id, target=second.id)]
        if previous:
            mutations.append(Link(type=EdgeType.CONTINUES, source=shot.id, target=previous))
        previous = shot.id
    grant = runtime.grants.save(Grant(actor="system"))
    started = time.perf_counter()
    result = runtime.bridge.submit(CanvasMutation(action_id="bench-lenses", mutations=mutations), grant, Usage(),
                                   thread_id="bench")
    if result.verdict != "allow":
        raise SystemExit(f"the canvas was refused: {result.message}")
    return time.perf_counter() - started


def touch(runtime: Runtime, grant: Grant) -> None:
    """One small commit, so the next lens request reads the canvas again (a cold read)."""
    node = CreateNode(kind="text", title="note", status=NodeStatus.COMPLETED, inputs={"text": "bench"})
    runtime.bridge.submit(CanvasMutation(action_id=f"touch-{node.id}", mutations=[node]), grant, Usage(),
                          thread_id="bench")


STORY_FETCHES = """() => performance.getEntriesByType('resource')
  .filter((e) => e.name.includes('/api/lenses/story')).map((e) => ({ url: e.name, bytes: e.encodedBodySize }))"""


def new_version(runtime: Runtime, grant: Grant, shot_id: str, image_id: str, n: int) -> str:
    """A new image version of one shot (``VERSION_OF`` its current image), as a person's regeneration makes one."""
    handle = runtime.project.artifacts.put_bytes(_png(f"update {n}", n * 31), "image/png", f"u{n}.png")
    image = CreateNode(kind="image", title="update", status=NodeStatus.COMPLETED, outputs=[handle])
    result = runtime.bridge.submit(CanvasMutation(action_id=f"update-{image.id}", mutations=[
        image, Link(type=EdgeType.GENERATED_FROM, source=image.id, target=shot_id),
        Link(type=EdgeType.VERSION_OF, source=image.id, target=image_id)]), grant, Usage(), thread_id="bench")
    if result.verdict != "allow":
        raise SystemExit(f"the update was refused: {result.message}")
    return image.id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=int, default=400)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        project = Project.init(folder / "big")
        runtime = Runtime(project)
        try:
            commit_s = build(runtime, args.shots, folder)
            total = sum(project.store.count_nodes().values())
            token = secrets.token_urlsafe(16)
            app = create_app(runtime, token, person="bench")
            grant = runtime.grants.save(Grant(actor="system"))
            cold, warm = [], []
            with BackgroundServer(app) as server, httpx.Client(base_url=server.base_url, timeout=120,
                                                                   headers={"Authorization": f"Bearer {token}"}) as client:
                for _ in range(ROUNDS):
                    touch(runtime, grant)
                    time.sleep(1.0)  # the server's commit poll (250 ms) has seen it
                    started = time.perf_counter()
                    answer = client.get("/api/lenses/story")
                    answer.raise_for_status()
                    story = answer.json()
                    cold.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    client.get("/api/lenses/story").raise_for_status()
                    warm.append(time.perf_counter() - started)
                columns = len(story["shots"])
                drawn, loaded, fetch, draw, scrolls, idle, graph = [], [], [], [], [], [], []
                whole_bytes = len(client.get("/api/lenses/story").content)
                updates: list[dict[str, Any]] = []
                with sync_playwright() as playwright:
                    browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                                         args=["--no-sandbox", "--disable-gpu"])
                    try:
                        for _ in range(ROUNDS):
                            page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
                            page.goto(f"{server.base_url}/#token={token}")
                            page.wait_for_selector('body[data-lens-ready="story"]', timeout=120_000)
                            timings = page.evaluate("window.jarvishub.lens.timings")
                            drawn.append(timings["readyAt"])
                            fetch.append(timings["storyFetchMs"])
                            draw.append(timings["storyDrawMs"])
                            page.wait_for_function(IN_VIEW_LOADED, timeout=120_000)
                            loaded.append(page.evaluate("performance.now()"))
                            assert page.evaluate("window.jarvishub.lens.data.story.shots.length") == columns
                            idle.append(page.evaluate(IDLE))  # what this machine gives a frame doing nothing
                            scrolls.append(page.evaluate(SCROLL))
                            page.context.close()
                        page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
                        page.goto(f"{server.base_url}/#token={token}")
                        page.wait_for_selector('body[data-lens-ready="story"]', timeout=120_000)
                        for n in range(ROUNDS):  # one shot changes: what the open lens fetches to follow it
                            column = story["shots"][(n * 37) % columns]
                            image_id = page.evaluate("(i) => window.jarvishub.lens.data.story.shots[i].image.node_id",
                                                     column["number"] - 1)
                            seen = len(page.evaluate(STORY_FETCHES))
                            started = time.perf_counter()
                            made = new_version(runtime, grant, column["shot_id"], image_id, n)
                            page.wait_for_function("([i, id]) => window.jarvishub.lens.data.story.shots[i].image"
                                                   ".node_id === id && !window.jarvishub.lens.loading.story",
                                                   arg=[column["number"] - 1, made], timeout=120_000)
                            followed = time.perf_counter() - started
                            fetched = page.evaluate(STORY_FETCHES)[seen:]
                            updates.append({"s": followed, "bytes": sum(f["bytes"] for f in fetched),
                                            "fetches": len(fetched),
                                            "patches": sum("since=" in f["url"] for f in fetched)})
                        page.context.close()
                        for _ in range(GRAPH_ROUNDS):  # the Graph lens: 400 evaluations and 400 old images folded
                            page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
                            page.add_init_script(LONG_TASKS)
                            page.goto(f"{server.base_url}/#token={token}&lens=graph")
                            page.wait_for_selector('body[data-ready="1"]', timeout=300_000)
                            graph.append(page.evaluate("({ total: window.jarvishub.timings.readyAt, "
                                                       "layout: window.jarvishub.layout, "
                                                       "cards: document.querySelectorAll('.node').length, "
                                                       "hidden: window.jarvishub.hidden.size, "
                                                       "long: window.__longTasks || [] })"))
                            page.context.close()
                    finally:
                        browser.close()
            made = app.state.thumbs.made
            reads = dict(app.state.views.reads)
        finally:
            runtime.close()
            project.close()
            stop_engine(folder / "big" / ".jarvishub" / "engine")

    fps = [s["frames"] / s["seconds"] for s in scrolls]
    print(json.dumps({
        "nodes": total, "shots": columns, "rounds": ROUNDS, "commit_s": round(commit_s, 2),
        "server": {"story_cold_ms_median": round(statistics.median(cold) * 1000, 1),
                   "story_warm_ms_median": round(statistics.median(warm) * 1000, 1)},
        "page": {"navigation_to_story_drawn_ms_median": round(statistics.median(drawn)),
                 "navigation_to_story_drawn_ms_max": round(max(drawn)),
                 "story_fetch_ms_median": round(statistics.median(fetch)),
                 "story_dom_build_ms_median": round(statistics.median(draw), 1),
                 "navigation_to_thumbnails_in_view_ms_median": round(statistics.median(loaded)),
                 "thumbnails_made": made},
        "scroll": {"idle_fps_median": round(statistics.median(idle), 1), "fps_median": round(statistics.median(fps), 1), "fps_min": round(min(fps), 1),
                   "frame_p95_ms_median": round(statistics.median(s["p95_ms"] for s in scrolls), 1),
                   "frames_over_20ms_median": statistics.median(s["over_20ms"] for s in scrolls),
                   "frames_median": statistics.median(s["frames"] for s in scrolls)},
        "update": {"whole_answer_bytes": whole_bytes,
                   "bytes_per_update_median": statistics.median(u["bytes"] for u in updates),
                   "fetches_per_update_median": statistics.median(u["fetches"] for u in updates),
                   "patch_fetches": sum(u["patches"] for u in updates),
                   "all_fetches": sum(u["fetches"] for u in updates),
                   "commit_to_lens_updated_ms_median": round(statistics.median(u["s"] for u in updates) * 1000)},
        "graph": {"navigation_to_graph_drawn_ms_median": round(statistics.median(g["total"] for g in graph)),
                  "layout_ms_median": round(statistics.median(g["layout"]["ms"] for g in graph)),
                  "layout_on_main_thread_ms_median": round(statistics.median(g["layout"].get("mainMs", g["layout"]["ms"])
                                                                             for g in graph)),
                  "dagre_in_worker_ms_median": round(statistics.median(g["layout"].get("workerMs", 0) for g in graph)),
                  "longest_main_thread_task_ms_median": round(statistics.median(max(g["long"] or [0]) for g in graph)),
                  "parts": graph[0]["layout"]["parts"], "cards": graph[0]["cards"], "folded": graph[0]["hidden"]},
        "server_reads": reads,
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "goal": {"drawn_within_1s": statistics.median(drawn) <= 1000, "scroll_60fps": statistics.median(fps) >= 58},
    }, indent=2))


if __name__ == "__main__":
    main()
