"""The ``neo4j`` driver without its optional numpy, pandas and pyarrow integrations.

On import the driver tries ``import numpy`` (and pandas, pyarrow) so that it can pack numpy and pandas values
as query parameters and build data frames from results.  The canvas store uses neither: it sends plain
Python values (structured fields as JSON strings) and reads plain rows.  The attempt alone costs a CLI
command about a tenth of a second when numpy is installed, as it is here for the media tools.  So when the
driver is first imported it gets its own record of those optional dependencies, all absent, the same it
would get on a machine without them; numpy itself stays importable for everyone else.
"""

from __future__ import annotations

import importlib.abc
import sys
import types
from typing import Any

_DEPS_MODULE = "neo4j._optional_deps"


class _BeforeDriverImport(importlib.abc.MetaPathFinder):
    """Records the absent dependencies the moment ``neo4j`` is imported, then steps aside for the real finders."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "neo4j":
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
            if _DEPS_MODULE not in sys.modules:
                absent = types.ModuleType(_DEPS_MODULE, "The driver's optional dependencies, absent (store._driver_deps).")
                absent.np = absent.pd = absent.pa = absent.pa_compute = None  # type: ignore[attr-defined]
                absent.__all__ = ["np", "pa", "pa_compute", "pd"]  # type: ignore[attr-defined]
                sys.modules[_DEPS_MODULE] = absent
        return None


def skip_driver_dataframe_deps() -> None:
    """Make the driver see numpy, pandas and pyarrow as not installed (no effect once it is imported)."""
    if "neo4j" in sys.modules or any(isinstance(f, _BeforeDriverImport) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _BeforeDriverImport())
