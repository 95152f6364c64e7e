"""Render an HTML page to a PNG screenshot with Playwright driving the system's Chromium, inside bubblewrap.

The browser is Debian's ``chromium`` (``apt-get install chromium``), found
through the ``JARVISHUB_CHROMIUM`` setting, then ``chromium`` on PATH, then
``/usr/bin/chromium``; Playwright's own browser download is never used.
:class:`BrowserUnavailable` says how to install it when it is missing.

The page is model-written HTML: untrusted.  Chromium runs inside a bubblewrap
sandbox (the one ``run_code`` uses, ``tools.native.code.sandbox_status``):

* every namespace unshared: its own network namespace, with nothing in it, so no
  route to the internet *or to this machine's loopback services* (the canvas
  engine, the web canvas, anything listening on 127.0.0.1);
* its own user namespace, running as uid 65534 with every capability dropped
  (Chromium's own sandbox, which would need namespaces of its own, is off
  inside: ``--no-sandbox`` applies within the jail, never to a browser running
  as root on the host's namespaces);
* a file system of ``/usr``, fonts and a few ``/etc`` files read-only, empty
  ``/tmp``, ``/dev/shm`` and home, its temporary profile, and only the folders
  the browser was launched to read (the workspace and the artifact store),
  read-only.  No project state, no home folder, nothing else of the host.

Playwright drives the jailed Chromium over the pipes it passes it (a generated
wrapper script execs ``bwrap`` around the real binary).  A route handler is a
second, friendlier fence: ``file://`` under the allowed roots, ``data:``,
``blob:`` and ``about:`` load; every other request is aborted at once and
reported, so a blocked request cannot hang a render.  HTML given as a string or
as an artifact is written to a temporary file inside the workspace first, so its
relative paths resolve against the workspace just like a workspace file's do.

Playwright's sync API binds a :class:`Browser` to the thread that launched it
and cannot run inside a running asyncio loop: launch and use it on one worker
thread.  Each :meth:`Browser.launch` gets a fresh temporary profile
(user-data dir) that Playwright deletes on close, and each render a fresh
browser context, so no cookies or storage leak between renders.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import tempfile
from collections.abc import Sequence
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
    # Inside the bubblewrap jail (its own user, network and mount namespaces): Chromium cannot nest its own.
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Behind the route handler and the empty network namespace: no host name resolves at all.
    "--host-resolver-rules=MAP * ~NOTFOUND",
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


def check_browser(chromium: str | None = None) -> tuple[Path, str]:
    """What a render needs from this machine, without starting anything: (the Chromium binary, bubblewrap's);
    :class:`BrowserUnavailable` naming what is missing and how to install it."""
    from tools.native.code import sandbox_status

    executable = find_chromium(chromium)
    sandbox = sandbox_status()
    if not sandbox.available or not sandbox.bwrap:
        raise BrowserUnavailable(f"render_page runs Chromium inside bubblewrap, which is unavailable: "
                                 f"{sandbox.reason}")
    return executable, sandbox.bwrap


def request_allowed(url: str, file_roots: list[Path]) -> bool:
    """The friendly fence: file:// under an allowed root, data/blob/about; nothing on a network, loopback included.

    The guarantee is the jail's empty network namespace; this says so at once instead of a connection error.
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("data", "blob", "about"):
        return True
    if scheme == "file":
        path = Path(os.path.realpath(unquote(parts.path)))
        return any(path == root or path.is_relative_to(root) for root in file_roots)
    return False


def jail_script(bwrap: str, chromium: Path, roots: Sequence[Path]) -> str:
    """A shell script Playwright can launch as "Chromium": it execs ``chromium`` inside bubblewrap.

    The profile folder Playwright names with ``--user-data-dir=`` is the one writable place; ``roots`` are
    readable; nothing is reachable over a network.
    """
    from tools.native.code import system_mounts

    args = ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--uid", "65534",
            "--gid", "65534", "--hostname", "render", *system_mounts(_ETC)]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm", "--tmpfs", "/tmp", "--tmpfs", _JAIL_HOME,
             "--clearenv"]
    for key, value in {"HOME": _JAIL_HOME, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}.items():
        args += ["--setenv", key, value]
    real = Path(os.path.realpath(chromium))
    if not real.is_relative_to("/usr"):  # a Chromium elsewhere (JARVISHUB_CHROMIUM): its folder, read-only
        args += ["--ro-bind", str(real.parent), str(real.parent)]
    for root in dict.fromkeys(str(Path(r).resolve()) for r in roots):
        args += ["--ro-bind", root, root]
    return (
        "#!/bin/sh\n"
        "# Written by JarvisHub (tools/native/browser.py): Chromium for render_page, inside bubblewrap.\n"
        "profile=\n"
        'for arg in "$@"; do case "$arg" in --user-data-dir=*) profile="${arg#--user-data-dir=}";; esac; done\n'
        'if [ -z "$profile" ]; then echo "jarvishub: no --user-data-dir for the jailed Chromium" >&2; exit 2; fi\n'
        f'exec {shlex.quote(bwrap)} {shlex.join(args)} --bind "$profile" "$profile" '
        f'-- {shlex.quote(str(real))} "$@"\n'
    )


_ETC = ("fonts", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "mime.types",
        "chromium", "chromium.d")
_JAIL_HOME = "/home/render"


class Browser:
    """A launched headless Chromium that renders pages to PNGs; use as a context manager and close it."""

    def __init__(self, playwright: Any, browser: Any, timeout_s: float, roots: Sequence[Path] = (),
                 jail: Path | None = None) -> None:
        self._playwright = playwright
        self._browser = browser
        self.timeout_s = timeout_s
        self.roots = [Path(r).resolve() for r in roots]
        self._jail = jail

    @classmethod
    def launch(cls, chromium: str | None = None, timeout_s: float = 30.0, roots: Sequence[Path] = ()) -> Browser:
        """Start Chromium inside bubblewrap, able to read ``roots`` and nothing else of the host (never downloading
        one); :class:`BrowserUnavailable` if it, or a working bubblewrap, is missing or it will not start."""
        executable, bwrap = check_browser(chromium)
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright

        folder = Path(tempfile.mkdtemp(prefix="jarvishub-chromium-"))
        jail = folder / "chromium"
        jail.write_text(jail_script(bwrap, executable, roots))
        jail.chmod(0o700)
        with _children_in_their_own_process_group():
            manager = sync_playwright().start()
        try:
            browser = manager.chromium.launch(
                executable_path=str(jail),
                headless=True,
                args=list(LAUNCH_ARGS),
                timeout=timeout_s * 1000,
                handle_sigint=False,  # Ctrl-C pauses the turn (the CLI's doing); it must not close the browser
            )
        except PlaywrightError as exc:
            manager.stop()
            shutil.rmtree(folder, ignore_errors=True)
            raise BrowserUnavailable(f"Chromium at {executable} did not start in its sandbox ({exc}); "
                                     f"{INSTALL_HINT}") from exc
        return cls(manager, browser, timeout_s, roots, jail)

    def connected(self) -> bool:
        """Whether the Chromium is still there (a killed or crashed one is not)."""
        return bool(self._browser.is_connected())

    def close(self) -> None:
        """Close the browser and its Playwright driver."""
        try:
            self._browser.close()
        finally:
            self._playwright.stop()
            if self._jail is not None:
                shutil.rmtree(self._jail.parent, ignore_errors=True)

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
        page = Path(page_path).resolve()
        if not any(page == r or page.is_relative_to(r) for r in self.roots):
            raise RenderFailed(f"{page} is outside the folders this browser was launched to read "
                               f"({', '.join(map(str, self.roots)) or 'none'})")
        url = page.as_uri()
        blocked: list[str] = []
        try:
            context = self._browser.new_context(
                viewport={"width": viewport.width, "height": viewport.height},
                device_scale_factor=1,
                service_workers="block",
                accept_downloads=False,
            )
        except PlaywrightError as exc:  # the browser is gone (killed, crashed)
            raise RenderFailed(f"could not open a page to render {url}: {exc}") from exc
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
    blocked.append(ws.url)
    ws.close(code=1008, reason="jarvishub: network access is blocked")
