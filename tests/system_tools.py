"""Tests that need a system program (bwrap, chromium, espeak-ng): skip with an install hint, or fail in CI.

A developer without the program sees a skip that says which Debian package to
install; CI (``.ci/run`` installs the packages and sets
``JARVISHUB_REQUIRE_SYSTEM_TOOLS=1``) turns the same skip into a failure, so a
guarantee tested only where the program exists is never silently untested.
"""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRE_ENV = "JARVISHUB_REQUIRE_SYSTEM_TOOLS"


def system_tools_required() -> bool:
    """Whether a missing system program fails the test instead of skipping it (CI)."""
    return os.environ.get(REQUIRE_ENV, "").strip().lower() in {"1", "true", "yes"}


def missing_system_tool(reason: str) -> None:
    """Skip (or, in CI, fail) the running test because a system program is missing or unusable."""
    if system_tools_required():
        pytest.fail(f"{reason} ({REQUIRE_ENV} is set, so this is an error, not a skip)")
    pytest.skip(reason)


def require_system_tool(name: str, *, apt: str) -> str:
    """The path of program ``name``; skips the test with ``apt-get install <apt>`` as the hint when it is absent."""
    found = shutil.which(name)
    if found is None:
        missing_system_tool(f"{name} is not installed: apt-get install {apt}")
    return str(found)
