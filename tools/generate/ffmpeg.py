"""Running the ffmpeg binary that ``imageio-ffmpeg`` ships: encoding frames, joining clips.

Every encode is single-threaded and bit-exact (``-threads 1``, ``+bitexact``)
so the same frames always give the same MP4 bytes, which is what lets a clip be
cached by signature and compared by hash.
"""

from __future__ import annotations

import functools
import os
import select
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

import imageio_ffmpeg
import numpy as np

from tools.generate.base import GenerationError

# Flags that make the output depend only on the input: no encoder version
# strings, no timestamps, one thread so x264's decisions never race.
_BITEXACT = ["-flags", "+bitexact", "-fflags", "+bitexact", "-map_metadata", "-1", "-threads", "1"]
_H264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p", "-x264-params", "threads=1"]
_TIMEOUT_S = 300


@functools.lru_cache(maxsize=1)
def ffmpeg_exe() -> str:
    """The path of the ffmpeg binary bundled with imageio-ffmpeg (``$IMAGEIO_FFMPEG_EXE`` when set).

    Found by its file, not by ``imageio_ffmpeg.get_ffmpeg_exe()``'s probe: that runs ``ffmpeg -version`` in our
    process group, and when the probe fails (a Ctrl-C at the terminal kills it) it silently falls back to the
    system's ffmpeg, whose encoder makes other bytes: a clip would no longer match its cached signature.
    """
    if os.environ.get("IMAGEIO_FFMPEG_EXE"):
        return os.environ["IMAGEIO_FFMPEG_EXE"]
    bundled = sorted(Path(imageio_ffmpeg.__file__).parent.joinpath("binaries").glob("ffmpeg-*"))
    for candidate in bundled:
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return imageio_ffmpeg.get_ffmpeg_exe()


def run_ffmpeg(args: list[str], stdin_frames: Iterable[bytes] | None = None) -> str:
    """Run ffmpeg with ``args``, feeding ``stdin_frames`` to its stdin if given; return its stderr.

    Raises :class:`GenerationError` with ffmpeg's own last lines when it fails.
    """
    cmd = [ffmpeg_exe(), "-hide_banner", *args]
    # stderr goes to a file, not a pipe: a chatty ffmpeg must never block
    # while we are still writing frames to its stdin.
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE if stdin_frames is not None else subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            # A process group of its own: Ctrl-C at the terminal pauses the turn (the CLI's doing) and must not
            # kill the encode, or its failure would be recorded as the step's.
            process_group=0,
        )
        try:
            if stdin_frames is not None:
                assert proc.stdin is not None
                try:
                    for chunk in stdin_frames:
                        proc.stdin.write(chunk)
                except BrokenPipeError:
                    pass  # ffmpeg stopped early; its exit code and stderr say why
                finally:
                    proc.stdin.close()
            code = wait_for_exit(proc, _TIMEOUT_S)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    if code != 0:
        tail = "\n".join(stderr.strip().splitlines()[-8:])
        raise GenerationError(f"ffmpeg failed (exit {code}): {tail}")
    return stderr


def wait_for_exit(proc: subprocess.Popen[bytes], timeout_s: float) -> int:
    """``proc``'s exit code, waking the moment it exits; :class:`subprocess.TimeoutExpired` after ``timeout_s``.

    ``Popen.wait(timeout=...)`` polls, sleeping up to 50 ms between looks: for ffmpeg runs of 15-30 ms that added
    about a third to each, and a film edit runs a dozen.  A pidfd (Linux 5.3) becomes readable when the process
    exits; where there is none, the polling wait.
    """
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        return proc.wait(timeout=timeout_s)
    try:
        watch = select.poll()
        watch.register(pidfd, select.POLLIN)
        if not watch.poll(int(timeout_s * 1000)):
            raise subprocess.TimeoutExpired(proc.args, timeout_s)
    finally:
        os.close(pidfd)
    return proc.wait()


def encode_frames(frames: Iterable[np.ndarray], width: int, height: int, fps: int, out: Path) -> Path:
    """Encode RGB frames (``height x width x 3`` uint8 arrays) into an H.264 yuv420p MP4 at ``out``."""
    raw_input = ["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{width}x{height}", "-framerate", str(fps)]
    raw_input += ["-i", "pipe:0"]
    args = ["-loglevel", "error", "-nostats", "-y", *raw_input, "-an", *_H264, *_BITEXACT, "-movflags", "+faststart"]
    args.append(str(out))
    run_ffmpeg(args, stdin_frames=(_frame_bytes(f, width, height) for f in frames))
    return out


def concat_clips(clips: list[Path], out: Path, reencode_to: tuple[int, int, float] | None = None) -> Path:
    """Join MP4 clips in order into ``out`` with the concat demuxer.

    Without ``reencode_to`` the streams are copied, which is exact and fast but
    needs clips of one codec, size and frame rate.  With ``(width, height,
    fps)`` every clip is scaled and padded to that frame and re-encoded.
    """
    if not clips:
        raise GenerationError("a cut needs at least one clip")
    listing = out.with_suffix(".txt")
    listing.write_text("".join(f"file '{_escape(p)}'\n" for p in clips), encoding="utf-8")
    head = ["-loglevel", "error", "-y", "-f", "concat", "-safe", "0", "-i", str(listing), "-an"]
    if reencode_to is None:
        codec = ["-c", "copy"]
    else:
        w, h, fps = reencode_to
        fit = f"scale={w}:{h}:force_original_aspect_ratio=decrease,pad={w}:{h}:(ow-iw)/2:(oh-ih)/2,setsar=1"
        codec = ["-vf", f"{fit},fps={fps:g}", *_H264]
    try:
        run_ffmpeg([*head, *codec, *_BITEXACT, "-movflags", "+faststart", str(out)])
    finally:
        listing.unlink(missing_ok=True)
    return out


def trim_clip(clip: Path, seconds: float, out: Path) -> Path:
    """The first ``seconds`` of an MP4 clip, re-encoded (a stream copy could only cut at a keyframe)."""
    run_ffmpeg(["-loglevel", "error", "-y", "-i", str(clip), "-t", f"{seconds:.3f}", "-an", *_H264, *_BITEXACT,
                "-movflags", "+faststart", str(out)])
    return out


def _frame_bytes(frame: np.ndarray, width: int, height: int) -> bytes:
    if frame.shape != (height, width, 3) or frame.dtype != np.uint8:
        raise GenerationError(f"frame is {frame.shape} {frame.dtype}, expected ({height}, {width}, 3) uint8")
    return frame.tobytes()


def _escape(path: Path) -> str:
    # The concat list quotes paths in single quotes; a quote inside is written '\''.
    return str(Path(path).resolve()).replace("'", "'\\''")
