"""Execution grants (Ω): the subset of the manifest an actor may use this turn.

A grant is data, so it can be stored, shown, narrowed for a subagent and
revoked from another process while a turn waits for approval.  Narrowing can
only take away: :meth:`Grant.narrow` intersects every field with the parent's.

A grant's tools are what its actor (the model, for a turn's grant) may call and is
offered.  Its *skill-only* tools are lent to the skills it runs, never to the actor:
a skill's grant, narrowed from it to the skill's declared needs, may call them through
the bridge, while the same tool proposed by the model is refused.  So a skill can
generate images without the model being offered ``generate_image``'s schema on every
call, and the bridge, not the offer list, is what keeps the model from calling it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, Field

from nodes.verdicts import GrantDenied
from store.errors import NodeNotFound
from store.models import new_id
from store.sqlite_files import SqliteFile
from tools.base import Effect
from tools.native.code import SandboxLimits

if TYPE_CHECKING:
    from store.neo4j import ScopeFacts


class Scope(BaseModel):
    """Which existing nodes may be touched.  ``all_nodes`` or a union of ids, groups and lineages."""

    all_nodes: bool = True
    node_ids: list[str] = Field(default_factory=list)
    group_ids: list[str] = Field(default_factory=list)
    descendants_of: list[str] = Field(
        default_factory=list, description="Nodes derived from these (GENERATED_FROM/REFERENCES/VERSION_OF in)."
    )

    def narrow(self, child: Scope) -> Scope:
        """The part of ``child`` that lies inside this scope (approximated by its declared parts)."""
        if self.all_nodes:
            return child
        if child.all_nodes:
            return self
        return Scope(
            all_nodes=False,
            node_ids=[i for i in child.node_ids if i in self.node_ids] or list(self.node_ids),
            group_ids=[g for g in child.group_ids if g in self.group_ids] or list(self.group_ids),
            descendants_of=[d for d in child.descendants_of if d in self.descendants_of] or list(self.descendants_of),
        )


class ScopeReader(Protocol):
    """The one read a scope check makes (``Neo4jCanvasStore.scope_facts``)."""

    def scope_facts(self, node_ids: Sequence[str], roots: Sequence[str], *, settled_ids: Sequence[str] = (),
                    settled_groups: Sequence[str] = ()) -> dict[str, ScopeFacts]: ...


def check_scope(reader: ScopeReader, scope: Scope, node_ids: Iterable[str], *, created: Iterable[str] = (),
                facts: Mapping[str, ScopeFacts] | None = None) -> None:
    """Raise :class:`GrantDenied` unless every node is inside ``scope`` (nodes made this turn always are).

    One query answers for all nodes at once, lineage included, so the check costs one round trip
    whatever the number of nodes or the depth of their lineage (none when the caller read ``facts``
    already, with this scope's roots).  A node that is gone (never existed, or deleted) and not named
    by the scope raises :class:`NodeNotFound`.
    """
    if scope.all_nodes:
        return
    allowed = set(scope.node_ids) | set(created)
    pending = [i for i in dict.fromkeys(node_ids) if i not in allowed]
    if not pending:
        return
    if facts is None:
        facts = reader.scope_facts(pending, scope.descendants_of, settled_ids=scope.group_ids,
                                   settled_groups=scope.group_ids)
    for node_id in pending:
        node = facts.get(node_id)
        if node is None or node.deleted:
            raise NodeNotFound(node_id)
        if node_id in scope.group_ids or (node.group_id and node.group_id in scope.group_ids):
            continue
        if node_id in scope.descendants_of or node.derived:
            continue
        raise GrantDenied("out_of_scope", f"node {node_id} is outside this grant's scope")


class Budget(BaseModel):
    """Limits of a turn; ``None`` means no limit."""

    tool_calls: int | None = 200
    generation_calls: int | None = 200
    wall_time_s: float | None = 3600.0
    rejections: int = Field(default=3, description="Rejected proposals in a row before asking the person.")
    cost_usd: float | None = Field(default=None, ge=0, description="What the turn's paid provider calls may cost "
                                   "(tools.spend prices them); a call that would take the spend past it is refused.")
    tokens: int | None = Field(default=None, ge=0, description="Model tokens (in + out) the turn may use.")


class SpendSoFar(Protocol):
    """The running totals a spend budget is checked against (``nodes.bridge.Usage``)."""

    tokens_in: int
    tokens_out: int
    cost_usd: float


def check_spend(budget: Budget, usage: SpendSoFar, *, next_call_usd: float = 0.0, next_call_tokens: int = 0) -> None:
    """Raise :class:`GrantDenied` ("budget") when the spend so far plus the next call's would pass the budget.

    Checked before a paid call is made, with what that call may cost at most, so a turn stops *before* it
    overspends; the spend so far is what the providers billed (``tools.spend``), failed calls included.
    """
    if budget.cost_usd is not None and usage.cost_usd + next_call_usd > budget.cost_usd + 1e-12:
        after = f" (the next call may cost ${next_call_usd:.4f})" if next_call_usd else ""
        raise GrantDenied("budget", f"the turn's cost budget of ${budget.cost_usd:.4f} would be exceeded: "
                                    f"${usage.cost_usd:.4f} spent so far{after}")
    spent_tokens = usage.tokens_in + usage.tokens_out
    if budget.tokens is not None and spent_tokens + next_call_tokens > budget.tokens:
        raise GrantDenied("budget", f"the turn's budget of {budget.tokens:,} tokens would be exceeded: "
                                    f"{spent_tokens:,} used so far")


class Grant(BaseModel):
    """What is allowed now: tools, node kinds, scope, budgets, and what needs a person's approval."""

    id: str = Field(default_factory=new_id)
    parent_id: str | None = None
    actor: str = "agent"
    tools: list[str] | None = Field(default=None, description="Allowed tool names; None allows every manifest tool.")
    skill_only_tools: list[str] = Field(
        default_factory=list,
        description="Tools only the skills run under this grant may call (through grants narrowed from it): "
                    "never its actor, so the model is not offered them. Wins over `tools`.")
    node_kinds: list[str] | None = Field(default=None, description="Kinds that may be created or changed; None: all.")
    operations: list[str] | None = Field(default=None, description="Mutation ops allowed; None: all.")
    scope: Scope = Field(default_factory=Scope)
    budget: Budget = Field(default_factory=Budget)
    approval_tools: list[str] = Field(default_factory=list, description="Tools that need a person's approval.")
    approval_effects: list[Effect] = Field(
        default_factory=list, description="Effects (e.g. destructive, cost_bearing) that need approval."
    )
    sandbox: SandboxLimits = Field(default_factory=SandboxLimits, description="What run_code's agent code may use.")
    revoked: bool = False

    def allows_tool(self, name: str) -> bool:
        """Whether this grant's actor may call the tool itself (for a turn: whether the model is offered it)."""
        return name not in self.skill_only_tools and (self.tools is None or name in self.tools)

    def lends_tool(self, name: str) -> bool:
        """Whether a skill run under this grant may call the tool: the actor's tools and the skill-only ones."""
        return name in self.skill_only_tools or self.tools is None or name in self.tools

    def allows_kind(self, kind: str) -> bool:
        """Whether nodes of this kind may be created or changed."""
        return self.node_kinds is None or kind in self.node_kinds

    def allows_op(self, op: str) -> bool:
        """Whether this mutation operation is allowed."""
        return self.operations is None or op in self.operations

    def narrow(self, *, actor: str, tools: list[str] | None = None, node_kinds: list[str] | None = None,
               scope: Scope | None = None, budget: Budget | None = None) -> Grant:
        """A child grant (for a subagent or skill) that can only take away from this one.

        Asked for a list of ``tools``, the child gets those this grant holds or lends (its skill-only tools
        become the child's own: the child is the skill that may call them); with ``tools=None`` it keeps
        this grant's tools and skill-only tools as they are.  Either way the child can call nothing this
        grant neither holds nor lends.
        """

        def intersect(mine: list[str] | None, theirs: list[str] | None) -> list[str] | None:
            if mine is None:
                return theirs
            if theirs is None:
                return list(mine)
            return [x for x in theirs if x in mine]

        def smaller(a, b):
            if a is None:
                return b
            if b is None:
                return a
            return min(a, b)

        child_budget = budget or self.budget
        if tools is None:
            child_tools, skill_only = self.tools, list(self.skill_only_tools)
        else:
            child_tools, skill_only = [t for t in tools if self.lends_tool(t)], []
        return Grant(
            parent_id=self.id,
            actor=actor,
            tools=None if child_tools is None else list(child_tools),
            skill_only_tools=skill_only,
            node_kinds=intersect(self.node_kinds, node_kinds),
            operations=self.operations,
            scope=self.scope.narrow(scope or Scope()),
            budget=Budget(
                tool_calls=smaller(self.budget.tool_calls, child_budget.tool_calls),
                generation_calls=smaller(self.budget.generation_calls, child_budget.generation_calls),
                wall_time_s=smaller(self.budget.wall_time_s, child_budget.wall_time_s),
                rejections=min(self.budget.rejections, child_budget.rejections),
                cost_usd=smaller(self.budget.cost_usd, child_budget.cost_usd),
                tokens=smaller(self.budget.tokens, child_budget.tokens),
            ),
            approval_tools=list(self.approval_tools),
            approval_effects=list(self.approval_effects),
            sandbox=self.sandbox.model_copy(),  # a child never gets more
            revoked=self.revoked,
        )


RETIRED_GRANTS = {"system-layout": "system:layout"}
"""Stored grants (id → actor) of parts that are gone, dropped when a project's grants are opened: the web server's
automatic layout wrote under ``system-layout`` (``move_node`` on any node) until a person's drag became the only
position stored.  Nothing issues or asks for them now; a grant nobody holds should not stay valid."""


class GrantStore:
    """Grants persisted in the project (SQLite), so a revocation from any process is seen on resume."""

    def __init__(self, path: Path) -> None:
        self._path = Path(path)
        self._path.parent.mkdir(parents=True, exist_ok=True)
        self._file = SqliteFile(self._path)
        with self._file.transaction() as db:
            db.execute("CREATE TABLE IF NOT EXISTS grants (id TEXT PRIMARY KEY, body TEXT NOT NULL)")
            for grant_id, actor in RETIRED_GRANTS.items():
                db.execute("DELETE FROM grants WHERE id = ? AND json_extract(body, '$.actor') = ?", (grant_id, actor))

    def close(self) -> None:
        """Close the file's connection (a later call opens it again)."""
        self._file.close()

    def save(self, grant: Grant) -> Grant:
        """Store (or replace) a grant."""
        with self._file.transaction() as db:
            db.execute("INSERT OR REPLACE INTO grants (id, body) VALUES (?, ?)", (grant.id, grant.model_dump_json()))
        return grant

    def get(self, grant_id: str) -> Grant:
        """The grant as it is now (revoked ones included)."""
        with self._file.transaction() as db:
            row = db.execute("SELECT body FROM grants WHERE id = ?", (grant_id,)).fetchone()
        if row is None:
            raise KeyError(f"no grant with id {grant_id}")
        return Grant.model_validate_json(row[0])

    def children(self, grant_id: str) -> list[Grant]:
        """The grants narrowed directly from ``grant_id`` (its skills' and subagents')."""
        with self._file.transaction() as db:
            rows = db.execute("SELECT body FROM grants WHERE json_extract(body, '$.parent_id') = ?",
                              (grant_id,)).fetchall()
        return [Grant.model_validate_json(row[0]) for row in rows]

    def revoke(self, grant_id: str) -> Grant:
        """Revoke a grant and every grant narrowed from it."""
        grant = self.get(grant_id).model_copy(update={"revoked": True})
        self.save(grant)
        for child in self.children(grant_id):
            self.revoke(child.id)
        return grant


def grant_profiles(project_config: dict) -> dict[str, Grant]:
    """Named grants from the project file's ``[grants.NAME]`` tables."""
    profiles = {}
    for name, body in (project_config.get("grants") or {}).items():
        profiles[name] = Grant.model_validate({**json.loads(json.dumps(body)), "actor": body.get("actor", "agent")})
    return profiles
