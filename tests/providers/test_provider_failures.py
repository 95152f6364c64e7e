"""What real providers do, through ``jarvishub run`` in a subprocess: each failure ends in one line and an honest
exit code, nothing of the failed call reaches the canvas, what was billed is counted, and ``resume`` finishes.

The agent is a scripted model behind the loopback endpoint (each test its own model name, so its own script):
it asks for one image, then replies.  The faults are the Images API's.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from store.trajectories import TrajectoryStore
from tests.providers.conftest import document, jarvishub, user_env
from tests.providers.loopback import Fault, ScriptedBrain
from tools.spend import PriceTable, Spend

pytestmark = pytest.mark.long_file(40)


@pytest.fixture
def folder(shared_project):
    """The providers' shared project (``conftest.py``), held open by this process so its engine serves every
    command."""
    return shared_project


def script(loopback, model: str, *replies: dict) -> None:
    """The agent model ``model`` answers with these replies, in order."""
    loopback.brains[model] = ScriptedBrain(list(replies))


def image_call(title: str) -> dict:
    return {"tool": "generate_image", "arguments": {"prompt": f"a lighthouse at night, {title}", "lighting": "night",
                                                    "title": title, "width": 512, "height": 512}}


def images_titled(project, title: str) -> list:
    """The image nodes of that title on the canvas (read in this process: the commands under test are the runs)."""
    return [n for n in project.store.find_nodes(kind="image") if n.title == title]


def _ledger_rows(project, turn_id: str) -> list:
    """(source, spend) of every row the spend ledger holds for a turn."""
    import sqlite3

    with sqlite3.connect(project.state_dir / "spend.sqlite") as db:
        rows = db.execute("SELECT source, body FROM spend WHERE turn_id = ?", (turn_id,)).fetchall()
    return [(source, Spend.model_validate_json(body)) for source, body in rows]


def error_line(done) -> str:
    """The one line a failed command writes on stderr."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def test_a_rate_limit_that_lasts_stops_the_turn_in_one_line_and_resume_finishes_it(loopback, folder):
    script(loopback, "agent-429", image_call("rate limited"), {"content": "Made the lighthouse image."})
    env = user_env(loopback, JARVISHUB_MODEL="agent-429", JARVISHUB_GENERATION_MAX_RETRIES="1")
    loopback.inject("images", Fault(status=429, retry_after=1, times=2, message="Rate limit reached for images"))
    before = len(loopback.requests("images"))
    stopped = jarvishub(env, "-C", str(folder.root), "run", "an image of a lighthouse at night")
    assert stopped.returncode == 75, stopped.stderr  # busy: the same command later is all it takes
    line = error_line(stopped)
    thread = stopped.stdout.split("starting thread ")[1].split()[0]
    assert line.startswith("busy: the image model gpt-image-1 at openai is rate limiting (429) after 2 attempts")
    assert "retry after 1 s" in line and "Rate limit reached for images" in line
    assert f"jarvishub resume {thread}" in line and "nothing of it was written" in line
    tried = loopback.requests("images")[before:]
    assert [r["status"] for r in tried] == [429, 429]
    assert tried[1]["at"] - tried[0]["at"] >= 0.95  # the SDK waited as the provider asked (Retry-After: 1)
    assert images_titled(folder, "rate limited") == []  # nothing of the failed call on the canvas
    assert thread in [t["thread_id"] for t in TrajectoryStore(folder.state_dir / "trajectories.sqlite").unfinished()]

    resumed = jarvishub(env, "-C", str(folder.root), "resume", thread, "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert document(resumed)["result"] == "done"
    [made] = images_titled(folder, "rate limited")
    assert made.metadata["provenance"]["provider"] == "openai"
    with Image.open(io.BytesIO(folder.artifacts.read_bytes(made.outputs[0]))) as picture:
        picture.load()  # a whole PNG from the provider, not a placeholder
        assert picture.format == "PNG" and picture.size == (1024, 1024)


def test_a_truncated_image_is_asked_for_again_then_stops_the_turn_and_what_was_billed_is_counted(loopback, folder):
    script(loopback, "agent-truncated", image_call("truncated"), {"content": "Made it."})
    env = user_env(loopback, JARVISHUB_MODEL="agent-truncated")
    loopback.inject("images", Fault(image="truncated", times=2))
    before = loopback.billed("images")
    stopped = jarvishub(env, "-C", str(folder.root), "run", "an image of a lighthouse at night")
    assert stopped.returncode == 1, stopped.stderr
    line = error_line(stopped)
    assert "returned output that could not be used after 2 attempts" in line
    assert "not a whole image" in line and "2 billed answer(s)" in line
    assert loopback.billed("images") - before == 2
    assert images_titled(folder, "truncated") == []
    thread = stopped.stdout.split("starting thread ")[1].split()[0]
    assert jarvishub(env, "-C", str(folder.root), "resume", thread).returncode == 0
    assert len(images_titled(folder, "truncated")) == 1
    # The turn's spend counts the two unusable answers and the good one: three images at the provider.
    assert loopback.billed("images") - before == 3
    [turn] = TrajectoryStore(folder.state_dir / "trajectories.sqlite").turns(thread)
    images = [row for row in _ledger_rows(folder, turn["turn_id"]) if row[0] == "image"]
    most = PriceTable().price("gpt-image-1").per_image
    assert len(images) == 2  # one row for the two unusable answers (priced at the most), one for the good one
    assert sum(spend.calls for _, spend in images) == 3
    assert sum(spend.cost_usd for _, spend in images) > 2 * most


def test_a_server_error_that_lasts_is_a_failure_with_the_providers_words(loopback, folder):
    script(loopback, "agent-5xx", image_call("server error"), {"content": "Made it."})
    env = user_env(loopback, JARVISHUB_MODEL="agent-5xx", JARVISHUB_GENERATION_MAX_RETRIES="1")
    loopback.inject("images", Fault(status=503, times=2, message="The engine is currently overloaded"))
    stopped = jarvishub(env, "-C", str(folder.root), "run", "an image of a lighthouse at night", "--json")
    assert stopped.returncode == 1
    reported = document(stopped)
    assert reported["exit_code"] == 1 and reported["thread_id"]
    assert "had a server error (503) after 2 attempts" in reported["error"]
    assert "The engine is currently overloaded" in reported["error"]
    assert images_titled(folder, "server error") == []


def test_a_content_policy_refusal_is_refused_and_writes_nothing(loopback, folder):
    script(loopback, "agent-policy", image_call("refused"), {"content": "The provider refused that image."})
    env = user_env(loopback, JARVISHUB_MODEL="agent-policy")
    loopback.inject("images", Fault(status=400, code="content_policy_violation",
                                    message="Your request was rejected by the safety system"))
    refused = jarvishub(env, "-C", str(folder.root), "run", "an image of a lighthouse at night", "--json")
    assert refused.returncode == 3, refused.stderr  # refused, not failed: asking again the same way will not help
    turn = document(refused)
    assert turn["result"] == "refused"
    [step] = [s for s in turn["steps"] if (s.get("action") or {}).get("tool") == "generate_image"]
    assert step["observation"]["refused"] == "content_policy"
    assert "rejected by the safety system" in step["observation"]["error"]
    assert images_titled(folder, "refused") == []
    # Refusals are not retried: the provider saw the request once.
    assert [r["status"] for r in loopback.requests("images")[-1:]] == [400]


def test_a_cost_budget_stops_the_turn_before_the_call_that_could_overspend(loopback, folder):
    script(loopback, "agent-budget", image_call("first on budget"), image_call("second on budget"),
           {"content": "Made both."})
    # One image may cost up to $0.50 here (two answers at the most an image costs): the first fits in $0.60,
    # the second would not once the first is paid.
    env = user_env(loopback, JARVISHUB_MODEL="agent-budget", JARVISHUB_BUDGET_USD="0.60")
    before = loopback.billed("images")
    stopped = jarvishub(env, "-C", str(folder.root), "run", "an image of a lighthouse at night", "--json")
    assert stopped.returncode == 3, stopped.stderr
    turn = document(stopped)
    assert turn["result"] == "refused" and turn["outcome"] == "budget"
    assert "cost budget of $0.6000 would be exceeded" in turn["reply"]
    assert loopback.billed("images") - before == 1
    assert len(images_titled(folder, "first on budget")) == 1 and images_titled(folder, "second on budget") == []
    assert 0 < turn["spend"]["cost_usd"] <= 0.60


def test_a_model_that_says_done_after_its_write_was_refused_exits_3(loopback, folder):
    """A user's grant profile allows image nodes only; the model writes a text node anyway, is refused, and then
    answers "Done!".  The turn wrote nothing, so it exits 3 and says what was not written: the reply is the
    model's, the exit code is what happened."""
    with (folder.root / "jarvishub.toml").open("a") as project_file:
        project_file.write('\n[grants.pictures-only]\nnode_kinds = ["image"]\n')
    script(loopback, "agent-overclaims",
           {"tool": "create_node", "arguments": {"kind": "text", "title": "claimed note", "inputs": {"text": "x"}}},
           {"content": "Done! I added the note."})
    env = user_env(loopback, JARVISHUB_MODEL="agent-overclaims")
    done = jarvishub(env, "-C", str(folder.root), "run", "jot down that the ferry leaves at dawn", "--grant", "pictures-only",
                     "--json")
    assert done.returncode == 3, done.stdout + done.stderr
    turn = document(done)
    assert turn["result"] == "refused"
    [step] = [s for s in turn["steps"] if (s.get("action") or {}).get("tool") == "create_node"]
    assert step["verdict"]["reason"] == "kind_not_granted"
    assert "Done! I added the note." in turn["reply"] and "Nothing was changed: create_node" in turn["reply"]
    assert [n for n in folder.store.find_nodes(kind="text") if n.title == "claimed note"] == []


def test_a_reply_in_words_to_a_request_no_one_could_check_says_nothing_was_changed(loopback, folder):
    """The interpreter cannot read "give the whole thing more oomph"; a real model answers it in words alone,
    "Done!".  Whether a change was asked no one can tell, so the turn ends as a reply (exit 0), but the reply says
    what was measured: nothing on the canvas changed."""
    script(loopback, "agent-words-only", {"content": "Done! Everything has more oomph now."})
    env = user_env(loopback, JARVISHUB_MODEL="agent-words-only")
    before = folder.store.canvas_version()
    done = jarvishub(env, "-C", str(folder.root), "run", "give the whole thing more oomph", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    turn = document(done)
    assert turn["result"] == "done"  # a reply: what the CLI calls a finished turn
    assert turn["reply"].startswith("Done! Everything has more oomph now.")
    assert "Nothing on the canvas was changed this turn." in turn["reply"]
    assert folder.store.canvas_version() == before + 1  # the turn's own record, and nothing else
