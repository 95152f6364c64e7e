// JarvisHub lenses: the work first (a storyboard as columns), the graph on demand.
// Plain JS beside app.js, whose model and helpers it uses through `window.jarvishub` (`state.api`).
"use strict";

(() => {
  const $ = (selector) => document.querySelector(selector);
  const state = window.jarvishub;
  const api = state.api;
  const h = api.h;
  const LENSES = ["story", "graph"]; // the lenses this page can draw; the server says which have content

  const lens = { current: null, index: null, story: null, loading: null, again: false, timings: {} };
  state.lens = lens;

  const thumb = (sha, width) => `/thumbs/${sha}?w=${width}`;

  // Media are attached only when a column comes near the view: a 2,000-node story loads what you look at.
  const near = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      near.unobserve(entry.target);
      const video = entry.target.querySelector("video[data-src]");
      if (video) { video.src = video.dataset.src; delete video.dataset.src; }
    }
  }, { root: null, rootMargin: "0px 800px" });

  // -- the Story lens ---------------------------------------------------------------------------------
  function badge(status) {
    return h("span", { class: `badge s-${status}` }, status);
  }

  function still(media, width, cls) {
    if (!media || !media.sha256) return h("div", { class: `${cls} empty` }, "no image yet");
    return h("img", { class: cls, src: thumb(media.sha256, width), loading: "lazy", decoding: "async", alt: media.title,
      width, height: Math.round(width * 9 / 16), dataset: { id: media.node_id } });
  }

  function stackEntry(entry) {
    return h("li", { dataset: { id: entry.node_id, role: entry.role, status: entry.status }, title: entry.title },
      still(entry, 160, "stack-still"), h("span", { class: "role" }, entry.role), badge(entry.status));
  }

  function shotColumn(shot) {
    const clip = shot.clip && shot.clip.sha256
      ? h("video", { class: "clip", controls: true, preload: "metadata", muted: true, playsInline: true,
        dataset: { src: `/artifacts/${shot.clip.sha256}`, id: shot.clip.node_id } })
      : h("div", { class: "clip empty" }, "no clip yet");
    const column = h("article", { class: "shot", dataset: { id: shot.shot_id, status: shot.status }, tabIndex: 0 },
      h("header", null, h("span", { class: "num" }, String(shot.number)), h("span", { class: "title" }, shot.title),
        badge(shot.status)),
      still(shot.image, 320, "still"),
      clip,
      shot.text ? h("p", { class: "text" }, shot.text) : null,
      h("h3", null, shot.stack.length ? `${shot.stack.length} other version${shot.stack.length === 1 ? "" : "s"}` : "no other versions"),
      h("ul", { class: "stack" }, shot.stack.map(stackEntry)));
    near.observe(column);
    return column;
  }

  function drawStory(story) {
    const started = performance.now();
    const shots = $("#story-shots");
    shots.replaceChildren(...story.shots.map(shotColumn));
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
    lens.timings.storyDrawMs = performance.now() - started;
  }

  async function loadStory() {
    // One load at a time; a change during a load asks for one more after it.
    if (lens.loading) { lens.again = true; return lens.loading; }
    lens.loading = (async () => {
      do {
        lens.again = false;
        const started = performance.now();
        const story = await api.getJSON("/api/lenses/story");
        lens.timings.storyFetchMs = performance.now() - started;
        lens.story = story;
        drawStory(story);
      } while (lens.again);
    })().finally(() => { lens.loading = null; });
    return lens.loading;
  }

  function markPicked() {
    for (const el of document.querySelectorAll("#lens .picked")) el.classList.remove("picked");
    for (const id of state.picked) {
      for (const el of document.querySelectorAll(`#lens [data-id="${CSS.escape(id)}"]`)) {
        (el.closest(".shot, li") || el).classList.add("picked");
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
    $("#story").hidden = name !== "story";
    document.body.dataset.lens = name;
    if (graph) {
      api.fit();
    } else if (name === "story") {
      await loadStory();
    }
    await api.nextPaint();
    document.body.dataset.lensReady = name;
  }

  $("#lens-tabs").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-lens]");
    if (button) show(button.dataset.lens).catch((error) => api.toast(`The ${button.dataset.lens} lens failed: ${error.message}`));
  });

  async function start() {
    const started = performance.now();
    try {
      lens.index = await api.getJSON("/api/lenses");
    } catch (error) {
      api.toast(`Cannot read the lenses: ${error.message}`);
      lens.index = { default: "graph", available: ["graph"] };
    }
    const available = lens.index.available.filter((l) => LENSES.includes(l));
    for (const button of document.querySelectorAll("#lens-tabs button")) button.hidden = !available.includes(button.dataset.lens);
    const asked = state.askedLens && LENSES.includes(state.askedLens) ? state.askedLens : null;
    const first = asked || (available.includes(lens.index.default) ? lens.index.default : "graph");
    await show(first);
    lens.timings.firstLensMs = performance.now() - started;
  }

  document.addEventListener("jarvishub:info", () => {
    start().catch((error) => api.toast(`The lens failed: ${error.message}`));
  }, { once: true });
  document.addEventListener("jarvishub:picked", markPicked);
  document.addEventListener("jarvishub:canvas", () => {
    if (lens.current === "story") loadStory().catch((error) => api.toast(`Story update failed: ${error.message}`));
    else lens.story = null;
  });
})();
