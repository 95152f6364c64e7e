"""A grant's scope covers every node an action touches, read from the canvas, not from the model's arguments.

The reproductions of #23: under the grant for "keep the character but redo the lighting on shot 3",
``unlink_nodes {"edge_id": E}`` deleted shot 2 → shot 1 ``CONTINUES`` (the id named no node, so no scope
check ran), and ``link_nodes VERSION_OF`` from an in-scope node to another shot's current image superseded
it (its file left ``outputs/``).  Each is run the way a user meets it, through ``jarvishub run`` with a
model scripted over a loopback OpenAI endpoint, and again at the bridge with the tool's own checks switched
off: raw mutations in a ``CanvasMutation`` action, mixed forms (an edge id with in-scope endpoints), status
changes that supersede a version, regrouping, and a forged turn record.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jarvishub import outputs
from jarvishub.project import Project
from nodes.actions import CanvasMutation
from nodes.bridge import Usage
from nodes.grant import Grant, Scope
from store.models import EdgeType, NodeStatus
from store.mutations import (
    CreateNode,
    DeleteNode,
    GroupNodes,
    Link,
    RecordTurn,
    SetStatus,
    UngroupNodes,
    Unlink,
    UpdateNode,
)
from tests.bridge.openai_chat_server import ScriptedChatServer
from tests.cli_run import ROOT, cli
from tests.security.canvas_state import fingerprint

REQUEST = "keep the character but redo the lighting on shot 3"


# -- through the CLI, as the issue reproduced it ---------------------------------------------------------------
def scripted_run(folder: Path, request: str, replies: list[dict[str, Any]]) -> subprocess.CompletedProcess:
    """``jarvishub run REQUEST --json`` whose model answers from ``replies`` (a loopback OpenAI endpoint)."""
    with ScriptedChatServer(replies) as server:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-loopback-test",
               "OPENAI_BASE_URL": server.base_url}
        return subprocess.run([sys.executable, "-m", "jarvishub.cli", "-C", str(folder), "run", request, "--json"],
                              capture_output=True, text=True, timeout=240, env=env)


@pytest.fixture(scope="module")
def film(tmp_path_factory) -> Any:
    """A 3-shot demo film made by ``jarvishub demo``, opened for the module (its engine held, reads in-process)."""
    folder = tmp_path_factory.mktemp("scope") / "film"
    made = cli("demo", "narrative", "--shots", "3", "--dir", str(folder))
    assert made.returncode == 0, made.stdout + made.stderr
    with Project.open(folder) as opened:
        yield opened


@pytest.fixture(scope="module")
def project(film) -> Any:
    """The bridge-level tests below use the film's project too (one engine for the module)."""
    return film


def test_a_local_edit_turn_cannot_unlink_or_supersede_outside_its_shot(film):
    """One scripted turn tries both reproductions of #23; each step is refused and the canvas keeps both.

    A local edit of render values is not offered the link tools (``nodes.policy.EDIT_TOOLS``), so the refusal
    is the grant's tool list; the scope check itself is attacked with raw batches below, the tools' own checks
    out of the way."""
    store, folder = film.store, film.root
    shots = {n.title: n.id for n in store.find_nodes(kind="shot")}
    edge = next(e for e in store.edges([shots["shot 2"]]) if e.type == EdgeType.CONTINUES)
    images = {n.title: n.id for n in store.find_nodes(kind="image") if n.status != NodeStatus.REJECTED}
    mine = next(i for t, i in images.items() if "3" in t)
    theirs = next(i for t, i in images.items() if "2" in t)
    shown = folder / "outputs" / "narrative" / "shot-02-image.png"
    before, picture = fingerprint(store), shown.read_bytes()
    ran = scripted_run(folder, REQUEST, [
        {"tool": "unlink_nodes", "arguments": {"edge_id": edge.id}},
        {"tool": "link_nodes", "arguments": {"type": "VERSION_OF", "source": mine, "target": theirs}},
        {"content": "Done."}])
    assert "Traceback" not in ran.stderr
    outcome = json.loads(ran.stdout)
    assert ran.returncode != 0 and outcome["result"] != "done", outcome
    refused = [(s["action"].get("tool"), s["verdict"].get("reason"), s["commit"]) for s in outcome["steps"][:2]]
    assert refused == [("unlink_nodes", "tool_not_granted", None), ("link_nodes", "tool_not_granted", None)], refused
    after = fingerprint(store)  # the turn's own record is a commit: nodes and edges are what must not move
    assert (after["nodes"], after["edges"]) == (before["nodes"], before["edges"])
    outputs.sync(folder, store, film.artifacts)
    assert shown.read_bytes() == picture


# -- at the bridge, with the tools' own checks switched off (raw mutations) ------------------------------------
@pytest.fixture(scope="module")
def canvas(runtime) -> dict[str, str]:
    """root ← mine (in scope); theirs and old (outside), lineages and a group outside; one edge outside."""
    made: dict[str, str] = {}
    batch: list[Any] = []
    for name, kind, status in (("root", "shot", NodeStatus.COMPLETED), ("mine", "image", NodeStatus.COMPLETED),
                               ("theirs", "image", NodeStatus.COMPLETED), ("other", "shot", NodeStatus.COMPLETED),
                               ("live_old", "image", NodeStatus.COMPLETED),
                               ("set_aside", "image", NodeStatus.REJECTED), ("group", "group", NodeStatus.COMPLETED),
                               ("member", "text", NodeStatus.COMPLETED),
                               ("inside_member", "text", NodeStatus.COMPLETED)):
        node = CreateNode(kind=kind, title=name, status=status)
        made[name] = node.id
        batch.append(node)
    continues = Link(type=EdgeType.CONTINUES, source=made["other"], target=made["root"])
    made["edge"] = continues.id
    batch += [
        Link(type=EdgeType.GENERATED_FROM, source=made["mine"], target=made["root"]),
        # set_aside is in scope (made from root) and a rejected newer version of live_old, which is outside.
        Link(type=EdgeType.GENERATED_FROM, source=made["set_aside"], target=made["root"]),
        Link(type=EdgeType.VERSION_OF, source=made["set_aside"], target=made["live_old"]),
        continues,
        # The group is outside; one of its members is made from root (in scope).
        Link(type=EdgeType.GENERATED_FROM, source=made["inside_member"], target=made["root"]),
        GroupNodes(group_id=made["group"], node_ids=[made["member"], made["inside_member"]]),
    ]
    done = runtime.bridge.submit(CanvasMutation(action_id="scope-seed", mutations=batch),
                                 runtime.grants.save(Grant()), Usage(), thread_id="scope")
    assert done.verdict == "allow", done.message
    return made


def local_edit(runtime, canvas: dict[str, str]) -> Grant:
    """The grant a local edit of ``root`` gets: the node and what derives from it."""
    return runtime.grants.save(Grant(scope=Scope(all_nodes=False, node_ids=[canvas["root"]],
                                                 descendants_of=[canvas["root"]])))


ATTACKS: dict[str, Any] = {
    "unlink an edge by id alone": lambda c: [Unlink(edge_id=c["edge"])],
    "unlink an edge by id, naming an in-scope source": lambda c: [Unlink(edge_id=c["edge"], source=c["mine"])],
    "unlink an edge by id, naming in-scope endpoints and a type": lambda c: [
        Unlink(edge_id=c["edge"], type=EdgeType.GENERATED_FROM, source=c["mine"], target=c["root"])],
    "link VERSION_OF to an image outside": lambda c: [
        Link(type=EdgeType.VERSION_OF, source=c["mine"], target=c["theirs"])],
    "link IN_GROUP into a group outside": lambda c: [
        Link(type=EdgeType.IN_GROUP, source=c["mine"], target=c["group"])],
    "bring back a version that supersedes one outside": lambda c: [
        SetStatus(node_id=c["set_aside"], status=NodeStatus.SELECTED)],
    "update a version's status so it supersedes one outside": lambda c: [
        UpdateNode(node_id=c["set_aside"], status=NodeStatus.COMPLETED)],
    "a new version that supersedes one outside": lambda c: [
        CreateNode(id="01M8ZZZZZZZZZZZZZZZZZZZZZZ", kind="image", title="v2"),
        Link(type=EdgeType.VERSION_OF, source="01M8ZZZZZZZZZZZZZZZZZZZZZZ", target=c["theirs"])],
    "group an in-scope node into a group outside": lambda c: [GroupNodes(group_id=c["group"], node_ids=[c["mine"]])],
    "create a node inside a group outside": lambda c: [CreateNode(kind="text", title="x", group_id=c["group"])],
    "take an in-scope member out of a group outside": lambda c: [
        UngroupNodes(group_id=c["group"], node_ids=[c["inside_member"]])],
    "move an in-scope member from a group outside to a new group": lambda c: [
        CreateNode(id="01M8ZZZZZZZZZZZZZZZZZZZZZX", kind="group", title="mine"),
        GroupNodes(group_id="01M8ZZZZZZZZZZZZZZZZZZZZZX", node_ids=[c["inside_member"]])],
    "forge a turn record": lambda c: [RecordTurn(turn_id="forged", thread_id="forged", canvas_before=0,
                                                 canvas_after=0, node_ids=[c["theirs"]])],
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_raw_batch_that_touches_a_node_outside_the_scope_is_refused(runtime, project, canvas, attack):
    grant = local_edit(runtime, canvas)
    before = fingerprint(project.store)
    done = runtime.bridge.submit(CanvasMutation(action_id=f"attack-{attack}", mutations=ATTACKS[attack](canvas)),
                                 grant, Usage(), thread_id="attack")
    assert done.verdict == "reject" and done.commit is None, (attack, done)
    assert done.reason in ("out_of_scope", "operation_not_granted"), done
    assert fingerprint(project.store) == before


def test_the_same_changes_inside_the_scope_are_allowed(runtime, project, canvas):
    """The rule is not 'refuse everything': in-scope endpoints, versions and edges by id commit."""
    grant = local_edit(runtime, canvas)
    link = Link(type=EdgeType.REFERENCES, source=canvas["mine"], target=canvas["theirs"])  # a reference reads it
    first = runtime.bridge.submit(CanvasMutation(action_id="inside-1", mutations=[link]), grant, Usage(),
                                  thread_id="inside")
    assert first.verdict == "allow", first.message
    unlinked = runtime.bridge.submit(CanvasMutation(action_id="inside-2", mutations=[Unlink(edge_id=link.id)]),
                                     grant, Usage(), thread_id="inside")
    assert unlinked.verdict == "allow", unlinked.message
    version = CreateNode(kind="image", title="mine v2")
    made = runtime.bridge.submit(CanvasMutation(action_id="inside-3", mutations=[
        version, Link(type=EdgeType.VERSION_OF, source=version.id, target=canvas["mine"]),
        SetStatus(node_id=canvas["mine"], status=NodeStatus.REJECTED, reason="superseded")]), grant, Usage(),
        thread_id="inside")
    assert made.verdict == "allow", made.message


def test_an_edge_id_that_does_not_exist_is_a_rejection_not_a_crash(runtime, canvas):
    from nodes.actions import ToolCall

    grant = local_edit(runtime, canvas)
    done = runtime.bridge.submit(ToolCall(action_id="no-edge", tool="unlink_nodes",
                                          args={"edge_id": "01M8ZZZZZZZZZZZZZZZZZZZZZY"}), grant, Usage(),
                                 thread_id="attack")
    assert done.verdict == "reject" and done.reason == "unknown_edge", done


def test_the_unlink_tool_names_the_edge_it_removes_and_refuses_a_wrong_endpoint(runtime, canvas):
    from nodes.actions import ToolCall

    everything = runtime.grants.save(Grant())
    wrong = runtime.bridge.submit(ToolCall(action_id="mixed", tool="unlink_nodes", args={
        "edge_id": canvas["edge"], "source": canvas["mine"]}), everything, Usage(), thread_id="tool")
    assert wrong.commit is None and "is CONTINUES" in wrong.observation.get("error", ""), wrong
    # The store refuses a mixed form that disagrees too (a batch built without the tool).
    refused = runtime.bridge.submit(CanvasMutation(action_id="mixed-raw", mutations=[
        Unlink(edge_id=canvas["edge"], source=canvas["mine"])]), everything, Usage(), thread_id="tool")
    assert refused.verdict == "reject" and refused.reason == "InvalidMutation", refused
