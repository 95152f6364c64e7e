"""Where a skill's graph runs when the supervisor runs it as a subgraph: its namespace and the stream it joins.

A skill is a graph node of the supervisor (``graphs/skill_nodes.py``) whose compiled graph is that node's
subgraph: ``get_graph(xray=True)`` draws its inner nodes, and ``stream(..., subgraphs=True)`` carries its
events under the node's namespace (``skill__poster:<task id>``).  But a skill's graph must not run *inside* the
supervisor's run: the run's config, context variables and stack lead to the supervisor's loop, and from there
to the bridge (docs/grants.md).  So the bridge runs the skill's graph on a thread of its own, as it runs every
skill, and hands it only this: the task's namespace and id (strings), and the parent's stream behind a relay
(a handle to the bridge's port desk, ``nodes/bridge.py``).  With those, LangGraph treats the run as the
task's subgraph: its events reach the caller's stream, namespaced, and nothing else of the parent does.

The skill's graph also checkpoints as the task's subgraph would, into the parent's checkpointer under the task's
namespace (LangGraph's subgraph-checkpointer idiom), so ``get_state(subgraphs=True)`` and a state read at the
task's namespace show its inner state.  It never holds that checkpointer: it gets a :class:`LentSaver`, a
relay on the port desk that the bridge serves for this thread and namespace only (``_Ports.checkpoint``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph._internal._constants import (
    CONFIG_KEY_CHECKPOINT_MAP,
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_CHECKPOINTER,
    CONFIG_KEY_RUNTIME,
    CONFIG_KEY_STREAM,
    CONFIG_KEY_TASK_ID,
)
from langgraph.checkpoint.base import BaseCheckpointSaver, ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple
from langgraph.pregel.protocol import StreamProtocol
from langgraph.runtime import Runtime


@dataclass(frozen=True)
class SubgraphRun:
    """A skill graph's place in the supervisor's run: the task's namespace and id, and the stream to join.

    ``stream`` is the caller's stream (None when the caller does not stream subgraphs) and ``checkpointer`` the
    run's checkpointer (None without one); the bridge replaces both with relays before the skill's thread sees
    them (:meth:`relayed`).  ``thread_id`` and ``parents`` (the parent checkpoints' ids by namespace) say where
    the skill's checkpoints go.
    """

    namespace: str
    task_id: str
    stream: StreamProtocol | None = None
    checkpointer: BaseCheckpointSaver | None = None
    thread_id: str = ""
    parents: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of_task(cls, config: RunnableConfig) -> SubgraphRun:
        """The place of the graph node task running with ``config``."""
        configurable = config.get("configurable") or {}
        saver = configurable.get(CONFIG_KEY_CHECKPOINTER)
        return cls(namespace=str(configurable.get(CONFIG_KEY_CHECKPOINT_NS) or ""),
                   task_id=str(configurable.get(CONFIG_KEY_TASK_ID) or ""),
                   stream=configurable.get(CONFIG_KEY_STREAM),
                   checkpointer=saver if isinstance(saver, BaseCheckpointSaver) else None,
                   thread_id=str(configurable.get("thread_id") or ""),
                   parents=dict(configurable.get(CONFIG_KEY_CHECKPOINT_MAP) or {}))

    def relayed(self, relay: Any, saver: LentSaver | None = None) -> SubgraphRun:
        """The same place, with the stream replaced by ``relay`` (a callable taking one stream chunk), if there is
        one, and the checkpointer by ``saver`` (None: the skill keeps no checkpoints)."""
        stream = StreamProtocol(relay, set(self.stream.modes)) if self.stream is not None else None
        return replace(self, stream=stream, checkpointer=saver)

    def configurable(self) -> dict[str, Any]:
        """The keys that make a graph run this task's subgraph (its events namespaced into ``stream``, its
        checkpoints under the task's namespace in ``checkpointer``)."""
        if not self.namespace or not self.task_id:
            return {}
        keys: dict[str, Any] = {CONFIG_KEY_CHECKPOINT_NS: self.namespace, CONFIG_KEY_TASK_ID: self.task_id}
        if isinstance(self.checkpointer, LentSaver) and self.thread_id:
            keys.update({"thread_id": self.thread_id, CONFIG_KEY_CHECKPOINTER: self.checkpointer,
                         CONFIG_KEY_CHECKPOINT_MAP: dict(self.parents)})
        if self.stream is not None:
            # LangGraph reads a nested run's custom-stream writer from the parent's runtime: a skill reports
            # progress through its context instead, so this one writes nothing.
            keys.update({CONFIG_KEY_STREAM: self.stream, CONFIG_KEY_RUNTIME: Runtime(stream_writer=_nothing)})
        return keys


def _nothing(chunk: Any) -> None:
    """A custom-stream writer that drops what it is given."""


class LentSaver(BaseCheckpointSaver):
    """The run's checkpointer as a skill's graph gets it: every call goes to ``call`` (a relay on the bridge's
    port desk), which serves one thread and the skill task's namespace (and the namespaces under it) only.

    What it holds is the relay, never the saver: a skill reads and writes its own checkpoints, not the loop's,
    whose state names the turn's grant and its pending action.
    """

    def __init__(self, call: Callable[..., Any]) -> None:
        super().__init__()
        self._call = call

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self._call("get_tuple", config)

    def list(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
             before: RunnableConfig | None = None, limit: int | None = None) -> Iterator[CheckpointTuple]:
        return iter(self._call("list", config, filter=filter, before=before, limit=limit))

    def put(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
            new_versions: ChannelVersions) -> RunnableConfig:
        return self._call("put", config, checkpoint, metadata, new_versions)

    def put_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                   task_path: str = "") -> None:
        self._call("put_writes", config, list(writes), task_id, task_path)

    def get_next_version(self, current: Any, channel: None) -> Any:
        # The versions must be the run's saver's own kind (an int, or a sortable string): it compares them.
        return self._call("get_next_version", None, current, channel)
