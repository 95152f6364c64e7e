"""haiku_card: a held-out skill, written from docs/skills.md and docs/tools.md alone (the tests use it as a newcomer's).

A haiku about a topic, in a season: a text node with its three lines, and an illustration lit for the season
that references it.
"""

from typing import Literal

from pydantic import BaseModel, Field

from skills.base import SkillContext, skill

SEASON_LIGHT = {"spring": "dawn", "summer": "noon", "autumn": "golden-hour", "winter": "moonlit"}


class HaikuInput(BaseModel):
    topic: str = Field(min_length=1, max_length=60, description="What the haiku is about")
    season: Literal["spring", "summer", "autumn", "winter"] = Field(default="spring", description="Its season")


class HaikuOutput(BaseModel):
    haiku_id: str
    picture_id: str


@skill(name="haiku_card", description="A haiku card: three lines on a topic in a season, and a picture of it.",
       input_model=HaikuInput, output_model=HaikuOutput,
       needs=["create_node", "generate_image", "link_nodes"], triggers=["write a haiku card"])
def haiku_card(ctx: SkillContext, inp: HaikuInput) -> HaikuOutput:
    lines = [f"{inp.season} over {inp.topic}", "a single breath of silence", f"the {inp.topic} remains"]
    haiku = ctx.call("create_node", kind="text", title=f"haiku: {inp.topic}",
                     inputs={"text": "\n".join(lines), "season": inp.season}, status="completed")
    picture = ctx.call("generate_image", prompt=f"{inp.topic}, {inp.season}", lighting=SEASON_LIGHT[inp.season],
                       width=256, height=256, title=f"{inp.topic} in {inp.season}")
    ctx.call("link_nodes", type="REFERENCES", source=picture["node_id"], target=haiku["created"])
    return HaikuOutput(haiku_id=haiku["created"], picture_id=picture["node_id"])
