// codefathom ui: pages rendered from the JSON API under /api/ (no framework, no build step).
// Routes live in the URL's hash: #/search?q=..., #/symbol?name=..., #/file?path=..., #/map?path=...
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const STATUS_EVERY_MS = 3000; // how often the map page and the header refresh the index's health
const COLUMN_MAX = 30; // nodes one column of a graph draws; the rest are counted in a "+N more" node
const CALLABLE = new Set(["function", "method", "class"]);

// -- small DOM helpers (text is always set as text: nothing from the index is parsed as HTML) --------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined) el.setAttribute(key, value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

function link(href, ...children) { return h("a", { href }, ...children); }
function route(page, params) { return "#/" + page + "?" + new URLSearchParams(params).toString(); }
function symbolHref(name) { return route("symbol", { name }); }
function fileHref(path) { return route("file", { path }); }
function kindBadge(kind) { return h("span", { class: "kind " + kind }, kind); }
function fmt(n) { return Number(n || 0).toLocaleString("en-US"); }
function plural(n, word) { return fmt(n) + " " + word + (n === 1 ? "" : "s"); }

function ago(seconds) {
  if (!seconds) return "never";
  const d = Date.now() / 1000 - seconds;
  if (d < 60) return Math.max(0, Math.round(d)) + " s ago";
  if (d < 3600) return Math.round(d / 60) + " min ago";
  if (d < 86400) return Math.round(d / 3600) + " h ago";
  return Math.round(d / 86400) + " days ago";
}

// Wraps each occurrence of `terms` (case-insensitive) in <mark>; `pattern` instead: a regular expression.
function highlighted(text, terms, pattern) {
  let re = null;
  if (pattern) {
    try { re = new RegExp(pattern.replace(/^\(\?i\)/, ""), pattern.startsWith("(?i)") ? "gi" : "g"); } catch (e) { re = null; }
  } else if (terms && terms.length) {
    const escaped = terms.filter(Boolean).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    escaped.sort((a, b) => b.length - a.length);
    if (escaped.length) re = new RegExp(escaped.join("|"), "gi");
  }
  const out = document.createDocumentFragment();
  if (!re) { out.append(text); return out; }
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (!m[0]) break; // an empty match would never move on
    out.append(text.slice(last, m.index), h("mark", {}, m[0]));
    last = m.index + m[0].length;
  }
  out.append(text.slice(last));
  return out;
}

// -- the API -------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(message, status) { super(message); this.status = status; }
}

async function api(name, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    if (value !== "" && value !== null && value !== undefined) query.set(key, value);
  }
  const response = await fetch("/api/" + name + "?" + query.toString(), {
    credentials: "same-origin", headers: { Accept: "application/json" },
  });
  let data;
  try { data = await response.json(); } catch (e) { data = { error: response.status + " " + response.statusText }; }
  if (!response.ok) {
    const why = data.error_description || data.error || response.statusText;
    throw new ApiError(response.status === 401 ? "not signed in: open the URL `codefathom ui` printed (it carries ?token=)" : why, response.status);
  }
  return data;
}

function errorBox(error) { return h("div", { class: "error" }, String(error.message || error)); }
function notices(data) { return (data.notices || []).map((n) => h("div", { class: "notice" }, n)); }

// -- routing -------------------------------------------------------------------------------------

const main = () => document.getElementById("main");
let generation = 0; // a page's answers that arrive after the user moved on are dropped
let pageTimer = null;

function current() {
  const hash = location.hash.replace(/^#\/?/, "");
  const [page, query] = hash.split("?");
  return { page: page || "search", params: new URLSearchParams(query || "") };
}

async function render() {
  const { page, params } = current();
  const mine = ++generation;
  if (pageTimer) { clearInterval(pageTimer); pageTimer = null; }
  for (const a of document.querySelectorAll("[data-nav]")) a.classList.toggle("on", a.dataset.nav === page);
  const view = PAGES[page] || PAGES.search;
  const subject = params.get("name") || params.get("path") || params.get("q");
  document.title = (subject ? subject + " · " : "") + (page in PAGES ? page : "search") + " · codefathom";
  const root = h("div", { class: "page page-" + page });
  main().replaceChildren(root);
  const alive = () => mine === generation;
  try {
    await view(root, params, alive);
  } catch (error) {
    if (alive()) root.append(errorBox(error));
  }
  if (!alive()) return;
  document.body.dataset.ready = page; // a test (or a script) can wait for this
  // The first page's load, navigation to drawn (graphs included), for bench/ui.py to read.
  if (!document.body.dataset.loadMs) document.body.dataset.loadMs = String(Math.round(performance.now()));
}

// -- search --------------------------------------------------------------------------------------

const MODES = ["hybrid", "lexical", "vector", "literal", "regex", "path"];
const KINDS = ["", "module", "class", "function", "method", "section", "chunk", "directory"];

function searchForm(params, languages) {
  const field = (label, input) => h("label", {}, label, input);
  const q = h("input", { name: "q", value: params.get("q") || "", placeholder: "QuerySet.filter, retry failed uploads, a.py:120", autofocus: true });
  const mode = h("select", { name: "mode" }, MODES.map((m) => h("option", { value: m, selected: m === (params.get("mode") || "hybrid") }, m)));
  const lang = h("input", { name: "lang", value: params.get("lang") || "", placeholder: "python,ts", list: "languages" });
  const glob = h("input", { name: "glob", value: params.get("glob") || "", placeholder: "src/**/*.py" });
  const exclude = h("input", { name: "exclude", value: params.get("exclude") || "", placeholder: "tests/" });
  const kind = h("select", { name: "kind" }, KINDS.map((k) => h("option", { value: k, selected: k === (params.get("kind") || "") }, k || "any")));
  const lookupMode = () => { kind.disabled = ["literal", "regex", "path"].includes(mode.value); };
  mode.addEventListener("change", lookupMode);
  lookupMode();
  const list = h("datalist", { id: "languages" }, languages.map((l) => h("option", { value: l })));
  const form = h("form", { class: "filters panel", autocomplete: "off" },
    field("Query", q), field("Mode", mode), field("Language", lang), field("Path glob", glob),
    field("Exclude glob", exclude), field("Kind", kind), h("button", { type: "submit" }, "Search"), list);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = {};
    for (const [key, value] of new FormData(form)) if (String(value).trim()) next[key] = String(value).trim();
    location.hash = route("search", next);
  });
  return form;
}

async function searchPage(root, params, alive) {
  const status = await cachedStatus();
  root.append(searchForm(params, Object.keys(status.languages || {})));
  const q = params.get("q");
  document.getElementById("quick-q").value = q || "";
  if (!q) {
    root.append(h("div", { class: "panel empty" },
      "Search by name (", h("code", {}, "Store.replace_file"), "), by what the code does (",
      h("code", {}, "retry failed uploads"), "), or by a stack trace's ", h("code", {}, "path:line"),
      ". Or start from the ", link("#/map", "map of the project"), "."));
    return;
  }
  const started = performance.now();
  const data = await api("search", Object.fromEntries(params));
  if (!alive()) return;
  const ms = Math.round(performance.now() - started);
  root.append(...notices(data));
  if (data.mode === "literal" || data.mode === "regex") root.append(grepResults(data, ms));
  else if (data.mode === "path") root.append(pathResults(data, ms));
  else root.append(rankedResults(data, ms));
}

function rankedResults(data, ms) {
  const out = h("div", { class: "results" });
  out.append(h("div", { class: "summary" }, plural(data.results.length, "result"), " in ", ms, " ms",
    data.partial ? " (partial: the index is still being built)" : ""));
  if (!data.results.length) out.append(h("div", { class: "panel empty" }, "Nothing found. Try other words, another mode, or fewer filters."));
  for (const hit of data.results) out.append(hitCard(hit, data.terms));
  return out;
}

function hitCard(hit, terms) {
  const name = hit.qualified_name || hit.name || hit.path;
  const title = CALLABLE.has(hit.kind) ? link(symbolHref(hit.qualified_name), highlighted(name, terms))
    : hit.kind === "directory" ? link(route("map", { path: hit.path.replace(/\/$/, "") }), name)
      : link(fileHref(hit.path), highlighted(name, terms));
  const where = hit.kind === "directory" ? hit.path : `${hit.path}:${hit.start_line}-${hit.end_line}`;
  const card = h("article", { class: "hit", "data-kind": hit.kind },
    h("div", { class: "hit-head" }, kindBadge(hit.kind), h("span", { class: "name" }, title),
      h("a", { class: "loc", href: hit.kind === "directory" ? route("map", { path: hit.path }) : fileHref(hit.path) }, where),
      h("span", { class: "score", title: "score" }, Number(hit.score).toFixed(3))));
  if (hit.signature) card.append(h("pre", { class: "sig" }, highlighted(hit.signature, terms)));
  for (const other of hit.overloads || []) {  // the name's other definitions in the file
    card.append(h("div", { class: "also" }, "also ", link(fileHref(hit.path), `${other.start_line}-${other.end_line}`),
      " ", h("code", {}, other.signature)));
  }
  if (hit.kind === "directory") {
    card.append(h("pre", { class: "sig" }, hit.content || ""));
    if (hit.files) card.append(h("div", { class: "more" }, hit.files.map((f) => [link(fileHref(f), f), " "])));
    return card;
  }
  if (hit.lines && hit.lines.length) card.append(numberedLines(hit.lines, terms, hit.path));
  if (hit.more_lines) card.append(h("div", { class: "more" }, "+", plural(hit.more_lines, "more matching line")));
  return card;
}

function numberedLines(lines, terms, path, focus) {
  const list = h("ol", { class: "lines" });
  let previous = null;
  for (const [number, text] of lines) {
    if (previous !== null && number > previous + 1) list.append(h("li", { class: "gap" }));
    previous = number;
    const inFocus = focus && number >= focus[0] && number <= focus[1];
    list.append(h("li", { class: inFocus ? "focus" : null },
      h("span", { class: "ln" }, number), h("span", { class: "tx" }, highlighted(text, terms))));
  }
  return list;
}

function grepResults(data, ms) {
  const pattern = data.mode === "regex" ? data.pattern : null;
  const rows = data.matches.map((m) => h("tr", {},
    h("td", {}, link(fileHref(m.path), m.path + ":" + m.line)),
    h("td", { class: "tx" }, highlighted(m.text, pattern ? null : [data.pattern], pattern))));
  return h("div", {},
    h("div", { class: "summary" }, plural(data.total, "matching line"), " in ", plural(data.files, "file"),
      data.more ? ` (first ${data.matches.length} shown)` : "", " — ", ms, " ms"),
    h("div", { class: "panel" }, rows.length ? h("table", { class: "grep" }, rows) : h("div", { class: "empty" }, "No line matches.")));
}

function pathResults(data, ms) {
  const rows = data.files.map((f) => h("tr", {}, h("td", { class: "mono" }, link(fileHref(f.path), highlighted(f.path, [data.query]))),
    h("td", { class: "muted" }, f.language)));
  return h("div", {},
    h("div", { class: "summary" }, plural(data.total, "file"), " — ", ms, " ms"),
    h("div", { class: "panel" }, rows.length ? h("table", {}, rows) : h("div", { class: "empty" }, "No file path matches.")));
}

// -- layered graph ---------------------------------------------------------------------------------
// A centre node, trees growing left (callers, dependents) and right (callees, dependencies), one column
// per level. Nodes met twice on one side are drawn once; each column is ordered by where the nodes it
// links to sit in the column nearer the centre (barycentre), which keeps most edges from crossing.

function layered(center, left, right, labels) {
  const columns = new Map([[0, [center]]]);
  const byKey = new Map([["0:" + center.key, center]]);
  const edges = [];
  const seen = new Set(); // one edge per pair of nodes, however many call sites join them
  center.column = 0;
  const grow = (children, parent, level, step) => {
    for (const child of children || []) {
      const column = level * step;
      const key = (step < 0 ? "L:" : "R:") + child.key;
      let node = byKey.get(key);
      if (!node) {
        node = { ...child, column, links: [] };
        byKey.set(key, node);
        if (!columns.has(column)) columns.set(column, []);
        columns.get(column).push(node);
      }
      const edge = step < 0 ? { from: node, to: parent, unsure: child.unsure } : { from: parent, to: node, unsure: child.unsure };
      const id = edge.from.key + "\u0000" + edge.to.key + "\u0000" + step;
      if (!seen.has(id)) { seen.add(id); edges.push(edge); node.links.push(parent); }
      grow(child.children, node, level + 1, step);
    }
  };
  grow(left, center, 1, -1);
  grow(right, center, 1, 1);
  const keys = [...columns.keys()].sort((a, b) => a - b);
  center.y = 0;
  // Order outward from the centre, cutting long columns to COLUMN_MAX nodes and a "+N more" node.
  const outward = [...keys.filter((k) => k > 0), ...keys.filter((k) => k < 0).reverse()];
  const drop = (gone) => {
    for (const n of gone) n.dropped = true;
    for (let i = edges.length - 1; i >= 0; i--) if (edges[i].from.dropped || edges[i].to.dropped) edges.splice(i, 1);
  };
  for (const column of outward) {
    // A node linked only to nodes cut from the column nearer the centre goes too.
    const all = columns.get(column);
    let nodes = all.filter((n) => n.links.some((p) => !p.dropped));
    drop(all.filter((n) => !nodes.includes(n)));
    for (const n of nodes) {
      const ys = n.links.filter((p) => p.y !== undefined && !p.dropped).map((p) => p.y);
      n.bary = ys.length ? ys.reduce((a, b) => a + b, 0) / ys.length : 0;
    }
    nodes.sort((a, b) => a.bary - b.bary || a.label.localeCompare(b.label));
    if (nodes.length > COLUMN_MAX) {
      const cut = nodes.slice(COLUMN_MAX - 1);
      nodes = nodes.slice(0, COLUMN_MAX - 1);
      nodes.push({ key: "more" + column, label: `+${cut.length} more`, cls: "more", column, links: [], title: cut.map((c) => c.title).join("\n") });
      drop(cut);
    }
    columns.set(column, nodes);
    nodes.forEach((n, i) => { n.y = i; });
  }
  for (const k of keys) if (!columns.get(k).length) columns.delete(k);
  const drawn = keys.filter((k) => columns.has(k));
  return draw(columns, drawn, edges, labels);
}

function draw(columns, keys, edges, labels) {
  const ROW = 34, NODE_H = 24, GAP = 60, PAD = 16, HEAD = 26, CHAR = 7.2;
  const widths = new Map(keys.map((k) => [k, Math.min(250, Math.max(90, ...columns.get(k).map((n) => n.label.length * CHAR + 22)))]));
  const tallest = Math.max(...keys.map((k) => columns.get(k).length));
  const height = HEAD + PAD * 2 + tallest * ROW;
  let x = PAD;
  const xs = new Map();
  for (const k of keys) { xs.set(k, x); x += widths.get(k) + GAP; }
  const width = x - GAP + PAD;
  const place = (n) => {
    const count = columns.get(n.column).length;
    const top = HEAD + PAD + (tallest - count) * ROW / 2;
    return { x: xs.get(n.column), y: top + n.y * ROW, w: widths.get(n.column) };
  };
  const svg = s("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": labels.aria });
  svg.append(s("defs", {}, s("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
    s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow" }))));
  for (const k of keys) {
    const text = k === 0 ? "" : (k < 0 ? labels.left : labels.right) + (Math.abs(k) > 1 ? ` · ${Math.abs(k)}` : "");
    if (text) svg.append(s("text", { x: xs.get(k), y: 18, class: "colhead" }, text));
  }
  const edgeLayer = s("g", { class: "edges" });
  svg.append(edgeLayer);
  for (const e of edges) {
    const a = place(e.from), b = place(e.to);
    const x1 = a.x + a.w, y1 = a.y + NODE_H / 2, x2 = b.x - 2, y2 = b.y + NODE_H / 2;
    const bend = Math.max(30, (x2 - x1) / 2);
    edgeLayer.append(s("path", { class: "edge" + (e.unsure ? " unsure" : ""), "marker-end": "url(#arrow)",
      d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}` }));
  }
  for (const k of keys) {
    for (const n of columns.get(k)) {
      const p = place(n);
      const cls = ["node", n.cls || (k === 0 ? "root" : k < 0 ? labels.leftClass : labels.rightClass)];
      if (n.unsure) cls.push("unsure");
      const shown = n.label.length * CHAR + 22 > p.w ? n.label.slice(0, Math.floor((p.w - 22) / CHAR) - 1) + "…" : n.label;
      const box = [s("rect", { width: p.w, height: NODE_H, rx: 5 }), s("text", { x: 11, y: 16 }, shown), s("title", {}, n.title || n.label)];
      const g = s("g", { class: cls.join(" "), transform: `translate(${p.x},${p.y})`, "data-name": n.key, "data-column": k });
      g.append(n.href ? s("a", { href: n.href }, box) : s("g", {}, box));
      svg.append(g);
    }
  }
  return svg;
}

function shortName(qualified) {
  const parts = (qualified || "").split(".");
  return parts.slice(-2).join(".");
}

function callTree(nodes) {
  return (nodes || []).map((n) => ({
    key: n.qualified_name || `${n.path}:${n.line}`,
    label: n.qualified_name ? shortName(n.qualified_name) : "‹module› " + n.path.split("/").pop(),
    title: `${n.qualified_name || "module level of " + n.path}\n${n.path}:${n.line}  (${n.label})`,
    href: n.qualified_name ? symbolHref(n.qualified_name) : fileHref(n.path),
    unsure: n.label && n.label !== "exact",
    children: n.seen_before ? [] : callTree(n.children),
  }));
}

function fileTree(nodes) {
  return (nodes || []).map((n) => {
    const via = Object.entries(n.via || {}).map(([k, v]) => `${k} ${v}`).join(", ");
    const parts = n.path.split("/");
    return {
      key: n.path, label: parts.slice(-2).join("/"), title: `${n.path}\n${via}`, href: fileHref(n.path),
      children: n.seen_before ? [] : fileTree(n.children),
    };
  });
}

function depthTabs(depth, onPick) {
  return h("span", { class: "tabs" }, [1, 2].map((d) => h("button", {
    type: "button", class: d === depth ? "on" : null, onclick: () => onPick(d),
  }, "depth " + d)));
}

// -- symbol page -----------------------------------------------------------------------------------

async function symbolPage(root, params, alive) {
  const name = params.get("name");
  if (!name) { root.append(h("div", { class: "panel empty" }, "Give a name: #/symbol?name=Store.replace_file")); return; }
  const depth = Number(params.get("depth") || 1);
  const [found, refs] = await Promise.all([api("symbol", { name }), api("refs", { name })]);
  if (!alive()) return;
  if (!found.symbols.length) {
    root.append(h("div", { class: "panel empty" }, found.note || `No definition of ${name}.`, " ",
      link(route("search", { q: name }), "Search for it instead.")));
    return;
  }
  const first = found.symbols[0];
  const others = found.symbols.slice(1);
  root.append(h("div", { class: "head" }, kindBadge(first.kind), h("h1", {}, first.qualified_name),
    link(fileHref(first.path), h("span", { class: "loc" }, `${first.path}:${first.start_line}-${first.end_line}`))));
  if (first.signature) root.append(h("pre", { class: "sig panel" }, first.signature));
  if (first.doc) root.append(h("p", { class: "doc" }, first.doc));
  if (others.length) {
    root.append(h("p", { class: "small muted" }, `Also named ${name} (${found.total - 1} more): `,
      others.map((o) => [link(symbolHref(o.qualified_name), `${o.qualified_name} (${o.path}:${o.start_line})`), "  "])));
  }
  const graph = h("div", { class: "graph", id: "callgraph" }, h("div", { class: "empty" }, "Drawing the call graph…"));
  root.append(h("section", { class: "panel" },
    h("div", { class: "toolbar" }, h("h2", {}, "Call graph"), h("span", { class: "spacer" }),
      depthTabs(depth, (d) => { location.hash = route("symbol", { name, depth: d }); })),
    graph,
    h("div", { class: "legend" }, h("i", { class: "caller" }), "callers (who calls it)", h("i", { class: "root" }), "this definition",
      h("i", { class: "callee" }), "callees (what it calls)", "  · dashed: bound by a likely, not exact, reading")));
  const code = found.definition;
  root.append(h("div", { class: "cols" },
    h("section", { class: "panel" }, h("h2", {}, "Definition"),
      code.around && code.around.length > 1 ? h("div", { class: "around" }, "in ", code.around.slice(1).map((a) => `${a.kind} ${a.qualified_name}`).join(" < ")) : null,
      h("div", { class: "code" }, numberedLines(code.lines, [])),
      code.more ? h("div", { class: "more" }, `+${code.more} more lines`) : null),
    referencesPanel(refs, first)));
  await drawCalls(graph, name, first, depth, alive);
}

async function drawCalls(graph, name, symbol, depth, alive) {
  const [callers, callees] = await Promise.all([
    api("calls", { name, direction: "callers", depth }), api("calls", { name, direction: "callees", depth }),
  ]);
  if (!alive()) return;
  const pick = (data) => data.roots.find((r) => r.qualified_name === symbol.qualified_name && r.path === symbol.path) || data.roots[0];
  const up = pick(callers), down = pick(callees);
  const center = { key: symbol.qualified_name, label: shortName(symbol.qualified_name), title: `${symbol.qualified_name}\n${symbol.path}:${symbol.start_line}`, cls: "root" };
  const left = callTree(up ? up.children : []), right = callTree(down ? down.children : []);
  if (!left.length && !right.length) {
    graph.replaceChildren(h("div", { class: "empty" }, "No callers or callees found in the index."));
    return;
  }
  graph.replaceChildren(layered(center, left, right, {
    left: "callers", right: "callees", leftClass: "caller", rightClass: "callee", aria: `call graph of ${symbol.qualified_name}`,
  }));
  const cut = [callers, callees].filter((d) => d.truncated).map((d) => `${d.direction}: ${d.more} more left out`);
  if (cut.length) graph.after(h("div", { class: "notice" }, "The graph was cut: " + cut.join("; ")));
}

function referencesPanel(refs, symbol) {
  const mine = refs.references.filter((r) => !r.target || r.target === symbol.qualified_name);
  const byFile = new Map();
  for (const r of mine) {
    if (!byFile.has(r.path)) byFile.set(r.path, []);
    byFile.get(r.path).push(r);
  }
  const body = h("div", { class: "refs scroll" });
  for (const [path, list] of byFile) {
    body.append(h("div", { class: "file" }, link(fileHref(path), path)));
    body.append(h("table", {}, list.map((r) => h("tr", {},
      h("td", { class: "num" }, r.line), h("td", {}, r.scope ? link(symbolHref(r.scope), r.scope) : h("span", { class: "muted" }, "‹module›")),
      h("td", {}, h("span", { class: "label " + r.label }, r.label), " ", r.kind !== "call" ? h("span", { class: "muted small" }, r.kind) : null)))));
  }
  if (!mine.length) body.append(h("div", { class: "empty" }, "No references bound to it."));
  const total = refs.total_references;
  return h("section", { class: "panel" }, h("h2", {}, `References (${fmt(total)})`),
    ...notices(refs), body,
    total > mine.length ? h("div", { class: "more" }, `first ${mine.length} shown`) : null,
    refs.note ? h("div", { class: "muted small" }, refs.note) : null);
}

// -- file page -------------------------------------------------------------------------------------

async function filePage(root, params, alive) {
  const path = params.get("path");
  if (!path) { root.append(h("div", { class: "panel empty" }, "Give a file: #/file?path=src/app.py")); return; }
  const depth = Number(params.get("depth") || 1);
  const brief = await api("file", { path });
  if (!alive()) return;
  const dir = brief.path.includes("/") ? brief.path.slice(0, brief.path.lastIndexOf("/")) : "";
  root.append(h("div", { class: "head" }, kindBadge(brief.language), h("h1", {}, brief.path),
    h("span", { class: "muted small" }, `parse ${brief.status} · rank ${brief.rank}`),
    link(route("map", { path: dir }), "in the map")));
  root.append(...notices(brief));
  if (brief.error) root.append(h("div", { class: "notice" }, brief.error));
  if (brief.doc) root.append(h("p", { class: "doc" }, brief.doc));
  const graph = h("div", { class: "graph", id: "depgraph" }, h("div", { class: "empty" }, "Drawing the dependency graph…"));
  root.append(h("section", { class: "panel" },
    h("div", { class: "toolbar" }, h("h2", {}, "Dependencies and impact"), h("span", { class: "spacer" }),
      depthTabs(depth, (d) => { location.hash = route("file", { path: brief.path, depth: d }); })),
    graph,
    h("div", { class: "legend" }, h("i", { class: "caller" }), "dependents (impact: what uses this file)", h("i", { class: "root" }), "this file",
      h("i", { class: "callee" }), "dependencies (what it uses)")));
  const defs = brief.definitions.map((d) => h("tr", {},
    h("td", { class: "num" }, d.line), h("td", {}, kindBadge(d.kind)),
    h("td", {}, CALLABLE.has(d.kind) ? link(symbolHref(d.qualified_name), shortName(d.qualified_name)) : d.qualified_name),
    h("td", { class: "sig2" }, d.signature)));
  const side = h("section", { class: "panel" }, h("h2", {}, "Imports"),
    brief.imports.length ? h("table", {}, brief.imports.map((i) => h("tr", {}, h("td", { class: "mono" }, link(fileHref(i.path), i.path)),
      h("td", { class: "muted small" }, (i.names || []).join(", "))))) : h("div", { class: "muted small" }, "No project file imported."),
    brief.external.length ? [h("h2", { class: "sub" }, "External"), h("div", { class: "chips" }, brief.external.map((e) => h("span", { class: "chip" }, e)))] : null,
    brief.tests.length ? [h("h2", { class: "sub" }, "Tests"), h("table", {}, brief.tests.map((t) => h("tr", {},
      h("td", { class: "mono" }, link(fileHref(t.path), t.path)), h("td", { class: "muted small" }, t.why.join(", ")))))] : null);
  root.append(h("div", { class: "cols" },
    h("section", { class: "panel outline" }, h("h2", {}, `Outline (${brief.definitions.length})`),
      defs.length ? h("div", { class: "scroll" }, h("table", {}, defs)) : h("div", { class: "muted" }, "No definitions.")),
    side));
  const [dependents, dependencies] = await Promise.all([
    api("deps", { path: brief.path, direction: "dependents", depth }), api("deps", { path: brief.path, direction: "dependencies", depth }),
  ]);
  if (!alive()) return;
  const left = fileTree(dependents.roots[0] ? dependents.roots[0].children : []);
  const right = fileTree(dependencies.roots[0] ? dependencies.roots[0].children : []);
  if (!left.length && !right.length) {
    graph.replaceChildren(h("div", { class: "empty" }, "No file of the project depends on it, and it depends on none."));
    return;
  }
  const center = { key: brief.path, label: brief.path.split("/").slice(-2).join("/"), title: brief.path, cls: "root" };
  graph.replaceChildren(layered(center, left, right, {
    left: "dependents", right: "dependencies", leftClass: "dependent", rightClass: "dependency", aria: `dependencies of ${brief.path}`,
  }));
}

// -- map and health ----------------------------------------------------------------------------------

async function mapPage(root, params, alive) {
  const path = (params.get("path") || "").replace(/^\/+|\/+$/g, "");
  const health = h("section", { class: "panel health", id: "health" }, h("h2", {}, "Index health"), h("div", { class: "muted" }, "…"));
  const map = h("section", { class: "panel" });
  root.append(h("div", { class: "cols" }, map, health));
  const refresh = async () => {
    try {
      const status = await api("status");
      if (alive()) { health.replaceChildren(...healthView(status)); pill(status); }
    } catch (error) {
      if (alive()) health.replaceChildren(h("h2", {}, "Index health"), errorBox(error));
    }
  };
  const first = refresh();
  pageTimer = setInterval(refresh, STATUS_EVERY_MS);
  const data = await api("map", { path });
  if (!alive()) return;
  const only = data.entries.length === 1 && data.entries[0].kind === "directory" ? data.entries[0] : null;
  if (only && !path) { location.replace(route("map", { path: only.path })); return; } // one top directory: start inside it
  map.append(h("h2", {}, "Directory map"), crumbs(data.path), ...notices(data), bars(data));
  await first;
}

function crumbs(path) {
  const out = h("div", { class: "crumbs" }, link(route("map", {}), "(project)"));
  let so = "";
  for (const part of path ? path.split("/") : []) {
    so = so ? so + "/" + part : part;
    out.append(" / ", link(route("map", { path: so }), part));
  }
  return out;
}

function bars(data) {
  if (!data.entries.length) return h("div", { class: "empty" }, "No indexed files here.");
  const top = Math.max(...data.entries.map((e) => e.score), 1e-9);
  const total = data.entries.reduce((a, e) => a + e.score, 0) || 1;
  const out = h("div", { class: "bars" });
  for (const e of data.entries) {
    const href = e.kind === "directory" ? route("map", { path: e.path }) : fileHref(e.path);
    const fill = h("div", { class: "fill" + (e.kind === "file" ? " file" : "") });
    fill.style.width = (100 * e.score / top).toFixed(1) + "%";
    const langs = Object.entries(e.languages).map(([l, n]) => `${l} ${n}`).join(", ");
    out.append(h("div", { class: "row", "data-path": e.path },
      h("div", { class: "name", title: e.path }, link(href, e.name)),
      h("div", { class: "track", title: `PageRank ${e.score} (${(100 * e.score / total).toFixed(1)}% of this directory)` }, fill),
      h("div", { class: "num small", title: langs }, plural(e.files, "file")),
      h("div", { class: "num small" }, (100 * e.score / total).toFixed(1) + "%"),
      e.kind === "directory" ? h("div", { class: "tops" }, e.top_files.map((f) => link(fileHref(f), f.slice(e.path.length + 1)))) : null));
  }
  return out;
}

function healthView(st) {
  const out = [h("h2", {}, "Index health")];
  if (!st.indexed) {
    out.push(h("div", { class: "notice" }, "Not indexed yet: run ", h("code", {}, "codefathom index"), " in the project, or restart ", h("code", {}, "codefathom ui"), "."));
    return out;
  }
  const vectors = st.vectors || {};
  out.push(h("div", { class: "stats" },
    stat(fmt(st.files), "files"), stat(fmt(st.units), "units"), stat((st.index_bytes / 1e6).toFixed(1) + " MB", "index"),
    stat(ago(st.last_sync), "last sync"), stat(st.complete ? "complete" : "incomplete", "state"),
    stat(vectors.percent !== undefined ? vectors.percent + "%" : vectors.state || "—", "vectors")));
  if (st.indexing) out.push(h("h3", {}, "Indexing now"), meter(st.indexing.percent, true), h("div", { class: "small muted" },
    `${fmt(st.indexing.done)} of ${fmt(st.indexing.total)} files` + (st.indexing.eta_s ? `, about ${Math.round(st.indexing.eta_s)} s left` : "")));
  out.push(h("h3", {}, "Vectors"), vectorsView(vectors));
  out.push(h("h3", {}, "Languages"), languageBars(st.languages));
  out.push(h("h3", {}, "Parse health"), h("div", { class: "chips" },
    Object.entries(st.parse_health).map(([state, n]) => h("span", { class: "chip " + state }, `${state} ${fmt(n)}`))));
  if (st.problems && st.problems.length) {
    out.push(h("div", { class: "scroll small" }, h("table", {}, st.problems.slice(0, 50).map((p) => h("tr", {},
      h("td", {}, h("span", { class: p.status }, p.status)), h("td", { class: "mono" }, link(fileHref(p.path), p.path)), h("td", { class: "muted" }, p.error))))));
  }
  for (const r of st.running || []) out.push(h("div", { class: "small muted" }, `${r.doing} now: pid ${r.pid} (${r.by || "codefathom"})`));
  out.push(...notices(st));
  out.push(h("div", { class: "small muted", title: st.index_path }, "Refreshed every 3 s · ", new Date().toLocaleTimeString()));
  return out;
}

function stat(value, label) { return h("div", { class: "stat" }, h("b", {}, value), h("span", {}, label)); }

function meter(percent, busy) {
  const bar = h("div", {});
  bar.style.width = Math.max(0, Math.min(100, percent || 0)) + "%";
  return h("div", { class: "meter" + (busy ? " busy" : "") }, bar);
}

function vectorsView(v) {
  if (["off", "misconfigured", "not indexed"].includes(v.state)) {
    return h("div", { class: "small muted" }, `${v.state}` + (v.reason ? `: ${v.reason}` : "") + (v.state === "off" ? " (embedder = \"none\"): search ranks by words and names" : ""));
  }
  const lines = [meter(v.percent, v.background === "embedding"),
    h("div", { class: "small" }, `${fmt(v.with_vectors)} of ${fmt(v.units)} units (${v.percent}%), embedder ${v.index_embedder || v.embedder}`)];
  if (v.background === "embedding") {
    lines.push(h("div", { class: "small muted" }, `embedding in the background: ${fmt(v.done)} of ${fmt(v.total)} this pass, ${v.units_per_second} units/s`
      + (v.eta_s ? `, about ${Math.round(v.eta_s / 60)} min left` : "")));
  } else if (v.background) {
    lines.push(h("div", { class: "small muted" }, `background embedding: ${v.background}` + (v.reason ? ` (${v.reason})` : "")));
  }
  return h("div", {}, lines);
}

function languageBars(languages) {
  const entries = Object.entries(languages || {}).sort((a, b) => b[1] - a[1]);
  if (!entries.length) return h("div", { class: "muted small" }, "none");
  const top = entries[0][1];
  return h("div", { class: "bars" }, entries.map(([name, n]) => {
    const fill = h("div", { class: "fill file" });
    fill.style.width = (100 * n / top).toFixed(1) + "%";
    return h("div", { class: "row" }, h("div", { class: "name" }, name), h("div", { class: "track" }, fill),
      h("div", { class: "num small" }, fmt(n)), h("div", {}));
  }));
}

// -- header: the project and a live status pill -----------------------------------------------------

let statusCache = null;

async function cachedStatus() {
  if (!statusCache) statusCache = api("status").catch((error) => { statusCache = null; throw error; });
  return statusCache;
}

function pill(st) {
  const el = document.getElementById("pill");
  const busy = st.indexing || (st.vectors && st.vectors.background === "embedding");
  el.classList.toggle("busy", Boolean(busy));
  let text = st.indexed ? `${fmt(st.files)} files` : "not indexed";
  if (st.indexing) text += ` · indexing ${st.indexing.percent}%`;
  const v = st.vectors || {};
  if (v.percent !== undefined) text += ` · vectors ${v.percent}%`;
  else if (v.state === "off") text += " · vectors off";
  el.textContent = text;
  document.getElementById("project").textContent = st.project_root + (st.within ? `  (keeping to ${st.within}/)` : "");
}

async function pollPill() {
  if (current().page === "map") return; // the map page polls status itself, more often
  try {
    const st = await api("status");
    statusCache = Promise.resolve(st);
    pill(st);
  } catch (error) {
    document.getElementById("pill").textContent = error.status === 401 ? "not signed in" : "server unreachable";
  }
}

const PAGES = { search: searchPage, symbol: symbolPage, file: filePage, map: mapPage };

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("quick").addEventListener("submit", (event) => {
    event.preventDefault();
    const q = document.getElementById("quick-q").value.trim();
    if (q) location.hash = route("search", { q });
  });
  window.addEventListener("hashchange", render);
  document.addEventListener("keydown", (event) => { // "/" jumps to the search box, as on code hosts
    const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName);
    if (event.key === "/" && !typing) { event.preventDefault(); document.getElementById("quick-q").focus(); }
  });
  pollPill();
  setInterval(pollPill, STATUS_EVERY_MS * 2);
  render();
});
