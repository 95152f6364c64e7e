"""The graph factory named in langgraph.json builds the supervisor without a checkpointer."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_langgraph_json_names_a_factory_that_builds_the_supervisor(tmp_path, monkeypatch):
    config = json.loads((ROOT / "langgraph.json").read_text())
    module_path, _, attribute = config["graphs"]["supervisor"].partition(":")
    assert (ROOT / module_path).exists()
    monkeypatch.setenv("JARVISHUB_PROJECT", str(tmp_path / "p"))
    from graphs import server

    server._runtime.cache_clear()
    graph = getattr(server, attribute)({})
    try:
        assert graph.checkpointer is None
        assert {"observe", "propose", "validate", "execute", "feedback", "repair", "commit", "record"} <= set(graph.nodes)
    finally:
        runtime = server._runtime()
        runtime.close()
        runtime.project.close()
        server._runtime.cache_clear()
