"""A small narrative on a real project, and how the version and cut tests call tools and read outputs.

Every call goes through ``Bridge.submit`` under the grant the tool's write scope names
(``tools.write_scope``): the smallest grant, so a tool that wrote outside what it declares would be refused
at commit, and every test of an operation is also a test of its scope.
"""

from __future__ import annotations

from typing import Any

from jarvishub.evaluation.outputs import Canvas, invariants
from nodes.actions import ToolCall
from nodes.bridge import SubmitResult, Usage
from nodes.grant import Grant, Scope
from store.models import Direction, EdgeType, NodeStatus, new_id
from tools.versions import current_versions
from tools.write_scope import write_scope

SHOTS = 3
PREMISE = "a keeper finds a bottle on the rocks"


def make_story(runtime: Any, premise: str = PREMISE) -> dict[str, Any]:
    """A 3-shot storyboard → images → clips → cut, made by the offline planner as a user's first turn would.

    Stories of one premise share their media through the signature cache (only the first costs provider
    calls); each is its own set of nodes, and the tests read outputs per story (:func:`heads`).
    """
    outcome = runtime.run(f"a {SHOTS}-shot short film: {premise}")
    assert outcome.outcome == "replied", outcome.reply
    store = runtime.project.store
    turn = store.turns(outcome.thread_id)[-1]
    made = [c for c in store.commits(since_version=turn["canvas_before"])
            if c.canvas_version <= turn["canvas_after"] and c.thread_id == outcome.thread_id]
    nodes = store.get_nodes(list(dict.fromkeys(i for c in made for i in c.node_ids)))
    by_title = {n.title: n for n in nodes if n.kind in ("shot", "image", "video")}
    return {"thread": outcome.thread_id, "turn": outcome.turn_id,
            "shots": [by_title[f"shot {i}"].id for i in range(1, SHOTS + 1)],
            "images": [by_title[f"shot {i} image"].id for i in range(1, SHOTS + 1)],
            "clips": [by_title[f"shot {i} clip"].id for i in range(1, SHOTS + 1)],
            "cut": by_title["final cut"].id,
            "roots": [n.id for n in nodes if n.kind in ("image", "video")]}


def heads(store: Any, story: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Title → (node id, artifact hash) of the current version of every output the story started with."""
    found = current_versions(store, store.get_nodes(story["roots"]))
    return {n.title: (n.id, n.outputs[0].sha256) for n in found.values()}


def hashes(store: Any, story: dict[str, Any]) -> dict[str, str]:
    """Title → artifact hash of the story's current outputs."""
    return {title: sha for title, (_, sha) in heads(store, story).items()}


def current(store: Any, node_id: str) -> Any:
    """The current version of a node's output."""
    return current_versions(store, [store.get_node(node_id)])[node_id]


def scoped_grant(runtime: Any, tool: str, args: dict[str, Any]) -> Grant:
    """A grant of exactly this tool, scoped to what the call writes (the smallest grant the policy can give)."""
    scope = write_scope(runtime.project.store, tool, args)
    return runtime.grants.save(Grant(tools=[tool], scope=Scope(all_nodes=False, node_ids=scope.node_ids,
                                                               descendants_of=scope.descendants_of)))


def call(runtime: Any, tool: str, *, grant: Grant | None = None, **args: Any) -> SubmitResult:
    """One call of ``tool`` through the bridge, under its smallest grant unless another is given."""
    action = ToolCall(action_id=new_id(), tool=tool, args=args)
    return runtime.bridge.submit(action, grant or scoped_grant(runtime, tool, args), Usage(), thread_id=new_id())


def done(result: SubmitResult) -> dict[str, Any]:
    """The observation of a call that ran cleanly and committed."""
    assert result.verdict == "allow", result
    assert "error" not in result.observation, result.observation
    assert result.commit is not None, result
    return result.observation


def refused(result: SubmitResult, error_type: str) -> str:
    """The message of a call the tool refused with a typed error the model sees (nothing committed)."""
    assert result.verdict == "allow" and result.commit is None, result
    assert result.observation.get("error_type") == error_type, result.observation
    return str(result.observation["error"])


def provider_calls(runtime: Any) -> int:
    """Provider calls the runtime's generation service has made so far (cache hits excluded)."""
    return sum(runtime.services["generation"].provider_calls.values())


def assert_invariants(store: Any) -> None:
    """One current version per output; clips made from current images; cuts of current clips."""
    problems = invariants(Canvas.read(store))
    assert not problems, "; ".join(problems)


def version_of(store: Any, node_id: str) -> list[str]:
    """The node(s) a version was made as a new version of."""
    return [n.node.id for n in store.neighbours(node_id, [EdgeType.VERSION_OF], Direction.OUT)]


def cut_titles(store: Any, cut_id: str) -> list[str]:
    """The titles of the current cut's clips, in playing order."""
    cut = current(store, cut_id)
    assert cut.status != NodeStatus.REJECTED
    return [c.title for c in store.get_nodes(cut.inputs["clip_node_ids"])]
