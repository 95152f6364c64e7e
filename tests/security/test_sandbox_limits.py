"""run_code's resources are the grant's to set, enforced in the sandbox, with the string guard switched off.

Reproductions of #23: with ``memory_mb=100``, 300 forks, a 300 MiB file and 400 MiB in ``/tmp`` all succeeded,
and the model could ask for 600 s and 8 GiB.  A FIFO made by ``run_code`` raised an exception out of
``Bridge.submit`` when named as an input.  And (#22) a venv under ``/tmp`` silently disabled ``run_code``:
``--tmpfs /tmp`` was mounted over the interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant, SandboxLimits
from store.artifacts import LocalArtifactStore
from tests.cli_run import ROOT
from tests.security.canvas_state import seeded_runtime
from tests.system_tools import missing_system_tool, require_system_tool
from tools.native.code import CodeLimits, run_python, sandbox_status

MIB = 1024 * 1024


@pytest.fixture(autouse=True)
def _sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    require_system_tool("bwrap", apt="bubblewrap")
    status = sandbox_status()
    if not status.available:
        missing_system_tool(status.reason)
    monkeypatch.setenv("JARVISHUB_CODE_GUARD", "0")  # the string guard off: only the sandbox and the limits stand
    monkeypatch.setenv("JARVISHUB_CODE_ALLOW_PROCESSES", "1")


@pytest.fixture(scope="module")
def runtime(project) -> Iterator[Runtime]:
    yield from seeded_runtime(project)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def artifacts(tmp_path: Path) -> LocalArtifactStore:
    return LocalArtifactStore(tmp_path / "artifacts")


def unguarded(source: str, workspace: Path, artifacts, **limits) -> object:
    return run_python(textwrap.dedent(source), workspace, artifacts,
                      CodeLimits(guard=False, allow_processes=True, **limits))


def test_the_grant_sets_time_and_memory_and_the_model_cannot_ask_for_more(runtime) -> None:
    grant = runtime.grants.save(Grant(sandbox=SandboxLimits(timeout_s=2, memory_mb=128)))

    def submit(action_id: str, source: str) -> dict:
        done = runtime.bridge.submit(ToolCall(action_id=action_id, tool="run_code", args={
            "source": textwrap.dedent(source), "timeout_s": 600, "memory_mb": 8192}), grant, Usage(), thread_id="lim")
        assert done.verdict == "allow", done.message
        return done.observation

    slept = submit("lim-time", "import time\ntime.sleep(8)\nprint('woke')")
    assert slept["timed_out"] and "woke" not in slept["stdout"]
    assert slept["duration_s"] < 6
    grew = submit("lim-memory", "block = bytearray(512 * 1024 * 1024)\nprint('allocated')")
    assert "MemoryError" in grew["stderr"] and "allocated" not in grew["stdout"]


def test_processes_are_capped(workspace: Path, artifacts) -> None:
    run = unguarded("""
        import os, time
        started = 0
        for _ in range(300):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(5)
                os._exit(0)
            started += 1
        print(started)
    """, workspace, artifacts, processes=32, timeout_s=20)
    assert run.exit_code == 0, run.stderr
    assert int(run.stdout.split()[-1]) < 32


def test_one_file_cannot_outgrow_the_file_limit(workspace: Path, artifacts) -> None:
    run = unguarded("""
        written = 0
        try:
            with open("big.bin", "wb") as f:
                for _ in range(300):
                    f.write(b"x" * (1024 * 1024))
                    written += 1
        except OSError as error:
            print("refused", error.errno)
        print(written)
    """, workspace, artifacts, file_mb=16, output_mb=512)
    assert "refused 27" in run.stdout  # EFBIG
    assert int(run.stdout.split()[-1]) <= 16
    assert all(f.handle.size <= 16 * MIB for f in run.files)


def test_tmp_and_the_run_folder_are_size_capped(workspace: Path, artifacts) -> None:
    run = unguarded("""
        import os
        def fill(folder):
            made = 0
            try:
                for i in range(400):
                    with open(os.path.join(folder, f"part-{i}"), "wb") as f:
                        f.write(b"y" * (1024 * 1024))
                    made += 1
            except OSError as error:
                print("full", folder, error.errno)
            return made
        print(fill("/tmp"), fill("."))
    """, workspace, artifacts, tmp_mb=24, output_mb=24, file_mb=4)
    assert "full /tmp 28" in run.stdout and "full . 28" in run.stdout  # ENOSPC
    in_tmp, in_out = map(int, run.stdout.split()[-2:])
    assert in_tmp <= 24 and in_out <= 24
    kept = sum(f.handle.size for f in run.files)
    assert kept <= 24 * MIB
    on_disk = sum(p.stat().st_size for p in (workspace / run.run_dir).rglob("*") if p.is_file())
    assert on_disk == kept


def test_a_fifo_as_an_input_is_refused_through_the_bridge(runtime, project) -> None:
    fifo = project.workspace / "runs" / "made-by-a-run" / "pipe"
    fifo.parent.mkdir(parents=True, exist_ok=True)
    if not fifo.exists():
        os.mkfifo(fifo)
    grant = runtime.grants.save(Grant())
    for action_id, inputs in (("fifo-file", [str(fifo.relative_to(project.workspace))]),
                              ("fifo-folder", [str(fifo.parent.relative_to(project.workspace))])):
        done = runtime.bridge.submit(ToolCall(action_id=action_id, tool="run_code", args={
            "source": "import os\nprint(sorted(os.listdir('/sandbox/in/runs/made-by-a-run')))", "inputs": inputs}),
            grant, Usage(), thread_id="fifo")
        if action_id == "fifo-file":
            assert done.commit is None and "named pipe" in done.observation.get("error", ""), done
        else:  # a folder that holds one: the pipe is left out, the rest runs
            assert done.verdict == "allow" and done.observation["stdout"].strip() == "[]", done


def test_a_fifo_made_by_a_run_never_reaches_the_workspace(workspace: Path, artifacts) -> None:
    run = unguarded("import os\nos.mkfifo('pipe')\nopen('note.txt', 'w').write('n')", workspace, artifacts)
    assert run.ok, run.stderr
    folder = workspace / run.run_dir
    assert sorted(p.name for p in folder.iterdir()) == ["note.txt"]


def test_an_interpreter_in_a_venv_under_tmp_runs_code(tmp_path: Path) -> None:
    """#22: a venv under /tmp (as a user makes one) keeps run_code available and working."""
    venv = Path(tempfile.mkdtemp(prefix="jarvishub-venv-", dir="/tmp"))
    try:
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
                       check=True, capture_output=True, timeout=120)
        python = venv / "bin" / "python"
        probe = textwrap.dedent(f"""
            import json, sys
            from pathlib import Path
            from store.artifacts import LocalArtifactStore
            from tools.native.code import run_python, sandbox_status
            status = sandbox_status()
            out = {{"available": status.available, "reason": status.reason, "prefix": sys.prefix}}
            if status.available:
                work = Path({str(tmp_path)!r})
                (work / "ws").mkdir(exist_ok=True)
                run = run_python("import sys; print(sys.prefix)", work / "ws", LocalArtifactStore(work / "a"))
                out.update(ok=run.ok, stdout=run.stdout, stderr=run.stderr)
            print(json.dumps(out))
        """)
        done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, timeout=240,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        seen = json.loads(done.stdout.strip().splitlines()[-1])
        assert seen["prefix"] == str(venv)
        assert seen["available"], seen["reason"]
        assert seen["ok"] and seen["stdout"].strip() == str(venv), seen
    finally:
        subprocess.run(["rm", "-rf", str(venv)], check=False)
