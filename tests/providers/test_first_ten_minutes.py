"""The README's first ten minutes for a user with only ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` set.

``jarvishub demo narrative``, the relight, ``status``, ``history``, ``demo web`` and ``demo slides``, each a
``jarvishub`` subprocess with that environment: the agent is the configured model (the loopback endpoint
answers with JarvisHub's offline planner behind the wire), the judge is the same model asked without
tools, and every picture and clip comes from the provider's Images and Videos APIs.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from tests.providers.conftest import document, jarvishub, user_env
from tools.generate.measure import probe_video

pytestmark = [pytest.mark.long_file(80), pytest.mark.system_tool("chromium", apt="chromium")]


def png_size(path: Path) -> tuple[int, int]:
    with Image.open(io.BytesIO(path.read_bytes())) as picture:
        picture.load()
        assert picture.format == "PNG"
        return picture.size


def test_the_first_ten_minutes_with_a_key_and_a_compatible_endpoint(loopback, tmp_path):
    env = user_env(loopback)
    story = tmp_path / "story"
    demo = jarvishub(env, "demo", "narrative", "--shots", "3", "--dir", str(story), "--json", cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert document(demo)["result"] == "done"
    narrative = story / "outputs" / "narrative"
    shots = {n: narrative / f"shot-0{n}-image.png" for n in (1, 2, 3)}
    # The provider's pictures (the Images API's sizes, not the offline renderer's 512x288), and its clips.
    assert {png_size(p) for p in shots.values()} == {(1536, 1024)}
    for n in (1, 2, 3):
        assert probe_video(narrative / f"shot-0{n}-clip.mp4").codec == "h264"
    assert probe_video(narrative / "final-cut.mp4").duration_s == pytest.approx(6.0, abs=0.2)
    pictures = loopback.requests("images")
    # The character is known by its description (no picture of it yet): every prompt spells it out.
    assert len(pictures) == 3 and all("character '" in r["body"]["prompt"] for r in pictures)
    assert len([r for r in loopback.requests("videos") if r["path"] == "/v1/videos"]) == 3
    before = {n: p.read_bytes() for n, p in shots.items()}

    relit = jarvishub(env, "-C", str(story), "run", "keep the character but redo the lighting on shot 3", "--json")
    assert relit.returncode == 0, relit.stderr
    assert document(relit)["result"] == "done"
    after = {n: p.read_bytes() for n, p in shots.items()}
    assert after[1] == before[1] and after[2] == before[2] and after[3] != before[3]
    assert (narrative / "versions" / "shot-03-image-v1.png").read_bytes() == before[3]
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

    web = jarvishub(env, "demo", "web", "--dir", str(tmp_path / "site"), "--json", cwd=tmp_path)
    assert web.returncode == 0, web.stderr
    assert [t["result"] for t in document(web)["turns"]] == ["done", "done"]
    assert list((tmp_path / "site" / "outputs").rglob("index.html"))
    slides = jarvishub(env, "demo", "slides", "--slides", "3", "--dir", str(tmp_path / "deck"), "--json",
                       cwd=tmp_path)
    assert slides.returncode == 0, slides.stderr
    assert list((tmp_path / "deck" / "outputs").rglob("*.pptx"))
    # Every picture the three demos generated came from the provider; none was drawn offline (previews of the
    # page and the slides are screenshots, not generations).
    for folder in (story, tmp_path / "site", tmp_path / "deck"):
        rows = document(jarvishub(env, "-C", str(folder), "query", "MATCH (n:CanvasNode {kind: 'image'}) "
                                  "RETURN n.metadata_json AS m", "--json"))["rows"]
        made = [json.loads(r["m"])["provenance"] for r in rows]
        generated = [p for p in made if p.get("tool") == "generate_image"]
        assert generated and {(p["provider"], p["model"]) for p in generated} == {("openai", "gpt-image-1")}
