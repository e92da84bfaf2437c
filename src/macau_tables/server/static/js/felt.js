// The felt's shared pieces for both games' tables (baccarat.js, caribbean.js, the dealer
// console): playing cards drawn in SVG, their deal and turn motion, chips stacked on a spot
// with the amount, and the countdown ring of the table's round cycle. Styles: css/tables.css
// ("the felt"). Every word comes from the catalog (t()); every amount is an int of minor units.
//
//   import { cardNode, showCards, chipStack, setStack, countdownRing } from "./felt.js";
//
//   cardNode(card, extra?)          a card ("As", "Th"; null: face down) as <span class="card"
//                                   role="img" data-card="As" aria-label="Ace of spades"> with
//                                   its SVG face or back; `extra`: more classes.
//   showCards(box, cards, empty?)   lay `cards` ([{key, card, extra?}], e.g. key = the slot) in
//                                   `box`, keeping the cards already there: a new card is dealt
//                                   (.card-deal: slides in), a face-down card that now has a
//                                   face is turned (.card-turn: flips); `empty` the text shown
//                                   when there is none. No motion under prefers-reduced-motion,
//                                   nor on the box's first showing (the page just opened).
//   cardName(card)                  "3 of spades" / 「黑桃3」 in the page's language.
//   chipStack(amount, chips)        an <svg class="chip-stack"> of the chips (`chips`: the
//                                   table's chip values, minor units) making `amount`, at most
//                                   STACK_MAX drawn; decorative (aria-hidden).
//   chipFace(value, index)          one chip as an <svg class="chip-svg"> (for the chip rack).
//   setStack(spot, amount, chips)   put the stack and the amount (money()) in the spot's
//                                   [data-stack] / [data-amount] children (spot.dataset.amount
//                                   keeps the int); 0 clears them; a stack that grew drops in.
//   countdownRing(node)             draw a ring in `node`; returns { set(left, span) }: `left`
//                                   seconds of `span` (null: no countdown runs). table.js binds
//                                   every [data-countdown-ring] of the page to the table's
//                                   countdown (the round cycle's deadline, /board seconds_left);
//                                   data-countdown-ring="seconds" writes the seconds inside.

import { money, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
// The catalog keys of the names (written out: the catalog test reads them).
const CARD_NAMES = { s: "play.card_spades", h: "play.card_hearts", d: "play.card_diamonds", c: "play.card_clubs" };
const RANK_NAMES = { A: "play.rank_ace", J: "play.rank_jack", Q: "play.rank_queen", K: "play.rank_king" };

/** An SVG element `name` with attributes, appended to `parent` when given. */
export function svg(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

function rankOf(card) {
  return card[0] === "T" ? "10" : card[0];
}

/** The card's name in the page's language ("3 of spades"); a face-down card's words when null. */
export function cardName(card) {
  if (!card) return t("play.card_face_down");
  const rank = rankOf(card);
  const name = RANK_NAMES[rank] ? t(RANK_NAMES[rank]) : rank;
  return CARD_NAMES[card[1]] ? t(CARD_NAMES[card[1]], { rank: name }) : `${name}${card[1]}`;
}

function face(card) {
  const rank = rankOf(card);
  const suit = SUITS[card[1]] || card[1];
  const pic = svg("svg", { viewBox: "0 0 60 84", class: "card-svg", "aria-hidden": "true", focusable: "false" });
  svg("rect", { x: 0.5, y: 0.5, width: 59, height: 83, rx: 5, class: "card-paper" }, pic);
  for (const [x, y, turn] of [
    [8, 16, ""],
    [52, 68, "rotate(180 52 68)"],
  ]) {
    const g = svg("g", turn ? { transform: turn } : {}, pic);
    const r = svg("text", { x, y, "text-anchor": "middle", class: "card-rank" }, g);
    r.textContent = rank;
    const s = svg("text", { x, y: y + 11, "text-anchor": "middle", class: "card-pip" }, g);
    s.textContent = suit;
  }
  const big = svg("text", { x: 30, y: 42, "text-anchor": "middle", "dominant-baseline": "central", class: "card-suit" }, pic);
  big.textContent = suit;
  return pic;
}

function back() {
  const pic = svg("svg", { viewBox: "0 0 60 84", class: "card-svg", "aria-hidden": "true", focusable: "false" });
  svg("rect", { x: 0.5, y: 0.5, width: 59, height: 83, rx: 5, class: "card-back-paper" }, pic);
  svg("rect", { x: 5, y: 5, width: 50, height: 74, rx: 3, class: "card-back-pattern" }, pic);
  svg("circle", { cx: 30, cy: 42, r: 12, class: "card-back-seal" }, pic);
  return pic;
}

/** A card ("As", "Th") as an element with its SVG; `null` is a face-down card. */
export function cardNode(card, extra = "") {
  const node = document.createElement("span");
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", cardName(card));
  node.dataset.card = card || "";
  if (!card) {
    node.className = `card card-back ${extra}`.trim();
  } else {
    const suit = card[1];
    node.className = `card suit-${suit} ${suit === "h" || suit === "d" ? "card-red" : "card-black"} ${extra}`.trim();
  }
  node.appendChild(card ? face(card) : back());
  return node;
}

/**
 * Lay `cards` ([{key, card, extra}]) in `box`, keeping what is there: new cards are dealt
 * (.card-deal), a face-down card given its face is turned (.card-turn). `empty`: the text
 * shown when there is no card.
 */
export function showCards(box, cards, empty = "") {
  const old = new Map();
  for (const node of box.querySelectorAll(":scope > .card")) old.set(node.dataset.key, node);
  const first = box.dataset.shown !== "1"; // the page's first look: the cards are already there
  box.dataset.shown = "1";
  const nodes = cards.map(({ key, card, extra = "" }, i) => {
    const before = old.get(String(key));
    if (before && before.dataset.card === (card || "") && before.dataset.extra === extra) return before;
    const node = cardNode(card, extra);
    node.dataset.key = String(key);
    node.dataset.extra = extra;
    if (before && !before.dataset.card && card) node.classList.add("card-turn");
    else if (!before && !first) node.classList.add("card-deal");
    node.style.setProperty("--deal-order", String(before ? 0 : i));
    return node;
  });
  if (!nodes.length && empty) {
    const none = document.createElement("span");
    none.className = "muted no-card";
    none.textContent = empty;
    box.replaceChildren(none);
    return;
  }
  // In place: a card already on the felt is never taken out and put back (a re-inserted node
  // would play its deal or turn again); only what changed is removed or inserted.
  const keep = new Set(nodes);
  for (const child of [...box.children]) if (!keep.has(child)) child.remove();
  nodes.forEach((node, i) => {
    if (box.children[i] !== node) box.insertBefore(node, box.children[i] || null);
  });
}

// -- chips ---------------------------------------------------------------------------------------

/** How many chips a stack draws at most (the amount is always written beside it). */
export const STACK_MAX = 8;

const CHIP_COLOURS = ["#f4f1e8", "#c0392b", "#1f5fbf", "#1d7a3e", "#222222", "#7b3fa0", "#d4a017", "#e07b1a"];

function chipColour(index) {
  return CHIP_COLOURS[index % CHIP_COLOURS.length];
}

/** The chips (largest first) making `amount` from the table's chip values `chips`. */
export function chipsFor(amount, chips) {
  const values = [...chips].sort((a, b) => b - a);
  const out = [];
  let left = amount;
  for (const value of values) {
    while (left >= value && out.length < 64) {
      out.push(value);
      left -= value;
    }
  }
  if (left > 0 || !out.length) out.push(left > 0 ? left : amount); // an odd remainder: one chip
  return out;
}

/** One chip of `value` (colour by its place `index` in the table's chips) as an SVG. */
export function chipFace(value, index) {
  const pic = svg("svg", { viewBox: "0 0 40 40", class: "chip-svg", "aria-hidden": "true", focusable: "false" });
  drawChip(pic, 20, 20, index);
  const label = svg("text", { x: 20, y: 20, "text-anchor": "middle", "dominant-baseline": "central", class: "chip-label" }, pic);
  label.textContent = short(value);
  if (index === 0 || index === 6) label.classList.add("chip-label-dark");
  return pic;
}

/** A chip's short face: whole major units ("5", "100"), thousands as "1K"; else money(). */
function short(minor) {
  if (minor % 100 !== 0) return money(minor);
  const major = minor / 100; // exact: a whole number of major units
  if (major >= 1000 && major % 1000 === 0) return `${major / 1000}K`;
  return String(major);
}

function drawChip(parent, cx, cy, index, ry = null) {
  const colour = chipColour(index);
  if (ry === null) {
    svg("circle", { cx, cy, r: 18, fill: colour, class: "chip-edge" }, parent);
    svg("circle", { cx, cy, r: 18, class: "chip-dash" }, parent);
    svg("circle", { cx, cy, r: 12, class: "chip-inner" }, parent);
    return;
  }
  svg("ellipse", { cx, cy: cy + 3, rx: 18, ry, fill: colour, class: "chip-edge chip-side" }, parent);
  svg("ellipse", { cx, cy, rx: 18, ry, fill: colour, class: "chip-edge" }, parent);
  svg("ellipse", { cx, cy, rx: 18, ry, class: "chip-dash" }, parent);
}

/** The stack of chips making `amount` (table chip values `chips`), drawn in perspective. */
export function chipStack(amount, chips) {
  const values = [...chips].sort((a, b) => a - b);
  const drawn = chipsFor(amount, chips).slice(0, STACK_MAX).reverse();
  const height = 14 + drawn.length * 5;
  const pic = svg("svg", { viewBox: `0 0 40 ${height}`, class: "chip-stack", "aria-hidden": "true", focusable: "false" });
  pic.style.setProperty("--chips", String(drawn.length));
  drawn.forEach((value, i) => {
    const index = Math.max(0, values.indexOf(value));
    drawChip(pic, 20, height - 8 - i * 5, index, 6);
  });
  pic.dataset.chips = String(drawn.length);
  return pic;
}

/** Show `amount` as a chip stack with its amount in `spot`'s [data-stack] and [data-amount]. */
export function setStack(spot, amount, chips) {
  const stack = spot.querySelector("[data-stack]");
  const label = spot.querySelector("[data-amount]");
  const before = Number(spot.dataset.amount || 0);
  spot.dataset.amount = String(amount);
  if (stack && before !== amount) stack.replaceChildren(...(amount > 0 ? [chipStack(amount, chips)] : []));
  if (label) label.textContent = amount > 0 ? money(amount) : "";
  if (amount > before && stack && stack.firstChild) {
    stack.firstChild.classList.add("chip-placed");
  }
}

// -- the countdown ring ------------------------------------------------------------------------

/**
 * Draw a countdown ring in `node`; returns { set(left, span) } to show `left` seconds of
 * `span` (`left` null: no countdown). The ring is decorative: the seconds are written beside it
 * (table.js #countdown), so it is aria-hidden; its state is in data-left and data-fraction.
 */
export function countdownRing(node) {
  const r = 16;
  const length = 2 * Math.PI * r;
  const pic = svg("svg", { viewBox: "0 0 40 40", class: "ring-svg", "aria-hidden": "true", focusable: "false" });
  svg("circle", { cx: 20, cy: 20, r, class: "ring-track" }, pic);
  const arc = svg("circle", { cx: 20, cy: 20, r, class: "ring-arc", transform: "rotate(-90 20 20)" }, pic);
  arc.setAttribute("stroke-dasharray", length.toFixed(2));
  const label = svg("text", { x: 20, y: 20, "text-anchor": "middle", "dominant-baseline": "central", class: "ring-seconds" }, pic);
  node.replaceChildren(pic);
  node.setAttribute("aria-hidden", "true");
  return {
    set(left, span) {
      if (left === null || left === undefined) {
        node.dataset.left = "";
        node.dataset.fraction = "";
        arc.setAttribute("stroke-dashoffset", length.toFixed(2));
        label.textContent = "";
        return;
      }
      const fraction = span > 0 ? Math.max(0, Math.min(1, left / span)) : 0;
      node.dataset.left = String(left);
      node.dataset.fraction = fraction.toFixed(3);
      node.dataset.urgent = left <= 5 ? "1" : "";
      arc.setAttribute("stroke-dashoffset", (length * (1 - fraction)).toFixed(2));
      label.textContent = node.dataset.countdownRing === "seconds" ? String(left) : "";
      label.classList.toggle("ring-seconds-long", left >= 100);
    },
  };
}
