"""An output's versions, read from the canvas: what each one changed, which is current, which came when.

An *output* (shot 3's image, the cut, a page, a note) is every node of one ``VERSION_OF`` tree, and every
content state each of those nodes went through (a node edited in place, like a note or a shot's inputs, keeps
its earlier states in the store's node history).  :func:`output_history` numbers those states 1..n in the order
they were made and says, for each, which state it *replaced* (the one that was current when it was made), what
it changed against that one, which turn (and request) made it, and whether it is a restored copy of an earlier
one.  The chain of replaced states from the current version back to the original is the output's history as a
person saw it; rejected candidates (an exploration's losers) are versions too, but never on that chain.

The selectors a person uses ("the original", "version 2", "before the neon change", "yesterday") resolve
against that history here (:func:`select_version`), and answer with a typed error the model sees when no
such version exists.  Everything here only reads; :mod:`tools.restore` makes the writes.
"""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta
from typing import Any

from pydantic import BaseModel, Field, model_validator

from store.base import CanvasReader
from store.errors import NodeNotFound
from store.models import CanvasNode, Direction, EdgeType, NodeStatus
from tools.base import ToolError


class NoSuchVersion(ToolError):
    """The output has no version that answers the request (no version 7, nothing before the first change, ...)."""


class NotAVersionOf(ToolError):
    """A node named as a version of an output belongs to another output's lineage."""


class UnknownTime(ToolError):
    """A time given in words that the version tools cannot read."""


class OutputVersion(BaseModel):
    """One version of an output: one content state of one node of its ``VERSION_OF`` lineage."""

    number: int = Field(description="1 for the original, then in the order the versions were made")
    node_id: str
    node_version: int = Field(description="The node's own version counter at this state (in-place edits raise it)")
    kind: str
    title: str
    status: str = Field(description="The node's status now (a replaced version is 'rejected', reason 'superseded')")
    status_reason: str | None = None
    current: bool = Field(description="Whether this is the output's current version")
    at: str = Field(description="When this version was made (ISO 8601, UTC)")
    canvas_version: int = Field(description="The canvas version that made it")
    replaced: int | None = Field(default=None, description="The version that was current when this one was made")
    restored_from: int | None = Field(default=None, description="For a restore: the version whose content it is")
    tool: str | None = None
    actor: str | None = None
    turn_id: str | None = None
    request: str | None = Field(default=None, description="The words of the turn that made it, when recorded")
    changes: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="What differs from the version it replaced: field -> {before, after}")
    sha256: str | None = Field(default=None, description="Its artifact, when it has one")


class OutputHistory(BaseModel):
    """Every version of one output, numbered, with the state each one holds."""

    output: str = Field(description="The output's name: the title of its original version")
    root_id: str
    versions: list[OutputVersion]
    states: dict[int, CanvasNode] = Field(default_factory=dict, exclude=True, repr=False)

    @property
    def current(self) -> OutputVersion | None:
        """The current version (None when every version was set aside)."""
        return next((v for v in self.versions if v.current), None)

    def version(self, number: int) -> OutputVersion:
        """Version ``number``, or :class:`NoSuchVersion`."""
        if not 1 <= number <= len(self.versions):
            raise NoSuchVersion(f"{self.output} has versions 1 to {len(self.versions)}; there is no version {number}")
        return self.versions[number - 1]

    def of_node(self, node_id: str) -> OutputVersion:
        """The latest version a node of this lineage holds, or :class:`NotAVersionOf`."""
        held = [v for v in self.versions if v.node_id == node_id]
        if not held:
            raise NotAVersionOf(f"node {node_id} is not a version of {self.output} ({self.root_id}); "
                                f"list its versions with list_versions")
        return held[-1]

    def state(self, number: int) -> CanvasNode:
        """The node as it was at version ``number`` (inputs, outputs and title as then)."""
        return self.states[number]

    def chain(self) -> list[OutputVersion]:
        """The versions the output went through as its current one, newest first: the current version, the one
        it replaced, and so on back to the original (empty when every version was set aside)."""
        found: list[OutputVersion] = []
        here = self.current
        while here is not None and here not in found:
            found.append(here)
            here = self.versions[here.replaced - 1] if here.replaced else None
        return found

    def summary(self) -> dict[str, Any]:
        """The JSON form tools hand the model."""
        current = self.current
        return {"output": self.output, "root_id": self.root_id, "current": current.number if current else None,
                "versions": [v.model_dump(mode="json", exclude_none=True) for v in self.versions]}


# -- reading the history ------------------------------------------------------------------------

def output_of(canvas: CanvasReader, node_id: str) -> str:
    """The root (original version) of the output a node belongs to (one read; ``NodeNotFound`` if unknown)."""
    return outputs_of(canvas, [node_id])[node_id]


def outputs_of(canvas: CanvasReader, node_ids: list[str]) -> dict[str, str]:
    """:func:`output_of` of several nodes, in one read."""
    older = canvas.lineages(list(dict.fromkeys(node_ids)), [EdgeType.VERSION_OF], Direction.OUT, with_start=True)
    roots = {}
    for node_id in node_ids:
        if not older.get(node_id):
            raise NodeNotFound(node_id)
        roots[node_id] = max(older[node_id], key=lambda e: e.depth).node.id
    return roots


def output_history(canvas: CanvasReader, node_id: str) -> OutputHistory:
    """Every version of the output ``node_id`` belongs to, oldest first (``NodeNotFound`` for an unknown id)."""
    root_id = output_of(canvas, node_id)
    tree = canvas.lineages([root_id], [EdgeType.VERSION_OF], Direction.IN, with_start=True)[root_id]
    members = {e.node.id: e.depth for e in tree}
    live = {e.node.id: e.node for e in tree}
    parents = {i: [n.node.id for n in found if n.node.id in members]
               for i, found in canvas.neighbours_of(list(members), [EdgeType.VERSION_OF], Direction.OUT).items()}
    histories = canvas.node_histories(list(members))  # type: ignore[attr-defined]
    head = _head(live, members)
    states: list[tuple[int, str, CanvasNode]] = []
    for member, snapshots in histories.items():
        previous: tuple[Any, ...] | None = None
        for snapshot in snapshots or [live[member]]:
            content = _content(snapshot)
            if content != previous:
                states.append((snapshot.canvas_version, snapshot.created_at, snapshot))
            previous = content
    states.sort(key=lambda s: (s[0], s[1], s[2].id))
    turns = _turn_requests(canvas)
    versions: list[OutputVersion] = []
    numbered: dict[int, CanvasNode] = {}
    last_of: dict[str, list[OutputVersion]] = {}
    for number, (made_at_version, _, state) in enumerate(states, start=1):
        replaced = _replaced(state, last_of, parents, made_at_version)
        node = live[state.id]
        restored = (state.metadata.get("restored") or {}) if _is_first(state, last_of) else {}
        versions.append(OutputVersion(
            number=number, node_id=state.id, node_version=state.version, kind=state.kind, title=state.title,
            status=node.status.value, status_reason=node.metadata.get("status_reason"), current=False,
            at=state.updated_at or state.created_at, canvas_version=made_at_version,
            replaced=replaced.number if replaced else None,
            restored_from=_restored_number(restored, last_of),
            tool=state.provenance.tool, actor=state.provenance.actor,
            turn_id=state.provenance.turn_id if _is_first(state, last_of) else None,
            request=_request_of(state, made_at_version, turns, first=_is_first(state, last_of)),
            changes=changes_between(numbered[replaced.number] if replaced else None, state),
            sha256=state.outputs[0].sha256 if state.outputs else None))
        numbered[number] = state
        last_of.setdefault(state.id, []).append(versions[-1])
    if head is not None and head.id in last_of:
        last_of[head.id][-1].current = True
    title = numbered[1].title if numbered else live[root_id].title
    return OutputHistory(output=title or root_id, root_id=root_id, versions=versions, states=numbered)


def _head(live: dict[str, CanvasNode], depth: dict[str, int]) -> CanvasNode | None:
    """The newest version that is not set aside (the rule of :func:`tools.versions.head_of`)."""
    standing = [n for n in live.values() if n.status != NodeStatus.REJECTED and not n.deleted]
    return max(standing, key=lambda n: (depth[n.id], n.created_at)) if standing else None


def _content(node: CanvasNode) -> tuple[Any, ...]:
    return (node.title, _canonical(node.inputs), tuple(h.sha256 for h in node.outputs), node.deleted)


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _canonical(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_canonical(v) for v in value)
    return value


def _is_first(state: CanvasNode, seen: dict[str, list[OutputVersion]]) -> bool:
    return state.id not in seen


def _replaced(state: CanvasNode, seen: dict[str, list[OutputVersion]], parents: dict[str, list[str]],
              made_at: int) -> OutputVersion | None:
    """The version current when this state was made: the node's previous state, or (for a node's first state)
    the state its VERSION_OF parent held just before."""
    if state.id in seen:
        return seen[state.id][-1]
    for parent in parents.get(state.id, []):
        earlier = [v for v in seen.get(parent, []) if v.canvas_version < made_at]
        if earlier:
            return earlier[-1]
    return None


def _restored_number(restored: dict[str, Any], seen: dict[str, list[OutputVersion]]) -> int | None:
    source = seen.get(str(restored.get("from") or ""))
    if not source:
        return None
    wanted = int(restored.get("from_node_version") or source[-1].node_version)
    held = [v for v in source if v.node_version <= wanted]
    return (held or source)[-1].number


def _turn_requests(canvas: CanvasReader) -> list[dict[str, Any]]:
    turns = getattr(canvas, "turns", None)
    return list(turns()) if turns is not None else []


def _request_of(state: CanvasNode, made_at: int, turns: list[dict[str, Any]], *, first: bool) -> str | None:
    """The words of the turn that made a state: its creating turn, or the recorded turn whose span holds it."""
    if first and state.provenance.turn_id:
        found = [t for t in turns if t.get("id") == state.provenance.turn_id]
        if found:
            return str(found[0].get("request") or "") or None
    spans = [t for t in turns if int(t.get("canvas_before") or 0) < made_at <= int(t.get("canvas_after") or 0)]
    return str(spans[0].get("request") or "") or None if len(spans) == 1 else None


def changes_between(before: CanvasNode | None, after: CanvasNode) -> dict[str, dict[str, Any]]:
    """Field by field, what differs between two states of an output: title, inputs (flattened with dots), and
    the artifact; empty for an original (nothing before it)."""
    if before is None:
        return {}
    changed: dict[str, dict[str, Any]] = {}
    if before.title != after.title:
        changed["title"] = {"before": before.title, "after": after.title}
    old, new = _flatten(before.inputs), _flatten(after.inputs)
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key) and not key.startswith("intent"):
            changed[f"inputs.{key}"] = {"before": old.get(key), "after": new.get(key)}
    old_sha = before.outputs[0].sha256 if before.outputs else None
    new_sha = after.outputs[0].sha256 if after.outputs else None
    if old_sha != new_sha:
        changed["artifact"] = {"before": old_sha, "after": new_sha}
    return changed


def _flatten(value: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, dict) and item:
            flat.update(_flatten(item, name + "."))
        else:
            flat[name] = item
    return flat


# -- choosing a version ---------------------------------------------------------------------------

class VersionSelector(BaseModel):
    """Which version to go back to: exactly one of these."""

    version: int | None = Field(default=None, ge=1, description="A version number, as list_versions shows them")
    version_id: str | None = Field(default=None, description="The node id of a version of this output")
    original: bool = Field(default=False, description="The output's first version")
    before_change: str | None = Field(
        default=None, max_length=200,
        description="Words naming a change ('neon', 'the close-up'): the version before the latest change that "
                    "matches them (matched against what each version changed and the request that made it)")
    at: str | None = Field(
        default=None, max_length=80,
        description="A time: the version that was current then. ISO 8601 ('2025-03-01T14:00'), 'yesterday', "
                    "'this morning', 'this afternoon', 'last night', '2 hours ago', '3 days ago'")

    @model_validator(mode="after")
    def _exactly_one(self) -> VersionSelector:
        chosen = [name for name in ("version", "version_id", "before_change", "at")
                  if getattr(self, name) is not None] + (["original"] if self.original else [])
        if len(chosen) != 1:
            raise ValueError("give exactly one of version, version_id, original, before_change, at "
                             f"(got {', '.join(chosen) or 'none'})")
        return self


def select_version(history: OutputHistory, selector: VersionSelector, *, now: datetime | None = None
                   ) -> tuple[OutputVersion, str]:
    """The version a selector names, and how it was found (for the reply); :class:`NoSuchVersion` when none."""
    if selector.version is not None:
        return history.version(selector.version), f"version {selector.version}"
    if selector.version_id is not None:
        found = history.of_node(selector.version_id)
        return found, f"version {found.number} (node {selector.version_id})"
    if selector.original:
        return history.versions[0], "the original (version 1)"
    if selector.before_change is not None:
        return version_before_change(history, selector.before_change)
    when = parse_when(str(selector.at), now=now)
    return version_at(history, when), f"the version current at {when.isoformat(timespec='minutes')}"


def previous_version(history: OutputHistory, steps: int = 1) -> OutputVersion:
    """The version ``steps`` changes back along the output's history (1: the one the current version replaced)."""
    chain = history.chain()
    if not chain:
        raise NoSuchVersion(f"{history.output} has no current version (every version was set aside); "
                            f"revert it to a version number instead")
    if steps >= len(chain):
        if len(chain) == 1:
            raise NoSuchVersion(f"{history.output} has not changed since it was made: version {chain[0].number} is "
                                f"the only one in its history, so there is no change to undo")
        raise NoSuchVersion(f"{history.output} has only {len(chain) - 1} earlier version(s) in its history "
                            f"({', '.join(str(v.number) for v in chain[1:])}); cannot go back {steps}")
    return chain[steps]


_STOP = frozenset("""a an the this that these those it its to of on in at for from with and or but was were is be been
before after change changes changed changing edit edits edited version versions one we i you he she they me us made
make did do done went go got get gave give when where which what back undo revert reverted restore there then
than shot shots image images picture clip clips cut page slide deck please last my set""".split())
"""Words that name no change ("before the change we made to the shot"): left out of a change's description."""


def change_words(version: OutputVersion, *, old_values: bool = False) -> set[str]:
    """The words a version's change can be named by (as :func:`stems`): the changed fields, their new values (with
    ``old_values``, the values they replaced too), and the words of the request that made it."""
    words: set[str] = set()
    for field, change in version.changes.items():
        if field == "artifact":
            continue
        words |= stems(field.replace("inputs.", "").replace(".", " ").replace("_", " "))
        for value in (change.get("after"), change.get("before") if old_values else None):
            words |= stems(text_of(value))
    words |= stems(version.request or "")
    if version.restored_from:
        words |= stems("restore restored revert reverted undo")
    return words


def description_words(description: str) -> set[str]:
    """The content words of a change's description (as :func:`stems`): what every match must contain."""
    return stems(description) - stems(" ".join(_STOP))


def describes(description: str, words: set[str]) -> bool:
    """Whether every content word of ``description`` is among a change's ``words`` (both as :func:`stems`); a
    description with no content word describes nothing."""
    wanted = description_words(description)
    return bool(wanted) and wanted <= words


def version_before_change(history: OutputHistory, description: str) -> tuple[OutputVersion, str]:
    """The version before the latest change whose words match ``description`` (every content word must)."""
    if not description_words(description):
        raise NoSuchVersion(f"{description!r} does not say which change; name what it changed (e.g. 'neon', "
                            f"'close-up') or give a version number")
    changed = [v for v in history.versions if v.replaced is not None]
    # "The neon change" is the change that made it neon; only when no change did is it one that undid neon.
    for old_values in (False, True):
        for version in reversed(changed):
            if describes(description, change_words(version, old_values=old_values)):
                before = history.version(int(version.replaced))  # type: ignore[arg-type]
                said = f" ({version.request!r})" if version.request else ""
                return before, (f"the version before the change that made version {version.number}{said}: "
                                f"version {before.number}")
    listed = "; ".join(f"version {v.number}: {', '.join(sorted(v.changes)) or 'no input change'}"
                       + (f" ({v.request!r})" if v.request else "") for v in changed[-8:])
    raise NoSuchVersion(f"no change to {history.output} matches {description!r}"
                        + (f"; its changes: {listed}" if listed else "; it has never changed"))


def version_at(history: OutputHistory, when: datetime) -> OutputVersion:
    """The version that was current at ``when`` (the newest on the output's history made by then)."""
    instant = when.astimezone()
    for version in history.chain():
        if datetime.fromisoformat(version.at).astimezone() <= instant:
            return version
    first = datetime.fromisoformat(history.versions[0].at).astimezone() if history.versions else None
    made = f"; its first version was made {first.isoformat(timespec='minutes')}" if first else ""
    raise NoSuchVersion(f"{history.output} did not exist yet at {instant.isoformat(timespec='minutes')}{made}")


_AGO = re.compile(r"^(?:(\d+|an?|one|two|three|four|five|six|ten|twenty)\s+)?(minute|hour|day|week)s?\s+ago$")
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10, "twenty": 20}
_PARTS = {"morning": time(12), "afternoon": time(17), "evening": time(21), "night": time(23, 59, 59)}


def parse_when(text: str, *, now: datetime | None = None) -> datetime:
    """A point in time from words or ISO 8601, in local time.

    A period means its end, so "this morning" is the state at noon (or now, if earlier), "yesterday" the
    state at the end of yesterday, "last night" the state at midnight; a date alone is the end of that day.
    """
    now = now if now is not None and now.tzinfo is not None else (now or datetime.now()).astimezone()
    said = " ".join(text.lower().replace(",", " ").split()).removeprefix("at ").removeprefix("as of ")
    said = said.removeprefix("how it was ").removeprefix("the way it was ")
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)

    def end_of(day: datetime, part: str | None = None) -> datetime:
        if part is None:
            return day + timedelta(days=1) - timedelta(microseconds=1)
        return day.replace(hour=_PARTS[part].hour, minute=_PARTS[part].minute, second=_PARTS[part].second)

    if said in ("yesterday", "yesterday evening", "yesterday night"):
        return end_of(today - timedelta(days=1))
    if said.startswith("yesterday ") and said.split(" ", 1)[1] in _PARTS:
        return end_of(today - timedelta(days=1), said.split(" ", 1)[1])
    if said in ("last night", "this night"):
        return today
    if said.startswith("this ") and said[5:] in _PARTS:
        return min(now, end_of(today, said[5:]))
    if said in ("today", "earlier today", "the start of today", "start of today"):
        return today
    if said in ("last week", "a week ago"):
        return now - timedelta(weeks=1)
    ago = _AGO.match(said)
    if ago:
        count = ago.group(1) or "1"
        amount = int(count) if count.isdigit() else _NUMBERS[count]
        return now - timedelta(**{f"{ago.group(2)}s": amount})
    raw = text.strip()
    for prefix in ("at ", "as of "):
        raw = raw[len(prefix):] if raw.lower().startswith(prefix) else raw
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError:
        raise UnknownTime(f"cannot read {text!r} as a time; use ISO 8601 ('2025-03-01T14:00'), 'yesterday', "
                          f"'this morning', 'this afternoon', 'last night', or 'N hours/days ago'") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=now.tzinfo)
    if "t" not in raw.lower() and ":" not in raw:  # a date alone: the end of that day
        return end_of(parsed.replace(hour=0, minute=0, second=0, microsecond=0))
    return parsed


def stems(text: str) -> set[str]:
    """Lower-case words with a rough stem, so 'removing', 'removed', 'remove' and 'removal' meet, and 'deletion'
    meets 'deleted' (numbers left out): how a description of a change is matched against what the change did,
    for every kind of output."""
    return {_NOUNS_OF_VERBS.get(w) or re.sub(r"(?<=[a-z]{3})(ing|ed|es|s|e|ions?|als?)$", "", w)
            for w in re.findall(r"[a-z0-9#]+", text.lower()) if not w.isdigit()}


_NOUNS_OF_VERBS = {"addition": "add", "additions": "add", "added": "add", "adding": "add", "adds": "add"}
"""Stems the suffix rule cannot find ('addition' is not 'add' less a suffix)."""


def text_of(value: Any) -> str:
    """A stored value (a string, a list, a dict of them) as words: keys and values."""
    if isinstance(value, (list, tuple)):
        return " ".join(text_of(v) for v in value)
    if isinstance(value, dict):
        return " ".join(f"{k} {text_of(v)}" for k, v in value.items())
    return "" if value is None else str(value)


def require_output(canvas: CanvasReader, node_id: str) -> CanvasNode:
    """The node, or a :class:`ToolError` the model can act on (an unknown or deleted id)."""
    try:
        return canvas.get_node(node_id)
    except NodeNotFound as missing:
        raise ToolError(f"{missing}; pass the id of an output (an image, clip, cut, page, slide, deck or note)") \
            from missing
