// The five baccarat roadmaps and the ask road (問路), drawn from the cells the server computes
// (GET /api/tables/{id}/read/roads: macau_tables.baccarat.read_models). This module computes nothing of
// the roads itself: it only draws the grids it is given (0-based col / row, 6 rows high).
//
//   import { drawRoads } from "./roads.js";
//   drawRoads(element, roadsJson, t);   // t(key, params) gives the page language's text

const SVG = "http://www.w3.org/2000/svg";

const COLOURS = {
  B: "#a8201a", // banker: red (site.css --red)
  P: "#1a4fa8", // player: blue (--blue)
  T: "#1d6b33", // tie: green (--ok)
  red: "#a8201a",
  blue: "#1a4fa8",
};

const MIN_COLUMNS = { bead_plate: 12, big_road: 24, derived: 24 };

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

function grid(cells, rows, size, minColumns) {
  const columns = Math.max(minColumns, ...cells.map((c) => c.col + 2));
  const svg = el("svg", {
    width: columns * size,
    height: rows * size,
    viewBox: `0 0 ${columns * size} ${rows * size}`,
    class: "road-grid",
    role: "img",
  });
  for (let x = 0; x <= columns; x++) {
    el("line", { x1: x * size, y1: 0, x2: x * size, y2: rows * size, class: "road-line" }, svg);
  }
  for (let y = 0; y <= rows; y++) {
    el("line", { x1: 0, y1: y * size, x2: columns * size, y2: y * size, class: "road-line" }, svg);
  }
  return svg;
}

function pairs(svg, cell, cx, cy, r) {
  if (cell.banker_pair) el("circle", { cx: cx - r * 0.75, cy: cy - r * 0.75, r: r * 0.3, fill: COLOURS.B, class: "pair banker-pair" }, svg);
  if (cell.player_pair) el("circle", { cx: cx + r * 0.75, cy: cy + r * 0.75, r: r * 0.3, fill: COLOURS.P, class: "pair player-pair" }, svg);
}

function beadPlate(cells, rows, letters) {
  const size = 26;
  const svg = grid(cells, rows, size, MIN_COLUMNS.bead_plate);
  for (const c of cells) {
    const cx = c.col * size + size / 2;
    const cy = c.row * size + size / 2;
    const g = el("g", { class: `road-bead road-bead-${c.outcome}`, "data-col": c.col, "data-row": c.row }, svg);
    el("circle", { cx, cy, r: size * 0.42, fill: COLOURS[c.outcome] }, g);
    const text = el("text", { x: cx, y: cy, "text-anchor": "middle", "dominant-baseline": "central", class: "road-bead-letter" }, g);
    text.textContent = letters[c.outcome];
    pairs(g, c, cx, cy, size * 0.42);
  }
  return svg;
}

function bigRoad(cells, rows) {
  const size = 20;
  const svg = grid(cells, rows, size, MIN_COLUMNS.big_road);
  for (const c of cells) {
    const cx = c.col * size + size / 2;
    const cy = c.row * size + size / 2;
    const g = el("g", { class: `road-big road-big-${c.winner}`, "data-col": c.col, "data-row": c.row }, svg);
    el("circle", { cx, cy, r: size * 0.36, fill: "none", stroke: COLOURS[c.winner], "stroke-width": 2.5 }, g);
    if (c.ties > 0) {
      el("line", { x1: cx - size * 0.36, y1: cy + size * 0.36, x2: cx + size * 0.36, y2: cy - size * 0.36, stroke: COLOURS.T, "stroke-width": 2.5, class: "tie-slash" }, g);
      if (c.ties > 1) {
        const n = el("text", { x: cx, y: cy, "text-anchor": "middle", "dominant-baseline": "central", class: "tie-count" }, g);
        n.textContent = String(c.ties);
      }
    }
    pairs(g, c, cx, cy, size * 0.36);
  }
  return svg;
}

function mark(svg, kind, colour, cx, cy, r) {
  const stroke = COLOURS[colour];
  if (kind === "big_eye_boy") return el("circle", { cx, cy, r, fill: "none", stroke, "stroke-width": 2, class: `mark ${colour}` }, svg);
  if (kind === "small_road") return el("circle", { cx, cy, r, fill: stroke, class: `mark ${colour}` }, svg);
  return el("line", { x1: cx - r, y1: cy + r, x2: cx + r, y2: cy - r, stroke, "stroke-width": 2.5, class: `mark ${colour}` }, svg);
}

function derived(kind, cells, rows) {
  const size = 14;
  const svg = grid(cells, rows, size, MIN_COLUMNS.derived);
  for (const c of cells) {
    const g = mark(svg, kind, c.colour, c.col * size + size / 2, c.row * size + size / 2, size * 0.34);
    g.setAttribute("data-col", c.col);
    g.setAttribute("data-row", c.row);
  }
  return svg;
}

function figure(parent, name, title, svg, summary) {
  const fig = document.createElement("figure");
  fig.className = `road road-${name}`;
  fig.dataset.road = name;
  const caption = document.createElement("figcaption");
  caption.textContent = title;
  const scroller = document.createElement("div");
  scroller.className = "road-scroll";
  scroller.tabIndex = 0; // the board scrolls sideways by keyboard too
  svg.setAttribute("aria-label", `${title}: ${summary}`);
  scroller.appendChild(svg);
  fig.append(caption, scroller);
  parent.appendChild(fig);
  scroller.scrollLeft = scroller.scrollWidth; // the latest column in sight
  return fig;
}

function askMarks(kind, colour) {
  const svg = el("svg", { width: 18, height: 18, viewBox: "0 0 18 18", class: "ask-mark", "aria-hidden": "true" });
  if (colour) mark(svg, kind, colour, 9, 9, 6);
  return svg;
}

const DERIVED = ["big_eye_boy", "small_road", "cockroach_road"];
const TITLES = {
  big_eye_boy: "play.road_big_eye_boy",
  small_road: "play.road_small_road",
  cockroach_road: "play.road_cockroach_road",
};
const ASK = { banker: "play.ask_banker", player: "play.ask_player" };
const COLOUR_NAMES = { red: "play.colour_red", blue: "play.colour_blue" };

// Draw every road of `data` into `root` (replacing what was there); `t(key, params)` gives texts.
export function drawRoads(root, data, t) {
  const letters = { B: t("play.letter_banker"), P: t("play.letter_player"), T: t("play.letter_tie") };
  root.replaceChildren();
  root.dataset.rounds = String(data.rounds);
  const counts = document.createElement("p");
  counts.className = "road-counts";
  counts.textContent = t("play.road_counts", data.counts);
  root.appendChild(counts);
  const count = (n) => t("play.road_cells", { count: n });
  figure(root, "bead_plate", t("play.road_bead_plate"), beadPlate(data.bead_plate, data.rows, letters), count(data.bead_plate.length));
  figure(root, "big_road", t("play.road_big_road"), bigRoad(data.big_road, data.rows), count(data.big_road.length));
  for (const name of DERIVED) {
    figure(root, name, t(TITLES[name]), derived(name, data[name], data.rows), count(data[name].length));
  }
  root.appendChild(askRoad(data.ask, t));
}

// The ask road: "ask banker" / "ask player" buttons; each shows the mark every derived road
// would add if the next round were won by that side ("—" while a road would add none).
function askRoad(ask, t) {
  const box = document.createElement("div");
  box.className = "ask-road";
  const out = document.createElement("output");
  out.className = "ask-result";
  out.setAttribute("aria-live", "polite");
  for (const side of ["banker", "player"]) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `ask ask-${side}`;
    button.dataset.side = side;
    button.textContent = t(ASK[side]);
    button.setAttribute("aria-pressed", "false");
    button.addEventListener("click", () => {
      for (const b of box.querySelectorAll("button.ask")) b.setAttribute("aria-pressed", String(b === button));
      out.replaceChildren();
      out.dataset.side = side;
      for (const name of DERIVED) {
        const colour = ask[side][name];
        const item = document.createElement("span");
        item.className = "ask-item";
        item.dataset.road = name;
        item.dataset.colour = colour || "none";
        const label = colour ? t(COLOUR_NAMES[colour]) : t("play.ask_none");
        item.append(askMarks(name, colour), ` ${t(TITLES[name])}: ${label}`);
        out.appendChild(item);
      }
    });
    box.appendChild(button);
  }
  box.appendChild(out);
  return box;
}
