"""Process evaluation: scripted multi-turn scenarios, run against an agent, measured from its trajectories.

``jarvishub eval`` (``jarvishub/commands/evaluate.py``) runs ``eval/scenarios/*.toml``
with :mod:`jarvishub.evaluation.runner` and writes ``results.json``
(:mod:`jarvishub.evaluation.results`).  Kept import-light: nothing heavy is imported here.
"""
