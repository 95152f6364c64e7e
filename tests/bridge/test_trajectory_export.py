"""Trajectory export: one JSON object per turn with the canvas diff, secrets and personal data redacted."""

from __future__ import annotations

import json

from jarvishub.trajectory import PLACEHOLDER, export_thread, redact_text
from nodes.models.scripted import ScriptedModel


def test_redaction_of_secrets_emails_and_home_paths():
    text = ("key sk-abcdefghijklmnopqrstuv and Bearer abc.def.ghijklmnop, mail ana@example.org, "
            "file /home/ana/films/cut.mp4 db postgresql://jarvis:hunter2@db.local/x password=opensesame")
    cleaned = redact_text(text)
    for secret in ("sk-abcdefghijklmnopqrstuv", "abc.def.ghijklmnop", "ana@example.org", "/home/ana", "hunter2",
                   "opensesame"):
        assert secret not in cleaned
    assert "/home/[user]/films/cut.mp4" in cleaned and "postgresql://jarvis:[redacted]@db.local" in cleaned


def test_export_writes_each_turn_with_its_diff_and_honours_consent(make_runtime, project, tmp_path):
    runtime = make_runtime(model=ScriptedModel(script=[
        {"name": "create_node", "args": {"kind": "text", "title": "mail ana@example.org",
                                         "inputs": {"text": "use key sk-abcdefghijklmnopqrstuv"}}},
        "done for ana@example.org"]))
    outcome = runtime.run("note the contact ana@example.org in /home/ana/notes")
    out = tmp_path / "t.jsonl"
    assert export_thread(project.store, runtime.trajectories, outcome.thread_id, out, consent=False) == 1
    record = json.loads(out.read_text().splitlines()[0])
    assert PLACEHOLDER.match(record["request"])
    [added] = record["canvas_diff"]["added_nodes"]
    assert PLACEHOLDER.match(added["title"])
    # Free-form inputs keep nothing: the key is withheld like the value.
    assert [(bool(PLACEHOLDER.match(k)), bool(PLACEHOLDER.match(v))) for k, v in added["inputs"].items()] == [
        (True, True)]
    assert added["kind"] == "text"
    assert "sk-abcdefghijklmnopqrstuv" not in out.read_text() and "ana@example.org" not in out.read_text()
    assert record["canvas_before"] < record["canvas_after"]

    export_thread(project.store, runtime.trajectories, outcome.thread_id, out, consent=True)
    record = json.loads(out.read_text().splitlines()[0])
    assert record["request"] == "note the contact [redacted:email] in /home/[user]/notes"
    assert record["canvas_diff"]["added_nodes"][0]["inputs"]["text"] == "use key [redacted:api-key]"
