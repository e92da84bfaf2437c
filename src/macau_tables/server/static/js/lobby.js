// The lobby: every table (game, mode, status, limits, places, shoe progress, the latest bead
// plate of a baccarat shoe) and the jackpot meters, live over /ws/jackpot.

import { api, showError } from "./api.js";
import { money, t, term } from "./i18n.js";
import { connect } from "./socket.js";
import { el, gameName, limitsText, modeName, placesText, shoeText, statusName } from "./tables_info.js";

const role = document.querySelector('meta[name="role"]').getAttribute("content");
const tablesNode = document.getElementById("lobby-tables");
const metersNode = document.getElementById("lobby-meters");
const meters = new Map();

const BEAD = { B: ["bead-banker", "pages.bead_banker"], P: ["bead-player", "pages.bead_player"], T: ["bead-tie", "pages.bead_tie"] };

function drawMeters() {
  metersNode.replaceChildren(
    ...[...meters.values()].map((m) =>
      el(
        "div",
        { class: "panel", "data-meter": m.id },
        el("div", { class: "muted", text: t("pages.meter_of_game", { game: gameName(m.game) }) }),
        el("div", { class: "meter-small", "data-amount": m.amount, text: money(m.amount) }),
      ),
    ),
  );
}

function links(table) {
  const out = [];
  if (role === "player") out.push(el("a", { class: "button", href: `/tables/${table.table_id}`, text: t("pages.lobby_play") }));
  if (role === "dealer" || role === "supervisor") {
    out.push(el("a", { class: "button", href: `/dealer/${table.table_id}`, text: t("pages.lobby_deal") }));
  }
  if (!role) out.push(el("a", { href: `/login?next=/tables/${table.table_id}`, text: t("pages.lobby_sign_in_to_play") }));
  return el("div", { class: "row" }, ...out);
}

function beadPlate(table, roads) {
  const beads = (roads && roads.bead_plate) || [];
  const last = beads.slice(-24);
  if (!last.length) return el("p", { class: "muted", text: t("pages.lobby_no_rounds") });
  const box = el("div", { class: "beads", role: "img", "aria-label": t("pages.lobby_bead_plate", { count: beads.length }) });
  for (const cell of last) {
    const [cls, key] = BEAD[cell.outcome] || BEAD.T;
    box.append(el("span", { class: `bead ${cls}`, "aria-hidden": "true", text: t(key) }));
  }
  return box;
}

function card(table, roads) {
  const title = el("h2", {}, term(table.name)); // a demonstration table's name: the glossary's
  const status = el("span", { class: `badge ${table.status === "open" ? "" : "badge-closed"}`, text: statusName(table.status) });
  const dl = el("dl", {});
  const add = (key, value) => dl.append(el("dt", { text: t(key) }), el("dd", { text: value }));
  add("pages.lobby_game", `${gameName(table.game)} · ${modeName(table.mode)}`);
  add("pages.lobby_limits", limitsText(table.rules));
  add("pages.lobby_places", placesText(table.rules));
  add("pages.lobby_shoe", shoeText(table.shoe, table.game));
  const article = el("article", { class: "panel table-card", "data-table": table.table_id, "aria-labelledby": `t-${table.table_id}` }, title, status, dl);
  title.id = `t-${table.table_id}`;
  if (table.fault) article.append(el("p", { class: "inline-error", text: t("pages.lobby_fault") }));
  if (roads && roads.shoe && roads.shoe.number > 0) article.append(el("h3", { text: t("pages.lobby_roadmap") }), beadPlate(table, roads));
  article.append(links(table));
  return article;
}

async function load() {
  try {
    const tables = await api("/api/tables");
    const roads = await Promise.all(
      // Every table's roads: a table without a baccarat shoe answers none (shoe.number 0).
      tables.map((table) => api(`/api/tables/${table.table_id}/read/roads`).catch(() => null)),
    );
    tablesNode.replaceChildren(...tables.map((table, i) => card(table, roads[i])));
    document.getElementById("lobby-loading").hidden = true;
    const all = await api("/api/meters");
    for (const m of all.meters) if (!meters.has(m.id)) meters.set(m.id, { id: m.id, game: m.game, amount: m.amount });
    drawMeters();
  } catch (err) {
    showError(err);
  }
}

connect("/ws/jackpot", {
  onMessage(message) {
    if (message.type === "meters") {
      for (const m of message.meters) meters.set(m.meter_id, { id: m.meter_id, game: m.game, amount: m.amount });
      drawMeters();
    } else if (message.type === "meter" && meters.has(message.meter_id)) {
      meters.get(message.meter_id).amount = message.amount;
      drawMeters();
    }
  },
});
load();
