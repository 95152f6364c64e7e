"""How a turn's ending maps to an exit code: one table, so a new kind of ending is one new row.

A turn ends with an ``outcome`` the graph sets (``replied``, ``clarification``,
``failed``, ``refused``, ``interrupted``, ``budget``, ``revoked``, ``step_budget``;
``unfinished`` when the stream stopped without one).  ``replied`` is already
measured: the record node compared the turn's commits with its intent
(``nodes.understanding.measure``) and made a turn that did something else
``failed``.  A step the bridge refused or a tool that failed without a later
success also means the request was not done.  Nothing here reads a reply's text.
"""

from __future__ import annotations

from typing import Any

from jarvishub.commands.common import (EXIT_BAD_INPUT, EXIT_BUSY, EXIT_FAILED, EXIT_NOT_FOUND, EXIT_OK,
                                       EXIT_PAUSED, EXIT_REFUSED)

EXIT_FOR_RESULT: dict[str, int] = {
    "done": EXIT_OK,
    "failed": EXIT_FAILED,          # a step failed or a tool was refused mid-turn
    "bad_request": EXIT_BAD_INPUT,  # nothing the planner can do with the request
    "refused": EXIT_REFUSED,        # the grant forbids it: revoked, out of budget, tool not granted
    "not_found": EXIT_NOT_FOUND,    # the request names something the canvas does not have
    "paused": EXIT_PAUSED,          # waiting for a person: approval, clarification, feedback
    "busy": EXIT_BUSY,              # the user-query budget was spent (QueryBusy): the same command again shortly
}

RESULT_FOR_OUTCOME: dict[str, str] = {
    "replied": "done",
    "interrupted": "paused",
    "budget": "refused",
    "revoked": "refused",
    "refused": "refused",
    "step_budget": "failed",
    "unfinished": "failed",
    "failed": "failed",
    "not_found": "not_found",
    "clarification": "bad_request",
    "no_playbook": "bad_request",
    "unsupported": "bad_request",
}

CLARIFICATION_RESULTS: dict[str, str] = {
    "not_found": "not_found",  # "shot 99" on a 6-shot project
    "unparsed": "bad_request",  # the request grammar could not read it (it lists what it can do)
    "no_target": "bad_request",  # an edit with nothing to apply it to
    "conflict": "bad_request",  # two edits that contradict each other
    "unsupported": "bad_request",  # an operation understood, which no tool does yet (undo, delete a slide)
    "partial": "bad_request",   # part of the request understood, part not: nothing was done
    "ambiguous": "paused",      # two "shot 3": the person picks one with `resume --answer ID`
}

# Rejections that are the model's own noise (it proposes again); any other rejection refused a tool.
# "repeated": a call identical to one already answered (nodes.repeats); "unknown_tool": a name no tool has.
_RETRIED_REJECTIONS = {"model_error", "malformed", "bad_arguments", "repeated", "unknown_tool"}
# A step refused by one of these is a refusal (exit 3), not a failure: the provider's content policy, the budget.
_REFUSALS = {"content_policy", "budget"}


def _failed_steps(steps: list[dict[str, Any]]) -> bool:
    """Whether a tool was refused, or failed without a later successful call of the same tool.  A tool that
    answered "already so" (``tools.changes.NothingToChange``) did not fail: the request held already."""
    from tools.changes import nothing_to_change_errors

    already = nothing_to_change_errors()
    later_ok: set[str] = set()
    for step in reversed(steps):
        action = step.get("action") or {}
        tool = str(action.get("tool") or action.get("kind") or "")
        verdict = step.get("verdict") or {}
        observation = step.get("observation")
        if action.get("kind") == "reply":
            continue
        if verdict.get("verdict") == "reject":
            if verdict.get("reason") not in _RETRIED_REJECTIONS:
                return True
            continue
        if isinstance(observation, dict) and observation.get("error"):
            if tool not in later_ok and observation.get("error_type") not in already:
                return True
            continue
        later_ok.add(tool)
    return False


def result_of(outcome: Any) -> str:
    """done, failed, bad_request, refused, not_found or paused, for a finished or paused turn."""
    if outcome.outcome == "clarification":
        # The planner answered with a question instead of acting: it names nothing on the canvas (not found),
        # or it could not read the request (bad input); an ambiguous target pauses as an interrupt instead.
        reason = (getattr(outcome, "clarification", None) or {}).get("reason")
        return CLARIFICATION_RESULTS.get(str(reason), "bad_request")
    result = RESULT_FOR_OUTCOME.get(outcome.outcome, "failed")
    if result == "failed" and _hit_busy(outcome.steps or []):
        return "busy"
    if result != "done":
        return result
    if _failed_steps(outcome.steps):
        if _refused(outcome.steps):
            return "refused"
        return "busy" if _hit_busy(outcome.steps) else "failed"
    measured = getattr(outcome, "measured", None) or {}
    if measured.get("checked") and measured.get("matches") is False:
        return "failed"
    return "done"


def _refused(steps: list[dict[str, Any]]) -> bool:
    """Whether a step failed because a provider's content policy or the turn's budget refused it."""
    return any(isinstance(s.get("observation"), dict) and s["observation"].get("refused") in _REFUSALS
               for s in steps)


def _hit_busy(steps: list[dict[str, Any]]) -> bool:
    """Whether a step was refused because the project's user-query budget was spent: the same turn run again
    in a moment may well succeed."""
    return any(isinstance(s.get("observation"), dict) and s["observation"].get("error_type") == "QueryBusy"
               for s in steps)


def exit_code(outcome: Any) -> int:
    """The exit code of a turn."""
    return EXIT_FOR_RESULT[result_of(outcome)]
