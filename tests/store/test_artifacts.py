"""The content-addressed artifact store: write once, verify on read."""

from __future__ import annotations

import hashlib
import os

import pytest

from store.artifacts import LocalArtifactStore
from store.errors import ArtifactCorrupted, ArtifactNotFound


def test_bytes_are_stored_once_under_their_hash(tmp_path):
    store = LocalArtifactStore(tmp_path / "a")
    first = store.put_bytes(b"frame", "image/png", name="f.png")
    second = store.put_bytes(b"frame", "image/png")
    assert first.sha256 == second.sha256 == hashlib.sha256(b"frame").hexdigest()
    assert first.uri == f"artifact://sha256/{first.sha256}" and first.size == 5
    assert store.read_bytes(first) == b"frame"
    assert store.read_bytes(first.uri) == b"frame"
    assert len([p for p in (tmp_path / "a").rglob("*") if p.is_file()]) == 1


def test_files_are_copied_in_and_paths_given_out(tmp_path):
    store = LocalArtifactStore(tmp_path / "a")
    src = tmp_path / "clip.mp4"
    src.write_bytes(b"\x00" * 4096)
    handle = store.put_file(src)
    assert handle.mime == "video/mp4" and handle.name == "clip.mp4" and handle.size == 4096
    assert store.local_path(handle).read_bytes() == src.read_bytes()


def test_corruption_is_detected_on_read(tmp_path):
    store = LocalArtifactStore(tmp_path / "a")
    handle = store.put_bytes(b"original", "text/plain")
    path = store.local_path(handle)
    os.chmod(path, 0o644)
    path.write_bytes(b"tampered")
    assert not store.verify(handle)
    with pytest.raises(ArtifactCorrupted):
        store.read_bytes(handle)


def test_unknown_hashes_raise(tmp_path):
    store = LocalArtifactStore(tmp_path / "a")
    with pytest.raises(ArtifactNotFound):
        store.read_bytes("0" * 64)
    with pytest.raises(ArtifactNotFound):
        store.read_bytes("../../etc/passwd")
    assert not store.verify("f" * 64)
