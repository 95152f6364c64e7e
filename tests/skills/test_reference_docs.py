"""docs/tools.md is generated from the manifest (``python docs/make_tools.py``): the test fails when it is stale,
and the page says what the issue found missing (return keys, lighting values, how to import a skill)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def generator():
    spec = importlib.util.spec_from_file_location("make_tools", DOCS / "make_tools.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_tools_md_is_what_the_manifest_says() -> None:
    written = (DOCS / "tools.md").read_text()
    assert written == generator().builtin_reference(), "docs/tools.md is stale: run `python docs/make_tools.py`"


def test_it_says_what_tools_return_and_take() -> None:
    from tools.generate.base import Lighting

    page = (DOCS / "tools.md").read_text()
    create_node = page[page.index("### `create_node`"):page.index("### `evaluate_node`")]
    assert "| `created` | string | The new node's id |" in create_node
    generate_image = page[page.index("### `generate_image`"):page.index("### `generate_video`")]
    assert "| `node_id` | string |" in generate_image
    assert "one of " + ", ".join(f"`{light.value}`" for light in Lighting) in generate_image
    assert "Import: `from skills.critique import CRITIQUE`" in page
