"""The question playbook: questions answered from the canvas with read-only lookups; the canvas never changes.

Every answer names what it read (titles and versions), so a person can check it.
"""

from __future__ import annotations

from typing import Any

from content.page_document import PageDocument
from content.page_style import TOKENS
from nodes.models.cut_answers import contents, current_cuts, holds
from nodes.models.grammar import IMAGE_DEFAULTS
from nodes.models.playbooks import Call, Done, PlannerInput, stop_on_rejection
from nodes.models.targets import CanvasTargets, Rows, TargetSource
from nodes.understanding.facts import json_object
from tools.deck.document import mentions


def _inputs(row: dict[str, Any]) -> dict[str, Any]:
    return json_object(row.get("inputs"))


def _of_film(row: dict[str, Any]) -> str:
    """" of 'A 4-shot short film about a ferry'": which film a shot is in, when the canvas holds several."""
    title = str(row.get("plan_title") or row.get("plan") or "").removeprefix("Storyboard: ")
    return f" of '{title[:48]}{'…' if len(title) > 48 else ''}'" if title else ""


def current_shots(rows: Rows) -> list[dict[str, Any]]:
    """The newest image row per shot, in story order."""
    by_shot: dict[str, dict[str, Any]] = {}
    for row in rows:
        by_shot.setdefault(row["shot"], row)
    return list(by_shot.values())


class QuestionPlaybook:
    """Answers the intent's question; its only tool is a read (``query_canvas``)."""

    def __init__(self, source: TargetSource | None = None) -> None:
        self.source = source or CanvasTargets()

    def matches(self, p: PlannerInput) -> bool:
        return p.operation_is("question")

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_rejection(p)) is not None:
            return stop
        clause = p.clause("question")
        assert clause is not None
        ask = str(clause.args.get("ask"))
        answer = getattr(self, f"_{ask}", None) if ask in ANSWERS else None
        if answer is None:
            return Done(text="I cannot answer that kind of question yet.",
                        clarification={"type": "clarification", "reason": "unsupported", "question": "?"})
        result = answer(p, clause)
        if result is None:
            return Done(text=f"I cannot tell that from what I can read {self.source.where}.",
                        clarification={"type": "clarification", "reason": "unsupported",
                                       "question": f"I cannot tell that {self.source.where}."})
        return result

    def _count(self, p: PlannerInput, clause) -> Call | Done | None:
        kind = clause.args.get("kind") or None
        if clause.args.get("deck"):  # one deck's slides ("how many slides are in the night markets deck?")
            return self._deck_slides(p, clause)
        if clause.args.get("film"):  # one film's shots ("how many shots are in the ferry film?")
            return self._film_shots(p, clause)
        if p.counts is not None:  # the view counted the live nodes by kind and status just before this call
            return _counted(p.counts, kind)
        rows = self.source.listing(p, kind)
        if isinstance(rows, Call):
            return rows
        if rows and "id" in rows[0] or kind:
            return Done(text=f"{len(rows)} found.")
        held = ", ".join(f"{r['count']} {r['kind']}" for r in rows)
        return Done(text=f"The canvas holds {held} (I counted every live node by kind)." if held
                    else "The canvas is empty.")

    def _deck_slides(self, p: PlannerInput, clause) -> Call | Done | None:
        rows = self.source.slides(p)
        if rows is None or isinstance(rows, Call):
            return rows
        deck = clause.args["deck"]
        if not any(r.get("deck") for r in rows):
            return None  # this source does not say which deck a slide is in
        count = sum(1 for r in rows if r.get("deck") == deck)
        title = clause.targets[0].title if clause.targets else deck
        return Done(text=f"{count} found: the deck '{title}' has {count} slide{'s' if count != 1 else ''}.")

    def _film_shots(self, p: PlannerInput, clause) -> Call | Done | None:
        """The film's shots that the canvas holds now, each with a current image."""
        rows = self.source.shots(p)
        if isinstance(rows, Call):
            return rows
        film = clause.args["film"]
        count = len({r["shot"] for r in current_shots(rows) if r.get("plan") == film})
        return Done(text=f"{count} found: the film has {count} shot{'s' if count != 1 else ''}.")

    def _list(self, p: PlannerInput, clause) -> Call | Done:
        if film := clause.args.get("film"):  # one film's shots ("which shots are in the ferry film?")
            shots = self.source.shots(p)
            if isinstance(shots, Call):
                return shots
            held = [r for r in current_shots(shots) if r.get("plan") == film]
            return Done(text="\n".join(f"- {r['title']} (image v{r.get('version')}) {r['shot']}" for r in held)
                        or "That film has no shot with an image.")
        rows = self.source.listing(p, clause.args.get("kind") or None)
        if isinstance(rows, Call):
            return rows
        lines = [f"- {r.get('title') or r.get('kind')} ({r.get('status') or r.get('count')}) {r.get('id', '')}"
                 for r in rows]
        return Done(text="\n".join(lines) or "Nothing matches.")

    def _shots_with(self, p: PlannerInput, clause) -> Call | Done:
        rows = self.source.shots(p)
        if isinstance(rows, Call):
            return rows
        wanted: dict[str, Any] = clause.args.get("filter") or {}
        film = clause.args.get("film")
        shots = [r for r in current_shots(rows) if not film or r.get("plan") == film]
        matching = [r for r in shots if all(_inputs(r).get(k, IMAGE_DEFAULTS.get(k)) == v for k, v in wanted.items())]
        said = ", ".join(f"{k} {v}" for k, v in wanted.items())
        read = f"I read the current image of {len(shots)} shot{'s' if len(shots) != 1 else ''} {self.source.where}"
        if not matching:
            return Done(text=f"No shot has {said}. ({read}.)")
        films = {r.get("plan") for r in shots}
        names = ", ".join(f"{r['title']}{_of_film(r) if len(films) > 1 else ''} (image v{r.get('version')})"
                          for r in matching)
        return Done(text=f"{len(matching)} shot{'s' if len(matching) != 1 else ''} with {said}: {names}. ({read}.)")

    def _attribute(self, p: PlannerInput, clause) -> Call | Done:
        rows = self.source.shots(p)
        if isinstance(rows, Call):
            return rows
        attribute = str(clause.args.get("attribute") or "lighting")
        by_shot = {r["shot"]: r for r in current_shots(rows)}
        parts = []
        for target in clause.targets:
            row = by_shot.get(target.id)
            if row is not None:
                inputs = _inputs(row)
                shown = LOOK if attribute == "look" else (attribute,)
                said = ", ".join(f"{a} {inputs.get(a, IMAGE_DEFAULTS.get(a)) or 'not set'}" for a in shown)
                parts.append(f"{row['title']} (image v{row.get('version')}): {said}")
        return Done(text="; ".join(parts) + "." if parts else f"I found none of those shots {self.source.where}.")

    def _cut(self, p: PlannerInput, clause) -> Call | Done | None:
        """Whether the cut holds the shots named, or what it holds (``about``: "shots", "count" or "order")."""
        rows = self.source.cuts(p)
        if rows is None or isinstance(rows, Call):
            return rows
        cuts = current_cuts(rows)
        if not cuts:
            return Done(text=f"There is no cut {self.source.where}: no clips were assembled into one yet.")
        about = clause.args.get("about")
        if about == "shots":
            return Done(text=holds(cuts, [(t.id, t.title) for t in clause.targets]))
        return Done(text=contents(cuts, count=about == "count"))

    def _versions(self, p: PlannerInput, clause) -> Call | Done | None:
        parts = []
        for target in clause.targets:
            rows = self.source.versions(p, target.id)
            if rows is None:
                return None
            if isinstance(rows, Call):
                return rows
            listed = ", ".join(f"v{r.get('version')} ({r.get('status')})" for r in rows)
            parts.append(f"{target.title} has {len(rows)} version{'s' if len(rows) != 1 else ''} of its image: "
                         f"{listed}")
        return Done(text="; ".join(parts) + ".")

    def _last_turn(self, p: PlannerInput, clause) -> Call | Done | None:
        turn_id = clause.args.get("turn_id")
        if not turn_id:
            return Done(text="There is no earlier turn on this project.")
        rows = self.source.last_turn(p, str(turn_id))
        if rows is None or isinstance(rows, Call):
            return rows
        if not rows:
            return Done(text="I found no record of the last turn.")
        changed = [r for r in rows if r.get("id")]
        request = rows[0].get("request") or ""
        if not changed:
            return Done(text=f"The last turn ('{request}') changed nothing on the canvas.")
        names = ", ".join(f"{r.get('title') or r['id']} ({r.get('kind')} v{r.get('version')}, {r.get('status')})"
                          for r in changed[:20])
        return Done(text=f"The last turn ('{request}') changed {len(changed)} node{'s' if len(changed) != 1 else ''}: "
                         f"{names}.")

    def _slides_mentioning(self, p: PlannerInput, clause) -> Call | Done | None:
        rows = self.source.slides(p)
        if rows is None or isinstance(rows, Call):
            return rows
        said = " ".join(t.lower() for t in clause.args.get("terms") or [])
        found = []
        for row in sorted(rows, key=lambda r: (str(r.get("deck")), _inputs(r).get("index") or 0)):
            spec = _inputs(row).get("spec") or {}
            text = " ".join([str(row.get("title") or ""), *[str(b) for b in spec.get("bullets") or []],
                             str(spec.get("notes") or "")])
            if mentions(text, said):
                found.append(row)
        if not found:
            return Done(text=f"No slide mentions '{said}' (I read {len(rows)} slides' titles, bullets and notes).")
        names = ", ".join(f"slide {_inputs(r).get('index') or '?'} '{r.get('title')}'" for r in found)
        return Done(text=f"{len(found)} slide{'s' if len(found) != 1 else ''} mention '{said}': {names} "
                         f"(of {len(rows)} slides read).")

    def _slide(self, p: PlannerInput, clause) -> Call | Done | None:
        rows = self.source.slides(p)
        if rows is None or isinstance(rows, Call):
            return rows
        wanted = {t.id for t in clause.targets}
        found = [r for r in rows if r.get("id") in wanted]
        spec = _inputs(found[0]).get("spec") if found else None
        if not isinstance(spec, dict):
            return None  # the slide, or what it says, is not in what this source can read
        number = clause.args.get("slide")
        bullets = "".join(f"\n- {b}" for b in spec.get("bullets") or [])
        notes = f"\nSpeaker notes: {spec['notes']}" if spec.get("notes") else ""
        return Done(text=f"Slide {number} is titled '{found[0].get('title')}'."
                         + (f" Its bullets:{bullets}" if bullets else " It has no bullets.") + notes)

    def _notes_mentioning(self, p: PlannerInput, clause) -> Call | Done | None:
        rows = self.source.notes(p)
        if rows is None or isinstance(rows, Call):
            return rows
        said = " ".join(t.lower() for t in clause.args.get("terms") or [])
        notes = [r for r in rows if isinstance(_inputs(r).get("text"), str)]  # a note's words; not a slide's content
        found = [r for r in notes if mentions(str(_inputs(r)["text"]), said)]
        if not found:
            return Done(text=f"No note mentions '{said}' (I read {len(notes)} note{'s' if len(notes) != 1 else ''}).")
        quoted = "; ".join(f"'{_inputs(r)['text']}'" for r in found)
        return Done(text=f"{len(found)} note{'s' if len(found) != 1 else ''} mention '{said}': {quoted} "
                         f"(of {len(notes)} notes read).")

    def _page_row(self, p: PlannerInput) -> Call | Done | dict[str, Any] | None:
        """The current page's code row (a lookup to make first, or an answer that there is no page)."""
        code = self.source.page(p)
        if isinstance(code, Call):
            return code
        if code is None:
            return Done(text=f"There is no web page {self.source.where} yet.")
        rows = self.source.page_copy(p, code)
        if rows is None or isinstance(rows, Call):
            return rows
        return rows[0] if rows else Done(text=f"There is no web page {self.source.where} yet.")

    def _page_sections(self, p: PlannerInput, clause) -> Call | Done | None:
        row = self._page_row(p)
        if not isinstance(row, dict):
            return row
        doc = PageDocument.from_inputs(_inputs(row))
        names = list(doc.layout.sections)
        return Done(text=f"The page has {len(names)} section{'s' if len(names) != 1 else ''}, top to bottom: "
                         f"{', '.join(names)}; I read {row.get('title')}, version {row.get('version')}.")

    def _page_style(self, p: PlannerInput, clause) -> Call | Done | None:
        row = self._page_row(p)
        if not isinstance(row, dict):
            return row
        style = PageDocument.from_inputs(_inputs(row)).style()
        said = "; ".join(f"{TOKENS[t].styles}: {style.get(t, 'not set')} (--{t})" for t in clause.args["tokens"])
        return Done(text=f"{said[0].upper()}{said[1:]}; I read {row.get('title')}, version {row.get('version')}.")

    def _headline(self, p: PlannerInput, clause) -> Call | Done | None:
        row = self._page_row(p)
        if not isinstance(row, dict):
            return row
        rows = [row]
        inputs = _inputs(rows[0])
        try:  # the page's own words: a reworded headline is an override of the design's
            texts = PageDocument.from_inputs(inputs).text_elements()
        except (KeyError, TypeError, ValueError):
            design = inputs.get("design") or {}
            texts = {"headline": design.get("title"), "tagline": (design.get("words") or {}).get("tagline", "")}
        return Done(text=f"The headline says '{texts.get('headline')}' (tagline: '{texts.get('tagline') or ''}'); "
                         f"I read {rows[0].get('title')}, version {rows[0].get('version')}.")


def _counted(counts: dict[str, dict[str, int]], kind: str | None) -> Done:
    """A count question answered from the view's counts (the same live nodes a query by kind counts)."""
    if kind:
        return Done(text=f"{sum(counts.get(kind, {}).values())} found.")
    held = ", ".join(f"{sum(by.values())} {k}" for k, by in sorted(counts.items()))
    return Done(text=f"The canvas holds {held} (I counted every live node by kind)." if held
                else "The canvas is empty.")


LOOK = ("lighting", "framing", "weather", "outfit")
"""What "how does shot 3 look" is answered with: the attributes an edit changes."""
ANSWERS = frozenset({"count", "list", "shots_with", "attribute", "versions", "last_turn", "slides_mentioning", "cut",
                     "notes_mentioning", "headline", "slide", "page_sections", "page_style"})
"""The questions the playbook answers (``QuestionReader``'s ``ask`` values)."""
