"""A later step of a turn is sent the turn's first view again when only the turn's own writes moved the canvas,
the commits of a skill's inner steps included (``nodes.resolve._kept_view``); the first view reuses the facts
the turn's start read only while no one else has written since, on a real canvas."""

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


def _targets_section(view: str) -> list[str]:
    """The lines of a view's targets table (its header line to the next section)."""
    lines = view.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("## targets"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def test_the_first_view_reads_the_shots_again_when_another_writer_moved_the_canvas_after_the_turn_began(
        make_runtime, project):
    """The facts the turn's start read are reused for the first view only while the canvas is at the version they
    were read at: a new image another process made in between is the one the view shows."""
    from nodes.understanding.facts import read_facts

    runtime, other = make_runtime(model=RecordingPlanner()), make_runtime()
    assert runtime.run("a 3-shot short drama about a lighthouse keeper").outcome == "replied"
    before = read_facts(project.store).shots[1]
    made: list[str] = []

    def another_writer(_state) -> None:  # between the turn's start (its facts read) and its first view
        assert other.run("make shot 2 night").outcome == "replied"
        made.append(read_facts(project.store).shots[1].image or "")

    RecordingPlanner.systems.clear()
    outcome = runtime.run("make shot 2 warmer", on_started=another_writer)
    assert outcome.outcome == "replied", outcome.reply
    assert made and made[0] != before.image
    targets = "\n".join(_targets_section(RecordingPlanner.systems[0]))
    assert made[0] in targets and before.image not in targets
