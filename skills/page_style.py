"""Moved to :mod:`content.page_style`, below the tools that use it too (docs/architecture.md, "Floors").

This name stays for code written before the move: importing it gives the same module object.
"""

import sys

from content import page_style

sys.modules[__name__] = page_style
