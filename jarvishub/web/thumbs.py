"""Thumbnails of image artifacts, made once per artifact and width and kept on disk by the artifact's hash.

A lens shows dozens to hundreds of images at once; the originals can be
megabytes each.  Artifacts are content-addressed and write-once, so a thumbnail
named ``<sha256>-<width>.webp`` never goes stale: it is made on first request
(Pillow, in the request's worker thread) and served from the cache after that.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from store.artifacts import ArtifactStore

THUMB_WIDTHS = (160, 320, 640)
"""The widths served; a request for another width gets the next larger one (so the cache stays small)."""


class NotAnImage(Exception):
    """The artifact is not an image Pillow can read, so it has no thumbnail."""


class Thumbnails:
    """Makes and caches thumbnails of an artifact store's images under ``cache_dir``."""

    def __init__(self, artifacts: ArtifactStore, cache_dir: Path) -> None:
        self.artifacts = artifacts
        self.cache_dir = cache_dir
        self._lock = threading.Lock()
        self.made = 0  # thumbnails drawn (not served from the cache): the tests and the bench read it

    @staticmethod
    def width_for(asked: int) -> int:
        """The served width for an asked one: the smallest of :data:`THUMB_WIDTHS` at least as wide."""
        return next((w for w in THUMB_WIDTHS if w >= asked), THUMB_WIDTHS[-1])

    def path(self, sha256: str, width: int) -> Path:
        """The cached thumbnail of an artifact at a width, drawn first when absent."""
        width = self.width_for(width)
        target = self.cache_dir / f"{sha256}-{width}.webp"
        if target.exists():
            return target
        source = self.artifacts.local_path(sha256)  # ArtifactNotFound / ArtifactCorrupted propagate
        try:
            with Image.open(source) as image:
                image.thumbnail((width, width * 4))
                picture = image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB")
        except (UnidentifiedImageError, OSError) as error:
            raise NotAnImage(f"artifact {sha256} is not an image, so it has no thumbnail") from error
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        # Written aside and renamed: two requests for the same thumbnail never see half a file.
        handle, temporary = tempfile.mkstemp(dir=self.cache_dir, suffix=".part")
        try:
            with os.fdopen(handle, "wb") as out:
                picture.save(out, format="WEBP", quality=82, method=4)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        with self._lock:
            self.made += 1
        return target
