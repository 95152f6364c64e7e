"""Projects hosted on one engine (``Project.open(host=...)``): each keeps its own canvas, closing one leaves the
engine to the others, and the folder's own engine is refused rather than shown empty."""

from __future__ import annotations

from pathlib import Path

import pytest

from jarvishub.project import Project
from store.engine import Engine
from store.hosted import CanvasHostedElsewhere
from store.models import new_id
from store.mutations import CreateNode


def note(project: Project, title: str) -> str:
    """Write one text node through the project's own ticket authority, as its validation node would; its id."""
    batch = [CreateNode(kind="text", title=title)]
    project.store.apply(batch, ticket=project.store._authority.issue(new_id(), batch))
    return batch[0].id


def titles(project: Project) -> set[str]:
    return {n.title for n in project.store.snapshot().nodes}


def test_two_hosted_projects_keep_their_own_canvases_and_commit_counters(engines: dict[str, Engine],
                                                                         tmp_path: Path) -> None:
    host = engines["arcadedb"]
    with Project.init(tmp_path / "film", host=host) as film, Project.init(tmp_path / "deck", host=host) as deck:
        assert film.store.database != deck.store.database
        note(film, "lighthouse at dusk")
        note(film, "ferry at dawn")
        note(deck, "solar gardens")
        assert titles(film) == {"lighthouse at dusk", "ferry at dawn"}
        assert titles(deck) == {"solar gardens"}
        assert (film.store.canvas_version(), deck.store.canvas_version()) == (2, 1)


def test_closing_a_hosted_project_leaves_the_engine_to_the_others_and_reopening_finds_its_canvas(
        engines: dict[str, Engine], tmp_path: Path) -> None:
    host = engines["arcadedb"]
    other = Project.init(tmp_path / "other", host=host)
    try:
        note(other, "still here")
        with Project.init(tmp_path / "closed", host=host) as closed:
            kept = note(closed, "kept across opens")
        assert titles(other) == {"still here"}  # the host still answers after the other project closed
        with Project.open(tmp_path / "closed", host=host) as again:
            assert again.store.get_node(kept).title == "kept across opens"
    finally:
        other.close()


def test_the_folder_s_own_engine_is_refused_for_a_hosted_canvas_and_nothing_is_lost(
        engines: dict[str, Engine], tmp_path: Path) -> None:
    host = engines["arcadedb"]
    with Project.init(tmp_path / "hosted", host=host) as hosted:
        kept = note(hosted, "the person's work")
        database = hosted.store.database
    with pytest.raises(CanvasHostedElsewhere, match=database):
        Project.open(tmp_path / "hosted")
    engine_dir = tmp_path / "hosted" / ".jarvishub" / "engine"
    assert not (engine_dir / "engine.json").exists() and not (engine_dir / "server").exists()  # none started
    with Project.open(tmp_path / "hosted", host=host) as again:
        assert again.store.get_node(kept).title == "the person's work"
