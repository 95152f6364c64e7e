"""A write the bridge refuses leaves no file behind: the workspace is as it was before the refused step.

``write_file`` writes the workspace file while it runs, before the commit that records it; when that commit is
refused (a grant that may not create ``file`` nodes, as a skill's narrowed grant may be), the file would be
there with no canvas node pointing at it.  The bridge takes it back: a new file is removed, a file the step
overwrote gets its previous bytes back.
"""

from __future__ import annotations

from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant
from nodes.models.scripted import ScriptedModel
from store.models import new_id

NO_FILES = Grant(node_kinds=["text", "image"])


def _write(runtime, path: str, content: str, grant: Grant | None = None):
    action = ToolCall(action_id=new_id(), tool="write_file", args={"path": path, "content": content})
    return runtime.bridge.submit(action, grant or runtime.grant_for("write a file"), Usage(), thread_id=new_id())


def _file_nodes(project, path: str) -> list:
    return [n for n in project.store.find_nodes(kind="file") if n.inputs.get("path") == path]


def test_a_refused_write_removes_the_new_file_and_restores_an_overwritten_one(make_runtime, project):
    runtime = make_runtime()
    kept = _write(runtime, "site/keep.html", "<p>kept</p>")
    assert kept.verdict == "allow" and kept.commit is not None

    runtime.grants.save(NO_FILES)
    refused_new = _write(runtime, "site/new.html", "<p>new</p>", NO_FILES)
    assert refused_new.verdict == "reject" and refused_new.reason == "kind_not_granted"
    assert not (project.workspace / "site" / "new.html").exists() and not _file_nodes(project, "site/new.html")

    refused_over = _write(runtime, "site/keep.html", "<p>overwritten</p>", NO_FILES)
    assert refused_over.verdict == "reject"
    assert (project.workspace / "site" / "keep.html").read_text() == "<p>kept</p>"
    assert _write(runtime, "site/keep.html", "<p>kept</p>", NO_FILES).verdict == "reject"  # the same bytes again
    assert (project.workspace / "site" / "keep.html").read_text() == "<p>kept</p>"
    assert [n.outputs[0].sha256 for n in _file_nodes(project, "site/keep.html")] == [kept.observation["uri"]
                                                                                    .rsplit("/", 1)[1]]


def test_a_turn_whose_write_is_refused_at_commit_leaves_no_file(make_runtime, project):
    runtime = make_runtime(model=ScriptedModel(script=[
        {"name": "write_file", "args": {"path": "notes/draft.md", "content": "# draft"}}, "gave up"]))
    outcome = runtime.run("write the draft down", grant=NO_FILES)
    assert outcome.steps[0]["verdict"]["reason"] == "kind_not_granted"
    assert not (project.workspace / "notes" / "draft.md").exists() and not _file_nodes(project, "notes/draft.md")
