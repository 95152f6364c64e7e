"""Measuring generated media: what an image looks like, what a clip and a sound really are.

Tests assert on these numbers instead of trusting a provider's own metadata,
and an offline critique can use them to say "too dark" or "too cold" without a
vision model.
"""

from __future__ import annotations

import io
import re
import tempfile
import wave
from pathlib import Path

import numpy as np
from PIL import Image
from pydantic import BaseModel, Field

from tools.generate.base import GenerationError
from tools.generate.ffmpeg import run_ffmpeg

_QUANT = 16  # dominant colours are counted in 16-level bins per channel


class ImageStats(BaseModel):
    """Simple, robust facts about an image's look."""

    width: int
    height: int
    mean_brightness: float = Field(description="Mean Rec. 601 luma, 0 (black) to 255 (white).")
    warmth: float = Field(description="Mean red minus mean blue: above 0 is warm, below 0 is cold.")
    mean_rgb: tuple[float, float, float]
    dominant_colours: list[str] = Field(description="The most common colours (binned), most common first, #rrggbb.")
    saturation: float = Field(default=0.0, description="Mean of max(r,g,b) - min(r,g,b), 0 (grey) to 255.")
    contrast: float = Field(default=0.0, description="Standard deviation of luma.")
    mean_blue: float = Field(default=0.0, description="Mean blue channel, 0..255.")


class VideoInfo(BaseModel):
    """What a video file really holds, read back with ffmpeg."""

    duration_s: float
    width: int
    height: int
    frames: int
    fps: float
    codec: str
    pix_fmt: str


class VideoFormat(BaseModel):
    """A video's first stream as its header gives it: what decides whether clips can be joined by a stream copy."""

    codec: str
    pix_fmt: str
    width: int
    height: int
    fps: float


class AudioInfo(BaseModel):
    """What a WAV file really holds."""

    duration_s: float
    sample_rate: int
    channels: int
    sample_width: int
    frames: int
    peak: float = Field(description="Largest absolute sample, 0..1 of full scale (0 means silence).")


def image_stats(png_bytes: bytes, top: int = 5, *, skip_bottom: float = 0.0) -> ImageStats:
    """Brightness, warmth, saturation, contrast and dominant colours of an image given as encoded bytes.

    ``skip_bottom`` leaves out that share of rows at the bottom (the offline renderer's caption strip).
    """
    rgb = rgb_array(png_bytes)
    if skip_bottom:
        rgb = rgb[: max(1, int(rgb.shape[0] * (1 - skip_bottom)))]
    r, g, b = (rgb[..., i].astype(np.float64) for i in range(3))
    luma = 0.299 * r + 0.587 * g + 0.114 * b
    binned = (rgb // _QUANT).reshape(-1, 3).astype(np.int32)
    keys = binned[:, 0] * 256 + binned[:, 1] * 16 + binned[:, 2]
    counts = np.bincount(keys, minlength=4096)
    order = np.argsort(-counts, kind="stable")[:top]
    half = _QUANT // 2
    dominant = [
        "#{:02x}{:02x}{:02x}".format(*(min(255, ((k >> s) & 15) * _QUANT + half) for s in (8, 4, 0)))
        for k in order
        if counts[k] > 0
    ]
    return ImageStats(
        width=rgb.shape[1],
        height=rgb.shape[0],
        mean_brightness=float(luma.mean()),
        warmth=float(r.mean() - b.mean()),
        mean_rgb=(float(r.mean()), float(g.mean()), float(b.mean())),
        dominant_colours=dominant,
        saturation=float((rgb.max(axis=-1).astype(np.float64) - rgb.min(axis=-1)).mean()),
        contrast=float(luma.std()),
        mean_blue=float(b.mean()),
    )


def colour_fraction(png_bytes: bytes, colour: str, tolerance: int = 6, *, skip_bottom: float = 0.0) -> float:
    """The fraction of pixels within ``tolerance`` (per channel) of ``#rrggbb`` ``colour``."""
    rgb = rgb_array(png_bytes).astype(np.int16)
    if skip_bottom:
        rgb = rgb[: max(1, int(rgb.shape[0] * (1 - skip_bottom)))]
    target = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.int16)
    close = np.all(np.abs(rgb - target) <= tolerance, axis=-1)
    return float(close.mean())


_DURATION = re.compile(r"Duration:\s*(\d+):(\d+):(\d+(?:\.\d+)?)")
_VIDEO = re.compile(r"Stream #\d+:\d+[^:]*: Video: (\w+).*?, (\w+)(?:\([^)]*\))?, (\d+)x(\d+)")
_FPS = re.compile(r"([\d.]+) fps")
_FRAMES = re.compile(r"frame=\s*(\d+)")


def probe_video(path: Path) -> VideoInfo:
    """Read a video's real duration, size, frame count, frame rate and codec with ffmpeg.

    The frame count comes from demuxing every packet of the first video stream,
    not from the header, so a truncated file shows fewer frames than it claims.
    """
    stderr = run_ffmpeg(["-i", str(path), "-map", "0:v:0", "-c", "copy", "-f", "null", "-"])
    head = stderr.split("Stream mapping:")[0]
    duration, video, fps, frames = (
        _DURATION.search(head),
        _VIDEO.search(head),
        _FPS.search(head),
        _FRAMES.findall(stderr),
    )
    if not (duration and video and frames):
        raise GenerationError(f"could not read a video stream from {path}")
    hours, minutes, seconds = duration.groups()
    return VideoInfo(
        duration_s=int(hours) * 3600 + int(minutes) * 60 + float(seconds),
        codec=video.group(1),
        pix_fmt=video.group(2),
        width=int(video.group(3)),
        height=int(video.group(4)),
        fps=float(fps.group(1)) if fps else 0.0,
        frames=int(frames[-1]),
    )


def probe_formats(paths: list[Path]) -> list[VideoFormat]:
    """The format of each video's first stream, read from their headers by one ffmpeg process for all of them.

    Joining a cut needs only each clip's codec, size and frame rate; a process per clip (as :func:`probe_video`
    runs, which also demuxes every packet to count the frames) cost a film edit about a third of its time: every
    clip of the cut was probed again on each rebuild.  ``-t 0`` stops the copy before any packet is read.
    """
    if not paths:
        return []
    inputs = [arg for path in paths for arg in ("-i", str(path))]
    maps = [arg for i in range(len(paths)) for arg in ("-map", f"{i}:v:0")]
    stderr = run_ffmpeg([*inputs, *maps, "-c", "copy", "-t", "0", "-f", "null", "-"])
    blocks = re.split(r"^Input #\d+,", stderr.split("Stream mapping:")[0], flags=re.MULTILINE)[1:]
    if len(blocks) != len(paths):
        raise GenerationError(f"ffmpeg described {len(blocks)} of {len(paths)} videos")
    formats = []
    for path, block in zip(paths, blocks, strict=True):
        video, fps = _VIDEO.search(block), _FPS.search(block)
        if not video:
            raise GenerationError(f"could not read a video stream from {path}")
        formats.append(VideoFormat(codec=video.group(1), pix_fmt=video.group(2), width=int(video.group(3)),
                                   height=int(video.group(4)), fps=float(fps.group(1)) if fps else 0.0))
    return formats


def video_frame(path: Path, index: int) -> bytes:
    """Frame ``index`` (0-based) of a video, decoded and encoded as PNG bytes."""
    with tempfile.TemporaryDirectory(prefix="jarvishub-frame-") as tmp:
        out = Path(tmp) / "frame.png"
        select = f"select=eq(n\\,{int(index)})"
        quiet = ["-loglevel", "error", "-nostats", "-y"]
        run_ffmpeg([*quiet, "-i", str(path), "-vf", select, "-fps_mode", "passthrough", "-frames:v", "1", str(out)])
        if not out.exists():
            raise GenerationError(f"{path} has no frame {index}")
        return out.read_bytes()


def wav_info(data: bytes) -> AudioInfo:
    """Read a WAV's real duration (from its samples, not its header), format and peak level."""
    try:
        with wave.open(io.BytesIO(data), "rb") as w:
            rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
            raw = w.readframes(w.getnframes())
    except (wave.Error, EOFError) as e:
        raise GenerationError(f"not a readable WAV: {e}") from e
    # Count what is really there: streamed WAVs carry a placeholder length in their header.
    frames = len(raw) // (width * channels) if width and channels else 0
    peak = 0.0
    if width == 2 and raw:
        peak = float(np.abs(np.frombuffer(raw, dtype="<i2").astype(np.int32)).max()) / 32768.0
    return AudioInfo(
        duration_s=frames / rate if rate else 0.0,
        sample_rate=rate,
        channels=channels,
        sample_width=width,
        frames=frames,
        peak=peak,
    )


def rgb_array(png_bytes: bytes) -> np.ndarray:
    """An encoded image's pixels as an RGB uint8 array (rows, columns, 3)."""
    with Image.open(io.BytesIO(png_bytes)) as im:
        return np.asarray(im.convert("RGB"))
