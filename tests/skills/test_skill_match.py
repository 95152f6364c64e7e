"""Which skill a request asks for and with what arguments (``nodes/skill_match.py``), on requests as people type them.

Each request expects a call with exact arguments, a question (words left over or an input missing), or no skill
at all.  A complete match with other arguments than expected would be a wrong success: the count must be zero.
"""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from nodes.skill_match import DescribedSkill, describe_skill, match_skill, skill_descriptions, split_description


class Poster(BaseModel):
    title: str
    style: Literal["neon", "noir", "pastel"] = "noir"


class Note(BaseModel):
    text: str


class Haiku(BaseModel):
    topic: str
    season: Literal["spring", "summer", "autumn", "winter"] = "spring"


class Grid(BaseModel):
    columns: int = Field(default=2, ge=1, le=6)
    border: bool = False
    palette: list[Literal["red", "blue", "green", "golden-hour"]] = Field(default_factory=list)


def described(name: str, model: type[BaseModel], triggers: list[str]) -> DescribedSkill:
    return DescribedSkill(name=name, description=f"The {name} skill.", input_schema=model.model_json_schema(),
                          triggers=triggers)


SKILLS = [described("poster", Poster, ["make a poster"]), described("sticky_note", Note, ["pin a note"]),
          described("haiku_card", Haiku, ["write a haiku card"]), described("grid", Grid, ["lay out a grid"])]

ASK = "ask"
CASES: list[tuple[str, Any]] = [
    ("make a poster titled Night Harbour in neon", ("poster", {"title": "Night Harbour", "style": "neon"})),
    ("Make me a poster called \"Love in Paris\" in pastel, please", ("poster", {"title": "Love in Paris",
                                                                                "style": "pastel"})),
    ("make a poster titled Love in Paris", ASK),  # "in Paris" may be a style it does not know: quote the title
    ("a noir poster named Low Tide", ("poster", {"title": "Low Tide", "style": "noir"})),
    ("posters titled 'Dock 9' in neon", ("poster", {"title": "Dock 9", "style": "neon"})),
    ("make a poster", ASK),  # no title
    ("make a poster titled Dawn and relight shot 3", ASK),  # a second clause it cannot place
    ("make a poster titled Dawn in neon and noir", ASK),  # two styles
    ("make a poster titled Dawn in sepia", ASK),  # "in sepia" is no style it has
    ("pin a note saying buy more film", ("sticky_note", {"text": "buy more film"})),
    ("sticky note text: call the printer", ("sticky_note", {"text": "call the printer"})),
    ("pin a note", ASK),
    ("write a haiku card about the harbour at night in winter", ("haiku_card", {"topic": "the harbour at night",
                                                                                "season": "winter"})),
    ("haiku card about rain", ("haiku_card", {"topic": "rain"})),
    ("a haiku card for autumn about falling leaves", ("haiku_card", {"topic": "falling leaves",
                                                                      "season": "autumn"})),
    ("lay out a grid with 3 columns and a border", ("grid", {"columns": 3, "border": True})),
    ("grid columns: four, no border, in red and blue", ("grid", {"columns": 4, "border": False,
                                                                 "palette": ["red", "blue"]})),
    ("lay out a grid in golden-hour tones", ASK),  # "tones" is left over
    ("lay out a grid in golden hour", ("grid", {"palette": ["golden-hour"]})),
    ("a 6-shot short drama about a lighthouse keeper", None),
    ("redo the lighting on shot 3", None),
    ("note: buy film", None),  # the note playbook's, not sticky_note's: no skill is named
]


@pytest.mark.parametrize(("request_text", "wanted"), CASES, ids=[c[0][:40] for c in CASES])
def test_a_request_gets_the_skill_and_arguments_it_says(request_text: str, wanted: Any) -> None:
    match = match_skill(request_text, SKILLS)
    if wanted is None:
        assert match is None, match
    elif wanted == ASK:
        assert match is not None and not match.complete, match
    else:
        assert match is not None and match.complete, match
        assert (match.skill, match.arguments) == wanted
        Poster.model_validate(match.arguments) if match.skill == "poster" else None  # the schema takes them


def test_no_request_is_a_wrong_success() -> None:
    wrong = []
    for request_text, wanted in CASES:
        match = match_skill(request_text, SKILLS)
        if match is not None and match.complete and (wanted in (None, ASK)
                                                     or (match.skill, match.arguments) != wanted):
            wrong.append((request_text, match.skill, match.arguments))
    assert wrong == []


def test_the_match_accounts_for_the_words() -> None:
    match = match_skill("make a poster titled Dawn in neon and relight shot 3", SKILLS)
    assert match is not None
    assert match.used == ["poster", "titled", "Dawn", "in", "neon"]
    assert match.unused == ["relight", "shot", "3"]
    missing = match_skill("please make a poster in neon", SKILLS)
    assert missing is not None and missing.missing == ["title"] and missing.unused == []


def test_triggers_travel_in_the_description_a_model_sees() -> None:
    text = describe_skill("A poster.", ["make a poster", "poster please"])
    assert text == "A poster. Ask for it with: 'make a poster'; 'poster please'."
    assert split_description(text) == ("A poster.", ["make a poster", "poster please"])
    bound = [{"type": "function", "function": {"name": "skill__poster", "description": text,
                                               "parameters": Poster.model_json_schema()}},
             {"type": "function", "function": {"name": "create_node", "description": "x", "parameters": {}}}]
    (poster,) = skill_descriptions(bound)
    assert (poster.name, poster.triggers) == ("poster", ["make a poster", "poster please"])
    assert match_skill("poster please, titled X", [poster]).arguments == {"title": "X"}
