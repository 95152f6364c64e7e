"""Assembling a cut: clips joined in order into one MP4 with ffmpeg, shared by every video provider."""

from __future__ import annotations

import tempfile
from pathlib import Path

from tools.generate.base import FFMPEG_CONCAT, ConcatRequest, GeneratedMedia, GenerationError
from tools.generate.ffmpeg import concat_clips
from tools.generate.measure import probe_formats, probe_video


def make_cut(request: ConcatRequest) -> GeneratedMedia:
    """Join ``request.clips`` (each with a local path) in order.

    Clips of one format are stream-copied, so the cut's duration is exactly the
    sum of theirs; mixed sizes or frame rates are fitted to the first clip and
    re-encoded.
    """
    paths = []
    for clip in request.clips:
        if clip.path is None or not Path(clip.path).is_file():
            raise GenerationError(f"clip {clip.node_id} has no local video file to cut from")
        paths.append(Path(clip.path))
    infos = probe_formats(paths)
    formats = {(i.codec, i.width, i.height, i.fps, i.pix_fmt) for i in infos}
    first = infos[0]
    reencode = None if len(formats) == 1 and first.codec == "h264" else (first.width, first.height, first.fps)
    with tempfile.TemporaryDirectory(prefix="jarvishub-cut-") as tmp:
        out = concat_clips(paths, Path(tmp) / "cut.mp4", reencode_to=reencode)
        info = probe_video(out)
        data = out.read_bytes()
    return GeneratedMedia(
        data=data,
        mime="video/mp4",
        provider=FFMPEG_CONCAT.name,
        model=FFMPEG_CONCAT.model,
        duration_s=info.duration_s,
        width=info.width,
        height=info.height,
        details={"clips": len(paths), "reencoded": reencode is not None, "frames": info.frames},
    )
