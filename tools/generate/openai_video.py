"""Clips from an OpenAI (or OpenAI-compatible) video endpoint through the ``openai`` SDK.

A clip is a job: ``videos.create`` starts it, ``videos.retrieve`` is polled
until it completes or fails, ``videos.download_content`` fetches the MP4.  For
image-to-video the source still is cropped and scaled to the job's size first,
since the API wants a reference picture of exactly that size.  Cuts are joined
locally with ffmpeg.
"""

from __future__ import annotations

import io
import tempfile
import time
from pathlib import Path

from openai import OpenAI, OpenAIError
from openai.types import Video
from PIL import Image

from tools.generate.base import ConcatRequest, GeneratedMedia, GenerationError, VideoProvider, VideoRequest
from tools.generate.cut import make_cut
from tools.generate.errors import ContentRefused, ProviderUnavailable, classify
from tools.generate.ffmpeg import trim_clip
from tools.generate.fit import cover, load_still
from tools.generate.measure import probe_video
from tools.generate.openai_image import nearest_size
from tools.generate.prompt_text import compose_prompt

DEFAULT_SECONDS = (4, 8, 12)
_TRIM_TOLERANCE_S = 0.05
DEFAULT_SIZES = ("1280x720", "720x1280", "1792x1024", "1024x1792")
_RUNNING = ("queued", "in_progress")


class OpenAIVideoProvider(VideoProvider):
    """``sora-2`` (or any configured model) behind the Videos API."""

    def __init__(
        self,
        client: OpenAI,
        model: str = "sora-2",
        seconds: tuple[int, ...] = DEFAULT_SECONDS,
        sizes: tuple[str, ...] = DEFAULT_SIZES,
        poll_interval_s: float = 5.0,
        max_wait_s: float = 900.0,
        name: str = "openai",
    ) -> None:
        self.client = client
        self.model = model
        self.seconds = seconds
        self.sizes = sizes
        self.poll_interval_s = poll_interval_s
        self.max_wait_s = max_wait_s
        self.name = name

    def image_to_video(self, request: VideoRequest) -> GeneratedMedia:
        """Start a job with the source still, fitted to the job's size, as its input reference."""
        still = load_still(request.source, "the source still")
        size = nearest_size(request.width or still.width, request.height or still.height, self.sizes)
        reference = ("still.png", _fitted_png(still, size), "image/png")
        return self._run(request, size, reference)

    def text_to_video(self, request: VideoRequest) -> GeneratedMedia:
        """Start a job from the prompt alone."""
        size = nearest_size(request.width or 1280, request.height or 720, self.sizes)
        return self._run(request, size, None)

    def concat(self, request: ConcatRequest) -> GeneratedMedia:
        """Join the clips locally with ffmpeg (the API has no cut endpoint)."""
        return make_cut(request)

    def _run(self, request: VideoRequest, size: str, reference: tuple[str, bytes, str] | None) -> GeneratedMedia:
        seconds = min(self.seconds, key=lambda s: (abs(s - request.duration_s), s))
        extra = {"input_reference": reference} if reference else {}
        what = f"the video model {self.model} at {self.name}"
        try:
            job = self.client.videos.create(
                model=self.model, prompt=compose_prompt(request), seconds=str(seconds), size=size, **extra
            )
            job = self._wait(job)
            content = self.client.videos.download_content(job.id, variant="video")
        except OpenAIError as e:
            raise classify(e, what, max_retries=self.client.max_retries) from e
        data = content.content
        with tempfile.TemporaryDirectory(prefix="jarvishub-video-") as tmp:
            path = Path(tmp) / "clip.mp4"
            path.write_bytes(data)
            try:
                info = probe_video(path)
            except GenerationError as e:  # a completed (billed) job whose download is not a clip
                raise ProviderUnavailable("invalid_output", what, str(e), paid_calls=1,
                                          billed={"seconds": float(seconds)}) from e
            made_s = info.duration_s
            if info.duration_s > request.duration_s + _TRIM_TOLERANCE_S:
                # The API makes clips of a few lengths only: the clip asked for is the start of the one made
                # (billed for all of it), so the canvas holds what was asked, and the evaluator measures that.
                trimmed = trim_clip(path, request.duration_s, Path(tmp) / "trimmed.mp4")
                info = probe_video(trimmed)
                data = trimmed.read_bytes()
        return GeneratedMedia(
            data=data,
            mime="video/mp4",
            provider=self.name,
            model=self.model,
            duration_s=info.duration_s,
            width=info.width,
            height=info.height,
            details={"job_id": job.id, "seconds": seconds, "size": size, "mode": request.mode.value,
                     "made_s": round(made_s, 3)},
            billed={"seconds": float(seconds)},
        )

    def most_billed(self) -> dict[str, float] | None:
        """The longest clip the endpoint makes."""
        return {"seconds": float(max(self.seconds))}

    def _wait(self, job: Video) -> Video:
        deadline = time.monotonic() + self.max_wait_s
        while job.status in _RUNNING:
            if time.monotonic() > deadline:
                raise ProviderUnavailable(
                    "timeout", f"the video model {self.model} at {self.name}",
                    f"job {job.id} still {job.status} after {self.max_wait_s:g} s (JARVISHUB_GENERATION_VIDEO_MAX_WAIT_S)")
            time.sleep(self.poll_interval_s)
            job = self.client.videos.retrieve(job.id)
        if job.status != "completed":
            reason = job.error.message if job.error else "no reason given"
            code = (job.error.code if job.error else "") or ""
            if any(marker in code for marker in ("moderation", "content_policy", "safety")):
                raise ContentRefused(f"video job {job.id} {job.status}: refused under the content policy: {reason}")
            raise GenerationError(f"video job {job.id} {job.status}: {reason}")
        return job


def _fitted_png(still: Image.Image, size: str) -> bytes:
    w, h = (int(v) for v in size.split("x"))
    buf = io.BytesIO()
    cover(still, w, h).save(buf, format="PNG")
    return buf.getvalue()
