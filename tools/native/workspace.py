"""Path safety for the project workspace: every native tool resolves user paths here first.

A model names files with paths it made up, so a path is checked before it is
used: it must stay inside the workspace after ``..`` is applied, an absolute
path must point inside the workspace, and no symlink on the way may lead out
of it.  The check is done on the filesystem as it is now; it guards against
mistakes and confused models, not against a process racing to swap a folder
for a symlink between the check and the use.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from tools.base import ToolError


class PathOutsideWorkspace(ToolError):
    """A path would reach outside the workspace; the message says which part refused and why."""

    def __init__(self, user_path: str, workspace: Path, reason: str) -> None:
        self.user_path = user_path
        self.workspace = workspace
        self.reason = reason
        super().__init__(
            f"refused path {user_path!r}: {reason}; tools may only use files inside the workspace "
            f"{str(workspace)!r}, so give a path relative to it such as 'notes/draft.md'"
        )


def resolve_in_workspace(workspace: Path, user_path: str) -> Path:
    """The absolute, symlink-free path of ``user_path`` inside ``workspace``, or :class:`PathOutsideWorkspace`.

    ``user_path`` may be relative to the workspace (``""`` and ``"."`` are the
    workspace itself) or absolute and inside it.  The returned path need not
    exist yet, so the same check serves reads and writes.
    """
    root = Path(workspace).resolve()
    if "\x00" in user_path:
        raise PathOutsideWorkspace(user_path, root, "it contains a NUL byte")
    relative = _relative_parts(root, Path(workspace), user_path)
    here = root
    for part in relative:
        here = here / part
        if here.is_symlink():
            target = here.resolve()
            if not _inside(root, target):
                shown = here.relative_to(root).as_posix()
                raise PathOutsideWorkspace(
                    user_path, root, f"{shown!r} is a symlink to {str(target)!r}, which is outside the workspace"
                )
            here = target
    return here


def relative_to_workspace(workspace: Path, path: Path) -> str:
    """How a resolved path inside the workspace is shown to the model: POSIX and relative (``"."`` for the root)."""
    rel = Path(path).relative_to(Path(workspace).resolve()).as_posix()
    return rel or "."


def _relative_parts(root: Path, given_root: Path, user_path: str) -> list[str]:
    # Normalise lexically first, so "a/../../x" is judged by where it lands, not
    # by how it is spelled; symlinks are judged afterwards, one component at a time.
    pure = PurePosixPath(user_path)
    if pure.is_absolute():
        normal = PurePosixPath(os.path.normpath(user_path))
        for base in (root, given_root.absolute()):
            try:
                return list(normal.relative_to(PurePosixPath(base)).parts)
            except ValueError:
                continue
        raise PathOutsideWorkspace(user_path, root, "it is an absolute path outside the workspace")
    parts: list[str] = []
    for part in pure.parts:
        if part == "..":
            if not parts:
                raise PathOutsideWorkspace(user_path, root, "its '..' components climb above the workspace")
            parts.pop()
        elif part != ".":
            parts.append(part)
    return parts


def _inside(root: Path, path: Path) -> bool:
    return path == root or path.is_relative_to(root)
