"""The README's first ten minutes for a user with only ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` set.

``jarvishub demo narrative``, the relight, ``status``, ``history``, ``demo web`` and ``demo slides``, each a
``jarvishub`` subprocess with that environment: the agent is the configured model (the loopback endpoint
answers with JarvisHub's offline planner behind the wire), the judge is the same model asked without
tools, and every picture and clip comes from the provider's Images and Videos APIs.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from jarvishub.project import Project
from tests.providers.conftest import document, jarvishub, user_env
from tools.generate.measure import probe_video

pytestmark = [pytest.mark.long_file(80), pytest.mark.system_tool("chromium", apt="chromium")]


def png_size(path: Path) -> tuple[int, int]:
    with Image.open(io.BytesIO(path.read_bytes())) as picture:
        picture.load()
        assert picture.format == "PNG"
        return picture.size


@pytest.fixture(scope="module")
def env(loopback):
    """Only a key and the endpoint (and the suite's short video polls)."""
    return user_env(loopback)


@pytest.fixture(scope="module")
def story(env, loopback, tmp_path_factory):
    """``jarvishub demo narrative --shots 3`` in a fresh folder: (folder, its shot images' bytes)."""
    where = tmp_path_factory.mktemp("ten-minutes")
    folder = where / "story"
    demo = jarvishub(env, "demo", "narrative", "--shots", "3", "--dir", str(folder), "--json", cwd=where)
    assert demo.returncode == 0, demo.stderr
    assert document(demo)["result"] == "done"
    return folder


def shots(folder: Path) -> dict[int, Path]:
    return {n: folder / "outputs" / "narrative" / f"shot-0{n}-image.png" for n in (1, 2, 3)}


def test_the_demo_makes_its_pictures_and_clips_at_the_provider(story, loopback):
    narrative = story / "outputs" / "narrative"
    # The provider's pictures (the Images API's sizes, not the offline renderer's 512x288), and its clips.
    assert {png_size(p) for p in shots(story).values()} == {(1536, 1024)}
    for n in (1, 2, 3):
        assert probe_video(narrative / f"shot-0{n}-clip.mp4").codec == "h264"
    assert probe_video(narrative / "final-cut.mp4").duration_s == pytest.approx(6.0, abs=0.2)
    pictures = loopback.requests("images")
    # The character is known by its description (no picture of it yet): every prompt spells it out.
    assert len(pictures) == 3 and all("character '" in r["body"]["prompt"] for r in pictures)
    assert len([r for r in loopback.requests("videos") if r["path"] == "/v1/videos"]) == 3


def test_the_relight_then_status_and_history(story, env, loopback):
    before = {n: p.read_bytes() for n, p in shots(story).items()}
    relit = jarvishub(env, "-C", str(story), "run", "keep the character but redo the lighting on shot 3", "--json")
    assert relit.returncode == 0, relit.stderr
    assert document(relit)["result"] == "done"
    after = {n: p.read_bytes() for n, p in shots(story).items()}
    assert after[1] == before[1] and after[2] == before[2] and after[3] != before[3]
    assert (story / "outputs" / "narrative" / "versions" / "shot-03-image-v1.png").read_bytes() == before[3]
    assert len(loopback.requests("images")) == 4  # one new picture: shot 3's, nothing else

    status = document(jarvishub(env, "-C", str(story), "status", "--json"))
    assert status["canvas_version"] > 0 and status["outputs"]
    spent = status["spend"]
    assert {"agent", "judge", "image", "video"} <= set(spent["by_source"])
    assert spent["total"]["cost_usd"] > 0 and spent["total"]["tokens_in"] > 0
    history = document(jarvishub(env, "-C", str(story), "history", "--json"))
    assert [t["result"] for t in history["turns"]] == ["done", "done"]
    assert all(t["spend"]["tokens_in"] > 0 and t["spend"]["cost_usd"] > 0 for t in history["turns"])
    judged = [e for t in history["turns"] for f in t["feedback"] for e in f.get("evaluations") or []]
    assert judged and {e["evaluator"] for e in judged} == {"multimodal:gpt-4o-mini"}  # the judge's JSON was used
    assert_generated_by_the_provider(env, story)


@pytest.mark.parametrize("workflow, extra, made", [("web", [], "index.html"), ("slides", ["--slides", "3"], "*.pptx")])
def test_the_web_and_slides_demos(env, tmp_path, workflow, extra, made):
    folder = tmp_path / workflow
    demo = jarvishub(env, "demo", workflow, *extra, "--dir", str(folder), "--json", cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert {t["result"] for t in document(demo)["turns"]} == {"done"}
    assert list((folder / "outputs").rglob(made))
    assert_generated_by_the_provider(env, folder)


def assert_generated_by_the_provider(env: dict[str, str], folder: Path) -> None:
    """Every picture the project generated came from the provider, none drawn offline (previews of a page or
    of slides are screenshots, not generations); read in this process: the commands under test are the runs."""
    with Project.open(folder) as project:
        made = [n.metadata.get("provenance") or {} for n in project.store.find_nodes(kind="image")]
    generated = [p for p in made if p.get("tool") == "generate_image"]
    assert generated and {(p["provider"], p["model"]) for p in generated} == {("openai", "gpt-image-1")}
