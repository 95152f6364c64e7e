// JarvisHub web canvas: draws the canvas from /api, follows /api/events, and sends a person's edits.
// Plain JS, no build step, nothing fetched from outside this server.
"use strict";

(() => {
  const $ = (selector) => document.querySelector(selector);
  const viewport = $("#viewport");
  const world = $("#world");
  const nodesLayer = $("#nodes");
  const groupsLayer = $("#groups");
  const edgeLayer = $("#edge-paths");
  const overview = $("#overview");

  const LOW_DETAIL_BELOW = 0.25; // zoom under which the canvas 2D overview replaces cards and edge paths
  const BATCH = 100; // node ids per /api/nodes request; more changed at once and the page reloads

  const state = {
    nodes: new Map(), // id -> node view (from the API)
    edges: new Map(), // id -> edge
    members: new Map(), // group node id -> member ids
    cards: new Map(), // id -> card element
    boxes: new Map(), // group node id -> box element
    picked: new Set(), // what the person selected
    info: null, // what /api/info answered, once read (lenses.js starts from it if it runs after)
    // The graph is built once this opens (lenses.js opens it when the graph is first shown). It is made here, not
    // in lenses.js, so that it is closed even when lenses.js runs after the info has arrived.
    graphGate: null,
    openGraph: null,
    hits: null, // ids the filter query returned, or null
    view: { x: 40, y: 40, k: 1 },
    card: { w: 180, h: 150 },
    version: 0,
    token: null,
    person: "",
    detailId: null,
    jobs: new Map(),
    timings: {},
    live: false,
    drawn: 0, // nodes the last overview frame drew
  };
  window.jarvishub = state; // for the tests and for poking around in devtools; lenses.js uses `state.api`

  // -- HTTP ------------------------------------------------------------------------------------
  function authHeaders() {
    return state.token ? { Authorization: `Bearer ${state.token}` } : {};
  }

  async function failure(response) {
    let detail = response.statusText;
    try {
      const body = await response.json();
      detail = typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
    } catch (_) { /* not JSON: keep the status text */ }
    const error = new Error(`${response.status}: ${detail}`);
    error.status = response.status;
    return error;
  }

  async function getJSON(url) {
    const response = await fetch(url, { headers: authHeaders() });
    if (!response.ok) throw await failure(response);
    return response.json();
  }

  async function send(method, url, body) {
    const response = await fetch(url, {
      method,
      headers: { "Content-Type": "application/json", ...authHeaders() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw await failure(response);
    return response.status === 204 ? null : response.json();
  }

  function readToken() {
    const lens = location.hash.match(/(?:^#|&)lens=([a-z]+)/);
    if (lens) state.askedLens = lens[1]; // a lens named in the address wins over the project's default
    const match = location.hash.match(/(?:^#|&)token=([^&]+)/);
    if (match) {
      sessionStorage.setItem("jarvishub-token", decodeURIComponent(match[1]));
      // Keep the token out of the address bar, bookmarks and screenshots; the tab remembers it.
      history.replaceState(null, "", location.pathname + location.search);
    }
    return sessionStorage.getItem("jarvishub-token");
  }

  // -- small DOM helpers ------------------------------------------------------------------------
  function h(tag, props, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value == null) continue;
      if (key === "class") el.className = value;
      else if (key === "dataset") Object.assign(el.dataset, value);
      else if (key in el) el[key] = value;
      else el.setAttribute(key, value);
    }
    for (const child of children.flat()) {
      if (child == null || child === false) continue;
      el.append(child instanceof Node ? child : String(child));
    }
    return el;
  }

  function attr(value) {
    return String(value).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  }

  let toastTimer = 0;
  function toast(message) {
    const el = $("#toast");
    el.textContent = message;
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { el.hidden = true; }, 5000);
  }

  const nextPaint = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));

  // -- the model ----------------------------------------------------------------------------------
  function indexGroups() {
    state.members = new Map();
    for (const node of state.nodes.values()) {
      if (node.group_id && state.nodes.has(node.group_id)) {
        if (!state.members.has(node.group_id)) state.members.set(node.group_id, []);
        state.members.get(node.group_id).push(node.id);
      }
    }
  }

  // A group with members is drawn as a box around them, not as a card.
  const isBox = (node) => node.kind === "group" && state.members.has(node.id);

  // -- the Graph lens: folding and the layered layout --------------------------------------------------
  // Evaluations and superseded versions are folded into the node they belong to (an evaluation into what it
  // scores, an older version into the newest version of its line); the host card's "+N" unfolds them.
  // Positions come from dagre (static/vendor/dagre.min.js, a layered Sugiyama layout, run in a Web Worker:
  // static/layout-worker.js): each connected part
  // of the shown graph is laid out on its own (cached by its shape, so a change re-lays only a part whose
  // shape is new) and the parts are packed in rows.  A node a person placed (pinned) keeps its place.
  // CONTINUES (shot after shot) is drawn but does not join parts: a 400-shot story is 400 small parts packed
  // in story order, not one 1,200-node graph that takes dagre seconds.
  const LAYOUT_EDGES = new Set(["GENERATED_FROM", "REFERENCES", "VERSION_OF"]);
  const layoutCache = new Map(); // a part's shape (partShape) -> its layout
  state.expanded = new Set(); // hosts whose folded nodes are shown
  state.hostOf = new Map(); // folded node id -> the node it is folded into
  state.foldCount = new Map(); // host id -> how many nodes are folded into it
  state.hidden = new Set(); // folded nodes not shown now
  state.layout = { parts: 0, laid: 0, ms: 0 };
  const isShown = (node) => !state.hidden.has(node.id);

  function computeFolds() {
    const newer = new Map(); // older id -> the versions made from it
    const scored = new Map(); // evaluation id -> what it evaluates
    for (const edge of state.edges.values()) {
      if (!state.nodes.has(edge.source) || !state.nodes.has(edge.target)) continue;
      if (edge.type === "VERSION_OF") {
        if (!newer.has(edge.target)) newer.set(edge.target, []);
        newer.get(edge.target).push(edge.source);
      } else if ((edge.type === "REFERENCES" || edge.type === "GENERATED_FROM") &&
                 state.nodes.get(edge.source).kind === "evaluation" && !scored.has(edge.source)) {
        scored.set(edge.source, edge.target);
      }
    }
    const head = (id) => { // the newest version of a line, following VERSION_OF forwards
      const seen = new Set([id]);
      let here = id;
      for (;;) {
        const next = (newer.get(here) || []).filter((n) => !seen.has(n))
          .sort((a, b) => (state.nodes.get(b).created_at > state.nodes.get(a).created_at ? 1 : -1))[0];
        if (!next) return here;
        seen.add(next);
        here = next;
      }
    };
    const heads = new Map();
    for (const id of newer.keys()) heads.set(id, head(id));
    followNewerVersions(heads);
    state.hostOf = new Map();
    state.foldCount = new Map();
    state.hidden = new Set();
    for (const node of state.nodes.values()) {
      let host = null;
      if (scored.has(node.id)) host = head(scored.get(node.id));
      else if (newer.has(node.id)) host = head(node.id);
      if (!host || host === node.id || isBox(node)) continue;
      state.hostOf.set(node.id, host);
      state.foldCount.set(host, (state.foldCount.get(host) || 0) + 1);
      if (!state.expanded.has(host)) state.hidden.add(node.id);
    }
  }

  // A selection follows its node's line: a picked node that was the newest version of its line and no longer is
  // (a turn made a new version of it: "retitle this slide", then "now add a bullet to it") is replaced by the
  // newest, unless that one is rejected.  An older version picked on purpose (from its host's "+N") stays picked.
  state.versionHead = new Map(); // id -> the newest version of its line, for ids with a newer version
  function followNewerVersions(heads) {
    let moved = false;
    for (const id of [...state.picked]) {
      const now = heads.get(id);
      const node = now && state.nodes.get(now);
      if (state.versionHead.has(id) || !node || node.status === "rejected" || node.deleted) continue;
      state.picked.delete(id);
      state.picked.add(now);
      moved = true;
    }
    state.versionHead = heads;
    if (moved) markPicked();
  }

  // A part's layout depends only on its shape (how many nodes, in creation order, and which links which), so
  // parts of one shape share one dagre run: a storyboard's 400 shots of the same make are laid out once.
  function partShape(part) {
    const index = new Map(part.nodes.map((n, i) => [n.id, i]));
    const links = part.links.map((e) => [index.get(e.target), index.get(e.source)]) // the origin on the left
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    return { key: `${part.nodes.length}|${links.map(([a, b]) => `${a}>${b}`).join(",")}`, n: part.nodes.length, links };
  }

  // dagre runs in a Web Worker (static/layout-worker.js): a canvas whose parts take dagre seconds keeps its
  // page responsive meanwhile, and the page itself never loads dagre.  One worker, made when the graph is
  // first laid out; each request sends the shapes not laid out yet and gets their layouts back.
  const layoutWorker = { worker: null, next: 0, waiting: new Map() };

  function layInWorker(shapes) {
    if (!layoutWorker.worker) {
      const worker = new Worker("/static/layout-worker.js");
      worker.onmessage = ({ data }) => {
        const waiter = layoutWorker.waiting.get(data.id);
        layoutWorker.waiting.delete(data.id);
        if (!waiter) return;
        if (data.error) waiter.reject(new Error(data.error));
        else waiter.resolve(data);
      };
      worker.onerror = (event) => { // a worker that cannot start or crashed: every request waiting on it fails
        event.preventDefault();
        for (const waiter of layoutWorker.waiting.values()) waiter.reject(new Error(event.message || "the layout worker failed"));
        layoutWorker.waiting.clear();
        layoutWorker.worker = null;
        worker.terminate();
      };
      layoutWorker.worker = worker;
    }
    return new Promise((resolve, reject) => {
      const id = ++layoutWorker.next;
      layoutWorker.waiting.set(id, { resolve, reject });
      layoutWorker.worker.postMessage({ id, card: state.card, shapes });
    });
  }

  // The shown, movable nodes split into connected parts (in creation order), each with its shape.
  function partsToLay() {
    const movable = [...state.nodes.values()].filter((n) => !isBox(n) && isShown(n) && !n.pinned);
    const root = new Map(movable.map((n) => [n.id, n.id]));
    const find = (id) => { while (root.get(id) !== id) { root.set(id, root.get(root.get(id))); id = root.get(id); } return id; };
    const join = (a, b) => { const ra = find(a), rb = find(b); if (ra !== rb) root.set(rb, ra); };
    const links = [];
    for (const edge of state.edges.values()) {
      if (!LAYOUT_EDGES.has(edge.type) || edge.source === edge.target || !root.has(edge.source) || !root.has(edge.target)) continue;
      join(edge.source, edge.target);
      links.push(edge);
    }
    for (const memberIds of state.members.values()) { // a group's box stays one piece
      const shown = memberIds.filter((id) => root.has(id));
      for (const id of shown.slice(1)) join(shown[0], id);
    }
    const parts = new Map();
    for (const node of movable) {
      const r = find(node.id);
      if (!parts.has(r)) parts.set(r, { nodes: [], links: [] });
      parts.get(r).nodes.push(node);
    }
    for (const edge of links) parts.get(find(edge.source)).links.push(edge);
    return [...parts.values()].map((part) => ({ part, shape: partShape(part) }));
  }

  // Parts in rows, in the order they were made, the rows about as wide as the screen's shape asks.
  function packParts(laid) {
    const gap = 80, origin = 40;
    const area = laid.reduce((sum, p) => sum + (p.at.w + gap) * (p.at.h + gap), 0);
    const rowWidth = Math.max(Math.sqrt(area) * 1.6, ...laid.map((p) => p.at.w));
    let x = origin, y = origin, rowHeight = 0;
    for (const { part, at } of laid) {
      if (x > origin && x + at.w > origin + rowWidth) { x = origin; y += rowHeight + gap; rowHeight = 0; }
      part.nodes.forEach((node, i) => {
        node.x = x + at.at[i].x;
        node.y = y + at.at[i].y;
      });
      x += at.w + gap;
      rowHeight = Math.max(rowHeight, at.h);
    }
  }

  // Lays out the shown graph: the shapes not seen yet go to the worker (awaited), then every part is placed
  // from the cache.  The parts are found again after each wait, so a change that arrived meanwhile is laid
  // out too.  `state.layout`: parts, dagre runs, the whole pass (`ms`), the page's own share of it
  // (`mainMs`, the worker's not counted) and the worker's dagre time (`workerMs`).
  async function layeredLayout() {
    const started = performance.now();
    let mainMs = 0, workerMs = 0;
    for (let round = 0; round < 8; round++) {
      let t = performance.now();
      const plan = partsToLay();
      const missing = new Map();
      for (const { part, shape } of plan) {
        if (layoutCache.has(shape.key)) continue;
        if (shape.n === 1) layoutCache.set(shape.key, { at: [{ x: 0, y: 0 }], w: state.card.w, h: state.card.h });
        else missing.set(shape.key, { key: shape.key, n: shape.n, links: shape.links });
      }
      mainMs += performance.now() - t;
      if (missing.size) {
        try {
          const answer = await layInWorker([...missing.values()]);
          for (const [key, laid] of answer.laid) layoutCache.set(key, laid);
          state.layout.laid += answer.laid.length;
          workerMs += answer.ms;
        } catch (error) { // the stored positions stand
          toast(`The graph's layout failed: ${error.message}`);
          return;
        }
        continue;
      }
      t = performance.now();
      const used = new Set(plan.map((p) => p.shape.key));
      for (const key of layoutCache.keys()) if (!used.has(key)) layoutCache.delete(key);
      packParts(plan.map(({ part, shape }) => ({ part, at: layoutCache.get(shape.key) })));
      mainMs += performance.now() - t;
      state.layout.parts = plan.length;
      break;
    }
    state.layout.ms = performance.now() - started;
    state.layout.mainMs = mainMs;
    state.layout.workerMs = workerMs;
  }

  async function arrange() {
    computeFolds();
    await layeredLayout();
  }

  // Cards follow the folds: a shown node gets its card, a folded one loses it, and every card is placed.
  function syncCards() {
    for (const node of state.nodes.values()) {
      const want = !isBox(node) && isShown(node);
      const el = state.cards.get(node.id);
      if (want && !el) {
        const card = buildCard(node);
        state.cards.set(node.id, card);
        nodesLayer.appendChild(card);
      } else if (!want && el) {
        el.remove();
        state.cards.delete(node.id);
      } else if (el) {
        placeCard(el, node);
      }
    }
  }

  async function toggleFold(id) {
    if (state.expanded.has(id)) state.expanded.delete(id);
    else state.expanded.add(id);
    await arrange();
    for (const node of state.nodes.values()) { // the host's button changes its sign
      if (state.foldCount.has(node.id) && state.cards.has(node.id)) fillCard(state.cards.get(node.id), node, node);
    }
    syncCards();
    redrawAround();
  }

  // A folded node someone asks for (from the detail panel) is shown: its host unfolds.
  function unfold(id) {
    const host = state.hostOf.get(id);
    if (host && state.hidden.has(id)) return toggleFold(host);
    return Promise.resolve();
  }

  function forget(id) {
    state.nodes.delete(id);
    state.cards.get(id)?.remove();
    state.cards.delete(id);
    state.picked.delete(id);
    for (const [edgeId, edge] of state.edges) {
      if (edge.source === id || edge.target === id) state.edges.delete(edgeId);
    }
  }

  // -- cards --------------------------------------------------------------------------------------
  function mediaElement(media, title, large) {
    const src = `/artifacts/${media.sha256}`;
    if (media.media === "image") {
      return h("img", { src, alt: title || "image", decoding: "async", draggable: false, loading: large ? "lazy" : null });
    }
    if (media.media === "video") {
      // preload=metadata: the first frame stands as the poster without loading the clip.
      return h("video", { src, preload: "metadata", controls: true, muted: true, playsInline: true });
    }
    return h("audio", { src, preload: "metadata", controls: true });
  }

  function cardBody(node) {
    if (node.media) return h("div", { class: "body" });
    if (node.text) return h("div", { class: "body textual" }, h("div", { class: "text" }, node.text));
    return h("div", { class: "body muted" }, node.kind === "group" ? "empty group" : "—");
  }

  function fillCard(el, node, previous) {
    el.className = `node k-${node.kind} s-${node.status}`;
    el.dataset.id = node.id;
    el.dataset.node = "";
    el.dataset.kind = node.kind;
    el.dataset.status = node.status;
    const head = h("div", { class: "head" }, h("span", { class: "kind" }, node.kind),
      h("span", { class: "title", title: node.title }, node.title || node.kind));
    const foot = h("div", { class: "foot" }, h("span", { class: `badge s-${node.status}` }, node.status),
      node.pinned ? h("span", { class: "pin", title: "placed by a person; the layout keeps it" }, "pinned") : null,
      state.foldCount.has(node.id) ? h("button", { type: "button", class: "fold quiet", dataset: { fold: node.id },
        title: "evaluations and older versions folded into this node" },
        `${state.expanded.has(node.id) ? "−" : "+"}${state.foldCount.get(node.id)}`) : null,
      h("span", { class: "ver" }, `v${node.version}`));
    const sameBody = previous && el.children.length === 3 &&
      (previous.media?.sha256 || null) === (node.media?.sha256 || null) && previous.text === node.text;
    const body = sameBody ? el.children[1] : cardBody(node);
    if (!sameBody) delete el.dataset.mediaOn;
    el.replaceChildren(head, body, foot);
    if (state.picked.has(node.id)) el.classList.add("picked");
    if (state.hits?.has(node.id)) el.classList.add("hit");
  }

  function placeCard(el, node) {
    el.style.transform = `translate(${node.x}px, ${node.y}px)`;
  }

  function buildCard(node) {
    const el = document.createElement("div");
    fillCard(el, node, null);
    placeCard(el, node);
    return el;
  }

  function renderCards() {
    const fragment = document.createDocumentFragment();
    state.cards.clear();
    for (const node of state.nodes.values()) {
      if (isBox(node) || !isShown(node)) continue;
      const el = buildCard(node);
      state.cards.set(node.id, el);
      fragment.appendChild(el);
    }
    nodesLayer.replaceChildren(fragment);
  }

  function upsertCard(node, previous) {
    let el = state.cards.get(node.id);
    if (isBox(node) || !isShown(node)) {
      el?.remove();
      state.cards.delete(node.id);
      return;
    }
    if (!el) {
      el = buildCard(node);
      state.cards.set(node.id, el);
      nodesLayer.appendChild(el);
      el.classList.add("fresh");
      setTimeout(() => el.classList.remove("fresh"), 1700);
      return;
    }
    fillCard(el, node, previous);
    placeCard(el, node);
  }

  // Media are attached only to cards in view and only when zoomed in enough: 2,000 nodes load nothing at first.
  function refreshMedia() {
    if (isLow()) return;
    const { x0, y0, x1, y1 } = visibleWorld(300);
    const { w, h: ch } = state.card;
    for (const [id, el] of state.cards) {
      const node = state.nodes.get(id);
      if (!node?.media || el.dataset.mediaOn === node.media.sha256) continue;
      if (node.x + w < x0 || node.x > x1 || node.y + ch < y0 || node.y > y1) continue;
      el.children[1].replaceChildren(mediaElement(node.media, node.title, false));
      el.dataset.mediaOn = node.media.sha256;
    }
  }

  let mediaTimer = 0;
  function scheduleMedia() {
    clearTimeout(mediaTimer);
    mediaTimer = setTimeout(refreshMedia, 60);
  }

  // -- edges and groups -----------------------------------------------------------------------------
  const round = (v) => Math.round(v * 10) / 10;

  // The curve from one card's side to the other's: [start, control 1, control 2, end] as 8 numbers.
  function edgeCurve(a, b) {
    const { w, h: ch } = state.card;
    const ax = a.x + w / 2, ay = a.y + ch / 2, bx = b.x + w / 2, by = b.y + ch / 2;
    const dx = bx - ax, dy = by - ay;
    let sx, sy, tx, ty, c1x, c1y, c2x, c2y;
    if (Math.abs(dx) * ch >= Math.abs(dy) * w) { // mostly sideways: leave and enter through the sides
      const dir = Math.sign(dx) || 1;
      sx = ax + dir * w / 2; sy = ay; tx = bx - dir * w / 2; ty = by;
      const bend = Math.max(30, Math.abs(tx - sx) / 2);
      c1x = sx + dir * bend; c1y = sy; c2x = tx - dir * bend; c2y = ty;
    } else {
      const dir = Math.sign(dy) || 1;
      sx = ax; sy = ay + dir * ch / 2; tx = bx; ty = by - dir * ch / 2;
      const bend = Math.max(30, Math.abs(ty - sy) / 2);
      c1x = sx; c1y = sy + dir * bend; c2x = tx; c2y = ty - dir * bend;
    }
    return [sx, sy, c1x, c1y, c2x, c2y, tx, ty];
  }

  function edgePath(a, b) {
    const [sx, sy, c1x, c1y, c2x, c2y, tx, ty] = edgeCurve(a, b).map(round);
    return `M${sx},${sy} C${c1x},${c1y} ${c2x},${c2y} ${tx},${ty}`;
  }

  function drawEdges() {
    const parts = [];
    for (const edge of state.edges.values()) {
      const a = state.nodes.get(edge.source), b = state.nodes.get(edge.target);
      if (!a || !b || isBox(a) || isBox(b) || !isShown(a) || !isShown(b)) continue;
      parts.push(`<path class="edge e-${attr(edge.type)}" data-s="${attr(edge.source)}" data-t="${attr(edge.target)}" ` +
        `d="${edgePath(a, b)}"><title>${attr(edge.type)}</title></path>`);
    }
    edgeLayer.innerHTML = parts.join("");
  }

  function redrawEdgesOf(id) {
    for (const path of edgeLayer.querySelectorAll(`[data-s="${CSS.escape(id)}"], [data-t="${CSS.escape(id)}"]`)) {
      const a = state.nodes.get(path.dataset.s), b = state.nodes.get(path.dataset.t);
      if (a && b) path.setAttribute("d", edgePath(a, b));
    }
  }

  function placeBox(box, memberIds) {
    const { w, h: ch } = state.card;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    const shown = memberIds.filter((id) => isShown(state.nodes.get(id)));
    for (const id of shown.length ? shown : memberIds) {
      const n = state.nodes.get(id);
      x0 = Math.min(x0, n.x); y0 = Math.min(y0, n.y); x1 = Math.max(x1, n.x + w); y1 = Math.max(y1, n.y + ch);
    }
    box.style.transform = `translate(${x0 - 14}px, ${y0 - 30}px)`;
    box.style.width = `${x1 - x0 + 28}px`;
    box.style.height = `${y1 - y0 + 44}px`;
  }

  function drawGroups() {
    const fragment = document.createDocumentFragment();
    state.boxes.clear();
    for (const [groupId, memberIds] of state.members) {
      const group = state.nodes.get(groupId);
      const box = h("div", { class: `group s-${group.status}`, dataset: { id: groupId, node: "", kind: "group" } },
        h("div", { class: "group-label", title: group.title }, `${group.title || "group"} (${memberIds.length})`));
      placeBox(box, memberIds);
      state.boxes.set(groupId, box);
      fragment.appendChild(box);
    }
    groupsLayer.replaceChildren(fragment);
  }

  // -- the overview: every node and edge on one canvas 2D, for when cards would be specks ----------------------
  const KIND_COLOURS = { image: "#60a5fa", video: "#a78bfa", audio: "#34d399", text: "#fcd34d", reference: "#f9a8d4",
    web: "#67e8f9", slide: "#5eead4", deck: "#5eead4", feedback: "#fdba74", shot: "#93c5fd", prompt: "#fde68a" };
  const STATUS_COLOURS = { failed: "#dc2626", running: "#2563eb", stale: "#d97706", selected: "#16a34a", rejected: "#6b7280" };
  const EDGE_STYLES = { GENERATED_FROM: ["#16a34a", []], REFERENCES: ["#2563eb", [7, 5]], VERSION_OF: ["#9333ea", [2, 4]],
    CONTINUES: ["#ea580c", [12, 4, 2, 4]] };

  const isLow = () => state.view.k < LOW_DETAIL_BELOW;

  function drawOverview() {
    overview.hidden = !isLow();
    if (overview.hidden) return;
    const ratio = window.devicePixelRatio || 1;
    const width = viewport.clientWidth, height = viewport.clientHeight;
    if (overview.width !== Math.round(width * ratio) || overview.height !== Math.round(height * ratio)) {
      overview.width = Math.round(width * ratio);
      overview.height = Math.round(height * ratio);
      overview.style.width = `${width}px`;
      overview.style.height = `${height}px`;
    }
    const ctx = overview.getContext("2d");
    const { x, y, k } = state.view;
    const { w, h: ch } = state.card;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, overview.width, overview.height);
    ctx.setTransform(ratio * k, 0, 0, ratio * k, ratio * x, ratio * y);
    const view = visibleWorld(0);
    const inView = (n) => !(n.x + w < view.x0 || n.x > view.x1 || n.y + ch < view.y0 || n.y > view.y1);
    const dimmed = (id) => state.hits && !state.hits.has(id);
    ctx.lineWidth = 1.5 / k;
    for (const [type, [colour, dash]] of Object.entries(EDGE_STYLES)) {
      ctx.strokeStyle = colour;
      ctx.setLineDash(dash.map((d) => d / k));
      ctx.beginPath();
      for (const edge of state.edges.values()) {
        const a = state.nodes.get(edge.source), b = state.nodes.get(edge.target);
        if (edge.type !== type || !a || !b || isBox(a) || isBox(b) || !isShown(a) || !isShown(b) || !(inView(a) || inView(b))) continue;
        const [sx, sy, c1x, c1y, c2x, c2y, tx, ty] = edgeCurve(a, b);
        ctx.moveTo(sx, sy);
        ctx.bezierCurveTo(c1x, c1y, c2x, c2y, tx, ty);
      }
      ctx.stroke();
    }
    ctx.setLineDash([]);
    let drawn = 0;
    for (const node of state.nodes.values()) {
      if (isBox(node) || !isShown(node) || !inView(node)) continue;
      drawn += 1;
      ctx.globalAlpha = dimmed(node.id) ? 0.18 : 1;
      ctx.fillStyle = KIND_COLOURS[node.kind] || "#cbd5e1";
      ctx.fillRect(node.x, node.y, w, ch);
      const outline = state.picked.has(node.id) ? "#1d4ed8" : state.hits?.has(node.id) ? "#f59e0b" : STATUS_COLOURS[node.status];
      if (outline) {
        ctx.strokeStyle = outline;
        ctx.lineWidth = Math.max(3 / k, 12);
        ctx.strokeRect(node.x, node.y, w, ch);
      }
    }
    ctx.globalAlpha = 1;
    state.drawn = drawn;
  }

  let overviewQueued = false;
  function scheduleOverview() {
    if (overviewQueued) return;
    overviewQueued = true;
    requestAnimationFrame(() => { overviewQueued = false; drawOverview(); });
  }

  // The node under a point of the viewport, from the model (the overview has no elements to hit).
  function nodeAt(clientX, clientY) {
    const rect = viewport.getBoundingClientRect();
    const { x, y, k } = state.view;
    const wx = (clientX - rect.left - x) / k, wy = (clientY - rect.top - y) / k;
    let found = null;
    for (const node of state.nodes.values()) {
      if (!isBox(node) && isShown(node) && wx >= node.x && wx <= node.x + state.card.w && wy >= node.y && wy <= node.y + state.card.h) found = node;
    }
    return found;
  }

  // -- view: pan, zoom, fit ----------------------------------------------------------------------------
  function applyView() {
    const { x, y, k } = state.view;
    world.style.transform = `translate(${x}px, ${y}px) scale(${k})`;
    world.classList.toggle("lod-low", isLow());
    scheduleOverview();
    scheduleMedia();
  }
  window.addEventListener("resize", applyView);

  function visibleWorld(margin) {
    const { x, y, k } = state.view;
    return {
      x0: (-x - margin) / k, y0: (-y - margin) / k,
      x1: (viewport.clientWidth - x + margin) / k, y1: (viewport.clientHeight - y + margin) / k,
    };
  }

  function fit() {
    if (!state.nodes.size) return;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const n of state.nodes.values()) {
      if (isBox(n) || !isShown(n)) continue;
      x0 = Math.min(x0, n.x); y0 = Math.min(y0, n.y);
      x1 = Math.max(x1, n.x + state.card.w); y1 = Math.max(y1, n.y + state.card.h);
    }
    const pad = 30, vw = viewport.clientWidth, vh = viewport.clientHeight - $("#legend").offsetHeight;
    const k = Math.max(0.02, Math.min(1.25, (vw - 2 * pad) / (x1 - x0), (vh - 2 * pad) / (y1 - y0)));
    state.view = { k, x: (vw - (x1 - x0) * k) / 2 - x0 * k, y: (vh - (y1 - y0) * k) / 2 - y0 * k };
    applyView();
  }

  function centreOn(id) {
    const n = state.nodes.get(id);
    if (!n) return;
    const k = Math.max(state.view.k, 0.6);
    state.view = { k, x: viewport.clientWidth / 2 - (n.x + state.card.w / 2) * k, y: viewport.clientHeight / 2 - (n.y + state.card.h / 2) * k };
    applyView();
  }

  viewport.addEventListener("wheel", (event) => {
    event.preventDefault();
    const { x, y, k } = state.view;
    const next = Math.max(0.02, Math.min(4, k * Math.exp(-event.deltaY * 0.0015)));
    const rect = viewport.getBoundingClientRect();
    const px = event.clientX - rect.left, py = event.clientY - rect.top;
    state.view = { k: next, x: px - (px - x) * (next / k), y: py - (py - y) * (next / k) };
    applyView();
  }, { passive: false });

  let drag = null;
  viewport.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || event.target.closest("video, audio, #legend, button.fold")) return;
    const hit = isLow() ? nodeAt(event.clientX, event.clientY) : null;
    const card = hit ? null : event.target.closest(".node");
    const label = hit ? null : event.target.closest(".group-label");
    const id = hit?.id || card?.dataset.id || label?.parentElement.dataset.id || null;
    const node = hit || (card ? state.nodes.get(id) : null);
    drag = {
      what: node ? "node" : label ? "group" : "pan", id, x: event.clientX, y: event.clientY, moved: false,
      view: { ...state.view }, from: node ? { x: node.x, y: node.y } : null,
      add: event.shiftKey || event.metaKey || event.ctrlKey,
    };
    viewport.setPointerCapture(event.pointerId);
  });

  viewport.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return;
    drag.moved = true;
    if (drag.what === "node" && state.token) {
      const node = state.nodes.get(drag.id);
      if (!node) return;
      node.x = drag.from.x + dx / state.view.k;
      node.y = drag.from.y + dy / state.view.k;
      const el = state.cards.get(drag.id);
      if (el) {
        el.classList.add("dragging");
        placeCard(el, node);
      }
      redrawEdgesOf(node.id);
      scheduleOverview();
      if (node.group_id && state.boxes.has(node.group_id)) placeBox(state.boxes.get(node.group_id), state.members.get(node.group_id));
    } else {
      viewport.classList.add("panning");
      state.view = { ...drag.view, x: drag.view.x + dx, y: drag.view.y + dy };
      applyView();
    }
  });

  function endDrag(event) {
    if (!drag) return;
    const done = drag;
    drag = null;
    viewport.classList.remove("panning");
    if (event.type === "pointercancel") return;
    if (done.what === "node" && done.moved && state.token) {
      state.cards.get(done.id)?.classList.remove("dragging");
      commitMove(done.id, done.from);
    } else if (!done.moved && done.id) {
      pick(done.id, done.add);
    } else if (done.what === "node" && done.moved && !state.token) {
      toast("Read-only: open the address `jarvishub ui` printed (it carries the token) to move nodes.");
    }
  }
  viewport.addEventListener("pointerup", endDrag);
  nodesLayer.addEventListener("click", (event) => {
    const button = event.target.closest("button.fold");
    if (button) toggleFold(button.dataset.fold);
  });
  viewport.addEventListener("pointercancel", endDrag);

  async function commitMove(id, from) {
    const node = state.nodes.get(id);
    try {
      const moved = await send("POST", `/api/nodes/${encodeURIComponent(id)}/move`, { x: round(node.x), y: round(node.y) });
      await applyBatch({ nodes: [moved], removed: [], edges: null });
    } catch (error) {
      node.x = from.x; node.y = from.y;
      upsertCard(node, node);
      redrawEdgesOf(id);
      scheduleOverview();
      toast(`The move was refused: ${error.message}`);
    }
  }

  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, textarea")) return;
    if (event.key === "f" || event.key === "F") fit();
    if (event.key === "Escape") clearPicks();
  });
  $("#fit").addEventListener("click", fit);

  // -- selection and the detail panel -----------------------------------------------------------------------
  function markPicked() {
    scheduleOverview();
    for (const el of document.querySelectorAll(".picked")) el.classList.remove("picked");
    for (const id of state.picked) (state.cards.get(id) || state.boxes.get(id))?.classList.add("picked");
    const box = $("#selection");
    if (!state.picked.size) {
      box.textContent = "Click a node to select it; Shift-click to add more.";
    } else {
      box.replaceChildren(`${state.picked.size} selected: `, ...[...state.picked].map((id) => {
        const n = state.nodes.get(id);
        return h("span", { class: "chip", title: id }, n ? (n.title || n.kind) : (state.titles?.get(id) || id));
      }));
    }
    document.dispatchEvent(new CustomEvent("jarvishub:picked")); // last: a lens may add to the chips
  }

  function pick(id, add) {
    if (!add) state.picked.clear();
    if (add && state.picked.has(id)) state.picked.delete(id);
    else state.picked.add(id);
    markPicked();
    showDetail(id);
  }

  function clearPicks() {
    state.picked.clear();
    markPicked();
  }
  $("#clear-selection").addEventListener("click", clearPicks);

  function nodeLink(node, prefix) {
    return h("li", { dataset: { id: node.id }, title: node.id }, `${prefix}${node.kind} · ${node.title || node.id}`);
  }

  function lineageList(label, cls, items) {
    return [h("h3", null, `${label} (${items.length})`),
      h("ul", { class: `lineage ${cls}` }, items.length ? items.map((item) => nodeLink(item.node, `${item.depth} · `)) : h("li", { class: "muted" }, "none"))];
  }

  function renderDetail(detail, history, lineage) {
    const { node, view, edges } = detail;
    const kv = h("div", { class: "kv" },
      h("span", null, "id"), h("span", { class: "mono" }, node.id),
      h("span", null, "kind"), h("span", null, node.kind),
      h("span", null, "status"), h("span", null, h("span", { class: `badge s-${node.status}` }, node.status)),
      h("span", null, "version"), h("span", null, `v${node.version} (canvas v${node.canvas_version})`),
      h("span", null, "position"), h("span", null, `${Math.round(view.x)}, ${Math.round(view.y)}${view.pinned ? " · pinned" : ""}`),
      h("span", null, "group"), h("span", { class: "mono" }, node.group_id || "—"),
      h("span", null, "made by"), h("span", null, view.actor),
      h("span", null, "updated"), h("span", null, node.updated_at));
    const outputs = node.outputs.map((o) => h("li", null, h("a", { href: `/artifacts/${o.sha256}`, target: "_blank", rel: "noopener" },
      `${o.name || o.mime}`), ` · ${o.mime} · ${o.size.toLocaleString()} bytes`));
    const versions = [...history.versions].reverse().map((v) => h("li", null,
      v.media && v.media.media === "image" ? h("img", { src: `/artifacts/${v.media.sha256}`, alt: `v${v.version}`, loading: "lazy" }) : null,
      `v${v.version} · ${v.status} · canvas v${v.canvas_version} `,
      v.media ? h("a", { href: `/artifacts/${v.media.sha256}`, target: "_blank", rel: "noopener" }, "artifact") : null));
    const edgeItems = edges.map((e) => {
      const out = e.source === node.id;
      const other = state.nodes.get(out ? e.target : e.source);
      const label = `${out ? "→" : "←"} ${e.type} · ${other ? (other.title || other.kind) : (out ? e.target : e.source)}`;
      return h("li", { dataset: { id: out ? e.target : e.source } }, label);
    });
    return h("div", null,
      h("h3", null, node.title || node.kind), kv,
      view.media ? h("div", { class: "preview" }, mediaElement(view.media, node.title, true)) : null,
      h("h3", null, "Inputs"), h("pre", null, JSON.stringify(node.inputs, null, 2)),
      h("h3", null, `Outputs (${node.outputs.length})`), h("ul", null, outputs),
      h("details", null, h("summary", null, "Metadata"), h("pre", null, JSON.stringify(node.metadata, null, 2))),
      h("h3", null, `Versions (${history.versions.length})`), h("ul", { class: "versions" }, versions),
      ...(history.older.length || history.newer.length ? [
        ...lineageList("Version of (older)", "older", history.older),
        ...lineageList("Newer versions", "newer", history.newer)] : []),
      ...lineageList("Ancestors", "ancestors", lineage.ancestors),
      ...lineageList("Descendants", "descendants", lineage.descendants),
      h("h3", null, `Edges (${edges.length})`), h("ul", { class: "edges" }, edgeItems));
  }

  async function showDetail(id) {
    state.detailId = id;
    const body = $("#detail-body");
    const base = `/api/nodes/${encodeURIComponent(id)}`;
    try {
      const [detail, history, lineage] = await Promise.all([getJSON(base), getJSON(`${base}/history`), getJSON(`${base}/lineage`)]);
      if (state.detailId !== id) return;
      body.replaceChildren(renderDetail(detail, history, lineage));
      body.dataset.id = id;
    } catch (error) {
      if (state.detailId === id) body.replaceChildren(h("div", { class: "error" }, error.message));
    }
  }

  $("#detail-body").addEventListener("click", (event) => {
    const item = event.target.closest("li[data-id]");
    if (!item || !state.nodes.has(item.dataset.id)) return;
    const id = item.dataset.id;
    unfold(id).then(() => { // centred once the layout has placed it
      pick(id, false);
      centreOn(id);
    });
  });

  // -- the filter: read-only Cypher, highlighted ------------------------------------------------------------
  function applyHits() {
    scheduleOverview();
    world.classList.toggle("filtering", !!state.hits);
    for (const el of document.querySelectorAll(".hit")) el.classList.remove("hit");
    for (const id of state.hits || []) (state.cards.get(id) || state.boxes.get(id))?.classList.add("hit");
  }

  async function runQuery() {
    const errorBox = $("#query-error");
    errorBox.hidden = true;
    if (!state.token) {
      // Queries need the token like writes do (user Cypher is the widest door into the engine).
      errorBox.textContent = "Queries need the token: open the address `jarvishub ui` printed.";
      errorBox.hidden = false;
      return;
    }
    $("#query-result").textContent = "running…";
    try {
      const answer = await send("POST", "/api/query", { cypher: $("#query-text").value });
      state.hits = new Set(answer.node_ids.filter((id) => state.nodes.has(id)));
      applyHits();
      $("#query-result").textContent = `${answer.rows.length} row(s)${answer.truncated ? " (truncated)" : ""}, ` +
        `${state.hits.size} node(s) highlighted, ${Math.round(answer.elapsed_ms)} ms`;
    } catch (error) {
      state.hits = null;
      applyHits();
      $("#query-result").textContent = "";
      errorBox.textContent = error.message;
      errorBox.hidden = false;
    }
  }
  $("#run-query").addEventListener("click", runQuery);
  $("#clear-query").addEventListener("click", () => {
    state.hits = null;
    applyHits();
    $("#query-result").textContent = "";
    $("#query-error").hidden = true;
  });

  // -- steering: requests, jobs, approvals -------------------------------------------------------------------
  function approvalBox(job) {
    const { interrupt } = job;
    const action = interrupt.action?.tool ? `${interrupt.action.tool} ${JSON.stringify(interrupt.action.args || {})}` : null;
    return h("div", null,
      h("div", null, interrupt.reason || interrupt.question || interrupt.type),
      action ? h("div", { class: "mono" }, action) : null,
      h("div", { class: "row" },
        h("button", { type: "button", dataset: { decision: "approve", thread: job.thread_id } }, "Approve"),
        h("button", { type: "button", class: "quiet", dataset: { decision: "reject", thread: job.thread_id } }, "Reject")));
  }

  function renderJobs() {
    const jobs = [...state.jobs.values()].sort((a, b) => b.started_at - a.started_at).slice(0, 8);
    $("#jobs").replaceChildren(...jobs.map((job) => {
      const busy = job.status === "queued" || job.status === "running";
      return h("div", { class: `job ${job.status}`, dataset: { job: job.id, thread: job.thread_id, status: job.status } },
        h("div", null, h("span", { class: "status" }, job.status), ` · ${job.kind} · `, h("span", { class: "mono" }, job.thread_id)),
        job.text ? h("div", null, `“${job.text}”`) : null,
        busy && job.progress?.length ? h("div", { class: "progress muted" }, job.progress[job.progress.length - 1]) : null,
        job.reply ? h("div", { class: "reply" }, job.reply) : null,
        job.error ? h("div", { class: "error" }, job.error) : null,
        job.status === "interrupted" && job.interrupt ? approvalBox(job) : null);
    }));
  }

  // The progress line in the bar: the running turn's step count and latest step, whichever lens is showing
  // (the steps' nodes arrive on the canvas as they are committed, through the live feed).
  function renderProgress() {
    const line = $("#progress-line");
    const running = [...state.jobs.values()].filter((j) => j.status === "running" || j.status === "queued")
      .sort((a, b) => b.started_at - a.started_at)[0];
    line.hidden = !running;
    if (!running) return;
    const steps = running.progress || [];
    line.textContent = running.status === "queued" ? `queued: “${running.text}”`
      : `step ${steps.length}${steps.length ? `: ${steps[steps.length - 1]}` : ""} · “${running.text}”`;
    line.dataset.job = running.id;
  }

  function upsertJob(job) {
    // A job's snapshots come by two roads in no fixed order (the answer to the POST that started it, the live
    // feed): a snapshot older than the one shown is dropped, or a finished turn would read "queued" again.
    const shown = state.jobs.get(job.id);
    if (shown && job.revision !== undefined && shown.revision >= job.revision) return;
    state.jobs.set(job.id, job);
    renderJobs();
    renderProgress();
  }

  async function sendRequest() {
    const text = $("#request-text").value.trim();
    if (!text) return;
    const button = $("#send-request");
    button.disabled = true;
    try {
      const job = await send("POST", "/api/requests", {
        text, node_ids: state.selectionToSend ? state.selectionToSend() : [...state.picked],
        ask_before_changes: $("#ask-approval").checked,
      });
      upsertJob(job);
      $("#request-text").value = "";
    } catch (error) {
      toast(`The request was not sent: ${error.message}`);
    } finally {
      button.disabled = !state.token;
    }
  }
  $("#send-request").addEventListener("click", sendRequest);

  $("#jobs").addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-decision]");
    if (!button) return;
    button.disabled = true;
    try {
      const thread = button.dataset.thread;
      const answer = await send("POST", `/api/threads/${encodeURIComponent(thread)}/resume`, { decision: button.dataset.decision });
      for (const job of state.jobs.values()) { // the question is answered; the resume job carries the turn on
        if (job.thread_id === thread && job.status === "interrupted") state.jobs.set(job.id, { ...job, status: "answered" });
      }
      upsertJob(answer);
    } catch (error) {
      toast(`Could not answer: ${error.message}`);
      button.disabled = false;
    }
  });

  $("#thread-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const threadId = $("#thread-id").value.trim();
    if (!threadId) return;
    try {
      const answer = await getJSON(`/api/threads/${encodeURIComponent(threadId)}/pending`);
      if (!answer.pending) { toast(`Thread ${threadId} is not waiting for anything.`); return; }
      upsertJob({ id: `thread:${threadId}`, kind: "thread", thread_id: threadId, status: "interrupted", interrupt: answer.pending,
        text: "", progress: [], started_at: Date.now() / 1000 });
    } catch (error) {
      toast(error.message);
    }
  });

  // -- loading and live updates ---------------------------------------------------------------------------------
  function updateCounters() {
    if (state.graphLoaded) $("#node-count").textContent = `${state.nodes.size} node${state.nodes.size === 1 ? "" : "s"}`;
    $("#canvas-version").textContent = String(state.version);
  }

  function redrawAround() {
    indexGroups();
    drawGroups();
    drawEdges();
    updateCounters();
    markPicked();
    applyHits();
    scheduleMedia();
    scheduleOverview();
  }

  // Reads every page of the canvas into the model; `before` runs between the model and the DOM (the first fit).
  async function loadCanvas(before) {
    state.graphLoaded = true; // changes from here on are applied to the graph (they queue behind this load)
    const started = performance.now();
    const nodes = [], edges = [];
    let offset = 0, page = null, version = null;
    do {
      page = await getJSON(`/api/canvas?offset=${offset}&limit=2000`);
      version = version ?? page.canvas_version; // the oldest page's version: live updates catch up from there
      nodes.push(...page.nodes);
      edges.push(...page.edges);
      offset = page.next_offset;
    } while (offset != null);
    const fetched = performance.now();
    state.card = page.card;
    state.version = version;
    state.nodes = new Map(nodes.map((n) => [n.id, n]));
    state.edges = new Map(edges.map((e) => [e.id, e]));
    indexGroups();
    await arrange();
    if (before) before();
    renderCards();
    redrawAround();
    return { started, fetched, count: nodes.length };
  }

  // A change event names the nodes that changed; fetch those (or everything, after a big change).
  let changes = Promise.resolve();
  function onCanvasEvent(event) {
    changes = changes.then(() => applyChange(event)).catch((error) => toast(`Live update failed: ${error.message}`));
  }

  async function applyChange(event) {
    const ids = event.node_ids || [];
    if (!state.graphLoaded) { // a lens is showing and the graph was never drawn: it reads everything when it is
      if (event.canvas_version) state.version = Math.max(state.version, event.canvas_version);
      updateCounters();
      document.dispatchEvent(new CustomEvent("jarvishub:canvas", { detail: event }));
      return;
    }
    if (event.resync || ids.length > 4 * BATCH) {
      await loadCanvas();
    } else {
      for (let i = 0; i < ids.length; i += BATCH) {
        const chunk = ids.slice(i, i + BATCH);
        await applyBatch(await getJSON(`/api/nodes?ids=${chunk.map(encodeURIComponent).join(",")}`));
      }
    }
    if (event.canvas_version) state.version = Math.max(state.version, event.canvas_version);
    updateCounters();
    document.dispatchEvent(new CustomEvent("jarvishub:canvas", { detail: event }));
    if (state.detailId && ids.includes(state.detailId)) showDetail(state.detailId);
  }

  async function applyBatch(batch) {
    for (const id of batch.removed) forget(id);
    const previous = new Map();
    for (const node of batch.nodes) {
      const before = state.nodes.get(node.id) || null;
      previous.set(node.id, before);
      // Until the layout places it again, a node stays where the page had it (the server keeps no layout).
      if (before && !node.pinned) { node.x = before.x; node.y = before.y; }
      state.nodes.set(node.id, node);
    }
    if (batch.edges) { // null: only positions changed
      const touched = new Set(batch.nodes.map((n) => n.id));
      for (const [edgeId, edge] of state.edges) {
        if (touched.has(edge.source) || touched.has(edge.target)) state.edges.delete(edgeId);
      }
      for (const edge of batch.edges) state.edges.set(edge.id, edge);
    }
    indexGroups();
    await arrange();
    for (const node of batch.nodes) upsertCard(node, previous.get(node.id));
    syncCards();
    redrawAround();
    if (batch.canvas_version) state.version = Math.max(state.version, batch.canvas_version);
  }

  function setLive(on) {
    state.live = on;
    const badge = $("#live");
    badge.textContent = on ? "live" : "offline";
    badge.className = `live ${on ? "on" : "off"}`;
  }

  function connectLive() {
    const source = new EventSource(`/api/events?since=${state.version}`);
    source.addEventListener("hello", () => setLive(true));
    source.addEventListener("open", () => setLive(true));
    source.addEventListener("error", () => setLive(false));
    source.addEventListener("canvas", (message) => onCanvasEvent(JSON.parse(message.data)));
    source.addEventListener("job", (message) => upsertJob(JSON.parse(message.data)));
  }

  async function main() {
    state.token = readToken();
    $("#send-request").disabled = !state.token;
    $("#run-query").disabled = !state.token;
    if (!state.token) {
      // Reads need the token too: without it there is nothing this page may show.
      $("#auth").textContent = "locked: open the address `jarvishub ui` printed (it carries the token)";
      document.body.dataset.ready = "locked";
      return;
    }
    try {
      // Same-site cookie for what cannot send a header (images, video, the event stream), asked for together
      // with the info (reads with the header need no cookie): nothing is drawn before both are here.
      const [, info] = await Promise.all([send("POST", "/api/session"), getJSON("/api/info")]);
      state.person = info.person;
      $("#project").textContent = info.project;
      $("#auth").textContent = `writing as person:${info.person}`;
      state.version = info.canvas_version;
      updateCounters();
      // The lenses (lenses.js) start now: a lens's first paint does not wait for the graph. The info is kept
      // as well as announced: lenses.js may run after this (deferred scripts wait for their own download), and
      // then it starts from state.info instead of waiting for an event that has gone.
      state.info = info;
      document.dispatchEvent(new CustomEvent("jarvishub:info", { detail: info }));
    } catch (error) {
      $("#auth").textContent = "locked: the token was refused; open the address `jarvishub ui` printed";
      document.body.dataset.ready = "locked";
      toast(`Cannot read the canvas: ${error.message}`);
      return;
    }
    connectLive(); // from the info's version: a lens follows the canvas before (or without) the graph
    getJSON("/api/jobs").then((jobs) => {
      for (const job of jobs) if (!state.jobs.has(job.id)) state.jobs.set(job.id, job);
      renderJobs();
    }).catch(() => { /* jobs are a convenience; the canvas works without them */ });
    // The graph is built when it is first shown (lenses.js opens the gate): a project that opens in a lens
    // does not build thousands of cards it hides. The load queues with the live changes, so none is lost.
    await state.graphGate;
    const load = changes.then(() => loadCanvas(fit));
    changes = load.catch((error) => toast(`Cannot draw the graph: ${error.message}`));
    const { started, fetched, count } = await load;
    await nextPaint();
    const painted = performance.now();
    state.timings = { nodes: count, fetchMs: fetched - started, renderMs: painted - fetched, totalMs: painted - started,
      readyAt: painted, layoutMs: state.layout.ms };
    $("#render-time").textContent = `${count} drawn in ${Math.round(painted - fetched)} ms`;
    document.body.dataset.ready = "1";
  }

  state.api = { getJSON, send, h, toast, pick, clearPicks, markPicked, fit, showDetail, nextPaint, toggleFold };
  state.graphGate = new Promise((resolve) => { state.openGraph = resolve; });
  main();
})();
