"""Read, write and list files inside the project workspace, and nowhere else.

Every path goes through :func:`tools.native.workspace.resolve_in_workspace`.
A write also puts the bytes into the artifact store, so the canvas node that
records the write points at exactly the bytes written even if the workspace
file changes later.
"""

from __future__ import annotations

import hashlib
import mimetypes
import os
from pathlib import Path
from typing import Any, Literal

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
    """What a write left behind: where the file is, the artifact holding the same bytes, and the one holding
    the bytes it replaced (None for a new file), so a write whose record is refused can be taken back."""

    path: str
    handle: ArtifactHandle
    replaced: ArtifactHandle | None = None


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
    replaced = None
    if target.is_file():  # same bytes or not: a refused write must leave the file there (content-addressed: cheap)
        replaced = artifacts.put_bytes(target.read_bytes(), guess_mime(target.name), name=target.name)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(payload)
    handle = artifacts.put_bytes(payload, mime or guess_mime(target.name), name=target.name)
    return WrittenFile(path=relative_to_workspace(workspace, target), handle=handle, replaced=replaced)


def take_back(workspace: Path, artifacts: ArtifactStore, path: str, written_sha256: str,
              replaced: ArtifactHandle | None) -> bool:
    """Undo a write whose record the canvas refused: remove the file, or put back the bytes it replaced.

    Only while the file still holds exactly the bytes that write put there (``written_sha256``): a file
    changed since is someone else's now and is left alone.  Returns whether the workspace was changed.
    """
    target = resolve_in_workspace(workspace, path)
    if not target.is_file() or hashlib.sha256(target.read_bytes()).hexdigest() != written_sha256:
        return False
    if replaced is None:
        target.unlink()
    else:
        target.write_bytes(artifacts.read_bytes(replaced.uri))
    return True


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


def take_back_refused(workspace: Path, artifacts: ArtifactStore, mutations: list[Any]) -> list[str]:
    """Take back the workspace writes of a batch the canvas refused (its ``file`` nodes); the paths changed."""
    changed = []
    for mutation in mutations:
        path = mutation.inputs.get("path") if getattr(mutation, "op", None) == "create_node" else None
        if getattr(mutation, "kind", None) != "file" or not isinstance(path, str) or not mutation.outputs:
            continue
        replaced = mutation.metadata.get("replaced")
        handle = ArtifactHandle.model_validate(replaced) if replaced else None
        if take_back(workspace, artifacts, path, mutation.outputs[0].sha256, handle):
            changed.append(path)
    return changed
