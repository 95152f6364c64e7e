"""A model that repeats a call it already made, with nothing changed since, is looping: refuse the repeat.

Models loop: the same tool with the same arguments, again and again, each time with the same answer.
For a read-only tool that only burns the budget; for one that writes, each repeat would write again
(a second note, a second version), since every step has its own action id and so its own idempotency key.
The validation node refuses a call identical to one this turn already ran (allowed, not refused) when the
canvas is at the version that call left it at: the model gets the earlier step's answer back in the
refusal and proposes something else, and the rejections-in-a-row budget bounds how long it may keep trying.
"""

from __future__ import annotations

import json
from typing import Any


def _key(tool: Any, args: Any) -> str:
    return json.dumps([tool, args], sort_keys=True, default=str)


def repeated_call(steps: list[dict[str, Any]], action: dict[str, Any], seen_version: int | None, *,
                  read_only: bool = False) -> str | None:
    """Why ``action`` repeats an earlier step of this turn with the canvas unchanged since, or None.

    Each step records the canvas version its proposal saw (``seen_version``, from the observe node); the
    version right after a step is the one the next step saw (for the last step, the one this proposal saw),
    so a change by anyone (a skill's own commits, another turn) after the identical call makes the repeat
    legitimate.  Right after the identical call that version is only known for a ``read_only`` one (it
    changed nothing: the canvas is as its proposal saw it, unless someone else wrote); a call that writes
    (a skill commits as it goes) repeated at once is a loop.
    """
    if action.get("kind") != "tool_call" or seen_version is None:
        return None
    wanted = _key(action.get("tool"), action.get("args"))
    for position in range(len(steps) - 1, -1, -1):
        step = steps[position]
        earlier = step.get("action") or {}
        allowed = (step.get("verdict") or {}).get("verdict") != "reject"
        if not (allowed and earlier.get("kind") == "tool_call"
                and _key(earlier.get("tool"), earlier.get("args")) == wanted):
            continue
        if position + 1 < len(steps):
            after = steps[position + 1].get("seen_version")
        else:
            after = step.get("seen_version") if read_only else seen_version
        if after is None or after != seen_version:
            return None  # the canvas changed after the identical call: a fresh look, not a loop
        observation = json.dumps(step.get("observation"), default=str)[:300]
        return (f"{action.get('tool')} was already called with these arguments in step {step.get('index')} of "
                f"this turn and the canvas has not changed since (its answer: {observation}); repeating it "
                "would only do it again: use that answer, or do something else")
    return None
