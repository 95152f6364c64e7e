"""Benchmark of the offline generators and the signature cache; prints one JSON object.

    python bench/generate.py [--repeats N]

Measures the median time of each offline generator (a 512x512 image, a 3 s
640x360 clip, speech and a 3 s ambience bed), a cache hit against a miss
through the GenerationService, and the provider calls the cache saves when a
small workflow (6 images, 6 clips from them, one cut) is run twice.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script, bench/ comes first on sys.path, and bench/store.py would shadow the `store` package.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from store.artifacts import LocalArtifactStore  # noqa: E402
from tools.generate.base import (
    AudioKind,
    AudioRequest,
    CameraMove,
    ConcatRequest,
    ImageRequest,
    Lighting,
    ReferenceInput,
    ReferenceRole,
    VideoRequest,
)
from tools.generate.cache import SignatureCache
from tools.generate.offline_audio import OfflineAudioProvider
from tools.generate.offline_image import OfflineImageProvider
from tools.generate.offline_video import OfflineVideoProvider
from tools.generate.service import GenerationService

MIRA = ReferenceInput(
    node_id="mira", role=ReferenceRole.CHARACTER, inputs={"name": "Mira", "colors": ["#c0392b", "#f5cba7"]}
)
SHOTS = [
    ("Mira wakes at dawn", Lighting.WARM, CameraMove.ZOOM),
    ("Mira walks to the harbour", Lighting.NEUTRAL, CameraMove.PAN),
    ("the boats come in", Lighting.COLD, CameraMove.PAN),
    ("Mira waves from the pier", Lighting.HIGH_KEY, CameraMove.STATIC),
    ("the storm rolls over the sea", Lighting.COLD, CameraMove.FADE),
    ("lanterns at night", Lighting.NIGHT, CameraMove.ZOOM),
]


def median_s(fn: Callable[[int], Any], repeats: int) -> float:
    """Median wall time of ``fn(i)`` over ``repeats`` runs (``i`` lets each run differ)."""
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - start)
    return round(statistics.median(times), 4)


def generators(repeats: int, workdir: Path) -> dict[str, float]:
    """Median seconds of each offline generator, called directly (no cache)."""
    images, videos, audio = OfflineImageProvider(), OfflineVideoProvider(), OfflineAudioProvider()
    still = workdir / "still.png"
    still.write_bytes(images.generate(ImageRequest(prompt="a harbour", references=[MIRA])).read_bytes())
    source = ReferenceInput(node_id="still", role=ReferenceRole.SOURCE, path=still)
    speech_model = audio.identity(AudioRequest(prompt="x")).model
    return {
        "image_512_s": median_s(
            lambda i: images.generate(ImageRequest(prompt="Mira at the harbour", seed=i, references=[MIRA])), repeats
        ),
        "video_3s_640x360_24fps_s": median_s(
            lambda i: videos.generate(
                VideoRequest(source=source, camera=CameraMove.PAN, duration_s=3, width=640, height=360, seed=i)
            ),
            repeats,
        ),
        f"speech_{speech_model}_s": median_s(
            lambda i: audio.generate(AudioRequest(prompt=f"The boats are in, Mira. Take {i}.")), repeats
        ),
        "ambience_3s_s": median_s(
            lambda i: audio.generate(AudioRequest(kind=AudioKind.AMBIENCE, prompt="gulls", duration_s=3, seed=i)),
            repeats,
        ),
    }


def hit_vs_miss(repeats: int, workdir: Path) -> dict[str, float]:
    """Median seconds of an image request through the service: first time (miss) and again (hit)."""
    service = _service(workdir / "hit-vs-miss")
    requests = [ImageRequest(prompt="Mira at the harbour", seed=i, references=[MIRA]) for i in range(repeats)]
    miss = median_s(lambda i: service.image(requests[i]), repeats)
    hit = median_s(lambda i: service.image(requests[i]), repeats)
    return {"image_miss_s": miss, "image_hit_s": hit, "speedup": round(miss / hit, 1) if hit else float("inf")}


def workflow(workdir: Path) -> dict[str, Any]:
    """Run 6 images, 6 clips and a cut twice through one service; count provider calls per run."""
    service = _service(workdir / "workflow")
    artifacts = service.artifacts
    runs = []
    for _ in range(2):
        before = dict(service.provider_calls)
        start = time.perf_counter()
        clips = []
        for i, (prompt, lighting, camera) in enumerate(SHOTS):
            image = service.image(
                ImageRequest(prompt=prompt, seed=i, lighting=lighting, references=[MIRA], width=640, height=360)
            )
            still = ReferenceInput(
                node_id=f"shot-{i}",
                role=ReferenceRole.SOURCE,
                sha256=image.handle.sha256,
                path=artifacts.local_path(image.handle),
            )
            clip = service.video(VideoRequest(source=still, camera=camera, duration_s=2, seed=i))
            clips.append(
                ReferenceInput(
                    node_id=f"clip-{i}",
                    role=ReferenceRole.CLIP,
                    sha256=clip.handle.sha256,
                    path=artifacts.local_path(clip.handle),
                )
            )
        service.cut(ConcatRequest(clips=clips))
        calls = {k: service.provider_calls[k] - before[k] for k in before}
        runs.append(
            {"wall_s": round(time.perf_counter() - start, 3), "provider_calls": sum(calls.values()), "by_medium": calls}
        )
    first, second = runs
    return {
        "steps_per_run": len(SHOTS) * 2 + 1,
        "first_run": first,
        "second_run": second,
        "provider_calls_saved": first["provider_calls"] - second["provider_calls"],
    }


def _service(root: Path) -> GenerationService:
    return GenerationService(
        LocalArtifactStore(root / "artifacts"),
        SignatureCache(root / "cache.sqlite"),
        OfflineImageProvider(),
        OfflineVideoProvider(),
        OfflineAudioProvider(),
    )


def main(argv: list[str] | None = None) -> int:
    """Run every measurement and print the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="jarvishub-bench-") as tmp:
        workdir = Path(tmp)
        report = {
            "generators_median": generators(args.repeats, workdir),
            "cache": hit_vs_miss(args.repeats, workdir),
            "workflow_twice": workflow(workdir),
        }
    report["total_s"] = round(time.perf_counter() - start, 2)
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
