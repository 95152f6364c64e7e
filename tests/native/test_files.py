"""Workspace path safety and the file tools: what is refused, and that normal reads, writes and lists work."""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path

import pytest

from store.models import NodeStatus
from store.mutations import CreateNode
from tools.base import Effect, ToolError
from tools.native import files
from tools.native.tools import LIST_FILES, READ_FILE, WRITE_FILE, ListFilesArgs, ReadFileArgs, WriteFileArgs
from tools.native.workspace import PathOutsideWorkspace, resolve_in_workspace


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the workspace, holding a secret."""
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text("do not read")
    return path


@pytest.mark.parametrize("user_path", ["..", "../outside/secret.txt", "a/../../outside", "./a/b/../../../x"])
def test_dotdot_escapes_are_refused(workspace: Path, user_path: str) -> None:
    with pytest.raises(PathOutsideWorkspace, match=re.escape("'..' components climb above the workspace")):
        resolve_in_workspace(workspace, user_path)


def test_dotdot_that_stays_inside_is_allowed(workspace: Path) -> None:
    assert resolve_in_workspace(workspace, "a/b/../c.txt") == workspace.resolve() / "a" / "c.txt"


def test_absolute_path_outside_is_refused_and_inside_is_allowed(workspace: Path, outside: Path) -> None:
    with pytest.raises(PathOutsideWorkspace, match="absolute path outside the workspace"):
        resolve_in_workspace(workspace, str(outside / "secret.txt"))
    with pytest.raises(PathOutsideWorkspace):
        resolve_in_workspace(workspace, "/etc/passwd")
    with pytest.raises(PathOutsideWorkspace):
        resolve_in_workspace(workspace, f"{workspace}/../outside/secret.txt")
    assert resolve_in_workspace(workspace, str(workspace / "notes.md")) == workspace.resolve() / "notes.md"


def test_symlinks_leaving_the_workspace_are_refused_anywhere_along_the_path(workspace: Path, outside: Path) -> None:
    (workspace / "docs").mkdir()
    (workspace / "docs" / "escape").symlink_to(outside)
    (workspace / "leak.txt").symlink_to(outside / "secret.txt")
    (workspace / "dangling").symlink_to(outside / "not-yet-there.txt")

    with pytest.raises(PathOutsideWorkspace) as folder_link:
        resolve_in_workspace(workspace, "docs/escape/secret.txt")
    assert "'docs/escape' is a symlink to" in str(folder_link.value)
    assert str(outside.resolve()) in str(folder_link.value)
    with pytest.raises(PathOutsideWorkspace, match=re.escape("'leak.txt' is a symlink")):
        resolve_in_workspace(workspace, "leak.txt")
    with pytest.raises(PathOutsideWorkspace, match="'dangling' is a symlink"):
        resolve_in_workspace(workspace, "dangling")
    with pytest.raises(PathOutsideWorkspace):
        files.read_text(workspace, "docs/escape/secret.txt")
    with pytest.raises(PathOutsideWorkspace):
        files.list_files(workspace, "docs/escape")


def test_symlink_inside_the_workspace_is_followed(workspace: Path) -> None:
    (workspace / "real").mkdir()
    (workspace / "real" / "a.txt").write_text("hello")
    (workspace / "alias").symlink_to(workspace / "real")
    assert resolve_in_workspace(workspace, "alias/a.txt") == workspace.resolve() / "real" / "a.txt"
    assert files.read_text(workspace, "alias/a.txt") == "hello"


def test_refusal_is_a_tool_error_that_says_what_and_why(workspace: Path) -> None:
    with pytest.raises(ToolError) as refused:
        resolve_in_workspace(workspace, "../x")
    message = str(refused.value)
    assert "refused path '../x'" in message and "inside the workspace" in message


def test_write_a_symlink_out_is_refused_and_writes_nothing(workspace: Path, outside: Path, artifacts) -> None:
    (workspace / "out").symlink_to(outside)
    with pytest.raises(PathOutsideWorkspace):
        files.write_file(workspace, "out/new.txt", "x", artifacts)
    assert not (outside / "new.txt").exists()


def test_write_creates_folders_stores_the_artifact_and_reads_back(workspace: Path, artifacts) -> None:
    written = files.write_file(workspace, "site/css/style.css", "body { color: red }", artifacts)
    assert written.path == "site/css/style.css"
    assert (workspace / "site" / "css" / "style.css").read_text() == "body { color: red }"
    assert written.handle.mime == "text/css"
    assert artifacts.read_bytes(written.handle) == b"body { color: red }"
    assert files.read_text(workspace, "site/css/style.css") == "body { color: red }"

    blob = bytes(range(256))
    files.write_file(workspace, "data.bin", blob, artifacts)
    assert files.read_bytes(workspace, "data.bin") == blob
    with pytest.raises(files.NotText):
        files.read_text(workspace, "data.bin")


def test_reading_missing_files_and_folders_says_so(workspace: Path) -> None:
    (workspace / "folder").mkdir()
    with pytest.raises(files.WorkspaceFileNotFound, match=re.escape("no file 'nope.txt'")):
        files.read_text(workspace, "nope.txt")
    with pytest.raises(files.WorkspaceFileNotFound, match="not a regular file"):
        files.read_bytes(workspace, "folder")


def test_list_gives_sizes_kinds_and_recurses(workspace: Path, artifacts) -> None:
    files.write_file(workspace, "a.txt", "12345", artifacts)
    files.write_file(workspace, "sub/b.bin", b"\x00" * 10, artifacts)
    (workspace / "link").symlink_to(workspace / "a.txt")

    top = files.list_files(workspace)
    assert [(e.path, e.kind, e.size) for e in top] == [
        ("a.txt", "file", 5),
        ("link", "symlink", None),
        ("sub", "dir", None),
    ]
    deep = files.list_files(workspace, ".", recursive=True)
    assert ("sub/b.bin", 10) in [(e.path, e.size) for e in deep]
    assert [e.path for e in files.list_files(workspace, "sub")] == ["sub/b.bin"]


def test_file_tools_read_write_list_and_record_a_file_node(ctx) -> None:
    assert READ_FILE.effects == {Effect.READ_ONLY} and LIST_FILES.effects == {Effect.READ_ONLY}
    assert WRITE_FILE.effects == {Effect.MUTATES_CANVAS}

    result = WRITE_FILE.run(ctx, WriteFileArgs(path="notes/plan.md", content="# Plan\n"))
    [node] = result.mutations
    assert isinstance(node, CreateNode)
    assert (node.kind, node.title, node.status) == ("file", "notes/plan.md", NodeStatus.COMPLETED)
    assert node.inputs == {"path": "notes/plan.md"}
    assert ctx.artifacts.read_bytes(node.outputs[0]) == b"# Plan\n"
    assert node.metadata["provenance"] == {
        "actor": "agent",
        "tool": "write_file",
        "thread_id": "thread-1",
        "turn_id": "turn-1",
    }
    assert result.observation["node_id"] == node.id

    png = base64.b64encode(b"\x89PNG fake").decode()
    WRITE_FILE.run(ctx, WriteFileArgs(path="img/x.png", content=png, encoding="base64"))
    assert (ctx.workspace / "img" / "x.png").read_bytes() == b"\x89PNG fake"

    read = READ_FILE.run(ctx, ReadFileArgs(path="notes/plan.md"))
    assert read.observation["content"] == "# Plan\n" and read.mutations == []
    partial = READ_FILE.run(ctx, ReadFileArgs(path="img/x.png", encoding="base64", max_bytes=4))
    assert base64.b64decode(partial.observation["content"]) == b"\x89PNG" and partial.observation["truncated"]

    listed = LIST_FILES.run(ctx, ListFilesArgs(recursive=True))
    assert {"path": "notes/plan.md", "kind": "file", "size": 7} in listed.observation["entries"]

    with pytest.raises(PathOutsideWorkspace):
        READ_FILE.run(ctx, ReadFileArgs(path=os.path.join("..", "artifacts")))
