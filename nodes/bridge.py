"""The protocol bridge: validate an action against the grant, run it, and commit what it produced.

The graph nodes of the turn loop (``nodes/validate.py``, ``nodes/execute.py``,
``nodes/commit.py``) call into one :class:`Bridge`; so do skills, subagents
and the web canvas through :meth:`Bridge.submit`.  The bridge shares its
store's :class:`~store.tickets.TicketAuthority`, so it is the only code that
can produce a write ticket the store accepts.  Tools and skills never get the
bridge itself: they get a :class:`~nodes.ports.BridgePort` (:meth:`Bridge.port`)
and a :class:`~tools.reader.ReadOnlyCanvas`, neither of which refers to the
bridge or the store in any way Python can follow (``tools/sealed.py``), and a
skill runs on a thread of its own, so no frame above it holds the bridge either.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import ValidationError

from nodes.actions import CanvasMutation, Clarification, Evaluation, Reply, ToolCall
from nodes.grant import Grant, GrantStore, check_scope, check_spend
from nodes.manifest import Manifest
from nodes.ports import BridgePort
from nodes.subgraph import LentSaver, SubgraphRun
from nodes.usage import SubmitResult, Usage
from nodes.verdicts import Allow, ApprovalRequired, GrantDenied, NeedsApproval, Reject, Verdict
from nodes.written import UnknownEdge, resolve_edges, written_node_ids
from store.errors import CanvasError, NodeNotFound, is_engine_outage
from store.models import CommitRecord
from store.mutations import CreateNode, RecordTurn
from store.neo4j import Neo4jCanvasStore
from store.tickets import TicketAuthority, WriteTicket
from tools.base import Effect, ToolContext, ToolError, ToolFamily, ToolResult
from tools.recovery import COMPOSED_TOOLS
from tools.native.files import take_back_refused
from tools.reader import ReadOnlyCanvas
from tools.registry import ToolRegistry
from tools.sealed import Desk, Handle

_MAX_GRANT_DEPTH = 64
_NODE_ID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
EVALUATOR_TOOL = "evaluate_node"


def referenced_node_ids(value: Any) -> list[str]:
    """Every canvas node id mentioned anywhere in tool arguments (ids are ULIDs, so they are recognisable)."""
    found: list[str] = []
    if isinstance(value, str):
        if _NODE_ID.match(value):
            found.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and key.endswith(("edge_id", "edge_ids", "turn_id", "thread_id")):
                continue  # edge, turn and thread ids are ULIDs too, but they name no canvas node
            found.extend(referenced_node_ids(item))
    elif isinstance(value, (list, tuple)):
        for item in value:
            found.extend(referenced_node_ids(item))
    return found


def referenced_edge_ids(value: Any) -> list[str]:
    """Every edge id given in tool arguments: the values under keys ending ``edge_id`` or ``edge_ids``."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and key.endswith(("edge_id", "edge_ids")):
                found.extend(i for i in (item if isinstance(item, (list, tuple)) else [item]) if isinstance(i, str))
            else:
                found.extend(referenced_edge_ids(item))
    elif isinstance(value, (list, tuple)):
        for item in value:
            found.extend(referenced_edge_ids(item))
    return found


class Bridge:
    """Validation, execution and commit of actions, for one project."""

    def __init__(
        self,
        store: Neo4jCanvasStore,
        registry: ToolRegistry,
        manifest: Manifest,
        grants: GrantStore,
        context_factory: Callable[..., ToolContext],
    ) -> None:
        self.store = store
        # The bridge/store pair share one key: the bridge signs with the authority its store verifies with.  No
        # tool or skill holds the bridge (they get a port, which does not lead back to it: tools/sealed.py).
        self._authority: TicketAuthority = store._authority
        self.registry = registry
        self.manifest = manifest
        self.grants = grants
        self._context_factory = context_factory
        self._ports: _Ports | None = None
        self._skills: tuple[_SkillRunner, Desk] | None = None

    # -- validation (before anything runs or is written) -------------------------------
    def validate(self, action: Any, grant: Grant, usage: Usage) -> Verdict:
        """Check an action against the grant and the canvas; never raises for a bad action."""
        try:
            return self._validate(action, grant, usage)
        except GrantDenied as denied:
            return Reject(reason=denied.reason, message=str(denied))
        except NodeNotFound as missing:
            return Reject(reason="unknown_node", message=str(missing))
        except UnknownEdge as missing:
            return Reject(reason=missing.reason, message=str(missing))

    def _validate(self, action: Any, grant: Grant, usage: Usage) -> Verdict:
        current = self.grants.get(grant.id) if grant.id else grant
        if current.revoked:
            raise GrantDenied("revoked", f"grant {grant.id} was revoked; nothing more may run under it")
        self._check_budget(current, usage)
        match action:
            case Reply() | Clarification():
                return Allow()
            case ToolCall():
                return self._validate_tool_call(action, current, usage)
            case CanvasMutation():
                ticket = self.authorize(action.action_id, action.mutations, current, usage)
                return Allow(ticket=ticket)
            case Evaluation():
                if not current.allows_tool(EVALUATOR_TOOL) or self.registry.get(EVALUATOR_TOOL) is None:
                    raise GrantDenied("tool_not_granted", f"evaluation needs the {EVALUATOR_TOOL} tool in the grant")
                self._check_scope([action.node_id], current, usage)
                return Allow()
        raise GrantDenied("malformed", f"not an action the bridge can run: {type(action).__name__}")

    def _validate_tool_call(self, call: ToolCall, grant: Grant, usage: Usage) -> Verdict:
        spec = self.registry.get(call.tool)
        if spec is None or self.manifest.tool(call.tool) is None:
            raise GrantDenied(
                "unknown_tool",
                f"there is no tool named {call.tool!r}; available: {', '.join(self.manifest.tool_names())}",
            )
        if not grant.allows_tool(call.tool):
            if grant.lends_tool(call.tool):
                # The tool is lent to the grant's skills only: the actor (the model) never calls it directly.
                raise GrantDenied("tool_not_granted", f"tool {call.tool} may be called only by a skill this grant "
                                  "runs, not directly; call the skill instead")
            raise GrantDenied("tool_not_granted", f"tool {call.tool} is not in this turn's grant")
        # A skill's needs may be lent to it (skill-only tools): its own grant, narrowed to them, holds them.
        missing = sorted(t for t in spec.requires if not grant.lends_tool(t))
        if missing:
            raise GrantDenied("tool_not_granted", f"{call.tool} needs {', '.join(missing)}, which this grant lacks")
        try:
            spec.args_schema.model_validate(call.args)
        except ValidationError as error:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'args'}: {e['msg']}" for e in error.errors())
            raise GrantDenied("bad_arguments", f"arguments for {call.tool} are invalid: {problems}") from None
        if Effect.GENERATES_MEDIA in spec.effects and grant.budget.generation_calls is not None:
            if usage.generation_calls >= grant.budget.generation_calls:
                raise GrantDenied("budget", f"the generation budget of {grant.budget.generation_calls} calls is spent")
        if Effect.GENERATES_MEDIA in spec.effects:
            check_spend(grant.budget, usage, next_call_usd=usage.generation_estimates.get(call.tool, 0.0))
        mentioned = referenced_node_ids(call.args)
        if Effect.READ_ONLY not in spec.effects:
            # An edge named by id must exist; what it touches (its endpoints, from the edge log) is checked
            # against the scope at commit, with everything else the tool's batch writes.
            resolve_edges(self.store, referenced_edge_ids(call.args))
        if mentioned and Effect.READ_ONLY not in spec.effects:
            self.store.get_nodes(_unique(i for i in mentioned if i not in usage.created_ids))
            self._check_scope([i for i in mentioned if i not in usage.created_ids], grant, usage, reading_ok=True)
        parts = COMPOSED_TOOLS.get(call.tool, ())
        if call.tool in grant.approval_tools or set(parts) & set(grant.approval_tools) \
                or spec.effects & set(grant.approval_effects):
            return NeedsApproval(reason=f"{call.tool} needs a person's approval ({', '.join(sorted(spec.effects))})")
        return Allow()

    def _check_budget(self, grant: Grant, usage: Usage) -> None:
        budget = grant.budget
        if budget.tool_calls is not None and usage.tool_calls >= budget.tool_calls:
            raise GrantDenied("budget", f"the budget of {budget.tool_calls} tool calls is spent")
        if budget.wall_time_s is not None and time.time() - usage.started_at > budget.wall_time_s:
            raise GrantDenied("budget", f"the turn's wall-time budget of {budget.wall_time_s:g} s is spent")
        check_spend(budget, usage)

    def _check_scope(self, node_ids: list[str], grant: Grant, usage: Usage, *, reading_ok: bool = False) -> None:
        if reading_ok:
            # Tools may read (reference) nodes outside their scope; writing them is checked at commit.
            return
        check_scope(self.store, grant.scope, node_ids, created=usage.created_ids)

    # -- the ticket: checked against the mutations actually produced ---------------------
    def authorize(self, action_id: str, mutations: list[Any], grant: Grant, usage: Usage) -> WriteTicket:
        """Check produced mutations against the grant (ops, kinds, scope) and issue their write ticket."""
        current = self.grants.get(grant.id) if grant.id else grant
        if current.revoked:
            raise GrantDenied("revoked", f"grant {grant.id} was revoked; nothing more may be written under it")
        for mutation in mutations:
            if isinstance(mutation, RecordTurn):
                raise GrantDenied("operation_not_granted", "a turn's record is the bridge's own bookkeeping")
            if not current.allows_op(mutation.op):
                raise GrantDenied("operation_not_granted", f"{mutation.op} is not allowed by this grant")
            if isinstance(mutation, CreateNode):
                self.store.kinds.require(mutation.kind)
                if not current.allows_kind(mutation.kind):
                    raise GrantDenied("kind_not_granted", f"creating {mutation.kind} nodes is not in this grant")
        limited = current.node_kinds is not None or not current.scope.all_nodes
        # Without a kind or scope limit there is nothing to read here: the commit itself refuses a missing node.
        # With one, every node the batch writes counts, as the canvas says (an edge by id, what a version
        # supersedes), never only the ids the batch names (nodes/written.py).
        existing = written_node_ids(self.store, mutations) if limited else []
        pending = [i for i in existing if i not in usage.created_ids]
        if pending:
            # One read for both checks: each node's kind and what the scope needs (its group, its lineage).
            # Deleted nodes count: a checkpoint restore brings them back, and their kind still applies.
            scope = current.scope
            facts = self.store.scope_facts(pending, scope.descendants_of, settled_ids=[*scope.node_ids, *scope.group_ids],
                                           settled_groups=scope.group_ids)
            for node_id in pending:
                fact = facts.get(node_id)
                if fact is None:
                    raise NodeNotFound(node_id)
                if not current.allows_kind(fact.kind):
                    raise GrantDenied("kind_not_granted", f"changing {fact.kind} nodes is not in this grant")
            check_scope(self.store, current.scope, existing, created=usage.created_ids, facts=facts)
        return self._authority.issue(action_id, mutations, grant_id=current.id)

    def port(self, grant: Grant | str | None) -> BridgePort:
        """What a tool or skill acting under ``grant`` gets: submit under it (or narrower), read the canvas."""
        with _PORTS_OPENING:
            if self._ports is None:
                self._ports = _Ports(self)
        return self._ports.open(grant.id if isinstance(grant, Grant) else grant)

    def close(self) -> None:
        """Stop serving the ports handed out (their calls raise ``DeskClosed`` after this) and running skills."""
        if self._ports is not None:
            self._ports.close()
        if self._skills is not None:
            self._skills[1].close()

    def _run_skill(self, spec: Any, ctx: ToolContext, args: Any, subgraph: SubgraphRun | None = None) -> ToolResult:
        """Run a skill on a thread whose stack, context variables and progress callback hold nothing of the bridge.

        The skill's tool function runs on the skill desk's thread with empty context variables (its graph is a
        run of its own, not nested in the turn's, whose loop holds the turn's graph nodes), and its progress
        callback goes through the port desk (the turn's stream writer leads to the turn's loop too).  Run as the
        supervisor's graph node for the skill (``subgraph``), its graph joins the turn's stream as that node's
        subgraph through a relay on the port desk, never the stream itself, and checkpoints under that node's
        namespace through another, never the checkpointer itself (``nodes/subgraph.py``).
        """
        with _PORTS_OPENING:
            if self._skills is None:
                runner = _SkillRunner()
                self._skills = (runner, Desk(runner, {"run"}, name="skill", fresh_context=True))
            if self._ports is None:
                self._ports = _Ports(self)
        lent: list[str] = []
        if ctx.progress is not None:
            said = self._ports.lend(ctx.progress)
            lent.append(said.token)
            ctx = dataclasses.replace(ctx, progress=said)
        if subgraph is not None:
            relay = saver = None
            if subgraph.stream is not None:
                relay = self._ports.lend(subgraph.stream)
                lent.append(relay.token)
            if subgraph.checkpointer is not None and subgraph.thread_id and subgraph.namespace:
                served = self._ports.lend_saver(subgraph.checkpointer, subgraph.thread_id, subgraph.namespace)
                lent.append(served.token)
                saver = LentSaver(served)
            subgraph = subgraph.relayed(relay, saver)
            ctx = dataclasses.replace(ctx, services={**ctx.services, "subgraph": subgraph})
        try:
            return self._skills[1].handle().call("run", spec.run, ctx, args)
        finally:
            for token in lent:
                self._ports.forget(token)

    # -- execution and commit ------------------------------------------------------------
    def _preflight(self, spec: Any, ctx: ToolContext) -> None:
        """Run the preflight of the tool and of every tool it requires (a skill's needs): what this machine lacks
        (Chromium for a page build) fails the call before it runs, so a skill that commits as it goes writes
        nothing instead of half a page."""
        for needed in (spec, *(self.registry.get(name) for name in sorted(spec.requires))):
            if needed is not None and needed.preflight is not None:
                needed.preflight(ctx)

    def context(self, **kwargs: Any) -> ToolContext:
        """A tool context for this project (read-only canvas, artifacts, workspace, services)."""
        return self._context_factory(**kwargs)

    def execute(self, action: Any, ctx: ToolContext, subgraph: SubgraphRun | None = None) -> ToolResult:
        """Run an allowed action.  Tool failures become observations the model sees, not crashes.

        ``subgraph``: where a skill's graph runs in the supervisor's run, when a skill's own graph node runs it.
        """
        match action:
            case ToolCall():
                spec = self.registry.get(action.tool)
                assert spec is not None, "validated tool calls name registered tools"
                args = spec.args_schema.model_validate(action.args)
                try:
                    self._preflight(spec, ctx)
                    if spec.family == ToolFamily.SKILL:
                        return self._run_skill(spec, ctx, args, subgraph)
                    return spec.run(ctx, args)
                except (ToolError, CanvasError, ValidationError) as error:
                    if is_engine_outage(error):
                        raise  # the engine's, not the tool's: the turn stops, and a resume runs the step again
                    # The error's type lets the CLI tell "busy, try again" (QueryBusy) from a failure.  A
                    # ValidationError here is the tool's own: canvas data (inputs anyone may have edited) that
                    # does not fit what it rebuilds; the step fails and the model sees why, nothing is written.
                    observation = {"error": str(error), "tool": action.tool, "error_type": type(error).__name__}
                    if getattr(error, "refused", None):  # a sub-action the bridge refused (skills.base)
                        observation["refused"] = error.refused
                    return ToolResult(observation=observation)
            case Evaluation():
                spec = self.registry.get(EVALUATOR_TOOL)
                assert spec is not None
                args = spec.args_schema.model_validate({"node_id": action.node_id, "criteria": action.criteria})
                return spec.run(ctx, args)
            case CanvasMutation():
                return ToolResult(observation={"mutations": len(action.mutations)}, mutations=list(action.mutations))
            case Reply():
                return ToolResult(observation={"reply": action.text})
            case Clarification():
                return ToolResult(observation={"question": action.question})
        raise TypeError(f"cannot execute {action!r}")

    def commit(
        self, mutations: list[Any], ticket: WriteTicket, *, thread_id: str, action_id: str, actor: str,
        observation: dict[str, Any] | None = None,
    ) -> CommitRecord:
        """Apply mutations with their ticket; idempotent by (thread, action id)."""
        return self.store.apply(
            mutations, ticket=ticket, idempotency_key=f"{thread_id}:{action_id}", actor=actor,
            thread_id=thread_id, action_id=action_id, observation=observation,
        )

    def commit_turn_record(self, turn: RecordTurn) -> CommitRecord:
        """The bridge's own bookkeeping: a finished turn's Turn node, written under any grant."""
        action_id = f"{turn.turn_id}-record"
        ticket = self._authority.issue(action_id, [turn], grant_id="system")
        return self.commit([turn], ticket, thread_id=turn.thread_id, action_id=action_id, actor="system")

    def submit(
        self,
        action: Any,
        grant: Grant,
        usage: Usage,
        *,
        thread_id: str,
        turn_id: str | None = None,
        approve: Callable[[Any, NeedsApproval], bool] | None = None,
    ) -> SubmitResult:
        """Validate, run and commit one action in a single call (skills, subagents, the web canvas).

        An action submitted outside a turn is its own turn (``turn_id`` defaults to its action id): what it
        makes is then recognisably its own, e.g. an exploration's parallel candidates are its alternatives,
        not versions another turn made (``tools.versions.require_head``).
        """
        turn_id = turn_id or action.action_id
        verdict = self.validate(action, grant, usage)
        if isinstance(verdict, NeedsApproval):
            if approve is None:
                raise ApprovalRequired(verdict.reason)
            if not approve(action, verdict):
                return SubmitResult(action_id=action.action_id, verdict="rejected_by_person", message=verdict.reason)
            verdict = Allow()
        if isinstance(verdict, Reject):
            usage.rejections_in_row += 1
            return SubmitResult(action_id=action.action_id, verdict="reject", message=verdict.message,
                                reason=verdict.reason)
        usage.rejections_in_row = 0
        previous = self.store.commit_for_key(f"{thread_id}:{action.action_id}")
        if previous is not None:  # a resumed run: the work is already on the canvas
            usage.created_ids.extend(i for i in previous.node_ids if i not in usage.created_ids)
            return SubmitResult(action_id=action.action_id, verdict="allow", observation=previous.observation,
                                commit=previous)
        ctx = self.context(actor=action.actor, thread_id=thread_id, turn_id=turn_id, usage=usage, grant_id=grant.id,
                           action_id=action.action_id)
        result = self.execute(action, ctx)
        self.account(action, result, usage)
        commit = None
        if result.mutations:
            try:
                ticket = verdict.ticket if isinstance(action, CanvasMutation) and verdict.ticket else self.authorize(
                    action.action_id, result.mutations, grant, usage)
            except CanvasError as denied:  # outside the grant, or not a batch the canvas can take
                if is_engine_outage(denied):
                    raise
                return SubmitResult(action_id=action.action_id, verdict="reject", message=str(denied),
                                    reason=getattr(denied, "reason", None) or type(denied).__name__,
                                    observation=self.taken_back(result.observation, result.mutations, ctx))
            try:
                commit = self.commit(result.mutations, ticket, thread_id=thread_id, action_id=action.action_id,
                                     actor=action.actor, observation=result.observation)
            except CanvasError as refused:  # the store refused the batch as a whole: nothing was written
                if is_engine_outage(refused):
                    raise
                return SubmitResult(action_id=action.action_id, verdict="reject", message=str(refused),
                                    reason=type(refused).__name__,
                                    observation=self.taken_back(result.observation, result.mutations, ctx))
            usage.created_ids.extend(m.id for m in result.mutations if isinstance(m, CreateNode))
            usage.committed_version = commit.canvas_version
        return SubmitResult(action_id=action.action_id, verdict="allow", observation=result.observation,
                            commit=commit, provider_calls=result.provider_calls, cache_hits=result.cache_hits)

    def taken_back(self, observation: dict[str, Any], mutations: list[Any],
                   ctx: ToolContext | None = None) -> dict[str, Any]:
        """Undo the workspace writes of a step whose batch was refused; the observation says which.

        A tool that writes files (``write_file``) writes them as it runs, before its batch is checked and
        committed; a refused batch would leave files no canvas node points at.
        """
        ctx = ctx or self.context()
        changed = take_back_refused(ctx.workspace, ctx.artifacts, list(mutations))
        return {**(observation or {}), "taken_back": changed} if changed else observation

    def account(self, action: Any, result: ToolResult, usage: Usage) -> None:
        """Count what an executed action spent against the grant's budgets."""
        if isinstance(action, (ToolCall, Evaluation)):
            usage.tool_calls += 1
            spec = self.registry.get(action.tool if isinstance(action, ToolCall) else EVALUATOR_TOOL)
            # A skill's own generation calls are counted as its steps run; don't count the skill itself.
            if spec is not None and Effect.GENERATES_MEDIA in spec.effects and spec.family != ToolFamily.SKILL:
                usage.generation_calls += 1


class _Ports:
    """The far side of every :class:`~nodes.ports.BridgePort` of one bridge, served by its port desk.

    Each port holds a random token and a handle to the desk; which root grant a token stands for is kept
    here, so a port cannot claim another root, and a token nobody was given stands for nothing.
    """

    def __init__(self, bridge: Bridge) -> None:
        self._bridge = bridge
        self._roots: dict[str, str | None] = {}
        self._progress: dict[str, Callable[[Any], None]] = {}
        self._savers: dict[str, tuple[Any, str, str]] = {}
        self._desk = Desk(self, {"root", "grant", "narrow", "has_tool", "submit", "say", "checkpoint"},
                          name="bridge-port")

    def open(self, root: str | None) -> BridgePort:
        token = secrets.token_urlsafe(18)
        self._roots[token] = root
        port = BridgePort(self._desk.handle(), token, ReadOnlyCanvas(self._bridge.store))
        weakref.finalize(port, self._roots.pop, token, None)
        return port

    def close(self) -> None:
        self._desk.close()

    def lend(self, callback: Callable[[Any], None]) -> _Progress:
        """A callable that reaches ``callback`` through the desk (it holds a token only): a skill's progress
        callback, or the relay of a turn's stream to the skill graph running as its subgraph."""
        token = secrets.token_urlsafe(18)
        self._progress[token] = callback
        return _Progress(self._desk.handle(), token)

    def lend_saver(self, saver: Any, thread_id: str, namespace: str) -> _SaverCalls:
        """What a skill's graph checkpoints through: ``saver`` (the turn's checkpointer) for ``thread_id`` and
        ``namespace`` (the skill's graph node task) and the namespaces under it, behind the desk."""
        token = secrets.token_urlsafe(18)
        self._savers[token] = (saver, thread_id, namespace)
        return _SaverCalls(self._desk.handle(), token)

    def forget(self, token: str) -> None:
        self._progress.pop(token, None)
        self._savers.pop(token, None)

    def checkpoint(self, token: str, method: str, config: Any, *args: Any, **kwargs: Any) -> Any:
        """One checkpointer call of a skill's graph, kept to its thread and namespace; the saver sees only the
        three keys that address a checkpoint, whatever else the skill's config holds."""
        try:
            saver, thread_id, namespace = self._savers[token]
        except KeyError:
            raise GrantDenied("grant_not_held", "this checkpointer was not lent by the bridge") from None
        if method == "get_next_version":
            return saver.get_next_version(*args)
        if method not in {"get_tuple", "list", "put", "put_writes"}:
            raise GrantDenied("not_granted", f"a skill's checkpointer has no {method}")
        config = _own_checkpoint(config, thread_id, namespace)
        if kwargs.get("before") is not None:
            kwargs["before"] = _own_checkpoint(kwargs["before"], thread_id, namespace)
        if method == "list":
            return list(saver.list(config, **kwargs))
        return getattr(saver, method)(config, *args, **kwargs)

    def say(self, token: str, message: Any) -> None:
        progress = self._progress.get(token)
        if progress is not None:
            progress(message)

    def root(self, token: str) -> str | None:
        try:
            return self._roots[token]
        except KeyError:
            raise GrantDenied("grant_not_held", "this port was not handed out by the bridge") from None

    def grant(self, token: str, grant_id: str) -> Grant:
        root = self.root(token)
        grants = self._bridge.grants
        try:
            stored = grants.get(grant_id)
        except KeyError:
            raise GrantDenied("unknown_grant", f"there is no stored grant {grant_id}") from None
        chain, current = 0, stored
        while current.id != root:
            if current.parent_id is None or chain >= _MAX_GRANT_DEPTH:
                raise GrantDenied("grant_not_held", f"grant {grant_id} is not held by this port (root {root})")
            current = grants.get(current.parent_id)
            chain += 1
        return stored

    def narrow(self, token: str, grant_id: str, *, actor: str, tools: list[str] | None = None,
               node_kinds: list[str] | None = None, scope: Any = None, budget: Any = None) -> Grant:
        parent = self.grant(token, grant_id)
        child = parent.narrow(actor=actor, tools=tools, node_kinds=node_kinds, scope=scope, budget=budget)
        return self._bridge.grants.save(child)

    def has_tool(self, name: str) -> bool:
        return self._bridge.registry.get(name) is not None and self._bridge.manifest.tool(name) is not None

    def submit(self, token: str, action: Any, grant_id: str, usage: Usage, *, thread_id: str,
               turn_id: str | None = None) -> SubmitResult:
        try:
            held = self.grant(token, grant_id)
        except GrantDenied as denied:
            return SubmitResult(action_id=action.action_id, verdict="reject", message=str(denied),
                                reason=denied.reason)
        return self._bridge.submit(action, held, usage, thread_id=thread_id, turn_id=turn_id)


class _Progress:
    """A skill's progress callback (or stream relay): a token and a handle to the port desk, which holds the real
    one."""

    __slots__ = ("_handle", "token")

    def __init__(self, handle: Handle, token: str) -> None:
        self._handle = handle
        self.token = token

    def __call__(self, message: Any) -> None:
        self._handle.call("say", self.token, message)


class _SaverCalls:
    """A skill graph's checkpointer calls (``nodes.subgraph.LentSaver``): a token and a handle to the port desk,
    which holds the turn's checkpointer."""

    __slots__ = ("_handle", "token")

    def __init__(self, handle: Handle, token: str) -> None:
        self._handle = handle
        self.token = token

    def __call__(self, method: str, config: Any, *args: Any, **kwargs: Any) -> Any:
        return self._handle.call("checkpoint", self.token, method, config, *args, **kwargs)


def _own_checkpoint(config: Any, thread_id: str, namespace: str) -> dict[str, Any]:
    """``config`` reduced to the address of a checkpoint, refused unless it is ``thread_id``'s, in ``namespace`` or
    under it: a skill's graph reads and writes its own checkpoints, never the loop's."""
    configurable = (config or {}).get("configurable") or {}
    ns = str(configurable.get("checkpoint_ns") or "")
    if str(configurable.get("thread_id") or "") != thread_id or not (ns == namespace or
                                                                       ns.startswith(namespace + "|")):
        raise GrantDenied("scope_exceeded", f"a skill's graph keeps its checkpoints under {namespace!r} of its "
                                            f"own thread, not under {ns!r}")
    address = {"thread_id": thread_id, "checkpoint_ns": ns}
    if configurable.get("checkpoint_id"):
        address["checkpoint_id"] = str(configurable["checkpoint_id"])
    return {"configurable": address}


class _SkillRunner:
    """Runs a skill's tool function (``skills.registry.run_skill_tool``) on the skill desk's thread."""

    def run(self, run: Callable[[ToolContext, Any], ToolResult], ctx: ToolContext, args: Any) -> ToolResult:
        return run(ctx, args)


_PORTS_OPENING = threading.Lock()


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


__all__ = ["Bridge", "SubmitResult", "Usage", "referenced_edge_ids", "referenced_node_ids"]
