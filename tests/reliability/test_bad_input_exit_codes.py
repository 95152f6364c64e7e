"""Bad input gets its documented exit code and one line, and changes nothing (issue #23, 18 of 56 cases).

Every case runs the CLI in a subprocess on one project whose canvas holds a note; the canvas version must be
the same after each refused command.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.engine_processes import cli_env, jarvishub, new_project, one_line

pytestmark = pytest.mark.long_file(40)

BAD_INPUT, NOT_FOUND = 2, 4
UNKNOWN_ID = "01J0000000000000000000NOPE"


@pytest.fixture(scope="module")
def noted(tmp_path_factory) -> Iterator[dict]:
    """A project with one note (a text node) and the finished turn that made it."""
    with new_project(tmp_path_factory.mktemp("bad-input")) as project:
        ran = jarvishub("-C", str(project), "run", "note: the keeper's coat is red", "--json")
        assert ran.returncode == 0, ran.stderr
        turn = json.loads(ran.stdout)
        text_nodes = "MATCH (n:CanvasNode {kind: 'text'}) RETURN n.id AS id"
        rows = json.loads(jarvishub("-C", str(project), "query", text_nodes, "--json").stdout)["rows"]
        yield {"project": project, "thread": turn["thread_id"], "text_node": rows[0]["id"],
               "version": _canvas_version(project)}  # after the turn


def _canvas_version(project: Path) -> int:
    return json.loads(jarvishub("-C", str(project), "status", "--json").stdout)["canvas_version"]


def _refused(noted: dict, code: int, *argv: str | bytes) -> str:
    """Run ``jarvishub -C PROJECT ARGV``; assert the exit code and one line on stderr; return that line."""
    done = subprocess.run([sys.executable, "-m", "jarvishub.cli", "-C", str(noted["project"]), *argv],
                          capture_output=True, env=cli_env(), timeout=240)
    stderr = done.stderr.decode(errors="replace")
    assert done.returncode == code, done.stdout.decode(errors="replace") + stderr
    return one_line(stderr)


def test_run_with_an_unknown_selected_id_is_not_found(noted):
    assert UNKNOWN_ID in _refused(noted, NOT_FOUND, "run", "make it warmer", "--select", UNKNOWN_ID)


def test_run_with_a_folder_as_its_file_is_bad_input(noted, tmp_path):
    assert "is a folder" in _refused(noted, BAD_INPUT, "run", "--file", str(tmp_path))


def test_a_request_that_is_not_utf8_is_bad_input(noted, tmp_path):
    assert "not valid UTF-8 (byte 0xff" in _refused(noted, BAD_INPUT, "run", b"note: the coat is \xff red")
    (tmp_path / "request.txt").write_bytes(b"note: \xc3\x28 broken")
    assert "not valid UTF-8 (byte 0xc3" in _refused(noted, BAD_INPUT, "run", "--file", str(tmp_path / "request.txt"))


def test_a_query_parameter_nested_5000_levels_deep_is_bad_input(noted):
    deep = "[" * 5000 + "]" * 5000
    assert "nests more than" in _refused(noted, BAD_INPUT, "query", "RETURN $k AS k", "--param", f"k={deep}")


def test_explore_of_an_unknown_node_is_not_found_and_of_a_text_node_bad_input(noted):
    assert UNKNOWN_ID in _refused(noted, NOT_FOUND, "explore", UNKNOWN_ID, "moods")
    assert "explore works on image nodes" in _refused(noted, BAD_INPUT, "explore", noted["text_node"], "moods")


def test_resume_of_a_finished_turn_is_bad_input(noted):
    line = _refused(noted, BAD_INPUT, "resume", noted["thread"], "--answer", "yes")
    assert "has finished" in line and noted["thread"] in line
    assert "nothing to continue" in _refused(noted, BAD_INPUT, "resume", noted["thread"])


def test_approve_and_reject_together_are_bad_input(noted):
    assert "not allowed with argument" in _refused(noted, BAD_INPUT, "resume", "--approve", "--reject")


def test_none_of_them_changed_the_canvas(noted):
    assert _canvas_version(noted["project"]) == noted["version"]
