"""The signature cache: equal work is done once, changed inputs are redone, and hits outlive the process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from store.artifacts import LocalArtifactStore
from tools.generate.base import ImageRequest, Lighting, ReferenceInput, ReferenceRole
from tools.generate.cache import CacheEntry, SignatureCache, signature
from tools.generate.offline_audio import OfflineAudioProvider
from tools.generate.offline_image import OfflineImageProvider
from tools.generate.offline_video import OfflineVideoProvider
from tools.generate.service import GenerationService

BASE = {"tool": "generate_image", "provider": "offline", "model": "m1", "params": {"a": 1, "b": [1, 2]}, "seed": 3}
UPSTREAM = ["11" * 32, "22" * 32]


def _character(sha: str) -> ReferenceInput:
    return ReferenceInput(node_id="mira", role=ReferenceRole.CHARACTER, sha256=sha, inputs={"name": "Mira"})


def _service(artifacts: LocalArtifactStore, cache_path: Path) -> GenerationService:
    return GenerationService(
        artifacts, SignatureCache(cache_path), OfflineImageProvider(), OfflineVideoProvider(), OfflineAudioProvider()
    )


def test_signature_is_stable_and_sees_every_input():
    sig = signature(**BASE, upstream_hashes=UPSTREAM)
    assert sig == signature(**{**BASE, "params": {"b": [1, 2], "a": 1}}, upstream_hashes=list(UPSTREAM))
    changed = [
        signature(**{**BASE, "tool": "other"}, upstream_hashes=UPSTREAM),
        signature(**{**BASE, "provider": "openai"}, upstream_hashes=UPSTREAM),
        signature(**{**BASE, "model": "m2"}, upstream_hashes=UPSTREAM),
        signature(**{**BASE, "params": {"a": 2, "b": [1, 2]}}, upstream_hashes=UPSTREAM),
        signature(**{**BASE, "seed": 4}, upstream_hashes=UPSTREAM),
        signature(**BASE, upstream_hashes=UPSTREAM[:1]),
    ]
    assert sig not in changed and len(set(changed)) == len(changed)


def test_lists_keep_their_order():
    # Clips in a cut and characters in a shot are ordered: swapping them is another result.
    assert signature(**BASE, upstream_hashes=UPSTREAM) != signature(**BASE, upstream_hashes=UPSTREAM[::-1])
    assert signature(**BASE, upstream_hashes=[]) != signature(
        **{**BASE, "params": {"a": 1, "b": [2, 1]}}, upstream_hashes=[]
    )


def test_request_signature_ignores_node_ids_and_paths(tmp_path):
    a = ImageRequest(prompt="p", references=[_character("ab" * 32)])
    moved = ReferenceInput(
        node_id="copy-of-mira", role=ReferenceRole.CHARACTER, sha256="ab" * 32, inputs={"name": "Mira"}, path=tmp_path
    )
    b = ImageRequest(prompt="p", references=[moved])
    assert a.signature_params() == b.signature_params()
    assert a.upstream_hashes() == b.upstream_hashes() == ["ab" * 32]


def test_hit_skips_the_provider_and_returns_the_same_handle(artifacts, cache_path):
    service = _service(artifacts, cache_path)
    request = ImageRequest(prompt="Mira on the pier", references=[_character("ab" * 32)])
    miss = service.image(request)
    hit = service.image(request)
    assert (miss.cache_hit, hit.cache_hit) == (False, True)
    assert hit.handle == miss.handle and hit.signature == miss.signature
    assert service.signature_of("image", request, "generate_image") == miss.signature
    assert service.provider_calls["image"] == 1 and service.cache_hits["image"] == 1
    assert hit.provider_s is None and hit.media == miss.media


@pytest.mark.parametrize(
    "change",
    [
        {"lighting": Lighting.NIGHT},
        {"references": [_character("cd" * 32)]},  # the upstream artifact changed
        {"seed": 1},
        {"palette": ["#112233"]},
    ],
)
def test_a_changed_input_is_a_new_provider_call(artifacts, cache_path, change):
    service = _service(artifacts, cache_path)
    request = ImageRequest(prompt="Mira on the pier", references=[_character("ab" * 32)])
    first = service.image(request)
    second = service.image(request.model_copy(update=change))
    assert not second.cache_hit and second.signature != first.signature
    assert service.provider_calls["image"] == 2


def test_cache_survives_a_new_instance(artifacts, cache_path):
    request = ImageRequest(prompt="the lighthouse", seed=5)
    first = _service(artifacts, cache_path).image(request)
    reopened = _service(artifacts, cache_path)
    again = reopened.image(request)
    assert again.cache_hit and again.handle == first.handle
    assert reopened.provider_calls["image"] == 0
    assert len(SignatureCache(cache_path)) == 1


def test_cache_survives_a_new_process(artifacts, cache_path):
    first = _service(artifacts, cache_path).image(ImageRequest(prompt="the lighthouse", seed=5))
    script = textwrap.dedent(
        f"""
        import json
        from pathlib import Path
        from store.artifacts import LocalArtifactStore
        from tools.generate.base import ImageRequest
        from tools.generate.cache import SignatureCache
        from tools.generate.offline_audio import OfflineAudioProvider
        from tools.generate.offline_image import OfflineImageProvider
        from tools.generate.offline_video import OfflineVideoProvider
        from tools.generate.service import GenerationService
        service = GenerationService(
            LocalArtifactStore(Path({str(artifacts.root)!r})), SignatureCache(Path({str(cache_path)!r})),
            OfflineImageProvider(), OfflineVideoProvider(), OfflineAudioProvider(),
        )
        outcome = service.image(ImageRequest(prompt="the lighthouse", seed=5))
        print(json.dumps({{"hit": outcome.cache_hit, "sha": outcome.handle.sha256, "calls": service.provider_calls}}))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True).stdout
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen == {"hit": True, "sha": first.handle.sha256, "calls": {"image": 0, "video": 0, "audio": 0}}


def test_entry_without_its_artifact_is_not_a_hit(artifacts, cache_path):
    service = _service(artifacts, cache_path)
    request = ImageRequest(prompt="the lighthouse")
    first = service.image(request)
    blob = artifacts.root / first.handle.sha256[:2] / first.handle.sha256[2:]
    blob.unlink()
    again = service.image(request)
    assert not again.cache_hit and service.provider_calls["image"] == 2
    assert artifacts.exists(first.handle.sha256)  # regenerated (deterministically, so the same bytes)
    assert service.image(request).cache_hit


def test_first_writer_wins(cache_path, artifacts):
    cache = SignatureCache(cache_path)
    one = artifacts.put_bytes(b"one", "text/plain")
    two = artifacts.put_bytes(b"two", "text/plain")
    stored = cache.put("sig", CacheEntry(handle=one, tool="t", provider="p", model="m"))
    raced = cache.put("sig", CacheEntry(handle=two, tool="t", provider="p", model="m"))
    assert stored.handle == raced.handle == one
    assert cache.get("sig", artifacts).handle == one
    assert cache.forget("sig") and cache.get("sig", artifacts) is None
