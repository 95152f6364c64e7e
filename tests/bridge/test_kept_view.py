"""A later step of a turn is sent the turn's first view again when only the turn's own writes moved the canvas,
the commits of a skill's inner steps included (``nodes.resolve._kept_view``), on a real canvas."""

from __future__ import annotations

from typing import ClassVar

from nodes.models.offline import OfflinePlanner


class RecordingPlanner(OfflinePlanner):
    """The offline planner, remembering the system message (the focused view) of each model call."""

    systems: ClassVar[list[str]] = []

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        type(self).systems.append(str(messages[0].content))
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_a_skill_turns_reply_step_is_sent_the_turns_first_view(make_runtime, project):
    RecordingPlanner.systems.clear()
    runtime = make_runtime(model=RecordingPlanner())
    before = project.store.canvas_version()
    outcome = runtime.run("a 3-slide deck on how to brew pour-over coffee")
    assert outcome.outcome == "replied", outcome.reply
    tools = [(s.get("action") or {}).get("tool") for s in outcome.steps]
    assert tools[0] == "skill__slides" and (outcome.steps[-1].get("action") or {}).get("kind") == "reply"
    # The skill's steps committed the deck inside the turn's first step: the canvas moved on, by the turn alone.
    assert outcome.canvas_after > before + 1
    first, reply = RecordingPlanner.systems[0], RecordingPlanner.systems[-1]
    assert len(RecordingPlanner.systems) == 2
    assert f"canvas version {before}:" in first
    assert reply == first
