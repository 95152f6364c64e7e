// JarvisHub web canvas: the Graph lens's layered layout, off the page's main thread.
// The page (app.js, `layInWorker`) sends the shapes of the parts it has not laid out yet; each shape is a node
// count and its links as [origin index, derived index] pairs.  dagre (the vendored build, same origin) places
// them left to right, origin first; the answer is each shape's card corners and size, and the time it took.
"use strict";

importScripts("/static/vendor/dagre.min.js");

function layShape(shape, card) {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 60, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  for (let i = 0; i < shape.n; i++) g.setNode(String(i), { width: card.w, height: card.h });
  for (const [from, to] of shape.links) g.setEdge(String(from), String(to));
  dagre.layout(g);
  const at = [];
  for (let i = 0; i < shape.n; i++) {
    const p = g.node(String(i));
    at.push({ x: p.x - card.w / 2, y: p.y - card.h / 2 });
  }
  return { at, w: g.graph().width, h: g.graph().height };
}

self.onmessage = ({ data }) => {
  const started = performance.now();
  try {
    const laid = data.shapes.map((shape) => [shape.key, layShape(shape, data.card)]);
    self.postMessage({ id: data.id, laid, ms: performance.now() - started });
  } catch (error) {
    self.postMessage({ id: data.id, error: `dagre failed: ${error && error.message ? error.message : error}` });
  }
};
