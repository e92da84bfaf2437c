// The supervisor's page: what waits for a supervisor (refused live cards to correct or void,
// BAC-10; faults, CSP-11.4) with the commands the round accepts, live over the tables' sockets;
// the tables (open, close, with a reason); the recall of a table's last 10 rounds.

import { api, once, reasonForm, showError, showStatus } from "./api.js";
import { dateTime, has, money, t, term } from "./i18n.js";
import { connect } from "./socket.js";
import { commandForm, resolve } from "./commands.js";
import { combinationName } from "./jackpot_words.js";
import { el, gameName, modeName, statusName } from "./tables_info.js";
import { cycleForm } from "./supervisor_cycle.js";

const me = document.querySelector('meta[name="signed-in"]').getAttribute("content");
const waitingNode = document.getElementById("sup-waiting");
const tablesNode = document.getElementById("sup-tables");
const STATE = {
  settled: "pages.recall_state_settled",
  void: "pages.recall_state_void",
  open: "pages.recall_state_open",
  demonstration: "pages.recall_state_demonstration",
};
const KIND = {
  round: "pages.sup_kind_round",
  fault: "pages.sup_kind_fault",
  award: "pages.sup_kind_award",
  shuffler: "pages.sup_kind_shuffler",
};
let tables = [];
let refreshing = null;

let lastWaiting = null;
let lastTables = null;

async function drawWaiting() {
  const found = await api("/api/authorisations");
  const signature = JSON.stringify(found.waiting);
  if (signature === lastWaiting) return; // unchanged: keep what the supervisor is typing
  lastWaiting = signature;
  if (!found.waiting.length) {
    waitingNode.replaceChildren(el("p", { "data-empty": "1", text: t("pages.sup_nothing_waiting") }));
    return;
  }
  const items = [];
  for (const [i, item] of found.waiting.entries()) {
    const view = await api(`/api/tables/${item.table}`).catch(() => null);
    const types = (view && view.expected && view.expected.commands) || [];
    const seen = new Set();
    const refusals = (view ? refusalsOf(view.view) : []).filter((r) => {
      const same = JSON.stringify([r.key, r.card, r.slot, r.params]);
      return !seen.has(same) && seen.add(same);
    });
    const box = el(
      "article",
      { class: "panel", "data-waiting": item.table, "aria-labelledby": `w-${i}` },
      el("h3", { id: `w-${i}`, text: t("pages.sup_waiting_item", { table: item.table, kind: t(KIND[item.kind] || KIND.round) }) }),
      el("p", {
        text: item.reason
          ? t("pages.sup_waiting_reason", { reason: item.reason, round: item.round_id || "—" })
          : t("pages.sup_waiting_round", { round: item.round_id || "—" }),
      }),
      ...refusals.map((r) => el("p", { class: "inline-error", "data-refusal": r.rule || "", text: refusalText(r) })),
    );
    if (item.award) {
      const a = item.award;
      box.append(
        el("p", {
          class: "award",
          "data-hold": a.hold_id,
          text: t("pages.sup_award", { player: a.player, spot: term(a.spot), combination: combinationName(a.combination), amount: a.amount }),
        }),
      );
    }
    for (const [j, short] of item.commands.entries()) {
      const type = await resolve(short, types);
      if (type) box.append(await commandForm(item.table, type, me, `w${i}c${j}`, refresh, item.award || {}));
    }
    items.push(box);
  }
  waitingNode.replaceChildren(...items);
}

/** The refusals a supervisor's view of the round holds: any object with a rule and a
 * message key (a refused live card, BAC-10), wherever the game's view keeps it. */
function refusalsOf(value, found = []) {
  if (Array.isArray(value)) value.forEach((v) => refusalsOf(v, found));
  else if (value && typeof value === "object") {
    if (typeof value.key === "string" && "rule" in value && "params" in value) found.push(value);
    else Object.values(value).forEach((v) => refusalsOf(v, found));
  }
  return found;
}

function refusalText(refusal) {
  const params = Array.isArray(refusal.params) ? Object.fromEntries(refusal.params) : refusal.params || {};
  const text = has(refusal.key) ? t(refusal.key, params) : refusal.key;
  const card = refusal.card ? t("pages.sup_refused_card", { card: refusal.card }) : "";
  return `${card}${text}${refusal.rule ? ` (${refusal.rule})` : ""}`;
}

function statusForm(table) {
  const opening = table.status !== "open";
  const id = `reason-${table.table_id}`;
  return reasonForm({
    id,
    label: t("pages.sup_reason_for", { table: table.table_id }),
    button: t(opening ? "pages.sup_open" : "pages.sup_close"),
    buttonClass: "button-small",
    input: { name: "reason", required: true },
    form: { "data-status-form": table.table_id },
    action: async (reason) => {
      await api(`/api/tables/${table.table_id}/${opening ? "open" : "close"}`, { method: "POST", body: { reason } });
      showStatus(t(opening ? "pages.sup_opened" : "pages.sup_closed", { table: table.table_id }));
      await drawTables();
    },
  });
}

// Why this server does not serve a table (a changed program, say): the supervisor is told.
function notServed(table) {
  const why = table.not_served;
  if (!why || why.key === "tables.leased") return [];
  const reason = has(why.key) ? t(why.key, why.params) : why.key;
  return [el("div", { class: "inline-error", "data-not-served": why.key, text: t("pages.sup_not_served", { reason }) })];
}

async function drawTables() {
  tables = await api("/api/tables");
  const signature = JSON.stringify(tables.map((x) => [x.table_id, x.status, x.fault, x.not_served, x.cycle && x.cycle.paused]));
  if (signature === lastTables) {
    for (const table of tables) {
      const cell = tablesNode.querySelector(`tr[data-table="${table.table_id}"] td.num`);
      if (cell) cell.textContent = table.meter_amount === null ? "—" : money(table.meter_amount);
    }
    return;
  }
  lastTables = signature;
  const head = ["pages.sup_col_table", "pages.sup_col_game", "pages.sup_col_status", "pages.sup_col_meter", "pages.sup_col_actions"];
  tablesNode.replaceChildren(
    el(
      "table",
      { class: "data" },
      el("thead", {}, el("tr", {}, ...head.map((key) => el("th", { scope: "col", text: t(key) })))),
      el(
        "tbody",
        {},
        ...tables.map((table) =>
          el(
            "tr",
            { "data-table": table.table_id },
            el("th", { scope: "row" }, el("div", { text: term(table.name) }), el("div", { class: "muted mono", text: table.table_id })),
            el("td", { text: `${gameName(table.game)} · ${modeName(table.mode)}` }),
            el(
              "td",
              { "data-status": table.status },
              el("div", { text: table.fault ? t("pages.sup_fault", { reason: table.fault }) : statusName(table.status) }),
              ...notServed(table),
            ),
            el("td", { class: "num", text: table.meter_amount === null ? "—" : money(table.meter_amount) }),
            el("td", {}, statusForm(table), ...cycleForm(table, me, drawTables), el("a", { href: `/dealer/${table.table_id}`, text: t("pages.lobby_deal") })),
          ),
        ),
      ),
    ),
  );
  const select = document.getElementById("recall-table");
  const chosen = select.value;
  select.replaceChildren(...tables.map((table) => el("option", { value: table.table_id, text: term(table.name) })));
  if (chosen) select.value = chosen;
}

function cardsText(round) {
  return round.cards.map((c) => `${term(c.to)}: ${c.card}${c.event === "CardDealt" ? "" : ` (${term(c.event)})`}`).join(", ") || "—";
}

function wagersText(round) {
  return round.wagers.map((w) => t("pages.recall_wager", { player: w.player, kind: term(w.kind), stake: w.stake, outcome: term(w.outcome), paid: w.paid })).join("; ") || "—";
}

async function showRecall(tableId) {
  const box = document.getElementById("recall-result");
  const rounds = await api(`/api/tables/${tableId}/recall`, { query: { last: 10 } });
  if (!rounds.length) {
    box.replaceChildren(el("p", { text: t("pages.recall_none") }));
    return;
  }
  const head = ["pages.recall_round", "pages.recall_state", "pages.recall_ended", "pages.recall_cards", "pages.recall_wagers", "pages.recall_net"];
  box.replaceChildren(
    el(
      "table",
      { class: "data", "data-recall": tableId },
      el("caption", { text: t("pages.recall_caption", { table: tableId, count: rounds.length }) }),
      el("thead", {}, el("tr", {}, ...head.map((key) => el("th", { scope: "col", text: t(key) })))),
      el(
        "tbody",
        {},
        ...rounds
          .slice()
          .reverse()
          .map((r) =>
            el(
              "tr",
              {},
              el("td", { class: "mono", text: r.round_id }),
              el("td", { "data-state": r.state, text: STATE[r.state] ? t(STATE[r.state]) : r.state }),
              el("td", { text: dateTime(r.ended) }),
              el("td", { text: cardsText(r) }),
              el("td", { text: wagersText(r) }),
              el("td", { text: r.players.map((p) => `${p.player} ${money(p.net)}`).join(", ") || "—" }),
            ),
          ),
      ),
    ),
  );
}

document.getElementById("recall-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const button = document.getElementById("recall-show");
  once(button, () => showRecall(document.getElementById("recall-table").value));
});

let again = false;
async function refresh() {
  if (refreshing) {
    again = true; // something changed meanwhile: once more after this one
    return refreshing;
  }
  refreshing = (async () => {
    do {
      again = false;
      try {
        await Promise.all([drawWaiting(), drawTables()]);
      } catch (err) {
        showError(err);
      }
    } while (again);
    refreshing = null;
  })();
  return refreshing;
}

let timer = null;
function soon() {
  clearTimeout(timer);
  timer = setTimeout(refresh, 250);
}

await refresh();
for (const table of tables) {
  connect(`/ws/tables/${table.table_id}`, {
    // a table message (server/streams.py): the table moved on
    onMessage: (m) => m.type === "table" && soon(),
  });
}
