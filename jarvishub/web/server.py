"""Serving the web canvas: ``serve`` for the CLI (foreground), :class:`BackgroundServer` for tests and notebooks."""

from __future__ import annotations

import socket
import threading
import time
import webbrowser
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from jarvishub.web.app import LOOPBACK_HOSTS, create_app
from jarvishub.web.guards import check_remote_token, is_loopback
from jarvishub.web.token import new_token, opener_file

_STARTUP_TIMEOUT_S = 30.0


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one, read back with ``getsockname``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def page_url(host: str, port: int, token: str) -> str:
    """The address to open: the token rides in the fragment, which browsers never send to a server."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/#token={token}"


class _Server(uvicorn.Server):
    """uvicorn, ending the app's event streams as soon as it is asked to stop (open pages would hold it up)."""

    def __init__(self, app: FastAPI) -> None:
        super().__init__(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2, lifespan="on"))
        self._hub = app.state.hub

    def handle_exit(self, sig: int, frame: Any) -> None:
        self._hub.close()
        super().handle_exit(sig, frame)


class BackgroundServer:
    """An app served by uvicorn in a daemon thread, on a socket bound before start (so the port is known)."""

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = app
        self.host = host
        self._socket = bind_socket(host, port)
        self.port = int(self._socket.getsockname()[1])
        self._server = _Server(app)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name="jarvishub-web", daemon=True)

    @property
    def base_url(self) -> str:
        """``http://host:port`` of the running server."""
        return f"http://{'[' + self.host + ']' if ':' in self.host else self.host}:{self.port}"

    def start(self) -> BackgroundServer:
        """Start serving; returns once the app's startup has run."""
        self._thread.start()
        deadline = time.monotonic() + _STARTUP_TIMEOUT_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the web canvas server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        app_hub = self.app.state.hub
        app_hub.close()
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve(
    project_dir: Path,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None = None,
    allow_remote: bool = False,
    *,
    person: str | None = None,
    open_browser: bool = False,
) -> None:
    """Serve a project's canvas until interrupted (what ``jarvishub ui [DIR]`` runs).

    Every read and write needs ``token`` (a new one when None), on loopback too: another local user is a
    stranger.  Binds to loopback unless ``allow_remote`` is set, which also needs an explicit ``token`` of at
    least 128 bits (and the Host header must name the bind address unless it is a wildcard).  The address
    printed carries the token in its ``#token=`` fragment; ``open_browser`` opens a private file that forwards
    there, so no command line shows the token (``jarvishub/web/token.py``).
    """
    remote = not is_loopback(host)
    if remote and not allow_remote:
        raise ValueError(f"{host} is reachable from other machines; pass allow_remote=True (--allow-remote) "
                         "and a token (--token-file or $JARVISHUB_UI_TOKEN) to serve there")
    if remote and not token:
        raise ValueError("serving beyond this machine needs a token (--token-file or $JARVISHUB_UI_TOKEN)")
    if remote:
        check_remote_token(token or "")
    token = token or new_token()
    with Project.open(Path(project_dir)) as project:
        runtime = Runtime(project)
        opener: Path | None = None
        try:
            app = create_app(runtime, token, allowed_hosts=_allowed_hosts(host), person=person)
            sock = bind_socket(host, port)
            url = page_url(host, int(sock.getsockname()[1]), token)
            print(f"JarvisHub canvas of {project.name}: {url}", flush=True)
            if open_browser:
                opener = opener_file(project.state_dir, url)
                webbrowser.open(opener.as_uri())
            try:
                _Server(app).run(sockets=[sock])
            finally:
                sock.close()
        finally:
            if opener is not None:
                opener.unlink(missing_ok=True)
            runtime.close()


def _allowed_hosts(host: str) -> tuple[str, ...] | None:
    """What the Host header may name: loopback names and the bind address; anything for a wildcard bind."""
    if host in ("0.0.0.0", "::"):
        return None  # the names it is reached by are not known here; the token guards every request
    return (*LOOPBACK_HOSTS, host)
