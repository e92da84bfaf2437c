// The dealer console. It offers what the round contract says: the commands the round
// accepts now (`expected.commands`) and what is due next (`expected.due`: a card for a slot or a
// box, the wagers, a decision, a supervisor). The fields of each command are read from the
// server's OpenAPI schema (its codec name is the schema's title), so the console builds every
// command the same way for both games. Live tables: card entry by keyboard ("As", "10h") or by
// clicking a card; a card the law refuses (BAC-10, CSP-11) is shown at once with the rule, and the
// round waits for a supervisor, who corrects or voids it from this console or the supervisor page.
// The card field follows the dealer: the cursor is in it whenever a card becomes due (after
// closing the betting, after a supervisor's correction); a card the server cannot take leaves
// the field selected, so the next card typed replaces the typo (the field holds 4 characters);
// a card typed when none is due is said so, never silently dropped. The wagers' table shows
// every wager (a Caribbean box's ante, jackpot wager and raise) and, once settled, each one's
// outcome and what it paid.

import { api, ApiError, once, send, showError, showStatus } from "./api.js";
import { cardNode, fillRows, followTable, has, kindText, money, outcomeText, page, placeText, t } from "./table.js";

const me = page.me;
const role = page.role;
const cardInput = document.getElementById("card-input");
const cardResult = document.getElementById("card-result");
let schemas = {};
let shown = null;
let board = null;

// The labels of the commands the console shows as buttons (others show their codec name).
const LABELS = {
  ReportMisdeal: "play.report_misdeal",
  ReportExposedCard: "play.report_exposed",
  ShufflerFailure: "play.report_shuffler",
  Void: "play.void_round",
  ClearFault: "play.clear_fault",
  RejectReport: "play.reject_report",
};
const GROUNDS = {
  wrong_procedure: "play.void_wrong_procedure",
  wrong_card_count: "play.void_wrong_card_count",
  exposures: "play.void_exposures",
  shuffler_failure: "play.void_shuffler_failure",
  uncorrectable: "play.void_uncorrectable",
};
const CORRECTIONS = {
  reassign: "play.correct_reassign",
  withdraw: "play.correct_withdraw",
  mistyped: "play.correct_mistyped",
};
const SLOTS = {
  P1: "play.slot_p1",
  P2: "play.slot_p2",
  P3: "play.slot_p3",
  B1: "play.slot_b1",
  B2: "play.slot_b2",
  B3: "play.slot_b3",
};

function suffix(name) {
  return name.slice(name.indexOf(".") + 1);
}

function schema(name) {
  return schemas[name] || null;
}

function issuer(name) {
  const s = schema(name);
  const m = s ? /Issued by: (\w+)/.exec(s.description || "") : null;
  return m ? m[1] : null;
}

/** The values an enum field (or an optional one: anyOf null / enum) may take. */
function choices(prop) {
  if (Array.isArray(prop.enum)) return prop.enum;
  const found = (prop.anyOf || []).find((p) => Array.isArray(p.enum));
  return found ? found.enum : [];
}

function has_(name, field) {
  const s = schema(name);
  return Boolean(s && s.properties && field in s.properties);
}

/** Command `name` with `values` — only the fields its schema has; the supervisor is me. */
function build(name, values = {}) {
  const command = { type: name };
  const all = { supervisor: me, ...values };
  for (const [field, value] of Object.entries(all)) {
    if (has_(name, field) && value !== undefined) command[field] = value;
  }
  return command;
}

function reason() {
  const text = document.getElementById("reason").value.trim();
  if (!text) {
    const input = document.getElementById("reason");
    input.focus();
    throw new ApiError(422, { key: "play.reason", text: `${t("play.reason")}?` });
  }
  return text;
}

function slotText(slot) {
  return SLOTS[slot] ? t(SLOTS[slot]) : slot;
}

function cmd(name) {
  return shown && shown.expected ? shown.expected.commands.find((c) => suffix(c) === name) : undefined;
}

// -- the table -----------------------------------------------------------------------------------

const table = followTable((s, b) => {
  shown = s;
  board = b;
  render();
});

async function loadSchemas() {
  try {
    const doc = await api("/openapi.json");
    for (const s of Object.values(doc.components.schemas)) {
      if (s && s.title && s.properties && s.properties.type) schemas[s.title] = s;
    }
    fillSlots();
    render();
  } catch (err) {
    showError(err);
  }
}
loadSchemas();

function fillSlots() {
  const deal = Object.keys(schemas).find((n) => suffix(n) === "DealCard" && n.startsWith(`${page.game}.`));
  const slot = deal && schemas[deal].properties.slot;
  const values = slot ? (slot.anyOf || []).flatMap((x) => x.enum || []) : [];
  const select = document.getElementById("card-slot");
  for (const value of values) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = slotText(value);
    select.appendChild(option);
  }
  document.getElementById("slot-field").hidden = values.length === 0;
  document.getElementById("exposed-field").hidden = !(deal && "exposed" in schemas[deal].properties);
}

// -- rendering -----------------------------------------------------------------------------------

function dueText(d) {
  if (d.kind === "card" && d.slot) return t("play.due_card", { slot: slotText(d.slot) });
  if (d.kind === "card" && d.position !== null) return t("play.due_card_box", { position: d.position });
  if (d.kind === "card") return t("play.due_card_any");
  if (d.kind === "wagers") return t("play.due_wagers");
  if (d.kind === "decision") return t("play.due_decision", { position: d.position, player: d.player || "" });
  if (d.kind === "supervisor") return t("play.due_supervisor");
  if (d.kind === "reveal") return t("play.due_reveal", { side: d.slot || d.player || "" });
  return d.kind;
}

/** What the round waits for first: a card, a decision, a supervisor before the wagers. */
function firstDue(due) {
  return due.find((d) => d.kind !== "wagers") || due[0];
}

function render() {
  if (!shown) return;
  const view = shown.view;
  const due = shown.expected ? shown.expected.due : [];
  const dueNode = document.getElementById("due");
  const first = firstDue(due);
  dueNode.textContent = first ? dueText(first) : t("play.due_none");
  dueNode.dataset.kind = first ? first.kind : "";
  dueNode.dataset.slot = first && first.slot ? first.slot : "";
  const list = document.getElementById("due-list");
  list.replaceChildren(
    ...due.map((d) => {
      const li = document.createElement("li");
      li.textContent = dueText(d);
      return li;
    }),
  );
  document.getElementById("cards-left").textContent = view && view.cards_left !== undefined ? String(view.cards_left) : "—";
  renderRefusal(view);
  renderShoe();
  renderRound(view);
  renderCardEntry(due);
  renderCards(view);
  renderButtons();
  renderWagers(view);
}

function paramsOf(pairs) {
  const out = {};
  for (const [k, v] of pairs || []) out[k] = k === "slot" || k === "due" ? slotText(v) : v;
  return out;
}

function refusalText(r) {
  const text = has(r.key) ? t(r.key, paramsOf(r.params)) : r.key;
  return `${text} (${r.rule})`;
}

function renderRefusal(view) {
  const box = document.getElementById("refusal");
  const refused = view && view.refused ? view.refused : null;
  box.hidden = !refused;
  if (refused) {
    const card = refused.card ? `${refused.card}: ` : "";
    document.getElementById("refusal-text").textContent = t("play.card_refused", { text: card + refusalText(refused) });
    box.dataset.rule = refused.rule;
  }
  document.getElementById("refusal-wait").hidden = !(view && view.awaiting_supervisor);
}

function renderShoe() {
  const waits = board ? board.shoe_waits : null;
  const roundOpen = shown.expected && shown.expected.commands.length > 0;
  const panel = document.getElementById("shoe-controls");
  panel.hidden = !waits || roundOpen;
  for (const group of panel.querySelectorAll("[data-shoe]")) group.hidden = !waits || group.dataset.shoe !== suffix(waits);
  document.getElementById("shoe-waits").textContent = waits ? t("play.shoe_waits", { command: suffix(waits) }) : "";
}

function renderRound(view) {
  const roundOpen = Boolean(shown.expected && shown.expected.commands.length > 0);
  const open = document.getElementById("open-round");
  const ready = !roundOpen && !(board && board.shoe_waits) && !shown.fault && shown.status === "open";
  if (open.dataset.busy !== "1") open.disabled = !ready;
  const close = document.getElementById("close-betting");
  if (close.dataset.busy !== "1") close.disabled = !cmd("CloseBetting");
  document.getElementById("demo-note").hidden = !(view && view.demo && roundOpen);
  const seating = document.getElementById("seating");
  if (!seating.value && board && board.seated.length) {
    seating.value = board.seated.map(([n, p]) => `${n}:${p}`).join(", ");
  }
}

let cardWasDue = false;

/** Whether the dealer is typing in another field (the reason, the seating): not to be taken. */
function typingElsewhere() {
  const active = document.activeElement;
  if (!active || active === cardInput) return false;
  return ["INPUT", "TEXTAREA", "SELECT"].includes(active.tagName) && active.type !== "checkbox";
}

function renderCardEntry(due) {
  // At a live table the card field is always there (a card typed when none is due is answered,
  // enterCard); a virtual table deals itself: its `expected` never lists DealCard (the server
  // keeps only the commands the table's mode accepts, MODES) and it has no card field.
  const deal = Boolean(cmd("DealCard"));
  const panel = document.getElementById("card-panel");
  panel.hidden = panel.dataset.live !== "1";
  const cardDue = due.find((d) => d.kind === "card");
  panel.dataset.due = cardDue && cardDue.slot ? cardDue.slot : "";
  panel.dataset.dealing = deal ? "1" : "";
  const nowDue = deal && Boolean(cardDue);
  if (nowDue && !cardWasDue) {
    // a card became due: the last round's "entered" line is stale, the cursor goes to the field
    clearCardResult();
    if (!panel.hidden && !typingElsewhere()) cardInput.focus();
  }
  cardWasDue = nowDue;
}

const WINNERS = { banker: "play.winner_banker", player: "play.winner_player", tie: "play.winner_tie" };

function renderCards(view) {
  const root = document.getElementById("table-cards");
  root.replaceChildren();
  const result = view && view.result ? view.result : null;
  const outcome = document.getElementById("console-outcome");
  outcome.textContent =
    result && WINNERS[result.winner]
      ? `${t(WINNERS[result.winner])} · ${t("play.hand_player")} ${result.player_total} · ${t("play.hand_banker")} ${result.banker_total}`
      : "";
  outcome.dataset.winner = result && result.winner ? result.winner : "";
  if (!view) return;
  const strip = document.createElement("div");
  strip.className = "slot-strip";
  const slot = (label, node, extra = "") => {
    const item = document.createElement("figure");
    item.className = `slot ${extra}`;
    const caption = document.createElement("figcaption");
    caption.textContent = label;
    item.append(caption, node);
    strip.appendChild(item);
    return item;
  };
  for (const c of view.cards || []) {
    slot(slotText(c.slot), cardNode(c.card, c.exposed ? "card-exposed" : "")).dataset.slot = c.slot;
  }
  // the slot due next, as an empty place on the layout
  const due = shown.expected ? shown.expected.due.find((d) => d.kind === "card" && d.slot) : null;
  if (due) {
    const empty = document.createElement("span");
    empty.className = "card card-empty";
    empty.setAttribute("aria-label", t("play.due_card", { slot: slotText(due.slot) }));
    empty.setAttribute("role", "img");
    slot(slotText(due.slot), empty, "slot-due").dataset.slot = due.slot;
  }
  if (view.dealer_cards) {
    const hand = document.createElement("span");
    hand.className = "cards";
    hand.append(...view.dealer_cards.map((c) => cardNode(c)));
    slot(t("play.dealer_cards"), hand);
  }
  for (const b of view.boxes || []) {
    const hand = document.createElement("span");
    hand.className = "cards";
    hand.append(...b.cards.map((c) => cardNode(c)));
    slot(t("play.box_number", { number: b.box }), hand);
  }
  root.appendChild(strip);
}

function renderButtons() {
  const reports = document.getElementById("report-buttons");
  const supervisor = document.getElementById("supervisor-buttons");
  const commands = shown.expected ? shown.expected.commands : [];
  const wantReports = [];
  const wantSupervisor = [];
  for (const name of commands) {
    const who = issuer(name);
    const short = suffix(name);
    if (who === "dealer" && ["ReportMisdeal", "ReportExposedCard", "ShufflerFailure"].includes(short)) wantReports.push(name);
    if (who === "supervisor" && short === "Correct") {
      const action = schema(name).properties.action;
      for (const value of action.enum || []) wantSupervisor.push([name, value]);
    } else if (who === "supervisor" && has_(name, "ground")) {
      // a void names its legal ground (CSP-11.1, CSP-11.4, BAC-10): one button per ground
      for (const value of choices(schema(name).properties.ground)) wantSupervisor.push([name, value]);
    } else if (who === "supervisor") {
      wantSupervisor.push([name, null]);
    }
  }
  if (shown.fault) wantSupervisor.push(["tables.ClearFault", null]);
  const mineToDo = role === "supervisor" ? wantSupervisor : [];
  // rebuilt only when the commands change: a field being typed in keeps its text and focus
  const signature = JSON.stringify([wantReports, mineToDo, Boolean(shown.fault), Object.keys(schemas).length]);
  if (reports.dataset.signature === signature) return;
  reports.dataset.signature = signature;
  reports.replaceChildren(...wantReports.map((name) => (has_(name, "card") ? withCard(name) : button(name, null))));
  supervisor.replaceChildren(...mineToDo.map(([n, a]) => button(n, a)));
  const fault = document.createElement("button");
  fault.type = "button";
  fault.className = "button-danger";
  fault.id = "report-fault";
  fault.textContent = t("play.report_fault");
  fault.disabled = Boolean(shown.fault);
  fault.addEventListener("click", () => run(fault, () => build("tables.ReportFault", { reason: reason() })));
  reports.appendChild(fault);
}

// A report naming a card (an exposed card, CSP-11.1): its own card field beside the button.
function withCard(name) {
  const box = document.createElement("div");
  box.className = "field";
  const id = `card-for-${suffix(name)}`;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = t("play.card_entry");
  const input = document.createElement("input");
  input.type = "text";
  input.id = id;
  input.maxLength = 4;
  input.autocomplete = "off";
  input.spellcheck = false;
  box.append(label, input, button(name, null, input));
  return box;
}

function button(name, action, cardField = null) {
  const b = document.createElement("button");
  b.type = "button";
  b.dataset.command = name;
  const short = suffix(name);
  const field = has_(name, "ground") ? "ground" : "action";
  if (action) {
    b.dataset.action = action;
    const label = CORRECTIONS[action] || GROUNDS[action];
    b.textContent = label ? t(label) : `${short}: ${action}`;
  } else {
    b.textContent = LABELS[short] ? t(LABELS[short]) : short;
  }
  if (short === "Void") b.className = "button-danger";
  b.addEventListener("click", () =>
    run(b, () => {
      const values = {};
      if (has_(name, "reason")) values.reason = reason();
      if (action) values[field] = action;
      if (has_(name, "card")) values.card = (cardField || document.getElementById("card-input")).value.trim();
      return build(name, values);
    }),
  );
  return b;
}

/** Send the command `make()` builds (a double click sends it once). */
async function run(control, make) {
  await once(control, async () => {
    const command = make();
    await table.command(command);
  });
  render(); // once() gave the control back its state: set it from the table anew
}

// Every wager of the round, one row each — a baccarat wager at its seat or standing area; a
// Caribbean box's ante, jackpot wager (CSP-10.1) and raise — with, once settled, its outcome
// and what it paid (the round's `results`, by player, place and kind).
function renderWagers(view) {
  const body = document.querySelector("#wagers tbody");
  const results = (view && view.results) || [];
  const wagers = [];
  for (const w of (view && view.wagers) || []) {
    wagers.push({ player: w.player, spot: `${w.area.seated ? "seat" : "standing"} ${w.area.number}`, kind: w.kind, amount: w.amount });
  }
  for (const b of (view && view.boxes) || []) {
    const spot = `box ${b.box}`;
    const player = b.player || "";
    wagers.push({ player, spot, kind: "ante", amount: b.ante });
    if (b.jackpot) wagers.push({ player, spot, kind: "jackpot", amount: b.jackpot });
    if (b.raise_amount) wagers.push({ player, spot, kind: "raise", amount: b.raise_amount });
  }
  const settled = wagers.map((w) => results.find((x) => x.player === w.player && x.kind === w.kind && x.spot === w.spot) || null);
  const rows = wagers.map((w, i) => {
    const r = settled[i];
    return [w.player, placeText(w.spot), kindText(w.kind), money(w.amount), r ? outcomeText(r.outcome) : "", r ? money(r.paid) : ""];
  });
  fillRows(body, rows, [3, 5]);
  [...body.rows].forEach((tr, i) => {
    tr.dataset.spot = wagers[i].spot;
    tr.dataset.kind = wagers[i].kind;
    tr.dataset.outcome = settled[i] ? settled[i].outcome : "";
    tr.dataset.paid = settled[i] ? String(settled[i].paid) : "";
  });
}

// -- controls ------------------------------------------------------------------------------------

function seated() {
  const text = document.getElementById("seating").value.trim();
  if (!text) return [];
  return text.split(",").map((part) => {
    const [n, p] = part.split(":").map((x) => x.trim());
    return [Number(n), p];
  });
}

const openRound = document.getElementById("open-round");
openRound.addEventListener("click", () =>
  run(openRound, () => build("tables.OpenRound", { seated: has_("tables.OpenRound", "seated") ? seated() : undefined })),
);
const closeBetting = document.getElementById("close-betting");
closeBetting.addEventListener("click", async () => {
  await run(closeBetting, () => ({ type: cmd("CloseBetting") }));
  // the betting closed: the cards come next, the cursor goes to the card field
  if (cmd("DealCard") && !document.getElementById("card-panel").hidden && !typingElsewhere()) cardInput.focus();
});

const openShoe = document.getElementById("open-shoe");
openShoe.addEventListener("click", () => run(openShoe, () => ({ type: "tables.OpenShoe" })));
const cut = document.getElementById("cut");
cut.addEventListener("click", () =>
  run(cut, () =>
    build(board.shoe_waits, {
      cutter: "dealer",
      cutter_id: me,
      position: Number(document.getElementById("cut-position").value),
    }),
  ),
);
const burn = document.getElementById("burn");
burn.addEventListener("click", () =>
  run(burn, () =>
    build(board.shoe_waits, {
      cards: document
        .getElementById("burn-cards")
        .value.split(/[\s,]+/)
        .filter(Boolean)
        .map((c) => (c === "?" ? null : c)),
    }),
  ),
);

// Card entry: the keyboard ("As", "10h" and Enter) or a click on a card of the picker.
const cardForm = document.getElementById("card-form");

function clearCardResult() {
  cardResult.textContent = "";
  cardResult.className = "";
  cardResult.dataset.outcome = "";
}

/** What the table waits for now, in words (for "no card is due now"). */
function dueNow() {
  const first = firstDue(shown && shown.expected ? shown.expected.due : []);
  return first ? dueText(first) : t("play.due_none");
}

async function enterCard(text, control) {
  if (!text) return;
  const name = cmd("DealCard");
  if (!name || !(shown.expected.due || []).some((d) => d.kind === "card")) {
    // typed when no card is due (between rounds, a decision, a supervisor): said so, in
    // place of the last card's line; the card is not entered and leaves the field
    cardResult.textContent = t("play.card_not_due", { card: text, due: dueNow() });
    cardResult.className = "refusal";
    cardResult.dataset.outcome = "not-due";
    cardInput.value = "";
    cardInput.focus();
    return;
  }
  const slot = document.getElementById("card-slot").value || null;
  const exposed = document.getElementById("card-exposed").checked;
  const before = shown.view ? (shown.view.flags || []).length : 0;
  const typed = cardInput.value;
  let typo = false;
  await once(control, async () => {
    cardResult.textContent = "";
    cardResult.className = "";
    try {
      const command = build(name, { card: text, slot: slot || undefined, exposed: exposed || undefined });
      await send(`/api/tables/${encodeURIComponent(page.table_id)}/commands`, { command });
    } catch (err) {
      // selected at once, before the table is read again: a card typed while that read is
      // under way replaces the typo rather than being cut off after it
      typo = true;
      cardInput.focus();
      cardInput.select();
      cardResult.textContent = t("play.card_refused", { text: err instanceof ApiError ? err.text : String(err) });
      cardResult.className = "refusal";
      cardResult.dataset.outcome = "refused";
      return;
    } finally {
      await table.refresh();
    }
    const flags = shown.view ? shown.view.flags || [] : [];
    if (flags.length > before) {
      // the law refused the card (BAC-10): recorded, and the round waits for a supervisor
      cardResult.textContent = t("play.card_refused", { text: refusalText(flags[flags.length - 1]) });
      cardResult.className = "refusal";
      cardResult.dataset.outcome = "refused";
    } else {
      cardResult.textContent = t("play.card_accepted", { card: text });
      cardResult.dataset.outcome = "accepted";
      showStatus(t("play.card_accepted", { card: text }));
    }
    cardInput.value = "";
    document.getElementById("card-slot").value = "";
    document.getElementById("card-exposed").checked = false;
  });
  render();
  cardInput.focus();
  // a card the server could not take stays in the field, selected: the next card typed
  // replaces it (the field holds 4 characters: typed after the typo, it would be cut off)
  if (typo && cardInput.value === typed) cardInput.select();
}

cardForm.addEventListener("submit", (event) => {
  event.preventDefault();
  enterCard(cardInput.value.trim(), document.getElementById("card-submit"));
});

const picker = document.getElementById("card-picker");
const SUIT_SIGNS = { s: "♠", h: "♥", d: "♦", c: "♣" };
for (const suit of ["s", "h", "d", "c"]) {
  for (const rank of ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]) {
    const b = document.createElement("button");
    b.type = "button";
    const shownRank = rank === "T" ? "10" : rank;
    b.textContent = `${shownRank}${SUIT_SIGNS[suit]}`;
    b.dataset.card = `${rank}${suit}`;
    b.className = suit === "h" || suit === "d" ? "card-red" : "";
    b.setAttribute("aria-label", t("play.card_button", { card: `${shownRank}${SUIT_SIGNS[suit]}` }));
    b.addEventListener("click", () => enterCard(`${rank}${suit}`, b));
    picker.appendChild(b);
  }
}

