"""One process asking for an image through the signature cache (run by test_cross_process_flight.py).

argv: STATE_DIR ROLE.  The ``first`` worker's provider waits, inside its call, until the
kernel shows another process blocked on this signature's flight lock (``/proc/locks``), so
the two requests overlap for certain; every provider call appends a line to ``calls.txt``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from store.artifacts import LocalArtifactStore
from tools.generate.base import ImageRequest
from tools.generate.cache import SignatureCache
from tools.generate.offline_audio import OfflineAudioProvider
from tools.generate.offline_image import OfflineImageProvider
from tools.generate.offline_video import OfflineVideoProvider
from tools.generate.service import GenerationService

state, role = Path(sys.argv[1]), sys.argv[2]
cache_path = state / "cache" / "generation.sqlite"


def _someone_waits_on(lock_file: Path) -> bool:
    inode = os.stat(lock_file).st_ino
    for line in Path("/proc/locks").read_text().splitlines():
        # A blocked waiter is listed with a "->" marker; the device:inode field ends the lock's description.
        if "->" in line and line.split()[6].endswith(f":{inode}"):
            return True
    return False


class WatchedProvider(OfflineImageProvider):
    def generate(self, request: ImageRequest):
        with open(state / "calls.txt", "a") as out:
            out.write(f"{role}\n")
        if role == "first":
            (state / "first-in-provider").touch()
            deadline = time.monotonic() + 20
            flights = list((cache_path.parent / "flights").glob("*.lock"))
            while time.monotonic() < deadline and not any(_someone_waits_on(f) for f in flights):
                time.sleep(0.02)
        return super().generate(request)


service = GenerationService(
    LocalArtifactStore(state / "artifacts"), SignatureCache(cache_path), WatchedProvider(),
    OfflineVideoProvider(), OfflineAudioProvider(),
)
if role == "second":  # start asking only once the first is paying for it
    while not (state / "first-in-provider").exists():
        time.sleep(0.02)
outcome = service.image(ImageRequest(prompt="a lighthouse at dusk", seed=7))
print(json.dumps({"hit": outcome.cache_hit, "sha": outcome.handle.sha256}))
