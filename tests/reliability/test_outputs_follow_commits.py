"""``outputs/`` follows this process's commits by what each one changed (issue #21: with a long history, every
refresh read the whole artifact graph again and looked at every file): a commit's new version is placed, a file
it did not touch is not rewritten, a folder a person deleted is rebuilt whole, and a commit of another process
in between is caught up with by reading the canvas again.
"""

from __future__ import annotations

from typing import Any

import json
import shutil
from pathlib import Path

import pytest

from jarvishub.outputs import plan
from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant


@pytest.fixture(scope="module")
def project(own_engine_project: Any) -> Any:
    """Another process commits to this project's folder, which finds the canvas in the folder's own engine."""
    return own_engine_project


@pytest.fixture
def artifact_graph_reads(project, monkeypatch) -> list[int]:
    """How often the store read the whole artifact graph (the real read, counted)."""
    reads: list[int] = []
    whole = project.store.artifact_graph

    def counted():
        reads.append(1)
        return whole()

    monkeypatch.setattr(project.store, "artifact_graph", counted)
    return reads


def _image(runtime: Runtime, name: str, prompt: str, **args) -> str:
    made = runtime.bridge.submit(
        ToolCall(action_id=f"outputs-{name}-{len(prompt)}", tool="generate_image",
                 args={"prompt": prompt, "title": name, "seed": 3, **args}),
        runtime.grants.save(Grant()), Usage(), thread_id="outputs-follow")
    assert made.verdict == "allow", made.message
    return made.observation["node_id"]


def _placed(project: Project) -> dict[str, str]:
    """What outputs/ holds, path -> sha256, as its index records it."""
    return {path: entry["sha256"] for path, entry in
            json.loads((project.root / "outputs" / ".index.json").read_text()).items()}


def _planned(project: Project) -> dict[str, str]:
    """What a full read of the canvas plans for outputs/ (the store's own read, not the counted one)."""
    return {f.path: f.sha256 for f in plan(*type(project.store).artifact_graph(project.store))}


def test_a_refresh_writes_what_the_commit_changed_and_rebuilds_a_deleted_folder(project, runtime,
                                                                                artifact_graph_reads):
    outputs = project.root / "outputs"
    lighthouse = _image(runtime, "lighthouse", "a lighthouse above the harbour")
    _image(runtime, "harbour", "boats in the harbour at noon")
    harbour_file = outputs / "narrative" / "harbour.png"
    untouched = harbour_file.stat()
    assert _placed(project) == _planned(project)

    # A new version of the lighthouse: its file changes, the old one moves to versions/, the harbour is left.
    newer = _image(runtime, "lighthouse", "a lighthouse above the harbour at night", version_of=lighthouse,
                   lighting="night")
    current = outputs / "narrative" / "lighthouse.png"
    assert current.read_bytes() == project.artifacts.local_path(
        project.store.get_node(newer).outputs[0].sha256).read_bytes()
    assert (outputs / "narrative" / "versions" / "lighthouse-v1.png").read_bytes() == \
        project.artifacts.local_path(project.store.get_node(lighthouse).outputs[0].sha256).read_bytes()
    again = harbour_file.stat()
    assert (again.st_ino, again.st_mtime_ns) == (untouched.st_ino, untouched.st_mtime_ns), "not rewritten"
    # Three commits, one read of the whole graph (the first); the rest followed from what each commit wrote.
    assert len(artifact_graph_reads) == 1
    assert _placed(project) == _planned(project)

    # A person deletes the folder: the next commit's refresh rebuilds all of it, not only its own file.
    shutil.rmtree(outputs)
    _image(runtime, "quay", "an empty quay in fog")
    assert _placed(project) == _planned(project)
    for path, sha in _placed(project).items():
        assert (outputs / path).read_bytes() == project.artifacts.local_path(sha).read_bytes(), path
    assert harbour_file.is_file() and (outputs / "narrative" / "quay.png").is_file()


def test_a_commit_of_another_process_in_between_is_read_from_the_canvas(project, runtime, artifact_graph_reads):
    _image(runtime, "gull", "a gull on a post")
    reads = len(artifact_graph_reads)
    # Another process (here a second opening of the project, which follows no commits) makes a new version.
    with Project.open(project.root, follow_outputs=False) as other:
        elsewhere = Runtime(other)
        try:
            [gull] = [n for n in other.store.find_nodes(kind="image") if n.title == "gull"]
            _image(elsewhere, "gull", "a gull on a post at dusk", version_of=gull.id, lighting="dawn")
        finally:
            elsewhere.close()
    assert _placed(project) != _planned(project), "outputs/ is behind: that commit was not this process's"
    _image(runtime, "rope", "a coil of rope")
    assert len(artifact_graph_reads) == reads + 1, "the gap in canvas versions made it read the graph again"
    assert _placed(project) == _planned(project)
