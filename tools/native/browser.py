"""Render an HTML page to a PNG screenshot with Playwright driving the system's Chromium.

The browser is Debian's ``chromium`` (``apt-get install chromium``), found
through the ``JARVISHUB_CHROMIUM`` setting, then ``chromium`` on PATH, then
``/usr/bin/chromium``; Playwright's own browser download is never used.
:class:`BrowserUnavailable` says how to install it when it is missing.

A page may load ``file://`` URLs under the allowed roots (the workspace, so
``<img src="images/a.png">`` next to the page works) and ``http(s)``/``ws(s)``
on loopback; every other request is aborted by a route handler and reported,
so a page cannot reach the internet and a blocked request cannot hang a
render.  HTML given as a string or as an artifact is written to a temporary
file inside the workspace first, so its relative paths resolve against the
workspace just like a workspace file's do.

Playwright's sync API binds a :class:`Browser` to the thread that launched it
and cannot run inside a running asyncio loop: launch and use it on one worker
thread.  Each :meth:`Browser.launch` gets a fresh temporary profile
(user-data dir) that Playwright deletes on close, and each render a fresh
browser context, so no cookies or storage leak between renders.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import shutil
import tempfile
from pathlib import Path
from types import TracebackType
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, Field

from tools.base import ToolError

DEFAULT_CHROMIUM = "/usr/bin/chromium"
"""Where Debian's chromium package puts its launcher."""

LAUNCH_ARGS: tuple[str, ...] = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # A second fence behind the route handler: no host but loopback resolves (IP literals included).
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE *.localhost , EXCLUDE 127.* , EXCLUDE [::1]",
)
"""Chromium flags: headless, no GPU, and nothing that phones home."""

INSTALL_HINT = (
    "install Debian's Chromium with `apt-get update && apt-get install -y chromium`, "
    "or point JARVISHUB_CHROMIUM at a Chromium binary"
)


@contextlib.contextmanager
def _children_in_their_own_process_group() -> Iterator[None]:
    """Start Playwright's driver (and so Chromium, its child) in a process group of its own.

    Ctrl-C at a terminal signals the whole foreground process group; the CLI turns it into a pause of the
    turn, but a driver in that group would die of it and take the page being rendered along, and that
    failure would be recorded as the step's.  Playwright starts its driver with ``asyncio``, which offers no
    hook for this, so its ``create_subprocess_exec`` adds ``process_group=0`` while the driver starts.
    """
    original = asyncio.create_subprocess_exec

    async def in_own_group(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("process_group", 0)
        return await original(*args, **kwargs)

    asyncio.create_subprocess_exec = in_own_group  # type: ignore[assignment]
    try:
        yield
    finally:
        asyncio.create_subprocess_exec = original  # type: ignore[assignment]


class BrowserUnavailable(ToolError):
    """No usable Chromium: the message says how to install one or where to point the setting."""


class RenderFailed(ToolError):
    """The page could not be loaded or captured (bad path, timeout, crash); the message says which."""


class Viewport(BaseModel):
    """The browser window a page is rendered in; the PNG is exactly this size unless ``full_page``."""

    width: int = Field(default=1280, ge=16, le=8192)
    height: int = Field(default=720, ge=16, le=8192)
    full_page: bool = Field(default=False, description="Capture the whole scrollable page, not just the window.")


class Screenshot(BaseModel):
    """A rendered page: the PNG bytes and the requests the fence refused."""

    png: bytes
    url: str = Field(description="The file:// URL that was loaded.")
    blocked: list[str] = Field(default_factory=list, description="URLs the page tried to reach and was refused.")


def find_chromium(configured: str | None = None) -> Path:
    """The Chromium binary to drive: ``configured``, ``$JARVISHUB_CHROMIUM``, PATH, /usr/bin/chromium."""
    choice = configured or os.environ.get("JARVISHUB_CHROMIUM")
    if choice:
        path = Path(shutil.which(choice) or choice)
        if path.is_file() and os.access(path, os.X_OK):
            return path
        raise BrowserUnavailable(f"the configured Chromium {choice!r} is not an executable file; {INSTALL_HINT}")
    found = shutil.which("chromium") or (DEFAULT_CHROMIUM if os.access(DEFAULT_CHROMIUM, os.X_OK) else None)
    if not found:
        raise BrowserUnavailable(f"no Chromium found on PATH or at {DEFAULT_CHROMIUM}; {INSTALL_HINT}")
    return Path(found)


def is_loopback_host(host: str | None) -> bool:
    """Whether a URL host is this machine (localhost, 127.0.0.0/8, ::1)."""
    if not host:
        return False
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def request_allowed(url: str, file_roots: list[Path]) -> bool:
    """The network fence: file:// under an allowed root, data/blob/about, or loopback; nothing else."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("data", "blob", "about"):
        return True
    if scheme == "file":
        path = Path(os.path.realpath(unquote(parts.path)))
        return any(path == root or path.is_relative_to(root) for root in file_roots)
    if scheme in ("http", "https", "ws", "wss"):
        return is_loopback_host(parts.hostname)
    return False


class Browser:
    """A launched headless Chromium that renders pages to PNGs; use as a context manager and close it."""

    def __init__(self, playwright: Any, browser: Any, timeout_s: float) -> None:
        self._playwright = playwright
        self._browser = browser
        self.timeout_s = timeout_s

    @classmethod
    def launch(cls, chromium: str | None = None, timeout_s: float = 30.0) -> Browser:
        """Start Chromium (never downloading one); :class:`BrowserUnavailable` if it is missing or will not start."""
        executable = find_chromium(chromium)
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright

        with _children_in_their_own_process_group():
            manager = sync_playwright().start()
        try:
            browser = manager.chromium.launch(
                executable_path=str(executable),
                headless=True,
                args=list(LAUNCH_ARGS),
                timeout=timeout_s * 1000,
                handle_sigint=False,  # Ctrl-C pauses the turn (the CLI's doing); it must not close the browser
            )
        except PlaywrightError as exc:
            manager.stop()
            raise BrowserUnavailable(f"Chromium at {executable} did not start ({exc}); {INSTALL_HINT}") from exc
        return cls(manager, browser, timeout_s)

    def close(self) -> None:
        """Close the browser and its Playwright driver."""
        try:
            self._browser.close()
        finally:
            self._playwright.stop()

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def screenshot_file(self, page_path: Path, viewport: Viewport, file_roots: list[Path]) -> Screenshot:
        """Load a local HTML file and capture it; only ``file_roots`` and loopback are reachable."""
        from playwright.sync_api import Error as PlaywrightError

        roots = [Path(r).resolve() for r in file_roots]
        url = Path(page_path).resolve().as_uri()
        blocked: list[str] = []
        context = self._browser.new_context(
            viewport={"width": viewport.width, "height": viewport.height},
            device_scale_factor=1,
            service_workers="block",
            accept_downloads=False,
        )
        try:
            context.set_default_timeout(self.timeout_s * 1000)
            context.route("**/*", lambda route: _fence(route, roots, blocked))
            context.route_web_socket("**/*", lambda ws: _fence_socket(ws, blocked))
            page = context.new_page()
            page.goto(url, wait_until="load")
            page.evaluate("() => document.fonts ? document.fonts.ready.then(() => true) : true")
            png = page.screenshot(full_page=viewport.full_page, type="png", animations="disabled")
        except PlaywrightError as exc:
            raise RenderFailed(f"could not render {url}: {exc}") from exc
        finally:
            context.close()
        return Screenshot(png=png, url=url, blocked=blocked)

    def screenshot_html(
        self, html: str, workspace: Path, viewport: Viewport, file_roots: list[Path] | None = None
    ) -> Screenshot:
        """Capture an HTML string as if it were a page at the workspace root (relative paths resolve there)."""
        root = Path(workspace).resolve()
        fd, name = tempfile.mkstemp(prefix=".jarvishub-render-", suffix=".html", dir=root)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(html)
            return self.screenshot_file(Path(name), viewport, file_roots or [root])
        finally:
            Path(name).unlink(missing_ok=True)


def _fence(route: Any, roots: list[Path], blocked: list[str]) -> None:
    url = route.request.url
    if request_allowed(url, roots):
        route.continue_()
    else:
        blocked.append(url)
        route.abort("blockedbyclient")


def _fence_socket(ws: Any, blocked: list[str]) -> None:
    if is_loopback_host(urlsplit(ws.url).hostname):
        ws.connect_to_server()
    else:
        blocked.append(ws.url)
        ws.close(code=1008, reason="jarvishub: network access is blocked")
