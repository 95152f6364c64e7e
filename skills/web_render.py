"""Moved to :mod:`content.web_render`, below the tools that use it too (docs/architecture.md, "Floors").

This name stays for code written before the move: importing it gives the same module object.
"""

import sys

from content import web_render

sys.modules[__name__] = web_render
