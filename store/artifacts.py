"""Content-addressed artifact storage: media bytes live here, the canvas keeps only handles.

Write once: a blob is stored under its sha256 and never rewritten.  Verify on
read: a blob whose bytes no longer hash to its name raises
:class:`~store.errors.ArtifactCorrupted` instead of returning bad media.
"""

from __future__ import annotations

import hashlib
import mimetypes
import os
import shutil
import tempfile
from abc import ABC, abstractmethod
from pathlib import Path

from store.errors import ArtifactCorrupted, ArtifactNotFound
from store.models import ArtifactHandle

_CHUNK = 1 << 20
URI_PREFIX = "artifact://sha256/"


class ArtifactStore(ABC):
    """Where media bytes are kept, addressed by their sha256."""

    @abstractmethod
    def put_bytes(self, data: bytes, mime: str, name: str | None = None) -> ArtifactHandle:
        """Store bytes (no-op if already present) and return their handle."""

    @abstractmethod
    def put_file(self, path: Path, mime: str | None = None, name: str | None = None) -> ArtifactHandle:
        """Store a file's bytes and return their handle."""

    @abstractmethod
    def read_bytes(self, handle: ArtifactHandle | str) -> bytes:
        """The verified bytes of an artifact."""

    @abstractmethod
    def local_path(self, handle: ArtifactHandle | str) -> Path:
        """A local file holding the artifact, for tools (ffmpeg, Chromium) that need a path."""

    @abstractmethod
    def exists(self, sha256: str) -> bool:
        """Whether bytes with this hash are stored."""

    @abstractmethod
    def verify(self, handle: ArtifactHandle | str) -> bool:
        """Whether the artifact exists and its bytes still hash to its name."""


class LocalArtifactStore(ArtifactStore):
    """Artifacts on local disk under ``root/ab/cdef...`` (the first two hex digits fan out folders)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)

    def _path(self, sha256: str) -> Path:
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise ArtifactNotFound(f"not an artifact hash: {sha256!r}")
        return self.root / sha256[:2] / sha256[2:]

    @staticmethod
    def _sha(handle: ArtifactHandle | str) -> str:
        if isinstance(handle, ArtifactHandle):
            return handle.sha256
        return handle.removeprefix(URI_PREFIX)

    def put_bytes(self, data: bytes, mime: str, name: str | None = None) -> ArtifactHandle:
        sha = hashlib.sha256(data).hexdigest()
        target = self._path(sha)
        if not target.exists():
            self._write_atomically(target, lambda f: f.write(data))
        return ArtifactHandle(sha256=sha, mime=mime, size=len(data), uri=URI_PREFIX + sha, name=name)

    def put_file(self, path: Path, mime: str | None = None, name: str | None = None) -> ArtifactHandle:
        path = Path(path)
        sha = _hash_file(path)
        target = self._path(sha)
        if not target.exists():
            self._write_atomically(target, lambda f: _copy_into(path, f))
        guessed = mime or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return ArtifactHandle(
            sha256=sha, mime=guessed, size=path.stat().st_size, uri=URI_PREFIX + sha, name=name or path.name
        )

    def read_bytes(self, handle: ArtifactHandle | str) -> bytes:
        sha = self._sha(handle)
        path = self._existing(sha)
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != sha:
            raise ArtifactCorrupted(f"artifact {sha} at {path} no longer matches its hash")
        return data

    def local_path(self, handle: ArtifactHandle | str) -> Path:
        sha = self._sha(handle)
        path = self._existing(sha)
        if _hash_file(path) != sha:
            raise ArtifactCorrupted(f"artifact {sha} at {path} no longer matches its hash")
        return path

    def exists(self, sha256: str) -> bool:
        try:
            return self._path(sha256).exists()
        except ArtifactNotFound:
            return False

    def verify(self, handle: ArtifactHandle | str) -> bool:
        sha = self._sha(handle)
        if not self.exists(sha):
            return False
        return _hash_file(self._path(sha)) == sha

    def _existing(self, sha: str) -> Path:
        path = self._path(sha)
        if not path.exists():
            raise ArtifactNotFound(f"no artifact with sha256 {sha} in {self.root}")
        return path

    def _write_atomically(self, target: Path, write) -> None:
        # Write to a temp file in the same folder, then rename: concurrent writers
        # of the same blob both succeed and a reader never sees a half-written file.
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)  # the user's media, theirs alone
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                write(f)
            os.chmod(tmp, 0o400)  # read-only, and the owner's alone
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _copy_into(path: Path, f) -> None:
    with open(path, "rb") as src:
        shutil.copyfileobj(src, f, _CHUNK)
