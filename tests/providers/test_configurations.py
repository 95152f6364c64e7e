"""Each configuration of the README's model table runs a turn through ``jarvishub run``, set as a user sets it.

* a key alone: the clients go to OpenAI's own endpoint (``https://api.openai.com/v1``), reached here through
  a CONNECT proxy and a test CA (``tests/providers/tls.py``), with no ``OPENAI_BASE_URL``;
* a key and ``OPENAI_BASE_URL``: ``test_first_ten_minutes.py`` and the failure tests;
* ``JARVISHUB_MEDIA_PROVIDER=offline`` with a key: the model is remote, the media local;
* separate models for the agent, the judge and each medium.
"""

from __future__ import annotations

import json

import pytest

from tests.providers.conftest import document, jarvishub, user_env
from tests.providers.loopback import JsonJudge, LoopbackOpenAI, ScriptedBrain, last_observation
from tests.providers.tls import ConnectProxy, make_certificates

pytestmark = pytest.mark.long_file(30)

REQUEST = "an image of the harbour, a video clip from it and a voice-over"


@pytest.fixture
def project(shared_project):
    return shared_project


def image(title: str) -> dict:
    return {"tool": "generate_image", "arguments": {"prompt": "the harbour at dusk", "lighting": "dusk",
                                                    "width": 512, "height": 512, "title": title}}


def made(project, title: str):
    found = [n for n in project.store.find_nodes() if n.title == title]
    assert len(found) == 1, f"{len(found)} nodes titled {title!r}"
    return found[0]


def test_a_key_alone_reaches_openais_own_endpoint(project, tmp_path):
    ca, cert, key = make_certificates(tmp_path, "api.openai.com")
    with LoopbackOpenAI(tls=(cert, key)) as server, ConnectProxy(server.port) as proxy:
        server.brains["gpt-4o-mini"] = ScriptedBrain([image("from the default endpoint"), {"content": "Made it."}])
        env = user_env(server, OPENAI_BASE_URL=None, HTTPS_PROXY=proxy.url, SSL_CERT_FILE=str(ca),
                       https_proxy=None, NO_PROXY=None, no_proxy=None, ALL_PROXY=None, all_proxy=None)
        ran = jarvishub(env, "-C", str(project.root), "run", "an image of the harbour at dusk", "--json")
    assert ran.returncode == 0, ran.stderr
    assert document(ran)["result"] == "done"
    # Where the clients meant to go: OpenAI's endpoint, the default model names, with the key.
    assert set(proxy.tunnels) == {"api.openai.com:443"}
    chats, pictures = server.requests("chat"), server.requests("images")
    assert {r["model"] for r in chats} == {"gpt-4o-mini"} and {r["auth"] for r in chats} == {"Bearer sk-loopback"}
    assert [r["model"] for r in pictures] == ["gpt-image-1"]
    node = made(project, "from the default endpoint")
    assert node.metadata["provenance"]["provider"] == "openai" and node.outputs[0].mime == "image/png"


def test_a_key_with_media_kept_offline(project, loopback):
    loopback.brains["agent-offline-media"] = ScriptedBrain([image("offline media"), {"content": "Made it."}])
    env = user_env(loopback, JARVISHUB_MODEL="agent-offline-media", JARVISHUB_MEDIA_PROVIDER="offline")
    before = len(loopback.requests("images"))
    ran = jarvishub(env, "-C", str(project.root), "run", "an image of the harbour at dusk", "--json")
    assert ran.returncode == 0, ran.stderr
    assert len(loopback.requests("images")) == before  # no media call left the machine
    assert made(project, "offline media").metadata["provenance"]["provider"] == "offline"
    assert [r["model"] for r in loopback.requests("chat")][-1] == "agent-offline-media"


def test_separate_models_for_the_agent_the_judge_and_each_medium(project, loopback):
    loopback.brains["agent-sep"] = ScriptedBrain([
        image("separate image"),
        lambda messages: {"tool": "generate_video", "arguments": {
            "source_node_id": last_observation(messages)["node_id"], "duration_s": 2, "fps": 12,
            "title": "separate clip", "camera": "zoom"}},
        {"tool": "generate_audio", "arguments": {"prompt": "Welcome to the harbour.", "title": "separate voice"}},
        {"content": "Made the image, the clip and the voice-over."}])
    loopback.brains["judge-sep"] = JsonJudge()
    env = user_env(loopback, JARVISHUB_MODEL="agent-sep", JARVISHUB_JUDGE_MODEL="judge-sep",
                   JARVISHUB_IMAGE_MODEL="image-sep", JARVISHUB_VIDEO_MODEL="video-sep",
                   JARVISHUB_SPEECH_MODEL="speech-sep")
    seen = len(loopback.seen)
    ran = jarvishub(env, "-C", str(project.root), "run", REQUEST, "--json")
    assert ran.returncode == 0, ran.stderr
    turn = document(ran)
    assert turn["result"] == "done"
    models = {(r["route"], r["model"]) for r in loopback.seen[seen:] if r["model"]}
    assert models == {("chat", "agent-sep"), ("chat", "judge-sep"), ("images", "image-sep"),
                      ("videos", "video-sep"), ("speech", "speech-sep")}
    for title, model in (("separate image", "image-sep"), ("separate clip", "video-sep"),
                         ("separate voice", "speech-sep")):
        assert made(project, title).metadata["provenance"]["model"] == model
    clip = made(project, "separate clip")
    assert clip.metadata["media"]["duration_s"] == pytest.approx(2.0, abs=0.1)  # the 4 s job, cut to what was asked
    evaluations = [e for s in turn["steps"] for e in ((s.get("feedback") or {}).get("evaluations") or [])]
    assert evaluations and {e["evaluator"] for e in evaluations} == {"multimodal:judge-sep"}
    # Models the price table does not know are named, not priced at zero without a word.
    assert set(turn["spend"]["unpriced"]) >= {"agent-sep", "judge-sep", "image-sep", "video-sep", "speech-sep"}
    assert json.loads(json.dumps(turn["spend"]))["calls"] >= 7
