"""run_code in real sandboxed child interpreters: output, limits, the sandbox and the files a run leaves."""

from __future__ import annotations

import ast
import os
import textwrap
import time
from pathlib import Path

import pytest

from store.models import NodeStatus
from tools.base import Effect
from tests.system_tools import missing_system_tool, require_system_tool
from tools.native.code import SANDBOX_OUT, CodeLimits, _python_roots, run_python, sandbox_status
from tools.native.tools import RUN_CODE, RunCodeArgs
from tools.native.workspace import PathOutsideWorkspace


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    require_system_tool("bwrap", apt="bubblewrap")
    status = sandbox_status()
    if not status.available:
        missing_system_tool(status.reason)


def run(source: str, workspace: Path, artifacts, inputs=(), **limits):
    return run_python(textwrap.dedent(source), workspace, artifacts, CodeLimits(**limits), inputs)


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


def test_runs_in_a_fresh_run_folder_with_an_empty_home_and_tmp(workspace: Path, artifacts) -> None:
    first = run(
        "import os, tempfile; print(os.getcwd()); print(os.environ['HOME']); print(tempfile.gettempdir());"
        "print(sorted(os.listdir(os.environ['HOME'])), sorted(os.listdir('/tmp')));"
        "open('made.txt', 'w').write('x')",
        workspace,
        artifacts,
    )
    cwd, home, tmp, *_ = first.stdout.split("\n")
    assert (cwd, home, tmp) == (SANDBOX_OUT, "/sandbox/home", "/tmp")
    assert "[] []" in first.stdout
    assert (workspace / first.run_dir / "made.txt").read_text() == "x"
    second = run("print(1)", workspace, artifacts)
    assert second.run_dir != first.run_dir
    assert sorted(p.name for p in workspace.iterdir()) == ["runs"]  # nothing staged in the workspace


def test_the_whole_workspace_can_be_an_input(workspace: Path, artifacts) -> None:
    (workspace / "notes").mkdir()
    (workspace / "notes" / "a.txt").write_text("a")
    result = run("import os; print(sorted(os.listdir('/sandbox/in')), open('/sandbox/in/notes/a.txt').read())",
                 workspace, artifacts, inputs=["."])
    assert result.ok, result.stderr
    assert result.inputs == ["."] and result.stdout.strip() == "['notes'] a"


def test_timeout_kills_everything_the_snippet_started(workspace: Path, artifacts) -> None:
    marker = f"{time.time_ns() % 10**6}.5"  # a sleep argument no other process on the machine uses
    source = f"""
        import subprocess, pathlib
        child = subprocess.Popen(["sleep", "{marker}"])
        pathlib.Path("child.started").write_text("yes")
        while True:
            pass
    """
    result = run(source, workspace, artifacts, timeout_s=1.5, allow_processes=True)
    assert result.timed_out and result.exit_code < 0
    assert (workspace / result.run_dir / "child.started").exists()
    # The sandbox's pid namespace dies with its first process; wait (bounded) until the kernel has reaped it.
    deadline = time.monotonic() + 10
    while _sleepers(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _sleepers(marker), "the snippet's own child must die with it"


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


@pytest.mark.parametrize("guard", [True, False], ids=["guard", "no-guard"])
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
def test_writing_outside_the_run_folder_fails(workspace: Path, artifacts, tmp_path: Path, snippet: str,
                                              guard: bool) -> None:
    for target in (tmp_path / "outside.txt", workspace / "outside.txt", Path("/usr/outside.txt")):
        result = run(snippet.format(target=str(target)), workspace, artifacts, guard=guard)
        assert result.exit_code != 0, (target, result.stdout)
        if guard and not str(target).startswith("/tmp/"):
            assert "PermissionError" in result.stderr and "only write inside its run folder" in result.stderr
        assert not target.exists() and not target.is_symlink()


@pytest.mark.parametrize("guard", [True, False], ids=["guard", "no-guard"])
def test_removing_or_renaming_things_outside_the_run_folder_fails(workspace: Path, artifacts, tmp_path: Path,
                                                                  guard: bool) -> None:
    keep = workspace / "keep"
    keep.mkdir()
    (keep / "precious.txt").write_text("x")
    for snippet in (
        f"import shutil; shutil.rmtree({str(keep)!r})",
        f"import os; os.remove({str(keep / 'precious.txt')!r})",
        f"import os; os.rename({str(keep / 'precious.txt')!r}, 'stolen.txt')",
        "import shutil; shutil.rmtree('/sandbox/in/keep')",
        "import os; os.remove('/sandbox/in/keep/precious.txt')",
    ):
        result = run(snippet, workspace, artifacts, inputs=["keep"], guard=guard)
        assert result.exit_code != 0, snippet
    assert (keep / "precious.txt").read_text() == "x"


def test_declared_inputs_are_readable_copies_and_nothing_else_is_there(workspace: Path, artifacts) -> None:
    (workspace / "data").mkdir()
    (workspace / "data" / "table.csv").write_text("a,b\n1,2\n")
    (workspace / "data" / "link").symlink_to("/etc/passwd")
    (workspace / "private.txt").write_text("not declared")
    source = f"""
        import os
        print(open('/sandbox/in/data/table.csv').read().splitlines()[1])
        print(sorted(os.listdir('/sandbox/in/data')))
        for path in ({str(workspace / 'private.txt')!r}, '/etc/hostname', '/etc/passwd'):
            print(path, os.path.exists(path))
        home = {str(Path.home())!r}
        print(sorted(os.listdir(home)) if os.path.isdir(home) else [])
    """
    result = run(source, workspace, artifacts, inputs=["data"], guard=False)
    assert result.ok, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "1,2" and lines[1] == "['table.csv']"  # the symlink was not copied
    assert all(line.endswith("False") for line in lines[2:-1]), lines
    # The home folder holds at most the path down to the interpreter (pyenv installs it there), nothing else.
    on_the_way = {Path(r).relative_to(Path.home()).parts[0] for r in _python_roots() if Path.home() in Path(r).parents}
    assert set(ast.literal_eval(lines[-1])) <= on_the_way, lines[-1]


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


def _sleepers(marker: str) -> list[int]:
    """Live (not zombie) processes on the host running ``sleep <marker>``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if argv[:2] == [b"sleep", marker.encode()] and state != "Z":
            found.append(int(entry))
    return found


def test_a_runs_symlink_out_of_the_workspace_is_refused(workspace: Path, artifacts, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (workspace / "runs").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(PathOutsideWorkspace, match="'runs' is a symlink"):
        run("print(1)", workspace, artifacts)
    assert list((tmp_path / "elsewhere").iterdir()) == []
