"""Slide deck operations as tools: each edit of a deck is a new version of the same deck (see ``tools.deck.tools``)."""

from tools.deck.tools import DECK_TOOLS, deck_scope

__all__ = ["DECK_TOOLS", "deck_scope"]
