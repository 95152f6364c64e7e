"""Moved to :mod:`tools.spend` (the generation tools charge the ledger, and tools sit below nodes); this name
stays for code written against it before the move."""

from tools.spend import *  # noqa: F403
