"""``langgraph dev`` on loopback serving langgraph.json's graph for a JarvisHub project, as a LangGraph user runs it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
LANGGRAPH = Path(sys.executable).with_name("langgraph")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def langgraph_dev(scratch: Path, project: Path, env: dict[str, str] | None = None) -> Iterator[dict[str, Any]]:
    """The server for ``project`` with ``env`` (default: this process's), its state in ``scratch``; killed after."""
    port = _free_port()
    env = {**(os.environ if env is None else env), "JARVISHUB_PROJECT": str(project), "PYTHONPATH": str(ROOT),
           "JARVISHUB_ENGINE_IDLE_SECONDS": "0", "LANGSMITH_TRACING": "false"}
    log = (scratch / "server.log").open("wb")
    # The checkout's langgraph.json with its paths made absolute, so the server can run in a scratch folder and
    # keep its own state (.langgraph_api/) there rather than in the checkout.
    config = json.loads((ROOT / "langgraph.json").read_text())
    config["dependencies"] = [str(ROOT)]
    config["graphs"] = {name: str(ROOT / spec.lstrip("./")) for name, spec in config["graphs"].items()}
    (scratch / "langgraph.json").write_text(json.dumps(config))
    command = [str(LANGGRAPH) if LANGGRAPH.exists() else "langgraph", "dev", "--port", str(port), "--no-browser",
               "--no-reload", "--config", str(scratch / "langgraph.json")]
    process = subprocess.Popen(command, cwd=scratch, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            assert process.poll() is None, (scratch / "server.log").read_text()[-3000:]
            try:
                if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "langgraph dev did not answer /ok"
            time.sleep(0.2)
        yield {"url": url, "process": process, "project": project, "log": scratch / "server.log"}
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
