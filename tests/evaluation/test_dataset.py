"""The dataset export of a suite: redacted lines from real runs, a card that matches them, media flagged.

A real project: a note turn and a query turn through the real runtime with the
offline planner, then a turn made by hand through the bridge that renders an
image offline and records one a media provider made (its provenance names the
provider and model, as tools/generate/tools.py writes it for a real provider).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from jarvishub.evaluation.dataset import DatasetError, export_dataset, project_licence
from jarvishub.evaluation.definitions import METRICS
from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.actions import CanvasMutation, ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant
from store.models import NodeStatus, Provenance, new_id
from store.mutations import CreateNode

NOTE = "note: lighthouse keeper hums marigold shanties"
QUERY = "which pelican drawings exist"
HAND = "paint quokka harbour vermilion"
PROVIDER, MODEL = "openai", "gpt-image-1"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The project of one scenario run and the results dict that points at it."""
    root = tmp_path_factory.mktemp("dataset") / "runs" / "canvas" / "harbour"
    with Project.init(root) as project:
        runtime = Runtime(project)
        try:
            note = runtime.run(NOTE)
            query = runtime.run(QUERY, thread_id=note.thread_id)
            # The offline interpreter asks what "pelican drawings" means: a question turn is recorded all the same.
            assert note.outcome == "replied" and query.turn_id, (note.reply, query.reply)
            hand = _hand_made_turn(runtime, note.thread_id)
        finally:
            runtime.close()
    turns = [{"index": i, "kind": kind, "request": request, "thread_id": note.thread_id, "turn_ids": [turn_id],
              "outcome": outcome, "metrics": {"provider_calls": calls, "context_bytes": 1000 + i,
                                                "rejection_reasons": {}},
              "checks": [{"name": "outcome", "passed": True, "detail": outcome}]}
             for i, (kind, request, turn_id, calls, outcome) in enumerate(
                 [("note", NOTE, note.turn_id, 0, note.outcome), ("query", QUERY, query.turn_id, 0, query.outcome),
                  ("create", HAND, hand, 2, "replied")])]
    results = {"schema": "jarvishub-eval/1", "model": "offline", "agents": ["canvas"], "jarvishub_version": "0.1.0",
               "scenarios": [{"name": "offline-smoke", "workflow": "narrative", "agent": "canvas",
                              "project_dir": "runs/canvas/harbour", "passed": True, "turns": turns}]}
    yield {"results": results, "base": root.parents[2], "turn_ids": [note.turn_id, query.turn_id, hand]}


def _hand_made_turn(runtime: Runtime, thread_id: str) -> str:
    """A turn of two media nodes: one rendered offline, one a media provider made."""
    grant = runtime.grants.save(Grant(actor="system"))
    usage = Usage()
    turn_id = new_id()
    before = runtime.project.store.canvas_version()
    image = runtime.bridge.submit(ToolCall(action_id="hand-1", tool="generate_image", args={
        "prompt": HAND, "width": 96, "height": 64}), grant, usage, thread_id=thread_id, turn_id=turn_id)
    assert image.verdict == "allow" and "error" not in image.observation, image
    handle = runtime.project.artifacts.put_bytes(b"\x89PNG provider bytes", "image/png", "provider.png")
    made = Provenance(actor="agent", turn_id=turn_id, thread_id=thread_id, tool="generate_image",
                      provider=PROVIDER, model=MODEL)
    node = CreateNode(kind="image", title=HAND, status=NodeStatus.COMPLETED, outputs=[handle],
                      inputs={"prompt": HAND}, metadata={"provenance": made.model_dump(mode="json")})
    stored = runtime.bridge.submit(CanvasMutation(action_id="hand-2", mutations=[node]), grant, usage,
                                   thread_id=thread_id, turn_id=turn_id)
    assert stored.verdict == "allow", stored
    runtime.trajectories.record_turn(thread_id, turn_id, {
        "thread_id": thread_id, "turn_id": turn_id, "request": HAND, "canvas_before": before,
        "canvas_after": runtime.project.store.canvas_version(), "manifest": {"tools": []}, "grant": {},
        "actions": [], "observations": [], "feedback": [], "repair": [], "outcome": "replied",
        "reply": f"painted {HAND}", "touched_ids": [node.id]})
    return turn_id


def _words(*requests: str) -> set[str]:
    """The requests' words of four letters or more, but "note": the planner's keyword is also the suite's tag
    of the scripted turn (``turn_kind``), which the export keeps."""
    return {w.lower() for r in requests for w in re.findall(r"[A-Za-z]+", r) if len(w) >= 4} - {"note"}


def _found(words: set[str], text: str) -> set[str]:
    return {w for w in words if re.search(rf"\b{w}\b", text, re.IGNORECASE)}


def _lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "trajectories.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def withheld(run: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_dataset(run["results"], tmp_path_factory.mktemp("withheld"), consent=False, base_dir=run["base"])


class RunnerResults(BaseModel):
    """Results as an object, the way ``jarvishub eval`` passes them (its own pydantic model)."""

    model_config = ConfigDict(extra="allow")


@pytest.fixture(scope="module")
def consented(run: dict[str, Any]) -> Path:
    """Exported as ``jarvishub eval`` does: results as an object, the dataset next to ``runs/``."""
    return export_dataset(RunnerResults.model_validate(run["results"]), run["base"] / "dataset", consent=True)


def test_a_line_per_turn_with_where_it_came_from(run: dict[str, Any], withheld: Path) -> None:
    lines = _lines(withheld)
    # Without consent ids are re-keyed for the export: one stand-in per turn, none of them the turn's own id.
    assert len({line["turn_id"] for line in lines}) == len(run["turn_ids"]) == len(lines)
    assert not {line["turn_id"] for line in lines} & set(run["turn_ids"])
    assert [(line["turn_index"], line["turn_kind"]) for line in lines] == [(0, "note"), (1, "query"), (2, "create")]
    assert {(line["agent"], line["scenario"], line["workflow"]) for line in lines} == {("canvas", "offline-smoke",
                                                                                          "narrative")}
    assert lines[2]["metrics"]["provider_calls"] == 2
    assert lines[0]["steps"] and lines[0]["canvas_diff"]["added_nodes"]  # the note is on the canvas diff


def test_without_consent_no_request_word_appears_anywhere(withheld: Path, consented: Path) -> None:
    words = _words(NOTE, QUERY, HAND)
    assert sorted(p.name for p in withheld.iterdir()) == ["README.md", "card.json", "trajectories.jsonl"]
    for path in withheld.iterdir():
        assert _found(words, path.read_text(encoding="utf-8")) == set(), path.name
    card = json.loads((withheld / "card.json").read_text())
    assert card["consent"]["status"] == "withheld" and "[text:<token>]" in card["consent"]["text"]
    # the same export with consent keeps them: the check above can fail
    assert _found(words, (consented / "trajectories.jsonl").read_text()) == words
    assert json.loads((consented / "card.json").read_text())["consent"]["status"] == "consented"


def test_the_card_lists_the_keys_the_lines_have(withheld: Path, consented: Path) -> None:
    for folder in (withheld, consented):
        lines = _lines(folder)
        card = json.loads((folder / "card.json").read_text())
        assert set(card["line_schema"]) == {key for line in lines for key in line}
        assert set(card["step_schema"]) == {key for line in lines for step in line["steps"] for key in step}
        assert card["metrics"] == METRICS
        assert card["files"]["trajectories.jsonl"]["lines"] == len(lines)
        readme = (folder / "README.md").read_text()
        for key in card["line_schema"]:
            assert f"| `{key}` |" in readme


def test_provider_media_is_flagged_and_own_media_carries_the_project_licence(withheld: Path) -> None:
    media = _lines(withheld)[2]["media"]
    by_origin = {m["origin"]: m for m in media}
    assert set(by_origin) == {"jarvishub", "provider"}
    assert by_origin["jarvishub"]["provider"] == "offline" and by_origin["jarvishub"]["licence"] == project_licence()
    assert project_licence() == "Apache-2.0"  # pyproject.toml's
    flagged = by_origin["provider"]
    assert (flagged["provider"], flagged["model"]) == (PROVIDER, MODEL)
    assert PROVIDER in flagged["licence"] and "provider-generated" in flagged["licence"]
    card = json.loads((withheld / "card.json").read_text())
    assert card["licence"]["provider_media"] == [{"provider": PROVIDER, "model": MODEL, "nodes": 1,
                                                  "terms": f"provider-generated: the terms of {PROVIDER} apply"}]
    assert card["licence"]["jarvishub_media"]["licence"] == "Apache-2.0"
    readme = (withheld / "README.md").read_text()
    assert "**Provider-generated** by `openai` (model `gpt-image-1`" in readme


def test_a_missing_project_is_a_clear_error(run: dict[str, Any], tmp_path: Path) -> None:
    results = json.loads(json.dumps(run["results"]))
    results["scenarios"][0]["project_dir"] = str(tmp_path / "gone")
    with pytest.raises(DatasetError, match="offline-smoke.*gone"):
        export_dataset(results, tmp_path / "out", consent=False)
