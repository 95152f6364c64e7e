"""The subcommands of ``jarvishub``, one module per group; each module has ``add_parser(subparsers)``.

Modules import nothing heavy at load time, so ``--help`` stays fast.
"""
