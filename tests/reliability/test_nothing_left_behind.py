"""The suite's own guard: a test that leaves an engine or a temporary folder behind fails the run (issue #23).

A small test file that leaks both is run by pytest in a subprocess with this suite's conftest: the run must
fail naming them, and the leaked engine and its supervisor must be gone afterwards.
"""

from __future__ import annotations

import subprocess
import sys

from tests.processes import session_processes
from tests.reliability.engine_processes import ROOT, cli_env

LEAKY = '''
def test_leaves_an_engine_lingering_for_ten_minutes(tmp_path):
    from store.embedded import EmbeddedArcadeEngine
    EmbeddedArcadeEngine(tmp_path / "engine", idle_seconds=600).close()


def test_leaves_a_temporary_folder():
    import tempfile
    tempfile.mkdtemp(prefix="forgotten-")
'''


def test_a_leaked_engine_or_temporary_folder_fails_the_run(tmp_path):
    (tmp_path / "test_leaky.py").write_text(LEAKY)
    env = cli_env(TMPDIR=str(tmp_path), JARVISHUB_TEST_ENGINE_EXIT_WAIT_S="2")
    env.pop("JARVISHUB_TEST_TMPDIR", None)  # the inner run gets a session folder of its own, under tmp_path
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest",
                           str(tmp_path / "test_leaky.py")], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=240)
    assert "2 passed" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 1, done.stdout
    assert "engine processes started by the tests outlived the suite" in done.stdout
    assert "tests left temporary files behind" in done.stdout and "forgotten-" in done.stdout
    [inner] = tmp_path.glob("jarvishub-tests-*")
    assert session_processes(str(inner)) == [], "the guard kills what it found"
