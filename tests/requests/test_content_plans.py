"""Page and deck requests of the suite, from words to the tool calls a turn makes, with no engine.

For every page or deck row (tests/requests/suite.py, a fresh brief and a fresh topic) the request is read, the
default grant derived from its intent, and the offline planner asked for its calls, each answered as the tool
would: each call must be the tool of its operation with the arguments the words gave (valid for the tool's own
schema), on the page or deck the project holds; the grant must hold exactly what the calls need and be scoped
at the page (also when its preview is what was selected) or at the deck with its slides, their contents and
pictures.  The end-to-end effects (CSS, .pptx, hashes) are tests/requests/test_page_and_deck_requests.py's.
"""

from __future__ import annotations

import pytest

from nodes.manifest import Manifest, SkillInfo, ToolInfo
from nodes.models.offline import OfflinePlanner
from nodes.models.playbooks import Call, Done, PlannerInput, PriorCall
from nodes.policy import default_grant
from nodes.understanding import interpret
from nodes.understanding.kinds import CUT_OPERATIONS, OPERATION_TOOLS, family_of
from tests.requests.suite import CASES, OP, OPS, facts_for
from tools.canvas import canvas_tools
from tools.deck import DECK_TOOLS
from tools.generate.tools import GENERATION_TOOLS
from tools.page import PAGE_TOOLS
from tools.recovery import recovery_tools

SPECS = {t.name: t for t in (*canvas_tools(), *recovery_tools(), *GENERATION_TOOLS, *PAGE_TOOLS, *DECK_TOOLS)}
MANIFEST = Manifest(
    kinds=[], edge_types=[], operations=[],
    tools=[ToolInfo(name=t.name, family=t.family, description="", parameters={}, effects=sorted(t.effects))
           for t in SPECS.values()]
    + [ToolInfo(name=f"skill__{n}", family="skill", description="", parameters={}, effects=[])
       for n in ("web_revise", "design_to_web", "slides")],
    skills=[SkillInfo(name="web_revise", description="", needs_tools=["page_set_layout", "page_add_section",
                                                                       "page_remove_section"]),
            SkillInfo(name="design_to_web", description="", needs_tools=["generate_image", "render_page"]),
            SkillInfo(name="slides", description="", needs_tools=["build_slides"])])


def _expected(expected) -> list[OP]:
    return list(expected) if isinstance(expected, OPS) else [expected]


ROWS = [row for row in CASES if isinstance(row[2], (OP, OPS))
        and all(isinstance(op, OP) and op.operation in OPERATION_TOOLS for op in _expected(row[2]))  # a shot edit: a dict
        # the cut's ("move shot 3 up one"): its tools are checked on a real project (test_effects.py, test_cut_tools.py)
        and not any(op.operation in CUT_OPERATIONS for op in _expected(row[2]))
        # one family: a slide and a shot together get the union of each part's grant, and the shot's part is
        # scoped by its check on the canvas (the effect run carries those rows out on real projects)
        and len({family_of(op.operation) for op in _expected(row[2])}) == 1]


def _selected(context: str) -> list[str]:
    facts, _ = facts_for(context)
    return [n.id for n in facts.selection]


def _answer(call: Call) -> dict:
    """What the tool would answer (a new version of the page or deck, or the deck as read)."""
    if call.tool == "deck_read":
        facts, _ = facts_for("deck")
        return {"observation": {"deck_id": call.args.get("deck_id") or "D1",  # the version it was asked to read
                                "slides": [{"slide": s.index, "title": s.title, "bullets": s.bullets}
                                           for s in facts.slides]}}
    if call.tool.startswith("page_") or call.tool == "skill__web_revise":
        return {"observation": {"page_id": f"{call.tool}-v", "code_id": f"{call.tool}-v", "change": {"summary": "x"}}}
    return {"observation": {"deck_id": f"{call.tool}-v", "change": {"summary": "x"}, "previews_drawn": 1}}


@pytest.mark.parametrize("category, request_text, expected, context", ROWS,
                         ids=[f"{r[0]}:{r[1]}:{r[3]}" for r in ROWS])
def test_a_page_or_deck_request_becomes_its_tool_calls_under_the_smallest_grant(category, request_text, expected,
                                                                                 context):
    facts, previous = facts_for(context)
    intent = interpret(request_text, facts, previous=previous)
    assert intent.clarification is None, intent.clarification
    grant = default_grant(MANIFEST, intent, _selected(context))
    wanted = {tool for op in _expected(expected) for tool in OPERATION_TOOLS[op.operation]}
    assert wanted <= set(grant.tools), (wanted, grant.tools)
    assert not {"generate_image", "create_node", "update_node", "set_status", "build_slides"} & set(grant.tools)
    assert not grant.scope.all_nodes
    on_page = intent.clauses[0].operation in OPERATION_TOOLS and any(t.kind == "code" for t in intent.clauses[0].targets)
    if on_page:  # the page and what is made from it: its HTML file and preview (a selected preview too)
        assert grant.scope.node_ids == ["PAGE"] and grant.scope.descendants_of == ["PAGE"]
    else:  # the deck, its slides, their contents and the picture
        assert {"D1", *(f"SL{i}" for i in range(1, 6)), *(f"TX{i}" for i in range(1, 6)), "PIC2"} <= set(
            grant.scope.node_ids) and not grant.scope.descendants_of

    planner = OfflinePlanner()
    calls: list[PriorCall] = []
    made: list[Call] = []
    for _ in range(12):
        step = planner.decide(PlannerInput(request=request_text, view={"intent": intent.summary()}, calls=calls,
                                           tools=set(grant.tools)))
        if isinstance(step, Done):
            assert step.clarification is None and not step.failed and not step.refused, step
            break
        made.append(step)
        SPECS[step.tool].args_schema.model_validate(step.args) if step.tool in SPECS else None
        calls.append(PriorCall(tool=step.tool, args=step.args, answer=_answer(step)))
    writes = [c for c in made if c.tool != "deck_read"]
    assert len(writes) == len(_expected(expected)), made
    key = "page_id" if on_page else "deck_id"
    for number, (call, op) in enumerate(zip(writes, _expected(expected), strict=True)):
        assert call.tool == OPERATION_TOOLS[op.operation][0]
        # The first call names the page or deck the intent resolved; later ones the version the one before made.
        named = call.args.get("code_id" if call.tool == "skill__web_revise" else key)
        assert named == ("PAGE" if on_page else "D1") if number == 0 else named == f"{writes[number - 1].tool}-v"
        if op.operation in ("deck_add_bullet", "deck_remove_bullet"):
            slide = facts.slides[op.args["slide"] - 1]
            gone = op.args["bullet"] if isinstance(op.args["bullet"], list) else [op.args["bullet"]]
            bullets = ([*slide.bullets, op.args["bullet"]] if op.operation == "deck_add_bullet" else
                       [b for i, b in enumerate(slide.bullets, 1) if i not in gone])
            assert call.args == {"deck_id": named, "slide": op.args["slide"], "bullets": bullets}
        elif op.operation != "revise_page":
            assert {k: call.args.get(k) for k in op.args} == op.args, (call.args, op.args)


def test_every_page_and_deck_operation_of_the_tools_is_reached_by_words():
    """Each write tool of docs/page-and-deck-tools.md is what some request of the suite becomes."""
    reached = {OPERATION_TOOLS[op.operation][0] for row in ROWS for op in _expected(row[2])}
    writes = {t.name for t in (*PAGE_TOOLS, *DECK_TOOLS) if not t.name.endswith("_read")}
    assert writes - reached == {"page_set_layout"}  # layout words go through web_revise, which calls it
    assert "skill__web_revise" in reached
