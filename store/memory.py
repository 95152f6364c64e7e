"""Project memory: preferences and decisions that outlive a turn and a thread.

"prefer warm lighting", "the heroine's coat is red", "rejected: neon palette"
are kept behind LangGraph's :class:`~langgraph.store.base.BaseStore` interface
(:class:`MemoryStore`, the SQLite store of ``langgraph-checkpoint-sqlite`` on a
file of its own, ``<project>/.jarvishub/memory.sqlite``), so they survive the
process and are shared by every thread of the project.  :class:`ProjectMemory`
is the small API on top: ``add``, ``list``, ``forget``, ``params_for_generation``
and ``memory_lines`` (the items as the propose node shows them to the model).

Text is parsed deterministically when ``params`` are not given.  Phrases understood:

* the kind, from the start of the text: ``rejected:`` / ``reject`` / ``avoid`` /
  ``never`` / ``no`` / ``don't (use)`` make a *rejection*; ``prefer`` / ``I like``
  / ``I want`` / ``always`` / ``use`` / ``keep`` a *preference*; anything else
  (``decided: ...``, "the heroine's coat is red") a *decision*;
* lighting: a lighting word (``warm``/``golden``, ``cold``/``cool``,
  ``night``/``moonlit``, ``high-key``/``high key``, ``neutral``) next to
  ``light``, ``lighting``, ``lit``, ``mood``, ``tones``, ``look`` or ``grade``
  (or on its own after the kind word) → ``{"lighting": "warm"}``;
* palette: a name of :data:`NAMED_PALETTES` followed by ``palette``/``colours``
  → ``{"palette": [...], "palette_name": "sunset"}``; or ``palette`` with
  ``#rrggbb`` colours → ``{"palette": [...]}``;
* seed: ``seed 42`` → ``{"seed": 42}``;
* format: ``landscape`` / ``portrait`` / ``square`` → ``width`` and ``height``;
* a character's colour: ``<who>'s <thing> is <colour>`` or ``<who> wears a
  <colour> <thing>`` with a colour of :data:`COLOUR_NAMES` or ``#rrggbb`` →
  ``{"characters": {"heroine": {"coat": "#c0392b"}}}``;
* a rejection turns what it names into ``{"avoid": {"lighting": [...],
  "palette": [...]}}``.

Later items win over earlier ones: a preference for something drops an
earlier rejection of it, and a rejection drops an earlier preference.
"""

from __future__ import annotations

import asyncio
import builtins
import re
import sqlite3
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import Any, Self

from langgraph.store.base import BaseStore, Op, Result
from langgraph.store.sqlite import SqliteStore
from pydantic import BaseModel, Field

from store import postgres
from store.models import new_id, utc_now
from store.postgres import is_postgres_url

NAMESPACE: tuple[str, ...] = ("jarvishub", "memory")
MEMORY_FILE = "memory.sqlite"

NAMED_PALETTES: dict[str, list[str]] = {
    "sunset": ["#ff7e5f", "#feb47b", "#c0392b", "#6c3483"],
    "ocean": ["#0b3d91", "#3d85c6", "#76d7c4", "#1b4f72"],
    "forest": ["#1e5631", "#a4de02", "#4c9a2a", "#2d4221"],
    "pastel": ["#ffd1dc", "#cdeffd", "#e2f0cb", "#b5a1d6"],
    "earth": ["#8b5a2b", "#d2b48c", "#6b8e23", "#5d4037"],
    "monochrome": ["#202020", "#5a5a5a", "#9a9a9a", "#dadada"],
    "neon": ["#ff00ff", "#00ffff", "#39ff14", "#ff073a"],
    "noir": ["#0d0d0d", "#2e2e2e", "#8c8c8c", "#c9a227"],
}
"""Palettes known by name (memory phrases and explorations), four ``#rrggbb`` colours each."""

COLOUR_NAMES: dict[str, str] = {
    "red": "#c0392b", "crimson": "#a93226", "orange": "#e67e22", "yellow": "#f1c40f", "gold": "#d4ac0d",
    "green": "#27ae60", "teal": "#16a085", "blue": "#2980b9", "navy": "#1b2631", "purple": "#8e44ad",
    "pink": "#e91e63", "brown": "#8b5a2b", "black": "#1c1c1c", "white": "#ecf0f1", "grey": "#7f8c8d",
    "gray": "#7f8c8d", "silver": "#bdc3c7",
}
"""Colour words a memory may use for a character's look, and the ``#rrggbb`` each stands for."""

FORMATS: dict[str, tuple[int, int]] = {"landscape": (768, 512), "portrait": (512, 768), "square": (512, 512)}
"""Format words a memory may use, and the width and height each stands for."""

_LIGHTING_WORDS: tuple[tuple[str, str], ...] = (
    (r"high[- ]?key", "high-key"), (r"night(?:time)?|moonlit", "night"), (r"warm|golden", "warm"),
    (r"cold|cool", "cold"), (r"neutral", "neutral"),
)
_LIGHTING_CONTEXT = re.compile(r"\b(?:light|lighting|lit|mood|moods|tones?|toned|look|grade|grading)\b")
_REJECT = re.compile(r"^\s*(?:rejected|reject|avoid|never|no|don'?t(?:\s+use)?|do not(?:\s+use)?)\b\s*:?\s*",
                     re.IGNORECASE)
_PREFER = re.compile(r"^\s*(?:preferred|prefer|preference|i\s+(?:like|prefer|want)|always(?:\s+use)?|use|keep)\b"
                     r"\s*:?\s*",
                     re.IGNORECASE)
_DECIDE = re.compile(r"^\s*(?:decided|decision|decide)\b\s*:?\s*", re.IGNORECASE)
_HEX = re.compile(r"#[0-9a-fA-F]{6}\b")
_SEED = re.compile(r"\bseed\s*(?:=|:|of)?\s*(\d{1,18})\b")
_COLOUR = r"(?P<colour>#[0-9a-f]{6}|[a-z]+)"
_POSSESSIVE = re.compile(r"^(?:the\s+)?(?P<who>[a-z][\w\- ]*?)'s\s+(?P<what>[a-z][\w\- ]*?)\s+(?:is|are)\s+"
                         r"(?:a\s+|an\s+)?" + _COLOUR + r"\b")
_WEARS = re.compile(r"^(?:the\s+)?(?P<who>[a-z][\w\- ]*?)\s+(?:wears|has)\s+(?:a\s+|an\s+)?" + _COLOUR +
                    r"\s+(?P<what>[a-z][\w\-]*)\b")
_STYLE_TOOLS = frozenset({"generate_image", "generate_video"})


class MemoryKind(StrEnum):
    """What sort of thing is remembered."""

    PREFERENCE = "preference"
    DECISION = "decision"
    REJECTION = "rejection"


class MemoryItem(BaseModel):
    """One remembered preference, decision or rejection."""

    key: str = Field(description="Stable id (a ULID); `forget` takes it, or a unique start or end of it.")
    text: str
    kind: MemoryKind
    params: dict[str, Any] = Field(default_factory=dict, description="Concrete generation parameters it implies.")
    created_at: str = Field(default_factory=utc_now)

    def line(self) -> dict[str, Any]:
        """The item as the propose node shows it to the model: ``{key, text, kind, params}``."""
        return {"key": self.key, "text": self.text, "kind": self.kind.value, "params": self.params}


class UnknownMemory(KeyError):
    """No remembered item has this key (or the start or end given matches several)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown memory item"


class MemoryStore(SqliteStore):
    """LangGraph's SQLite ``BaseStore`` on a file of its own, safe to share between threads and processes.

    ``batch`` is the SQLite store's; ``abatch`` runs it on a worker thread (the upstream
    sync store refuses async calls), so async graphs and the web server can use it too.
    """

    def __init__(self, path: Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit (the store opens its own transactions); WAL and a busy timeout let
        # another process of the project read and write the same file meanwhile.
        conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        super().__init__(conn)
        self.path = path
        self.setup()

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` on a worker thread (the connection is shared under a lock), for async callers."""
        return await asyncio.to_thread(self.batch, list(ops))

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ProjectMemory:
    """What a project remembers across turns and threads, on any ``BaseStore``."""

    def __init__(self, store: BaseStore, namespace: tuple[str, ...] = NAMESPACE) -> None:
        self.store = store
        self.namespace = namespace
        self._owned: Any = None

    @classmethod
    def open(cls, state_dir: Path, url: str | None = None) -> ProjectMemory:
        """The memory of the project whose state folder is ``state_dir`` (``project.state_dir``); close it after.

        With a Postgres ``url`` (the project's ``JARVISHUB_CHECKPOINT_URL``) the items live in LangGraph's
        ``PostgresStore`` beside the checkpoints, so every process and machine using that database shares them;
        otherwise in ``memory.sqlite`` in the state folder.
        """
        if is_postgres_url(url):
            connection = postgres.connect(str(url))
            from langgraph.store.postgres import PostgresStore

            pg_store = PostgresStore(connection)
            pg_store.setup()
            memory = cls(pg_store)
            memory._owned = connection
            return memory
        store = MemoryStore(Path(state_dir) / MEMORY_FILE)
        memory = cls(store)
        memory._owned = store
        return memory

    def close(self) -> None:
        """Close the store if this object opened it."""
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    # -- items --------------------------------------------------------------------------
    def add(self, text: str, kind: MemoryKind | str | None = None, params: dict[str, Any] | None = None) -> MemoryItem:
        """Remember ``text``; kind and params are parsed from it when not given.

        Adding the same text again updates the existing item instead of repeating it: same key, the new
        kind and params, and it counts as said now (the latest item wins when items disagree).
        """
        text = " ".join(text.split())
        if not text:
            raise ValueError("nothing to remember: the text is empty")
        parsed_kind, parsed_params = parse_memory(text)
        item_kind = MemoryKind(kind) if kind else parsed_kind
        if params is None:
            params = parsed_params if item_kind is parsed_kind else parse_memory(text, item_kind)[1]
        existing = next((i for i in self.list() if i.text.lower() == text.lower()), None)
        item = MemoryItem(key=existing.key if existing else new_id(), text=text, kind=item_kind, params=params)
        self.store.put(self.namespace, item.key, item.model_dump(mode="json"), index=False)
        return item

    def get(self, key: str) -> MemoryItem:
        """One item by key, or by a unique start or end of it (4+ characters); else :class:`UnknownMemory`.

        Keys are ULIDs: items added in the same millisecond share their first 10 characters, so the
        random end is the handier thing to type.
        """
        found = self.store.get(self.namespace, key)
        if found is not None:
            return MemoryItem.model_validate(found.value)
        wanted = key.lower()
        matches = [i for i in self.list() if i.key.lower().startswith(wanted) or i.key.lower().endswith(wanted)
                   ] if len(key) >= 4 else []
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise UnknownMemory(f"{key!r} matches {len(matches)} memory items; give more of the key")
        raise UnknownMemory(f"nothing remembered under {key!r}; `jarvishub memory list` shows the keys")

    def list(self) -> list[MemoryItem]:
        """Every item, oldest first."""
        items: list[MemoryItem] = []
        page = 500
        while True:
            batch = self.store.search(self.namespace, limit=page, offset=len(items))
            items.extend(MemoryItem.model_validate(found.value) for found in batch)
            if len(batch) < page:
                break
        return sorted(items, key=lambda i: (i.created_at, i.key))

    def forget(self, key: str) -> MemoryItem:
        """Drop an item (by key, or a unique start or end of it) and return what was forgotten."""
        item = self.get(key)
        self.store.delete(self.namespace, item.key)
        return item

    # -- what it means for generation -----------------------------------------------
    def params_for_generation(self) -> dict[str, Any]:
        """Every item folded into one dict of generation parameters (later items win); see :func:`fold_params`."""
        return fold_params(item.params for item in self.list())

    def memory_lines(self, request: str = "", limit: int = 50) -> builtins.list[dict[str, Any]]:
        """The most recent ``limit`` items as ``{key, text, kind, params}`` dicts, for ``deps.extra["memory_lines"]``.

        ``request`` is the turn's request (the propose node's signature); memory is
        small, so every item is shown whatever the request says.
        """
        return [item.line() for item in self.list()[-limit:]]


# -- parsing -------------------------------------------------------------------------------
def parse_memory(text: str, kind: MemoryKind | None = None) -> tuple[MemoryKind, dict[str, Any]]:
    """The kind and generation params a memory's text states (see the module docstring for the phrases)."""
    lowered = " ".join(text.lower().replace("\u2019", "'").split())
    body = lowered
    found_kind = MemoryKind.DECISION
    for pattern, candidate in ((_REJECT, MemoryKind.REJECTION), (_PREFER, MemoryKind.PREFERENCE),
                               (_DECIDE, MemoryKind.DECISION)):
        match = pattern.match(lowered)
        if match:
            found_kind, body = candidate, lowered[match.end():]
            break
    kind = kind or found_kind
    params = _parse_body(body, bare=body != lowered)
    if kind is MemoryKind.REJECTION:
        avoid: dict[str, list[str]] = {}
        if "lighting" in params:
            avoid["lighting"] = [params["lighting"]]
        if "palette_name" in params:
            avoid["palette"] = [params["palette_name"]]
        return kind, ({"avoid": avoid} if avoid else {})
    return kind, params


def _parse_body(body: str, *, bare: bool) -> dict[str, Any]:
    params: dict[str, Any] = {}
    lighting = _lighting_in(body, bare=bare)
    if lighting:
        params["lighting"] = lighting
    palette_name = next((name for name in NAMED_PALETTES
                         if re.search(rf"\b{name}\b(?:\s+(?:palette|colou?rs?|colou?r scheme|tones?|look))", body)
                         or (bare and body.strip(" .") == name)), None)
    if palette_name:
        params["palette"] = list(NAMED_PALETTES[palette_name])
        params["palette_name"] = palette_name
    elif "palette" in body and _HEX.search(body):
        params["palette"] = [h.lower() for h in _HEX.findall(body)][:16]
    seed = _SEED.search(body)
    if seed:
        params["seed"] = int(seed.group(1))
    fmt = next((f for f in FORMATS if re.search(rf"\b{f}\b", body)), None)
    if fmt:
        params["width"], params["height"] = FORMATS[fmt]
    character = _POSSESSIVE.search(body) or _WEARS.search(body)
    if character:
        colour = _colour_hex(character.group("colour"))
        if colour:
            who = character.group("who").strip()
            params["characters"] = {who: {character.group("what").strip(): colour}}
    return params


def _lighting_in(body: str, *, bare: bool) -> str | None:
    context = bool(_LIGHTING_CONTEXT.search(body))
    for pattern, value in _LIGHTING_WORDS:
        alone = bare and re.fullmatch(rf"(?:{pattern})", body.strip(" ."))
        if re.search(rf"\b(?:{pattern})\b", body) and (context or alone):
            return value
    return None


def _colour_hex(word: str) -> str | None:
    if _HEX.fullmatch(word):
        return word.lower()
    return COLOUR_NAMES.get(word)


# -- folding and merging -----------------------------------------------------------------
def fold_params(items: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Fold items' params, oldest first, into one dict; later items win.

    Keys: ``lighting``, ``palette`` (+ ``palette_name``), ``seed``, ``width``/``height``,
    ``characters`` ({who: {thing: "#rrggbb"}}) and ``avoid`` ({"lighting": [...], "palette": [names]}).
    """
    out: dict[str, Any] = {}
    avoid: dict[str, list[str]] = {}
    characters: dict[str, dict[str, str]] = {}
    for params in items:
        for key in ("lighting", "seed", "width", "height"):
            if key in params:
                out[key] = params[key]
        if "lighting" in params:
            avoid["lighting"] = [v for v in avoid.get("lighting", []) if v != params["lighting"]]
        if "palette" in params:
            out["palette"] = list(params["palette"])
            out.pop("palette_name", None)
            if params.get("palette_name"):
                out["palette_name"] = params["palette_name"]
                avoid["palette"] = [v for v in avoid.get("palette", []) if v != params["palette_name"]]
        for who, look in (params.get("characters") or {}).items():
            characters.setdefault(who, {}).update(look)
        for what, values in (params.get("avoid") or {}).items():
            avoid[what] = list(dict.fromkeys([*avoid.get(what, []), *values]))
            if what == "lighting" and out.get("lighting") in values:
                out.pop("lighting")
            if what == "palette" and out.get("palette_name") in values:
                out.pop("palette")
                out.pop("palette_name")
    if characters:
        out["characters"] = characters
    avoid = {k: v for k, v in avoid.items() if v}
    if avoid:
        out["avoid"] = avoid
    return out


def merge_memory_params(memory: list[dict[str, Any]], args: dict[str, Any],
                        tool: str = "generate_image") -> dict[str, Any]:
    """Generation ``args`` with remembered params applied where the request did not say otherwise.

    ``memory`` is the list of ``{key, text, kind, params}`` dicts of :meth:`ProjectMemory.memory_lines`
    (``PlannerInput.memory``).  A key present in ``args`` (not ``None``; for ``palette`` not empty) is
    what the request said and is kept; so pass only what the request set, not schema defaults.
    Only ``generate_image`` and ``generate_video`` take style params: other tools' args come back unchanged.
    A remembered character look is added to the prompt as a hint when the prompt names the character
    and not the thing: "the heroine at the gate; the heroine's coat is red (#c0392b)".
    """
    if tool not in _STYLE_TOOLS:
        return dict(args)
    remembered = fold_params(line.get("params") or {} for line in memory)
    merged = dict(args)
    for key in ("lighting", "seed", "width", "height"):
        if merged.get(key) is None and key in remembered:
            merged[key] = remembered[key]
    if not merged.get("palette") and remembered.get("palette"):
        merged["palette"] = list(remembered["palette"])
    prompt = merged.get("prompt")
    if isinstance(prompt, str) and prompt:
        hints = [f"the {who}'s {thing} is {_colour_word(colour)} ({colour})"
                 for who, look in (remembered.get("characters") or {}).items()
                 if re.search(rf"\b{re.escape(who)}\b", prompt, re.IGNORECASE)
                 for thing, colour in look.items() if not re.search(rf"\b{re.escape(thing)}\b", prompt, re.IGNORECASE)]
        if hints:
            merged["prompt"] = (prompt + "; " + "; ".join(hints))[:4000]
    return merged


def _colour_word(colour: str) -> str:
    return next((name for name, value in COLOUR_NAMES.items() if value == colour), "colour")
