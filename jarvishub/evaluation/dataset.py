"""The suite's trajectories as a dataset: one redacted JSONL line per turn, and a card that says what it is.

Each line is a turn exactly as :func:`jarvishub.trajectory.export_thread`
exports it (the same redaction: secrets removed with consent, every word of
the user withheld without), plus where it came from (agent, scenario,
workflow, scripted turn), the scripted turn's metrics, and the media the turn
made with their origin and licence.  Runs are read from the projects the
results name (``project_dir``); the export changes nothing in them.

The card (``card.json`` and the same in ``README.md``) carries the schema of a
line as the lines actually have it, the metric definitions, the consent status,
and the licence of the generated media: what JarvisHub's own renderers made is
the project's to license; what a media provider made is flagged with the
provider and model, whose terms apply.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from jarvishub.evaluation.definitions import METRICS
from jarvishub.evaluation.reading import Results, ScenarioResult, TurnResult, load_results
from jarvishub.settings import STATE_DIR
from jarvishub.trajectory import Withholder, thread_records
from store.models import utc_now

DATASET_FORMAT = "jarvishub-eval-dataset/1"
LINES_FILE = "trajectories.jsonl"
OWN_RENDERERS = frozenset({"offline", "ffmpeg"})
"""Media providers that are JarvisHub's own code (tools/generate/offline_*.py, the ffmpeg cut)."""
CONSENTED = ("the people whose requests these are agreed to their text being shared; secrets, e-mail "
             "addresses and home-directory paths are redacted")
WITHHELD = ("no consent to share the requests' text, so a line keeps only what a closed schema names "
            "(jarvishub/trajectory.py RECORD): ids and content hashes are re-keyed for this export, built-in kind, "
            "tool, status and edge-type names are kept, numbers only in metric fields; every other string and key "
            "becomes [text:<token>] and every other number [value:<token>], HMACs under a salt drawn for this "
            "export (equal texts share a token within this export only); scenario names, workflows and turn tags "
            "are the suite's own identifiers and are kept")

LINE_FIELDS: dict[str, str] = {
    "agent": "the agent that ran the turn: canvas (the canvas-native agent) or chat (the chat-history baseline)",
    "scenario": "the scenario's name (jarvishub/evaluation/scenarios/NAME.toml)",
    "workflow": "the scenario's workflow: narrative, web or slides",
    "turn_index": "the scripted turn this turn belongs to (0-based; null for a turn no scripted turn names)",
    "turn_kind": "the scripted turn's tag: create, edit, feedback, approve, explore, select, refuse, clarify, "
                 "resume, query or note",
    "metrics": "the scripted turn's process metrics (see metrics); shared by every turn id of that scripted turn",
    "media": "media nodes this turn created or versioned: node_id, kind, version, tool, provider, model, origin "
             "(jarvishub | provider | person | unknown), licence, artifact sha256s",
    "thread_id": "the LangGraph thread of the turn (re-keyed without consent)",
    "turn_id": "the turn's id (re-keyed without consent)",
    "request": "what was asked (withheld without consent)",
    "canvas_before": "the canvas version the turn started from",
    "canvas_after": "the canvas version after the turn's last commit",
    "manifest_tools": "names of the tools the manifest offered",
    "grant": "the turn's grant: actor, allowed tools and effects, approvals, budget",
    "actions": "the action proposed at each step",
    "observations": "what each step's action returned",
    "feedback": "feedback received during the turn",
    "repair": "repairs made after rejected or failed steps",
    "outcome": "how the turn ended: replied, clarification, failed, interrupted, step_budget, ...",
    "reply": "the agent's reply (withheld without consent)",
    "touched_ids": "ids of the canvas nodes the turn touched",
    "steps": "the steps in order (see step_schema)",
    "started_at": "when the turn started (ISO-8601 UTC)",
    "finished_at": "when the turn finished (ISO-8601 UTC)",
    "canvas_diff": "the canvas difference canvas_before -> canvas_after: added, changed (before, after) and removed "
                   "nodes and edges; media appear as artifact handles (sha256, mime, size), never bytes",
}
"""What each key of a line means; the card lists exactly the keys the lines have."""
STEP_FIELDS: dict[str, str] = {
    "index": "the step's position in the turn",
    "action": "the proposed action (tool call, canvas mutation, evaluation, reply, ...)",
    "verdict": "the validation verdict: allow, reject (with reason) or needs approval",
    "observation": "what the action returned",
    "commit": "the canvas commit the step made, if any",
    "provider_calls": "media-provider calls made by the step (cache hits excluded)",
    "cache_hits": "generations served from the cache",
    "feedback": "feedback attached to the step",
    "repair": "the repair made after the step",
    "rebuilds": "commit rebuilds after a version conflict",
    "seen_version": "the canvas version the step's proposal saw (a call repeated with it unchanged is refused)",
    "raw_error": "why a malformed model output could not be read",
    "model_calls": "chat-model calls made while proposing the step",
    "model_input_bytes": "model-visible bytes of those calls (messages + tool schemas)",
    "tool_schema_bytes": "the tool-schema part of model_input_bytes",
    "max_call_bytes": "the largest of those calls",
}
_UNDESCRIBED = "recorded by the trajectory store; not described by this version of the card"


class DatasetError(RuntimeError):
    """A run's project cannot be read (names the scenario, the agent and the folder)."""


def export_dataset(results: str | Path | dict[str, Any] | BaseModel, out_dir: str | Path, *, consent: bool,
                   base_dir: str | Path | None = None) -> Path:
    """Write ``trajectories.jsonl``, ``card.json`` and ``README.md`` into ``out_dir``; returns ``out_dir``.

    ``project_dir`` values that are relative are read against ``base_dir``: by default the folder of the
    results file, or for results passed as an object the folder ``out_dir`` is in — ``jarvishub eval``
    writes ``OUT/results.json``, ``OUT/runs/…`` and ``OUT/dataset/`` side by side.
    """
    if base_dir is None:
        base_dir = Path(results).parent if isinstance(results, (str, Path)) else Path(out_dir).resolve().parent
    loaded = load_results(results)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    withhold = None if consent else Withholder()
    licence = project_licence()
    line_keys: dict[str, None] = {}
    step_keys: dict[str, None] = {}
    media: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    with open(out / LINES_FILE, "w", encoding="utf-8") as handle:
        for scenario in loaded.scenarios:
            run = {"scenario": scenario.name, "workflow": scenario.workflow, "agent": scenario.agent, "lines": 0}
            runs.append(run)
            root = _project_root(scenario, Path(base_dir))
            if root is None:
                run["skipped"] = "no project recorded for this run"
                continue
            for record in _records(scenario, root):
                line = _line(record, scenario, licence, withhold)
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
                run["lines"] += 1
                line_keys.update(dict.fromkeys(line))
                for step in line.get("steps") or []:
                    step_keys.update(dict.fromkeys(step))
                media += line["media"]
    card = _card(loaded, out / LINES_FILE, consent, licence, list(line_keys), list(step_keys), media, runs)
    (out / "card.json").write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "README.md").write_text(card_markdown(card), encoding="utf-8")
    return out


def project_licence() -> str:
    """The licence JarvisHub is published under (its package metadata, else its pyproject.toml)."""
    try:
        meta = importlib.metadata.metadata("jarvishub")
        found = meta.get("License-Expression") or meta.get("License")
        if found:
            return str(found)
    except importlib.metadata.PackageNotFoundError:
        pass
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    return str(tomllib.loads(pyproject.read_text()).get("project", {}).get("license", "unknown"))


# -- reading the runs ------------------------------------------------------------------------------------
def _project_root(scenario: ScenarioResult, base: Path) -> Path | None:
    if not scenario.project_dir:
        return None
    root = Path(scenario.project_dir)
    root = root if root.is_absolute() else base / root
    if not (root / STATE_DIR / "trajectories.sqlite").is_file():
        raise DatasetError(f"the {scenario.agent} run of {scenario.name!r} names the project {root}, which has no "
                           f"{STATE_DIR}/trajectories.sqlite (moved or deleted?)")
    return root


STASH_FILE = "eval-trajectories.jsonl"
"""A run's turns, exported (with consent, redacted) while its engine was still up; in the project's state folder."""


def _threads(scenario: ScenarioResult) -> list[str | None]:
    return list(dict.fromkeys(t.thread_id for t in scenario.turns if t.thread_id)) or [None]


def _records(scenario: ScenarioResult, root: Path) -> list[dict[str, Any]]:
    """The run's turns as export_thread writes them with consent (redacted, text kept), oldest first.

    The stash the runner wrote at the end of the run is read when present: opening the project again
    would start its engine again (seconds per run; a suite has dozens of runs).
    """
    stash = root / STATE_DIR / STASH_FILE
    if stash.is_file():
        return [json.loads(text) for text in stash.read_text(encoding="utf-8").splitlines() if text]
    from jarvishub.project import Project

    with Project.open(root, follow_outputs=False) as project:
        return _exported(project, _threads(scenario))


def stash_records(project: Any, scenario: ScenarioResult) -> Path:
    """Write a finished run's turns to its project's stash while the project (and its engine) is open."""
    stash = project.state_dir / STASH_FILE
    records = _exported(project, _threads(scenario))
    stash.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return stash


def _exported(project: Any, threads: list[str | None]) -> list[dict[str, Any]]:
    from store.trajectories import TrajectoryStore

    trajectories = TrajectoryStore(project.state_dir / "trajectories.sqlite")
    records: dict[str, dict[str, Any]] = {}
    for thread in threads:
        for record in thread_records(project.store, trajectories, thread, consent=True):
            records.setdefault(str(record.get("turn_id")), record)
    return list(records.values())


def _line(record: dict[str, Any], scenario: ScenarioResult, licence: str,
          withhold: Withholder | None) -> dict[str, Any]:
    scripted = _scripted(scenario, str(record.get("turn_id")))
    if scripted is not None:
        record["metrics"] = scripted.metrics.model_dump(mode="json")
    if withhold is not None:
        record = withhold(record)
    # From the record as it is written: without consent its node ids and hashes are the export's stand-ins.
    made = media_of(record, licence)
    # Added after withholding: these are the suite's own words (names, tags), never the user's.
    return {"agent": scenario.agent, "scenario": scenario.name, "workflow": scenario.workflow,
            "turn_index": scripted.index if scripted else None, "turn_kind": scripted.kind if scripted else None,
            **record, "metrics": record.get("metrics"), "media": made}


def _scripted(scenario: ScenarioResult, turn_id: str) -> TurnResult | None:
    return next((t for t in scenario.turns if turn_id in t.turn_ids), None)


def media_of(record: dict[str, Any], licence: str) -> list[dict[str, Any]]:
    """The media nodes a turn record's canvas diff created or versioned, each with its origin and licence."""
    diff = record.get("canvas_diff") or {}
    nodes = [*(diff.get("added_nodes") or []), *(pair[1] for pair in diff.get("changed_nodes") or [])]
    found = []
    for node in nodes:
        outputs = node.get("outputs") or []
        if not outputs or node.get("deleted"):
            continue
        made_by = (node.get("metadata") or {}).get("provenance") or {}
        origin, terms = origin_of(made_by, licence)
        found.append({"node_id": node.get("id"), "kind": node.get("kind"), "version": node.get("version"),
                      "tool": made_by.get("tool"), "provider": made_by.get("provider"), "model": made_by.get("model"),
                      "origin": origin, "licence": terms,
                      "sha256": [o.get("sha256") for o in outputs if isinstance(o, dict)]})
    return found


def origin_of(provenance: dict[str, Any], licence: str) -> tuple[str, str]:
    """(origin, licence text) of a media node from its provenance."""
    provider = provenance.get("provider")
    actor = str(provenance.get("actor") or "")
    if provider in OWN_RENDERERS:
        return "jarvishub", licence
    if provider:
        model = provenance.get("model") or "unnamed model"
        return "provider", f"provider-generated by {provider} ({model}): the terms of {provider} apply"
    if actor.startswith("person"):
        return "person", "supplied by a person: their rights apply"
    if provenance.get("tool"):
        return "jarvishub", licence  # a JarvisHub tool that calls no media provider (pages, decks, screenshots)
    return "unknown", "origin not recorded: treat as all rights reserved"


# -- the card ------------------------------------------------------------------------------------------------
def _card(results: Results, lines: Path, consent: bool, licence: str, line_keys: list[str], step_keys: list[str],
          media: list[dict[str, Any]], runs: list[dict[str, Any]]) -> dict[str, Any]:
    providers = Counter((m["provider"], m["model"]) for m in media if m["origin"] == "provider")
    origins = Counter(m["origin"] for m in media)
    return {
        "format": DATASET_FORMAT,
        "name": "JarvisHub evaluation trajectories",
        "created_at": utc_now(),
        "source": {"results_schema": results.schema_name, "model": results.model, "agents": results.agent_names(),
                   "jarvishub_version": results.jarvishub_version, "started_at": results.started_at,
                   "finished_at": results.finished_at},
        "files": {LINES_FILE: {"lines": sum(r["lines"] for r in runs),
                               "sha256": hashlib.sha256(lines.read_bytes()).hexdigest()}},
        "consent": {"status": "consented" if consent else "withheld", "text": CONSENTED if consent else WITHHELD},
        "line_schema": {key: LINE_FIELDS.get(key, _UNDESCRIBED) for key in line_keys},
        "step_schema": {key: STEP_FIELDS.get(key, _UNDESCRIBED) for key in step_keys},
        "metrics": dict(METRICS),
        "licence": {
            "jarvishub_media": {"licence": licence, "nodes": origins["jarvishub"],
                                "text": "Made by JarvisHub's own renderers and tools (providers "
                                        f"{', '.join(sorted(OWN_RENDERERS))}, or no media provider); licensed "
                                        f"{licence} like JarvisHub itself."},
            "provider_media": [{"provider": provider, "model": model, "nodes": count,
                                "terms": f"provider-generated: the terms of {provider} apply"}
                               for (provider, model), count in sorted(providers.items(), key=str)],
            "person_media": {"nodes": origins["person"], "text": "supplied by a person: their rights apply"},
            "unknown_media": {"nodes": origins["unknown"], "text": "origin not recorded: all rights reserved"},
        },
        "runs": runs,
    }


def card_markdown(card: dict[str, Any]) -> str:
    """The dataset card as a README."""
    licence = card["licence"]
    source = card["source"]
    out = [f"# {card['name']}", "",
           f"Trajectories of a JarvisHub evaluation run (`jarvishub eval`, model `{source['model']}`, agents "
           f"{', '.join(source['agents'])}, JarvisHub {source['jarvishub_version']}), one JSON object per turn in "
           f"`{LINES_FILE}` ({card['files'][LINES_FILE]['lines']} lines). Format `{card['format']}`; the same card "
           "as data is `card.json`.", "",
           "## Consent", "", f"**{card['consent']['status']}** — {card['consent']['text']}.", "",
           "## Licence of the media", "",
           f"- Made by JarvisHub ({licence['jarvishub_media']['nodes']} media nodes): "
           f"{licence['jarvishub_media']['text']}"]
    for entry in licence["provider_media"]:
        out.append(f"- **Provider-generated** by `{entry['provider']}` (model `{entry['model']}`, {entry['nodes']} "
                   f"media nodes): {entry['terms']}; flagged per node in `media[].origin = \"provider\"`.")
    if not licence["provider_media"]:
        out.append("- No media in this dataset was made by an external provider.")
    for key, label in (("person_media", "Supplied by people"), ("unknown_media", "Of unrecorded origin")):
        if licence[key]["nodes"]:
            out.append(f"- {label} ({licence[key]['nodes']} media nodes): {licence[key]['text']}.")
    out += ["", "Media bytes are not in the lines: they are referenced by sha256 (the artifacts of the run's "
            "project).", "", "## A line", "", "| key | meaning |", "|---|---|"]
    out += [f"| `{k}` | {v} |" for k, v in card["line_schema"].items()]
    out += ["", "A step (`steps[]`):", "", "| key | meaning |", "|---|---|"]
    out += [f"| `{k}` | {v} |" for k, v in card["step_schema"].items()]
    out += ["", "## Metrics", "", "| metric | definition |", "|---|---|"]
    out += [f"| `{k}` | {v} |" for k, v in card["metrics"].items()]
    out += ["", "## Runs", "", "| scenario | workflow | agent | lines |", "|---|---|---|---|"]
    out += [f"| {r['scenario']} | {r['workflow']} | {r['agent']} | {r['lines']}"
            f"{' (skipped: ' + r['skipped'] + ')' if r.get('skipped') else ''} |" for r in card["runs"]]
    return "\n".join(out) + "\n"
