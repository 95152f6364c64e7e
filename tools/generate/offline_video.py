"""The offline video provider: a camera move over a still, encoded to H.264 by the bundled ffmpeg.

Frames are made with Pillow (a moving, scaling crop box, or a brightness
envelope for a fade) and piped raw into ffmpeg; the encode is bit-exact, so
the same request gives the same MP4 bytes.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from PIL import Image

from tools.generate.base import (
    CameraMove,
    ConcatRequest,
    GeneratedMedia,
    ImageRequest,
    VideoProvider,
    VideoRequest,
)
from tools.generate.cut import make_cut
from tools.generate.ffmpeg import encode_frames
from tools.generate.fit import load_still
from tools.generate.offline_image import render_image

DEFAULT_SIZE = (640, 360)
_PAN_ZOOM = 1.2  # a pan looks through a window this much smaller than the frame
_ZOOM_END = 1.3  # a zoom ends this much closer than it starts
_FADE_PART = 0.3  # a fade spends this share of the clip coming in, and the same going out


def camera_frames(
    still: Image.Image, width: int, height: int, camera: CameraMove, frames: int, seed: int = 0
) -> Iterator[np.ndarray]:
    """Yield ``frames`` RGB arrays of ``width x height``: the still seen through the camera move."""
    still = still.convert("RGB")
    # The largest box of the output's aspect ratio that fits in the still.
    aspect = width / height
    cover_w = min(still.width, still.height * aspect)
    cover_h = cover_w / aspect
    cx, cy = still.width / 2, still.height / 2
    leftward = seed % 2 == 1
    for i in range(frames):
        t = i / (frames - 1) if frames > 1 else 0.0
        scale, x_centre, gain = 1.0, cx, 1.0
        if camera is CameraMove.PAN:
            scale = 1 / _PAN_ZOOM
            travel = (cover_w - cover_w * scale) / 2 + (still.width - cover_w) / 2
            x_centre = cx + travel * ((1 - 2 * t) if leftward else (2 * t - 1))
        elif camera is CameraMove.ZOOM:
            scale = 1 / (1 + (_ZOOM_END - 1) * t)
        elif camera is CameraMove.FADE:
            gain = min(1.0, t / _FADE_PART, (1 - t) / _FADE_PART)
        bw, bh = cover_w * scale, cover_h * scale
        box = (x_centre - bw / 2, cy - bh / 2, x_centre + bw / 2, cy + bh / 2)
        frame = np.asarray(still.resize((width, height), Image.BILINEAR, box=box))
        if gain < 1.0:
            frame = np.rint(frame.astype(np.float32) * max(0.0, gain)).astype(np.uint8)
        yield frame


class OfflineVideoProvider(VideoProvider):
    """Deterministic MP4 clips made locally; ``latency_s`` simulates a slow provider."""

    name = "offline"
    model = "offline-video-v1"

    def __init__(self, latency_s: float = 0.0) -> None:
        self.latency_s = latency_s

    def image_to_video(self, request: VideoRequest) -> GeneratedMedia:
        """Move the camera over the source still."""
        still = load_still(request.source, "the source still")
        width = request.width or _even(still.width)
        height = request.height or _even(still.height)
        return self._encode(still, width, height, request)

    def text_to_video(self, request: VideoRequest) -> GeneratedMedia:
        """Render a still from the prompt and style with the offline image renderer, then move over it."""
        width, height = request.width or DEFAULT_SIZE[0], request.height or DEFAULT_SIZE[1]
        still = render_image(
            ImageRequest(
                prompt=request.prompt,
                seed=request.seed,
                width=max(64, width),
                height=max(64, height),
                lighting=request.lighting,
                palette=request.palette,
                references=request.references,
            )
        )
        return self._encode(still, width, height, request)

    def concat(self, request: ConcatRequest) -> GeneratedMedia:
        """Join the clips with ffmpeg's concat demuxer."""
        return make_cut(request)

    def _encode(self, still: Image.Image, width: int, height: int, request: VideoRequest) -> GeneratedMedia:
        if self.latency_s:
            time.sleep(self.latency_s)
        frames = max(1, round(request.duration_s * request.fps))
        with tempfile.TemporaryDirectory(prefix="jarvishub-clip-") as tmp:
            out = Path(tmp) / "clip.mp4"
            encode_frames(
                camera_frames(still, width, height, request.camera, frames, request.seed),
                width,
                height,
                request.fps,
                out,
            )
            data = out.read_bytes()
        return GeneratedMedia(
            data=data,
            mime="video/mp4",
            provider=self.name,
            model=self.model,
            duration_s=frames / request.fps,
            width=width,
            height=height,
            details={"mode": request.mode.value, "camera": request.camera.value, "fps": request.fps, "frames": frames},
        )


def _even(side: int) -> int:
    return max(2, side - side % 2)
