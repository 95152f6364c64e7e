"""Moved to :mod:`content.brief`, below the tools that use it too (docs/architecture.md, "Floors").

This name stays for code written before the move: importing it gives the same module object.
"""

import sys

from content import brief

sys.modules[__name__] = brief
