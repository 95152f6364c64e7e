"""How big a build may be: the slides of a deck and the shots of a story.

The skills check their arguments against these, and the request interpreter reads a count a person wrote
against the same bounds, so that "a 40-slide deck" is asked about before anything is made, never built at
another size or refused half-way with an argument error.
"""

from __future__ import annotations

SLIDES_MIN, SLIDES_MAX = 2, 20
"""Slides in a deck, title and summary included."""
SHOTS_MIN, SHOTS_MAX = 1, 24
"""Shots in a storyboard."""
