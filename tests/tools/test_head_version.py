"""A new version is made only from the head of its lineage: generate_* with version_of, regenerate_stale and the
explore selection all refuse a base that another turn has replaced (tools/versions.py)."""

from __future__ import annotations

from typing import Any

from graphs.explore import ExploreFailed
from jarvishub.explore import explore
from nodes.actions import ToolCall
from nodes.bridge import Usage
from store.models import Direction, EdgeType, NodeStatus, new_id
from store.mutations import CreateNode, Link, SetStatus
from tools.generate.service import GenerationService

IMAGE = {"prompt": "a lighthouse above the harbour at dusk", "width": 160, "height": 112}


def _call(runtime, tool: str, *, turn_id: str | None = None, **args: Any) -> dict[str, Any]:
    """One tool call through the bridge, as a turn (``turn_id``) or outside one; its observation."""
    action = ToolCall(action_id=new_id(), tool=tool, args=args)
    done = runtime.bridge.submit(action, runtime.grant_for(f"use {tool}"), Usage(), thread_id=new_id(),
                                 turn_id=turn_id or new_id())
    assert done.verdict == "allow", done.message
    return done.observation


def _newer(store, node_id: str) -> list[str]:
    return [n.node.id for n in store.neighbours(node_id, [EdgeType.VERSION_OF], Direction.IN)]


def test_a_version_of_a_replaced_node_is_refused_before_any_provider_call(runtime):
    store = runtime.project.store
    first = _call(runtime, "generate_image", seed=21, **IMAGE)["node_id"]
    second = _call(runtime, "generate_image", seed=21, lighting="warm", version_of=first, **IMAGE)["node_id"]
    calls_before = sum(runtime.services["generation"].provider_calls.values())
    nodes_before = len(store.find_nodes())

    forked = _call(runtime, "generate_image", seed=21, lighting="night", version_of=first, **IMAGE)
    assert f"node {first} is no longer the current version" in forked["error"] and second in forked["error"]
    assert sum(runtime.services["generation"].provider_calls.values()) == calls_before  # nothing was paid for
    assert len(store.find_nodes()) == nodes_before and _newer(store, first) == [second]

    # From the head it is fine; and one turn may make several alternatives of the same node.
    third = _call(runtime, "generate_image", seed=21, lighting="night", version_of=second, **IMAGE)["node_id"]
    turn = new_id()
    _call(runtime, "generate_image", seed=22, version_of=third, turn_id=turn, **IMAGE)
    alternative = _call(runtime, "generate_image", seed=23, version_of=third, turn_id=turn, **IMAGE)
    assert "error" not in alternative and len(_newer(store, third)) == 2


def test_regenerating_what_is_stale_skips_a_stale_version_a_newer_one_replaced(runtime):
    store = runtime.project.store
    old = _call(runtime, "generate_image", seed=31, **IMAGE)["node_id"]
    new = _call(runtime, "generate_image", seed=31, lighting="cold", version_of=old, **IMAGE)["node_id"]
    batch = [SetStatus(node_id=old, status=NodeStatus.STALE, reason="test: history left stale")]
    store.apply(batch, ticket=store._authority.issue(new_id(), batch))

    report = _call(runtime, "regenerate_stale")["regenerated"]
    assert {"node_id": old, "skipped": f"superseded by {new}"} in report
    assert _newer(store, old) == [new]  # no second current version of the output


class _CompetingService(GenerationService):
    """The project's generation service, except that the first image it makes is preceded by another turn's new
    version of ``explored``: a person or a second turn replacing the image while the exploration's branches run."""

    def __init__(self, service: GenerationService, store: Any, explored: str) -> None:  # noqa: D107 - wraps, no super
        self._service, self._store, self._explored = service, store, explored
        self.competitor: str | None = None

    def image(self, request: Any, tool: str) -> Any:
        if self.competitor is None:
            rival = CreateNode(kind="image", title="replaced by another turn", status=NodeStatus.COMPLETED,
                               metadata={"provenance": {"actor": "person:other", "turn_id": "another-turn"}})
            batch = [rival, Link(type=EdgeType.VERSION_OF, source=rival.id, target=self._explored)]
            self._store.apply(batch, ticket=self._store._authority.issue(new_id(), batch))
            self.competitor = rival.id
        return self._service.image(request, tool)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._service, name)


def test_the_explore_selection_is_refused_when_another_turn_replaced_the_explored_image(runtime, make_runtime):
    store = runtime.project.store
    explored = _call(runtime, "generate_image", seed=41, **IMAGE)["node_id"]
    competing = _CompetingService(runtime.services["generation"], store, explored)
    racing = make_runtime(services={"generation": competing})

    result = explore(racing, explored, 1, "try a warmer mood")
    assert competing.competitor is not None
    assert result.selected_id is None and result.candidate_ids
    assert result.criterion.startswith(f"nothing selected: node {explored} is no longer the current version")
    [candidate] = store.get_nodes(result.candidate_ids)
    assert candidate.status == NodeStatus.REJECTED  # made, kept, but not put in the explored image's place

    # Exploring the replaced image again is refused before anything is made, naming the head to explore.
    before = store.canvas_version()
    try:
        explore(runtime, explored, 2, "try two moods")
    except ExploreFailed as refused:
        assert competing.competitor in str(refused)
    else:
        raise AssertionError("exploring a replaced image was not refused")
    assert all(n.inputs.get("explores") != explored or n.canvas_version <= before for n in store.find_nodes(kind="group"))
