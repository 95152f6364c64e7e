"""An export without consent keeps only what a closed schema names: none of the user's words, ids or numbers.

A scripted turn on a thread the user named (``--thread`` takes any name) plants a canary in every kind of
field an export carries: the request, a title, a node's text, a dictionary key shaped like an identifier,
values under keys that look structural (``language``, ``source``, ``..._id``, ``..._status``), numbers in
inputs and tool arguments, a query's column and parameter names, a stale mark's reason, an image prompt, a
person's feedback and the reply.  The export with consent has every one of them (so their absence means
something); the export without has none, nor the thread's name, nor any id or content hash of the project.
"""

from __future__ import annotations

import json
import re

from langchain_core.messages import ToolMessage

from jarvishub.trajectory import PLACEHOLDER, VALUE_PLACEHOLDER, Withholder, export_thread
from nodes.models.scripted import ScriptedModel, tool_call

THREAD = "MySecretCodename"
CANARIES = {
    "request": "CANARY-REQUEST-a8f3",
    "title": "CANARY-TITLE-x9q1",
    "input": "CANARY-INPUT-q2w7",
    "key": "CanaryKey_b7",
    "language": "CANARYLANG",
    "source": "CANARYSOURCE",
    "owner_id": "CANARYOWNER",
    "mood_status": "CANARYMOOD",
    "column": "CanaryColumn_c4",
    "param": "CanaryParam_p5",
    "reason": "CANARY-REASON-z7k2",
    "prompt": "CANARY-PROMPT-k4m8",
    "note": "CANARY-NOTE-m5t6",
    "reply": "CANARY-REPLY-p1v9",
}
NUMBERS = {"budget": 9876543, "seed": 4242424}
_ULID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")


def _mark_stale_the_note(messages):
    created = json.loads([m.content for m in messages if isinstance(m, ToolMessage)][-1])["observation"]["created"]
    return tool_call("mark_stale", {"node_id": created, "reason": f"because {CANARIES['reason']} said so"})


def _image(prompt: str) -> dict:
    return {"name": "generate_image", "args": {"prompt": prompt, "lighting": "night", "width": 96, "height": 64,
                                               "seed": NUMBERS["seed"]}}


def test_no_canary_survives_an_export_without_consent(make_runtime, project, tmp_path) -> None:
    query = (f"MATCH (n:CanvasNode) WHERE n.kind = ${CANARIES['param']} RETURN n.id AS {CANARIES['column']}")
    runtime = make_runtime(ask_person_for_feedback=True, evaluate_generations=False, model=ScriptedModel(script=[
        {"name": "create_node", "args": {"kind": "text", "title": f"Poster {CANARIES['title']}", "inputs": {
            "text": f"premise {CANARIES['input']}", CANARIES["key"]: "x", "language": CANARIES["language"],
            "source": CANARIES["source"], "owner_id": CANARIES["owner_id"], "mood_status": CANARIES["mood_status"],
            "budget": NUMBERS["budget"]}}},
        _mark_stale_the_note,
        {"name": "query_canvas", "args": {"cypher": query, "params": {CANARIES["param"]: "text"}}},
        _image(f"a tower {CANARIES['prompt']}"),
        _image(f"a warm tower {CANARIES['prompt']}"),
        f"done {CANARIES['reply']}",
    ]))
    outcome = runtime.run(f"make a poster about {CANARIES['request']}", thread_id=THREAD)
    assert outcome.outcome == "interrupted" and outcome.interrupt["type"] == "feedback", (outcome.interrupt, outcome.steps)
    outcome = runtime.resume(THREAD, {"approve": False, "text": f"too dark {CANARIES['note']}", "actor": "person:ana"})
    outcome = runtime.resume(THREAD, {"approve": True, "actor": "person:ana"})
    assert outcome.outcome == "replied"

    withheld, kept = tmp_path / "withheld.jsonl", tmp_path / "kept.jsonl"
    assert export_thread(project.store, runtime.trajectories, THREAD, kept, consent=True) == 1
    assert export_thread(project.store, runtime.trajectories, THREAD, withheld, consent=False) == 1
    with_consent, without = kept.read_text(), withheld.read_text()
    # Every canary is really in the trajectory (so its absence below means something).
    planted = {**CANARIES, "thread": THREAD, **{k: str(v) for k, v in NUMBERS.items()}}
    assert [n for n, c in planted.items() if c not in with_consent] == []
    assert [n for n, c in planted.items() if c.lower() in without.lower()] == []
    for word in ("poster", "tower", "premise", "dark", "ana"):  # not just the canaries: no word of theirs at all
        # As a word: a re-keyed random id may hold the letters "ana" (it did), which is not the person's word.
        assert not re.search(rf"(?<![a-z0-9]){word}(?![a-z0-9])", without.lower()), word
    # No id or content hash of the project: each is re-keyed for the export.
    store = project.store
    real = {n.id for n in store.find_nodes(include_deleted=True)} | {e.id for e in store.edges()}
    real |= {h.sha256 for n in store.find_nodes(include_deleted=True) for h in n.outputs}
    real |= {outcome.turn_id, outcome.grant_id}
    assert [r for r in real if r in without] == []

    record = json.loads(without)
    assert PLACEHOLDER.match(record["request"]) and _ULID.match(record["thread_id"])
    # Structure stays: kinds, tool names, statuses, counts, and references between re-keyed ids.
    added = record["canvas_diff"]["added_nodes"]
    assert {"text", "image", "feedback"} <= {n["kind"] for n in added}
    assert all(_ULID.match(n["id"]) for n in added)
    images = [n for n in added if n["kind"] == "image"]
    assert images and all(re.fullmatch(r"[0-9a-f]{64}", h["sha256"]) for n in images for h in n["outputs"])
    assert [a.get("tool") for a in record["actions"]][:4] == ["create_node", "mark_stale", "query_canvas",
                                                              "generate_image"]
    assert record["canvas_before"] < record["canvas_after"]
    assert all(isinstance(s["model_calls"], int) for s in record["steps"])  # metrics keep their numbers
    note = record["actions"][0]["args"]
    assert any(VALUE_PLACEHOLDER.match(v) for v in note["inputs"].values())  # the budget: a number, withheld
    # The same text has the same token within the export: the title in the action and on the canvas; the
    # note's re-keyed id in the stale mark's arguments and on the canvas.
    assert PLACEHOLDER.match(note["title"]) and note["title"] in [n["title"] for n in added if n["kind"] == "text"]
    note_id = next(n["id"] for n in added if n["kind"] == "text")
    assert record["actions"][1]["args"]["node_id"] == note_id


def test_tokens_and_ids_are_salted_per_export() -> None:
    first, second = Withholder(), Withholder()
    assert first.token("castle") == first.token("castle") != second.token("castle")
    node = "01JABCDEFGHJKMNPQRSTVWXYZ0"
    assert first.rekey(node) == first.rekey(node) != second.rekey(node) and _ULID.match(first.rekey(node))
    assert first.rekey(THREAD) != THREAD and _ULID.match(first.rekey(THREAD))
    cleaned = first({"thread_id": THREAD, "canvas_diff": {"added_nodes": [
        {"id": node, "kind": "image", "title": "castle", "status": "completed", "version": 3,
         "inputs": {"seed": 7, "language": "fr"}}]}})
    assert cleaned["thread_id"] == first.rekey(THREAD)
    assert cleaned["canvas_diff"]["added_nodes"][0] == {
        "id": first.rekey(node), "kind": "image", "title": first.token("castle"), "status": "completed",
        "version": 3, "inputs": {first.token("seed"): first.value(7), first.token("language"): first.token("fr")}}
    # A name outside the closed vocabulary is withheld, whatever field it sits in.
    assert first({"canvas_diff": {"added_nodes": [{"kind": "a castle at night"}]}})["canvas_diff"][
        "added_nodes"][0]["kind"] == first.token("a castle at night")
