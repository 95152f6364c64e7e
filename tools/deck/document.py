"""A deck as the deck tools edit it: slides in order, each with a lineage key, and the deck's theme.

A slide keeps its *key* (the id of the first slide node of its lineage) through
every version of the deck: moved, retitled or re-illustrated, it is still the
same slide, so "undo the retitle of slide 2" finds it wherever it is now.  The
operations here are pure: each returns the new slide list (and theme) and a
:class:`~tools.changes.Change` whose edits say what changed, and
:func:`undo_slides` applies a change backwards on a later version.

Edit fields: ``slides`` (the keys in order; ``detail.action`` add, remove or
move), ``slide:KEY`` (title, bullets, notes), ``illustration:KEY`` (the
picture's node and artifact), ``theme``.
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass, field, replace
from typing import Any

from PIL import ImageColor

from store.models import CanvasNode, new_id
from tools.base import ToolError
from tools.changes import Change, Edit, NothingToChange
from tools.native.slide_spec import DeckSpec, SlideSpec, SlideTheme


class DeckEditRefused(ToolError):
    """A deck edit that cannot be made as asked (nothing would change, a deck needs a slide, ...)."""


class DeckUnchanged(DeckEditRefused, NothingToChange):
    """The deck already is as the edit asks: nothing to change."""


class NoSuchSlide(DeckEditRefused):
    """A slide number the deck does not have; the message says how many it has."""


class NoIllustration(DeckEditRefused):
    """The slide has no picture to regenerate; the message names the slides that have one."""


class UnknownTheme(DeckEditRefused):
    """A theme that is neither a preset nor a colour; the message lists the presets."""


class SlideChangeOverridden(DeckEditRefused):
    """A change cannot be undone on its own: a later change set the same thing again."""


THEMES: dict[str, SlideTheme] = {t.name: t for t in (
    SlideTheme(),
    SlideTheme(name="dark", background="#1e2129", text="#eceff4", accent="#88c0d0", box_fill="#2e3440"),
    SlideTheme(name="midnight", background="#0f1b33", text="#e8eefc", accent="#f2b134", box_fill="#1f2d4d"),
    SlideTheme(name="ocean", background="#f0f7fb", text="#0b2838", accent="#0a6e8a", box_fill="#d3ecf3"),
    SlideTheme(name="forest", background="#f3f7f0", text="#1f2e1a", accent="#3a7d2c", box_fill="#dcebd3"),
    SlideTheme(name="sunset", background="#fff6ee", text="#3a1f12", accent="#d9541e", box_fill="#fbe0cc"),
    SlideTheme(name="mono", background="#ffffff", text="#111111", accent="#444444", box_fill="#e6e6e6"),
)}
"""The preset themes, by name; any colour makes a theme of its own (:func:`theme_named`)."""


@dataclass(frozen=True)
class Slide:
    """One slide of a deck version: what it shows, its lineage key, and the canvas nodes behind it."""

    key: str
    spec: SlideSpec
    node: CanvasNode | None = None
    """The slide node that shows it now (None for a new slide)."""
    content: CanvasNode | None = None
    """Its content ``text`` node (slides the ``slides`` skill made have one)."""
    pictures: tuple[CanvasNode, ...] = ()
    """The image nodes it shows."""
    new_content: dict[str, Any] | None = None
    """Content to record as a new version of ``content`` (or a new content node)."""
    continues: str | None = None
    """A set-aside slide node this one brings back (undoing a delete): the new node is a version of it."""
    made: tuple[Any, ...] = field(default=())
    """Mutations made for this slide first (a generated picture) that go in the same batch."""

    def words(self) -> dict[str, Any]:
        """Title, bullets and notes: what an edit of the slide's words changes."""
        return {"title": self.spec.title, "bullets": list(self.spec.bullets), "notes": self.spec.notes}


@dataclass(frozen=True)
class Deck:
    """A deck version: its node, spec and slides in order."""

    node: CanvasNode
    spec: DeckSpec
    slides: list[Slide]

    def slide(self, number: int) -> tuple[int, Slide]:
        """The 0-based index and the slide of a 1-based number (-1: the last); :class:`NoSuchSlide`."""
        count = len(self.slides)
        index = count - 1 if number == -1 else number - 1
        if not 0 <= index < count:
            raise NoSuchSlide(f"the deck has no slide {number}; it has {count} slides (1 to {count})")
        return index, self.slides[index]


# ---------------------------------------------------------------- themes


def theme_named(value: str) -> SlideTheme:
    """A preset theme, or one built around a colour ('teal', '#1a7f8c'; 'dark teal' on a dark background)."""
    word = " ".join(value.lower().replace("theme", "").split())
    if word in THEMES:
        return THEMES[word]
    dark = word.startswith("dark ")
    try:
        r, g, b = ImageColor.getrgb(word.removeprefix("dark ").replace(" ", "").replace("grey", "gray"))[:3]
    except ValueError:
        raise UnknownTheme(f"{value!r} is not a theme; give one of {', '.join(THEMES)} or a colour "
                           "('teal', '#1a7f8c', 'dark green')") from None
    hue, lightness, saturation = colorsys.rgb_to_hls(r / 255, g / 255, b / 255)
    accent = _hex(colorsys.hls_to_rgb(hue, min(max(lightness, 0.3), 0.65 if dark else 0.45), saturation))
    if dark:
        return SlideTheme(name=word, background=_hex(colorsys.hls_to_rgb(hue, 0.1, saturation * 0.4)),
                          text="#eef0f3", accent=accent, box_fill=_hex(colorsys.hls_to_rgb(hue, 0.2, saturation * 0.4)))
    return SlideTheme(name=word, background=_hex(colorsys.hls_to_rgb(hue, 0.975, saturation * 0.5)), text="#212529",
                      accent=accent, box_fill=_hex(colorsys.hls_to_rgb(hue, 0.9, saturation * 0.6)))


def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(max(0.0, min(1.0, c)) * 255):02x}" for c in rgb)


# ---------------------------------------------------------------- edits


def add_slide(deck: Deck, after: int, spec: SlideSpec, content: dict[str, Any]) -> tuple[list[Slide], Change]:
    """A new slide after slide ``after`` (0: first; -1: last)."""
    count = len(deck.slides)
    index = count if after == -1 else after
    if not 0 <= index <= count:
        raise NoSuchSlide(f"the deck has no slide {after} to put a slide after; it has {count} slides "
                          f"(give 0 to {count})")
    slide = Slide(key=new_id(), spec=spec, new_content=content)
    slides = [*deck.slides[:index], slide, *deck.slides[index:]]
    edit = Edit(field="slides", before=_keys(deck.slides), after=_keys(slides),
                detail={"action": "add", "key": slide.key, "index": index, "title": spec.title})
    return slides, Change(op="add_slide", summary=f"added slide {index + 1} '{spec.title}'", edits=[edit])


def duplicate_slide(deck: Deck, number: int, after: int | None = None) -> tuple[list[Slide], Change]:
    """A copy of slide ``number`` (its title, bullets, notes, pictures and diagram) after slide ``after`` (0:
    first; -1: last); by default right after the slide it copies.  The copy is a slide of its own: editing one
    leaves the other as it is, and undoing the change takes the copy away as undoing an added slide does."""
    index, slide = deck.slide(number)
    count = len(deck.slides)
    at = index + 1 if after is None else count if after == -1 else after
    if not 0 <= at <= count:
        raise NoSuchSlide(f"the deck has no slide {after} to put the copy after; it has {count} slides "
                          f"(give 0 to {count})")
    copy = Slide(key=new_id(), spec=slide.spec.model_copy(deep=True))
    slides = [*deck.slides[:at], copy, *deck.slides[at:]]
    edit = Edit(field="slides", before=_keys(deck.slides), after=_keys(slides),
                detail={"action": "add", "key": copy.key, "index": at, "title": slide.spec.title,
                        "copy_of": slide.key, "copy_of_number": index + 1})
    return slides, Change(op="duplicate_slide", summary=f"copied slide {index + 1} '{slide.spec.title}' as slide "
                          f"{at + 1}", edits=[edit])


def delete_slide(deck: Deck, number: int) -> tuple[list[Slide], Change]:
    """The deck without one slide (kept on the canvas, set aside; undoing brings it back)."""
    index, slide = deck.slide(number)
    if len(deck.slides) == 1:
        raise DeckEditRefused("that is the deck's only slide; a deck needs one")
    slides = [s for s in deck.slides if s.key != slide.key]
    edit = Edit(field="slides", before=_keys(deck.slides), after=_keys(slides),
                detail={"action": "remove", "key": slide.key, "index": index, "title": slide.spec.title,
                        "node": slide.node.id if slide.node else None, "spec": slide.spec.model_dump(mode="json")})
    return slides, Change(op="delete_slide", summary=f"deleted slide {index + 1} '{slide.spec.title}'", edits=[edit])


def move_slide(deck: Deck, number: int, to: int) -> tuple[list[Slide], Change]:
    """One slide moved so it becomes slide ``to`` (-1: last)."""
    index, slide = deck.slide(number)
    count = len(deck.slides)
    target = count - 1 if to == -1 else to - 1
    if not 0 <= target < count:
        raise NoSuchSlide(f"the deck has no place {to}; it has {count} slides (1 to {count})")
    if target == index:
        raise DeckUnchanged(f"slide {index + 1} is already there; nothing to change")
    rest = [s for s in deck.slides if s.key != slide.key]
    slides = [*rest[:target], slide, *rest[target:]]
    edit = Edit(field="slides", before=_keys(deck.slides), after=_keys(slides),
                detail={"action": "move", "key": slide.key, "index": index, "to_index": target,
                        "title": slide.spec.title})
    return slides, Change(op="move_slide", summary=f"moved slide {index + 1} '{slide.spec.title}' to place "
                                                   f"{target + 1}", edits=[edit])


def edit_slide(deck: Deck, number: int, *, title: str | None = None, bullets: list[str] | None = None,
               notes: str | None = None) -> tuple[list[Slide], Change]:
    """New title, bullets or notes for one slide (its picture and diagram stay)."""
    index, slide = deck.slide(number)
    after = {**slide.words(), **{k: v for k, v in (("title", title), ("bullets", bullets), ("notes", notes))
                                 if v is not None}}
    if after == slide.words():
        raise DeckUnchanged(f"slide {index + 1} already says that; nothing to change")
    edited = with_words(slide, after)
    said = [k for k in ("title", "bullets", "notes") if after[k] != slide.words()[k]]
    summary = (f"retitled slide {index + 1} '{slide.spec.title}' to '{after['title']}'" if said == ["title"]
               else f"edited the {' and '.join(said)} of slide {index + 1} '{after['title']}'")
    edit = Edit(field=f"slide:{slide.key}", before=slide.words(), after=after, detail={"number": index + 1})
    return _replaced(deck.slides, index, edited), Change(op="edit_slide", summary=summary, edits=[edit])


def set_theme(deck: Deck, theme: SlideTheme) -> Change:
    """The change of the deck's theme (every slide is drawn again in it)."""
    before = deck.spec.theme or THEMES["light"]
    if before == theme:
        raise DeckUnchanged(f"the deck's theme is already {theme.name}; nothing to change")
    return Change(op="set_theme", summary=f"theme: {before.name} -> {theme.name}",
                  edits=[Edit(field="theme", before=before.model_dump(), after=theme.model_dump())])


def new_illustration(deck: Deck, number: int, picture: CanvasNode, uri: str, made: list[Any],
                     old: CanvasNode) -> tuple[list[Slide], Change]:
    """Slide ``number`` showing ``picture`` where it showed ``old``."""
    index, slide = deck.slide(number)
    old_uri = next((i for i in slide.spec.images if _uri(i) == f"artifact://sha256/{old.outputs[0].sha256}"),
                   slide.spec.images[0] if slide.spec.images else None)
    images = [uri if i is old_uri else i for i in slide.spec.images] or [uri]
    sources = [picture.id if s == old.id else s for s in slide.spec.source_node_ids]
    spec = slide.spec.model_copy(update={"images": images, "source_node_ids": sources})
    edited = replace(slide, spec=spec, pictures=tuple(picture if p.id == old.id else p for p in slide.pictures),
                     made=tuple(made))
    edit = Edit(field=f"illustration:{slide.key}", before={"node_id": old.id, "uri": _uri(old_uri)},
                after={"node_id": picture.id, "uri": uri}, detail={"number": index + 1})
    return _replaced(deck.slides, index, edited), Change(
        op="regenerate_illustration", summary=f"new illustration for slide {index + 1} '{slide.spec.title}'",
        edits=[edit])


# ---------------------------------------------------------------- undo


@dataclass
class Undone:
    """What taking a change back needs: the slides, the theme, and pictures to bring back."""

    slides: list[Slide]
    theme: SlideTheme | None
    edits: list[Edit]
    pictures: list[tuple[str, str]] = field(default_factory=list)
    """(node id of the picture shown now, node id of the picture to show again)."""


def undo_slides(deck: Deck, change: Change, removed: dict[str, Slide]) -> Undone:
    """The deck with ``change`` taken back (later changes stay), or :class:`SlideChangeOverridden`.

    ``removed`` holds, by key, the slides a delete set aside (read from the canvas), to bring back.
    """
    slides, theme = list(deck.slides), deck.spec.theme
    edits: list[Edit] = []
    pictures: list[tuple[str, str]] = []
    for edit in reversed(change.edits):
        keys = _keys(slides)
        if edit.field == "slides":
            key, action = edit.detail["key"], edit.detail["action"]
            if action == "add" and key in keys:
                slides = [s for s in slides if s.key != key]
            elif action == "remove" and key not in keys:
                back = removed.get(key)
                if back is None:
                    raise SlideChangeOverridden(f"slide '{edit.detail.get('title')}' is no longer on the canvas")
                index = min(int(edit.detail["index"]), len(slides))
                slides = [*slides[:index], back, *slides[index:]]
            elif action == "move" and key in keys:
                moving = next(s for s in slides if s.key == key)
                rest = [s for s in slides if s.key != key]
                index = min(int(edit.detail["index"]), len(rest))
                slides = [*rest[:index], moving, *rest[index:]]
            else:
                continue
            edits.append(Edit(field="slides", before=keys, after=_keys(slides), detail={
                **edit.detail, "action": {"add": "remove", "remove": "add"}.get(action, action)}))
        elif edit.field == "theme":
            now = (theme or THEMES["light"]).model_dump()
            if now == edit.before:
                continue
            if now != edit.after:
                raise SlideChangeOverridden(f"the theme was changed again since (now {now['name']}); revert instead")
            theme = SlideTheme.model_validate(edit.before)
            edits.append(Edit(field="theme", before=now, after=edit.before))
        else:
            kind, _, key = edit.field.partition(":")
            index = next((i for i, s in enumerate(slides) if s.key == key), None)
            if index is None:
                raise SlideChangeOverridden(f"the slide that change was made to ({edit.detail}) is no longer in "
                                            "the deck; bring it back first")
            slide = slides[index]
            if kind == "slide":
                if slide.words() == edit.before:
                    continue
                if slide.words() != edit.after:
                    raise SlideChangeOverridden(f"slide {index + 1} was edited again since; revert instead")
                slides[index] = with_words(slide, edit.before)
                edits.append(Edit(field=edit.field, before=slide.words(), after=edit.before,
                                  detail={"number": index + 1}))
            elif kind == "illustration":
                now = edit.after["node_id"] if edit.after["node_id"] in slide.spec.source_node_ids else None
                if now is None:
                    if edit.before["node_id"] in slide.spec.source_node_ids:
                        continue
                    raise SlideChangeOverridden(f"slide {index + 1}'s picture was changed again since; revert instead")
                pictures.append((now, edit.before["node_id"]))
                edits.append(Edit(field=edit.field, before=edit.after, after=edit.before,
                                  detail={"number": index + 1}))
    if not edits:
        raise DeckEditRefused(f"the deck no longer shows that change ({change.summary}); nothing to undo")
    return Undone(slides=slides, theme=theme, edits=edits, pictures=pictures)


# ---------------------------------------------------------------- helpers


def with_words(slide: Slide, words: dict[str, Any]) -> Slide:
    """The slide saying ``words`` (title, bullets, notes); its content node gets a new version too."""
    spec = slide.spec.model_copy(update={"title": words["title"], "bullets": list(words["bullets"]),
                                         "notes": words["notes"]})
    content = None
    if slide.content is not None or slide.new_content is not None:
        base = slide.new_content or (slide.content.inputs if slide.content else {})
        content = {**base, "title": spec.title, "bullets": spec.bullets, "notes": spec.notes}
    return replace(slide, spec=spec, new_content=content)


def _replaced(slides: list[Slide], index: int, slide: Slide) -> list[Slide]:
    return [*slides[:index], slide, *slides[index + 1:]]


def _keys(slides: list[Slide]) -> list[str]:
    return [s.key for s in slides]


def _uri(ref: Any) -> str | None:
    return None if ref is None else ref if isinstance(ref, str) else ref.uri


def slides_mentioning(deck: Deck, words: str) -> list[int]:
    """The numbers of the slides whose title, bullets or notes mention every content word of ``words``
    (what "which slides mention X" reads)."""
    return [number for number, slide in enumerate(deck.slides, start=1)
            if mentions(" ".join([slide.spec.title, *slide.spec.bullets, slide.spec.notes]), words)]


def mentions(text: str, words: str) -> bool:
    """Whether ``text`` mentions every content word of ``words`` (a plural or a singular counts)."""
    import re

    wanted = [w for w in re.findall(r"[a-z0-9]+", words.lower()) if len(w) > 2 and w not in {"the", "and", "for"}]
    said = set(re.findall(r"[a-z0-9]+", text.lower()))
    return bool(wanted) and all(w in said or w.rstrip("s") in said or f"{w}s" in said for w in wanted)


__all__ = ["THEMES", "Deck", "DeckEditRefused", "NoIllustration", "NoSuchSlide", "Slide", "SlideChangeOverridden",
           "Undone", "UnknownTheme", "add_slide", "delete_slide", "duplicate_slide", "edit_slide", "move_slide", "new_illustration",
           "mentions", "set_theme", "slides_mentioning", "theme_named", "undo_slides", "with_words"]
