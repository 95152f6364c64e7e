"""The generation service stores what it makes, counts provider calls, and is safe under parallel callers."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from tools.generate.base import (
    AudioKind,
    AudioRequest,
    ConcatRequest,
    ImageRequest,
    ReferenceInput,
    ReferenceRole,
    VideoRequest,
)
from tools.generate.cache import SignatureCache
from tools.generate.measure import image_stats, wav_info
from tools.generate.offline_audio import OfflineAudioProvider
from tools.generate.offline_image import OfflineImageProvider
from tools.generate.offline_video import OfflineVideoProvider
from tools.generate.service import GenerationService


def test_every_medium_is_stored_in_the_artifact_store(service, artifacts):
    image = service.image(ImageRequest(prompt="a lighthouse", width=256, height=256))
    assert image_stats(artifacts.read_bytes(image.handle)).width == 256
    assert image.handle.mime == "image/png" and image.handle.name.endswith(".png")

    still = ReferenceInput(
        node_id="img", role=ReferenceRole.SOURCE, sha256=image.handle.sha256, path=artifacts.local_path(image.handle)
    )
    clip = service.video(VideoRequest(source=still, duration_s=0.5, fps=12))
    assert clip.handle.mime == "video/mp4" and clip.media["duration_s"] == 0.5

    clip_ref = ReferenceInput(
        node_id="clip", role=ReferenceRole.CLIP, sha256=clip.handle.sha256, path=artifacts.local_path(clip.handle)
    )
    cut = service.cut(ConcatRequest(clips=[clip_ref, clip_ref]))
    assert cut.provider == "ffmpeg" and cut.media["duration_s"] == 1.0

    sound = service.audio(AudioRequest(kind=AudioKind.AMBIENCE, prompt="gulls", duration_s=1))
    assert wav_info(artifacts.read_bytes(sound.handle)).duration_s == 1.0
    assert service.provider_calls == {"image": 1, "video": 2, "audio": 1}
    assert all(artifacts.verify(o.handle) for o in (image, clip, cut, sound))


def test_upstream_change_invalidates_a_clip(service, artifacts):
    def clip_from(prompt: str):
        image = service.image(ImageRequest(prompt=prompt, width=128, height=128))
        source = ReferenceInput(
            node_id="same-node",
            role=ReferenceRole.SOURCE,
            sha256=image.handle.sha256,
            path=artifacts.local_path(image.handle),
        )
        return service.video(VideoRequest(source=source, duration_s=0.25, fps=8))

    first, same, redone = clip_from("dawn"), clip_from("dawn"), clip_from("dusk")
    assert same.cache_hit and same.handle == first.handle and not redone.cache_hit
    assert service.provider_calls["video"] == 2


def test_parallel_callers_of_one_signature_make_it_once(artifacts, cache_path):
    service = GenerationService(
        artifacts,
        SignatureCache(cache_path),
        OfflineImageProvider(latency_s=0.2),
        OfflineVideoProvider(),
        OfflineAudioProvider(),
    )
    request = ImageRequest(prompt="the same shot", width=128, height=128)
    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(lambda _: service.image(request), range(8)))
    assert service.provider_calls["image"] == 1
    assert sum(not o.cache_hit for o in outcomes) == 1
    assert len({o.handle.sha256 for o in outcomes}) == 1


def test_different_signatures_run_in_parallel(artifacts, cache_path):
    latency = 0.3
    service = GenerationService(
        artifacts,
        SignatureCache(cache_path),
        OfflineImageProvider(latency_s=latency),
        OfflineVideoProvider(),
        OfflineAudioProvider(),
    )
    barrier = threading.Barrier(4)

    def explore(seed: int):
        barrier.wait()
        return service.image(ImageRequest(prompt="variations", seed=seed, width=128, height=128))

    start = time.perf_counter()
    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(explore, range(4)))
    wall = time.perf_counter() - start
    assert service.provider_calls["image"] == 4 and len({o.handle.sha256 for o in outcomes}) == 4
    assert wall < 4 * latency * 0.75, f"4 explorations took {wall:.2f}s: not run in parallel"


def test_service_without_cache_always_calls(artifacts):
    service = GenerationService(artifacts, None, OfflineImageProvider(), OfflineVideoProvider(), OfflineAudioProvider())
    request = ImageRequest(prompt="no cache", width=64, height=64)
    service.image(request)
    assert not service.image(request).cache_hit
    assert service.provider_calls["image"] == 2
