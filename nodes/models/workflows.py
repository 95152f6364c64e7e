"""Workflow playbooks (narrative, web, slides, local repair, exploration); filled by the workflow layer."""

from __future__ import annotations


def workflow_playbooks() -> list:
    """The workflow playbooks, most specific first."""
    return []
