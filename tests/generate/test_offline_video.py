"""Offline clips are real H.264 MP4s of the requested length and size, and cuts add up."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tools.generate.base import (
    CameraMove,
    ConcatRequest,
    GenerationError,
    ImageRequest,
    ReferenceInput,
    ReferenceRole,
    VideoRequest,
)
from tools.generate.measure import image_stats, probe_video, video_frame
from tools.generate.offline_image import OfflineImageProvider
from tools.generate.offline_video import OfflineVideoProvider


@pytest.fixture(scope="module")
def still(tmp_path_factory) -> ReferenceInput:
    path = tmp_path_factory.mktemp("still") / "still.png"
    path.write_bytes(
        OfflineImageProvider().generate(ImageRequest(prompt="a harbour at dusk", width=480, height=272)).read_bytes()
    )
    return ReferenceInput(node_id="still", role=ReferenceRole.SOURCE, path=path, mime="image/png")


def _clip(tmp_path: Path, name: str, **fields) -> Path:
    media = OfflineVideoProvider().generate(VideoRequest(**fields))
    path = tmp_path / f"{name}.mp4"
    path.write_bytes(media.read_bytes())
    return path


@pytest.mark.parametrize("camera", list(CameraMove))
def test_clip_is_h264_of_requested_duration_and_size(tmp_path, still, camera):
    path = _clip(tmp_path, camera.value, source=still, camera=camera, duration_s=1.5, fps=12, width=320, height=180)
    info = probe_video(path)
    assert (info.codec, info.pix_fmt) == ("h264", "yuv420p")
    assert (info.width, info.height) == (320, 180)
    assert info.frames == 18
    assert info.duration_s == pytest.approx(1.5, abs=0.05)


def test_same_request_gives_identical_mp4_bytes(still):
    request = VideoRequest(source=still, camera=CameraMove.PAN, duration_s=1, fps=12, width=320, height=180)
    provider = OfflineVideoProvider()
    assert provider.generate(request).read_bytes() == provider.generate(request).read_bytes()


def test_camera_moves_show_in_the_frames(tmp_path, still):
    def change(camera: CameraMove) -> tuple[float, bytes]:
        path = _clip(tmp_path, camera.value, source=still, camera=camera, duration_s=1, fps=12, width=320, height=180)
        first, last = video_frame(path, 0), video_frame(path, 11)
        return _mean_abs_diff(first, last), first

    assert change(CameraMove.STATIC)[0] < 1.0  # only coding noise
    assert change(CameraMove.PAN)[0] > 2.0
    assert change(CameraMove.ZOOM)[0] > 2.0
    assert image_stats(change(CameraMove.FADE)[1]).mean_brightness < 5  # a fade starts from black


def _mean_abs_diff(a: bytes, b: bytes) -> float:
    def pixels(png: bytes) -> np.ndarray:
        with Image.open(io.BytesIO(png)) as im:
            return np.asarray(im.convert("RGB"), dtype=np.float32)

    return float(np.abs(pixels(a) - pixels(b)).mean())


def test_source_size_is_kept_when_none_is_asked(tmp_path, still):
    info = probe_video(_clip(tmp_path, "native", source=still, duration_s=0.5, fps=12))
    assert (info.width, info.height) == (480, 272)


def test_text_to_video_renders_its_own_still(tmp_path):
    info = probe_video(_clip(tmp_path, "t2v", prompt="a city street at night", duration_s=1, fps=12))
    assert (info.width, info.height, info.frames) == (640, 360, 12)


def test_concat_duration_is_the_sum_of_the_clips(tmp_path, still):
    a = _clip(tmp_path, "a", source=still, camera=CameraMove.ZOOM, duration_s=1, fps=12, width=320, height=180)
    b = _clip(tmp_path, "b", source=still, camera=CameraMove.PAN, duration_s=1.5, fps=12, width=320, height=180)
    clips = [ReferenceInput(node_id=n, role=ReferenceRole.CLIP, path=p) for n, p in (("a", a), ("b", b))]
    media = OfflineVideoProvider().concat(ConcatRequest(clips=clips))
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(media.read_bytes())
    info = probe_video(cut)
    assert info.duration_s == pytest.approx(2.5, abs=0.05)
    assert info.frames == 12 + 18
    assert media.details["reencoded"] is False


def test_concat_of_mixed_sizes_fits_them_to_the_first(tmp_path, still):
    a = _clip(tmp_path, "a", source=still, duration_s=1, fps=12, width=320, height=180)
    b = _clip(tmp_path, "b", source=still, duration_s=1, fps=12, width=160, height=160)
    clips = [ReferenceInput(node_id=n, role=ReferenceRole.CLIP, path=p) for n, p in (("a", a), ("b", b))]
    media = OfflineVideoProvider().concat(ConcatRequest(clips=clips))
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(media.read_bytes())
    info = probe_video(cut)
    assert (info.width, info.height, info.codec) == (320, 180, "h264")
    assert info.duration_s == pytest.approx(2.0, abs=0.1)
    assert media.details["reencoded"] is True


def test_missing_source_file_is_a_generation_error():
    ghost = ReferenceInput(node_id="ghost", role=ReferenceRole.SOURCE)
    with pytest.raises(GenerationError, match="no local image file"):
        OfflineVideoProvider().generate(VideoRequest(source=ghost))


def test_odd_sizes_are_refused_before_encoding():
    with pytest.raises(ValueError, match="even"):
        VideoRequest(prompt="x", width=321, height=180)
