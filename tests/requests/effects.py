"""The request suite's rows carried out, their effects read on the canvas (#20 §4).

A row of ``tests/requests/effect_rows.py`` names a request, its context and the effect a person expects.  The
runner types the request the way a user's turn runs it (``Runtime.run``, the offline planner, a real project on
its own embedded engine over Bolt, or in the suite a database of its own on the worker's engine), reads the
canvas before and after, and judges what changed:

* shot edits: exactly the targets' images, their clips and the cut have new artifacts (hashes), each target's
  image carries the change in its inputs (lighting, framing, weather, outfit), and a relative change shows in
  the pixels (mean luma, warmth = red - blue, mean blue);
* the cut: its clips' order, a shot taken out or put back, a shot inserted or duplicated (one more shot on the
  storyboard, its image and clip, the cut one clip longer), a clip's duration;
* undo and revert: the canvas back to the state the words name (every output's hash as it was then);
* the page: the CSS tokens of ``:root``, the words in ``index.html``, its sections and pictures;
* slides: the .pptx's slide titles, each slide's preview hash (the slides not named keep theirs), the theme;
* questions, asks and refusals: nothing written (the canvas version did not move) and the exit code.

A row is ``pass`` (the effect and exit code asked for), ``asked`` (an honest clarification where an action was
expected), ``failed`` (exit 1: the turn said it failed), ``wrong`` (a clarification with another reason) or
``wrong_success``: exit 0 with another effect, the worst outcome, which must never happen (``error``: the turn
raised, a crash; ``setup_failed``: a turn of the row's history did not exit 0).

Premises are fresh (not the ones the grammar was written on): a ferry pilot's 8-shot story, a deck on community
solar gardens, a bicycle repair café's page.  One project per premise, shared by its rows; between rows the
canvas is put back to its originals through the bridge (the row's turn undone, then every output that differs
reverted to its original), which costs no provider call: the artifacts are stored and the signature cache
holds every rebuild.
"""

from __future__ import annotations

import io
import re
import shutil
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, ImageStat
from pptx import Presentation

from content.web_render import root_tokens
from jarvishub.commands.outcomes import exit_code, result_of
from jarvishub.evaluation.outputs import Canvas, invariants
from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.models.scripted import ScriptedModel, tool_call
from skills.storyboard import plan_story
from store.models import EdgeType, NodeStatus, new_id
from tests.content.agent import submit
from tools.deck.canvas import current_decks, find_deck, read_deck
from tools.page.canvas import current_pages, find_page, made_from_page

STORY_PREMISE = "an 8-shot short film about Ines, a ferry pilot on a frozen harbour"
SHOTS = 8
CHARACTER = plan_story(STORY_PREMISE, SHOTS).character.name
DECK_TOPIC = "a 5-slide deck about community solar gardens"
PAGE_BRIEF = "a website for a riverside bicycle repair cafe: warm, friendly, bold"
PAGE_SECTIONS = ["hero", "menu", "gallery", "testimonials", "about", "contact"]
GENERATED = ("generate_image", "generate_video", "assemble_cut")
EXIT_FOR_REASON = {"not_found": 4, "ambiguous": 5}
"""Exit codes of clarifications (the others: 2)."""


# ---------------------------------------------------------------- what a row expects


@dataclass(frozen=True)
class Edit:
    """Shot edits: shot number → {what: value} (the suite's form)."""

    shots: dict[int, dict[str, Any]]


@dataclass(frozen=True)
class Ask:
    """Asked about with this reason; nothing written."""

    reason: str


@dataclass(frozen=True)
class Answer:
    """A question answered: exit 0, nothing written, the reply matching ``reply`` (a regex) when given."""

    reply: str | None = None


@dataclass(frozen=True)
class Back:
    """The canvas as it was at a state of the row: 0 before its setup turns, k after the k-th."""

    state: int = 0


@dataclass(frozen=True)
class Op:
    """Another operation: its name and the suite's arguments (judged by :data:`JUDGES`)."""

    operation: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Ops:
    """Several page or deck operations in one request, judged together on the final state (a shot edit beside them:
    an :class:`Edit`)."""

    ops: tuple[Op | Edit, ...]


@dataclass(frozen=True)
class Row:
    """One request of the effect run."""

    category: str
    request: str
    expected: Any
    context: str = "story"
    setup: tuple[str, ...] = ()
    """Turns run first on the row's thread (the history an undo or a revert needs)."""

    @property
    def premise(self) -> str:
        found = PREMISE_OF.get(self.context.split(":")[0].split("=")[0], "story")
        # The cut's rows on a story of their own: each row and its putting back add versions of the one cut, and
        # after about a dozen a cut operation is measured as not done (see docs/requests.md).
        return "cut" if found == "story" and self.category == "cut" else found


STORIES = ("story", "cut", "versions", "mixed")
"""Premises that hold the 8-shot story."""

PREMISE_OF = {"deck": "deck", "page": "page", "both": "both", "empty": "empty", "mixed": "mixed"}


@dataclass
class Verdict:
    """How a row went."""

    row: Row
    verdict: str
    why: str = ""
    seconds: float = 0.0
    exit: int | None = None


# ---------------------------------------------------------------- premises


@dataclass
class State:
    """What a person would look at: each output's artifact hash, the cut's clip order, the page, the deck."""

    hashes: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    cut: list[str] = field(default_factory=list)
    shots: list[str] = field(default_factory=list)
    html: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    sections: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    hero: str = ""
    """The picture the page's hero shows (its CSS backdrop)."""
    titles: list[str] = field(default_factory=list)
    previews: list[str] = field(default_factory=list)
    theme: str = ""
    layout: dict[str, Any] = field(default_factory=dict)
    """The page's layout spec (columns, hero, theme, sections)."""
    stale: set[str] = field(default_factory=set)
    """The outputs whose current version is stale."""
    decks: int = 0
    pages: int = 0
    problems: list[str] = field(default_factory=list)
    """The canvas invariants' violations (one current version per output, ...)."""

    def same(self, other: State) -> bool:
        return (self.hashes, self.cut, self.shots, self.html, self.titles, self.previews, self.decks, self.pages) == (
            other.hashes, other.cut, other.shots, other.html, other.titles, other.previews, other.decks, other.pages)

    def changed(self, other: State) -> set[str]:
        """The outputs whose artifact differs in ``other`` (or that only one of them has)."""
        return {t for t in set(self.hashes) | set(other.hashes) if self.hashes.get(t) != other.hashes.get(t)}


class Premise:
    """One real project holding one premise, shared by its rows."""

    def __init__(self, kind: str, root: Path, host: Any = None) -> None:
        """``kind``: story, deck, page, both (a deck and a page), mixed (a story and a deck) or empty; ``host``: an
        engine to keep the canvas on as a database of its own (``Project.open(host=...)``), else its own engine."""
        self.kind = kind
        self.host = host
        self.project = Project.init(root / f"{kind}-{new_id()[-6:]}", host=host)
        self.runtime = Runtime(self.project, keep_browser=True)
        self.resets = 0
        self.resets_failed = 0
        self.clean = True
        """Whether the canvas is known to be the base (the last reset said so): the next row need not read it."""
        self.reset_error = ""
        """Why the last reset raised (empty when it did not)."""
        self._read: tuple[int, Canvas] | None = None
        """The last canvas read and the version it was read at (:meth:`canvas`)."""
        self.names: dict[str, str] | None = None
        """Output identity → the name the base's outputs keep (``outputs``)."""
        if kind in STORIES:
            self._story()
        if kind in ("deck", "both", "mixed"):
            submit(self.runtime, "skill__slides", topic=DECK_TOPIC)
        if kind in ("page", "both"):
            submit(self.runtime, "skill__design_to_web", brief=PAGE_BRIEF, n_layouts=1, sections=PAGE_SECTIONS)
        self.base = self.state()

    @property
    def store(self) -> Any:
        return self.project.store

    def close(self) -> None:
        """Close the project and delete its folder: its engine's supervisor stops the engine when the folder goes,
        instead of after the idle period."""
        self.runtime.close()
        self.project.close()
        if self.host is not None:
            self.host.drop_database(self.project.store.database)
        shutil.rmtree(self.project.root, ignore_errors=True)

    def _story(self) -> None:
        """Storyboard → images → clips → cut through the bridge, with small media (a scripted build)."""
        seen: dict[str, Any] = {}

        def observed(messages: list[Any]) -> dict[str, Any]:
            import json

            from langchain_core.messages import ToolMessage
            return json.loads(str([m for m in messages if isinstance(m, ToolMessage)][-1].content))["observation"]

        def images(messages: list[Any]) -> Any:
            seen["board"] = observed(messages)
            return tool_call("skill__reference_images", {"shot_ids": seen["board"]["shot_ids"], "width": 160,
                                                         "height": 96}, "c1")

        def clips(messages: list[Any]) -> Any:
            return tool_call("skill__video_clips", {"image_ids": observed(messages)["image_ids"], "duration_s": 2.0,
                                                    "fps": 4}, "c2")

        def cut(messages: list[Any]) -> Any:
            return tool_call("assemble_cut", {"clip_node_ids": observed(messages)["clip_ids"], "title": "final cut"},
                             "c3")

        model = ScriptedModel(script=[{"name": "skill__storyboard", "args": {"premise": STORY_PREMISE,
                                                                             "n_shots": SHOTS}},
                                      images, clips, cut, "built"])
        builder = Runtime(self.project, model=model)
        try:
            outcome = builder.run("build the story")
        finally:
            builder.close()
        assert outcome.outcome == "replied", outcome.reply

    # -- reading
    def canvas(self) -> Canvas:
        """The canvas as read at its current version, read again only when a commit moved the version.

        A row reads the same canvas several times (its state, the selection, the pictures before and after, the
        reset's steps): one version read (a round trip) stands for each read after the first, which on the story
        premise cost about 60 ms, more as the premise grows with the versions its resets set aside."""
        version = self.store.canvas_version()
        if self._read is None or self._read[0] != version:
            self._read = (version, Canvas.read(self.store))
        return self._read[1]

    def outputs(self, canvas: Canvas | None = None) -> dict[str, Any]:
        """Each generated output's current node, by a name that stays the same for the premise's whole life.

        Output keys (``current_outputs``) tell two outputs with one title apart by a suffix once a second one exists,
        rejected versions included: after "a 5-shot short drama ..." was built and undone, the premise's own
        "shot 4 image" became "shot 4 image #…" for good.  So the base's outputs keep the names they had when the
        premise was built (by identity), and a later output gets its key, suffixed when a base name holds it."""
        canvas = canvas or self.canvas()
        keys = canvas.output_keys()
        found: dict[str, Any] = {}
        for ident, node in canvas.current_by_identity().items():
            if node.provenance.tool not in GENERATED:
                continue
            name = (self.names or {}).get(ident)
            if name is None:
                name = keys[node.id].split(" #")[0]
                if name in (self.names or {}).values() or name in found:
                    name = f"{name} #{ident[-6:]}"
            found[name] = node
        if self.names is None:  # the first read is the base's (``__init__``)
            self.names = {canvas.identity(n.id)[0]: name for name, n in found.items()}
        return found

    def state(self) -> State:
        state = State()
        store = self.store
        if self.kind in STORIES:
            canvas = self.canvas()
            state.problems = invariants(canvas)
            outputs = self.outputs(canvas)
            state.hashes = {t: n.outputs[0].sha256 for t, n in outputs.items() if n.outputs}
            state.inputs = {t: dict(n.inputs) for t, n in outputs.items()}
            state.stale = {t for t, n in outputs.items() if n.status == NodeStatus.STALE}
            cut = outputs.get("final cut")
            if cut is not None:
                state.cut = [c.title for c in store.get_nodes(cut.inputs["clip_node_ids"])]
        # Every premise counts its shots: a film built on the empty one is judged by them (it was never judged so)
        state.shots = sorted(n.title for n in store.find_nodes(kind="shot") if n.status != NodeStatus.REJECTED
                             and not n.deleted)
        decks = current_decks(store)
        state.decks = len(decks)
        if decks:
            head = find_deck(store, decks[0].id)
            (pptx,) = head.outputs
            shown = Presentation(io.BytesIO(self.project.artifacts.read_bytes(pptx)))
            state.titles = [s.shapes.title.text for s in shown.slides]
            state.previews = [s.node.outputs[0].sha256 for s in read_deck(store, head).slides]
            state.theme = str(head.inputs.get("spec", {}).get("theme", ""))
        pages = current_pages(store)
        state.pages = len(pages)
        if pages:
            code = find_page(store, pages[0].id)
            state.html = (self.project.workspace / code.inputs["html_path"]).read_text()
            state.layout = dict(code.inputs.get("layout_spec") or {})
            state.tokens = root_tokens(state.html)
            state.sections = re.findall(r'<section[^>]*\bid="([^"]+)"', state.html)
            state.images = re.findall(r'<img[^>]*\bsrc="([^"]+)"', state.html)
            state.hero = "".join(re.findall(r"class=\"hero__frame\" style=\"background-image: url\('([^']+)'\)",
                                            state.html))
        return state

    def selection(self, context: str) -> list[str]:
        """The ids a row's context selects (``--select``)."""
        if context.startswith("sel=clip"):
            return [self.outputs()[f"shot {context.removeprefix('sel=clip')} clip"].id]
        if context.startswith("sel="):
            return [self.outputs()[f"shot {context.removeprefix('sel=')} image"].id]
        if context == "page:sel":
            _, preview = made_from_page(self.store, find_page(self.store, None).id)
            return [preview.id]
        if context.startswith("deck:sel="):
            n = int(context.split("=")[1])
            return [read_deck(self.store, find_deck(self.store, None)).slides[n - 1].node.id]
        if context == "deck:stale":  # slide 3 as it was before the setup retitled it (a selection left over)
            head = find_deck(self.store, None)
            [earlier] = [e.node for e in self.store.lineage(head.id, [EdgeType.VERSION_OF], max_depth=1)
                         if e.node.id != head.id]
            return [read_deck(self.store, earlier).slides[2].node.id]
        return []

    # -- putting the canvas back
    def call(self, tool: str, **args: Any) -> Any:
        return submit(self.runtime, tool, **args)

    def reset(self, turn_ids: list[str], after: State) -> bool:
        """Back to the premise's originals from ``after`` (the state the row left): the row's turns undone, newest
        first (what they made is set aside), then every output that still differs reverted to its original.
        True when the canvas is the base again."""
        self.resets += 1
        if self.kind in STORIES or (after.decks, after.pages) != (self.base.decks, self.base.pages):
            # a setup's turn a later one changed again is refused: reverted below.  (A deck's or a page's own edits
            # are put back by its own revert below: one call for all of a row's turns.)
            for turn_id in reversed(turn_ids):
                self.call("undo_turn", turn_id=turn_id)
            after = self.state()
        for suffix in (" image", " clip", "final cut"):  # an image's revert rebuilds its clip and the cut (cached)
            stale = [t for t in after.changed(self.base) if t.endswith(suffix) and t in self.base.hashes]
            if stale:
                outputs = self.outputs()
                for title in stale:
                    self.call("revert_version", node_id=outputs[title].id, original=True)
                after = self.state()
        if after.titles != self.base.titles or after.previews != self.base.previews:
            self.call("deck_revert", deck_id=find_deck(self.store, None).id, to="original")
            after = self.state()
        if after.html != self.base.html and after.pages:
            self.call("page_revert", page_id=find_page(self.store, None).id, to="original")
            after = self.state()
        self.clean = after.same(self.base)
        self.resets_failed += not self.clean
        return self.clean


# ---------------------------------------------------------------- judging


def _pixels(project: Project, node: Any) -> tuple[float, float, float]:
    """Mean luma, warmth (red - blue) and blue of an image artifact."""
    with Image.open(io.BytesIO(project.artifacts.read_bytes(node.outputs[0]))) as picture:
        r, g, b = ImageStat.Stat(picture.convert("RGB")).mean
    return 0.299 * r + 0.587 * g + 0.114 * b, r - b, b


def judge_edit(premise: Premise, expected: Edit, before: State, after: State, pictures: dict[str, Any]) -> str:
    """'' when exactly the targets changed, each as asked; else what differs."""
    want: set[str] = set()
    problems = []
    for n, changes in expected.shots.items():
        image = f"shot {n} image"
        old, new = before.inputs.get(image, {}), after.inputs.get(image, {})
        absolute = {k: v for k, v in changes.items() if k in ("lighting", "framing", "weather", "outfit")}
        if absolute and all(old.get(k, _DEFAULTS.get(k)) == v for k, v in absolute.items()) and len(absolute) == len(
                changes):
            continue  # it already has it: left alone
        want |= {image, f"shot {n} clip", "final cut"}
        for what, value in absolute.items():
            if new.get(what, _DEFAULTS.get(what)) != value:
                problems.append(f"{image} {what} is {new.get(what)!r}, not {value!r}")
        for what, direction in changes.items():
            if what in absolute:
                continue
            if what == "redo":
                key = "lighting" if direction == "lighting" else "seed"
                if new.get(key) == old.get(key):
                    problems.append(f"{image} redo: {key} unchanged")
                continue
            index = {"luma": 0, "warmth": 1, "blue": 2}[what]
            was, now = pictures["before"][n][index], pictures["after"][n][index]
            if (now > was) != (direction == "higher") or now == was:
                problems.append(f"{image} {what} measured {was:.1f} → {now:.1f}, not {direction}")
    changed = before.changed(after)
    if changed != want:
        problems.append(f"changed {sorted(changed)}, expected {sorted(want)}")
    return "; ".join(problems)


_DEFAULTS = {"framing": "medium", "weather": "clear", "outfit": None, "lighting": "neutral"}


def _shot(ref: Any, state: State) -> str:
    """The clip title a suite reference names: "S3" → "shot 3 clip", -1 → the cut's last clip."""
    if isinstance(ref, int):
        return state.cut[ref]
    return f"shot {str(ref).removeprefix('S')} clip"


def expected_cut(op: Op, before: State) -> list[str] | None:
    """The cut's clip order the operation asks for (None when it does not reorder)."""
    order = list(before.cut)
    a = op.args
    if op.operation == "reorder_cut":
        if "swap" in a:
            x, y = (order.index(_shot(s, before)) for s in a["swap"])
            order[x], order[y] = order[y], order[x]
            return order
        moved = _shot(a["move"], before)
        was = order.index(moved)
        order.remove(moved)
        if "by" in a:  # "move shot 3 up one": places from where it played
            order.insert(was + a["by"], moved)
        elif "to" in a:
            order.insert(len(order) if a["to"] == -1 else a["to"] - 1, moved)
        elif "after" in a:
            order.insert(order.index(_shot(a["after"], before)) + 1, moved)
        else:
            order.insert(order.index(_shot(a["before"], before)), moved)
        return order
    if op.operation == "remove_from_cut":
        gone = {_shot(s, before) for s in a["shots"]}
        return [c for c in order if c not in gone]
    return None


def judge_op(premise: Premise, op: Op, before: State, after: State) -> str:
    """'' when the operation's effect is on the canvas, and nothing else changed; else what differs."""
    name, a = op.operation, op.args
    changed = before.changed(after)
    if name in ("reorder_cut", "remove_from_cut"):
        want = expected_cut(op, before)
        if after.cut != want:
            return f"cut {after.cut}, expected {want}"
        return "" if changed <= {"final cut"} else f"changed {sorted(changed)}"
    if name == "return_to_cut":
        back = _shot(a["shot"], before)
        if back not in after.cut or len(after.cut) != len(before.cut) + 1:
            return f"cut {after.cut} lacks {back}"
        return "" if changed <= {"final cut"} else f"changed {sorted(changed)}"
    if name in ("insert_shot", "duplicate_shot"):
        new = [t for t in after.shots if t not in before.shots]
        if len(new) != 1 or len(after.cut) != len(before.cut) + 1:
            return f"shots {after.shots}, cut {after.cut}"
        made = {t for t in changed if t not in before.hashes}
        if len(made) != 2 or not changed - made <= {"final cut"}:
            return f"changed {sorted(changed)}"
        return ""
    if name == "set_clip_duration":
        clip = f"shot {str(a['shot']).removeprefix('S')} clip" if not isinstance(a["shot"], int) else before.cut[a["shot"]]
        old = float(before.inputs[clip].get("duration_s", 0))
        new = float(after.inputs[clip].get("duration_s", 0))
        target = a.get("duration_s", old + a.get("by_s", 0))
        if abs(new - target) > 1e-6:
            return f"{clip} lasts {new} s, not {target}"
        return "" if changed == {clip, "final cut"} else f"changed {sorted(changed)}"
    if name in ("question", "compare_versions", "list_versions"):
        return ""
    if name.startswith("deck_") or name == "build_deck":
        return judge_deck(op, before, after)
    if name.startswith("page_") or name in ("revise_page", "build_page"):
        return judge_page(op, before, after)
    if name == "build_narrative":
        return "" if len(after.shots) > len(before.shots) and not changed - {t for t in after.hashes
                                                                             if t not in before.hashes} else \
            f"changed {sorted(changed)}"
    return f"no judge for {name}"


def judge_deck(op: Op, before: State, after: State) -> str:
    name, a = op.operation, op.args
    titles, shown = list(before.titles), list(before.previews)
    if name == "build_deck":
        return "" if after.decks == before.decks + 1 else f"{after.decks} decks"
    if after.decks != before.decks:
        return f"{after.decks} decks (a new deck was built)"
    if name == "deck_delete_slide":
        del titles[a["slide"] - 1], shown[a["slide"] - 1]
    elif name == "deck_duplicate_slide":  # the copy says and shows what its original does (the same preview)
        titles.insert(a["after"], titles[a["slide"] - 1])
        shown.insert(a["after"], shown[a["slide"] - 1])
    elif name == "deck_move_slide":
        i = a["slide"] - 1
        title, preview = titles.pop(i), shown.pop(i)
        titles.insert(a["to"] - 1, title)
        shown.insert(a["to"] - 1, preview)
    elif name == "deck_edit_slide":
        i = a["slide"] - 1
        if "title" in a:
            titles[i] = a["title"]
        if after.titles != titles:
            return f"titles {after.titles}, expected {titles}"
        others = [p for j, p in enumerate(after.previews) if j != i]
        return "" if others == [p for j, p in enumerate(shown) if j != i] else "another slide's preview changed"
    elif name == "deck_add_slide":
        at = a["after"]
        if len(after.titles) != len(titles) + 1 or after.titles[:at] != titles[:at] or after.titles[at + 1:] != \
                titles[at:]:
            return f"titles {after.titles} (a slide after {at} expected)"
        want = a.get("title") or a["about"]
        if want.lower() not in after.titles[at].lower():
            return f"new slide titled {after.titles[at]!r}, not about {want!r}"
        return "" if after.previews[:at] + after.previews[at + 1:] == shown else "another slide's preview changed"
    elif name in ("deck_add_bullet", "deck_remove_bullet", "deck_regenerate_illustration"):
        i = a["slide"] - 1
        changed = [j for j, (x, y) in enumerate(zip(shown, after.previews, strict=False)) if x != y]
        if after.titles != titles or changed != [i]:
            return f"slides changed {changed}, expected [{i}]"
        return ""
    elif name == "deck_set_theme":
        if after.titles != titles or any(x == y for x, y in zip(shown, after.previews, strict=False)):
            return "a slide kept its look under a new theme"
        return "" if a["theme"] in after.theme else f"theme {after.theme!r}"
    else:
        return f"no deck judge for {name}"
    if after.titles != titles:
        return f"titles {after.titles}, expected {titles}"
    return "" if after.previews == shown else "another slide's preview changed"


_COLOURS = {"green": (1, (0, 2)), "navy": (2, (0, 1)), "teal": (1, (0,)), "red": (0, (1, 2))}


def _rgb(colour: str) -> tuple[int, int, int] | None:
    found = re.fullmatch(r"#([0-9a-fA-F]{6})", colour.strip())
    return tuple(int(found.group(1)[i:i + 2], 16) for i in (0, 2, 4)) if found else None  # type: ignore[return-value]


def _number(value: str) -> float | None:
    found = re.match(r"\s*(-?[\d.]+)", value)
    return float(found.group(1)) if found else None


def judge_page(op: Op, before: State, after: State) -> str:
    name, a = op.operation, op.args
    if name == "build_page":
        return "" if after.pages == before.pages + 1 else f"{after.pages} pages"
    if after.pages != before.pages:
        return f"{after.pages} pages (a new page was built)"
    if after.html == before.html:
        return "the page did not change"
    old, new = before.tokens, after.tokens
    moved = {k for k in set(old) | set(new) if old.get(k) != new.get(k)}
    if name == "page_set_style":
        token, value = a["token"], str(a["value"])
        if token == "spacing":  # the space between things: the sections' padding moves the way asked
            was, now = _number(old.get("section-padding", "")), _number(new.get("section-padding", ""))
            more = value in ("more", "bigger")
            if was is None or now is None or (now > was) != more or now == was:
                return f"--section-padding {old.get('section-padding')} → {new.get('section-padding')}, not {value}"
            return ""
        if token in ("palette", "fonts", "background"):
            hit = {k for k in moved if token.rstrip("s") in k or token == "palette"}
            return "" if hit else f"tokens moved {sorted(moved)}, none of them {token}"
        if token not in moved:
            return f"--{token} unchanged ({old.get(token)}); moved {sorted(moved)}"
        if moved - {token, "button-text-colour"}:
            return f"tokens moved {sorted(moved)}, expected only --{token}"
        was, now = _number(old.get(token, "")), _number(new[token])
        if value in ("bigger", "much bigger", "more") and not (was is not None and now is not None and now > was):
            return f"--{token} {old.get(token)} → {new[token]}, not {value}"
        if value.endswith("px") and value[:1] in "+-":  # "10px bigger": ten more than it was
            wanted = (was or 0) + float(value[:-2])
            if now is None or abs(now - wanted) > 0.01:
                return f"--{token} {old.get(token)} → {new[token]}, not {value}"
        elif value.endswith("px") and new[token] != value:
            return f"--{token} is {new[token]}, not {value}"
        if value in _COLOURS:
            rgb = _rgb(new[token])
            top, under = _COLOURS[value]
            if rgb is None or any(rgb[top] <= rgb[j] for j in under):
                return f"--{token} is {new[token]}, not {value}"
        return ""
    if name == "page_set_text":
        text = a["text"]
        if a["element"] == "headline" and not re.search(rf"<h1[^>]*>\s*{re.escape(text)}\s*</h1>", after.html):
            return f"the headline is not {text!r}"
        return "" if text in after.html else f"{text!r} not on the page"
    order = list(before.sections)
    if name == "page_add_section":
        at = order.index(a["after"]) + 1 if "after" in a else None
        new = [s for s in after.sections if s not in order]
        if len(new) != 1 or not new[0].startswith(a["name"]):
            return f"sections {after.sections}: no new {a['name']}"
        if at is not None:
            order.insert(at, new[0])
            if after.sections != order:
                return f"sections {after.sections}, expected {order}"
        return "" if [s for s in after.sections if s != new[0]] == before.sections else f"sections {after.sections}"
    if name == "page_remove_section":
        order.remove(a["section"])
    elif name == "page_move_section":
        order.remove(a["section"])
        if a.get("to") == "first":
            order.insert(0, a["section"])
        elif a.get("to") == "last":
            order.append(a["section"])
        elif "before" in a:
            order.insert(order.index(a["before"]), a["section"])
        else:
            order.insert(order.index(a["after"]) + 1, a["section"])
    elif name == "page_replace_image":
        # Only the place named changes: the hero's backdrop, or one gallery picture (picture 1 too: the hero keeps
        # the picture it showed).
        wanted = [] if a["image"] == "hero" else [a["image"] - 1]
        swapped = [j for j, (x, y) in enumerate(zip(before.images, after.images, strict=False)) if x != y]
        hero = (before.hero != after.hero) == (a["image"] == "hero")
        return "" if swapped == wanted and len(after.images) == len(before.images) and hero else \
            f"pictures changed {swapped}, hero {'changed' if before.hero != after.hero else 'kept'}"
    elif name == "revise_page":
        return ""
    else:
        return f"no page judge for {name}"
    return "" if after.sections == order else f"sections {after.sections}, expected {order}"


def judge(premise: Premise, row: Row, out: Any, states: list[State], after: State, written: bool,
          pictures: dict[str, Any]) -> tuple[str, str]:
    """(verdict, why) of a row from its outcome and what the canvas shows."""
    before = states[-1]
    code = exit_code(out)
    expected = row.expected
    reason = (out.clarification or {}).get("reason") if out.outcome in ("clarification", "interrupted") else None
    if isinstance(expected, Ask):
        if code == 0 and written:
            return "wrong_success", f"done ({out.reply[:120]!r}) where {expected.reason} was due"
        if written:
            return "wrong", "a clarification that wrote to the canvas"
        want = EXIT_FOR_REASON.get(expected.reason, 2)
        if reason == expected.reason and code == want:
            return "pass", ""
        return "wrong", f"{result_of(out)} ({reason}, exit {code}), not {expected.reason}"
    if code != 0:
        if reason is not None and not written:
            return "asked", f"{reason}: {(out.reply or '')[:160]!r}"
        return ("failed" if code == 1 else "wrong"), f"exit {code}: {(out.reply or '')[:160]!r}"
    if isinstance(expected, Answer):
        if written:
            return "wrong_success", "a question wrote to the canvas"
        if expected.reply and not re.search(expected.reply, out.reply, re.I):
            return "wrong_success", f"answered {out.reply[:160]!r}"
        return "pass", ""
    if isinstance(expected, Back):
        want = states[expected.state]
        return ("pass", "") if after.same(want) else ("wrong_success", f"not back to state {expected.state}: "
                                                       f"{sorted(after.changed(want))} {after.titles} "
                                                       f"{after.html == want.html}")
    if isinstance(expected, Op) and not written and already_so(expected, row.request, before):
        return "pass", ""  # exit 0, nothing written, and the canvas held it already (a shot edit's "already has")
    if isinstance(expected, Op) and expected.operation == "note":
        return ("pass", "") if written and before.same(after) else ("wrong_success", "no note written, or more")
    if isinstance(expected, Edit):
        problem = judge_edit(premise, expected, before, after, pictures)
    elif isinstance(expected, Op) and expected.operation in ("status", "explore", "stale_repair"):
        problem = judge_shot_op(row, expected, before, after)
    elif isinstance(expected, Op):
        problem = judge_op(premise, expected, before, after)
    elif all(isinstance(op, Op) and op.operation.startswith("deck_") for op in expected.ops):
        problem = judge_deck_steps(expected.ops, before, after)
    else:
        problem = ""
        for op in expected.ops:
            problem = problem or (judge_edit_beside(op, before, after) if isinstance(op, Edit)
                                  else judge_ops_part(op, before, after))
    return ("wrong_success", problem) if problem else ("pass", "")


def judge_edit_beside(expected: Edit, before: State, after: State) -> str:
    """Shot edits asked beside another kind's change ("make shot 3 night and the deck dark"): each shot's image as
    asked (absolute changes), and of the film's outputs exactly those shots' image and clip and the cut changed (the
    other part is judged on its own)."""
    want: set[str] = set()
    problems = []
    for n, changes in expected.shots.items():
        image = f"shot {n} image"
        if set(changes) - {"lighting", "framing", "weather", "outfit"}:
            return f"{image}: only absolute changes are judged beside another kind's change"
        old, new = before.inputs.get(image, {}), after.inputs.get(image, {})
        if all(old.get(k, _DEFAULTS.get(k)) == v for k, v in changes.items()):
            continue  # it already has it: left alone
        want |= {image, f"shot {n} clip", "final cut"}
        problems += [f"{image} {what} is {new.get(what)!r}, not {value!r}" for what, value in changes.items()
                     if new.get(what, _DEFAULTS.get(what)) != value]
    film = {t for t in before.changed(after) if t.startswith("shot ") or t == "final cut"}
    if film != want:
        problems.append(f"changed {sorted(film)}, expected {sorted(want)}")
    return "; ".join(problems)


def judge_shot_op(row: Row, op: Op, before: State, after: State) -> str:
    """A shot's image rejected (its earlier version current again) or explored (a candidate selected): that image
    changed, with its clip and the cut, and nothing else; "regenerate what is stale": only stale outputs rebuilt,
    none left stale."""
    changed = before.changed(after)
    if op.operation == "stale_repair":
        if after.stale:
            return f"still stale: {sorted(after.stale)}"
        return "" if changed <= before.stale else f"changed {sorted(changed - before.stale)}, none of them stale"
    if op.operation == "status" and op.args.get("status") != "rejected":
        return f"no judge for status {op.args.get('status')}"
    found = re.search(r"\bshot (\d+)", row.request) or re.fullmatch(r"sel=(\d+)", row.context)
    if found is None:
        return f"no shot named by {row.request!r} [{row.context}]"
    n = found.group(1)
    want = {f"shot {n} image", f"shot {n} clip", "final cut"}
    if f"shot {n} image" not in changed or not changed <= want:
        return f"changed {sorted(changed)}, expected shot {n}'s image with its clip and the cut"
    return ""


def already_so(op: Op, request: str, before: State) -> bool:
    """Whether the canvas already held what a page or deck operation asks (the turn rightly changed nothing and
    said so): read from the page's layout and tokens and the deck's theme, never from the reply."""
    if op.operation == "page_set_style" and str(op.args.get("value", "")).endswith("px"):
        return before.tokens.get(str(op.args["token"])) == op.args["value"]
    if op.operation == "page_set_style" and op.args.get("token") == "heading-weight":  # 900 is the boldest there is
        value = str(op.args.get("value"))
        return before.tokens.get("heading-weight") == {"bolder": "900", "black": "900", "lighter": "100",
                                                        "bold": "700"}.get(value, value)
    if op.operation == "deck_set_theme":
        return bool(before.theme) and str(op.args.get("theme", "")).lower() in before.theme.lower()
    if op.operation != "revise_page":
        return False
    text = request.lower()
    named: dict[str, Any] = {}
    if re.search(r"full[\s-]*(?:bleed|width)|edge[\s-]*to[\s-]*edge", text):
        named["hero"] = "full-bleed"
    elif re.search(r"\b(?:contained|boxed|inset)\b", text):
        named["hero"] = "contained"
    if columns := re.search(r"\b(\d+) columns?\b", text):
        named["columns"] = int(columns.group(1))
    if re.search(r"\bdark\b", text):
        named["theme"] = "dark"
    elif re.search(r"\blight\b", text):
        named["theme"] = "light"
    return bool(named) and all(before.layout.get(k) == v for k, v in named.items())


def judge_deck_steps(ops: tuple[Op, ...], before: State, after: State) -> str:
    """Several slide operations in one request, each applied to the deck the one before it left (the suite's
    arguments number slides that way: "delete slide 2 and retitle slide 4" retitles what is then slide 3)."""
    titles = list(before.titles)
    edited: set[int] = set()
    for op in ops:
        a = op.args
        if op.operation in ("deck_add_bullet", "deck_remove_bullet"):
            edited.add(a["slide"])  # the slide's words change, its title stays; its preview is drawn again
        elif op.operation == "deck_delete_slide":
            del titles[a["slide"] - 1]
        elif op.operation == "deck_move_slide":
            titles.insert(a["to"] - 1, titles.pop(a["slide"] - 1))
        elif op.operation == "deck_edit_slide" and "title" in a:
            titles[a["slide"] - 1] = a["title"]
        else:
            return f"no step judge for {op.operation}"
    if edited and len(after.previews) == len(before.previews):
        changed = {i for i, (x, y) in enumerate(zip(before.previews, after.previews, strict=True), 1) if x != y}
        if changed != edited:
            return f"slides {sorted(changed)} drawn again, expected {sorted(edited)}"
    return "" if after.titles == titles and after.decks == before.decks else f"titles {after.titles}, expected {titles}"


def judge_ops_part(op: Op, before: State, after: State) -> str:
    """Several page operations in one turn: each token asked for moved (the turn's other changes aside)."""
    if op.operation == "page_set_style":
        moved = {k for k in set(before.tokens) | set(after.tokens) if before.tokens.get(k) != after.tokens.get(k)}
        token = {"spacing": "section-padding"}.get(op.args["token"], op.args["token"])
        return "" if any(token.rstrip("s") in k or token == "palette" for k in moved) else f"--{token} unchanged"
    if op.operation == "page_undo":
        return ""
    return judge_op(None, op, before, after) if op.operation.startswith(("deck_", "revise")) else ""  # type: ignore[arg-type]


# ---------------------------------------------------------------- the runner


class EffectRunner:
    """Runs rows on their premises, one project per premise at a time (each on its own engine, or all on
    ``host``)."""

    def __init__(self, root: Path, host: Any = None) -> None:
        self.root = root
        self.host = host
        self.premises: dict[str, Premise] = {}
        self.build_seconds: dict[str, float] = {}

    def premise(self, kind: str) -> Premise:
        """The premise's project, opened the first time a row needs it (the others closed: one engine at a time)."""
        if kind not in self.premises:
            self.close()
            started = time.perf_counter()
            self.premises[kind] = Premise(kind, self.root, self.host)
            self.build_seconds[kind] = time.perf_counter() - started
        return self.premises[kind]

    def close(self, kind: str | None = None) -> None:
        for name in [kind] if kind else list(self.premises):
            found = self.premises.pop(name, None)
            if found is not None:
                found.close()

    def run(self, row: Row) -> Verdict:
        premise = self.premise(row.premise)
        runtime, store = premise.runtime, premise.store
        thread = new_id()
        states = [premise.base if premise.clean else premise.state()]
        turns: list[str] = []
        for request in row.setup:
            done = runtime.run(request, thread_id=thread)
            turns.append(done.turn_id)
            if exit_code(done) != 0:
                if not self._reset(premise, turns, premise.state()):
                    self.close(row.premise)
                return Verdict(row, "setup_failed", f"{request!r}: {done.reply[:160]}")
            states.append(premise.state())
        selected = premise.selection(row.context)
        pictures: dict[str, Any] = {}
        if isinstance(row.expected, Edit) and premise.kind in STORIES:
            pictures["before"] = self._pictures(premise, row.expected)
        version = store.canvas_version()
        started = time.perf_counter()
        try:
            out = runtime.run(row.request, thread_id=thread, selected=selected or None)
        except Exception as error:  # noqa: BLE001 - a turn that raised: the row's verdict, and a fresh premise
            self.close(row.premise)
            return Verdict(row, "error", f"the turn raised {error!r}"[:300], time.perf_counter() - started)
        seconds = time.perf_counter() - started
        turns.append(out.turn_id)
        written = any(c.node_ids or c.edge_ids for c in store.commits(since_version=version))
        after = premise.state()
        if "before" in pictures:
            pictures["after"] = self._pictures(premise, row.expected)
        try:
            verdict, why = judge(premise, row, out, states, after, written, pictures)
        except (KeyError, IndexError, ValueError) as error:  # an effect the judge cannot even read: not done
            verdict, why = "wrong_success" if exit_code(out) == 0 else "wrong", f"unreadable effect: {error!r}"
        if after.problems and verdict == "pass":
            verdict, why = "wrong_success", "; ".join(after.problems)
        if (written or row.setup) and not self._reset(premise, turns, after):
            why += f" (the canvas could not be put back{': ' + premise.reset_error if premise.reset_error else ''}: " \
                   "the premise is rebuilt)"
            self.close(row.premise)
        return Verdict(row, verdict, why, seconds, exit_code(out))

    @staticmethod
    def _reset(premise: Premise, turns: list[str], after: State) -> bool:
        """Put the canvas back; False (the premise is then rebuilt) when that fails, whatever the error: a row's
        verdict is already known, and the rows after it need a clean premise, not a stopped run."""
        try:
            return premise.reset(turns, after)
        except Exception as error:  # noqa: BLE001 - reported with the row, and the premise is rebuilt
            premise.reset_error = repr(error)[:200]
            return False

    @staticmethod
    def _pictures(premise: Premise, expected: Edit) -> dict[int, tuple[float, float, float]]:
        outputs = premise.outputs()
        return {n: _pixels(premise.project, outputs[f"shot {n} image"]) for n in expected.shots
                if f"shot {n} image" in outputs}

    def run_all(self, rows: Iterable[Row]) -> Iterator[Verdict]:
        """Rows grouped by premise (one engine at a time), in their order within each premise."""
        rows = list(rows)
        for kind in dict.fromkeys(r.premise for r in rows):
            for row in rows:
                if row.premise == kind:
                    yield self.run(row)
            self.close(kind)


def tally(verdicts: list[Verdict]) -> dict[str, Any]:
    """Pass rate per category, the wrong successes, time per row."""
    per: dict[str, dict[str, int]] = {}
    for v in verdicts:
        counts = per.setdefault(v.row.category, {"rows": 0})
        counts["rows"] += 1
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    seconds = sorted(v.seconds for v in verdicts)
    return {
        "rows": len(verdicts),
        "pass": sum(v.verdict == "pass" for v in verdicts),
        "wrong_successes": [(v.row.request, v.row.context, v.why) for v in verdicts if v.verdict == "wrong_success"],
        "per_category": {c: {**n, "pass_rate": round(n.get("pass", 0) / n["rows"], 3)} for c, n in sorted(per.items())},
        "turn_seconds_median": round(seconds[len(seconds) // 2], 3) if seconds else None,
        "turn_seconds_p95": round(seconds[int(len(seconds) * 0.95)], 3) if seconds else None,
    }

