"""An export without consent contains none of the user's words, anywhere in the JSONL."""

from __future__ import annotations

import json
import re

from langchain_core.messages import ToolMessage

from jarvishub.trajectory import PLACEHOLDER, Withholder, export_thread
from nodes.models.scripted import ScriptedModel, tool_call

CANARIES = {
    "request": "CANARY-REQUEST-a8f3",
    "title": "CANARY-TITLE-x9q1",
    "input": "CANARY-INPUT-q2w7",
    "reason": "CANARY-REASON-z7k2",
    "prompt": "CANARY-PROMPT-k4m8",
    "note": "CANARY-NOTE-m5t6",
    "reply": "CANARY-REPLY-p1v9",
}
_ULID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")


def _mark_stale_the_note(messages):
    created = json.loads([m.content for m in messages if isinstance(m, ToolMessage)][-1])["observation"]["created"]
    return tool_call("mark_stale", {"node_id": created, "reason": f"because {CANARIES['reason']} said so"})


def _image(prompt: str) -> dict:
    return {"name": "generate_image", "args": {"prompt": prompt, "lighting": "night", "width": 96, "height": 64}}


def test_no_canary_survives_an_export_without_consent(make_runtime, project, tmp_path) -> None:
    runtime = make_runtime(ask_person_for_feedback=True, evaluate_generations=False, model=ScriptedModel(script=[
        {"name": "create_node", "args": {"kind": "text", "title": f"Poster {CANARIES['title']}",
                                         "inputs": {"text": f"premise {CANARIES['input']}"}}},
        _mark_stale_the_note,
        _image(f"a tower {CANARIES['prompt']}"),
        _image(f"a warm tower {CANARIES['prompt']}"),
        f"done {CANARIES['reply']}",
    ]))
    outcome = runtime.run(f"make a poster about {CANARIES['request']}")
    assert outcome.outcome == "interrupted" and outcome.interrupt["type"] == "feedback", (outcome.interrupt, outcome.steps)
    outcome = runtime.resume(outcome.thread_id, {"approve": False, "text": f"too dark {CANARIES['note']}",
                                                 "actor": "person:ana"})
    outcome = runtime.resume(outcome.thread_id, {"approve": True, "actor": "person:ana"})
    assert outcome.outcome == "replied"

    withheld, kept = tmp_path / "withheld.jsonl", tmp_path / "kept.jsonl"
    assert export_thread(project.store, runtime.trajectories, outcome.thread_id, kept, consent=True) == 1
    assert export_thread(project.store, runtime.trajectories, outcome.thread_id, withheld, consent=False) == 1
    with_consent, without = kept.read_text(), withheld.read_text()
    # The canaries are really in the trajectory (so their absence below means something).
    assert all(c in with_consent for c in CANARIES.values()), [n for n, c in CANARIES.items() if c not in with_consent]
    leaked = [name for name, canary in CANARIES.items() if canary in without or canary.lower() in without.lower()]
    assert leaked == []
    for word in ("poster", "tower", "premise", "dark"):  # not just the canaries: no word of theirs at all
        assert word not in without.lower(), word

    record = json.loads(without)
    assert PLACEHOLDER.match(record["request"])
    # Structure, ids, kinds, hashes and metrics stay.
    added = record["canvas_diff"]["added_nodes"]
    assert {"text", "image", "feedback"} <= {n["kind"] for n in added}
    assert all(_ULID.match(n["id"]) for n in added)
    images = [n for n in added if n["kind"] == "image"]
    assert images and all(re.fullmatch(r"[0-9a-f]{64}", h["sha256"]) for n in images for h in n["outputs"])
    assert [a.get("tool") for a in record["actions"]][:3] == ["create_node", "mark_stale", "generate_image"]
    assert record["canvas_before"] < record["canvas_after"]
    # The same text has the same token within the export: the title in the action and on the canvas.
    title_token = record["actions"][0]["args"]["title"]
    assert PLACEHOLDER.match(title_token)
    assert title_token in [n["title"] for n in added if n["kind"] == "text"]


def test_tokens_are_salted_per_export() -> None:
    first, second = Withholder(), Withholder()
    assert first.token("castle") == first.token("castle") != second.token("castle")
    assert first({"title": "castle", "kind": "image", "id": "01JABCDEFGHJKMNPQRSTVWXYZ0"}) == {
        "title": first.token("castle"), "kind": "image", "id": "01JABCDEFGHJKMNPQRSTVWXYZ0"}
    assert first({"kind": "a castle at night"})["kind"] == first.token("a castle at night")  # not token-shaped
