"""The Python API with a configured model: ``Project.open`` and ``Runtime`` in a process whose environment holds
the key, as a script of a user's would run them.  What models and transports do that the CLI tests do not
reach: a slow stream, a stalled one, a timeout, parallel tool calls with invalid ones among them, a judge
that answers in prose.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from tests.providers.conftest import user_env
from tools.generate.errors import ProviderUnavailable
from tests.providers.loopback import Fault, ProseJudge, ScriptedBrain, last_observation

pytestmark = pytest.mark.long_file(20)


@pytest.fixture
def folder(shared_project) -> Path:
    return shared_project.root


@contextmanager
def runtime_with(monkeypatch, loopback, folder: Path, **names: str) -> Iterator[Runtime]:
    """A runtime opened with the user's environment (key, endpoint and ``names``) in this process's."""
    env = user_env(loopback, **names)
    for name in list(__import__("os").environ):
        if name.startswith(("OPENAI_", "JARVISHUB_")) and name not in env:
            monkeypatch.delenv(name)
    for name, value in env.items():
        if name.startswith(("OPENAI_", "JARVISHUB_")):
            monkeypatch.setenv(name, value)
    with Project.open(folder) as project:
        runtime = Runtime(project)
        try:
            yield runtime
        finally:
            runtime.close()


def note(title: str) -> dict:
    return {"name": "create_node", "arguments": {"kind": "text", "title": title, "inputs": {"text": title}}}


def titles(runtime: Runtime) -> list[str]:
    return sorted(n.title for n in runtime.project.store.find_nodes(kind="text"))


def test_parallel_tool_calls_run_one_by_one_and_the_invalid_ones_come_back_as_feedback(monkeypatch, loopback, folder):
    brain = ScriptedBrain([
        {"calls": [note("parallel A"),
                   {"name": "create_node", "arguments": {"kind": "text", "title": ["not", "a", "string"]}},
                   {"name": "update_node", "arguments": {"node_id": "01J00000000000000000000000",
                                                         "title": "hallucinated"}},
                   {"name": "create_node", "arguments": '{"kind": "text", "title": "cut sh'},
                   note("parallel A")]},
        {"content": "Added the note."}])
    loopback.brains["agent-parallel"] = brain
    with runtime_with(monkeypatch, loopback, folder, JARVISHUB_MODEL="agent-parallel") as runtime:
        before = len(loopback.requests("chat"))
        outcome = runtime.run("note: parallel A")
        assert outcome.outcome == "replied"
        assert titles(runtime).count("parallel A") == 1  # the repeat in the same message wrote nothing
    steps = outcome.steps
    verdicts = [(s["action"] or {}).get("tool") or (s["action"] or {}).get("kind") for s in steps]
    reasons = [(s.get("verdict") or {}).get("reason") for s in steps]
    assert "malformed" in reasons and "bad_arguments" in reasons and "unknown_node" in reasons
    assert "repeated" in reasons
    assert verdicts.count("create_node") >= 2
    # One model call proposed all five; the model was asked again only after each had an answer.
    asked = loopback.requests("chat")[before:]
    assert len(asked) == 2
    answered = [m for m in asked[1]["body"]["messages"] if m["role"] in ("tool", "user")]
    feedback = " ".join(str(m.get("content")) for m in answered)
    assert "01J00000000000000000000000" in feedback and "already called with these arguments" in feedback


def test_a_slow_stream_finishes_and_a_stalled_one_stops_the_turn_resumably(monkeypatch, loopback, folder):
    # The stalled answer is lost with its connection: the resumed turn asks the model again.
    brain = ScriptedBrain([{"calls": [note("streamed slowly")]}, {"content": "Added it."},
                           {"calls": [note("after a stall")]}, {"calls": [note("after a stall")]},
                           {"content": "Added it too."}])
    loopback.brains["agent-stream"] = brain
    names = {"JARVISHUB_MODEL": "agent-stream", "JARVISHUB_MODEL_STREAMING": "1", "JARVISHUB_MODEL_TIMEOUT_S": "1",
             "JARVISHUB_MODEL_MAX_RETRIES": "0"}
    with runtime_with(monkeypatch, loopback, folder, **names) as runtime:
        # Chunks every 0.25 s for about 3 s in all: slower than the timeout overall, never stalled that long.
        loopback.inject("chat", Fault(chunk_delay_s=0.25))
        slow = runtime.run("note: streamed slowly")
        assert slow.outcome == "replied" and "streamed slowly" in titles(runtime)
        assert loopback.requests("chat")[-2]["body"]["stream"] is True
        version = runtime.project.store.canvas_version()
        loopback.inject("chat", Fault(chunk_delay_s=2.0))  # the first chunk comes, then nothing for 2 s
        with pytest.raises(ProviderUnavailable) as stalled:
            runtime.run("note: after a stall", thread_id="01JSTALLEDSTREAMTHREAD0001")
        assert stalled.value.kind == "timeout"
        assert runtime.project.store.canvas_version() == version  # nothing written
        resumed = runtime.resume("01JSTALLEDSTREAMTHREAD0001")
        assert resumed.outcome == "replied" and "after a stall" in titles(runtime)


def test_a_model_that_does_not_answer_in_time_stops_the_turn(monkeypatch, loopback, folder):
    loopback.brains["agent-late"] = ScriptedBrain([{"content": "too late"}])
    names = {"JARVISHUB_MODEL": "agent-late", "JARVISHUB_MODEL_TIMEOUT_S": "0.5", "JARVISHUB_MODEL_MAX_RETRIES": "1"}
    with runtime_with(monkeypatch, loopback, folder, **names) as runtime:
        loopback.inject("chat", Fault(delay_s=1.5, times=2))
        before = len(loopback.requests("chat"))
        with pytest.raises(ProviderUnavailable) as late:
            runtime.run("note: never written")
    assert late.value.kind == "timeout" and late.value.attempts == 2
    assert "did not answer in time after 2 attempts" in str(late.value)
    assert len(loopback.requests("chat")) - before == 2  # one retry, then the turn stopped: bounded


@pytest.mark.parametrize("judge, why", [(ProseJudge(), "was not usable"), (lambda body: {"status": 503}, "could not be asked")],
                         ids=["prose", "down"])
def test_a_judge_that_answers_in_prose_or_not_at_all_falls_back_to_the_measured_checks(
        monkeypatch, loopback, folder, judge, why):
    title = f"judged {why}"
    loopback.brains["agent-judged"] = ScriptedBrain([
        {"tool": "generate_image", "arguments": {"prompt": f"a lighthouse at night ({why})", "lighting": "night",
                                                 "width": 512, "height": 512, "title": title}},
        lambda messages: {"content": f"Made {last_observation(messages).get('node_id')}."}])
    loopback.brains["judge-x"] = judge
    names = {"JARVISHUB_MODEL": "agent-judged", "JARVISHUB_JUDGE_MODEL": "judge-x", "JARVISHUB_MODEL_MAX_RETRIES": "0"}
    with runtime_with(monkeypatch, loopback, folder, **names) as runtime:
        outcome = runtime.run("an image of a lighthouse at night")
        assert outcome.outcome == "replied"
        [image] = [n for n in runtime.project.store.find_nodes(kind="image") if n.title == title]
        assert image.status.value == "completed"  # the judge failed nothing
        spent = runtime.services["spend"].turn(outcome.turn_id)
    [feedback] = [s["feedback"] for s in outcome.steps if s.get("feedback")]
    [verdict] = feedback["evaluations"]
    assert verdict["evaluator"].endswith("(fallback from multimodal:judge-x)")
    assert verdict["checks"]["judge_fallback"]["model"] == "judge-x"
    assert why in verdict["checks"]["judge_fallback"]["reason"]
    assert verdict["notes"].startswith("judge judge-x set aside")
    # The measured checks decided: the provider's picture is dark, as "night" asks.
    assert verdict["checks"]["lighting:mean_brightness"]["wanted"] == "night" and verdict["passed"]
    # A prose answer was billed all the same; a judge that was down billed nothing.
    assert spent.calls == 3 + (why == "was not usable")  # two agent calls and one image, (+ the judge's prose)


@pytest.mark.parametrize("names, provider, models", [
    ({"JARVISHUB_MEDIA_PROVIDER": "offline"}, "offline", {("chat", "agent-api")}),
    ({"JARVISHUB_JUDGE_MODEL": "judge-api", "JARVISHUB_IMAGE_MODEL": "image-api"}, "openai",
     {("chat", "agent-api"), ("chat", "judge-api"), ("images", "image-api")}),
], ids=["media-offline", "separate-models"])
def test_each_configuration_through_the_python_api(monkeypatch, loopback, folder, names, provider, models):
    title = f"api {provider} {len(models)}"
    loopback.brains["agent-api"] = ScriptedBrain([
        {"tool": "generate_image", "arguments": {"prompt": "the harbour", "title": title, "width": 512,
                                                 "height": 512}},
        {"content": "Made it."}])
    seen = len(loopback.seen)
    with runtime_with(monkeypatch, loopback, folder, JARVISHUB_MODEL="agent-api", **names) as runtime:
        assert runtime.run("an image of the harbour").outcome == "replied"
        [image] = [n for n in runtime.project.store.find_nodes(kind="image") if n.title == title]
    assert image.metadata["provenance"]["provider"] == provider
    assert {(r["route"], r["model"]) for r in loopback.seen[seen:]} == models
