"""Moved to :mod:`content.topics`, below the tools that use it too (docs/architecture.md, "Floors").

This name stays for code written before the move: importing it gives the same module object.
"""

import sys

from content import topics

sys.modules[__name__] = topics
