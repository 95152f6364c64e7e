"""Write tickets: the store's proof that the validation node approved this exact batch.

A ticket is an HMAC over the action id and the digest of the batch, signed with
a secret held by a :class:`TicketAuthority`.  The validation node owns the
authority and issues tickets; the store holds the same authority and verifies
them.  Code that did not go through validation has no way to produce a valid
signature by accident, and a ticket for one batch does not fit another.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from store.errors import TicketRequired
from store.mutations import batch_digest


@dataclass(frozen=True)
class WriteTicket:
    """Permission to apply one batch of mutations, issued by the validation node."""

    action_id: str
    digest: str
    grant_id: str
    issued_at: float
    signature: str


class TicketAuthority:
    """Issues and verifies write tickets with a per-project secret."""

    def __init__(self, secret: bytes | None = None, *, max_age_s: float = 3600.0) -> None:
        self._secret = secret or secrets.token_bytes(32)
        self._max_age_s = max_age_s

    def issue(self, action_id: str, mutations: Sequence[Any], grant_id: str = "") -> WriteTicket:
        """Sign a ticket for exactly this batch (called by the validation node only)."""
        digest = batch_digest(list(mutations))
        issued_at = time.time()
        return WriteTicket(action_id, digest, grant_id, issued_at, self._sign(action_id, digest, grant_id, issued_at))

    def verify(self, ticket: WriteTicket | None, mutations: Sequence[Any]) -> None:
        """Raise ``TicketRequired`` unless the ticket was issued here for exactly this batch."""
        if not isinstance(ticket, WriteTicket):
            raise TicketRequired(
                "canvas writes need a ticket from the validation node; "
                "propose the change as an action through the bridge instead of calling the store"
            )
        expected = self._sign(ticket.action_id, ticket.digest, ticket.grant_id, ticket.issued_at)
        if not hmac.compare_digest(expected, ticket.signature):
            raise TicketRequired(f"the ticket for action {ticket.action_id} was not issued by this project's bridge")
        if ticket.digest != batch_digest(list(mutations)):
            raise TicketRequired(
                f"the ticket for action {ticket.action_id} was issued for a different batch of mutations"
            )
        if time.time() - ticket.issued_at > self._max_age_s:
            raise TicketRequired(f"the ticket for action {ticket.action_id} has expired; validate the action again")

    def _sign(self, action_id: str, digest: str, grant_id: str, issued_at: float) -> str:
        message = f"{action_id}\x00{digest}\x00{grant_id}\x00{issued_at!r}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()
