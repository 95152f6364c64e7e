"""Read, write and list files inside the project workspace, and nowhere else.

Every path goes through :func:`tools.native.workspace.resolve_in_workspace`.
A write also puts the bytes into the artifact store, so the canvas node that
records the write points at exactly the bytes written even if the workspace
file changes later.
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from store.artifacts import ArtifactStore
from store.models import ArtifactHandle
from tools.base import ToolError
from tools.native.workspace import relative_to_workspace, resolve_in_workspace


class WorkspaceFileNotFound(ToolError):
    """The named file or folder is not in the workspace (or is the wrong kind of entry)."""


class NotText(ToolError):
    """A file asked for as text is not valid UTF-8."""


class FileEntry(BaseModel):
    """One entry of a workspace listing, as the model sees it."""

    path: str = Field(description="POSIX path relative to the workspace.")
    kind: Literal["file", "dir", "symlink"]
    size: int | None = Field(default=None, description="Bytes, for files; None for folders and symlinks.")


class WrittenFile(BaseModel):
    """What a write left behind: where the file is and the artifact holding the same bytes."""

    path: str
    handle: ArtifactHandle


def guess_mime(name: str) -> str:
    """The MIME type a file name suggests, ``application/octet-stream`` when it suggests none."""
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def read_bytes(workspace: Path, path: str, max_bytes: int | None = None) -> bytes:
    """The bytes of a workspace file, at most ``max_bytes`` of them when given."""
    target = _existing_file(workspace, path)
    with open(target, "rb") as f:
        return f.read() if max_bytes is None else f.read(max_bytes)


def read_text(workspace: Path, path: str, max_bytes: int | None = None) -> str:
    """A workspace file decoded as UTF-8; :class:`NotText` says to read it as bytes instead."""
    data = read_bytes(workspace, path, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if max_bytes is not None and len(data) == max_bytes and exc.start >= len(data) - 3:
            # The cut fell inside a multi-byte character: drop the partial one.
            return data[: exc.start].decode("utf-8")
        raise NotText(f"{path!r} is not UTF-8 text (byte {exc.start}); read it as base64 bytes instead") from exc


def write_file(
    workspace: Path, path: str, data: bytes | str, artifacts: ArtifactStore, mime: str | None = None
) -> WrittenFile:
    """Write a workspace file (creating its folders), store the same bytes as an artifact, return both."""
    target = resolve_in_workspace(workspace, path)
    if target.is_dir():
        raise ToolError(f"{path!r} is a folder in the workspace; give a file path inside it")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(payload)
    handle = artifacts.put_bytes(payload, mime or guess_mime(target.name), name=target.name)
    return WrittenFile(path=relative_to_workspace(workspace, target), handle=handle)


def list_files(workspace: Path, path: str = ".", recursive: bool = False) -> list[FileEntry]:
    """The entries of a workspace folder, sorted by path; symlinks are listed but never followed."""
    folder = resolve_in_workspace(workspace, path)
    if not folder.is_dir():
        raise WorkspaceFileNotFound(f"no folder {path!r} in the workspace; list '.' to see what is there")
    entries: list[FileEntry] = []
    if recursive:
        for here, dirs, files in os.walk(folder, followlinks=False):
            for name in [*dirs, *files]:
                entries.append(_entry(workspace, Path(here) / name))
    else:
        for child in folder.iterdir():
            entries.append(_entry(workspace, child))
    return sorted(entries, key=lambda e: e.path)


def _entry(workspace: Path, path: Path) -> FileEntry:
    rel = relative_to_workspace(workspace, path)
    if path.is_symlink():
        return FileEntry(path=rel, kind="symlink")
    if path.is_dir():
        return FileEntry(path=rel, kind="dir")
    return FileEntry(path=rel, kind="file", size=path.stat().st_size)


def _existing_file(workspace: Path, path: str) -> Path:
    target = resolve_in_workspace(workspace, path)
    if not target.exists():
        raise WorkspaceFileNotFound(f"no file {path!r} in the workspace; list_files shows what is there")
    if not target.is_file():
        raise WorkspaceFileNotFound(f"{path!r} is not a regular file; list it with list_files instead")
    return target
