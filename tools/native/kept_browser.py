"""One sandboxed Chromium kept for a runtime's life, driven on a thread of its own.

A page operation launches its own Chromium (with Playwright's driver) and closes it after one screenshot: about
1.2 s of each page edit's wall time on this machine (launching 1.0 s, closing 0.2 s, against 0.3-0.8 s for the
render itself).  A runtime made with ``Runtime(keep_browser=True)`` keeps one browser, launched on the first
render, for a long-lived process that always ends by closing its runtime.  It is off by default: a browser killed
with its process leaves its profile folder behind (docs/benchmarks.md), and a one-turn command gains nothing.

Isolation between renders is what it was: the browser is the same bubblewrap jail with the same read-only
roots (``tools.native.browser``), and every render gets a fresh browser context, so no cookie, storage or
cache of one page is seen by the next (``tests/security/test_kept_browser.py`` attacks that).  A browser that
died (killed, crashed) is launched again for the next render, and a render it died under is made once more.

Playwright's sync API binds a browser to the thread that launched it, and a turn's tools run on LangGraph's
worker threads: every render is therefore handed to the kept thread and waited for.
"""

from __future__ import annotations

import atexit
import queue
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

from tools.native.browser import Browser, RenderFailed, Screenshot, Viewport, check_browser

T = TypeVar("T")

_CLOSE_WAIT_S = 5.0
"""How long :meth:`KeptBrowser.close` waits for the browser to close before leaving it to the process's exit."""
IDLE_S = 120.0
"""A browser no render used for this long is closed (a long-lived server holds no idle Chromium); the next render
launches one again."""


def _close_at_exit(kept: weakref.ref[KeptBrowser]) -> None:
    found = kept()
    if found is not None:
        found.close()


class KeptBrowser:
    """Renders pages on one Chromium, launched on the first render and closed with :meth:`close`."""

    def __init__(self, chromium: str | None, timeout_s: float, roots: Sequence[Path]) -> None:
        self.chromium = chromium
        self.timeout_s = timeout_s
        self.roots = [Path(r) for r in roots]
        self.launches = 0
        """How many times a Chromium was started (once, unless one died)."""
        self._jobs: queue.SimpleQueue[tuple[Callable[[Browser], object], Future] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._browser: Browser | None = None
        self._closed = False
        self._checked = False
        # A runtime nobody closed (a script, a test) still closes its browser when the process exits: a browser
        # killed with the process leaves its profile folder behind in the temporary folder.
        atexit.register(_close_at_exit, weakref.ref(self))

    # -- what render_page calls ------------------------------------------------------------------
    def ready(self) -> None:
        """Chromium and bubblewrap are here (:class:`~tools.native.browser.BrowserUnavailable` if not), checked
        once; a launched browser is proof enough."""
        if not self._checked and self._browser is None:
            check_browser(self.chromium)
        self._checked = True

    def screenshot_file(self, page_path: Path, viewport: Viewport, file_roots: list[Path]) -> Screenshot:
        return self._run(lambda browser: browser.screenshot_file(page_path, viewport, file_roots))

    def screenshot_html(self, html: str, workspace: Path, viewport: Viewport,
                        file_roots: list[Path] | None = None) -> Screenshot:
        return self._run(lambda browser: browser.screenshot_html(html, workspace, viewport, file_roots))

    def close(self) -> None:
        """Close the browser (if one was launched) and stop the thread; later renders are refused."""
        with self._lock:
            self._closed = True
            thread = self._thread
            if thread is not None:
                self._jobs.put(None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(_CLOSE_WAIT_S)

    # -- the kept thread ----------------------------------------------------------------------------
    def _run(self, work: Callable[[Browser], T]) -> T:
        future: Future = Future()
        with self._lock:
            if self._closed:
                raise RenderFailed("this runtime's browser is closed")
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="jarvishub-browser", daemon=True)
                self._thread.start()
            self._jobs.put((work, future))
        return future.result()

    def _serve(self) -> None:
        try:
            while True:
                try:
                    job = self._jobs.get(timeout=IDLE_S if self._browser is not None else None)
                except queue.Empty:
                    self._drop()  # idle: the next render launches a new one
                    continue
                if job is None:
                    break
                work, future = job
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    future.set_result(self._render(work))
                except BaseException as error:  # noqa: BLE001 - the caller's future carries it
                    future.set_exception(error)
        finally:
            self._drop()

    def _render(self, work: Callable[[Browser], T]) -> T:
        browser = self._live()
        try:
            return work(browser)
        except RenderFailed:
            if browser.connected():
                raise  # the page's own failure (a timeout, a bad path): said as it is
            self._drop()  # the browser died under the render: once more, on a new one
            return work(self._live())

    def _live(self) -> Browser:
        if self._browser is not None and not self._browser.connected():
            self._drop()
        if self._browser is None:
            self._browser = Browser.launch(self.chromium, self.timeout_s, roots=self.roots)
            self.launches += 1
        return self._browser

    def _drop(self) -> None:
        browser, self._browser = self._browser, None
        if browser is not None:
            try:
                browser.close()
            except Exception:  # noqa: BLE001 - a dead browser's close fails; its jail folder is removed anyway
                pass
