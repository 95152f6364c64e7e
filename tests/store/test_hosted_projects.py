"""Projects hosted on one engine (``Project.open(host=...)``): each keeps its own canvas, closing one leaves the
engine to the others, and the folder's own engine is refused rather than shown empty."""

from __future__ import annotations

from pathlib import Path

import neo4j
import pytest

from jarvishub.integrations.access import NoReadOnlyAccount, read_only_access
from jarvishub.project import Project
from store.engine import Engine
from store.errors import CypherWriteRefused
from store.hosted import CanvasHostedElsewhere
from store.models import new_id
from store.mutations import CreateNode
from tests.cli_run import cli


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


def test_the_folder_s_own_engine_is_refused_for_a_hosted_canvas_by_the_cli_too_and_nothing_is_lost(
        engines: dict[str, Engine], tmp_path: Path) -> None:
    host = engines["arcadedb"]
    with Project.init(tmp_path / "hosted", host=host) as hosted:
        kept = note(hosted, "the person's work")
        database = hosted.store.database
    with pytest.raises(CanvasHostedElsewhere, match=database):
        Project.open(tmp_path / "hosted")
    ran = cli("-C", str(tmp_path / "hosted"), "status")  # as a person would, in a shell
    assert ran.returncode == 2 and database in ran.stdout + ran.stderr, (ran.returncode, ran.stdout, ran.stderr)
    engine_dir = tmp_path / "hosted" / ".jarvishub" / "engine"
    assert not (engine_dir / "engine.json").exists() and not (engine_dir / "server").exists()  # none started
    with Project.open(tmp_path / "hosted", host=host) as again:
        assert again.store.get_node(kept).title == "the person's work"


def test_no_outside_tool_is_handed_the_hosts_read_only_account(engines: dict[str, Engine], tmp_path: Path) -> None:
    """That account reads every project on the host; a tool given it for one project could read the others."""
    with Project.init(tmp_path / "one", host=engines["arcadedb"]) as one:
        with pytest.raises(NoReadOnlyAccount, match="hosts other projects"):
            read_only_access(one)


def test_a_hosted_project_s_user_cypher_cannot_read_another_s_database_with_the_check_above_it_off(
        engines: dict[str, Engine], tmp_path: Path) -> None:
    """The store's check refuses ``USE`` in user Cypher with a friendly message; the guarantee is the engine's: a
    query sent straight on the reader's Bolt session of one project's database cannot run on another's."""
    host = engines["arcadedb"]
    with Project.init(tmp_path / "a", host=host) as a, Project.init(tmp_path / "b", host=host) as b:
        note(b, "b's private draft")
        stolen = f"USE {b.store.database} MATCH (n:CanvasNode) RETURN n.title AS title"
        with pytest.raises(CypherWriteRefused, match="USE"):
            a.store.query(stolen)
        with host.reader_driver.session(database=a.store.database) as session:
            with pytest.raises(neo4j.exceptions.Neo4jError, match="USE"):
                session.run(stolen).data()
        assert a.store.query("MATCH (n:CanvasNode) RETURN n.title AS title").rows == []
