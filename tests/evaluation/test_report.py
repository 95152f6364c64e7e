"""report.html: valid, self-contained HTML whose plots really render in Chromium, and whose text cannot run.

One Chromium per module (Debian's, under Playwright); the report is the one of
the hand-written fixture ``data/results-small.json`` (two agents, three
workflows, an 11-turn narrative scenario).
"""

from __future__ import annotations

import copy
import http.server
import json
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageStat

from jarvishub.evaluation.definitions import METRICS
from jarvishub.evaluation.reading import ResultsError, load_results
from jarvishub.evaluation.report import render_report, write_report
from jarvishub.evaluation.screenshot import CHROMIUM, CHROMIUM_ARGS, screenshot_report

FIXTURE = Path(__file__).parent / "data" / "results-small.json"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SVG_SELF_CLOSING = {"rect", "line", "circle", "polyline", "path"}
ATTACK = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


class Tree(HTMLParser):
    """A strict reading of a page: every element closed in order, and what a check needs collected."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.tables: list[str] = []
        self.in_table: list[tuple[str, str, dict[str, str | None]]] = []  # (table class, tag, attributes)
        self.text: list[str] = []
        self.doctype = ""

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if self.tables:
            self.in_table.append((self.tables[-1], tag, dict(attrs)))
        if tag == "table":
            self.tables.append(dict(attrs).get("class") or "")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID and tag not in SVG_SELF_CLOSING:
            self.errors.append(f"<{tag}/> is not a void or SVG element")

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            return
        self.stack.pop()
        if tag == "table":
            self.tables.pop()

    def handle_data(self, data: str) -> None:
        if self.stack[-1:] != ["style"]:
            self.text.append(data)

    def named(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for t, attrs in self.tags if t == tag]


def parse(html: str) -> Tree:
    tree = Tree()
    tree.feed(html)
    tree.close()
    assert not tree.errors, tree.errors[:5]
    assert not tree.stack, f"left open: {tree.stack}"
    return tree


def attacked_results() -> dict[str, Any]:
    """The fixture with hostile text in a request, a scenario name, a check detail and a rejection reason."""
    data = json.loads(FIXTURE.read_text())
    scenario = data["scenarios"][0]
    scenario["name"] = 'evil"><b id="injected">name</b>'
    scenario["turns"][1]["request"] = ATTACK
    scenario["turns"][1]["checks"].append({"name": "changed_only", "passed": False,
                                           "detail": "</td></table><script>window.__pwned = 3</script>"})
    scenario["turns"][1]["metrics"]["rejection_reasons"] = {"<i>bad</i>": 1}
    return data


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_report(FIXTURE, tmp_path_factory.mktemp("report") / "report.html")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    from tests.system_tools import require_system_tool

    require_system_tool("chromium", apt="chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


class _Hits(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        type(self).hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "application/javascript")
        self.end_headers()
        self.wfile.write(b"window.__pwned = 4;")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server that records every request made to it (what a page must never reach)."""
    _Hits.hits = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hits)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _Hits.hits
    finally:
        server.shutdown()
        server.server_close()


def open_page(browser: Any, path: Path) -> tuple[Any, list[str]]:
    """The page at ``path`` and the list of URLs it requested."""
    context = browser.new_context(viewport={"width": 1400, "height": 1500})
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(path.resolve().as_uri())
    page.wait_for_load_state("load")
    return page, requested


# -- structure -------------------------------------------------------------------------------
def test_the_report_is_well_formed_self_contained_html(report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    tree = parse(html)
    assert tree.doctype.lower() == "doctype html"
    assert tree.named("html")[0].get("lang") == "en"
    csp = [m for m in tree.named("meta") if m.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in (csp[0]["content"] or "")
    assert not tree.named("script") and not tree.named("link") and not tree.named("img") and not tree.named("iframe")
    for _, attrs in tree.tags:  # nothing refers outside the page
        for name in ("src", "href"):
            assert not attrs.get(name), attrs

    summary = [(tag, a) for table, tag, a in tree.in_table if table == "summary"]
    assert [a.get("colspan") for tag, a in summary if a.get("scope") == "colgroup"] == ["2", "2", "2"]
    assert len([a for tag, a in summary if a.get("scope") == "col"]) == 1 + 3 * 2  # metric + 3 workflows x 2 agents
    assert len([a for tag, a in summary if a.get("scope") == "row"]) == 15
    text = " ".join(tree.text)
    for row in ("Provider calls per edit turn", "Locality (mean over turns with targets", "Untargeted outputs changed",
                "Context bytes at turn 1", "Context bytes at turn 5", "Context bytes at turn 10",
                "Bytes per model call at turn 10", "Model calls per edit turn (median)", "Largest model call (bytes)",
                "Wall time of the runs (s)", "Checks passed"):
        assert row in text
    assert "36,900" in text  # the chat agent's narrative context at turn 10, straight from the fixture
    assert "{" not in text  # no template left unfilled
    for name, definition in METRICS.items():
        assert f"{name} {definition}" in " ".join(t.strip() for t in tree.text if t.strip())
    # a turn table per scenario and agent, a row per scripted turn
    assert len([t for t in tree.named("table") if t.get("class") == "turns"]) == 6
    compared = [tag for table, tag, _ in tree.in_table if table == "comparison" and tag == "tr"]
    assert len(compared) == 1 + 3  # the head and one row per scenario and baseline (canvas against chat)
    assert len(tree.named("tr")) == 2 + 15 + len(compared) + sum(len(s.turns) + 1
                                                                 for s in load_results(FIXTURE).scenarios)

    plots = [s for s in tree.named("svg") if s.get("class") == "plot"]
    # checks per scenario, then three workflows x (context line, calls bars, locality bars); no long session here
    assert len(plots) == 1 + 9
    titles = {a.get("id") for a in tree.named("title")}
    descs = {a.get("id") for a in tree.named("desc")}
    for svg in plots:
        assert svg.get("role") == "img"
        title_id, desc_id = (svg.get("aria-labelledby") or "").split()
        assert title_id in titles and desc_id in descs


def test_untrusted_text_is_escaped() -> None:
    html = render_report(attacked_results())
    tree = parse(html)
    assert not tree.named("script") and not tree.named("img") and not tree.named("i")
    assert not [b for b in tree.named("b") if b.get("id") == "injected"]
    text = "".join(tree.text)
    assert ATTACK in text and "</td></table><script>window.__pwned = 3</script>" in text and "<i>bad</i>" in text


def test_a_bad_results_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text("{not json")
    with pytest.raises(ResultsError, match="not JSON"):
        write_report(tmp_path / "r.json", tmp_path / "r.html")
    (tmp_path / "r.json").write_text(json.dumps({"schema": "something-else/3"}))
    with pytest.raises(ResultsError, match="something-else/3"):
        write_report(tmp_path / "r.json", tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


# -- in Chromium ----------------------------------------------------------------------------------
def test_the_plots_render_inside_their_areas(browser: Any, report: Path, tmp_path: Path) -> None:
    page, requested = open_page(browser, report)
    try:
        plots = page.query_selector_all("svg.plot")
        assert len(plots) == 10  # the nine summary plots and the checks passed per scenario
        for svg in plots:
            name = svg.evaluate("s => s.querySelector('title').textContent")
            area = svg.query_selector("rect.plot-area").bounding_box()
            assert area and area["width"] > 100 and area["height"] > 100, name
            marks = svg.query_selector_all(".mark")
            kinds = {m.evaluate("m => m.tagName") for m in marks}
            assert kinds >= ({"polyline", "circle"} if svg.get_attribute("data-kind") == "line" else {"rect"}), name
            for mark in marks:
                box = mark.bounding_box()
                assert box is not None and box["width"] > 0 and box["height"] > 0, (name, mark.evaluate(
                    "m => m.outerHTML"))
                inside_x = area["x"] - 0.5 <= box["x"] and box["x"] + box["width"] <= area["x"] + area["width"] + 0.5
                inside_y = area["y"] - 0.5 <= box["y"] and box["y"] + box["height"] <= area["y"] + area["height"] + 0.5
                assert inside_x and inside_y, (name, box, area)
            legend = svg.evaluate("s => s.querySelector('g.legend').textContent")
            assert "canvas" in legend and "chat" in legend, name
            shot = tmp_path / "plot.png"
            svg.screenshot(path=str(shot))
            assert _variance(shot) > 50, f"{name} renders blank"
        # the chat line of the 11-turn narrative plot rises to the right: points really follow the data
        points = page.query_selector_all("#plot-0-context g.series[data-label='chat'] circle.mark")
        assert len(points) == 11
        ys = [p.bounding_box()["y"] for p in points]  # type: ignore[index]
        assert ys == sorted(ys, reverse=True)

        whole = screenshot_report(report, tmp_path / "report.png", browser=browser)
        assert Image.open(whole).size == (1400, 1500) and _variance(whole) > 50
        assert requested == [report.resolve().as_uri()]
    finally:
        page.context.close()


def test_an_attack_in_a_request_renders_as_text(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "attacked.html"
    path.write_text(render_report(attacked_results()), encoding="utf-8")
    page, _ = open_page(browser, path)
    try:
        assert page.evaluate("window.__pwned") is None
        assert ATTACK in page.inner_text("body")
        assert page.query_selector("#injected") is None
    finally:
        page.context.close()


def test_the_page_policy_blocks_scripts_and_fetches_even_unescaped(browser: Any, tmp_path: Path,
                                                                    listener: tuple[str, list[str]]) -> None:
    """With escaping switched off (the markup pasted raw), the page's CSP still runs nothing and fetches nothing."""
    base, hits = listener
    raw = (f'<script>window.__pwned = 1</script><script src="{base}/evil.js"></script>'
           f'<img src="{base}/pixel.png"><link rel="stylesheet" href="{base}/style.css">')
    html = render_report(copy.deepcopy(json.loads(FIXTURE.read_text()))).replace("<body>", "<body>" + raw, 1)
    path = tmp_path / "unescaped.html"
    path.write_text(html, encoding="utf-8")
    page, _ = open_page(browser, path)
    try:
        # the same markup without the policy runs: the attack is real, the policy is what stops it
        control = tmp_path / "control.html"
        control.write_text("<!DOCTYPE html><html><body>" + raw + "</body></html>", encoding="utf-8")
        bare, _ = open_page(browser, control)
        try:
            assert bare.evaluate("window.__pwned") == 4
        finally:
            bare.context.close()
        assert hits, "the control page should have reached the listener"
        hits.clear()
        assert page.evaluate("window.__pwned") is None
        page.reload()
        page.wait_for_load_state("load")
        assert page.evaluate("window.__pwned") is None
        assert hits == []
    finally:
        page.context.close()


def _variance(png: Path) -> float:
    stat = ImageStat.Stat(Image.open(png).convert("L"))
    return stat.var[0]


def test_the_docs_define_every_metric_and_keep_the_measured_table_marker() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "evaluation.md").read_text(encoding="utf-8")
    missing = [name for name in METRICS if f"\n`{name}`" not in doc and f"\n`{name}` and" not in doc]
    assert missing == [], f"docs/evaluation.md defines no {missing}"
    assert doc.count("<!-- eval:measured-table -->") == 1
