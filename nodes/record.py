"""record: append this step to the trajectory; at the end of the turn write the turn's tuple.

The turn tuple τ_t = (request, canvas-before, manifest, grant, actions, observations,
feedback, repair, canvas-after) goes to the project's trajectory store and, as a
``(:Turn)`` node with ``TOUCHED`` edges, into the canvas graph itself.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nodes.context_size import ModelInput
from nodes.context import TurnContext, turn_context
from nodes.state import TurnState, made_this_turn
from store.models import utc_now
from store.mutations import RecordTurn
from tools.base import Effect


def record(state: TurnState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """Append the step to the trajectory; when the turn is done, measure and record it."""
    deps = turn_context(runtime)
    index = state.get("step_index", 0)
    result = state.get("result") or {}
    spent = state.get("rebuild_spent") or {}  # attempts discarded after a commit conflict (nodes.commit)
    step = {
        "index": index,
        "action": state.get("action"),
        "verdict": state.get("verdict"),
        "observation": result.get("observation"),
        "commit": result.get("commit"),
        "provider_calls": result.get("provider_calls", 0) + spent.get("provider_calls", 0),
        "cache_hits": result.get("cache_hits", 0) + spent.get("cache_hits", 0),
        "feedback": state.get("feedback"),
        "repair": {k: v for k, v in (state.get("repair") or {}).items() if k != "mutations"} or None,
        "rebuilds": int(state.get("rebuilds") or 0),
        "seen_version": state.get("seen_version"),  # the canvas version its proposal saw (nodes.repeats)
        **model_input_keys(state.get("model_input")),
    }
    if (state.get("action") or {}).get("kind") == "malformed":
        step["raw_error"] = state["action"].get("raw_error")
    deps.trajectories.record_step(state["thread_id"], state["turn_id"], index, step)
    update: dict[str, Any] = {"steps": [step], "step_index": index + 1, "action": None, "verdict": None,
                              "result": None, "feedback": None, "repair": None, "rebuild": False, "rebuilds": 0,
                              "rebuild_spent": {}, "model_input": None}
    done = bool(state.get("done"))
    if not done and index + 1 >= deps.max_steps:
        done = True
        update.update(done=True, outcome="step_budget",
                      reply=f"stopped after {deps.max_steps} steps without finishing")
    if done and (state.get("outcome") or "replied") == "replied":
        # The turn asked instead of acting, or tried and failed: distinct outcomes, so no one reads success.
        if state.get("clarification"):
            update["outcome"] = "clarification"
        elif state.get("failed"):
            update["outcome"] = "failed"
        elif state.get("refused"):
            update["outcome"] = "refused"
    if done:
        refused_outcome(deps, state, update, [*(state.get("steps") or []), step])
        measured_outcome(deps, state, update, [*(state.get("steps") or []), step])
    if done:
        finish_turn(deps, state, [*(state.get("steps") or []), step], update)
        # A selection belongs to the turn it came with.  The thread's state outlives the turn, and a client of
        # LangGraph's server that sends no ``selected_ids`` with its next request means "nothing selected", not
        # "what I selected last time": cleared here, the next turn's begin sees only what its client sent.
        update["selected_ids"] = []
    return update


def refused_outcome(deps: TurnContext, state: TurnState, update: dict[str, Any],
                    steps: list[dict[str, Any]]) -> None:
    """A turn that wrote nothing after the bridge refused its write is ``refused``, whatever its reply says.

    A model told "outside this grant's scope" may still answer "Done!": the reply is the model's, and with a
    request the interpreter cannot check (a real model's free-form work) nothing else would say the work did not
    happen.  So when a step that writes (a mutation, a tool or skill that mutates the canvas) was refused by the
    grant, at validation or at commit, or its commit failed, and no step of the turn committed anything, the
    outcome is ``refused`` (exit 3; ``failed``, exit 1, for a commit that failed) and the reply says what was not
    written.  A turn that committed something keeps its outcome (the measurement against its intent judges that
    work), and so does one in which the person answered a question (they decided what happens instead).
    """
    outcome = update.get("outcome") or state.get("outcome") or "replied"
    if outcome != "replied" or state.get("answers") or wrote(state, steps):
        return
    stopped = [s for s in steps if (s.get("verdict") or {}).get("verdict") == "reject" and _writes(deps, s)
               and ((s.get("verdict") or {}).get("reason") in GRANT_REFUSALS
                    or (s.get("observation") or {}).get("not_committed"))]
    if not stopped:
        return
    last = stopped[-1]
    verdict = last.get("verdict") or {}
    what = (last.get("action") or {}).get("tool") or "the change"
    reply = update.get("reply") or state.get("reply") or ""
    # The grant said no: refused (exit 3); the write itself failed (a conflict retried out, an invalid batch): failed.
    update["outcome"] = "refused" if verdict.get("reason") in GRANT_REFUSALS else "failed"
    why = verdict.get("message") or verdict.get("reason")
    update["reply"] = f"{reply}\nNothing was changed: {what} was not written ({why}).".strip()


GRANT_REFUSALS = frozenset({"out_of_scope", "scope_exceeded", "tool_not_granted", "not_granted", "kind_not_granted",
                            "operation_not_granted", "grant_not_held", "unknown_grant"})
"""Verdict reasons that are the grant's no (nodes.grant, nodes.bridge), not a model's mistake (malformed, an unknown
tool, bad arguments: the model may go on and do the work another way, and its reply reports that)."""


def _writes(deps: TurnContext, step: dict[str, Any]) -> bool:
    """Whether a step's action would have written the canvas (a mutation, or a tool or skill that mutates)."""
    action = step.get("action") or {}
    if action.get("kind") == "canvas_mutation":
        return True
    if action.get("kind") != "tool_call":
        return False
    tool = deps.bridge.manifest.tool(str(action.get("tool") or ""))
    return tool is None or Effect.MUTATES_CANVAS in tool.effects


def measured_outcome(deps: TurnContext, state: TurnState, update: dict[str, Any],
                     steps: list[dict[str, Any]] | None = None) -> None:
    """Compare the turn's commits with its intent; a turn that did something else is not ``replied``.

    The reply stays what the model said, with what was measured added, so a person sees both.  A tool that
    answered "already so" (``NothingToChange``, from the canvas) in one of ``steps`` satisfied its operation.
    """
    raw = state.get("intent")
    if not raw:
        return
    from nodes.understanding.intent import Intent
    from nodes.understanding.measure import measure

    intent = Intent.model_validate(raw)
    unchecked_reply(state, update, intent, steps or [])
    from tools.changes import nothing_to_change_errors

    already = nothing_to_change_errors()
    satisfied = [s.get("action") or {} for s in steps or [] if isinstance(o := s.get("observation"), dict)
                 and o.get("error_type") in already]
    since = int(state.get("canvas_before") or 0)
    measured = measure(deps.bridge.store, intent, since=since, thread_id=state["thread_id"],
                       turn_id=state["turn_id"], satisfied=satisfied, own=own_turn_commits(deps, since))
    update["measured"] = {**measured.model_dump(), "matches": measured.matches}
    outcome = update.get("outcome") or state.get("outcome") or "replied"
    if guessed(intent, outcome, state, steps or []):
        update["outcome"] = "failed"
        candidates = "; ".join(f"{c.get('title') or c.get('id')} ({c.get('id')})"
                               for c in intent.clarification.candidates)
        changed = ", ".join(measured.changed) or "the canvas"
        reply = update.get("reply") or state.get("reply") or ""
        update["reply"] = (f"{reply}\nMeasured on the canvas: the request could mean any of {candidates}, and this "
                           f"turn changed {changed} without asking which. Check that it is the one you meant, or "
                           "undo it ('undo that').").strip()
        return
    # A clarification asked instead of acting: what it did not change is not missing, only what it changed counts.
    wrong = measured.unexpected if outcome == "clarification" else not measured.matches
    if measured.checked and wrong and outcome in ("replied", "clarification"):
        update["outcome"] = "failed"
        reply = update.get("reply") or state.get("reply") or ""
        update["reply"] = f"{reply}\n{measured.explain()}".strip()


def guessed(intent: Any, outcome: str, state: TurnState, steps: list[dict[str, Any]]) -> bool:
    """Whether the turn picked one of several things the request could mean, without the person's answer.

    The interpreter found several candidates (two decks, two films' shot 2) and the turn was to ask; the offline
    planner does.  A model that acts instead made a choice nobody made: whichever it picked, the turn is not
    reported done.  After an answer the intent is read again with it (``nodes.propose``) and has no question left."""
    asked = intent.clarification
    return asked is not None and asked.reason == "ambiguous" and outcome == "replied" and wrote(state, steps)


def wrote(state: TurnState, steps: list[dict[str, Any]]) -> bool:
    """Whether the turn wrote the canvas: a step's commit, or what its skills' steps made."""
    return bool(made_this_turn(state)) or any(s.get("commit") for s in steps)


UNCHECKED_NOTHING_CHANGED = "(Nothing on the canvas was changed this turn.)"


def unchecked_reply(state: TurnState, update: dict[str, Any], intent: Any, steps: list[dict[str, Any]]) -> None:
    """Say so when a request the interpreter could not read (it would have asked: a phrase it did not understand,
    a target it did not find) ended with a reply and no write at all.

    A real model, which goes on where the interpreter would ask, may answer such a request in words ("Done! I gave it more punch.") without calling a tool.
    Whether the person asked for a change no one can check, so the outcome stays the reply; what was measured is
    added: the turn wrote nothing.  (With a write, the commits are in the reply's own steps for a person to see.)
    """
    clarification = intent.clarification
    outcome = update.get("outcome") or state.get("outcome") or "replied"
    if clarification is None or outcome != "replied":
        return
    if wrote(state, steps):
        return
    reply = update.get("reply") or state.get("reply") or ""
    if UNCHECKED_NOTHING_CHANGED not in reply:
        update["reply"] = f"{reply}\n{UNCHECKED_NOTHING_CHANGED}".strip()


def own_turn_commits(deps: TurnContext, since: int) -> list[Any] | None:
    """This process's commits since the turn began when every commit of the turn is among them, else None.

    So when the run started the turn (``TurnContext.fresh``: no other process ran any of its steps), or when this
    process made every commit from ``since`` on (no other writer's in between: a turn resumed here after a crash
    elsewhere has the other process's commits there).  The store forgets old commits and then says nothing."""
    logged = deps.bridge.store.own_commits(since)
    if logged is None:
        return None
    records, gapless = logged
    return records if gapless or deps.fresh else None


def model_input_keys(model_input: dict[str, int] | None) -> dict[str, int]:
    """The step keys of the model calls that proposed a step (zeros when it made none, e.g. a resumed commit)."""
    sent = ModelInput.model_validate(model_input or {})
    return {"model_calls": sent.calls, "model_input_bytes": sent.bytes, "tool_schema_bytes": sent.tool_schema_bytes,
            "max_call_bytes": sent.max_call_bytes}


def turn_started_at(deps: TurnContext, state: TurnState) -> str:
    """When the turn began: its ``starts`` row in the trajectory store (written by ``Runtime.start_state``)."""
    return deps.trajectories.started_at(state["turn_id"]) or utc_now()


def finish_turn(deps: TurnContext, state: TurnState, steps: list[dict[str, Any]], update: dict[str, Any]) -> None:
    """Write the Turn node to the canvas, then the turn tuple to the trajectory store.

    The Turn node's commit says where the turn left the canvas (the version just before its own), so the turn
    does not read the version first; a resumed turn replays that commit and gets the same answer.
    """
    # What its steps changed and what its skills' inner steps made (a deck build's deck and slides): its Turn node's
    # TOUCHED edges answer "what did that turn make", and "undo that" names the turn by them.
    touched = list(dict.fromkeys(made_this_turn(state)))
    outcome = update.get("outcome") or state.get("outcome") or "replied"
    turn = RecordTurn(turn_id=state["turn_id"], thread_id=state["thread_id"], request=state["request"][:2000],
                      canvas_before=state.get("canvas_before", 0), node_ids=touched,
                      summary={"outcome": outcome, "steps": len(steps)})
    after = deps.bridge.commit_turn_record(turn).canvas_version - 1
    grant = deps.bridge.grants.get(state["grant_id"])
    body = {
        "thread_id": state["thread_id"],
        "turn_id": state["turn_id"],
        "request": state["request"],
        "canvas_before": state.get("canvas_before", 0),
        "grant": grant.model_dump(mode="json"),
        "actions": [s.get("action") for s in steps],
        "observations": [s.get("observation") for s in steps],
        "feedback": [s.get("feedback") for s in steps if s.get("feedback")],
        "repair": [s.get("repair") for s in steps if s.get("repair")],
        "canvas_after": after,
        "outcome": outcome,
        "reply": update.get("reply") or state.get("reply"),
        "touched_ids": touched,
        "intent": state.get("intent"),
        "measured": update.get("measured"),
        "started_at": turn_started_at(deps, state),
        "finished_at": utc_now(),
    }
    deps.trajectories.record_turn(state["thread_id"], state["turn_id"], body, manifest=deps.bridge.manifest)
    update["canvas_after"] = after
    update["canvas_version"] = after + 1  # with the Turn node: where the turn left the canvas
