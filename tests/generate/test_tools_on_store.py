"""The generation tools against the real canvas store: what they propose is accepted, and reads back as made."""

from __future__ import annotations

from store.models import CanvasNode, Direction, EdgeType, NodeStatus
from store.mutations import CreateNode
from tools.base import ToolContext
from tools.generate.measure import probe_video
from tools.generate.tools import ASSEMBLE_CUT, GENERATE_IMAGE, GENERATE_VIDEO


def test_storyboard_to_cut_on_the_store(canvas, write, artifacts, service, tmp_path):
    mira = CreateNode(
        id="mira",
        kind="reference",
        status=NodeStatus.COMPLETED,
        inputs={"role": "character", "name": "Mira", "colors": ["#c0392b", "#f5cba7"]},
    )
    write(mira)
    ctx = ToolContext(artifacts=artifacts, workspace=tmp_path, canvas=canvas, services={"generation": service})

    def run(spec, **args) -> CanvasNode:
        result = spec.run(ctx, spec.args_schema(**args))
        write(*result.mutations)
        return canvas.get_node(result.observation["node_id"])

    still = run(GENERATE_IMAGE, prompt="Mira on the pier", references=["mira"], width=320, height=192)
    clips = [run(GENERATE_VIDEO, source_node_id=still.id, camera=c, duration_s=1, fps=12) for c in ("pan", "zoom")]
    cut = run(ASSEMBLE_CUT, clip_node_ids=[c.id for c in clips], version_of=clips[0].id)

    assert (still.kind, still.status, still.provenance.tool) == ("image", NodeStatus.COMPLETED, "generate_image")
    assert still.metadata["signature"] and still.outputs[0].mime == "image/png"
    assert [n.node.id for n in canvas.neighbours(still.id, [EdgeType.REFERENCES])] == ["mira"]
    assert {n.node.id for n in canvas.neighbours(still.id, [EdgeType.GENERATED_FROM], Direction.IN)} == {
        c.id for c in clips
    }
    assert {n.node.id for n in canvas.neighbours(cut.id, [EdgeType.GENERATED_FROM])} == {c.id for c in clips}
    assert [n.node.id for n in canvas.neighbours(cut.id, [EdgeType.VERSION_OF])] == [clips[0].id]
    assert probe_video(artifacts.local_path(cut.outputs[0])).frames == 24
