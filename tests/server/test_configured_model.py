"""A turn on LangGraph's own server with a configured model: the server's environment holds the key and the
endpoint, as a deployment's would, and the turn's model calls and pictures go to the provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from jarvishub.project import Project
from nodes.spend import SpendLedger
from tests.providers.conftest import user_env
from tests.providers.loopback import LoopbackOpenAI, ScriptedBrain
from tests.server.langgraph_dev import langgraph_dev

pytestmark = pytest.mark.long_file(25)


def test_a_turn_with_a_key_in_the_servers_environment(tmp_path: Path):
    from langgraph_sdk import get_sync_client

    folder = tmp_path / "p"
    Project.init(folder).close()
    with LoopbackOpenAI() as provider:
        provider.brains["gpt-4o-mini"] = ScriptedBrain([
            {"tool": "generate_image", "arguments": {"prompt": "the harbour at dusk", "lighting": "dusk",
                                                     "title": "served", "width": 512, "height": 512}},
            {"content": "Made the harbour."}])
        with langgraph_dev(tmp_path, folder, user_env(provider, JARVISHUB_ENGINE_IDLE_SECONDS="0")) as server:
            client = get_sync_client(url=server["url"])
            assistant = client.assistants.search(graph_id="supervisor")[0]
            thread = client.threads.create()
            done = client.runs.wait(thread["thread_id"], assistant["assistant_id"],
                                    input={"request": "an image of the harbour at dusk"})
        assert done["outcome"] == "replied" and done["reply"] == "Made the harbour.", done
        assert [r["model"] for r in provider.requests("images")] == ["gpt-image-1"]
        assert {r["model"] for r in provider.requests("chat")} == {"gpt-4o-mini"}  # agent and judge
    with Project.open(folder) as project:
        [image] = [n for n in project.store.find_nodes(kind="image") if n.title == "served"]
        assert image.metadata["provenance"]["provider"] == "openai"
        [spent] = SpendLedger(project.state_dir / "spend.sqlite").by_turn().values()  # the one turn's
    assert spent.calls == 4 and spent.cost_usd > 0  # two agent calls, one judge call, one image
