// The jackpot display (CSP-1): every linked meter large and live over /ws/jackpot (the amount
// moves with every contribution, on this server or another one on the same database), the
// fixed awards of each linked table by combination (CSP-10.3, BAC-17), each with its article and
// the table's notes (CSP-10.8, BAC-17.5), and the last hits, each with the winning box or
// seat (CSP-10.4, BAC-17: the hit's `place`, "box 3" / "seat 2" in the page's language; a hit
// recorded before places were has none and shows "—", never its `box`, a wager id at baccarat).

import { api, showError } from "./api.js";
import { dateTime, money, t, term } from "./i18n.js";
import { connect } from "./socket.js";
import { combinationName } from "./jackpot_words.js";
import { el, gameName } from "./tables_info.js";

const meters = new Map(); // id -> {id, game, amount, fixed_awards, hits}
const metersNode = document.getElementById("jackpot-meters");

function meterCard(m) {
  const amount = el("p", { class: "jackpot-amount", "data-amount": m.amount, text: money(m.amount) });
  const heading = el("h2", { id: `meter-${m.id}`, text: t("pages.meter_of_game", { game: gameName(m.game) }) });
  return el("section", { class: "jackpot-meter", "data-meter": m.id, "aria-labelledby": `meter-${m.id}` }, heading, amount);
}

function drawMeters() {
  metersNode.replaceChildren(...[...meters.values()].map(meterCard));
}

function bump(m) {
  const node = metersNode.querySelector(`[data-meter="${m.id}"] .jackpot-amount`);
  if (!node) return drawMeters();
  node.textContent = money(m.amount);
  node.dataset.amount = m.amount;
  node.classList.remove("bumped");
  void node.offsetWidth;
  node.classList.add("bumped");
  return undefined;
}

// Each linked table's own jackpot lines (CSP-10.3: a meter's tables may have different fixed
// awards), from its paytable: the combination, what it pays (the fixed award, "5,000.00 or 10 %
// of the meter, whichever is higher", the whole meter for the baccarat royal flush, BAC-17.4;
// the amounts passed as ints to the catalog's money placeholder) and the article, then the table's notes with theirs (CSP-10.8, BAC-17.5: who
// funds a fixed award above the meter's share).
function payText(line) {
  return t(line.payout_key, { odds: line.odds, amount: line.amount, percent: line.percent });
}

function tableAwards(m, table) {
  const lines = (table.paytable && table.paytable.lines) || [];
  const notes = (table.paytable && table.paytable.notes) || [];
  const head = ["pages.jackpot_combination", "pages.jackpot_award", "pages.paytable_col_article"];
  const grid = el(
    "table",
    { class: "data" },
    el("caption", { text: `${t("pages.meter_of_game", { game: gameName(m.game) })} · ${t("pages.paytable_of_table", { name: table.name, table: table.table })}` }),
    el("thead", {}, el("tr", {}, ...head.map((key) => el("th", { scope: "col", text: t(key) })))),
    el(
      "tbody",
      {},
      ...lines.map((line) =>
        el("tr", { "data-term": line.term, "data-article": line.article }, el("td", { text: combinationName(line.term) }), el("td", { "data-amount": line.amount, text: payText(line) }), el("td", { class: "mono article", text: line.article })),
      ),
    ),
  );
  const noted = notes.map((note) =>
    el("p", { class: "paytable-note", "data-note": note.key, "data-article": note.article, text: `${t(note.text_key, { amount: note.amount })} ${t("pages.paytable_article", { article: note.article })}` }),
  );
  return el("div", { class: "table-wrap jackpot-table-awards", "data-table": table.table, "data-meter": m.id }, grid, ...noted);
}

function drawAwards() {
  const box = document.getElementById("jackpot-awards");
  box.replaceChildren();
  for (const m of meters.values()) {
    for (const table of m.tables_awards || []) {
      if ((table.paytable && table.paytable.lines.length) || Object.keys(table.fixed_awards || {}).length) box.append(tableAwards(m, table));
    }
  }
}

function drawHits() {
  const box = document.getElementById("jackpot-hits");
  const hits = [...meters.values()].flatMap((m) => m.hits || []);
  hits.sort((a, b) => String(b.at).localeCompare(String(a.at)));
  if (!hits.length) {
    box.replaceChildren(el("p", { text: t("pages.jackpot_no_hits") }));
    return;
  }
  const head = ["pages.jackpot_when", "pages.jackpot_table", "pages.jackpot_box", "pages.jackpot_combination", "pages.jackpot_award"];
  box.replaceChildren(
    el(
      "table",
      { class: "data" },
      el("thead", {}, el("tr", {}, ...head.map((key, i) => el("th", { scope: "col", class: i === 4 ? "num" : null, text: t(key) })))),
      el(
        "tbody",
        {},
        ...hits.slice(0, 10).map((h) =>
          el("tr", {}, el("td", { text: dateTime(h.at) }), el("td", { text: h.table_id || h.table }), el("td", { "data-place": h.place ?? "", text: h.place ? term(h.place) : "—" }), el("td", { text: combinationName(h.combination) }), el("td", { class: "num", text: money(h.amount) })),
        ),
      ),
    ),
  );
}

function meter(id) {
  if (!meters.has(id)) meters.set(id, { id, game: "", amount: 0, fixed_awards: {}, tables_awards: [], hits: [] });
  return meters.get(id);
}

async function load() {
  try {
    const all = await api("/api/meters");
    for (const m of all.meters) {
      const known = meter(m.id);
      known.game = m.game;
      known.fixed_awards = m.fixed_awards;
      known.tables_awards = m.tables_awards;
      if (!known.live) known.amount = m.amount;
      if (!known.hitsLive) known.hits = m.last_hits.map((h) => ({ ...h, table_id: h.table }));
    }
    drawMeters();
    drawAwards();
    drawHits();
  } catch (err) {
    showError(err);
  }
}

connect("/ws/jackpot", {
  onMessage(message) {
    if (message.type === "meters") {
      for (const m of message.meters) {
        const known = meter(m.meter_id);
        known.game = m.game;
        known.amount = m.amount;
        known.live = true;
        if (m.tables_awards) known.tables_awards = m.tables_awards;
      }
      for (const m of meters.values()) {
        m.hits = message.hits.filter((h) => h.meter_id === m.id);
        m.hitsLive = true;
      }
      drawMeters();
      drawAwards();
      drawHits();
    } else if (message.type === "meter") {
      const known = meter(message.meter_id);
      known.amount = message.amount;
      known.live = true;
      bump(known);
    } else if (message.type === "hits") {
      const known = meter(message.meter_id);
      known.hits = message.hits;
      known.hitsLive = true;
      drawHits();
    }
  },
});

const full = document.getElementById("jackpot-fullscreen");
full.addEventListener("click", () => {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen().catch(() => {});
});
load();
