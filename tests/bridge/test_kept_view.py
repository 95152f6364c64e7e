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


def _fresh_runtime(tmp_path, model):
    from jarvishub.project import Project
    from jarvishub.runtime import Runtime

    project = Project.init(tmp_path / "fresh")
    return project, Runtime(project, model=model, evaluate_generations=False)


def test_the_first_view_on_a_canvas_never_written_sends_no_overview(tmp_path, monkeypatch):
    """A project's first turn: the start read version 0 and nothing was written since, so the view is built
    without the overview statement (its cold parse was the engine's slowest statement of the turn)."""
    RecordingPlanner.systems.clear()
    project, runtime = _fresh_runtime(tmp_path, RecordingPlanner())
    try:
        overviews: list[int] = []
        real = project.store.overview
        monkeypatch.setattr(project.store, "overview", lambda *a, **k: overviews.append(1) or real(*a, **k))
        outcome = runtime.run("a 3-slide deck on how to brew pour-over coffee")
        assert outcome.outcome == "replied", outcome.reply
        assert overviews == [] and "\ncanvas version 0: 0 live nodes\n" in RecordingPlanner.systems[0]
    finally:
        runtime.close()
        project.close()


def test_a_write_between_the_start_and_the_first_view_of_a_new_project_is_in_the_view(tmp_path, make_runtime):
    """Version 0 at the start is trusted only while it is still the canvas's version: a note another process
    wrote in between is counted in the first view."""
    from jarvishub.runtime import Runtime

    RecordingPlanner.systems.clear()
    project, runtime = _fresh_runtime(tmp_path, RecordingPlanner())
    other = Runtime(project, evaluate_generations=False)
    try:
        def another_writer(_state) -> None:
            assert other.run("note: the grinder is broken").outcome == "replied"

        outcome = runtime.run("how many text nodes are there", on_started=another_writer)
        assert outcome.outcome == "replied", outcome.reply
        first = RecordingPlanner.systems[0]
        assert "\ncanvas version 0:" not in first and "text 1" in first, first
        assert outcome.reply.startswith("1 found"), outcome.reply
    finally:
        other.close()
        runtime.close()
        project.close()
