"""What a person does from the web canvas: requests, feedback, approvals and moves, all through the bridge.

Each interaction is submitted as an action of actor ``person:<name>`` under a
stored person grant, so it is checked and committed like an agent's.  Requests,
feedback, approvals and rejections are also recorded on the canvas as a
``feedback`` node (the U of the canvas state) that REFERENCES the nodes it is
about; a drag is recorded by its own ``move_node`` commit (who, when, where)
and the node's history.  Agent turns run in one background worker thread, in
the order asked, and report progress to the event hub.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from pydantic import BaseModel, Field

from jarvishub.runtime import Runtime
from jarvishub.web.live import EventHub
from nodes.actions import CanvasMutation, ToolCall
from nodes.bridge import SubmitResult, Usage, referenced_node_ids
from nodes.grant import Budget, Grant
from nodes.selection import selected_nodes
from store.errors import NodeNotFound, StaleVersion
from store.models import CanvasNode, EdgeType, NodeStatus, new_id
from store.mutations import CreateNode, Link, UpdateNode
from tools.base import Effect, ToolError
from tools.node_inputs import InvalidInputs, check_inputs_patch
from tools.reader import read_only
from tools.recovery import stale_marks

UI_THREAD = "ui"
"""The thread id of a person's direct canvas edits (moves, restores, rejections)."""
VERSION_TOOLS = ["revert_version", "set_status"]
"""What a person's version view may call: the version tool that restores, and the status tool that rejects."""
EDIT_OPERATIONS = ["update_node", "set_status"]
"""What a person's edit of a node's inputs may write, one batch: the change itself, and the stale marks of what it
invalidates (the bridge refuses any other mutation under this grant)."""
_PROGRESS_KEPT = 30
CONFLICT_ATTEMPTS = 8
"""Attempts of a person's action whose batch a concurrent commit made stale (each attempt reads the canvas anew,
so one only fails again when yet another commit lands in between)."""


class Refused(Exception):
    """The bridge refused a person's action; the message says why."""


class InvalidEdit(Refused):
    """A person's inputs edit names a field or value the node's producing tool does not accept; nothing changed.

    Its own type (answered 422, not 403) because nothing was refused by a grant: the edit itself needs mending,
    and the message names the field and the values allowed."""


class Conflict(Exception):
    """A person's action met a concurrent commit on every attempt; nothing was written (answered 409)."""


class Busy(Exception):
    """A thread already has a turn queued or running."""


class Job(BaseModel):
    """A background agent turn started from the page."""

    id: str = Field(default_factory=new_id)
    kind: Literal["request", "resume"]
    thread_id: str
    text: str = ""
    node_ids: list[str] = Field(default_factory=list)
    feedback_node_id: str | None = None
    status: Literal["queued", "running", "interrupted", "done", "failed"] = "queued"
    outcome: str | None = None
    reply: str | None = None
    interrupt: dict[str, Any] | None = None
    error: str | None = None
    progress: list[str] = Field(default_factory=list)
    started_at: float = Field(default_factory=time.time)
    finished_at: float | None = None
    revision: int = 0
    """Counts the job's changes. The page gets a job's snapshots by two roads (the answer to the request that
    started it, the live feed) in no fixed order, and keeps the one with the highest revision."""


class Steering:
    """A person's channel into one runtime."""

    def __init__(self, runtime: Runtime, hub: EventHub, person: str) -> None:
        self.runtime = runtime
        self.hub = hub
        self.actor = f"person:{person}"
        self.grant = runtime.grants.save(
            Grant(actor=self.actor, tools=["move_node"], operations=["create_node", "link", "move_node"],
                  budget=Budget(tool_calls=None, generation_calls=0, wall_time_s=None))
        )
        # Restoring rebuilds what was made from the output (a clip from an image) through the signature cache,
        # so this grant may generate; it is kept apart from the one moves use, which never does.
        self.versions_grant = runtime.grants.save(
            Grant(actor=self.actor, tools=VERSION_TOOLS,
                  budget=Budget(tool_calls=None, generation_calls=50, wall_time_s=None))
        )
        self.edit_grant = runtime.grants.save(
            Grant(actor=self.actor, tools=[], operations=EDIT_OPERATIONS,
                  budget=Budget(tool_calls=None, generation_calls=0, wall_time_s=None)))
        self._jobs: dict[str, Job] = {}
        self._busy: set[str] = set()  # threads with a turn queued or running
        self._lock = threading.Lock()
        # One worker: turns of a runtime share its checkpointer and run one after another.
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jarvishub-turn")

    # -- direct edits ------------------------------------------------------------------
    def move(self, node_id: str, x: float, y: float) -> CanvasNode:
        """Move a node where a person dropped it, pinned so the layout keeps it there."""
        self.runtime.project.store.get_node(node_id)  # an unknown id is NodeNotFound, not a refusal
        call = ToolCall(action_id=new_id(), actor=self.actor, tool="move_node",
                        args={"node_id": node_id, "x": x, "y": y, "pinned": True})
        self._submit(call, UI_THREAD)
        return self.runtime.project.store.get_node(node_id)

    def restore(self, node_id: str, version: int) -> dict[str, Any]:
        """Make version ``version`` of the output ``node_id`` belongs to current again, with the version tool
        ``revert_version`` (a new version holding that content; what was made from it rebuilt), as this person."""
        self.runtime.project.store.get_node(node_id)
        call = ToolCall(action_id=new_id(), actor=self.actor, tool="revert_version",
                        args={"node_id": node_id, "version": version})
        return dict(self._submit(call, UI_THREAD, self.versions_grant).observation)

    def reject(self, node_id: str, reason: str) -> CanvasNode:
        """Set a version aside (status ``rejected``) with ``set_status``, as this person."""
        self.runtime.project.store.get_node(node_id)
        call = ToolCall(action_id=new_id(), actor=self.actor, tool="set_status",
                        args={"node_id": node_id, "status": "rejected", "reason": reason})
        self._submit(call, UI_THREAD, self.versions_grant)
        return self.runtime.project.store.get_node(node_id)

    def edit(self, node_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
        """Change a node's inputs as this person and mark it and what was made from it stale, in one commit: its
        output no longer matches its inputs until someone regenerates it.

        One batch, not ``update_node`` then ``mark_stale``: when the second of two commits did not land (a
        conflict, a refusal, the server stopped), the inputs were changed and the outputs still claimed to match
        them.  The value is checked as ``update_node`` checks it, and the marks are ``mark_stale``'s
        (``tools.recovery.stale_marks``); every change in the batch holds only if its node is still at the
        version read, and another commit in between makes the edit run again on the canvas as it now is."""
        store = self.runtime.project.store
        marked: dict[str, Any] = {}

        def batch() -> CanvasMutation:  # read now, on the canvas as it is
            node = store.get_node(node_id)  # an unknown id is NodeNotFound, not a refusal
            try:
                check_inputs_patch(self.runtime.registry, node, inputs)
                observation, marks = stale_marks(read_only(store), [node_id], reason="its inputs were edited")
            except InvalidInputs as error:
                raise InvalidEdit(str(error)) from error
            except ToolError as error:
                raise Refused(str(error)) from error
            marked.clear()
            marked.update(observation)
            change = UpdateNode(node_id=node_id, inputs_patch=inputs, expected_version=node.version)
            return CanvasMutation(action_id=new_id(), actor=self.actor, mutations=[change, *marks])

        self._submit(batch(), UI_THREAD, self.edit_grant, again=batch)
        return {"updated": node_id, **marked}

    def record(self, interaction: str, text: str, node_ids: list[str], thread_id: str) -> str:
        """Put a person's interaction on the canvas: a feedback node REFERENCES the nodes it is about (its
        inputs keep the selection as sent, a page's section ``PAGE_ID#section`` included)."""
        feedback_id = new_id()
        inputs = {"text": text, "node_ids": node_ids, "actor": self.actor, "interaction": interaction,
                  "thread_id": thread_id}
        mutations: list[Any] = [
            CreateNode(id=feedback_id, kind="feedback", title=(text or interaction)[:60],
                       status=NodeStatus.COMPLETED, inputs=inputs,
                       metadata={"provenance": {"actor": self.actor, "thread_id": thread_id, "tool": "web_canvas"}}),
            *(Link(type=EdgeType.REFERENCES, source=feedback_id, target=i, properties={"role": interaction})
              for i in selected_nodes(node_ids)),
        ]
        self._submit(CanvasMutation(action_id=new_id(), actor=self.actor, mutations=mutations), thread_id)
        return feedback_id

    def _submit(self, action: Any, thread_id: str, grant: Grant | None = None, *,
                again: Callable[[], Any] | None = None) -> SubmitResult:
        """Submit a person's action; ``again``: how to build it anew on the current canvas after a conflict (a
        tool call runs again as it is, under a new action id; any other action without it is not retried)."""
        for _ in range(CONFLICT_ATTEMPTS):
            result = self.runtime.bridge.submit(action, grant or self.grant, Usage(), thread_id=thread_id)
            conflict = result.reason == StaleVersion.__name__ or (
                result.verdict == "allow" and result.observation.get("error_type") == StaleVersion.__name__)
            if not (conflict and (again is not None or isinstance(action, ToolCall))):
                break
            # Another commit (another turn, another person's drag or edit) changed a node this
            # action read between its read and its commit, and the store refused the whole batch: nothing was
            # written.  A person's action means "do this on the canvas as it is", so it runs again on the
            # current canvas, as a turn's commit node rebuilds its step, under a new action id.
            action = again() if again is not None else action.model_copy(update={"action_id": new_id()})
        else:
            what = getattr(action, "tool", "the change")
            raise Conflict(f"{what}: the canvas kept changing under it ({result.message}); try again")
        if result.verdict != "allow":
            raise Refused(result.message)
        if result.observation.get("error"):
            invalid = result.observation.get("error_type") == InvalidInputs.__name__
            raise (InvalidEdit if invalid else Refused)(str(result.observation["error"]))
        return result

    # -- agent turns ------------------------------------------------------------------------
    def request(self, text: str, node_ids: list[str], *, thread_id: str | None = None,
                approval_tools: list[str] | None = None, ask_before_changes: bool = False) -> Job:
        """Record the request as feedback on the selected nodes, then run a turn on it in the background.

        ``node_ids`` may name a section of a selected page as ``PAGE_ID#section`` (nodes.selection): the turn's
        interpreter reads it as what "the heading", "it" or "this section" mean."""
        self.runtime.project.store.get_nodes(selected_nodes(node_ids))  # unknown ids: NodeNotFound, nothing written
        thread_id = thread_id or new_id()
        self._claim(thread_id)
        job = Job(kind="request", thread_id=thread_id, text=text, node_ids=node_ids)
        try:
            job.feedback_node_id = self.record("feedback" if node_ids else "request", text, node_ids, thread_id)
        except BaseException:
            self._release(thread_id)
            raise
        grant = None
        if approval_tools or ask_before_changes:
            grant = self.runtime.grant_for(text, selected=node_ids)
            effects = [*grant.approval_effects, *([Effect.MUTATES_CANVAS] if ask_before_changes else [])]
            grant = grant.model_copy(update={"approval_tools": sorted({*grant.approval_tools, *(approval_tools or [])}),
                                             "approval_effects": list(dict.fromkeys(effects))})
        return self._start(job, lambda on_event: self.runtime.run(text, thread_id=thread_id, grant=grant,
                                                                   selected=node_ids, on_event=on_event))

    def resume(self, thread_id: str, decision: Literal["approve", "reject"], message: str = "") -> Job:
        """Answer the approval a thread waits on (recorded as feedback), then continue the turn."""
        waiting = self.runtime.pending(thread_id)
        if waiting is None:
            raise Busy(f"thread {thread_id} is not waiting for an answer")
        self._claim(thread_id)
        about = self._existing(referenced_node_ids(waiting.get("action") or {}))
        text = message or f"{decision}: {waiting.get('reason') or waiting.get('question') or ''}".strip()
        job = Job(kind="resume", thread_id=thread_id, text=text, node_ids=about)
        try:
            job.feedback_node_id = self.record("approval" if decision == "approve" else "rejection", text, about,
                                               thread_id)
        except BaseException:
            self._release(thread_id)
            raise
        answer: dict[str, Any] = {"decision": decision}
        if message:
            answer["message"] = message
        return self._start(job, lambda on_event: self.runtime.resume(thread_id, answer, on_event=on_event))

    def pending(self, thread_id: str) -> dict[str, Any] | None:
        """What a thread waits on (an approval, a clarification), if anything."""
        return self.runtime.pending(thread_id)

    def jobs(self) -> list[Job]:
        """Every job of this server, newest first."""
        with self._lock:
            return sorted((j.model_copy() for j in self._jobs.values()), key=lambda j: j.started_at, reverse=True)

    def job(self, job_id: str) -> Job | None:
        """One job by id."""
        with self._lock:
            job = self._jobs.get(job_id)
            return job.model_copy() if job else None

    def close(self) -> None:
        """Stop taking turns; a running turn finishes in its thread (its checkpoint lets it resume later)."""
        self._worker.shutdown(wait=False, cancel_futures=True)

    # -- plumbing ----------------------------------------------------------------------------
    def _existing(self, node_ids: list[str]) -> list[str]:
        store = self.runtime.project.store
        found = []
        for node_id in dict.fromkeys(node_ids):
            try:
                store.get_node(node_id)
                found.append(node_id)
            except NodeNotFound:
                continue
        return found

    def _claim(self, thread_id: str) -> None:
        with self._lock:
            if thread_id in self._busy:
                raise Busy(f"thread {thread_id} already has a turn queued or running")
            self._busy.add(thread_id)

    def _release(self, thread_id: str) -> None:
        with self._lock:
            self._busy.discard(thread_id)

    def _start(self, job: Job, turn: Any) -> Job:
        """Queue the turn; the snapshot returned is the job as queued (the worker changes the job from now on)."""
        with self._lock:
            self._jobs[job.id] = job
            snapshot = job.model_copy()
        self._publish(snapshot)
        self._worker.submit(self._run, job.id, turn)
        return snapshot

    def _run(self, job_id: str, turn: Any) -> None:
        thread_id = self._update(job_id, status="running").thread_id

        def on_event(kind: str, data: dict[str, Any]) -> None:
            if kind == "node":
                update = data.get("update") or {}
                action = update.get("action") or {}
                line = data.get("node", "")
                if isinstance(action, dict) and action.get("tool"):
                    line += f": {action['tool']}"
            else:
                line = str(data.get("message") or data)
            self._update(job_id, progress=line)

        try:
            outcome = turn(on_event)
        except Exception as error:  # the page shows it; the server keeps serving
            self._update(job_id, status="failed", error=f"{type(error).__name__}: {error}", finished=True)
            return
        finally:
            self._release(thread_id)
        status = "interrupted" if outcome.outcome == "interrupted" else "done"
        self._update(job_id, status=status, outcome=outcome.outcome, reply=outcome.reply,
                     interrupt=outcome.interrupt, finished=True)

    def _update(self, job_id: str, *, progress: str | None = None, finished: bool = False, **fields: Any) -> Job:
        with self._lock:
            job = self._jobs[job_id]
            for key, value in fields.items():
                setattr(job, key, value)
            if progress:
                job.progress = [*job.progress, progress][-_PROGRESS_KEPT:]
            if finished:
                job.finished_at = time.time()
            job.revision += 1
            snapshot = job.model_copy()
        self._publish(snapshot)
        return snapshot

    def _publish(self, job: Job) -> None:
        self.hub.publish("job", job.model_dump(mode="json"))
