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
_VERB = re.compile(r"^\s*(?:please\s+)?(approve|accept|reject)\b")
"""The status said as the verb ("approve shot 3", "reject the last two shots")."""
_VERB_STATUS = {"approve": "selected", "accept": "selected", "reject": "rejected"}
_SHOT_OUTPUTS = frozenset({"image", "video", "shot"})
_QUOTED = re.compile(r"[\"“']([^\"”']{2,80})[\"”']")
_NODE_ID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")


_ANOTHER_NAMED = re.compile(r"\binstead(?: of)?\b|\brather than\b|\blike\b|\bas (?:with|for|i did|you did)\b|"
                            r"\bthe same as\b")
"""Another node named beside the one to mark, as a comparison ("approve shot 3 instead of shot 4"): both were marked."""

class StatusReader:
    """A status change of one or more named nodes."""

    name = "status"

    def read(self, ctx: ReadContext) -> Reading | None:
        text = ctx.words.text
        match = _STATUS.search(text)
        verb = _VERB.match(text) if match is None else None
        if match is None and verb is None:
            return None
        if match is not None:
            status = {"done": "completed", "approved": "selected"}.get(match.group(2), match.group(2))
            # The words this reader reads: "mark ... as <status>", the node named between.  What is outside it is
            # left to be accounted for ("mark shot 3 as approved and make shot 4 night" did the first alone).
            span, named = (match.start(), match.end()), (match.start(1), match.end(1))
        else:
            status = _VERB_STATUS[verb.group(1)]
            span, named = (verb.start(1), verb.end(1)), (verb.end(1), len(text))
        if (other := _ANOTHER_NAMED.search(text, named[0], named[1])) is not None:
            # "approve shot 3 instead of shot 4", "reject shot 3 like shot 4": both were marked
            ctx.words.take_all()
            return Reading(clarification=Clarification(
                reason="unparsed", understood=[f"status: {status}"],
                message=f"'{other.group(0)}': I mark what you name, and cannot tell whether the other one is meant "
                        "too, so I changed nothing. Name only the ones to mark ('approve shot 3')."))
        quoted = _QUOTED.findall(ctx.request)
        ids = _NODE_ID.findall(ctx.request)
        references = [Reference(said=q, form="title", domain="node") for q in quoted]
        references += [Reference(said=i, form="id", domain="node", target_ids=[i]) for i in ids]
        targets: list[Target] = []
        if not references:
            found = find_references(ctx.words, *named)
            resolved = resolve_targets([f.reference for f in found], ctx.facts, previous=ctx.previous.targets,
                                       answer=ctx.answer)
            if resolved.missing or resolved.ambiguous or not resolved.targets or any(
                    not f.reference.target_ids for f in found):  # "approve this one and shot 5", nothing selected
                ctx.words.take_all()
                return Reading(clarification=Clarification(
                    reason="not_found" if resolved.missing else "ambiguous" if resolved.ambiguous else "no_target",
                    missing=resolved.missing, candidates=resolved.ambiguous, understood=[f"status: {status}"],
                    message=f"I could not tell which node to mark as {status} {ctx.facts.where}; name it by its "
                            "title in quotes or its id."))
            references = [f.reference for f in found]
            targets = [t.model_copy(update={"id": t.image_id or t.id, "kind": "image" if t.image_id else t.kind})
                       for t in resolved.targets]
            if verb is not None and any(t.kind not in _SHOT_OUTPUTS for t in targets):
                # "reject slide 3" would set a slide's status behind its deck's back (a deck changes by its own
                # operations, each a new version): the verbs are for a shot's outputs, as a person reviews them
                ctx.words.take_all()
                return Reading(clarification=Clarification(
                    reason="unsupported", understood=[f"status: {status}"],
                    message=f"I {verb.group(1)} a shot's image or clip ('{verb.group(1)} shot 3'); a slide or a page "
                            "changes by its own edits ('delete slide 3', 'undo that'), so I changed nothing."))
        ctx.words.mark(*span)
        for quoted in _QUOTED.finditer(text):  # a title or an id named it: its own words, read
            ctx.words.mark(quoted.start(), quoted.end())
        for node_id in ids:
            for at in re.finditer(re.escape(node_id.lower()), text):
                ctx.words.mark(at.start(), at.end())
        return Reading(clauses=[Clause(text=ctx.request, domain=self.name, operation="status", targets=targets,
                                       references=references, args={"status": status},
                                       understood=[f"status: {status}"])])
