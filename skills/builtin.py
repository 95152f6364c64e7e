"""The built-in skills."""

from __future__ import annotations

from graphs.explore import EXPLORE_SKILL
from skills.critique import CRITIQUE
from skills.design_to_web import DESIGN_TO_WEB, WEB_REVISE
from skills.reference_generation import REFERENCE_IMAGES
from skills.slides import SLIDES
from skills.storyboard import STORYBOARD
from skills.video_prompting import VIDEO_CLIPS

BUILTIN_SKILLS: list = [DESIGN_TO_WEB, WEB_REVISE, SLIDES, STORYBOARD, REFERENCE_IMAGES, VIDEO_CLIPS, CRITIQUE, EXPLORE_SKILL]
