"""The driver is imported without numpy (a tenth of a second of every CLI command), and numpy still works."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
import store.neo4j, store.connect
loaded_with_driver = sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'pandas', 'pyarrow'})
from neo4j._codec.hydration.bolt.v1 import hydration_handler
import numpy
print(json.dumps({"with_driver": loaded_with_driver, "driver_np": hydration_handler.np is None,
                  "numpy_works": int(numpy.arange(4).sum())}))
"""


def test_the_driver_loads_without_numpy_and_numpy_still_imports():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"with_driver": [], "driver_np": True, "numpy_works": 6}
