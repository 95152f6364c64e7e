"""A newcomer's first hour, as README.md walks it: real ``jarvishub`` processes in a temp HOME.

Projects are found like git repositories, demos get fresh folders, the files
land under ``outputs/`` with names, and every way a command can end has its
own exit code.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from jarvishub.project import Project
from tests.newcomer_env import jarvishub, place  # noqa: F401  (place is a fixture)
from tests.system_tools import REQUIRE_ENV, require_system_tool

pytestmark = pytest.mark.long_file(70)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)


@pytest.fixture(scope="module")
def demo(place) -> Path:
    """`jarvishub demo narrative` run from the work folder (two shots, to keep the suite fast)."""
    done = jarvishub("demo", "narrative", "--shots", "2", cwd=place["work"], home=place["home"])
    assert done.returncode == 0, done.stdout + done.stderr
    folder = place["work"] / "jarvishub-demo-narrative"
    assert folder.is_dir()
    lines = done.stdout.strip().splitlines()
    assert lines[-1].strip() == "open outputs/narrative/final-cut.mp4"
    assert f"your files are in {folder / 'outputs'}" in done.stdout
    return folder


@pytest.fixture(scope="module")
def held(demo):
    """Keep the demo project's engine up while the module's commands come and go."""
    with Project.open(demo) as project:
        yield project


def test_outside_a_project_every_command_refuses_and_nothing_machine_wide_is_written(place):
    for command in (["status"], ["run", "note: where does this go?"], ["history"], ["query", "RETURN 1"]):
        done = jarvishub(*command, cwd=place["work"], home=place["home"])
        assert done.returncode == 4, (command, done.stderr)
        assert "not a JarvisHub project (or any parent)" in done.stderr
        assert "run `jarvishub init` or pass -C" in done.stderr
    assert not (place["home"] / ".config" / "jarvishub").exists()


def test_init_makes_the_current_folder_a_project_found_from_below(place):
    film = place["work"] / "film"
    (film / "scenes" / "day-1").mkdir(parents=True)
    made = jarvishub("init", cwd=film, home=place["home"])
    assert made.returncode == 0, made.stderr
    assert (film / "jarvishub.toml").is_file()
    assert made.stdout.splitlines()[0].startswith("project film")
    with Project.open(film):  # one engine for the two commands below
        found = jarvishub("status", "--json", cwd=film / "scenes" / "day-1", home=place["home"])
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["project"] == str(film)
        text = jarvishub("status", cwd=film / "scenes", home=place["home"])
        assert text.stdout.splitlines()[0] == f"project film · {film}"
    # A demo started inside a project goes next to it, never into it.
    assert not any(p.name.startswith("jarvishub-demo") for p in film.rglob("*"))


def test_the_demo_names_its_files_and_a_second_demo_gets_its_own_folder(place, demo):
    outputs = demo / "outputs" / "narrative"
    names = sorted(p.name for p in outputs.iterdir() if p.is_file())
    assert names == ["final-cut.mp4", "shot-01-clip.mp4", "shot-01-image.png", "shot-02-clip.mp4",
                     "shot-02-image.png"]
    assert (outputs / "final-cut.mp4").read_bytes()[4:8] == b"ftyp"
    assert (outputs / "shot-01-image.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # Standing inside the first demo, a second demo makes a fresh sibling folder.
    again = jarvishub("demo", "narrative", "--shots", "1", cwd=demo / "outputs", home=place["home"])
    assert again.returncode == 0, again.stderr
    second = place["work"] / "jarvishub-demo-narrative-2"
    assert (second / "outputs" / "narrative" / "final-cut.mp4").is_file()
    assert sorted(p.name for p in (demo / "outputs" / "narrative").iterdir() if p.is_file()) == names

    taken = jarvishub("demo", "narrative", "--dir", str(demo / "inner"), cwd=place["work"], home=place["home"])
    assert taken.returncode == 2 and "inside the project" in taken.stderr


def test_shots_are_completed_and_status_points_at_the_files(place, demo, held):
    status = json.loads(jarvishub("status", "--json", cwd=demo, home=place["home"]).stdout)
    assert status["project"] == str(demo)
    shots = [n for n in held.store.find_nodes(kind="shot")]
    assert shots and all(n.status.value == "completed" for n in shots)
    assert "pending" not in status["by_status"]
    assert status["outputs"] == [str(demo / "outputs" / "narrative" / "final-cut.mp4")]
    opened = jarvishub("open", "--json", cwd=demo, home=place["home"])
    assert json.loads(opened.stdout)["outputs"] == status["outputs"]


def test_a_repair_keeps_the_old_version_and_the_exit_codes_say_what_happened(place, demo, held, tmp_path):
    cut = demo / "outputs" / "narrative" / "final-cut.mp4"
    old_cut = cut.read_bytes()
    relit = jarvishub("run", "redo the lighting on shot 2", "--json", cwd=demo, home=place["home"])
    assert relit.returncode == 0, relit.stderr
    outcome = json.loads(relit.stdout)
    assert outcome["result"] == "done" and outcome["project"] == str(demo)
    versions = demo / "outputs" / "narrative" / "versions"
    assert sorted(p.name for p in versions.iterdir()) == ["final-cut-v1.mp4", "shot-02-clip-v1.mp4",
                                                          "shot-02-image-v1.png"]
    assert (versions / "final-cut-v1.mp4").read_bytes() == old_cut != cut.read_bytes()

    # history and run agree on the canvas versions of the turn.
    history = json.loads(jarvishub("history", "--json", cwd=demo, home=place["home"]).stdout)
    turn = next(t for t in history["turns"] if t["thread_id"] == outcome["thread_id"])
    assert (turn["canvas_before"], turn["canvas_after"]) == (outcome["canvas_before"], outcome["canvas_after"])

    missing = jarvishub("run", "redo the lighting on shot 99", cwd=demo, home=place["home"])
    assert missing.returncode == 4, missing.stdout
    unknown = jarvishub("run", "bake me a cake", cwd=demo, home=place["home"])
    assert unknown.returncode == 2 and "I can:" in unknown.stdout, unknown.stdout  # it lists what it can do
    malformed = jarvishub("query", "MATCH (n RETURN n", cwd=demo, home=place["home"])
    assert malformed.returncode == 2 and "Syntax error" in malformed.stderr and "^" in malformed.stderr
    writing = jarvishub("query", "MATCH (n) DETACH DELETE n", cwd=demo, home=place["home"])
    assert writing.returncode == 3
    for flag in ("--limit", "--timeout"):
        assert jarvishub("query", "RETURN 1", flag, "-1", cwd=demo, home=place["home"]).returncode == 2

    # Long requests: from a file and from stdin.
    request = tmp_path / "request.txt"
    request.write_text("note: " + "a very long note " * 10_000)  # longer than one argument may be (128 KiB)
    from_file = jarvishub("run", "--file", str(request), "--json", cwd=demo, home=place["home"])
    assert from_file.returncode == 0, from_file.stderr
    from_stdin = jarvishub("run", "-", "--json", cwd=demo, home=place["home"], stdin="note: from stdin")
    assert from_stdin.returncode == 0 and json.loads(from_stdin.stdout)["reply"].startswith("Added note")
    assert jarvishub("run", cwd=demo, home=place["home"]).returncode == 2

    exported = jarvishub("export", str(tmp_path / "out"), cwd=demo, home=place["home"])
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "out" / "narrative" / "final-cut.mp4").read_bytes() == cut.read_bytes()
    assert not (tmp_path / "out" / "narrative" / "versions").exists()


def test_a_turn_waiting_for_a_person_exits_5_and_resume_answers_it(place, demo, held):
    with (demo / "jarvishub.toml").open("a") as project_file:
        project_file.write('\n[grants.careful]\napproval_tools = ["create_node"]\n')
    paused = jarvishub("run", "note: ask me first", "--grant", "careful", cwd=demo, home=place["home"])
    assert paused.returncode == 5, paused.stdout + paused.stderr
    history = json.loads(jarvishub("history", "--json", cwd=demo, home=place["home"]).stdout)
    [waiting] = history["unfinished"]
    assert waiting["state"] == "waiting" and waiting["request"] == "note: ask me first"
    status = json.loads(jarvishub("status", "--json", cwd=demo, home=place["home"]).stdout)
    assert f"jarvishub resume {waiting['thread_id']}" in [a["repair"] for a in status["attention"]]
    # Without an answer, resume shows the question again instead of answering it with nothing.
    asked = jarvishub("resume", cwd=demo, home=place["home"])
    assert asked.returncode == 5 and waiting["thread_id"] in asked.stdout
    rejected = jarvishub("resume", "--reject", "--json", cwd=demo, home=place["home"])
    assert json.loads(rejected.stdout)["thread_id"] == waiting["thread_id"]
    assert json.loads(jarvishub("history", "--json", cwd=demo, home=place["home"]).stdout)["unfinished"] == []
    nothing = jarvishub("resume", cwd=demo, home=place["home"])
    assert nothing.returncode == 2 and "no unfinished turn" in nothing.stderr


def test_tools_and_skills_list_the_manifest(place, demo, held):
    tools = json.loads(jarvishub("tools", "--json", cwd=demo, home=place["home"]).stdout)["tools"]
    by_name = {t["tool"]: t for t in tools}
    assert by_name["query_canvas"]["effects"] == ["read_only"] and by_name["query_canvas"]["default_grant"]
    destructive = [t for t in tools if "destructive" in t["effects"]]
    assert destructive and all(not t["default_grant"] and t["approval"] for t in destructive)
    table = jarvishub("tools", cwd=demo, home=place["home"])
    assert table.returncode == 0 and "generate_image" in table.stdout
    skills = json.loads(jarvishub("skills", "--json", cwd=demo, home=place["home"]).stdout)["skills"]
    assert {"storyboard", "video_clips"} <= {s["skill"] for s in skills}


def test_ui_with_its_port_taken_says_so_and_port_0_is_accepted(place, demo):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        busy = jarvishub("ui", "--port", port, cwd=demo, home=place["home"])
    assert busy.returncode == 2 and f"port {port} on 127.0.0.1 is taken" in busy.stderr
    assert "--port 0" in busy.stderr and "Traceback" not in busy.stderr
    assert jarvishub("ui", "--port", "70000", cwd=demo, home=place["home"]).returncode == 2


def test_a_missing_system_tool_skips_with_the_install_command(monkeypatch):
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install no-such-pkg"):
        require_system_tool("no-such-program-here", apt="no-such-pkg")
    monkeypatch.setenv(REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="apt-get install no-such-pkg"):
        require_system_tool("no-such-program-here", apt="no-such-pkg")
    assert require_system_tool("sh", apt="dash").endswith("/sh")


def _node(kind: str, title: str, status: str, sha: str, mime: str, name: str):
    from store.models import CanvasNode

    handle = {"sha256": sha * 64, "mime": mime, "size": 1, "uri": f"artifact://sha256/{sha * 64}", "name": name}
    return CanvasNode(kind=kind, title=title, status=status, created_at=sha, outputs=[handle])


def test_output_names_versions_and_titles_that_try_to_leave_the_folder():
    from jarvishub.outputs import plan
    from store.models import CanvasEdge

    old = _node("image", "shot 3 image", "rejected", "a", "image/png", "generate_image-1.png")
    new = _node("image", "shot 3 image", "completed", "b", "image/png", "generate_image-2.png")
    cut = _node("video", "final cut", "completed", "c", "video/mp4", "assemble_cut-1.mp4")
    twin = _node("video", "final cut", "completed", "d", "video/mp4", "x.mp4")
    page = _node("file", "site/studio/index.html", "completed", "e", "text/html", "index.html")
    sneaky = _node("file", "../../etc/passwd.html", "completed", "f", "text/html", "passwd.html")
    edges = [CanvasEdge(type="VERSION_OF", source=new.id, target=old.id),
             CanvasEdge(type="GENERATED_FROM", source=cut.id, target=new.id)]
    files = {f.node_id: f for f in plan([old, new, cut, twin, page, sneaky], edges)}
    assert files[new.id].path == "narrative/shot-03-image.png" and files[new.id].lineage == 2
    assert files[old.id].path == "narrative/versions/shot-03-image-v1.png" and not files[old.id].current
    assert files[cut.id].path == "narrative/final-cut.mp4" and files[cut.id].final
    assert not files[new.id].final  # the cut was made from it
    assert files[twin.id].path == f"narrative/final-cut-{twin.id[-6:].lower()}.mp4"
    assert files[page.id].path == "file/site/studio/index.html"
    assert files[sneaky.id].path == "file/etc-passwd-html.html"  # no ".." survives


@pytest.mark.parametrize("outcome, steps, reply, expected", [
    ("replied", [{"action": {"tool": "create_node"}, "observation": {"created": "x"}}], "Added note x.", 0),
    ("interrupted", [], None, 5),
    ("revoked", [], "the grant was revoked", 3),
    ("step_budget", [], "stopped after 40 steps", 1),
    # The model's own noise is retried: a turn that then finished is done.
    ("replied", [{"action": {"kind": "malformed"}, "verdict": {"verdict": "reject", "reason": "model_error"}},
                 {"action": {"tool": "create_node"}, "observation": {}}], "Added note x.", 0),
    # A tool the bridge refused, or one that failed and was never made good, is a failed turn.
    ("replied", [{"action": {"tool": "set_status"}, "verdict": {"verdict": "reject", "reason": "out_of_scope"}}],
     "I could not run set_status: outside the scope", 1),
    ("replied", [{"action": {"tool": "render_page"}, "observation": {"error": "no chromium"}}], "Built it.", 1),
    ("replied", [{"action": {"tool": "render_page"}, "observation": {"error": "busy"}},
                 {"action": {"tool": "render_page"}, "observation": {"image": "x"}}], "Built it.", 0),
    # The planner says in its outcome, not in its words, that it could not do the request.
    ("no_playbook", [], "I have no offline playbook for that request. Try: ...", 2),
    # The model's query was refused because the user-query budget was spent: busy, try again.
    ("replied", [{"action": {"tool": "query_canvas"}, "observation": {"error": "2 user queries are already running",
                                                                       "error_type": "QueryBusy"}}],
     "I could not run query_canvas: failed: 2 user queries are already running", 75),
    ("not_found", [{"action": {"tool": "query_canvas"}, "observation": {"rows": []}}],
     "There is no shot 99 with a current image on the canvas.", 4),
])
def test_a_turn_exits_with_what_happened(outcome, steps, reply, expected):
    from types import SimpleNamespace

    from jarvishub.commands.outcomes import exit_code

    assert exit_code(SimpleNamespace(outcome=outcome, steps=steps, reply=reply)) == expected
