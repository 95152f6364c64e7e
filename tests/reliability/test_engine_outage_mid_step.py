"""The engine dying under a running step stops the turn, resumable; it is never recorded as the step's failure.

A skill (or a tool) that fails reports a failed step, which the model sees and the turn finishes with.  An engine
that stops answering is not that: a failed step would be checkpointed, and ``jarvishub resume`` would then only
replay the failure (a turn "failed" on a canvas that is fine once the engine is back).  Here a skill's own code
kills the engine between two of its writes, so the outage lands inside the skill at the same point every run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.models.scripted import ScriptedModel
from store.errors import is_engine_outage

KILLS_ITS_ENGINE = '''\
"""A skill that writes, loses its engine (killed once, by its own hand), then writes again."""

import json
import os
import signal
import time
from pathlib import Path

from pydantic import BaseModel

from skills.base import SkillContext, skill


class Nothing(BaseModel):
    pass


class Made(BaseModel):
    first: str
    second: str


@skill(name="two_notes", description="Writes two notes.", input_model=Nothing, output_model=Made,
       needs=["create_node"])
def two_notes(ctx: SkillContext, inp: Nothing) -> Made:
    first = ctx.call("create_node", kind="text", title="the first note")["created"]
    killed = Path(os.environ["OUTAGE_MARK"])
    if not killed.exists():
        killed.touch()
        pid = json.loads(Path(os.environ["OUTAGE_ENGINE_RECORD"]).read_text())["pid"]
        os.kill(pid, signal.SIGKILL)
        while _running(pid):
            time.sleep(0.05)
    second = ctx.call("create_node", kind="text", title="the second note")["created"]
    return Made(first=first, second=second)


def _running(pid: int) -> bool:
    """Whether the killed engine is still there and not yet a zombie (reaped between two reads: gone)."""
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
'''


def _runtime(project: Project) -> Runtime:
    model = ScriptedModel(script=[{"name": "skill__two_notes", "args": {}}, "Both notes are on the canvas."])
    return Runtime(project, model=model, evaluate_generations=False)


def _notes(project: Project) -> list[str]:
    return sorted(n.title for n in project.store.find_nodes(kind="text"))


def test_a_skill_that_loses_the_engine_stops_the_turn_and_resume_finishes_it(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch):
    folder = tmp_path / "p"
    (folder / "skills").mkdir(parents=True)
    (folder / "skills" / "two_notes.py").write_text(KILLS_ITS_ENGINE)
    monkeypatch.setenv("OUTAGE_MARK", str(tmp_path / "killed"))
    monkeypatch.setenv("OUTAGE_ENGINE_RECORD", str(folder / ".jarvishub" / "engine" / "engine.json"))

    with Project.init(folder) as project:
        runtime = _runtime(project)
        thread = "outage-thread"
        try:
            with pytest.raises(Exception) as stopped:
                runtime.run("write the two notes", thread_id=thread)
            assert is_engine_outage(stopped.value), repr(stopped.value)
            # Nothing says the step failed: the checkpoint is still before the step's result.
            snapshot = runtime.graph.get_state({"configurable": {"thread_id": thread}})
            assert "failed" not in str(snapshot.values.get("steps") or []), snapshot.values.get("steps")
        finally:
            runtime.close()

    assert (tmp_path / "killed").exists()
    with Project.open(folder) as project:  # a new engine
        runtime = _runtime(project)
        try:
            outcome = runtime.resume(thread)
            assert outcome.outcome == "replied", outcome.reply
            assert [step.get("observation", {}).get("error") for step in outcome.steps] == [None, None]
            assert _notes(project) == ["the first note", "the second note"]  # the first not written twice
        finally:
            runtime.close()
