"""Status changes: 'mark "shot 5 image" as selected', "mark shot 3 as rejected", "set this as completed".

The node is named by a quoted title, an id, a shot reference or the selection; a quoted title or an id is
looked up on the canvas when the turn starts (``Reference.form`` 'title' / 'id').
"""

from __future__ import annotations

import re

from nodes.understanding.intent import Clarification, Clause, Reference, Target
from nodes.understanding.readers.base import ReadContext, Reading
from nodes.understanding.references import find_references, resolve_targets

_STATUS = re.compile(r"\b(?:mark|set|flag)\b(.*?)\bas\s+(selected|rejected|stale|completed|done|approved)\b")
_QUOTED = re.compile(r"[\"“']([^\"”']{2,80})[\"”']")
_NODE_ID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")


class StatusReader:
    """A status change of one or more named nodes."""

    name = "status"

    def read(self, ctx: ReadContext) -> Reading | None:
        match = _STATUS.search(ctx.words.text)
        if match is None:
            return None
        status = {"done": "completed", "approved": "selected"}.get(match.group(2), match.group(2))
        quoted = _QUOTED.findall(ctx.request)
        ids = _NODE_ID.findall(ctx.request)
        references = [Reference(said=q, form="title", domain="node") for q in quoted]
        references += [Reference(said=i, form="id", domain="node", target_ids=[i]) for i in ids]
        targets: list[Target] = []
        if not references:
            found = find_references(ctx.words, match.start(1), match.end(1))
            resolved = resolve_targets([f.reference for f in found], ctx.facts, previous=ctx.previous.targets,
                                       answer=ctx.answer)
            if resolved.missing or resolved.ambiguous or not resolved.targets:
                ctx.words.take_all()
                return Reading(clarification=Clarification(
                    reason="not_found" if resolved.missing else "ambiguous" if resolved.ambiguous else "no_target",
                    missing=resolved.missing, candidates=resolved.ambiguous, understood=[f"status: {status}"],
                    message=f"I could not tell which node to mark as {status} {ctx.facts.where}; name it by its "
                            "title in quotes or its id."))
            references = [f.reference for f in found]
            targets = [t.model_copy(update={"id": t.image_id or t.id, "kind": "image" if t.image_id else t.kind})
                       for t in resolved.targets]
        ctx.words.take_all()
        return Reading(clauses=[Clause(text=ctx.request, domain=self.name, operation="status", targets=targets,
                                       references=references, args={"status": status},
                                       understood=[f"status: {status}"])])
