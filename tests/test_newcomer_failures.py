"""A newcomer's failures, as README.md promises to handle them: a web demo's one JSON document, a failed step's
exit code, and an engine killed mid-turn that prints one resume line and resumes to the same canvas.

Split from ``test_newcomer.py`` so that the two halves run on different workers.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from jarvishub.project import Project
from tests.canvas_fingerprint import canvas_fingerprint, fingerprint_difference
from tests.newcomer_env import ROOT, jarvishub, place  # noqa: F401  (place is a fixture)
from tests.processes import engine_pids
from tests.system_tools import require_system_tool

pytestmark = pytest.mark.long_file(170)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)


def test_the_web_demo_prints_one_json_document_for_its_two_turns(place):
    require_system_tool("chromium", apt="chromium")
    folder = place["work"] / "web-demo"
    done = jarvishub("demo", "web", "--dir", str(folder), "--json", cwd=place["work"], home=place["home"])
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(done.stdout)  # one document: a second one would make this raise "Extra data"
    assert document["project"] == str(folder) and document["result"] == "done" and document["exit_code"] == 0
    assert [t["request"] for t in document["turns"]] == [
        "a website for a photography studio: quiet, editorial, lots of white space, black-and-white portraits",
        "make the hero full-bleed"]
    assert all(t["result"] == "done" and t["thread_id"] for t in document["turns"])
    assert document["outputs"] and all(Path(path).is_file() for path in document["outputs"])
    # outputs/ holds the revised page (one current page, under web/) and every picture it shows resolves.
    assert not (folder / "outputs" / "narrative").exists(), "the page's previews belong under outputs/web/"
    (page,) = [Path(path) for path in document["outputs"] if path.endswith(".html")]
    html = page.read_text()
    assert page.is_relative_to(folder / "outputs" / "web") and "hero--full-bleed" in html
    shown = re.findall(r'src="([^"]+)"', html) + re.findall(r"url\('([^']+)'\)", html)
    assert shown and all((page.parent / picture).is_file() for picture in shown), shown
    started = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    assert [s["thread_id"] for s in started] == [t["thread_id"] for t in document["turns"]]


def test_a_failed_step_exits_1(place):
    """`demo web` without a browser: the render step fails, so the demo is not done."""
    done = jarvishub("demo", "web", cwd=place["work"], home=place["home"],
                     env={"JARVISHUB_CHROMIUM": str(place["work"] / "no-such-chromium")})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "failed" in done.stdout
    # its closing lines say where it stopped, not "your files are in", which read as a demo that worked
    assert "your files are in" not in done.stdout and "the demo stopped at 'a website for" in done.stdout, done.stdout
    assert "(exit 1)" in done.stdout and "jarvishub history" in done.stdout


def test_a_page_build_without_a_browser_writes_nothing_and_says_how_to_install_one(place):
    """The page build needs Chromium for its preview: missing, the request fails before the skill makes its style
    references, pictures and layouts (they were left behind as half a page, marked failed), and says how to
    install it."""
    folder = place["work"] / "no-browser"
    assert jarvishub("init", str(folder), cwd=place["work"], home=place["home"]).returncode == 0
    done = jarvishub("run", "make a website for a bakery", cwd=folder, home=place["home"],
                     env={"JARVISHUB_CHROMIUM": str(place["work"] / "no-such-chromium")})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "apt-get install -y chromium" in done.stdout + done.stderr
    with Project.open(folder) as project:
        assert project.store.count_nodes() == {}, "the failed build left nodes on the canvas"


STORY = "a 2-shot short drama about a baker"


@pytest.fixture(scope="module")
def uninterrupted(place) -> dict:
    """The canvas the story turn makes when nothing goes wrong, on a fresh project of its own."""
    folder = place["work"] / "uninterrupted"
    assert jarvishub("init", str(folder), cwd=place["work"], home=place["home"]).returncode == 0
    done = jarvishub("run", STORY, cwd=folder, home=place["home"])
    assert done.returncode == 0, done.stdout + done.stderr
    with Project.open(folder) as project:
        return canvas_fingerprint(project.store)


def _engine_record(folder: Path) -> str:
    """The engine's record and its log's last lines, for a failure's message (a rare failure of the resume
    under load has not been explained yet)."""
    engine = folder / ".jarvishub" / "engine"
    parts = []
    for name, last in (("engine.json", 0), ("engine.log", 30)):
        try:
            text = (engine / name).read_text(errors="replace")
        except OSError as error:
            text = str(error)
        if name == "engine.json":
            text = re.sub(r'"(\w*password)": "[^"]*"', r'"\1": "…"', text)
        parts.append(f"\n--- {name}\n" + ("\n".join(text.splitlines()[-last:]) if last else text))
    return "".join(parts)


def test_an_engine_killed_mid_turn_prints_one_resume_line_and_resume_makes_the_same_canvas(place, uninterrupted):
    folder = place["work"] / "crash"
    assert jarvishub("init", str(folder), cwd=place["work"], home=place["home"]).returncode == 0
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(place["home"]), "PYTHONUNBUFFERED": "1",
                   "JARVISHUB_GENERATION_OFFLINE_LATENCY_S": "0.5"}
    environment.pop("OPENAI_API_KEY", None)
    turn = subprocess.Popen([sys.executable, "-m", "jarvishub.cli", "run", STORY], cwd=folder, env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        thread = None
        assert turn.stdout is not None
        for line in turn.stdout:  # the events: the thread is named, then the first step (the storyboard) is done
            if "starting thread" in line:
                thread = line.split("starting thread ")[1].split()[0]
            if "step 1:" in line:
                break
        assert thread is not None
        # The shot images are being generated (each takes 0.5 s): the engine dies in the middle of that step.
        [engine] = engine_pids(str(folder / ".jarvishub"))
        os.kill(engine, signal.SIGKILL)
        rest, err = turn.communicate(timeout=300)
    finally:
        if turn.poll() is None:
            turn.kill()
            turn.wait()
    assert turn.returncode == 1, rest + err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    [line] = lines
    assert "canvas engine stopped answering" in line and f"jarvishub resume {thread}" in line

    history = json.loads(jarvishub("history", "--json", cwd=folder, home=place["home"]).stdout)
    assert [t["thread_id"] for t in history["unfinished"]] == [thread]
    resumed = jarvishub("resume", "--json", cwd=folder, home=place["home"])
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr + _engine_record(folder)
    assert json.loads(resumed.stdout)["thread_id"] == thread

    # The resumed turn reaches the canvas of an uninterrupted run: same nodes, versions, edges and bytes.
    with Project.open(folder) as project:
        after_resume = canvas_fingerprint(project.store)
    assert after_resume == uninterrupted, fingerprint_difference(after_resume, uninterrupted)
