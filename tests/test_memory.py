"""Project memory: persisted behind LangGraph's BaseStore, parsed into generation parameters, merged into args."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.store.base import BaseStore, GetOp, ListNamespacesOp, PutOp, SearchOp

from store.memory import (
    MEMORY_FILE,
    NAMED_PALETTES,
    MemoryKind,
    MemoryStore,
    ProjectMemory,
    UnknownMemory,
    merge_memory_params,
    parse_memory,
)


@pytest.fixture(params=["sqlite", "postgres"])
def backend_url(request: pytest.FixtureRequest) -> str | None:
    """Where memory lives: the project's SQLite file (None), or a fresh database on a real PostgreSQL."""
    return request.getfixturevalue("postgres_url") if request.param == "postgres" else None


@pytest.fixture
def memory(tmp_path: Path, backend_url: str | None) -> Iterator[ProjectMemory]:
    opened = ProjectMemory.open(tmp_path, backend_url)
    yield opened
    opened.close()


def test_items_outlive_the_instance(tmp_path: Path, backend_url: str | None):
    first = ProjectMemory.open(tmp_path, backend_url)
    added = [first.add(t) for t in ("prefer warm lighting", "the heroine's coat is red", "rejected: neon palette")]
    first.close()
    # The items are where the configuration says: the SQLite file only without a Postgres URL.
    assert (tmp_path / MEMORY_FILE).exists() == (backend_url is None)
    second = ProjectMemory.open(tmp_path, backend_url)
    try:
        assert [i.key for i in second.list()] == [i.key for i in added]
        assert [(i.text, i.kind) for i in second.list()] == [
            ("prefer warm lighting", MemoryKind.PREFERENCE),
            ("the heroine's coat is red", MemoryKind.DECISION),
            ("rejected: neon palette", MemoryKind.REJECTION),
        ]
    finally:
        second.close()


def test_items_outlive_the_process(tmp_path: Path, memory: ProjectMemory, backend_url: str | None):
    memory.add("use seed 42")
    script = ("import sys; from pathlib import Path; from store.memory import ProjectMemory; "
              "m = ProjectMemory.open(Path(sys.argv[1]), sys.argv[2] or None); "
              "print(m.add('prefer cold lighting').key); print(len(m.list())); m.close()")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path), backend_url or ""],
                          capture_output=True, text=True,
                          check=True, cwd=Path(__file__).resolve().parents[1])
    key, count = done.stdout.split()
    assert count == "2"
    assert memory.get(key).params == {"lighting": "cold"}
    assert memory.params_for_generation() == {"seed": 42, "lighting": "cold"}


def test_add_list_forget(memory: ProjectMemory):
    warm = memory.add("prefer warm lighting")
    coat = memory.add("The heroine's coat is red")
    again = memory.add("prefer  warm lighting", kind="decision")  # same text: updated, not repeated
    assert again.key == warm.key and again.kind is MemoryKind.DECISION and again.params == {"lighting": "warm"}
    assert [i.key for i in memory.list()] == [coat.key, warm.key]  # said again: now the latest
    with pytest.raises(UnknownMemory, match="matches 2"):
        memory.get(warm.key[:4])  # ULIDs of the same moment share their start: say so, never guess
    assert memory.forget(coat.key[-6:]).text == "The heroine's coat is red"  # or a unique end
    assert [i.key for i in memory.list()] == [warm.key]
    with pytest.raises(UnknownMemory):
        memory.forget(coat.key)
    with pytest.raises(ValueError):
        memory.add("   ")
    given = memory.add("house style", params={"palette": ["#112233"]})
    assert given.params == {"palette": ["#112233"]} and given.kind is MemoryKind.DECISION


def test_memory_lines_are_what_the_model_sees(memory: ProjectMemory):
    memory.add("prefer warm lighting")
    memory.add("rejected: neon palette")
    lines = memory.memory_lines("make a poster")
    assert lines == [
        {"key": lines[0]["key"], "text": "prefer warm lighting", "kind": "preference", "params": {"lighting": "warm"}},
        {"key": lines[1]["key"], "text": "rejected: neon palette", "kind": "rejection",
         "params": {"avoid": {"palette": ["neon"]}}},
    ]


@pytest.mark.parametrize(("text", "kind", "params"), [
    ("prefer warm lighting", "preference", {"lighting": "warm"}),
    ("I like high key lighting", "preference", {"lighting": "high-key"}),
    ("keep it cool-toned", "preference", {"lighting": "cold"}),
    ("the heroine's coat is red", "decision", {"characters": {"heroine": {"coat": "#c0392b"}}}),
    ("Mira wears a blue scarf", "decision", {"characters": {"mira": {"scarf": "#2980b9"}}}),
    ("decided: the hero\u2019s cape is #112233", "decision", {"characters": {"hero": {"cape": "#112233"}}}),
    ("rejected: neon palette", "rejection", {"avoid": {"palette": ["neon"]}}),
    ("no night lighting", "rejection", {"avoid": {"lighting": ["night"]}}),
    ("prefer the sunset palette", "preference", {"palette": NAMED_PALETTES["sunset"], "palette_name": "sunset"}),
    ("prefer palette #AABBCC and #ddeeff", "preference", {"palette": ["#aabbcc", "#ddeeff"]}),
    ("use seed 42", "preference", {"seed": 42}),
    ("prefer landscape", "preference", {"width": 768, "height": 512}),
    ("the client likes it", "decision", {}),
])
def test_phrases_parse_into_params(text: str, kind: str, params: dict):
    assert parse_memory(text) == (MemoryKind(kind), params)


def test_params_for_generation_folds_items_later_ones_win(memory: ProjectMemory):
    memory.add("prefer warm lighting")
    memory.add("the heroine's coat is red")
    memory.add("prefer the neon palette")
    memory.add("rejected: neon palette")
    assert memory.params_for_generation() == {
        "lighting": "warm",
        "characters": {"heroine": {"coat": "#c0392b"}},
        "avoid": {"palette": ["neon"]},
    }
    memory.add("no warm lighting")
    memory.add("prefer neon palette")  # a newer preference lifts the older rejection
    folded = memory.params_for_generation()
    assert "lighting" not in folded and folded["avoid"] == {"lighting": ["warm"]}
    assert folded["palette_name"] == "neon"


def test_merge_applies_memory_only_where_the_request_is_silent(memory: ProjectMemory):
    memory.add("prefer warm lighting")
    memory.add("the heroine's coat is red")
    memory.add("prefer the sunset palette")
    lines = memory.memory_lines()
    merged = merge_memory_params(lines, {"prompt": "the heroine at the gate"})
    assert merged["lighting"] == "warm" and merged["palette"] == NAMED_PALETTES["sunset"]
    assert merged["prompt"] == "the heroine at the gate; the heroine's coat is red (#c0392b)"
    explicit = {"prompt": "the heroine's red coat in the rain", "lighting": "night", "palette": ["#000000"]}
    kept = merge_memory_params(lines, explicit)
    assert kept == explicit and kept is not explicit  # what the request said wins; the coat is already named
    assert merge_memory_params(lines, {"prompt": "a gull", "lighting": None})["lighting"] == "warm"
    speech = {"prompt": "hello"}
    assert merge_memory_params(lines, speech, tool="generate_audio") == speech  # no style params for audio
    assert merge_memory_params([], {"prompt": "x"}) == {"prompt": "x"}


def test_the_store_is_a_langgraph_base_store(tmp_path: Path):
    with MemoryStore(tmp_path / "m.sqlite") as store:
        assert isinstance(store, BaseStore)
        store.put(("prefs", "alice"), "lighting", {"value": "warm"})
        store.put(("prefs", "alice"), "palette", {"value": "sunset"})
        store.put(("prefs", "bob"), "lighting", {"value": "cold"})
        assert store.get(("prefs", "alice"), "lighting").value == {"value": "warm"}
        assert store.get(("prefs", "alice"), "missing") is None
        assert {i.key for i in store.search(("prefs", "alice"))} == {"lighting", "palette"}
        assert [i.value for i in store.search(("prefs",), filter={"value": "cold"})] == [{"value": "cold"}]
        assert sorted(store.list_namespaces(prefix=("prefs",))) == [("prefs", "alice"), ("prefs", "bob")]
        store.delete(("prefs", "alice"), "palette")
        assert store.get(("prefs", "alice"), "palette") is None
        results = store.batch([
            PutOp(("prefs", "carol"), "lighting", {"value": "night"}),
            GetOp(("prefs", "bob"), "lighting"),
            SearchOp(("prefs",), limit=10),
            ListNamespacesOp(match_conditions=None, max_depth=1),
        ])
        assert results[0] is None and results[1].value == {"value": "cold"}
        assert results[3] == [("prefs",)]
        assert store.get(("prefs", "carol"), "lighting").value == {"value": "night"}
        got = asyncio.run(store.abatch([GetOp(("prefs", "carol"), "lighting")]))
        assert got[0].value == {"value": "night"}


def test_project_memory_works_on_any_base_store():
    from langgraph.store.memory import InMemoryStore

    memory = ProjectMemory(InMemoryStore())
    memory.add("prefer cold lighting")
    assert memory.params_for_generation() == {"lighting": "cold"}
    assert memory.forget(memory.list()[0].key).text == "prefer cold lighting" and memory.list() == []
