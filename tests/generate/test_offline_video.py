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
from tools.generate.measure import image_stats, probe_formats, probe_video, video_frame
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


def test_one_header_read_gives_each_clips_format_as_a_full_probe_does(tmp_path, still):
    """The cut reads every clip's format in one ffmpeg process; each must be that clip's own, in order."""
    a = _clip(tmp_path, "a", source=still, duration_s=1, fps=12, width=320, height=180)
    b = _clip(tmp_path, "b", source=still, duration_s=0.5, fps=8, width=160, height=160)
    read = probe_formats([a, b, a])
    for path, found in zip([a, b, a], read, strict=True):
        probed = probe_video(path)
        assert found.model_dump() == probed.model_dump(include=set(found.model_dump())), path.name
    assert [(f.width, f.fps) for f in read] == [(320, 12.0), (160, 8.0), (320, 12.0)]


def test_a_clip_that_is_no_video_is_named_in_the_cuts_error(tmp_path, still):
    a = _clip(tmp_path, "a", source=still, duration_s=1, fps=12, width=320, height=180)
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"not an mp4 at all")
    clips = [ReferenceInput(node_id=n, role=ReferenceRole.CLIP, path=p) for n, p in (("a", a), ("b", broken))]
    with pytest.raises(GenerationError, match="broken.mp4"):
        OfflineVideoProvider().concat(ConcatRequest(clips=clips))


def test_missing_source_file_is_a_generation_error():
    ghost = ReferenceInput(node_id="ghost", role=ReferenceRole.SOURCE)
    with pytest.raises(GenerationError, match="no local image file"):
        OfflineVideoProvider().generate(VideoRequest(source=ghost))


def test_odd_sizes_are_refused_before_encoding():
    with pytest.raises(ValueError, match="even"):
        VideoRequest(prompt="x", width=321, height=180)


def test_an_ffmpeg_wait_returns_the_exit_code_and_times_out_as_popen_does():
    """``run_ffmpeg`` waits on the process's pidfd: the exit code comes back as ``Popen.wait`` gives it, and a
    process that outlives the timeout raises ``TimeoutExpired`` (the caller then kills it)."""
    import subprocess
    import sys

    from tools.generate.ffmpeg import wait_for_exit

    done = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    assert wait_for_exit(done, 30) == 3 and done.returncode == 3
    slow = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            wait_for_exit(slow, 0.2)
        assert slow.poll() is None
    finally:
        slow.kill()
        slow.wait()
