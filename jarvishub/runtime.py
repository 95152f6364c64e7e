"""The runtime: a project with its tools, manifest, bridge and supervisor graph, ready to run turns.

``Runtime.run`` starts or resumes a turn on a thread and returns a
:class:`TurnOutcome`; an interrupt (approval, clarification, feedback) comes
back as ``outcome="interrupted"`` with the question, and ``Runtime.resume``
answers it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.types import Command
from pydantic import BaseModel, Field

from graphs.checkpointer import open_checkpointer
from graphs.supervisor import build_supervisor
from jarvishub.project import Project
from nodes.bridge import Bridge, Usage
from nodes.context import TurnContext
from nodes.grant import Grant, GrantStore, grant_profiles
from nodes.manifest import Manifest, SkillInfo, build_manifest
from nodes.models.factory import chat_model
from nodes.policy import default_grant
from nodes.understanding.intent import Intent
from nodes.understanding.facts import CanvasFacts, KeptFacts
from nodes.understanding.turn import understand, understand_on
from skills.base import Skill
from skills.catalog import project_tools
from store.memory import ProjectMemory
from store.models import new_id
from store.trajectories import TrajectoryStore
from tools.base import ToolContext, ToolSpec
from tools.native.kept_browser import KeptBrowser
from tools.native.settings import native_settings
from tools.reader import read_only
from tools.registry import ToolRegistry


DURABILITY = "sync"
"""Each step's checkpoint is written before the next step starts, not on LangGraph's background thread (its
default, "async").  A killed process then resumes from its last finished step, never from a step whose checkpoint
was still queued; and it is faster here, not slower: the background writer's serialisation took the GIL from the
turn's own I/O (a Bolt reply or an SQLite read waits for it), which made a note turn 53.6 ms against 48.6 ms
(medians of 15 alternated turns, 1k-node canvas; ``bench/turn.py``)."""

class TurnOutcome(BaseModel):
    """How a turn ended (or paused)."""

    thread_id: str
    turn_id: str
    outcome: str = Field(description="replied, clarification, failed, interrupted, budget, revoked, step_budget")
    reply: str | None = None
    clarification: dict[str, Any] | None = Field(
        default=None, description="With outcome 'clarification' (or an interrupt asking one): reason "
        "(unparsed, no_target, not_found, ambiguous, conflict), what was understood, what can be done")
    interrupt: dict[str, Any] | None = None
    canvas_before: int = 0
    canvas_after: int = 0
    steps: list[dict[str, Any]] = Field(default_factory=list)
    grant_id: str = ""
    intent: dict[str, Any] | None = Field(default=None, description="The turn's interpreted request "
                                          "(nodes.understanding.Intent, as JSON).")
    measured: dict[str, Any] | None = Field(
        default=None, description="The turn's measured change set against its intent (nodes.understanding.measure): "
        "changed outputs, expected, missing, unexpected; 'matches' False means the turn did not do what was asked")

    @property
    def provider_calls(self) -> int:
        """Provider calls this turn made (cache hits excluded)."""
        return sum(int(s.get("provider_calls") or 0) for s in self.steps)


def kept_browser(project: Project) -> KeptBrowser:
    """The runtime's Chromium for page renders, able to read the project's workspace and artifacts."""
    settings = native_settings(project.settings)
    return KeptBrowser(settings.chromium, settings.browser_timeout_s,
                       roots=[project.workspace, project.artifacts.root])


class Runtime:
    """Everything a project needs to run agent turns."""

    def __init__(
        self,
        project: Project,
        *,
        model: BaseChatModel | None = None,
        extra_tools: list[ToolSpec] | None = None,
        evaluate_generations: bool = True,
        ask_person_for_feedback: bool = False,
        max_steps: int = 40,
        services: dict[str, Any] | None = None,
        keep_browser: bool = False,
    ) -> None:
        self.project = project
        self.services: dict[str, Any] = dict(services or {})
        tools, services_built, skills = project_tools(project)
        self.memory = ProjectMemory.open(project.state_dir, project.settings.checkpoint_url)
        services_built["memory"] = self.memory
        services_built["turn_extra"] = {**services_built.get("turn_extra", {}),
                                        "memory_lines": self.memory.memory_lines}
        self.services = {**services_built, **self.services}
        self._kept_browser: KeptBrowser | None = None
        if keep_browser and "browser" not in self.services:
            # One Chromium for all the runtime's page renders (launched on the first), for an embedding process
            # that lives long and always ends by closing its runtime.  Off by default: a browser killed with its
            # process (an evaluation job stopped, a server killed) leaves its profile folder behind, which the
            # suite's leak check found twice, so the CLI and the web canvas launch one per render as before.
            self._kept_browser = self.services["browser"] = kept_browser(project)
        self.registry = ToolRegistry([*tools, *(extra_tools or [])])
        self.skills: list[SkillInfo] = skills
        self.manifest: Manifest = build_manifest(project.store.kinds, self.registry, skills)
        self.grants = GrantStore(project.state_dir / "grants.sqlite")
        self.trajectories = TrajectoryStore(project.state_dir / "trajectories.sqlite")
        self._kept_facts = KeptFacts()  # a turn's start reads the shots, decks and pages only when they may have moved
        self.bridge = Bridge(project.store, self.registry, self.manifest, self.grants, self._tool_context)
        self.model = model or chat_model(project.settings)
        self.turn_context = TurnContext(
            bridge=self.bridge, model=self.model, trajectories=self.trajectories, start_turn=self.start_state,
            max_steps=max_steps, evaluate_generations=evaluate_generations,
            ask_person_for_feedback=ask_person_for_feedback, extra=self.services.get("turn_extra", {}))
        self.checkpointer, self._checkpoint_handle = open_checkpointer(
            project.checkpoint_path, project.settings.checkpoint_url)
        self.graph = self.build_graph()

    def build_graph(self):
        """The compiled turn graph this runtime drives, the one LangGraph's server runs (``graphs/supervisor.py``),
        with a graph node per skill (the chat baseline, ``jarvishub.chat_runtime``, swaps it)."""
        return build_supervisor(self.skill_graphs(), self.checkpointer)

    def skill_graphs(self) -> list[Skill]:
        """The project's skills, each a graph node of the supervisor (its graph the node's subgraph)."""
        skills = self.services.get("skills") or {}
        return [skills[info.name] for info in self.skills if info.name in skills]

    # -- tools see this ----------------------------------------------------------------
    def _tool_context(self, *, actor: str = "agent", thread_id: str | None = None, turn_id: str | None = None,
                      usage: Usage | None = None, grant_id: str | None = None,
                      action_id: str | None = None,
                      progress: Callable[[str], None] | None = None) -> ToolContext:
        """A tool's context: a canvas reader and a bridge port bound to its grant, never the store or the bridge."""
        services = {**self.services, "bridge": self.bridge.port(grant_id), "tool_registry": self.registry,
                    "usage": usage, "grant_id": grant_id, "action_id": action_id}
        return ToolContext(artifacts=self.project.artifacts, workspace=self.project.workspace,
                           canvas=read_only(self.project.store), settings=self.project.settings, thread_id=thread_id,
                           turn_id=turn_id, actor=actor, services=services, progress=progress)

    # -- grants --------------------------------------------------------------------------
    def understand(self, request: str, *, selected: list[str] | None = None, thread_id: str | None = None,
                   answer: str | None = None) -> Intent:
        """The request interpreted on this project's canvas (``nodes.understanding``): once per turn."""
        return understand(self.project.store, request, selected or [], log=self.trajectories, thread_id=thread_id,
                          answer=answer, skills=self.manifest.skills)

    def grant_for(self, request: str, *, profile: str | None = None, grant: Grant | None = None,
                  selected: list[str] | None = None, intent: Intent | None = None) -> Grant:
        """The grant of a turn: explicit, a named profile from the project file, or the default policy."""
        return self.grants.save(self.derive_grant(request, profile=profile, grant=grant, selected=selected,
                                                  intent=intent))

    def derive_grant(self, request: str, *, profile: str | None = None, grant: Grant | None = None,
                     selected: list[str] | None = None, intent: Intent | None = None) -> Grant:
        """The grant :meth:`grant_for` saves, not yet saved (so a runtime can narrow it first); the default
        policy reads the turn's intent (interpreted here when the caller has none yet)."""
        if grant is None and profile:
            profiles = grant_profiles(self.project.settings.project)
            if profile not in profiles:
                raise KeyError(f"no grant profile {profile!r}; the project file defines: {', '.join(profiles) or 'none'}")
            grant = profiles[profile].model_copy(update={"id": new_id()})
        if grant is None:
            intent = intent or self.understand(request, selected=selected)
            grant = default_grant(self.manifest, intent, selected or [])
        budget_usd = getattr(self.project.settings, "budget_usd", None)
        if grant.budget.cost_usd is None and budget_usd is not None:  # JARVISHUB_BUDGET_USD: a cap on every turn
            grant = grant.model_copy(update={"budget": grant.budget.model_copy(update={"cost_usd": budget_usd})})
        return grant

    # -- turns --------------------------------------------------------------------------------
    def run(self, request: str, *, thread_id: str | None = None, grant: Grant | None = None,
            profile: str | None = None, selected: list[str] | None = None,
            on_event: Callable[[str, dict[str, Any]], None] | None = None,
            on_started: Callable[[dict[str, Any]], None] | None = None) -> TurnOutcome:
        """Run one turn of the supervisor on a thread (a new thread when None).

        ``on_started`` is called once the turn's start is recorded, so ``resume`` can take it up from there: the
        CLI names the thread only then.
        """
        state, facts = self._started(request, thread_id=thread_id, grant=grant, profile=profile, selected=selected)
        if on_started is not None:
            on_started(state)
        return self._drive(state, state["thread_id"], on_event, start=state, fresh=True, facts=facts)

    def start_state(self, request: str, *, thread_id: str | None = None, grant: Grant | None = None,
                    profile: str | None = None, selected: list[str] | None = None) -> dict[str, Any]:
        """The first state of a turn: its ids, its intent (the request interpreted once) and its saved grant;
        the turn's start is recorded.

        Shared by :meth:`run` and the supervisor's ``begin`` graph node (LangGraph's server, the SDK), so a turn
        started through either gets the same grant and the same trajectory.
        """
        return self._started(request, thread_id=thread_id, grant=grant, profile=profile, selected=selected)[0]

    def _started(self, request: str, *, thread_id: str | None, grant: Grant | None, profile: str | None,
                 selected: list[str] | None) -> tuple[dict[str, Any], CanvasFacts]:
        """:meth:`start_state`, with the facts the request was read against (:meth:`run` hands them to the
        turn's first view, which reuses them while the canvas has not moved)."""
        facts = self._kept_facts.read(self.project.store, selected or [])
        intent = understand_on(facts, self.project.store, request, log=self.trajectories, thread_id=thread_id,
                               skills=self.manifest.skills)
        thread_id = thread_id or new_id()
        turn_id = new_id()
        granted = self.grant_for(request, profile=profile, grant=grant, selected=selected, intent=intent)
        state = {"request": request, "thread_id": thread_id, "turn_id": turn_id, "grant_id": granted.id,
                 "selected_ids": selected or [], "usage": Usage().model_dump(), "done": False,
                 "intent": intent.summary()}
        self.trajectories.record_start(thread_id, turn_id, state)
        return state, facts

    def resume(self, thread_id: str, answer: Any = None,
               on_event: Callable[[str, dict[str, Any]], None] | None = None) -> TurnOutcome:
        """Continue a paused or crashed turn: answer its interrupt, or just pick up where it stopped."""
        snapshot = self.graph.get_state(self._config(thread_id))
        if not snapshot.values or snapshot.next == ("begin",):
            # Killed before the turn's start was checkpointed: start the same turn again from how it began.
            start = self.trajectories.last_start(thread_id)
            if start is not None and start.get("turn_id") == snapshot.values.get("turn_id"):
                start = None  # an earlier turn's start: begin starts the one the input asks for
            if start is None and not snapshot.values:
                raise KeyError(f"no turn was started on thread {thread_id}")
            return self._drive(None if snapshot.values else start, thread_id, on_event, start=start)
        payload: Any = Command(resume=answer) if snapshot.interrupts else None
        return self._drive(payload, thread_id, on_event)

    def pending(self, thread_id: str) -> dict[str, Any] | None:
        """The interrupt a thread is waiting on, if any."""
        snapshot = self.graph.get_state(self._config(thread_id))
        return snapshot.interrupts[0].value if snapshot.interrupts else None

    def _config(self, thread_id: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": thread_id}, "recursion_limit": 1000}

    def _drive(self, payload: Any, thread_id: str, on_event: Callable[[str, dict[str, Any]], None] | None,
               start: dict[str, Any] | None = None, fresh: bool = False,
               facts: CanvasFacts | None = None) -> TurnOutcome:
        if on_event is None:
            # No one reads the events: no custom or subgraph stream, for which LangGraph runs every graph node on a
            # worker thread so as to hand out events while it runs (about 8 ms of CPU time of a note turn's 70,
            # bench/turn.py; a skill's graph then keeps its checkpoints and sends no events).
            for _ in self.graph.stream(payload, self._config(thread_id), context=self._context(start, fresh, facts),
                                       stream_mode="updates", durability=DURABILITY):
                pass
        else:
            for event in self.stream(payload, thread_id, start=start, fresh=fresh, facts=facts):
                on_event(*event)
        snapshot = self.graph.get_state(self._config(thread_id))
        values = snapshot.values
        outcome = TurnOutcome(
            thread_id=thread_id, turn_id=values.get("turn_id", ""), grant_id=values.get("grant_id", ""),
            outcome=values.get("outcome") or ("interrupted" if snapshot.interrupts else "unfinished"),
            reply=values.get("reply"), canvas_before=values.get("canvas_before", 0),
            # A recorded turn says where it left the canvas; an unfinished one is asked of the store.
            canvas_after=(values["canvas_after"] if values.get("canvas_after") is not None
                          else self.project.store.canvas_version()),
            steps=values.get("steps") or [],
            clarification=values.get("clarification") if values.get("outcome") == "clarification" else None,
            intent=values.get("intent"), measured=values.get("measured"),
        )
        if snapshot.interrupts:
            outcome.outcome = "interrupted"
            outcome.interrupt = snapshot.interrupts[0].value
            if isinstance(outcome.interrupt, dict) and outcome.interrupt.get("type") == "clarification":
                outcome.clarification = outcome.interrupt
        return outcome

    def stream(self, payload: Any, thread_id: str, *, start: dict[str, Any] | None = None, fresh: bool = False,
               facts: CanvasFacts | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
        """Graph progress as (kind, data) events: node updates and custom progress events.

        A skill's inner steps come as node events too, named as ``get_graph(xray=True)`` draws them
        (``skill__storyboard:shots``), with the subgraph's ``namespace``.  ``start``: a turn started already
        (:meth:`start_state`), which the ``begin`` graph node takes as it is; ``fresh``: started by this call, so
        none of its actions has run before (``TurnContext.fresh``); ``facts``: what the start read the request
        against (``TurnContext.facts``).
        """
        for namespace, mode, data in self.graph.stream(payload, self._config(thread_id),
                                                       context=self._context(start, fresh, facts),
                                                       stream_mode=["updates", "custom"], subgraphs=True,
                                                       durability=DURABILITY):
            if mode == "updates":
                prefix = "".join(part.split(":")[0] + ":" for part in namespace)
                for node, update in (data or {}).items():
                    yield "node", {"node": prefix + node, "update": update if isinstance(update, dict) else {},
                                   **({"namespace": list(namespace)} if namespace else {})}
            else:
                yield "progress", data if isinstance(data, dict) else {"message": str(data)}

    def _context(self, start: dict[str, Any] | None, fresh: bool, facts: CanvasFacts | None = None) -> TurnContext:
        """The run's services: the turn's context, with the start its caller made (``stream``) and the facts it
        read."""
        return dataclasses.replace(self.turn_context, start=start, fresh=fresh, facts=facts) if start is not None \
            else self.turn_context

    def close(self) -> None:
        """Close the checkpointer, memory and the kept browser (the project is closed by its owner)."""
        if self._kept_browser is not None:
            self._kept_browser.close()
        if hasattr(self.memory, "close"):
            self.memory.close()
        self.grants.close()
        self.trajectories.close()
        handle = self._checkpoint_handle
        if hasattr(handle, "close"):
            handle.close()
        elif hasattr(handle, "__exit__"):
            handle.__exit__(None, None, None)
