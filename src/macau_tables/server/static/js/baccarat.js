// The baccarat player table, a felt (felt.js): the hands dealt and turned as the law reveals
// them (this player's view only), the winner with each hand's total, the squeeze as a peel for
// the card holder (BAC-16), every betting area of the table (BAC-15) with its spots and the
// chips on them, the chip rack, the player's wagers and results, the wallet, the five roads
// with the ask road and the shoe's statistics (results only), and the shoe's commitment.

import { api, showError } from "./api.js";
import { cardNode, chipFace, setStack, showCards } from "./felt.js";
import { drawRoads } from "./roads.js";
import { accepts, fillRows, followTable, kindText, money, outcomeText, page, placeText, t } from "./table.js";

// The catalog keys (written out: the catalog test reads them).
const WINNERS = { banker: "play.winner_banker_totals", player: "play.winner_player_totals", tie: "play.winner_tie_totals" };
const HANDS = { banker: "play.hand_banker", player: "play.hand_player" };
const LETTERS = { B: "play.letter_banker", P: "play.letter_player", T: "play.letter_tie" };
const chips = page.chips || [];
let chip = chips[0] || 0;
const me = page.me;

/** How far (a fraction of the card's height) a peel goes before the cards are turned. */
const PEEL_TURNS = 0.6;

// -- the chip rack -------------------------------------------------------------------------------

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
    labelSpots();
  });
  const face = document.createElement("span");
  face.className = "chip-face";
  face.append(chipFace(value, i));
  const text = document.createElement("span");
  text.className = "visually-hidden";
  text.textContent = money(value);
  label.append(input, face, text);
  chipRow.appendChild(label);
});

// -- the spots of the layout (BAC-15) ------------------------------------------------------------

const spots = [...document.querySelectorAll(".spot")];

function areaOf(spot) {
  const [where, number] = spot.dataset.area.split(":");
  return { type: "baccarat.Area", seated: where === "seat", number: Number(number) };
}

function placeOf(spot) {
  return placeText(spot.dataset.area.replace(":", " "));
}

function amountFor(kind) {
  return kind === "jackpot" ? page.rules.jackpot_wager : chip;
}

/** Each spot's name for assistive technology: the bet it places, then the chips on it. */
function labelSpots() {
  for (const spot of spots) {
    const kind = spot.dataset.kind;
    const bits = [t("play.spot_label", { amount: amountFor(kind), kind: kindText(kind), place: placeOf(spot) })];
    const all = Number(spot.dataset.amount || 0);
    const mine = Number(spot.dataset.mine || 0);
    if (all) bits.push(t("play.stake_table", { amount: all }));
    if (mine) bits.push(t("play.stake_mine", { amount: mine }));
    spot.setAttribute("aria-label", bits.join(" · "));
  }
}

const table = followTable(render, { wallet: true });

for (const spot of spots) {
  spot.addEventListener("click", () => {
    const kind = spot.dataset.kind;
    table.command({ type: "baccarat.PlaceWager", player: me, area: areaOf(spot), kind, amount: amountFor(kind) }, spot);
  });
}

// An area is a toolbar: Tab reaches it once, the arrow keys move between its spots.
for (const area of document.querySelectorAll(".area")) {
  area.addEventListener("keydown", (event) => {
    const own = [...area.querySelectorAll(".spot")];
    const at = own.indexOf(document.activeElement);
    if (at < 0) return;
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    let next = null;
    if (step) next = own[(at + step + own.length) % own.length];
    else if (event.key === "Home") next = own[0];
    else if (event.key === "End") next = own[own.length - 1];
    if (!next) return;
    event.preventDefault();
    for (const s of own) s.tabIndex = s === next ? 0 : -1;
    next.focus();
  });
  area.addEventListener("focusin", (event) => {
    if (!event.target.classList.contains("spot")) return;
    for (const s of area.querySelectorAll(".spot")) s.tabIndex = s === event.target ? 0 : -1;
  });
}

// -- seats (BAC-15) ------------------------------------------------------------------------------

// At a virtual table the player takes a free seat or leaves theirs; the seating is fixed when a
// round opens, so a seat taken or left counts from the next round. (At a live table the dealer
// seats the players.)
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
  const seat = (board.seated || []).find((s) => s[1] === me);
  const note = document.getElementById("my-seat");
  note.hidden = !seat;
  if (seat) note.textContent = t("play.your_seat", { number: seat[0] });
  for (const area of document.querySelectorAll(".area")) {
    area.classList.toggle("area-mine", Boolean(seat) && area.dataset.area === `seat:${seat[0]}`);
  }
  if (seatControls.hidden) return;
  const next = (board.seating || []).find((s) => s[1] === me);
  seatTake.hidden = Boolean(next);
  seatNumber.disabled = Boolean(next);
  seatLeave.hidden = !next;
  const status = document.getElementById("seat-status");
  if (next && (!seat || seat[0] !== next[0])) status.textContent = t("play.seat_from_next", { number: next[0] });
  else if (!next && seat) status.textContent = t("play.seat_left_next", { number: seat[0] });
  else status.textContent = "";
}

// -- the table's state ---------------------------------------------------------------------------

let roadsSeq = -1;

function render(shown, board) {
  const view = shown.view;
  renderSeat(board);
  renderSpots(shown, view);
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

function areaKey(a) {
  return `${a.seated ? "seat" : "standing"}:${a.number}`;
}

function renderSpots(shown, view) {
  const canBet = accepts(shown, "baccarat.PlaceWager") && view && !view.demo;
  const totals = new Map();
  const mine = new Map();
  for (const s of view ? view.layout : []) {
    const key = `${areaKey(s.area)} ${s.kind}`;
    totals.set(key, (totals.get(key) || 0) + s.amount);
  }
  for (const w of view ? view.wagers : []) {
    const key = `${areaKey(w.area)} ${w.kind}`;
    mine.set(key, (mine.get(key) || 0) + w.amount);
  }
  for (const spot of spots) {
    if (spot.dataset.busy !== "1") spot.disabled = !canBet;
    const key = `${spot.dataset.area} ${spot.dataset.kind}`;
    const own = mine.get(key) || 0;
    setStack(spot, Math.max(totals.get(key) || 0, own), chips);
    spot.dataset.mine = String(own);
    spot.querySelector("[data-mine]").textContent = own ? t("play.stake_mine", { amount: own }) : "";
    spot.classList.toggle("spot-has-mine", own > 0);
  }
  labelSpots();
}

function renderCards(view) {
  const cards = view ? view.cards : [];
  for (const side of ["player", "banker"]) {
    const letter = side === "player" ? "P" : "B";
    showCards(
      document.getElementById(`cards-${side}`),
      cards
        .filter((c) => c.slot.startsWith(letter))
        .map((c) => ({
          key: c.slot,
          card: c.card,
          extra: [c.exposed ? "card-exposed" : "", c.card && !c.revealed ? "card-held" : ""].join(" ").trim(),
        })),
      t("play.no_card"),
    );
  }
  const result = view ? view.result : null;
  document.getElementById("total-player").textContent = result ? t("play.total", { total: result.player_total }) : "";
  document.getElementById("total-banker").textContent = result ? t("play.total", { total: result.banker_total }) : "";
  for (const side of ["player", "banker"]) {
    document.querySelector(`.hand-${side}`).classList.toggle("hand-wins", Boolean(result && result.winner === side));
  }
  const outcome = document.getElementById("outcome");
  if (result) {
    const bits = [t(WINNERS[result.winner], { banker: result.banker_total, player: result.player_total })];
    if (result.natural) bits.push(t("play.natural"));
    if (result.banker_pair) bits.push(t("play.pair_banker"));
    if (result.player_pair) bits.push(t("play.pair_player"));
    outcome.textContent = bits.join(" · ");
    outcome.dataset.winner = result.winner;
  } else {
    outcome.textContent = view && view.demo ? t("play.demo_round") : "";
    outcome.dataset.winner = "";
  }
  // who holds each side's cards (BAC-16): "you" or "another player", never another's name
  document.getElementById("holders").textContent = view
    ? view.holders
        .map(([side, player]) => t(player === me ? "play.holder_you" : "play.holder_other", { side: t(HANDS[side]) }))
        .join(" · ")
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
        b.setAttribute("aria-label", t("play.take_back_label", { amount: w.amount, kind: kindText(w.kind) }));
        b.addEventListener("click", () =>
          table.command({ type: "baccarat.WithdrawWager", wager_id: w.wager_id, player: me }, b),
        );
        cell = b;
      }
      return [kindText(w.kind), placeText(areaKey(w.area).replace(":", " ")), money(w.amount), cell];
    }),
    [2],
  );
  document.getElementById("no-wagers").hidden = wagers.length > 0;
}

function renderResults(view) {
  const results = view ? view.results : [];
  fillRows(
    document.querySelector("#results tbody"),
    results.map((r) => [kindText(r.kind), money(r.stake), outcomeText(r.outcome), money(r.paid)]),
    [1, 3],
  );
  const net = document.getElementById("net");
  net.textContent = results.length
    ? t("play.net", { amount: results.reduce((n, r) => n + r.paid - r.stake, 0) })
    : "";
}

// -- the squeeze (BAC-16) ------------------------------------------------------------------------

// The card holder peels the held cards: a drag (mouse, pen or touch) on a card lifts its back
// off progressively; once every held card is peeled past PEEL_TURNS the cards are turned for
// everyone (baccarat.Reveal). The button turns them at once (keyboards).
const peelBox = document.getElementById("peel-cards");
const turnButton = document.getElementById("squeeze-turn");
let peelKey = "";

function turn() {
  const due = turnButton.dataset;
  if (!due.side) return undefined;
  return table.command({ type: "baccarat.Reveal", side: due.side, part: due.part, by: me }, turnButton);
}
turnButton.addEventListener("click", turn);

function peelNode(card, label) {
  const wrap = document.createElement("div");
  wrap.className = "peel";
  wrap.dataset.card = card;
  wrap.dataset.peel = "0";
  wrap.setAttribute("role", "img");
  wrap.setAttribute("aria-label", label);
  const faceNode = document.createElement("div");
  faceNode.className = "peel-face";
  faceNode.append(cardNode(card));
  const cover = document.createElement("div");
  cover.className = "peel-cover";
  cover.append(cardNode(null));
  wrap.append(faceNode, cover);
  let start = null;
  const set = (fraction) => {
    const f = Math.max(Number(wrap.dataset.peel), Math.min(1, fraction));
    wrap.dataset.peel = f.toFixed(2);
    wrap.style.setProperty("--peel", f.toFixed(3));
    if (f >= PEEL_TURNS) wrap.classList.add("peeled");
  };
  wrap.addEventListener("pointerdown", (event) => {
    start = { x: event.clientX, y: event.clientY, h: wrap.getBoundingClientRect().height || 1 };
    wrap.setPointerCapture(event.pointerId);
    event.preventDefault();
  });
  wrap.addEventListener("pointermove", (event) => {
    if (!start) return;
    const moved = Math.max(Math.abs(event.clientY - start.y), Math.abs(event.clientX - start.x));
    set(moved / start.h);
  });
  const end = () => {
    if (!start) return;
    start = null;
    if (!wrap.classList.contains("peeled")) {
      wrap.dataset.peel = "0"; // let go early: the corner falls back
      wrap.style.setProperty("--peel", "0");
    }
    const all = [...peelBox.querySelectorAll(".peel")];
    if (all.length && all.every((p) => p.classList.contains("peeled")) && turnButton.dataset.busy !== "1") turn();
  };
  wrap.addEventListener("pointerup", end);
  wrap.addEventListener("pointercancel", end);
  return wrap;
}

function renderSqueeze(shown, view) {
  const box = document.getElementById("squeeze");
  const due = view ? view.reveal_due : null;
  const holder = due && view ? (view.holders.find(([side]) => side === due.side) || [])[1] : null;
  const mine = Boolean(due && holder === me && accepts(shown, "baccarat.Reveal"));
  box.hidden = !mine;
  if (!mine) {
    peelKey = "";
    peelBox.replaceChildren();
    return;
  }
  document.getElementById("squeeze-text").textContent = t("play.squeeze_text", { side: t(HANDS[due.side]) });
  turnButton.dataset.side = due.side;
  turnButton.dataset.part = due.part;
  const letter = due.side === "player" ? "P" : "B";
  const held = view.cards.filter((c) => c.slot.startsWith(letter) && !c.revealed && c.card);
  const key = `${shown.round_id} ${due.side} ${due.part} ${held.map((c) => c.card).join(",")}`;
  if (key === peelKey) return; // a peel under way is kept
  peelKey = key;
  peelBox.replaceChildren(...held.map((c) => peelNode(c.card, t("play.squeeze_peel_card"))));
}

// -- roads and the shoe's statistics -------------------------------------------------------------

function renderStats(roads) {
  for (const side of ["banker", "player"]) {
    const row = document.querySelector(`#stats-streaks tr[data-side='${side}']`);
    const streak = (roads.streaks || {})[side] || { current: 0, longest: 0 };
    row.querySelector("[data-current]").textContent = String(streak.current);
    row.querySelector("[data-longest]").textContent = String(streak.longest);
  }
  const list = document.getElementById("last-results");
  list.replaceChildren(
    ...(roads.last || []).map((letter) => {
      const item = document.createElement("li");
      item.className = `last-${letter}`;
      item.dataset.result = letter;
      item.textContent = t(LETTERS[letter]);
      return item;
    }),
  );
}

async function readRoads() {
  try {
    const roads = await api(`/api/tables/${encodeURIComponent(page.table_id)}/read/roads`);
    drawRoads(document.getElementById("roads"), roads, t);
    renderStats(roads);
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
