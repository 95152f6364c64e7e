"""An installed skill, run by ``jarvishub run``, finds no way to the store, the bridge or the ticket authority.

Before #23 the reader and the port kept the store and the bridge in module-private maps: one ``__globals__``
hop from any of their methods reached them.  Now they hold a queue to a desk the store and the bridge keep
(``tools/sealed.py``), and a skill runs on a thread of its own with empty context variables.  The skill
``tests/security/walker_skill.py``, loaded by the project file like a user's own, walks every reference Python
keeps from everything it holds, its run config, its context variables, an error a read raised and its own stack
(``tests/security/reach.py``), in the real CLI process, and reports any writer it reaches.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.bridge.openai_chat_server import ScriptedChatServer
from tests.cli_run import ROOT, cli


def test_a_skill_in_a_real_run_reaches_nothing_that_writes(tmp_path):
    folder = tmp_path / "walked"
    assert cli("init", str(folder), cwd=tmp_path).returncode == 0
    config = folder / "jarvishub.toml"
    text = config.read_text()
    assert "\n[skills]\nload = []\n" in text  # the project's own [skills] table, as init writes it
    config.write_text(text.replace("\n[skills]\nload = []\n",
                                   '\n[skills]\nload = ["tests.security.walker_skill:walker"]\n'))
    with ScriptedChatServer([{"tool": "skill__walker", "arguments": {}}, {"content": "walked"}]) as server:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-loopback-test",
               "OPENAI_BASE_URL": server.base_url}
        ran = subprocess.run([sys.executable, "-m", "jarvishub.cli", "-C", str(folder), "run", "walk the canvas",
                              "--json"], capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    walked = json.loads(ran.stdout)["steps"][0]["observation"]
    assert walked.get("skill") == "walker", walked
    assert walked["found"] == [], walked["found"]
    # The walk went far (through methods' module globals, the loaded modules' names and the frames), and the
    # error a read raised came back with the skill's own frames only, not the reader desk's worker's.
    assert walked["visited"] > 100_000, walked["visited"]
    assert not any(frame.endswith((":_serve", ":get_nodes")) for frame in walked["error_frames"]), walked
