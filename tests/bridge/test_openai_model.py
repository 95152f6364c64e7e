"""langchain-openai against a local server that speaks the chat-completions API: real client, real HTTP."""

from __future__ import annotations

from jarvishub.settings import load_settings
from nodes.models.factory import chat_model
from tests.bridge.openai_chat_server import ScriptedChatServer


def test_the_real_client_drives_the_loop_and_malformed_calls_are_rejected(make_runtime, project):
    replies = [
        {"tool": "create_node", "arguments": '{"kind": "text", "title": "broken'},      # bad JSON
        {"tool": "teleport", "arguments": {}},                                         # unknown tool
        {"tool": "create_node", "arguments": {"kind": "text", "title": "from the model"}},
        {"content": "Created the note."},
    ]
    began_empty = project.store.canvas_version() == 0
    with ScriptedChatServer(replies) as server:
        settings = load_settings(None, openai_api_key="test-key", openai_base_url=server.base_url, model="gpt-test")
        runtime = make_runtime(model=chat_model(settings))
        outcome = runtime.run("add a note from the model")
    assert outcome.outcome == "replied" and outcome.reply == "Created the note."
    reasons = [s["verdict"]["reason"] for s in outcome.steps if (s.get("verdict") or {}).get("verdict") == "reject"]
    assert reasons == ["malformed", "unknown_tool"]
    assert any(n.title == "from the model" for n in project.store.find_nodes(kind="text"))
    first = server.requests[0]
    assert first["model"] == "gpt-test"
    bound = {t["function"]["name"] for t in first["tools"]}
    # On a canvas with nothing on it there is nothing to read, so the reads are not offered (nodes.propose).
    assert "create_node" in bound and ("query_canvas" in bound) != began_empty
    # The system message carries the focused view of the canvas (nodes.resolve), read for this call.
    assert first["messages"][0]["role"] == "system" and "canvas version " in first["messages"][0]["content"]
    # The rejection reached the model as a tool result it can act on.
    later = server.requests[2]["messages"]
    assert any(m["role"] == "tool" and "unknown_tool" not in m.get("content", "") and "teleport" in m.get("content", "")
               for m in later) or any("teleport" in str(m.get("content")) for m in later)
