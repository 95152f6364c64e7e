"""What a turn has spent of its grant, and what the bridge did with one submitted action.

Below the bridge (``nodes/bridge.py``) and its port (``nodes/ports.py``), which both speak these values, so
neither imports the other for them.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, Field

from store.models import CommitRecord


class Usage(BaseModel):
    """What a turn (or a subagent) has spent of its grant so far."""

    tool_calls: int = 0
    generation_calls: int = 0
    started_at: float = Field(default_factory=time.time)
    rejections_in_row: int = 0
    created_ids: list[str] = Field(default_factory=list)
    committed_version: int | None = Field(
        default=None, description="The canvas version of the last commit made through Bridge.submit for this "
        "usage (a skill's steps): where the turn's own writes left the canvas, for nodes.resolve's kept view.")
    paid_calls: int = Field(default=0, description="Provider calls billed (tools.spend): model, judge and media.")
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    generation_estimates: dict[str, float] = Field(
        default_factory=dict, description="What one call of each generation tool may cost at most with this "
        "project's providers (USD): the budget refuses a call that could take the spend past the cost budget.")


class SubmitResult(BaseModel):
    """What :meth:`Bridge.submit` did with one action."""

    action_id: str
    verdict: str
    message: str = ""
    reason: str = Field(default="", description="Why it was refused: the grant's reason (kind_not_granted, budget, "
                        "...) or the refusing error's type (StaleVersion: plan again and resubmit)")
    observation: dict[str, Any] = Field(default_factory=dict)
    commit: CommitRecord | None = None
    provider_calls: int = 0
    cache_hits: int = 0
