"""The embedded ArcadeDB engine: data under the project, reuse by a second process, clean stop, restart."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from store import process
from store.connect import EngineSettings, open_store, start_engine
from store.mutations import CreateNode
from store.tickets import TicketAuthority

pytestmark = pytest.mark.long_file(30)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def test_canvas_persists_across_a_restart_and_a_second_process_reuses_the_server(tmp_path):
    authority = TicketAuthority()
    engine = start_engine(EngineSettings(data_dir=tmp_path))
    store = open_store(engine, authority)
    node = CreateNode(kind="reference", title="Mira")
    store.apply([node], ticket=authority.issue("a", [node]))
    pid = engine.server_pid
    start = process.start_time(pid)
    assert (tmp_path / "engine" / "server" / "databases").is_dir()

    # A second process of the same project finds the running server and reads the canvas.
    script = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from store.connect import EngineSettings, open_store, start_engine
        from store.tickets import TicketAuthority
        engine = start_engine(EngineSettings(data_dir=Path({str(tmp_path)!r})))
        store = open_store(engine, TicketAuthority())
        print(json.dumps({{"pid": engine.server_pid, "titles": [n.title for n in store.find_nodes()]}}))
        engine.close()
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen == {"pid": pid, "titles": ["Mira"]}
    assert process.is_same_process(pid, start), "the second process must not stop a server the first still uses"

    engine.stop()
    assert not process.is_same_process(pid, start), "stop ends the server"
    assert not (tmp_path / "engine" / "engine.json").exists()

    engine = start_engine(EngineSettings(data_dir=tmp_path))
    try:
        assert engine.server_pid != pid
        store = open_store(engine, authority)
        assert [n.title for n in store.find_nodes()] == ["Mira"]
        assert store.canvas_version() == 1
    finally:
        engine.stop()


def test_a_port_another_server_took_first_is_not_mistaken_for_the_engine(tmp_path, monkeypatch):
    """Two engines starting at once can pick the same free port: the one that loses the bind starts again on
    new ports instead of connecting to the other's server."""
    import socket

    from store import embedded

    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen()
    taken = squatter.getsockname()[1]
    picks = iter([[taken, process.free_ports(1)[0]]])
    real_free_ports = process.free_ports
    monkeypatch.setattr(process, "free_ports", lambda count: next(picks, None) or real_free_ports(count))
    authority = TicketAuthority()
    engine = start_engine(EngineSettings(data_dir=tmp_path))
    try:
        info = json.loads((tmp_path / "engine" / "engine.json").read_text())
        assert taken not in (info["bolt_port"], info["http_port"])
        assert {info["bolt_port"], info["http_port"]} <= process.listening_ports(engine.server_pid)
        store = open_store(engine, authority)
        node = CreateNode(kind="reference", title="not the squatter")
        store.apply([node], ticket=authority.issue("a", [node]))
        assert [n.title for n in store.find_nodes()] == ["not the squatter"]
    finally:
        engine.stop()
        squatter.close()
