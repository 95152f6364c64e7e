"""Composed skills (sequence, fan_out, choose) and the examples of docs/skills.md, run exactly as written there."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pydantic import BaseModel

from nodes.bridge import Usage
from skills.base import SkillContext, skill
from skills.compose import choose, fan_out, sequence
from skills.registry import skill_tool
from skills.storyboard import STORYBOARD
from skills.video_prompting import VIDEO_CLIPS
from store.models import EdgeType, new_id
from tools.base import ToolError

if TYPE_CHECKING:
    from conftest import Agent

DOC = Path(__file__).resolve().parents[2] / "docs" / "skills.md"
PROJECT_FILE = """\
[project]
name = "compose"

[skills]
load = ["my_skills:illustrated_storyboard", "my_notes:sticky_note"]
"""


def doc_example(name: str) -> str:
    """The code of the ``<!-- example: name -->`` block of docs/skills.md."""
    pattern = rf"<!-- example: {name} -->\s*```python\n(.*?)```\s*<!-- /example -->"
    match = re.search(pattern, DOC.read_text(), re.DOTALL)
    assert match, f"docs/skills.md has no example {name!r}"
    return match.group(1)


class Pitch(BaseModel):
    premise: str
    n_shots: int = 1


class Card(BaseModel):
    card_id: str


@skill(name="title_card", description="A title card for a premise.", input_model=Pitch, output_model=Card,
       needs=["create_node"])
def title_card(ctx: SkillContext, inp: Pitch) -> Card:
    return Card(card_id=ctx.call("create_node", kind="text", title=inp.premise)["created"])


STORYBOARDS = fan_out("storyboards", "One storyboard per premise.", STORYBOARD, over="premises", item_field="premise")
PITCH = choose("pitch", "A storyboard for a long premise, a title card for a short one.",
               condition=lambda inp: "board" if len(inp.premise.split()) > 3 else "card",
               options={"board": STORYBOARD, "card": title_card}, input_model=Pitch)


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory, start_agent) -> Iterator[Agent]:
    """A project with the page's two examples saved in its folder, as the page says: no PYTHONPATH."""
    root = tmp_path_factory.mktemp("compose") / "p"
    root.mkdir()
    (root / "my_skills.py").write_text(doc_example("compose"))
    (root / "my_notes.py").write_text(doc_example("decorator"))
    with start_agent(root, project_file=PROJECT_FILE,
                     configure=lambda project: {"extra_tools": [skill_tool(STORYBOARDS), skill_tool(PITCH)]}
                     ) as running:
        yield running


def context(agent: Agent) -> SkillContext:
    """A skill context under the agent's default grant, for running a composite directly."""
    return SkillContext(bridge=agent.runtime.bridge, grant=agent.runtime.grant_for("compose"), usage=Usage(),
                        thread_id=agent.thread_id, turn_id=None, action_prefix=new_id(), actor="skill:test")


def test_the_doc_example_is_short_and_loads_from_the_project_file(agent: Agent):
    assert len(doc_example("compose").strip().splitlines()) < 30
    skills = {s.name: s for s in agent.runtime.manifest.skills}
    assert {"illustrated_storyboard", "sticky_note"} <= set(skills)
    assert skills["illustrated_storyboard"].needs_tools == ["create_node", "link_nodes", "group_nodes",
                                                            "generate_image"]


def test_the_doc_example_plans_a_storyboard_and_draws_its_shots(agent: Agent):
    out = agent.call("skill__illustrated_storyboard", premise="Kai repairs the lighthouse by the sea", n_shots=3)
    assert set(out) == {"skill", "plan_id", "shot_ids", "character_id", "image_ids"}
    images = agent.store.get_nodes(out["image_ids"])
    for image, shot_id in zip(images, out["shot_ids"], strict=True):
        assert agent.targets(image.id, EdgeType.GENERATED_FROM) == [shot_id]
        assert out["character_id"] in agent.targets(image.id, EdgeType.REFERENCES)
        assert image.provenance.actor == "skill:reference_images"
    assert agent.store.get_node(out["shot_ids"][0]).provenance.actor == "skill:storyboard"


def test_the_decorator_example_pins_a_note(agent: Agent):
    out = agent.call("skill__sticky_note", text="remember the kite")
    note = agent.store.get_node(out["note_id"])
    assert (note.kind, note.inputs) == ("text", {"text": "remember the kite"})


def test_fan_out_runs_the_skill_once_per_item_in_order(agent: Agent):
    fields = STORYBOARDS.input_model.model_fields
    assert "premises" in fields and "premise" not in fields and "n_shots" in fields
    premises = ["Odo climbs the hills", "Lena opens a cafe in the city"]
    out = agent.call("skill__storyboards", premises=premises, n_shots=1)
    plans = agent.store.get_nodes([r["plan_id"] for r in out["results"]])
    assert [p.inputs["premise"] for p in plans] == premises
    assert [len(r["shot_ids"]) for r in out["results"]] == [1, 1]


def test_choose_runs_the_option_the_condition_picks(agent: Agent):
    board = agent.call("skill__pitch", premise="Yara sails a paper boat across the lake")
    card = agent.call("skill__pitch", premise="Fog")
    assert board["choice"] == "board" and len(board["shot_ids"]) == 1
    assert card["choice"] == "card" and agent.store.get_node(card["card_id"]).title == "Fog"
    assert set(PITCH.needs) == {"create_node", "link_nodes", "group_nodes"}


def test_a_condition_naming_no_option_is_an_error(agent: Agent):
    lost = choose("lost", "Never matches.", condition=lambda inp: "nowhere", options={"card": title_card})
    with pytest.raises(ToolError, match="not one of: card"):
        lost.run(context(agent), {"premise": "x"})


def test_a_binding_that_does_not_fit_the_next_step_is_an_error_the_agent_sees(agent: Agent):
    broken = sequence("broken", "Storyboard, then clips of images nobody drew.", [STORYBOARD, VIDEO_CLIPS])
    with pytest.raises(ToolError, match="input bound for video_clips is invalid: image_ids"):
        broken.run(context(agent), {"premise": "a short film", "n_shots": 1})


def test_composites_are_checked_when_they_are_built():
    with pytest.raises(ValueError, match="at least one step"):
        sequence("empty", "Nothing.", [])
    with pytest.raises(ValueError, match="no input field 'shot'"):
        fan_out("bad", "Bad item field.", STORYBOARD, over="shots", item_field="shot")
    with pytest.raises(TypeError, match="pass input_model"):
        choose("mixed", "Different inputs.", condition=lambda inp: "a", options={"a": STORYBOARD, "b": VIDEO_CLIPS})
