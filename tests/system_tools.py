"""System programs some tests need (Chromium, espeak-ng): skip with an install hint, or fail in CI.

One helper for every test, so a fresh machine without them gets skips that say
``apt-get install -y chromium`` instead of raw spawn errors, and CI (which sets
``JARVISHUB_REQUIRE_SYSTEM_TOOLS=1`` in ``.ci/run``) can never skip them
silently.  Tests use the ``system_tool`` marker (``@pytest.mark.system_tool("chromium")``,
handled in ``tests/conftest.py``) or call :func:`require_system_tool` from a fixture.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# The Debian package of each program the tests know about.
APT_PACKAGES = {"chromium": "chromium", "espeak-ng": "espeak-ng", "bwrap": "bubblewrap", "ffmpeg": "ffmpeg"}
# Where Debian puts a program when it is not on PATH (the browser tool also looks there).
FALLBACK_PATHS = {"chromium": "/usr/bin/chromium"}
REQUIRE_ENV = "JARVISHUB_REQUIRE_SYSTEM_TOOLS"


def require_system_tool(name: str, *, apt: str | None = None) -> str:
    """The path of the program ``name``; skip the test with the install command when it is absent.

    With ``JARVISHUB_REQUIRE_SYSTEM_TOOLS=1`` an absent program fails the test instead.
    """
    found = shutil.which(name) or _fallback(name)
    if found:
        return found
    package = apt or APT_PACKAGES.get(name, name)
    message = f"{name} is not installed: `apt-get install -y {package}` (Debian/Ubuntu) to run this test"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{message}; {REQUIRE_ENV}=1 makes it required", pytrace=False)
    pytest.skip(message)


def _fallback(name: str) -> str | None:
    path = FALLBACK_PATHS.get(name)
    return path if path and Path(path).is_file() and os.access(path, os.X_OK) else None
