"""run_code in real child interpreters: output, limits, the write guard and the files a run leaves."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest

from store.models import NodeStatus
from tools.base import Effect
from tools.native.code import CodeLimits, run_python
from tools.native.tools import RUN_CODE, RunCodeArgs
from tools.native.workspace import PathOutsideWorkspace


def run(source: str, workspace: Path, artifacts, **limits):
    return run_python(textwrap.dedent(source), workspace, artifacts, CodeLimits(**limits))


def test_stdout_stderr_and_exit_code(workspace: Path, artifacts) -> None:
    ok = run("import sys; print('hello'); print('warn', file=sys.stderr)", workspace, artifacts)
    assert (ok.exit_code, ok.timed_out, ok.ok) == (0, False, True)
    assert ok.stdout == "hello\n" and ok.stderr == "warn\n"

    failed = run("raise SystemExit(3)", workspace, artifacts)
    assert failed.exit_code == 3 and not failed.ok

    crashed = run("def f():\n    1/0\nf()\n", workspace, artifacts)
    assert crashed.exit_code == 1
    assert 'File "<snippet>", line 2, in f' in crashed.stderr
    assert "ZeroDivisionError" in crashed.stderr and "_code_guard" not in crashed.stderr


def test_runs_in_a_fresh_folder_with_home_and_tmp_inside_the_workspace(workspace: Path, artifacts) -> None:
    first = run(
        "import os, tempfile; print(os.getcwd()); print(os.environ['HOME']); print(tempfile.gettempdir())",
        workspace,
        artifacts,
    )
    cwd, home, tmp = first.stdout.split()
    root = str(workspace.resolve())
    assert cwd == str(workspace.resolve() / first.run_dir)
    assert home.startswith(root + "/") and tmp.startswith(root + "/")
    second = run("print(1)", workspace, artifacts)
    assert second.run_dir != first.run_dir
    assert not Path(home).exists()  # scratch HOME/TMPDIR are removed after the run


def test_timeout_kills_the_whole_process_group(workspace: Path, artifacts) -> None:
    source = """
        import subprocess, pathlib
        child = subprocess.Popen(["sleep", "60"])
        pathlib.Path("child.pid").write_text(str(child.pid))
        while True:
            pass
    """
    started = time.monotonic()
    result = run(source, workspace, artifacts, timeout_s=1.5, allow_processes=True)
    elapsed = time.monotonic() - started
    assert result.timed_out and result.exit_code < 0
    assert elapsed < 1.5 + 2.0
    pid = int((workspace / result.run_dir / "child.pid").read_text())
    time.sleep(0.1)
    assert not _alive(pid), "the snippet's own child must die with it"


def test_plain_busy_loop_is_killed_within_the_timeout(workspace: Path, artifacts) -> None:
    started = time.monotonic()
    result = run("while True: pass", workspace, artifacts, timeout_s=1.0)
    assert result.timed_out and time.monotonic() - started < 1.0 + 1.5
    assert 0.9 < result.duration_s < 2.5


def test_memory_limit_turns_a_big_allocation_into_memory_error(workspace: Path, artifacts) -> None:
    result = run("block = bytearray(2 * 1024 ** 3)\nprint('allocated')", workspace, artifacts, memory_mb=256)
    assert result.exit_code != 0 and not result.timed_out
    assert "MemoryError" in result.stderr and "allocated" not in result.stdout
    small = run("block = bytearray(64 * 1024 ** 2); print(len(block))", workspace, artifacts, memory_mb=256)
    assert small.ok and small.stdout.strip() == str(64 * 1024**2)


@pytest.mark.parametrize(
    "snippet",
    [
        "open({target!r}, 'w').write('x')",
        "import pathlib; pathlib.Path({target!r}).write_text('x')",
        "import os; os.close(os.open({target!r}, os.O_WRONLY | os.O_CREAT))",
        "import shutil; open('mine.txt', 'w').write('x'); shutil.copy('mine.txt', {target!r})",
        "import os; open('mine.txt', 'w').write('x'); os.replace('mine.txt', {target!r})",
        "import os; os.symlink('/etc/passwd', {target!r})",
    ],
)
def test_writing_outside_the_workspace_fails(workspace: Path, artifacts, tmp_path: Path, snippet: str) -> None:
    target = tmp_path / "outside.txt"
    result = run(snippet.format(target=str(target)), workspace, artifacts)
    assert result.exit_code != 0
    assert "PermissionError" in result.stderr and "only write inside the workspace" in result.stderr
    assert not target.exists() and not target.is_symlink()


def test_removing_or_renaming_things_outside_the_workspace_fails(workspace: Path, artifacts, tmp_path: Path) -> None:
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "precious.txt").write_text("x")
    for snippet in (
        f"import shutil; shutil.rmtree({str(keep)!r})",
        f"import os; os.remove({str(keep / 'precious.txt')!r})",
        f"import os; os.rename({str(keep / 'precious.txt')!r}, 'stolen.txt')",
    ):
        result = run(snippet, workspace, artifacts)
        assert result.exit_code != 0 and "PermissionError" in result.stderr, snippet
    assert (keep / "precious.txt").read_text() == "x"


def test_writing_elsewhere_in_the_workspace_and_reading_outside_are_allowed(workspace: Path, artifacts) -> None:
    result = run(
        "open('../../shared.txt', 'w').write('ok'); print(open('/etc/hostname').read() != '')", workspace, artifacts
    )
    assert result.ok and result.stdout.strip() == "True"
    assert (workspace / "shared.txt").read_text() == "ok"


def test_starting_processes_is_refused_by_default(workspace: Path, artifacts) -> None:
    result = run("import subprocess; subprocess.run(['true'])", workspace, artifacts)
    assert result.exit_code != 0 and "starting processes is not allowed" in result.stderr


def test_created_files_come_back_as_artifacts(workspace: Path, artifacts, tmp_path: Path) -> None:
    source = """
        import os
        from PIL import Image
        Image.new("RGB", (8, 4), (255, 0, 0)).save("chart.png")
        os.makedirs("out")
        with open("out/data.csv", "w") as f:
            f.write("a,b\\n1,2\\n")
        os.symlink("/etc/hostname", "sneaky")
    """
    result = run(source, workspace, artifacts)
    assert result.ok, result.stderr
    by_name = {Path(f.path).name: f for f in result.files}
    assert set(by_name) == {"chart.png", "data.csv"}  # the symlink is not collected
    assert by_name["chart.png"].handle.mime == "image/png"
    assert by_name["data.csv"].path == f"{result.run_dir}/out/data.csv"
    assert artifacts.read_bytes(by_name["data.csv"].handle) == b"a,b\n1,2\n"
    assert artifacts.read_bytes(by_name["chart.png"].handle) == (workspace / result.run_dir / "chart.png").read_bytes()


def test_output_is_truncated_to_the_limit(workspace: Path, artifacts) -> None:
    result = run("print('x' * 100_000)", workspace, artifacts, output_limit=1000)
    assert result.ok and result.stdout_truncated
    assert result.stdout.startswith("x" * 1000) and "99001 more bytes not shown" in result.stdout


def test_run_code_tool_records_a_code_node(ctx) -> None:
    assert RUN_CODE.effects == {Effect.MUTATES_CANVAS, Effect.LONG_RUNNING}
    source = "open('result.txt', 'w').write('42')\nprint('done')"
    result = RUN_CODE.run(ctx, RunCodeArgs(source=source))
    [node] = result.mutations
    assert node.kind == "code" and node.status == NodeStatus.COMPLETED
    assert node.inputs["source"] == source
    assert [h.name for h in node.outputs] == ["result.txt"]
    assert node.metadata["exit_code"] == 0 and node.metadata["timed_out"] is False
    assert node.metadata["provenance"]["tool"] == "run_code"
    assert result.observation["stdout"] == "done\n"
    assert result.observation["files"][0]["uri"] == node.outputs[0].uri

    failed = RUN_CODE.run(ctx, RunCodeArgs(source="while True: pass", timeout_s=0.5))
    assert failed.mutations[0].status == NodeStatus.FAILED
    assert failed.mutations[0].metadata["timed_out"] is True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed child of the killed snippet is reparented and reaped by init; a zombie counts as dead.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_runs_symlink_out_of_the_workspace_is_refused(workspace: Path, artifacts, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (workspace / "runs").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(PathOutsideWorkspace, match="'runs' is a symlink"):
        run("print(1)", workspace, artifacts)
    assert list((tmp_path / "elsewhere").iterdir()) == []
