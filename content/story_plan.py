"""A storyboard's plan from a premise, and a shot inserted into one, with no model: the same words, the same plan.

:func:`plan_story` derives the title, the character (its name from the premise, its colours from a palette
picked by hashing the premise), the scene and one beat per shot, with camera moves cycling pan, zoom, fade,
static.  The ``storyboard`` skill (:mod:`skills.storyboard`) puts the plan on the canvas; the cut tools
(:mod:`tools.cut`) write a shot inserted into it (:func:`inserted_shot_inputs`) like the plan's own.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pydantic import BaseModel, Field

from tools.generate.base import CameraMove, HexColour, Lighting

CAMERA_CYCLE: tuple[CameraMove, ...] = (CameraMove.PAN, CameraMove.ZOOM, CameraMove.FADE, CameraMove.STATIC)
"""The camera move of shot i is ``CAMERA_CYCLE[(i - 1) % 4]``."""

PALETTES: tuple[tuple[str, str], ...] = (
    ("#c0392b", "#f5cba7"),
    ("#2e86c1", "#f0b27a"),
    ("#8e44ad", "#f9e79f"),
    ("#d35400", "#aed6f1"),
    ("#16a085", "#f5b7b1"),
    ("#b03a2e", "#a9dfbf"),
    ("#1f618d", "#f7dc6f"),
    ("#6c3483", "#edbb99"),
)
"""Character colours (body, head): the premise's hash picks one pair."""

_NAMES = ("Mira", "Odo", "Kai", "Lena", "Tomas", "Ines", "Bo", "Yara")
_SHAPES = ("round", "square", "triangle", "tall")
# Capitalised words that start sentences rather than name anyone.
_NOT_NAMES = frozenset({
    "A", "An", "The", "In", "On", "At", "When", "After", "Before", "One", "Once", "Two", "His", "Her", "Their",
    "This", "That", "It", "As", "While", "During", "Every", "Some", "Our", "My", "Your", "Late", "Early", "Far",
    "Deep", "High", "Long", "Under", "Over", "Inside", "Outside", "Somewhere",
})
_SETTING_WORDS: dict[str, tuple[str, ...]] = {
    "sea": ("harbour", "harbor", "sea", "ocean", "beach", "lake", "shore", "river", "boat", "pier", "island"),
    "forest": ("forest", "woods", "tree", "trees", "jungle", "grove", "garden"),
    "city": ("city", "street", "town", "market", "rooftop", "alley", "station", "bridge"),
    "room": ("room", "kitchen", "house", "home", "bedroom", "office", "studio", "cafe", "library", "shop"),
    "hills": ("hill", "hills", "field", "meadow", "valley", "mountain", "desert", "farm"),
}
# Story acts the beats are spread over, and what the character does in each.
_ACTS: tuple[tuple[str, str], ...] = (
    ("opening", "{scene} before anything happens, {name} in view"),
    ("setup", "{name} goes about an ordinary day"),
    ("inciting moment", "{name} discovers what changes everything"),
    ("rising action", "{name} pushes on against the odds"),
    ("turning point", "{name} faces the decisive moment"),
    ("resolution", "{name} at rest, changed by what happened"),
)


class Character(BaseModel):
    """The storyboard's character: enough for any provider to draw the same figure in every shot."""

    name: str
    colors: list[HexColour]
    shape: str


class Scene(BaseModel):
    """Where the story happens."""

    name: str
    setting: str
    description: str


class Beat(BaseModel):
    """One shot of the plan."""

    index: int = Field(ge=1)
    act: str
    beat: str
    camera: CameraMove
    prompt: str


class StoryPlan(BaseModel):
    """What :func:`plan_story` derives from a premise."""

    title: str
    premise: str
    character: Character
    scene: Scene
    lighting: Lighting
    style: str | None = None
    beats: list[Beat]


def plan_story(premise: str, n_shots: int = 6, lighting: Lighting | str = Lighting.NEUTRAL,
               style: str | None = None) -> StoryPlan:
    """Turn a premise into a storyboard plan; the same arguments always give the same plan."""
    premise = " ".join(premise.split())
    digest = hashlib.sha256(premise.lower().encode()).digest()
    character = Character(name=_character_name(premise, digest), colors=list(PALETTES[digest[0] % len(PALETTES)]),
                          shape=_SHAPES[digest[1] % len(_SHAPES)])
    scene = _scene(premise, digest)
    beats = []
    for i in range(n_shots):
        act, template = _ACTS[round(i * (len(_ACTS) - 1) / (n_shots - 1)) if n_shots > 1 else 0]
        beat = template.format(name=character.name, scene=scene.name)
        prompt = f"Shot {i + 1} of {n_shots}, {act}: {beat}. Story: {premise}. Setting: {scene.name}."
        if style:
            prompt += f" Style: {style}."
        beats.append(Beat(index=i + 1, act=act, beat=beat, camera=CAMERA_CYCLE[i % len(CAMERA_CYCLE)], prompt=prompt))
    return StoryPlan(title=_title(premise), premise=premise, character=character, scene=scene,
                     lighting=Lighting(lighting), style=style, beats=beats)


def inserted_shot_inputs(plan: dict[str, Any], description: str, *, after: dict[str, Any] | None,
                         scene_name: str, camera: CameraMove | None = None,
                         lighting: Lighting | str | None = None) -> dict[str, Any]:
    """The inputs of a shot inserted into a storyboard, described in words, written like the plan's own shots.

    ``plan`` is the storyboard's plan node inputs (premise, style, lighting); ``after`` the inputs of the shot
    it follows, if any: the new shot takes its character and scene (the same references), its lighting unless
    another is given, and the next camera move of :data:`CAMERA_CYCLE`, so the rhythm of moves carries on.
    """
    beat = " ".join(description.split()).rstrip(".")
    prompt = f"Inserted shot: {beat}. Story: {plan.get('premise', '')}. Setting: {scene_name}."
    if plan.get("style"):
        prompt += f" Style: {plan['style']}."
    previous = CameraMove(after["camera"]) if after and after.get("camera") in {c.value for c in CameraMove} else None
    move = camera or (CAMERA_CYCLE[(CAMERA_CYCLE.index(previous) + 1) % len(CAMERA_CYCLE)] if previous
                      else CameraMove.STATIC)
    light = Lighting(lighting or (after or {}).get("lighting") or plan.get("lighting") or Lighting.NEUTRAL)
    return {"index": (after or {}).get("index"), "prompt": prompt, "camera": move.value, "lighting": light.value,
            "character_id": (after or {}).get("character_id"), "scene_id": (after or {}).get("scene_id"),
            "beat": beat, "inserted": True}


def _character_name(premise: str, digest: bytes) -> str:
    for word in re.findall(r"\b[A-Z][a-z]+\b", premise):
        if word not in _NOT_NAMES:
            return word
    return _NAMES[digest[2] % len(_NAMES)]


def _scene(premise: str, digest: bytes) -> Scene:
    words = re.findall(r"[a-z]+", premise.lower())
    for setting, vocabulary in _SETTING_WORDS.items():
        found = next((w for w in words if w in vocabulary), None)
        if found:
            return Scene(name=f"the {found}", setting=setting, description=f"{setting}: {premise}")
    setting = sorted(_SETTING_WORDS)[digest[3] % len(_SETTING_WORDS)]
    return Scene(name=f"the {setting}", setting=setting, description=f"{setting}: {premise}")


def _title(premise: str, limit: int = 60) -> str:
    first = re.split(r"(?<=[.!?])\s", premise, maxsplit=1)[0].rstrip(".!?")
    first = first[:1].upper() + first[1:]
    return first if len(first) <= limit else first[: limit - 1] + "…"


__all__ = ["CAMERA_CYCLE", "PALETTES", "Beat", "Character", "Scene", "StoryPlan", "inserted_shot_inputs", "plan_story"]
