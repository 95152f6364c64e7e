"""Where a skill's graph runs when the supervisor runs it as a subgraph: its namespace and the stream it joins.

A skill is a graph node of the supervisor (``graphs/skill_nodes.py``) whose compiled graph is that node's
subgraph: ``get_graph(xray=True)`` draws its inner nodes, and ``stream(..., subgraphs=True)`` carries its
events under the node's namespace (``skill__poster:<task id>``).  But a skill's graph must not run *inside* the
supervisor's run: the run's config, context variables and stack lead to the supervisor's loop, and from there
to the bridge (docs/grants.md).  So the bridge runs the skill's graph on a thread of its own, as it runs every
skill, and hands it only this: the task's namespace and id (strings), and the parent's stream behind a relay
(a handle to the bridge's port desk, ``nodes/bridge.py``).  With those, LangGraph treats the run as the
task's subgraph: its events reach the caller's stream, namespaced, and nothing else of the parent does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph._internal._constants import (
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_RUNTIME,
    CONFIG_KEY_STREAM,
    CONFIG_KEY_TASK_ID,
)
from langgraph.pregel.protocol import StreamProtocol
from langgraph.runtime import Runtime


@dataclass(frozen=True)
class SubgraphRun:
    """A skill graph's place in the supervisor's run: the task's namespace and id, and the stream to join.

    ``stream`` is the caller's stream (None when the caller does not stream subgraphs); the bridge replaces it
    with a relay before the skill's thread sees it (:meth:`relayed`).
    """

    namespace: str
    task_id: str
    stream: StreamProtocol | None = None

    @classmethod
    def of_task(cls, config: RunnableConfig) -> SubgraphRun:
        """The place of the graph node task running with ``config``."""
        configurable = config.get("configurable") or {}
        return cls(namespace=str(configurable.get(CONFIG_KEY_CHECKPOINT_NS) or ""),
                   task_id=str(configurable.get(CONFIG_KEY_TASK_ID) or ""),
                   stream=configurable.get(CONFIG_KEY_STREAM))

    def relayed(self, relay: Any) -> SubgraphRun:
        """The same place, with the stream replaced by ``relay`` (a callable taking one stream chunk)."""
        if self.stream is None:
            return self
        return SubgraphRun(self.namespace, self.task_id, StreamProtocol(relay, set(self.stream.modes)))

    def configurable(self) -> dict[str, Any]:
        """The keys that make a graph run this task's subgraph (its events namespaced into ``stream``)."""
        if not self.namespace or not self.task_id:
            return {}
        keys: dict[str, Any] = {CONFIG_KEY_CHECKPOINT_NS: self.namespace, CONFIG_KEY_TASK_ID: self.task_id}
        if self.stream is not None:
            # LangGraph reads a nested run's custom-stream writer from the parent's runtime: a skill reports
            # progress through its context instead, so this one writes nothing.
            keys.update({CONFIG_KEY_STREAM: self.stream, CONFIG_KEY_RUNTIME: Runtime(stream_writer=_nothing)})
        return keys


def _nothing(chunk: Any) -> None:
    """A custom-stream writer that drops what it is given."""
