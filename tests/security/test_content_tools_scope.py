"""The page, deck, cut and version tools write only through the bridge's batch, and their scope is checked there.

None of them takes the node it writes from the model: a page edit, a deck edit or a cut change finds the
canvas's one page, deck or cut itself, and a revert names any version of an output.  The bridge checks no
argument id against the scope before the tool runs (reading outside it is allowed); what keeps each call
inside its grant is the commit check on every node its batch writes, read from the canvas
(``nodes/written.py``).  Each call here runs under a grant scoped to an unrelated note and must be refused
with the canvas unchanged; with that check switched off (``written_node_ids`` answering "nothing") the same
call commits, so the refusal is the check's doing and the call was a real write.
"""

from __future__ import annotations

from typing import Any

import pytest

import nodes.bridge
from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant, Scope
from store.models import new_id
from tests.content.agent import call
from tests.security.canvas_state import fingerprint
from tests.tools.story_ops import make_story

pytestmark = [pytest.mark.system_tool("chromium", apt="chromium"),  # a page version's preview is a screenshot
              pytest.mark.long_file(25)]  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)


@pytest.fixture(scope="module")
def canvas(runtime) -> dict[str, Any]:
    """A 3-shot story with its cut, a designed page, a slide deck, and a note outside all of them."""
    story = make_story(runtime)
    call(runtime, "skill__design_to_web", brief="a website for a ceramics studio: calm, warm, handmade", n_layouts=1)
    call(runtime, "skill__slides", topic="tides and the moon")
    note = call(runtime, "create_node", kind="text", title="a note elsewhere")
    return {**story, "note": note["created"]}


# In order: a call may write what an earlier one committed with the check switched off (the cut's history).
CALLS: dict[str, tuple[str, Any]] = {
    "page edit": ("page_set_text", lambda c: {"element": "headline", "text": "Never shown"}),
    "deck edit": ("deck_edit_slide", lambda c: {"slide": 2, "title": "Never shown"}),
    "cut reorder": ("reorder_cut", lambda c: {"swap": [1, 2]}),
    "cut removal": ("remove_from_cut", lambda c: {"shots": [3]}),
    "version revert": ("revert_version", lambda c: {"node_id": c["cut"], "original": True}),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_a_content_tool_under_a_grant_scoped_elsewhere_writes_nothing(runtime, project, canvas, monkeypatch,
                                                                      name):
    tool, args = CALLS[name]
    grant = runtime.grants.save(Grant(tools=[tool], scope=Scope(all_nodes=False, node_ids=[canvas["note"]])))

    def submit() -> Any:
        return runtime.bridge.submit(ToolCall(action_id=new_id(), tool=tool, args=args(canvas)), grant, Usage(),
                                     thread_id=f"scope-{tool}")

    before = fingerprint(project.store)
    refused = submit()
    assert refused.verdict == "reject" and refused.reason == "out_of_scope" and refused.commit is None, refused
    assert fingerprint(project.store) == before

    # The attack with the check switched off: the bridge counts no existing node as written, and the call commits.
    monkeypatch.setattr(nodes.bridge, "written_node_ids", lambda reader, mutations: [])
    written = submit()
    assert written.verdict == "allow" and written.commit is not None, written
    assert fingerprint(project.store)["nodes"] != before["nodes"]
