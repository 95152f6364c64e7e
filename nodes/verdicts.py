"""Verdicts of the validation node: values, not exceptions (as guardrails return in the Agents SDK)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from store.errors import CanvasError
from store.tickets import WriteTicket


class Allow(BaseModel):
    """The action may run.  A canvas mutation carries its write ticket already."""

    model_config = {"arbitrary_types_allowed": True}
    verdict: Literal["allow"] = "allow"
    ticket: WriteTicket | None = None


class Reject(BaseModel):
    """The action may not run; ``message`` goes back to the model so it can propose something else."""

    verdict: Literal["reject"] = "reject"
    reason: str
    message: str


class NeedsApproval(BaseModel):
    """A person must approve, edit or reject the action first."""

    verdict: Literal["needs_approval"] = "needs_approval"
    reason: str


Verdict = Allow | Reject | NeedsApproval


class GrantDenied(CanvasError, PermissionError):
    """An action, or the mutations it produced, fell outside the grant."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


class ApprovalRequired(CanvasError):
    """An action needs a person's approval and the caller cannot pause for it."""
