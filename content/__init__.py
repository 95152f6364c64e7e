"""Content planners: what a page, a deck or a storyboard says, worked out from words, with no canvas and no bridge.

The skills that make things (``skills.slides``, ``skills.storyboard``, ``skills.design_to_web``) and the tools
and readers that edit and read them (``tools.page``, ``tools.deck``, ``tools.cut``, ``nodes.understanding``)
plan with the same functions, so they live here, on the tools' floor, below both (docs/architecture.md,
"Floors"): plain functions over pydantic models.  Their refusals are :class:`~tools.base.ToolError` subclasses,
which the bridge turns into failed steps the model sees.
"""
