"""What the turn-loop graph nodes need, passed in once when the graph is built."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel

from nodes.bridge import Bridge
from store.trajectories import TrajectoryStore


@dataclass
class TurnDeps:
    """The services behind the supervisor graph (none of them lives in graph state)."""

    bridge: Bridge
    model: BaseChatModel
    trajectories: TrajectoryStore
    max_steps: int = 40
    max_retries: int = 2
    evaluate_generations: bool = True
    ask_person_for_feedback: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
