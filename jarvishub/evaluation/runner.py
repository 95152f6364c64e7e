"""The runner: each scenario in a fresh project, each turn as a person would give it, then its checks and metrics.

A turn goes to the agent's ``run`` (``via = "cli"``), to the web canvas API of a
real server on loopback (``via = "web"``: ``POST /api/requests`` with the token,
the job awaited through ``GET /api/jobs/{id}``), or to a child process that is
SIGKILLed after N recorded steps and then resumed here (``crash_after_steps``).
A ``person`` turn is no request at all: a person's own edit on the web canvas (reject, restore, or a change
of a node's inputs through ``POST /api/nodes/{id}/...``), between agent turns.  Turns name a ``session``
(each its own thread); ``restart`` closes the agent and stops the canvas engine before a turn, then opens
the project again, as a new sitting in a new process would.
An interrupt is answered with the turn's ``answer`` (approve / reject / a
reference), as ``jarvishub resume`` would.  Metrics come from the project's
trajectory store and commits (:mod:`jarvishub.evaluation.metrics`).

Media are the skills' defaults (512x288 shot images, 2 s clips at 12 fps, a
1280x800 page preview): no project setting sets a default media size and the
offline planner passes none, and the offline renderers make a 6-shot film in a
few seconds, so the suite runs as a user's project would.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jarvishub.evaluation.agents import AgentKind, ModelName, make_agent
from jarvishub.evaluation.chaos import FALSE_CLAIM_TEXT, out_of_grant_changes, remember_project_ids, turn_result
from jarvishub.evaluation.checks import (
    ReferenceNotFound,
    TurnEvidence,
    resolve_nodes,
    run_check,
    targeted_nodes,
)
from jarvishub.evaluation.metrics import commits_of, turn_metrics
from jarvishub.evaluation.outputs import Canvas, invariants
from jarvishub.evaluation.results import ScenarioResult, TurnResult
from jarvishub.evaluation.scenario import Scenario, Turn
from jarvishub.project import DEFAULT_PROJECT_FILE, Project
from jarvishub.settings import PROJECT_FILE, STATE_DIR
from store.lifecycle import stop_engine
from store.models import new_id, utc_now

Progress = Callable[[str], None]

MAX_ANSWERS = 3
"""Interrupts one scripted turn may answer before the runner stops answering (a loop would be a defect)."""
WEB_TURN_TIMEOUT_S = 600.0
CRASH_TIMEOUT_S = 600.0
CRASH_LATENCY_S = "0.3"
"""Offline generation latency in the crash child, so the kill lands mid-turn rather than after it."""


class TurnError(RuntimeError):
    """A scripted turn that could not be carried out as written (not a failed check: the run itself failed)."""


class _Outcome:
    """What the runner needs of a turn's end, from ``TurnOutcome`` or from a web job."""

    def __init__(self, outcome: str, interrupt: dict[str, Any] | None = None,
                 clarification: dict[str, Any] | None = None) -> None:
        self.outcome = outcome
        self.interrupt = interrupt
        self.clarification = clarification

    @classmethod
    def of(cls, turn: Any) -> _Outcome:
        return cls(turn.outcome, turn.interrupt, turn.clarification)


def project_file(scenario: Scenario, name: str) -> str:
    """The scenario project's project.toml: the default file plus the scenario's own config."""
    return DEFAULT_PROJECT_FILE.format(name=name) + ("\n" + scenario.project.config if scenario.project.config else "")


class Session:
    """One scenario running against one agent in its own project."""

    def __init__(self, scenario: Scenario, agent_kind: AgentKind, model: ModelName, project_dir: Path,
                 progress: Progress) -> None:
        self.scenario = scenario
        self.kind = agent_kind
        self.model = model
        self.dir = project_dir
        self.progress = progress
        if project_dir.exists():  # an earlier run's project: stop its engine (if still up) before removing it
            stop_engine(project_dir / STATE_DIR / "engine")
            shutil.rmtree(project_dir)
        project_dir.mkdir(parents=True)
        (project_dir / PROJECT_FILE).write_text(project_file(scenario, scenario.name))
        self.project = Project.init(project_dir)
        try:
            self.agent = make_agent(agent_kind, self.project, model)
        except BaseException:
            self.project.close()
            raise
        self.thread = new_id()
        self.sessions: dict[int, str] = {1: self.thread}
        self._server: Any = None
        self._token = ""

    def thread_for(self, turn: Turn) -> str:
        """The turn's thread: its session's (made on first use), the main thread, or a new one."""
        if turn.session is not None:
            return self.sessions.setdefault(turn.session, new_id())
        return self.thread if turn.same_thread else new_id()

    def restart(self) -> None:
        """A new sitting: the web server, the agent and the canvas engine stopped, the project opened again."""
        self._stop_server()
        try:
            self.agent.close()
        finally:
            self.project.close()
            self.project.engine.stop()
        self.project = Project.open(self.dir)
        self.agent = make_agent(self.kind, self.project, self.model)
        self.progress("  restarted: agent closed, canvas engine stopped, project opened again")

    # -- the turn ------------------------------------------------------------------------
    def run_turn(self, index: int, turn: Turn) -> TurnResult:
        """Run one scripted turn, answer its interrupts, then measure and check it."""
        result = TurnResult(index=index, kind=turn.kind, request=turn.request, via=turn.via)
        if turn.restart:
            self.restart()
        store = self.project.store
        before = Canvas.read(store)
        thread = self.thread_for(turn)
        result.thread_id = thread
        known = self._started(thread)
        chaos = getattr(self.agent.model, "log", None)
        injected_before = len(chaos.entries) if chaos is not None else 0
        asked: list[dict[str, Any]] = []
        approvals = questions = 0
        recovered: bool | None = None
        try:
            targeted_ids = targeted_nodes(before, turn.targets) if turn.targets is not None else None
            selected = [n.id for ref in turn.selected for n in resolve_nodes(before, ref)]
            if turn.person is not None:
                outcome = self._person(turn, before)
            elif turn.crash_after_steps is not None:
                outcome = self._crash(turn, thread, selected, known)
            elif turn.via == "web":
                outcome = self._web(turn, thread, selected)
            else:
                outcome = _Outcome.of(self.agent.run(turn.request, thread_id=thread, profile=turn.profile,
                                                     selected=selected))
            while outcome.outcome == "interrupted" and turn.answer is not None and len(asked) < MAX_ANSWERS:
                interrupt = outcome.interrupt or {}
                asked.append(interrupt)
                if interrupt.get("type") == "approval":
                    approvals += 1
                else:
                    questions += 1
                outcome = _Outcome.of(self.agent.resume(thread, self._answer(interrupt, turn.answer)))
            if outcome.outcome == "interrupted":
                asked.append(outcome.interrupt or {})  # left waiting: the check sees what it asked
                if (outcome.interrupt or {}).get("type") == "clarification":
                    questions += 1
            if turn.crash_after_steps is not None:
                recovered = outcome.outcome == "replied" and not invariants(Canvas.read(store))
        except (ReferenceNotFound, TurnError, KeyError) as error:
            result.error = f"{type(error).__name__}: {error}"
            targeted_ids = None
            outcome = _Outcome("error")
        result.outcome = outcome.outcome
        new_ids = [t for t in self._started(thread) if t not in known]
        result.turn_ids = new_ids
        finished = [t for t in self.agent.trajectories.turns(thread) if t.get("turn_id") in new_ids]
        done = {t["turn_id"] for t in finished}
        open_steps = [s for t in new_ids if t not in done for s in self.agent.trajectories.steps(thread, t)]
        after = Canvas.read(store)
        keys = after.output_keys()  # the canvas after has every node before has: one naming for both
        targeted = {keys[i] for i in targeted_ids if i in keys} if targeted_ids is not None else None
        result.metrics = turn_metrics(finished, store.commits(), keys, targeted=targeted, questions_asked=questions,
                                      approvals=approvals, recovered=recovered, extra_steps=open_steps)
        result.result = turn_result(outcome.outcome, finished, open_steps)
        ledger = getattr(self.agent, "services", {}).get("spend")
        if ledger is not None:
            spent = [ledger.turn(t) for t in new_ids]
            if any(s.calls for s in spent):
                result.spend = {"calls": sum(s.calls for s in spent), "tokens_in": sum(s.tokens_in for s in spent),
                                "tokens_out": sum(s.tokens_out for s in spent),
                                "cost_usd": round(sum(s.cost_usd for s in spent), 6)}
        if chaos is not None:
            result.injected = [entry["kind"] for entry in chaos.entries[injected_before:]]
            result.claimed = bool(finished) and str(finished[-1].get("reply") or "").startswith(FALSE_CLAIM_TEXT)
            result.out_of_grant = [problem for t in finished for problem in out_of_grant_changes(store, t)]
        if result.error is None:
            evidence = TurnEvidence(
                before=before, after=after, outcome=outcome.outcome,
                steps=[*(s for t in finished for s in t.get("steps") or []), *open_steps], metrics=result.metrics,
                targeted=targeted, project_root=self.dir, read_bytes=self.project.artifacts.read_bytes,
                find_nodes=store.find_nodes, clarification=outcome.clarification, asked=asked)
            result.checks = [run_check(check, evidence) for check in turn.checks]
        return result

    def committed(self, turn: TurnResult) -> bool:
        """Whether a scripted turn's own actions committed anything to the canvas (its Turn record aside)."""
        return any(not str(c.get("action_id")).endswith("-record")
                   for c in commits_of(self.project.store.commits(), turn.turn_ids))

    def _started(self, thread: str) -> list[str]:
        """Turn ids started on a thread, in order (finished or not)."""
        return self.agent.trajectories.started_turns(thread)

    def _answer(self, interrupt: dict[str, Any], answer: str) -> Any:
        """The answer to an interrupt: an approval decision, or the id of what the reference names on the canvas
        (the candidate of the question that holds that node's or its shot's id, else the node's id)."""
        if interrupt.get("type") == "approval" or answer in ("approve", "reject"):
            return {"decision": answer}
        canvas = Canvas.read(self.project.store)
        nodes = resolve_nodes(canvas, answer)
        candidates = [c for c in interrupt.get("candidates") or [] if isinstance(c, dict)]
        # The candidates the reference names: a title two outputs share (a deck and its title slide) still picks
        # one, and a candidate named by an earlier version of the output (the id a chat transcript holds) is it.
        def names(candidate: dict[str, Any], node: Any) -> bool:
            values = {str(v) for v in candidate.values()}
            identity = canvas.identity(node.id)[0]
            return bool({node.id, identity.removeprefix("shot:")} & values) or any(
                v in canvas.nodes and canvas.identity(v)[0] == identity for v in values)

        picked = [c for c in candidates if any(names(c, n) for n in nodes)]
        if len(picked) == 1:
            return str(picked[0].get("id") or nodes[0].id)
        if len(nodes) != 1:
            raise TurnError(f"the answer {answer!r} names {len(nodes)} outputs and {len(picked)} of the question's "
                            "candidates; it must name exactly one")
        return nodes[0].id

    # -- through the web canvas ---------------------------------------------------------------
    def _person(self, turn: Turn, canvas: Canvas) -> _Outcome:
        """A person's own edit through the web API on the one output ``ref`` names; ``replied`` when the server
        did it, ``refused`` when it refused the edit itself (422: a field or value the node's tool does not take;
        what it said is the clarification's message); any other error is the turn's."""
        edit = turn.person
        assert edit is not None
        nodes = resolve_nodes(canvas, edit.ref)
        if len(nodes) != 1:
            raise TurnError(f"the person's {edit.action} names {len(nodes)} outputs ({edit.ref!r}); it must name one")
        base, node = self._web_server(), nodes[0].id
        path, body = {"reject": ("reject", {"reason": turn.request}), "restore": ("restore", {"version": edit.version}),
                      "edit": ("inputs", {"inputs": edit.inputs})}[edit.action]
        try:
            self._http("POST", f"{base}/api/nodes/{node}/{path}", body)
        except urllib.error.HTTPError as error:
            said = error.read().decode(errors="replace")[:400]
            if error.code == 422:  # the edit itself was refused (a value the generator does not take): nothing changed
                return _Outcome("refused", clarification={"reason": "invalid_inputs", "message": said})
            # Not tried again: a concurrent commit is run again by the server itself (409 only after it kept
            # conflicting), so any other answer is what a person would see and is the turn's error.
            raise TurnError(f"the web canvas refused the person's {edit.action} of {edit.ref!r} "
                            f"({error.code}): {said}") from error
        return _Outcome("replied")

    def _web(self, turn: Turn, thread: str, selected: list[str]) -> _Outcome:
        base = self._web_server()
        body = {"text": turn.request, "node_ids": selected, "thread_id": thread}
        job = self._http("POST", f"{base}/api/requests", body)
        deadline = time.monotonic() + WEB_TURN_TIMEOUT_S
        while job.get("finished_at") is None:
            if time.monotonic() > deadline:
                raise TurnError(f"the web job {job['id']} did not finish in {WEB_TURN_TIMEOUT_S:g} s")
            time.sleep(0.05)
            job = self._http("GET", f"{base}/api/jobs/{job['id']}")
        if job.get("status") == "failed":
            raise TurnError(f"the web job failed: {job.get('error')}")
        return _Outcome(str(job.get("outcome") or ""), job.get("interrupt"))

    def _web_server(self) -> str:
        if self._server is None:
            from jarvishub.web import BackgroundServer, create_app

            self._token = new_id()
            self._server = BackgroundServer(create_app(self.agent, self._token)).start()
            self.progress(f"  web canvas on {self._server.base_url}")
        return str(self._server.base_url)

    def _http(self, method: str, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method=method, headers={
            "Authorization": f"Bearer {self._token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return dict(json.loads(response.read()))

    # -- a crash and its resume -------------------------------------------------------------------
    def _crash(self, turn: Turn, thread: str, selected: list[str], known: list[str]) -> _Outcome:
        """Run the turn in a child process, SIGKILL it once N steps of the new turn are recorded, then resume."""
        command = [sys.executable, "-m", "jarvishub.evaluation.child", str(self.dir), self.kind, self.model, thread,
                   turn.request, json.dumps(selected), turn.profile or ""]
        # The child is killed mid-step, so it cannot remove its temporary files (a clip half encoded): it gets a
        # temporary folder of its own, removed here once it is dead, instead of leaving them in the user's.
        scratch = tempfile.TemporaryDirectory(prefix="jarvishub-crashed-turn-")
        env = {**os.environ, "JARVISHUB_GENERATION_OFFLINE_LATENCY_S": CRASH_LATENCY_S, "TMPDIR": scratch.name}
        child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        trajectories = self.agent.trajectories  # the same SQLite file the child records its steps in
        deadline = time.monotonic() + CRASH_TIMEOUT_S
        try:
            while True:
                recorded = sum(len(trajectories.steps(thread, t)) for t in trajectories.started_turns(thread)
                               if t not in known)
                if recorded >= (turn.crash_after_steps or 0):
                    os.kill(child.pid, signal.SIGKILL)
                    break
                if child.poll() is not None:
                    _, err = child.communicate()
                    raise TurnError(f"the turn ended (exit {child.returncode}) before {turn.crash_after_steps} "
                                    f"steps were recorded, so nothing was crashed: {err.strip()[-400:]}")
                if time.monotonic() > deadline:
                    raise TurnError(f"no {turn.crash_after_steps} steps within {CRASH_TIMEOUT_S:g} s")
                time.sleep(0.02)
        finally:
            if child.poll() is None:
                # Left running only when the wait above failed or was interrupted (a TurnError, Ctrl-C, SIGTERM):
                # the child is a turn run to be crashed, so it is stopped now rather than waited for.
                child.terminate()
                try:
                    child.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
            if child.stdout:
                child.stdout.close()
            if child.stderr:
                child.stderr.close()
            scratch.cleanup()
        self.progress(f"  killed the turn after {turn.crash_after_steps} steps (exit {child.returncode}); resuming")
        return _Outcome.of(self.agent.resume(thread))

    def _stop_server(self) -> None:
        if self._server is not None:
            server, self._server = self._server, None
            server.stop()

    def close(self, *, interrupted: bool = False) -> None:
        """Stop the web server (if one was started), the agent and the project's engine.

        The embedded engine would otherwise linger for its idle period (``JARVISHUB_ENGINE_IDLE_SECONDS``, 600 s
        by default) after its last user: a suite of 24 projects would leave 24 JVMs behind.  The scenario's
        project is finished with, so its engine is stopped now (a person opening it later starts it again).
        ``interrupted`` (Ctrl-C): the engine is sent its stop and not waited for, so the command ends at once.
        """
        try:
            self._stop_server()
            if getattr(self.agent.model, "log", None) is not None:  # ids another scenario's chaos may misuse
                remember_project_ids(self.project.store)
        finally:
            try:
                self.agent.close()
            finally:
                self.project.close()
                # an embedded server now; a Neo4j server is not ours to stop
                self.project.engine.stop(wait=not interrupted)


def run_scenario(scenario: Scenario, agent_kind: AgentKind, model: ModelName, out_dir: Path,
                 progress: Progress = lambda line: None, *, stash_trajectories: bool = False) -> ScenarioResult:
    """Run one scenario for one agent in ``out_dir/runs/AGENT/NAME``; never raises for a failing turn.

    ``stash_trajectories``: export the run's turns for the dataset before its engine stops
    (``jarvishub eval --export-trajectories``), so the export need not start it again.
    """
    run = ScenarioRun(scenario, agent_kind, model, out_dir, progress, stash_trajectories=stash_trajectories)
    try:
        if run.open():
            for index, turn in enumerate(scenario.turns):
                if not run.turn(index, turn):
                    break
    finally:
        result = run.close(interrupted=isinstance(sys.exc_info()[1], KeyboardInterrupt))
    return result


def run_paired(scenario: Scenario, agent_kinds: list[AgentKind], model: ModelName, out_dir: Path,
               progress: Progress = lambda line: None, *, stash_trajectories: bool = False,
               rotation: int = 0) -> list[ScenarioResult]:
    """Run one scenario for several agents turn by turn in this process (``jarvishub eval --paired``): turn N of
    every agent, then turn N + 1, who goes first rotating from turn to turn, starting ``rotation`` agents along
    (the suite passes each scenario's number: the first turn, a build, is the heaviest, and the agent that runs
    it first pays a cold start of its tools, which thus falls on each agent in turn across the suite).

    So each agent's turn is timed next to the others' same turn, under the same load on the machine and with the
    process's first-use costs (imports, a first browser) falling on each agent in turn: the wall-time comparison
    then measures the agents rather than the moment each ran.  Each run is the one :func:`run_scenario` makes (its
    own project and engine); its ``wall_s`` counts its own steps only.
    """
    runs = [ScenarioRun(scenario, kind, model, out_dir, progress, stash_trajectories=stash_trajectories)
            for kind in agent_kinds]
    try:
        going = [run for run in runs if run.open()]
        for index, turn in enumerate(scenario.turns):
            first = (index + rotation) % len(runs)
            for run in runs[first:] + runs[:first]:
                if run in going and not run.turn(index, turn):
                    going.remove(run)
    finally:
        interrupted = isinstance(sys.exc_info()[1], KeyboardInterrupt)
        results = [run.close(interrupted=interrupted) for run in runs]
    return results


def warm_up_paired(suite: list[Scenario], agent_kinds: list[AgentKind], model: ModelName, out_dir: Path,
                   progress: Progress = lambda line: None) -> float:
    """Before a paired suite: each workflow's first turn once for every agent, in scratch projects, unmeasured.

    Why: the paired agents share one process, and what a process pays once (the imports of a workflow's tools, the
    first Chromium it launches, the operating system's caches of both) fell on whichever agent ran that workflow's
    first build, a few tenths of a second to a second (measured by running the same page build canvas-first and
    chat-first: the first of the two took 2.7-3.2 s, the second 2.1-2.2 s, whichever agent it was).  Warmed up so,
    each scenario's turns compare the agents rather than who came first.  Every agent runs each workflow, so the
    warm-up favours none.  Returns its seconds (not counted in any run's wall time)."""
    started = time.monotonic()
    firsts = {scenario.workflow: scenario for scenario in reversed(suite) if scenario.turns}
    root = out_dir / "warm-up"
    try:
        for workflow, scenario in firsts.items():
            for kind in agent_kinds:
                began = time.monotonic()
                run = ScenarioRun(scenario, kind, model, root, lambda line: None)
                try:
                    if run.open():
                        run.turn(0, scenario.turns[0])
                finally:
                    run.close(interrupted=isinstance(sys.exc_info()[1], KeyboardInterrupt))
                progress(f"warm-up [{kind}] {workflow}: {scenario.name} turn 1, unmeasured "
                         f"({time.monotonic() - began:.1f} s)")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return time.monotonic() - started


class ScenarioRun:
    """One (scenario, agent) run in steps (open, each turn, close), so that several can be interleaved
    (:func:`run_paired`); never raises for a failing turn or a broken project, only for Ctrl-C."""

    def __init__(self, scenario: Scenario, agent_kind: AgentKind, model: ModelName, out_dir: Path,
                 progress: Progress, *, stash_trajectories: bool = False) -> None:
        self.scenario, self.kind, self.model, self.progress = scenario, agent_kind, model, progress
        self.stash = stash_trajectories
        self.project_dir = out_dir / "runs" / agent_kind / scenario.name
        self.result = ScenarioResult(name=scenario.name, workflow=scenario.workflow, agent=agent_kind,
                                     project_dir=str(self.project_dir.relative_to(out_dir)))
        self.session: Session | None = None
        self._spent = 0.0

    def open(self) -> bool:
        """Make the run's project and agent; False (and the error in the result) when that failed."""
        def session() -> None:
            self.session = Session(self.scenario, self.kind, self.model, self.project_dir, self.progress)

        return self._guarded(session)

    def turn(self, index: int, turn: Turn) -> bool:
        """Run one scripted turn and check it; False when the run broke (its later turns are not run)."""
        return self._guarded(lambda: self._turn(index, turn))

    def _guarded(self, step: Callable[[], None]) -> bool:
        """Run a step, its time counted as the run's; False when it broke (the error in the result)."""
        started = time.monotonic()
        try:
            step()
            return True
        except Exception as error:  # one broken scenario must not stop the suite; results.json says what broke
            self.result.error = f"{type(error).__name__}: {error}"
            self.progress(f"  [{self.kind}] {self.scenario.name}: ERROR {self.result.error}")
            return False
        finally:
            self._spent += time.monotonic() - started

    def _turn(self, index: int, turn: Turn) -> None:
        assert self.session is not None, "open() first"
        session, kind, name = self.session, self.kind, self.scenario.name
        t0 = time.monotonic()
        done = session.run_turn(index, turn)
        if done.claimed and not all(c.passed for c in done.checks):
            # A reply claimed work the commits show was not done.  Asked again with the same words, an agent
            # would do again what the first attempt committed (a second storyboard after half of the first):
            # only a turn that committed nothing is asked again; one that committed part of the work stays
            # failed, and the turns after it run off premise (jarvishub.evaluation.chaos.build_reports).
            if session.committed(done):
                self.progress(f"  [{kind}] {name} turn {index + 1}: the reply claimed work the commits do not "
                              "show, after committing part of it; not asking again (it would be done twice)")
            else:
                self.result.turns.append(done)
                self.progress(f"  [{kind}] {name} turn {index + 1}: the reply claimed work the commits do not "
                              "show, and nothing was committed; asking again")
                done = session.run_turn(index, turn).model_copy(update={"retry": True})
        self.result.turns.append(done)
        passed = sum(1 for c in done.checks if c.passed)
        failed = [c for c in done.checks if not c.passed]
        self.progress(f"  [{kind}] {name} turn {index + 1}/{len(self.scenario.turns)} {turn.kind}: "
                      f"{done.outcome}, checks {passed}/{len(done.checks)}, {time.monotonic() - t0:.1f} s"
                      + (f" — ERROR {done.error}" if done.error else "")
                      + "".join(f"\n      FAILED {c.name}: {c.detail}" for c in failed))

    def close(self, *, interrupted: bool = False) -> ScenarioResult:
        """Stash its trajectories (when asked), close its project and stop its engine; the finished result."""
        started = time.monotonic()
        kind, name = self.kind, self.scenario.name
        if self.session is not None:
            try:
                if self.stash and not interrupted:  # Ctrl-C: stop now, the run is given up
                    from jarvishub.evaluation.dataset import stash_records

                    stash_records(self.session.project, self.result)
            except Exception as error:  # the dataset export then opens the project itself
                self.progress(f"  [{kind}] {name}: trajectories not stashed ({type(error).__name__}: {error})")
            try:
                self.session.close(interrupted=interrupted)
            except Exception as error:
                self.result.error = self.result.error or \
                    f"closing the project failed: {type(error).__name__}: {error}"
        elif interrupted:  # Ctrl-C while the project opened: an engine it started would linger for its idle period
            stop_engine(self.project_dir / STATE_DIR / "engine", wait=False)
        self._spent += time.monotonic() - started
        self.result.wall_s = round(self._spent, 3)
        return self.result.finish()


def now() -> str:
    """The current time for results.json."""
    return utc_now()
