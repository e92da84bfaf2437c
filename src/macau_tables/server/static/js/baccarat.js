// The baccarat player table: chips and the areas the table offers, the cards as the
// law reveals them (this player's view only), the squeeze for the card holder (BAC-16),
// results, wallet, the five roads with the ask road, and the shoe's commitment.

import { api, showError } from "./api.js";
import { drawRoads } from "./roads.js";
import { accepts, cardNode, fillRows, followTable, kindText, money, outcomeText, page, placeText, t } from "./table.js";

const WINNERS = { banker: "play.winner_banker", player: "play.winner_player", tie: "play.winner_tie" };
const HANDS = { banker: "play.hand_banker", player: "play.hand_player" };
const chips = page.chips || [];
let chip = chips[0] || 0;
const me = page.me;

// -- chips ---------------------------------------------------------------------------------------

const chipRow = document.getElementById("chips");
chips.forEach((value, i) => {
  const label = document.createElement("label");
  label.className = "chip";
  const input = document.createElement("input");
  input.type = "radio";
  input.name = "chip";
  input.value = String(value);
  input.checked = i === 0;
  input.addEventListener("change", () => {
    chip = value;
    refreshButtons();
  });
  const face = document.createElement("span");
  face.className = "chip-face";
  face.textContent = money(value);
  label.append(input, face);
  chipRow.appendChild(label);
});

const areaSelect = document.getElementById("area");
const remembered = localStorage.getItem(`area:${page.table_id}`);
if (remembered && [...areaSelect.options].some((o) => o.value === remembered)) areaSelect.value = remembered;
areaSelect.addEventListener("change", () => localStorage.setItem(`area:${page.table_id}`, areaSelect.value));

function area() {
  const [where, number] = areaSelect.value.split(":");
  return { type: "baccarat.Area", seated: where === "seat", number: Number(number) };
}

function amountFor(kind) {
  return kind === "jackpot" ? page.rules.jackpot_wager : chip;
}

function refreshButtons() {
  for (const button of document.querySelectorAll(".bet-area")) {
    const kind = button.dataset.kind;
    button.setAttribute("aria-label", t("play.bet_button", { amount: money(amountFor(kind)), kind: kindText(kind) }));
  }
}
refreshButtons();

// -- the table -----------------------------------------------------------------------------------

const table = followTable(render, { wallet: true });

for (const button of document.querySelectorAll(".bet-area")) {
  button.addEventListener("click", () => {
    const kind = button.dataset.kind;
    table.command(
      { type: "baccarat.PlaceWager", player: me, area: area(), kind, amount: amountFor(kind) },
      button,
    );
  });
}

document.getElementById("squeeze-turn").addEventListener("click", (event) => {
  const due = event.currentTarget.dataset;
  table.command({ type: "baccarat.Reveal", side: due.side, part: due.part, by: me }, event.currentTarget);
});

// BAC-15: at a virtual table the player takes a free seat or leaves theirs; the seating is
// fixed when a round opens, so a seat taken or left counts from the next round. (At a live
// table the dealer seats the players.)
const seatControls = document.getElementById("seat-controls");
const seatNumber = document.getElementById("seat-number");
const seatTake = document.getElementById("seat-take");
const seatLeave = document.getElementById("seat-leave");
seatControls.hidden = page.mode !== "virtual";

function labelTake() {
  seatTake.textContent = t("play.seat_take", { number: Number(seatNumber.value) });
}
seatNumber.addEventListener("change", labelTake);
labelTake();

async function seatCommand(cmd, control) {
  await table.command(cmd, control);
  await table.refresh({ board: true }); // the seating is on the board
}
seatTake.addEventListener("click", () =>
  seatCommand({ type: "tables.TakeSeat", player: me, seat: Number(seatNumber.value) }, seatTake),
);
seatLeave.addEventListener("click", () => seatCommand({ type: "tables.LeaveSeat", player: me }, seatLeave));

function renderSeat(board) {
  if (seatControls.hidden) return;
  const next = (board.seating || []).find((s) => s[1] === me);
  const now = (board.seated || []).find((s) => s[1] === me);
  seatTake.hidden = Boolean(next);
  seatNumber.disabled = Boolean(next);
  seatLeave.hidden = !next;
  const status = document.getElementById("seat-status");
  if (next && (!now || now[0] !== next[0])) status.textContent = t("play.seat_from_next", { number: next[0] });
  else if (!next && now) status.textContent = t("play.seat_left_next", { number: now[0] });
  else status.textContent = "";
}

let roadsSeq = -1;

function render(shown, board) {
  const view = shown.view;
  const seat = (board.seated || []).find((s) => s[1] === me);
  const seatNote = document.getElementById("my-seat");
  seatNote.hidden = !seat;
  if (seat) {
    seatNote.textContent = t("play.your_seat", { number: seat[0] });
    if (!localStorage.getItem(`area:${page.table_id}`)) areaSelect.value = `seat:${seat[0]}`;
  }
  renderSeat(board);
  const canBet = accepts(shown, "baccarat.PlaceWager") && view && !view.demo;
  for (const button of document.querySelectorAll(".bet-area")) {
    if (button.dataset.busy !== "1") button.disabled = !canBet;
    const kind = button.dataset.kind;
    const mine = view ? view.wagers.filter((w) => w.kind === kind).reduce((n, w) => n + w.amount, 0) : 0;
    const all = view ? view.layout.filter((s) => s.kind === kind).reduce((n, s) => n + s.amount, 0) : 0;
    button.querySelector("[data-mine]").textContent = mine ? t("play.stake_mine", { amount: money(mine) }) : "";
    button.querySelector("[data-table]").textContent = all ? t("play.stake_table", { amount: money(all) }) : "";
  }
  renderCards(view);
  renderWagers(shown, view);
  renderResults(view);
  renderSqueeze(shown, view);
  const left = document.getElementById("cards-left");
  if (left) left.textContent = view ? String(view.cards_left) : "—";
  if (shown.seq !== roadsSeq) {
    roadsSeq = shown.seq;
    readRoads();
  }
}

function renderCards(view) {
  const cards = view ? view.cards : [];
  for (const side of ["player", "banker"]) {
    const box = document.getElementById(`cards-${side}`);
    box.replaceChildren();
    for (const c of cards.filter((c) => c.slot.startsWith(side === "player" ? "P" : "B"))) {
      box.appendChild(cardNode(c.card, c.exposed ? "card-exposed" : ""));
    }
    if (!box.children.length) {
      const empty = document.createElement("span");
      empty.className = "muted";
      empty.textContent = t("play.no_card");
      box.appendChild(empty);
    }
  }
  const result = view ? view.result : null;
  document.getElementById("total-player").textContent = result ? t("play.total", { total: result.player_total }) : "";
  document.getElementById("total-banker").textContent = result ? t("play.total", { total: result.banker_total }) : "";
  const outcome = document.getElementById("outcome");
  if (result) {
    const bits = [t(WINNERS[result.winner])];
    if (result.natural) bits.push(t("play.natural"));
    if (result.banker_pair) bits.push(t("play.pair_banker"));
    if (result.player_pair) bits.push(t("play.pair_player"));
    outcome.textContent = bits.join(" · ");
    outcome.dataset.winner = result.winner;
  } else {
    outcome.textContent = view && view.demo ? t("play.demo_round") : "";
    outcome.dataset.winner = "";
  }
  const holders = document.getElementById("holders");
  holders.textContent = view
    ? view.holders.map(([side, player]) => t("play.holder", { side: t(HANDS[side]), player })).join(" · ")
    : "";
}

function renderWagers(shown, view) {
  const body = document.querySelector("#my-wagers tbody");
  const wagers = view ? view.wagers : [];
  const canWithdraw = accepts(shown, "baccarat.WithdrawWager");
  fillRows(
    body,
    wagers.map((w) => {
      let cell = "";
      if (canWithdraw && !w.carried) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "button-small button-quiet";
        b.textContent = t("play.take_back");
        b.setAttribute("aria-label", t("play.take_back_label", { amount: money(w.amount), kind: kindText(w.kind) }));
        b.addEventListener("click", () =>
          table.command({ type: "baccarat.WithdrawWager", wager_id: w.wager_id, player: me }, b),
        );
        cell = b;
      }
      return [kindText(w.kind), placeText(areaSpot(w.area)), money(w.amount), cell];
    }),
    [2],
  );
  document.getElementById("no-wagers").hidden = wagers.length > 0;
}

function areaSpot(a) {
  return `${a.seated ? "seat" : "standing"} ${a.number}`;
}

function renderResults(view) {
  const results = view ? view.results : [];
  fillRows(
    document.querySelector("#results tbody"),
    results.map((r) => [kindText(r.kind), money(r.stake), outcomeText(r.outcome), money(r.paid)]),
    [1, 3],
  );
  const net = document.getElementById("net");
  if (results.length) {
    const total = results.reduce((n, r) => n + r.paid - r.stake, 0);
    net.textContent = t("play.net", { amount: money(total) });
  } else {
    net.textContent = "";
  }
}

// BAC-16: the card holder squeezes and turns the side's cards; everyone else sees them face down.
function renderSqueeze(shown, view) {
  const box = document.getElementById("squeeze");
  const due = view ? view.reveal_due : null;
  const holder = due && view ? (view.holders.find(([side]) => side === due.side) || [])[1] : null;
  const mine = Boolean(due && holder === me && accepts(shown, "baccarat.Reveal"));
  box.hidden = !mine;
  if (mine) {
    document.getElementById("squeeze-text").textContent = t("play.squeeze_text", { side: t(HANDS[due.side]) });
    const button = document.getElementById("squeeze-turn");
    button.dataset.side = due.side;
    button.dataset.part = due.part;
  }
}

async function readRoads() {
  try {
    const roads = await api(`/api/tables/${encodeURIComponent(page.table_id)}/read/roads`);
    drawRoads(document.getElementById("roads"), roads, t);
    const shoe = roads.shoe;
    document.getElementById("shoe-live").hidden = !shoe.live;
    const label = document.getElementById("shoe-commitment-label");
    const code = document.getElementById("shoe-commitment");
    label.hidden = !shoe.commitment;
    if (shoe.commitment) {
      label.textContent = t("play.shoe_commitment", { number: shoe.number });
      code.textContent = shoe.commitment;
      document.getElementById("shoe-check").href = `/shoe-check?${new URLSearchParams({ commitment: shoe.commitment })}`;
    } else {
      code.textContent = "";
    }
  } catch (err) {
    showError(err);
  }
}
