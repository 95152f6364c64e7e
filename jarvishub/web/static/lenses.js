// JarvisHub lenses: the work first (a storyboard as columns), the graph on demand.
// Plain JS beside app.js, whose model and helpers it uses through `window.jarvishub` (`state.api`).
"use strict";

(() => {
  const $ = (selector) => document.querySelector(selector);
  const state = window.jarvishub;
  const api = state.api;
  const h = api.h;
  const LENSES = ["story", "deck", "page", "graph"]; // the lenses this page can draw; the server says which have content

  const lens = { current: null, index: null, data: {}, loading: {}, again: {}, timings: {} };
  state.lens = lens;
  state.titles = state.titles || new Map(); // node id -> title, for selection chips when the graph is not loaded
  // app.js waits on its gate before it builds the graph: opened when the graph is first shown.
  lens.openGraph = state.openGraph;

  const thumb = (sha, width) => `/thumbs/${sha}?w=${width}`;

  // -- the Story lens ---------------------------------------------------------------------------------
  function badge(status) {
    return h("span", { class: `badge s-${status}` }, status);
  }

  function still(media, width, cls) {
    if (!media || !media.sha256) return h("div", { class: `${cls} empty` }, "no image yet");
    return h("img", { class: cls, src: thumb(media.sha256, width), loading: "lazy", decoding: "async", alt: media.title,
      width, height: Math.round(width * 9 / 16), dataset: { id: media.node_id } });
  }

  function versionsButton(media) {
    return media ? h("button", { type: "button", class: "quiet versions-button", dataset: { versions: media.node_id },
      title: "see every version side by side; restore or reject one" }, "Versions") : null;
  }

  function stackEntry(entry) {
    return h("li", { dataset: { id: entry.node_id, role: entry.role, status: entry.status }, title: entry.title },
      still(entry, 160, "stack-still"), h("span", { class: "role" }, entry.role), badge(entry.status));
  }

  function shotColumn(shot) {
    // preload=none with the still as poster: a column costs one thumbnail, and its clip loads when played.
    const clip = shot.clip && shot.clip.sha256
      ? h("video", { class: "clip", controls: true, preload: "none", muted: true, playsInline: true,
        src: `/artifacts/${shot.clip.sha256}`, poster: shot.image && shot.image.sha256 ? thumb(shot.image.sha256, 320) : null,
        width: 320, height: 180, dataset: { id: shot.clip.node_id } })
      : h("div", { class: "clip empty" }, "no clip yet");
    const column = h("article", { class: "shot", dataset: { id: shot.shot_id, status: shot.status }, tabIndex: 0 },
      h("header", null, h("span", { class: "num" }, String(shot.number)), h("span", { class: "title" }, shot.title),
        badge(shot.status), versionsButton(shot.image)),
      still(shot.image, 320, "still"),
      clip,
      shot.text ? h("p", { class: "text" }, shot.text) : null,
      h("h3", null, shot.stack.length ? `${shot.stack.length} other version${shot.stack.length === 1 ? "" : "s"}` : "no other versions"),
      h("ul", { class: "stack" }, shot.stack.map(stackEntry)));
    if (state.picked.has(shot.shot_id)) column.classList.add("picked");
    return column;
  }

  // Only the columns in view (and two either side) are in the page: a 400-shot story builds a dozen columns,
  // and scrolling adds and drops one at a time.  The row is a grid with one track per shot, so a column is
  // placed by its track and the row's size follows from CSS: the scroll path reads two numbers and writes,
  // it never measures an element (no forced layout while scrolling).
  const COLUMN_STEP = 336 + 14; // a column's width and the gap after it (app.css .shot, #story-columns)
  const strip = { shots: [], keys: [], columns: new Map(), queued: false, width: 0 };

  function renderWindow(scrollLeft) {
    const row = $("#story-shots");
    const inner = $("#story-columns");
    const count = strip.shots.length;
    const left = scrollLeft ?? row.scrollLeft;
    if (!strip.width) strip.width = Math.max(row.clientWidth, 1);
    const first = Math.max(0, Math.floor(left / COLUMN_STEP) - 2);
    const last = Math.min(count - 1, Math.ceil((left + strip.width) / COLUMN_STEP) + 2);
    for (const [i, column] of strip.columns) {
      if (i < first || i > last) { column.remove(); strip.columns.delete(i); }
    }
    for (let i = first; i <= last; i++) {
      if (strip.columns.has(i)) continue;
      const column = shotColumn(strip.shots[i]);
      column.style.gridColumn = String(i + 1);
      inner.append(column);
      strip.columns.set(i, column);
    }
  }

  $("#story-shots").addEventListener("scroll", (event) => {
    if (strip.queued) return;
    strip.queued = true;
    const row = event.currentTarget;
    requestAnimationFrame(() => { strip.queued = false; renderWindow(row.scrollLeft); });
  }, { passive: true });
  window.addEventListener("resize", () => { strip.width = 0; if (lens.current === "story") renderWindow(); });

  function remember(...items) {
    for (const item of items) if (item) state.titles.set(item.node_id, item.title);
  }

  function drawStory(story) {
    for (const shot of story.shots) {
      state.titles.set(shot.shot_id, shot.title);
      remember(shot.image, shot.clip, ...shot.stack);
    }
    // A change redraws only the columns whose shot changed: the others keep their elements (and pictures).
    const keys = story.shots.map((shot) => JSON.stringify(shot));
    for (const [i, column] of strip.columns) {
      if (strip.keys[i] !== keys[i]) { column.remove(); strip.columns.delete(i); }
    }
    strip.shots = story.shots;
    strip.keys = keys;
    $("#story-columns").style.setProperty("--shots", String(Math.max(1, story.shots.length)));
    renderWindow();
    const cut = $("#cut");
    cut.hidden = !story.cut;
    if (story.cut && story.cut.sha256) {
      const video = $("#cut-video");
      const src = `/artifacts/${story.cut.sha256}`;
      if (video.getAttribute("src") !== src) video.src = src;
      video.dataset.id = story.cut.node_id;
      const byClip = new Map(story.shots.filter((s) => s.clip).map((s) => [s.clip.node_id, s]));
      $("#cut-strip").replaceChildren(...story.cut_clip_ids.map((id, i) => {
        const shot = byClip.get(id);
        return h("li", { dataset: { clip: id, shot: shot ? shot.shot_id : "" } },
          shot ? still(shot.image, 160, "strip-still") : h("div", { class: "strip-still empty" }, "an older clip"),
          h("span", null, `${i + 1}. ${shot ? shot.title : id}`));
      }));
    }
    markPicked();
  }

  // -- the Deck lens -----------------------------------------------------------------------------------------
  // A picked slide follows its line, as in the Graph lens: one that was a card's current slide and is now an older
  // version of a card (an edit made a new version) is replaced by that card's current slide; an older version
  // picked from a card's stack on purpose stays.
  let currentSlides = new Set();
  function followSlides(deck) {
    const newest = new Map(deck.slides.flatMap((card) => card.versions.map((v) => [v.node_id, card.slide.node_id])));
    const moved = [...state.picked].filter((id) => currentSlides.has(id) && newest.has(id));
    for (const id of moved) { state.picked.delete(id); state.picked.add(newest.get(id)); }
    currentSlides = new Set(deck.slides.map((card) => card.slide.node_id));
    if (moved.length) api.markPicked();
  }

  function drawDeck(deck) {
    for (const card of deck.slides) remember(card.slide, ...card.versions);
    followSlides(deck);
    $("#deck-title").textContent = deck.deck ? `${deck.deck.title} · ${deck.slides.length} slides` : "no deck yet";
    $("#deck-slides").replaceChildren(...deck.slides.map((card) => h("li",
      { class: "slide", dataset: { id: card.slide.node_id, status: card.slide.status }, tabIndex: 0 },
      h("header", null, h("span", { class: "num" }, String(card.number)), h("span", { class: "title" }, card.slide.title),
        badge(card.slide.status), versionsButton(card.slide)),
      still(card.slide, 320, "still"),
      card.versions.length ? h("ul", { class: "stack" }, card.versions.map(stackEntry)) : h("p", { class: "muted" }, "no other versions"))));
    markPicked();
  }

  $("#deck-slides").addEventListener("click", (event) => {
    const target = event.target.closest(".stack li[data-id]") || event.target.closest(".slide[data-id]");
    if (target) api.pick(target.dataset.id, event.shiftKey || event.metaKey || event.ctrlKey);
  });

  // -- the Page lens -----------------------------------------------------------------------------------------
  // A change redraws only what it changed: a version's item is kept while its data is the same (its picture
  // is not fetched again), the sections while the page is the same, and the frame reloads only for a new page.
  const pageDrawn = { versions: new Map(), sectionsKey: null };

  function pageVersionItem(v) {
    const key = JSON.stringify(v);
    const kept = pageDrawn.versions.get(v.node_id);
    if (kept && kept.key === key) return kept.el;
    const el = h("li", { dataset: { id: v.node_id, status: v.status, current: String(v.current) } },
      still(v, 160, "stack-still"),
      h("span", { class: "role" }, v.current ? "current" : "older"), badge(v.status),
      v.change ? h("span", { class: "muted" }, v.change) : null);
    pageDrawn.versions.set(v.node_id, { key, el });
    return el;
  }

  function drawPage(page) {
    remember(...page.versions);
    const frame = $("#page-frame");
    if (!page.page) {
      frame.removeAttribute("src");
      delete frame.dataset.src;
      pageDrawn.versions.clear();
      pageDrawn.sectionsKey = null;
      $("#page-sections").replaceChildren(h("li", { class: "muted" }, "no page yet"));
      $("#page-versions").replaceChildren();
      return;
    }
    const src = page.frame_src || `/pages/${page.page.node_id}/${encodeURIComponent(page.entry)}`;
    if (frame.dataset.src !== src) { frame.src = src; frame.dataset.src = src; frame.dataset.id = page.page.node_id; }
    $("#page-versions-open").dataset.versions = page.page.node_id;
    const sectionsKey = JSON.stringify([page.page.node_id, page.sections]);
    if (pageDrawn.sectionsKey !== sectionsKey) {
      const chosen = lens.sections && lens.sections.page === page.page.node_id ? lens.sections.names : [];
      $("#page-sections").replaceChildren(...page.sections.map((section) =>
        h("li", { dataset: { section, id: page.page.node_id }, tabIndex: 0, class: chosen.includes(section) ? "current" : null }, section)));
      pageDrawn.sectionsKey = sectionsKey;
    }
    const items = page.versions.map(pageVersionItem);
    const shown = new Set(page.versions.map((v) => v.node_id));
    for (const id of [...pageDrawn.versions.keys()]) if (!shown.has(id)) pageDrawn.versions.delete(id);
    const list = $("#page-versions");
    if (items.length !== list.children.length || items.some((el, i) => list.children[i] !== el)) list.replaceChildren(...items);
    markPicked();
  }

  // A section is shown in the frame (its anchor) and selected: the page is picked, and a request sent while it
  // is sends the section with it (`PAGE_ID#section`), which the interpreter reads as "the heading", "it".
  // Shift-, Ctrl- or Cmd-click adds a section to the selection (or takes it out): "remove these" then means
  // every one of them.
  lens.sections = null; // { page, names } while sections of the picked page are selected
  function markSections() {
    const names = lens.sections ? lens.sections.names : [];
    for (const el of document.querySelectorAll("#page-sections li[data-section]")) {
      el.classList.toggle("current", names.includes(el.dataset.section));
    }
  }
  $("#page-sections").addEventListener("click", (event) => {
    const item = event.target.closest("li[data-section]");
    if (!item) return;
    const add = event.shiftKey || event.metaKey || event.ctrlKey;
    const page = item.dataset.id;
    const name = item.dataset.section;
    const frame = $("#page-frame");
    let names = add && lens.sections && lens.sections.page === page ? lens.sections.names.slice() : [];
    names = names.includes(name) ? names.filter((n) => n !== name) : [...names, name];
    if (names.includes(name)) frame.src = `${frame.dataset.src}#${encodeURIComponent(name)}`;
    lens.sections = names.length ? { page, names } : null;
    markSections();
    if (!names.length) { api.pick(page, true); return; } // the last section let go: so is the page
    if (!add || !state.picked.has(page)) api.pick(page, add);
    else api.markPicked(); // the page stays picked; its chip names the sections again
  });
  state.selectionToSend = () => [...state.picked].flatMap((id) =>
    (lens.sections && lens.sections.page === id ? lens.sections.names.map((name) => `${id}#${name}`) : [id]));
  document.addEventListener("jarvishub:picked", () => { // the page let go: so are its sections
    if (lens.sections && !state.picked.has(lens.sections.page)) {
      lens.sections = null;
      markSections();
    }
    if (!lens.sections) return;
    for (const chip of document.querySelectorAll("#selection .chip")) {
      if (chip.title === lens.sections.page) chip.textContent += ` · ${lens.sections.names.join(", ")}`;
    }
  });
  $("#page-versions").addEventListener("click", (event) => {
    const item = event.target.closest("li[data-id]");
    if (item) api.pick(item.dataset.id, event.shiftKey || event.metaKey || event.ctrlKey);
  });

  // -- versions side by side ---------------------------------------------------------------------------------
  const versions = { nodeId: null, history: null, mode: "side", compare: null };
  lens.versions = versions;

  function changeText(changes) {
    return Object.entries(changes || {}).map(([field, change]) => {
      const show = (v) => (typeof v === "string" ? (/^[0-9a-f]{64}$/.test(v) ? `${v.slice(0, 10)}…` : v) : JSON.stringify(v) ?? "");
      return h("li", null, h("code", null, field), ": ", show(change.before).slice(0, 80), " → ", show(change.after).slice(0, 80));
    });
  }

  function versionPreview(v) {
    if (!v.sha256) return h("div", { class: "preview empty" }, "no picture");
    const node = v.kind === "video" || v.kind === "clip";
    return node
      ? h("video", { class: "preview", controls: true, preload: "metadata", muted: true, src: `/artifacts/${v.sha256}` })
      : h("img", { class: "preview", src: thumb(v.sha256, 640), loading: "lazy", alt: `version ${v.number}` });
  }

  function versionCard(v) {
    return h("article", { class: "version", dataset: { number: String(v.number), id: v.node_id, current: String(v.current), status: v.status } },
      h("header", null, h("strong", null, `version ${v.number}`), v.current ? h("span", { class: "badge s-selected" }, "current") : badge(v.status),
        v.restored_from ? h("span", { class: "muted" }, `restores v${v.restored_from}`) : null),
      versionPreview(v),
      v.request ? h("p", { class: "request" }, `“${v.request}”`) : null,
      Object.keys(v.changes || {}).length ? h("ul", { class: "changes" }, changeText(v.changes)) : h("p", { class: "muted" }, v.replaced ? "no change in its inputs" : "the original"),
      h("div", { class: "row" },
        v.current ? null : h("button", { type: "button", dataset: { restore: String(v.number) }, disabled: !state.token }, "Restore"),
        v.status === "rejected" ? null : h("button", { type: "button", class: "quiet", dataset: { reject: v.node_id }, disabled: !state.token }, "Reject"),
        v.sha256 && !v.current ? h("button", { type: "button", class: "quiet", dataset: { compare: String(v.number) } }, "Slider") : null));
  }

  function drawSlider() {
    const history = versions.history;
    const current = history.versions.find((v) => v.current) || history.versions[history.versions.length - 1];
    const other = history.versions.find((v) => v.number === versions.compare) ||
      [...history.versions].reverse().find((v) => v !== current && v.sha256);
    if (!other || !current.sha256) { $("#slider-caption").textContent = "nothing to compare"; return; }
    $("#slider-under").src = thumb(current.sha256, 640);
    $("#slider-over").src = thumb(other.sha256, 640);
    $("#slider-caption").textContent = `left: version ${other.number} · right: version ${current.number} (current)`;
    $("#slider-range").dispatchEvent(new Event("input"));
  }
  $("#slider-range").addEventListener("input", () => {
    $("#slider-over").style.clipPath = `inset(0 ${100 - Number($("#slider-range").value)}% 0 0)`;
  });

  function drawVersions() {
    const history = versions.history;
    $("#versions-title").textContent = `${history.output} · ${history.versions.length} version${history.versions.length === 1 ? "" : "s"}`;
    $("#versions-side").replaceChildren(...history.versions.map(versionCard));
    $("#versions-side").hidden = versions.mode !== "side";
    $("#versions-slider").hidden = versions.mode !== "slider";
    for (const b of document.querySelectorAll("#versions button[data-mode]")) b.classList.toggle("active", b.dataset.mode === versions.mode);
    if (versions.mode === "slider") drawSlider();
  }

  async function openVersions(nodeId) {
    versions.nodeId = nodeId;
    versions.history = await api.getJSON(`/api/nodes/${encodeURIComponent(nodeId)}/versions`);
    $("#versions").hidden = false;
    drawVersions();
    $("#versions").dataset.ready = nodeId;
  }

  async function versionAction(button) {
    button.disabled = true;
    try {
      if (button.dataset.restore) {
        const answer = await api.send("POST", `/api/nodes/${encodeURIComponent(versions.nodeId)}/restore`, { version: Number(button.dataset.restore) });
        api.toast(`Version ${answer.restored_version} of ${answer.output} is current again (as version ${answer.new_version}).`);
        versions.nodeId = answer.node_id;
      } else if (button.dataset.reject) {
        await api.send("POST", `/api/nodes/${encodeURIComponent(button.dataset.reject)}/reject`, { reason: "rejected from the version view" });
        api.toast("Set aside.");
      }
      await openVersions(versions.nodeId);
    } catch (error) {
      api.toast(`Not done: ${error.message}`);
      button.disabled = false;
    }
  }

  $("#versions").addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.id === "versions-close") { $("#versions").hidden = true; return; }
    if (button.dataset.mode) { versions.mode = button.dataset.mode; drawVersions(); return; }
    if (button.dataset.compare) { versions.compare = Number(button.dataset.compare); versions.mode = "slider"; drawVersions(); return; }
    if (button.dataset.restore || button.dataset.reject) versionAction(button);
  });

  // Any lens's "Versions" button opens the panel (it sits above the lens's own click handling).
  $("#lens").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-versions]");
    if (!button) return;
    event.stopPropagation();
    openVersions(button.dataset.versions).catch((error) => api.toast(`No versions: ${error.message}`));
  }, true);

  // -- loading -----------------------------------------------------------------------------------------------
  const DRAW = { story: drawStory, deck: drawDeck, page: drawPage };
  lens.updates = []; // each answer a lens drew: whole or a patch (what the tests and the bench read)

  function patchStory(held, patch) { // a StoryPatch applied to the answer held: the changed columns replaced
    const shots = held.shots.slice();
    for (const column of patch.columns) shots[column.number - 1] = column;
    return { ...held, canvas_version: patch.canvas_version, shots, cut: patch.cut,
      cut_clip_ids: patch.cut_clip_ids === null ? held.cut_clip_ids : patch.cut_clip_ids };
  }

  async function load(name) {
    // One load per lens at a time; a change during a load asks for one more after it.
    if (lens.loading[name]) { lens.again[name] = true; return lens.loading[name]; }
    lens.loading[name] = (async () => {
      do {
        lens.again[name] = false;
        const started = performance.now();
        const held = lens.data[name];
        // The Story lens asks for what changed since the answer it holds (a patch of the changed columns);
        // the server answers with the whole lens when it no longer keeps that answer or the shots changed.
        const url = name === "story" && held ? `/api/lenses/story?since=${held.canvas_version}` : `/api/lenses/${name}`;
        const answer = await api.getJSON(url);
        lens.timings[`${name}FetchMs`] = performance.now() - started;
        const data = answer.since !== undefined ? patchStory(held, answer) : answer;
        lens.updates.push({ lens: name, patch: answer.since !== undefined, columns: answer.columns ? answer.columns.length : null });
        if (lens.updates.length > 50) lens.updates.shift();
        lens.data[name] = data;
        DRAW[name](data);
        lens.timings[`${name}DrawMs`] = performance.now() - started - lens.timings[`${name}FetchMs`];
      } while (lens.again[name]);
    })().finally(() => { lens.loading[name] = null; });
    return lens.loading[name];
  }

  function markPicked() {
    for (const el of document.querySelectorAll("#lens .picked")) el.classList.remove("picked");
    for (const id of state.picked) {
      for (const el of document.querySelectorAll(`#lens [data-id="${CSS.escape(id)}"]`)) {
        if (el.matches("#page-sections li")) continue; // the page is picked; its sections are not nodes
        (el.closest(".shot, .slide, li") || el).classList.add("picked");
      }
    }
  }

  $("#story-shots").addEventListener("click", (event) => {
    if (event.target.closest("video")) return; // the player's own controls
    const item = event.target.closest(".stack li[data-id]");
    const column = event.target.closest(".shot[data-id]");
    const target = item || column;
    if (target) api.pick(target.dataset.id, event.shiftKey || event.metaKey || event.ctrlKey);
  });

  // -- switching -------------------------------------------------------------------------------------------
  async function show(name) {
    lens.current = name;
    for (const button of document.querySelectorAll("#lens-tabs button")) {
      button.classList.toggle("active", button.dataset.lens === name);
      button.setAttribute("aria-pressed", String(button.dataset.lens === name));
    }
    const graph = name === "graph";
    $("#lens").hidden = graph;
    $("#viewport").hidden = !graph;
    for (const body of document.querySelectorAll("#lens .lens-body")) body.hidden = body.id !== name;
    document.body.dataset.lens = name;
    if (graph) {
      lens.openGraph();
      if (state.graphLoaded) api.fit();
    } else {
      await load(name);
    }
    await api.nextPaint();
    lens.timings.readyAt = performance.now(); // since navigation start: what the bench reports
    document.body.dataset.lensReady = name;
  }

  $("#lens-tabs").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-lens]");
    if (button) show(button.dataset.lens).catch((error) => api.toast(`The ${button.dataset.lens} lens failed: ${error.message}`));
  });

  // Which lenses the canvas has is asked for at once, beside the session and the info (app.js has read the
  // token by now), so the first lens waits for two round trips, not four.
  const indexRequest = state.token ? api.getJSON("/api/lenses").catch(() => null) : null;

  async function start() {
    const started = performance.now();
    try {
      lens.index = (await indexRequest) || await api.getJSON("/api/lenses"); // asked again to say why it failed
    } catch (error) {
      api.toast(`Cannot read the lenses: ${error.message}`);
      lens.index = { default: "graph", available: ["graph"] };
    }
    if (lens.index.counts) $("#node-count").textContent = `${lens.index.counts.nodes} nodes`;
    const available = lens.index.available.filter((l) => LENSES.includes(l));
    for (const button of document.querySelectorAll("#lens-tabs button")) button.hidden = !available.includes(button.dataset.lens);
    const asked = state.askedLens && LENSES.includes(state.askedLens) ? state.askedLens : null;
    const first = asked || (available.includes(lens.index.default) ? lens.index.default : "graph");
    await show(first);
    lens.timings.firstLensMs = performance.now() - started;
  }

  // app.js may have read the info before this script arrived (it then kept it in state.info), or not yet.
  const begin = () => start().catch((error) => api.toast(`The lens failed: ${error.message}`));
  if (state.info) begin();
  else document.addEventListener("jarvishub:info", begin, { once: true });
  document.addEventListener("jarvishub:picked", markPicked);
  // Whether a change can alter a lens: it touched a node the lens shows (a link counts for both its ends, so
  // a new version, clip or preview touches what it was made from), or made a node of a kind that can start
  // a new entry of its own (a shot, a deck or slide, a page).  Anything else leaves the lens as it is.
  const NEW_ENTRY_KINDS = { story: ["shot"], deck: ["deck", "slide"], page: ["code"] };

  function lensIds(data) { // every node id a lens's answer names
    const ids = new Set();
    const walk = (value, key) => {
      if (typeof value === "string") { if (/_ids?$/.test(key)) ids.add(value); return; }
      if (Array.isArray(value)) { for (const item of value) walk(item, key); return; }
      if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, k);
    };
    walk(data, "");
    return ids;
  }

  function touches(name, event) {
    const data = lens.data[name];
    if (!data || event.resync || !event.node_ids || !event.kinds) return true;
    if (name === "page" && !data.page) return true;
    if (event.kinds.some((kind) => NEW_ENTRY_KINDS[name].includes(kind))) return true;
    const ids = lensIds(data);
    return event.node_ids.some((id) => ids.has(id));
  }

  document.addEventListener("jarvishub:canvas", (event) => {
    const name = lens.current; // another lens is fetched again when it is shown
    if (!DRAW[name]) return;
    if (!touches(name, event.detail)) { lens.skipped = (lens.skipped || 0) + 1; return; }
    load(name).catch((error) => api.toast(`The lens did not update: ${error.message}`));
  });
})();
