"""Settings: arguments, then the environment (each field's names, any case), then the project file."""

from __future__ import annotations

from jarvishub.settings import PROJECT_FILE, from_environment, load_settings


def test_environment_names_in_any_case_then_the_project_file(tmp_path, monkeypatch):
    for name in ("NEO4J_URI", "JARVISHUB_MODEL", "OPENAI_API_KEY", "JARVISHUB_TRAJECTORY_CONSENT", "model"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("neo4j_uri", "bolt://db:7687")
    monkeypatch.setenv("JARVISHUB_TRAJECTORY_CONSENT", "true")
    (tmp_path / PROJECT_FILE).write_text('[settings]\nmodel = "from-file"\nneo4j_uri = "bolt://file:7687"\n')
    settings = load_settings(tmp_path)
    assert settings.neo4j_uri == "bolt://db:7687"  # the environment wins over the file
    assert settings.consent is True and settings.model == "from-file" and settings.openai_api_key is None
    assert load_settings(tmp_path, model="argument").model == "argument"
    monkeypatch.setenv("JARVISHUB_MODEL", "from-env")
    assert load_settings(tmp_path).model == "from-env"


def test_the_environment_never_sets_the_parsed_project_file():
    assert from_environment({"PROJECT": '{"a": 1}', "Neo4j_User": "me"}) == {"neo4j_user": "me"}
