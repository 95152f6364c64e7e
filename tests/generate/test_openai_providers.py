"""The OpenAI providers, through the real ``openai`` client, against a local server that speaks the API
(``tests/providers/loopback.py``)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from tools.generate.base import (
    AudioKind,
    AudioRequest,
    CameraMove,
    GenerationError,
    ImageRequest,
    Lighting,
    ReferenceInput,
    ReferenceRole,
    VideoRequest,
)
from tools.generate.errors import ContentRefused, ProviderUnavailable
from tools.generate.factory import build_generation_service
from tools.generate.measure import probe_video, wav_info
from tools.generate.openai_audio import OpenAIAudioProvider
from tools.generate.openai_image import OpenAIImageProvider
from tools.generate.openai_video import OpenAIVideoProvider
from tools.generate.settings import GenerationSettings

from tests.providers.loopback import Fault, LoopbackOpenAI

# The SDK warns that OpenAI's own Sora endpoint is being retired; the provider targets any compatible endpoint.
pytestmark = pytest.mark.filterwarnings("ignore:The Sora API:DeprecationWarning")


@pytest.fixture(scope="module")
def stub():
    with LoopbackOpenAI(polls_until_done=2) as server:
        yield server


@pytest.fixture
def remote(stub, artifacts, tmp_path):
    settings = GenerationSettings(
        image_provider="openai",
        video_provider="openai",
        audio_provider="openai",
        api_key="sk-test",
        base_url=stub.base_url,
        video_poll_interval_s=0.01,
        video_max_wait_s=10,
        max_retries=0,
    )
    return build_generation_service(settings, artifacts, tmp_path / "project")


@pytest.fixture
def still(tmp_path) -> ReferenceInput:
    path = tmp_path / "mira.png"
    Image.new("RGB", (512, 512), "#c0392b").save(path)
    return ReferenceInput(
        node_id="mira",
        role=ReferenceRole.CHARACTER,
        path=path,
        mime="image/png",
        sha256="ab" * 32,
        inputs={"name": "Mira"},
    )


def posted(server: LoopbackOpenAI, path: str) -> list[dict]:
    """What came in on one path of the loopback server."""
    return [r for r in server.seen if r["path"] == path]


def test_factory_builds_remote_providers(remote):
    assert isinstance(remote.image_provider, OpenAIImageProvider)
    assert isinstance(remote.video_provider, OpenAIVideoProvider)
    assert isinstance(remote.audio_provider, OpenAIAudioProvider)


def test_text_to_image_sends_the_model_and_the_whole_prompt(stub, remote, artifacts):
    outcome = remote.image(ImageRequest(prompt="a lighthouse in a storm", lighting=Lighting.WARM, palette=["#112233"]))
    sent = posted(stub, "/v1/images/generations")[-1]
    assert sent["auth"] == "Bearer sk-test"
    assert sent["body"]["model"] == "gpt-image-1"
    assert sent["body"]["size"] == "1024x1024"
    prompt = sent["body"]["prompt"]
    assert "a lighthouse in a storm" in prompt and "warm" in prompt and "#112233" in prompt
    with Image.open(io.BytesIO(artifacts.read_bytes(outcome.handle))) as im:
        assert im.size == (1024, 1024) and im.format == "PNG"
    assert (outcome.provider, outcome.model, outcome.cache_hit) == ("openai", "gpt-image-1", False)


def test_reference_guided_image_uploads_the_reference_pictures(stub, remote, still):
    remote.image(ImageRequest(prompt="Mira waves", references=[still], width=768, height=512))
    sent = posted(stub, "/v1/images/edits")[-1]
    assert sent["body"]["model"] == "gpt-image-1"
    assert sent["body"]["size"] == "1536x1024"  # the allowed size nearest the requested 3:2
    assert [f["size"] for f in sent["files"]] == [(512, 512)]
    assert "character 'Mira'" in sent["body"]["prompt"]


def test_repeated_remote_image_is_served_from_the_cache(stub, remote):
    request = ImageRequest(prompt="only once, please")
    remote.image(request)
    before = len(posted(stub, "/v1/images/generations"))
    assert remote.image(request).cache_hit
    assert len(posted(stub, "/v1/images/generations")) == before
    assert remote.provider_calls["image"] == 1


def test_image_to_video_polls_the_job_and_stores_the_download(stub, remote, still, artifacts):
    source = still.model_copy(update={"role": ReferenceRole.SOURCE})
    outcome = remote.video(VideoRequest(prompt="she turns", source=source, camera=CameraMove.ZOOM, duration_s=3))
    created = posted(stub, "/v1/videos")[-1]
    assert created["body"]["model"] == "sora-2"
    assert created["body"]["seconds"] == "4"  # 3 s snaps to the nearest allowed length
    size = tuple(int(v) for v in created["body"]["size"].split("x"))
    assert [f["size"] for f in created["files"]] == [size]  # the still was fitted to the job's size
    assert "push-in zoom" in created["body"]["prompt"]
    job_id = outcome.media["details"]["job_id"]
    assert len(posted(stub, f"/v1/videos/{job_id}")) == 2  # polled until the job completed
    assert posted(stub, f"/v1/videos/{job_id}/content")[-1]["body"] == {"id": job_id, "variant": "video"}
    clip = artifacts.local_path(outcome.handle)
    info = probe_video(clip)
    # The job made 4 s (48 frames at the server's 12 fps); the clip asked for is its first 3 s, billed for 4.
    assert info.codec == "h264" and info.frames == 36 and info.duration_s == pytest.approx(3.0)
    assert outcome.media["details"]["made_s"] == pytest.approx(4.0) and outcome.spend.cost_usd == pytest.approx(0.4)
    assert outcome.handle.mime == "video/mp4"


def test_a_video_job_blocked_by_moderation_is_a_content_refusal_with_the_reason(stub, remote):
    stub.inject("videos", Fault(code="moderation_blocked"))
    with pytest.raises(ContentRefused, match="failed: refused under the content policy: the job was blocked"):
        remote.video(VideoRequest(prompt="a clip the provider will not make", duration_s=4))


def test_speech_goes_to_the_audio_api_and_beds_stay_local(stub, remote, artifacts):
    spoken = remote.audio(AudioRequest(prompt="Welcome to the harbour."))
    sent = posted(stub, "/v1/audio/speech")[-1]["body"]
    assert sent == {
        "model": "gpt-4o-mini-tts",
        "voice": "alloy",
        "input": "Welcome to the harbour.",
        "response_format": "wav",
    }
    assert wav_info(artifacts.read_bytes(spoken.handle)).duration_s == pytest.approx(len(sent["input"]) / 14, abs=0.01)
    before = len(stub.seen)
    bed = remote.audio(AudioRequest(kind=AudioKind.AMBIENCE, prompt="gulls", duration_s=1))
    assert len(stub.seen) == before
    assert (bed.provider, bed.model) == ("offline", "offline-tones-v1")


def test_an_unreachable_endpoint_is_a_provider_outage_not_a_generation_error(artifacts, tmp_path: Path):
    """Nobody listening is an outage the turn can resume after, not a failure the agent should plan around."""
    settings = GenerationSettings(
        image_provider="openai", api_key="sk", base_url="http://127.0.0.1:9/v1", max_retries=0
    )
    service = build_generation_service(settings, artifacts, tmp_path)
    with pytest.raises(ProviderUnavailable, match="the image model gpt-image-1 at openai could not be reached") as e:
        service.image(ImageRequest(prompt="nobody home"))
    assert e.value.kind == "connection" and not isinstance(e.value, GenerationError)
    assert service.provider_calls["image"] == 0
