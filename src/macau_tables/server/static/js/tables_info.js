// What the lobby and the staff pages say about a table from GET /api/tables (its
// configuration as the codec encodes it): limits, places, the shoe or deck in play. The words
// come from the catalog; nothing here depends on which game it is, only on what the
// configuration holds.

import { t } from "./i18n.js";

const MODE = { virtual: "pages.mode_virtual", live: "pages.mode_live" };
const STATUS = { open: "pages.status_open", closed: "pages.status_closed" };

/** The game's name in the page's language: its catalog term `pages.game_<game>` (the game's
 * plug-in's `term`), or the game's id when the catalog has none. */
export function gameName(game) {
  const key = `pages.game_${game}`;
  const name = t(key);
  return name === key ? game : name;
}

export function modeName(mode) {
  return MODE[mode] ? t(MODE[mode]) : mode;
}

export function statusName(status) {
  return STATUS[status] ? t(STATUS[status]) : status;
}

/** [minimum, maximum] of the table's wagers (minor units), or null. */
export function limits(rules) {
  if (!rules) return null;
  const lows = [];
  const highs = [];
  for (const limit of Object.values(rules.limits || {})) {
    if (typeof limit.minimum === "number") lows.push(limit.minimum);
    if (typeof limit.maximum === "number") highs.push(limit.maximum);
  }
  for (const [key, value] of Object.entries(rules)) {
    if (typeof value !== "number") continue;
    if (key.endsWith("_minimum")) lows.push(value);
    if (key.endsWith("_maximum")) highs.push(value);
  }
  if (!lows.length || !highs.length) return null;
  return [Math.min(...lows), Math.max(...highs)];
}

/** Limits from `low` to `high` (ints of minor units): "10.00 – 1,000.00", or the one amount
 * "10.00" when they are equal (a jackpot wager of a fixed amount), never "10.00 – 10.00"; the
 * templates say it the same way (server/i18n.py Translator.limits). */
export function rangeText(low, high) {
  if (BigInt(low) === BigInt(high)) return t("pages.limit_exact", { amount: low });
  return t("pages.limits_range", { low, high });
}

/** The text of the table's limits. */
export function limitsText(rules) {
  const range = limits(rules);
  return range ? rangeText(range[0], range[1]) : "—";
}

/** The text of the table's places (seats, standing areas, boxes). */
export function placesText(rules) {
  if (!rules) return "—";
  const parts = [];
  if (typeof rules.seats === "number") parts.push(t("pages.places_seats", { count: rules.seats }));
  if (typeof rules.standing_areas === "number" && rules.standing_areas) {
    parts.push(t("pages.places_standing", { count: rules.standing_areas }));
  }
  if (typeof rules.boxes === "number") parts.push(t("pages.places_boxes", { count: rules.boxes }));
  return parts.join(" · ") || "—";
}

/** Shoe `number` of a table of `game` as a glossary term: "<game> shoe <n>" (a baccarat
 * shoe, a Caribbean Stud deck), "shoe <n>" (a shoe or deck) when the game is not known. */
export function shoeName(game, number) {
  return game ? `${game} shoe ${number}` : `shoe ${number}`;
}

/** The text of the shoe or deck in play at a table of `game` (shoeName). */
export function shoeText(shoe, game) {
  if (!shoe) return "—";
  if (typeof shoe.cards === "number" && typeof shoe.out === "number") {
    return t("pages.shoe_progress", { shoe: shoeName(game, shoe.shoes), out: shoe.out, cards: shoe.cards });
  }
  if (shoe.shoes === 0 || shoe.decks === 0) return t("pages.shoe_none");
  if (typeof shoe.decks === "number") return t("pages.deck_progress", { number: shoe.decks });
  return t("pages.shoe_none");
}

/** An element with `text`, and attributes. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
