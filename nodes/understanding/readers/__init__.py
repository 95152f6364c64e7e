"""The domain readers the interpreter walks, in order: the first that reads a request decides it.

Order matters where words overlap: a note's text or a build's premise may hold any word, so they go first;
questions never change the canvas; the slides and the page claim only requests about them (their words, a
selected slide or page, or an undo of what the turn before changed on them), before the generic versions
and cut readers, so "move slide 4 before slide 2" is a deck operation and "undo the full-bleed change" a
page one; operations on versions and the cut are recognised before shot edits, so "undo the last change to
shot 2" is never read as an edit of shot 2.  A new domain
adds its reader here (``docs/requests.md``, "Adding a domain").
"""

from __future__ import annotations

from nodes.understanding.readers.base import DomainReader, PreviousTurn, ReadContext, Reading
from nodes.understanding.readers.builds import BuildReader
from nodes.understanding.readers.cut import CutReader
from nodes.understanding.readers.explore import ExploreReader
from nodes.understanding.readers.notes import NoteReader
from nodes.understanding.readers.page import PageReader
from nodes.understanding.readers.questions import QuestionReader
from nodes.understanding.readers.shots import ShotReader
from nodes.understanding.readers.skills import SkillReader
from nodes.understanding.readers.slides import SlideReader
from nodes.understanding.readers.status import StatusReader
from nodes.understanding.readers.versions import VersionReader

SKILLS = SkillReader()
"""The skills reader: the project's skills named in a request (``readers/skills.py``); more matchers may be appended."""

READERS: list[DomainReader] = [NoteReader(), SKILLS, BuildReader(), QuestionReader(), StatusReader(),
                               ExploreReader(), SlideReader(), PageReader(), VersionReader(), CutReader(),
                               ShotReader()]
"""Every domain's reader, in the order the interpreter offers a request to them."""

__all__ = ["READERS", "SKILLS", "DomainReader", "PreviousTurn", "ReadContext", "Reading"]
