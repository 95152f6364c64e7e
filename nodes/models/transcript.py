"""The chat-history baseline's offline planner: the same playbooks, finding targets in its transcript only.

:class:`TranscriptPlanner` is the offline planner (:class:`nodes.models.offline.OfflinePlanner`) with two
differences, and only these:

* it reads a *transcript* (every message of the thread: the person's requests, its own tool calls and their
  results, its replies) instead of a canvas view plus this turn's calls;
* its playbooks find "shot 7", its current image, what was made from it, what is stale and the current web
  page through :class:`TranscriptTargets`, which replays the tool results in the transcript (a storyboard's
  ``shot_ids`` in story order, ``reference_images``' ``image_ids`` per shot, ``regenerate_stale``'s
  old → new ids, ``mark_stale``'s returned ids, ...).  It never queries the canvas.

What the transcript does not say, it does not guess: a shot made through the web canvas or on another thread
is not in the transcript, so the edit becomes a ``not_found`` question, exactly as a missing shot does for the
canvas agent.  Values it never saw (the lighting a storyboard chose for a shot, an exposure changed by a
person) are taken as the renderer's defaults; ``docs/evaluation.md`` (the chat-history baseline) lists these limits.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from nodes.models.offline import OfflinePlanner
from nodes.models.planner_playbooks import default_playbooks
from nodes.models.playbooks import ANSWER_PREFIX, Call, PlannerInput, PriorCall
from nodes.models.targets import Rows
from nodes.understanding.facts import CanvasFacts, NodeFact, ShotFact
from nodes.understanding.pipeline import interpret

SELECTED_PREFIX = "Selected on the canvas: "
"""How the chat baseline tells its model which node ids the person selected (all a chat agent would see)."""
UNUSABLE_PREFIX = "Your last output could not be used: "
"""How the chat baseline tells its model that its last output was malformed."""
SUMMARY_PREFIX = "Summary of the conversation so far (the messages it covers are no longer shown):\n"
"""How the summarised chat baseline shows its running summary (a system message after the prompt)."""
SUMMARISE_INSTRUCTION = "Write the summary of the conversation above now."
"""The last message of a summarising call (``graphs.chat_context.Summarised``)."""
SUMMARY_NODES = "Nodes I know (JSON):"
"""Where the offline planner's summary lists the nodes its transcript names (what it reads back)."""
_NODE_ID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")


def _shot_number(title: str) -> int | None:
    match = re.fullmatch(r"\s*shot\s+#?(\d+)\s*", title or "", re.IGNORECASE)
    return int(match.group(1)) if match else None


def split_selected(text: str) -> tuple[str, list[str]]:
    """The request and the selected node ids of a human message the chat baseline wrote."""
    head, marker, tail = text.partition("\n\n" + SELECTED_PREFIX)
    return (head, _NODE_ID.findall(tail)) if marker else (text, [])


def read_summary(text: str) -> list[dict[str, Any]]:
    """The nodes a summary written by :meth:`TranscriptPlanner.summarise` lists ([] for any other text)."""
    _, marker, tail = text.partition(SUMMARY_NODES)
    if not marker:
        return []
    try:
        rows = json.loads(tail)
    except json.JSONDecodeError:
        return []
    return [r for r in rows if isinstance(r, dict) and isinstance(r.get("id"), str)] if isinstance(rows, list) else []


def read_transcript(messages: list[BaseMessage]) -> PlannerInput:
    """The latest request, this turn's calls and notes, and every earlier call, from a thread's messages.

    A running summary (a system message starting with :data:`SUMMARY_PREFIX`) is kept in the view as
    ``summary_nodes``: what the summary says exists, replayed before the calls the transcript still shows."""
    request, selected = "", []
    summary: list[dict[str, Any]] = []
    notes: list[str] = []
    calls: list[PriorCall] = []
    history: list[PriorCall] = []
    pending: dict[str, PriorCall] = {}
    for message in messages:
        if isinstance(message, SystemMessage) and str(message.content).startswith(SUMMARY_PREFIX):
            summary = read_summary(str(message.content))
        elif isinstance(message, HumanMessage):
            text = str(message.content)
            if request and text.startswith((ANSWER_PREFIX, UNUSABLE_PREFIX)):
                notes.append(text)
                continue
            history.extend(calls)  # a new request: this turn's calls become history
            calls, notes = [], []
            request, selected = split_selected(text)
        elif isinstance(message, AIMessage):
            for call in message.tool_calls:
                prior = PriorCall(tool=call["name"], args=call["args"], answer={})
                calls.append(prior)
                pending[str(call.get("id"))] = prior
        elif isinstance(message, ToolMessage):
            prior = pending.get(str(message.tool_call_id))
            if prior is not None:
                try:
                    prior.answer = json.loads(str(message.content))
                except json.JSONDecodeError:
                    prior.answer = {"text": str(message.content)}
    view: dict[str, Any] = {"summary_nodes": summary} if summary else {}
    return PlannerInput(request=request, view=view, calls=calls, notes=notes, history=history, selected=selected)


# -- what the transcript says exists ----------------------------------------------------------------------------

@dataclass
class Known:
    """A node the transcript names, with what the transcript says about it."""

    id: str
    kind: str
    title: str
    order: int
    made_from: list[str] = field(default_factory=list)
    inputs: dict[str, Any] = field(default_factory=dict)
    plan: str | None = None
    version: int = 1
    replaced_by: str | None = None
    stale: bool = False
    rejected: bool = False


REPLAYED = frozenset({"skill__storyboard", "skill__reference_images", "skill__video_clips", "assemble_cut",
                      "generate_image", "skill__design_to_web", "skill__web_revise", "skill__slides", "create_node",
                      "set_status", "mark_stale", "regenerate_stale", "repair", "skill__explore"})
"""The tools whose results the transcript planner reads (each has a ``Ledger._<name>`` method)."""


class Ledger:
    """The nodes a transcript's tool results mention, replayed in order (the baseline's only memory)."""

    def __init__(self, calls: list[PriorCall], summary: list[dict[str, Any]] | None = None) -> None:
        self.nodes: dict[str, Known] = {}
        self.page: str | None = None
        for row in summary or []:  # what a running summary says exists comes before the calls still shown
            known = self.add(row["id"], str(row.get("kind") or "unknown"), str(row.get("title") or ""))
            if known is not None:
                known.made_from = [str(m) for m in row.get("made_from") or []]
                known.inputs = dict(row.get("inputs") or {})
                known.plan, known.version = row.get("plan"), int(row.get("version") or 1)
                known.stale = bool(row.get("stale"))
                if known.kind == "code":
                    self.page = known.id
        for call in calls:
            if call.rejected or "error" in call.observation:
                continue
            if call.tool in REPLAYED:  # a fixed table: a tool name is model output, never a method name
                getattr(self, "_" + call.tool.removeprefix("skill__"))(call.args, call.observation, call.answer)

    def add(self, node_id: Any, kind: str, title: str, **facts: Any) -> Known | None:
        """Remember a node (the first mention wins its order)."""
        if not isinstance(node_id, str) or not node_id:
            return None
        known = self.nodes.get(node_id)
        if known is None:
            known = self.nodes[node_id] = Known(id=node_id, kind=kind, title=title, order=len(self.nodes), **facts)
        return known

    def current(self, node_id: str) -> Known | None:
        """The newest version the transcript knows of a node."""
        known, seen = self.nodes.get(node_id), set()
        while known is not None and known.replaced_by and known.id not in seen:
            seen.add(known.id)
            following = self.nodes.get(known.replaced_by)
            if following is None:
                break
            known = following
        return known

    def live(self) -> list[Known]:
        """Nodes that are current (not replaced, not rejected), in the order the transcript met them."""
        return [k for k in self.nodes.values() if not k.replaced_by and not k.rejected]

    def summary_rows(self) -> list[dict[str, Any]]:
        """What a summary keeps: the current nodes (and the storyboards their shots belong to), in order."""
        rows = []
        for k in self.live():
            if k.kind == "unknown" and not k.stale:
                continue
            row: dict[str, Any] = {"id": k.id, "kind": k.kind, "title": k.title}
            row.update({name: value for name, value in (("made_from", k.made_from), ("inputs", k.inputs),
                                                         ("plan", k.plan)) if value})
            if k.version > 1:
                row["version"] = k.version
            if k.stale:
                row["stale"] = True
            rows.append(row)
        return rows

    # -- one method per tool whose results name nodes ------------------------------------------------------
    def _storyboard(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        plan = seen.get("plan_id")
        # Its name is what the agent asked for: a question about two "shot 3"s can say which storyboard is which.
        self.add(plan, "plan", f"storyboard of {args['premise']!r}" if args.get("premise") else "storyboard")
        for ref in ("character_id", "scene_id"):
            self.add(seen.get(ref), "reference", ref.removesuffix("_id"), made_from=[plan])
        for number, shot in enumerate(seen.get("shot_ids") or [], start=1):  # "The shots, in story order."
            self.add(shot, "shot", f"shot {number}", made_from=[plan], plan=plan)

    def _reference_images(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        inputs = {k: args[k] for k in ("lighting", "seed") if args.get(k) is not None}
        for shot_id, image in zip(args.get("shot_ids") or [], seen.get("image_ids") or []):
            shot = self.nodes.get(shot_id)
            title = f"{shot.title} image" if shot else "image"
            self.add(image, "image", title, made_from=[shot_id], inputs=dict(inputs), plan=shot.plan if shot else None)

    def _video_clips(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        for image_id, clip in zip(args.get("image_ids") or [], seen.get("clip_ids") or []):
            image = self.nodes.get(image_id)
            self.add(clip, "video", image.title.replace(" image", " clip") if image else "clip", made_from=[image_id])

    def _assemble_cut(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        self.add(seen.get("node_id"), "video", str(args.get("title") or "cut"),
                 made_from=list(args.get("clip_node_ids") or []))

    def _generate_image(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        self.add(seen.get("node_id"), "image", str(args.get("title") or "image"))

    def _design_to_web(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        self.page = seen.get("code_id") or self.page
        self.add(seen.get("code_id"), "code", "page")
        for image in seen.get("image_ids") or []:
            self.add(image, "image", "page image")
        self.add(seen.get("preview_id"), "image", "page preview")

    def _web_revise(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        self._design_to_web(args, seen, answer)
        if (old := self.nodes.get(str(args.get("code_id")))) is not None and seen.get("code_id"):
            old.replaced_by = seen["code_id"]

    def _slides(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        self.add(seen.get("deck_id"), "deck", "deck")
        self.add(seen.get("illustration_id"), "image", "slide illustration")
        for number, slide in enumerate(seen.get("slide_ids") or [], start=1):
            self.add(slide, "slide", f"slide {number}")

    def _create_node(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        self.add(seen.get("created"), str(args.get("kind") or "node"), str(args.get("title") or ""))

    def _set_status(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        known = self.nodes.get(str(args.get("node_id")))
        if known is not None:
            known.rejected = args.get("status") == "rejected"
            known.stale = args.get("status") == "stale"

    def _mark_stale(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        for node_id in seen.get("stale") or []:  # the tool says what it marked: those ids are now known
            known = self.add(node_id, "unknown", "")
            if known is not None:
                known.stale = True

    def _regenerate_stale(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        overrides = args.get("overrides") or {}
        failed = {e.get("node_id") for e in (answer.get("feedback") or {}).get("evaluations") or []
                  if e.get("passed") is False}
        remap = {r["old"]: r["new"] for r in seen.get("regenerated") or [] if r.get("old") and r.get("new")}
        for old_id, new_id in remap.items():
            old = self.nodes.get(old_id) or self.add(old_id, "unknown", "")
            assert old is not None
            new = self.add(new_id, old.kind, old.title, made_from=[remap.get(m, m) for m in old.made_from],
                           inputs={**old.inputs, **(overrides.get(old_id) or {})}, plan=old.plan,
                           version=old.version + 1)
            if new_id in failed and new is not None:  # failed its check: rejected, the old version restored
                new.rejected = True
                continue
            old.replaced_by, old.stale = new_id, False
        for node_id in (answer.get("repair") or {}).get("restored_stale") or []:
            if (known := self.nodes.get(node_id)) is not None:
                known.stale = True

    def _repair(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        # A repair is the mark and the rebuild in one call: what it rebuilt is known as regenerate_stale's is.
        self._regenerate_stale({"overrides": args.get("changes") or {}}, seen, answer)

    def _explore(self, args: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any]) -> None:
        explored, selected = self.nodes.get(str(seen.get("explored_id"))), seen.get("selected_id")
        if explored is None or not selected:
            return
        self.add(selected, explored.kind, explored.title, made_from=list(explored.made_from), plan=explored.plan,
                 version=explored.version + 1)
        explored.replaced_by = selected
        if seen.get("rebuilt"):  # the skill rebuilt what was made from the explored image (its clip, the cut)
            self._regenerate_stale({}, {"regenerated": seen["rebuilt"]}, {})


# -- the transcript as a target source ------------------------------------------------------------------------

class TranscriptTargets:
    """Targets found by reading earlier tool results in the transcript; never a canvas read.

    Lookups read the transcript as it was when the turn began, as the canvas agent's one query reads the
    canvas at the start of its turn (so an edit's own new versions do not make it "already done"); only
    :meth:`following` also reads this turn's calls, since it asks about what this turn's exploration did.
    """

    where = "in my transcript"
    repairs_in_one_call = True
    """A chat agent gets the same tools as the canvas agent, ``repair`` among them (it reads nothing of the
    canvas: it marks and regenerates the ids it names), so it uses it as the canvas agent does: one call per
    local edit, two with the reply.  The ids it names come from its transcript, which is what is compared."""

    def _ledger(self, p: PlannerInput, *, this_turn: bool = False) -> Ledger:
        return Ledger([*p.history, *(p.calls if this_turn else [])], p.view.get("summary_nodes"))

    def shots(self, p: PlannerInput) -> Call | Rows:
        ledger = self._ledger(p)
        rows = []
        for shot in (k for k in ledger.nodes.values() if k.kind == "shot" and not k.rejected):
            images = [k for k in ledger.live() if k.kind == "image" and shot.id in k.made_from]
            if not images:
                continue
            image = max(images, key=lambda k: (k.version, k.order))
            rows.append({"shot": shot.id, "title": shot.title, "shot_version": shot.version, "created": shot.order,
                         "image": image.id, "version": image.version, "inputs": dict(image.inputs),
                         "plan": shot.plan, "plan_title": getattr(ledger.nodes.get(shot.plan or ""), "title", None)})
        return rows

    def edit_rows(self, p: PlannerInput) -> Call | Rows:
        return self.shots(p)

    def stale(self, p: PlannerInput) -> Call | Rows:
        return [{"id": k.id, "title": k.title, "kind": k.kind} for k in self._ledger(p).live() if k.stale]

    def page(self, p: PlannerInput) -> Call | str | None:
        ledger = self._ledger(p)
        current = ledger.current(ledger.page) if ledger.page else None
        return current.id if current is not None else None

    def following(self, p: PlannerInput, image_id: str) -> Call | Rows:
        ledger = self._ledger(p, this_turn=True)
        image = ledger.nodes.get(image_id)
        shot = next((m for m in (image.made_from if image else []) if getattr(ledger.nodes.get(m), "kind", "") ==
                     "shot"), None)
        derived = [k.id for k in ledger.live() if image_id in k.made_from and k.id != image_id]
        return [{"shot": shot, "derived": d} for d in derived] or [{"shot": shot, "derived": None}]

    def focus(self, p: PlannerInput) -> Rows:
        ledger = self._ledger(p)
        found = [{"id": i, "focus": True} for i in [*p.selected, *p.intent.node_ids]]
        titles = {t.lower() for t in p.intent.titles}
        found += [{"id": k.id, "kind": k.kind, "title": k.title, "focus": True} for k in ledger.live()
                  if k.title.lower() in titles]
        return list({row["id"]: row for row in found}.values())

    def versions(self, p: PlannerInput, shot_id: str) -> Call | Rows | None:
        return None  # a transcript does not keep every version's status

    def last_turn(self, p: PlannerInput, turn_id: str) -> Call | Rows | None:
        return None

    def slides(self, p: PlannerInput) -> Call | Rows | None:
        return [{"id": k.id, "title": k.title, "deck": None, "inputs": {}} for k in self._ledger(p).live()
                if k.kind == "slide"]

    def notes(self, p: PlannerInput) -> Call | Rows | None:
        return [{"id": k.id, "title": k.title, "inputs": dict(k.inputs)} for k in self._ledger(p).live()
                if k.kind == "text"]

    def page_copy(self, p: PlannerInput, code_id: str) -> Call | Rows | None:
        return None

    def cuts(self, p: PlannerInput) -> Call | Rows | None:
        return None  # a cut's later edits (a shot out, a move) are not in the transcript's ledger

    def facts(self, p: PlannerInput) -> CanvasFacts:
        """What the transcript says the project holds, as the interpreter's facts (its references resolve on
        these, exactly as the canvas agent's resolve on the canvas)."""
        ledger = self._ledger(p)
        rows = self.shots(p)
        assert isinstance(rows, list)
        newest: dict[str, dict[str, Any]] = {}
        for row in rows:
            newest.setdefault(row["shot"], row)
        shots = [ShotFact(id=r["shot"], title=r["title"], number=_shot_number(r["title"]), plan=r.get("plan"),
                          plan_title=r.get("plan_title"), image=r["image"], version=r.get("version"),
                          inputs=dict(r.get("inputs") or {})) for r in newest.values()]
        live = ledger.live()
        facts = CanvasFacts(shots=shots, where=self.where,
                            decks=[NodeFact(id=k.id, kind="deck", title=k.title) for k in live if k.kind == "deck"],
                            pages=[NodeFact(id=k.id, kind="code", title=k.title) for k in live if k.kind == "code"])
        for number, known in enumerate((k for k in live if k.kind == "slide"), start=1):
            facts.slides.append(NodeFact(id=known.id, kind="slide", title=known.title, index=number,
                                         group=facts.decks[-1].id if facts.decks else None))
        for node_id in p.selected:
            known = ledger.nodes.get(node_id)
            shot = next((m for m in (known.made_from if known else []) if getattr(ledger.nodes.get(m), "kind", "")
                         == "shot"), None)
            facts.selection.append(NodeFact(id=node_id, kind=known.kind if known else "node",
                                            title=known.title if known else "", shot=shot))
        return facts

    def listing(self, p: PlannerInput, kind: str | None) -> Call | Rows:
        live = [k for k in self._ledger(p).live() if k.kind != "unknown"]
        if kind:
            return [{"id": k.id, "title": k.title, "status": "stale" if k.stale else "completed"}
                    for k in live if k.kind == kind]
        counts: dict[str, int] = {}
        for known in live:
            counts[known.kind] = counts.get(known.kind, 0) + 1
        return [{"kind": k, "count": n} for k, n in sorted(counts.items())]


class TranscriptPlanner(OfflinePlanner):
    """The offline planner of the chat-history baseline: the same grammar and playbooks, its transcript as memory."""

    playbooks: list[Any] = Field(default_factory=lambda: default_playbooks(TranscriptTargets()),
                                 description="The default playbooks, finding targets in the transcript")

    @property
    def _llm_type(self) -> str:
        return "jarvishub-transcript-planner"

    def read(self, messages: list[BaseMessage]) -> PlannerInput:
        """What the planner knows: the transcript, never a canvas view; the request is read by the same
        interpreter as the canvas agent's, its references resolved on what the transcript says exists."""
        from nodes.models.playbooks import clarification_answer

        p = read_transcript(messages)
        source = TranscriptTargets()
        p.view["intent"] = interpret(p.request, source.facts(p), answer=clarification_answer(p)).summary()
        return p

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        if messages and isinstance(messages[-1], HumanMessage) and messages[-1].content == SUMMARISE_INSTRUCTION:
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.summarise(messages[:-1])))])
        return super()._generate(messages, stop, run_manager, **kwargs)

    def summarise(self, messages: list[BaseMessage]) -> str:
        """The running summary of these messages (a previous summary among them included), as this planner
        writes it: the requests it was given, then every node the messages still show as current, with what it
        knows of each.  Deterministic, and exactly what its ledger would know: the offline summariser forgets
        replaced and rejected versions, nothing current."""
        p = read_transcript(messages)
        requests = [str(m.content).partition("\n\n")[0] for m in messages if isinstance(m, HumanMessage)
                    and not str(m.content).startswith((ANSWER_PREFIX, UNUSABLE_PREFIX))]
        ledger = Ledger([*p.history, *p.calls], p.view.get("summary_nodes"))
        lines = [f"Requests summarised: {len(requests)}" + (f"; the last: {requests[-1]!r}" if requests else ""),
                 SUMMARY_NODES + json.dumps(ledger.summary_rows(), separators=(",", ":"))]
        return "\n".join(lines)
