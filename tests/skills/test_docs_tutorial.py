"""docs/skills.md is a tutorial that runs: every code block of the page, in order, in a fresh folder, as a reader
would type it.

* ``bash`` blocks run in bash (``-e``), with ``jarvishub`` the console script of this checkout and ``pip install``
  installing into a folder of this test (so the machine's environment is left alone); the working folder carries
  over from one block to the next (``cd``).
* ``python`` blocks whose first line names a file (``# skills/poster.py``) are saved there; the others run with
  ``python -``.
* ``toml`` blocks whose first line names ``jarvishub.toml`` replace the tables of that name in the project file;
  those naming another file are saved there.
* a ``text`` block right after a block that ran is output it must print: each line, ``…`` matching anything.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.reliability.engine_processes import WARM_FOR_S, stop_engines_under

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "skills.md"

pytestmark = pytest.mark.long_file(60)

_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_PATH_COMMENT = re.compile(r"^# ([\w./-]+\.(?:py|toml))\s*$")


@dataclass
class Block:
    language: str
    code: str
    line: int

    @property
    def path(self) -> str | None:
        """The file a block says it is (its first line, ``# skills/poster.py``)."""
        first = self.code.splitlines()[0] if self.code.strip() else ""
        found = _PATH_COMMENT.match(first)
        return found.group(1) if found else None


def blocks(text: str) -> list[Block]:
    """The fenced code blocks of a markdown page, in order."""
    return [Block(m.group(1), m.group(2), text[:m.start()].count("\n") + 1) for m in _BLOCK.finditer(text)]


def expected(line: str) -> re.Pattern[str]:
    """A ``text`` line as a pattern: ``…`` matches anything, runs of spaces any whitespace."""
    parts = [r"\s+".join(re.escape(word) for word in chunk.split()) for chunk in line.split("…")]
    return re.compile(r".*".join(parts))


class Reader:
    """Someone following the page: a working folder, a shell, a Python, the jarvishub command."""

    def __init__(self, home: Path) -> None:
        self.cwd = home / "work"
        self.cwd.mkdir()
        bin_dir, self.site = home / "bin", home / "site"
        bin_dir.mkdir()
        self.site.mkdir()
        (bin_dir / "jarvishub").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m jarvishub.cli "$@"\n')
        (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        # pip installs as usual, into this test's folder (on PYTHONPATH below) instead of the machine's environment.
        (bin_dir / "pip").write_text(
            f'#!/bin/sh\n[ "$1" = install ] && shift && exec "{sys.executable}" -m pip install -q '
            f'--no-build-isolation --no-deps --target "{self.site}" "$@"\nexec "{sys.executable}" -m pip "$@"\n')
        for name in ("jarvishub", "python", "pip"):
            (bin_dir / name).chmod(0o755)
        self.env = {key: value for key, value in os.environ.items() if key != "OPENAI_API_KEY"}
        # The reader's engines linger between commands as a user's do (the suite's 3 s idle period was shorter
        # than a pip install, so the page's commands started the project's JVM six times); the page's own pytest
        # makes its temporary projects under this test's folder, so that stop_engines() finds them all.
        tmp = home / "tmp"
        tmp.mkdir()
        self.env.update(PATH=f"{bin_dir}:{os.environ['PATH']}", PYTHONPATH=f"{ROOT}:{self.site}", COLUMNS="200",
                        PIP_DISABLE_PIP_VERSION_CHECK="1", JARVISHUB_ENGINE_IDLE_SECONDS=WARM_FOR_S, TMPDIR=str(tmp))
        self.home = home
        self.cwd_file = home / "cwd"

    def stop_engines(self) -> None:
        """Stop the engines the page's commands left lingering."""
        stop_engines_under(self.home)

    def bash(self, code: str) -> subprocess.CompletedProcess:
        done = subprocess.run(["bash", "-e", "-c", f"{code}\npwd > '{self.cwd_file}'"], cwd=self.cwd, env=self.env,
                              capture_output=True, text=True, timeout=600)
        if done.returncode == 0:
            self.cwd = Path(self.cwd_file.read_text().strip())
        return done

    def python(self, code: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-"], input=code, cwd=self.cwd, env=self.env, capture_output=True,
                              text=True, timeout=600)

    def save(self, path: str, code: str) -> None:
        target = self.cwd / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(code)

    def project_tables(self, code: str) -> None:
        """Put each table of ``code`` into jarvishub.toml, replacing the table of the same name."""
        project_file = self.cwd / "jarvishub.toml"
        text = project_file.read_text()
        for table in tomllib.loads(code):
            section = re.search(rf"^\[{re.escape(table)}\]\n(?:(?!\[).*\n?)*", code, re.MULTILINE)
            assert section, f"the block's [{table}] table"
            current = re.compile(rf"^\[{re.escape(table)}\]\n(?:(?!\[).*\n?)*", re.MULTILINE)
            text = current.sub(lambda m: section.group(0), text, count=1) if current.search(text) else \
                text + "\n" + section.group(0)
        tomllib.loads(text)
        project_file.write_text(text)


@pytest.mark.timeout(900)  # about 50 s on a quiet two-core machine: ten commands, two engine starts
def test_every_block_of_the_skills_page_runs_as_written(tmp_path: Path) -> None:
    reader = Reader(tmp_path)
    try:
        _follow_the_page(reader)
    finally:
        reader.stop_engines()


def _follow_the_page(reader: Reader) -> None:
    last: subprocess.CompletedProcess | None = None
    ran = []
    for block in blocks(DOC.read_text()):
        where = f"docs/skills.md line {block.line}"
        if block.language == "text":
            assert last is not None, f"{where}: a text block must follow a block that runs"
            for line in filter(None, (ln.strip() for ln in block.code.splitlines())):
                assert expected(line).search(last.stdout), f"{where}: {line!r} not in\n{last.stdout}"
            last = None
            continue
        last = None
        if block.language == "bash":
            last = reader.bash(block.code)
        elif block.language == "python" and block.path:
            reader.save(block.path, block.code)
        elif block.language == "python":
            last = reader.python(block.code)
        elif block.language == "toml" and block.path == "jarvishub.toml":
            reader.project_tables(block.code)
        elif block.language == "toml" and block.path:
            reader.save(block.path, block.code)
        else:
            pytest.fail(f"{where}: a {block.language or 'plain'} block this tutorial cannot run")
        if last is not None:
            assert last.returncode == 0, f"{where}: exit {last.returncode}\n{last.stdout}\n{last.stderr}"
            assert "Traceback" not in last.stderr, f"{where}:\n{last.stderr}"
        ran.append(block.language)
    assert ran.count("bash") >= 8 and ran.count("python") >= 8, ran

