// What every game page shares (player tables, dealer console): the table's live state from the
// round contract's API — GET /api/tables/{id} once, then the WebSocket /ws/tables/{id}, whose
// shared, seat and own parts (socket.js tableParts) make the view for this user with
// `expected` (what the round waits for and the commands it accepts now) and `can_issue`; GET /api/tables/{id}/board the time-out countdown
// and seating when they can have changed. The pages never read a card the server did not put in this user's view.

import { api, clearError, once, send, showError, showStatus } from "./api.js";
import { has, money, pageData, t } from "./i18n.js";
import { cardNode, countdownRing } from "./felt.js";
import { verifyProof } from "./merkle.js";
import { connect, tableParts } from "./socket.js";
import "./cycle.js"; // the round cycle's label and notice (a "table-state" listener)

export const page = pageData() || {};

// The catalog keys of the values the views carry (written out: the catalog test reads them).
const KINDS = {
  banker: "play.kind_banker",
  player: "play.kind_player",
  tie: "play.kind_tie",
  banker_pair: "play.kind_banker_pair",
  player_pair: "play.kind_player_pair",
  lucky_6: "play.kind_lucky_6",
  jackpot: "play.kind_jackpot",
  ante: "play.kind_ante",
  raise: "play.kind_raise",
};
const OUTCOMES = {
  won: "play.outcome_won",
  lost: "play.outcome_lost",
  returned: "play.outcome_returned",
  carried_over: "play.outcome_carried_over",
};
const PHASES = {
  betting: "play.phase_betting",
  dealing: "play.phase_dealing",
  complete: "play.phase_complete",
  deciding: "play.phase_deciding",
  settled: "play.phase_settled",
  void: "play.phase_void",
};

/** The page language's word for a wager kind ("banker_pair"), else the kind itself. */
export function kindText(kind) {
  return KINDS[kind] ? t(KINDS[kind]) : kind;
}

/** A place at the table ("seat 3", "standing 1", "box 2") in the page's language. */
export function placeText(spot) {
  const m = /^(seat|standing|box) (\d+)$/.exec(spot || "");
  if (!m) return spot || "";
  const key = { seat: "play.area_seat", standing: "play.area_standing", box: "play.box_number" }[m[1]];
  return t(key, { number: m[2] });
}

export function outcomeText(outcome) {
  return OUTCOMES[outcome] ? t(OUTCOMES[outcome]) : outcome;
}

/** Fill a <tbody> with rows of cells (strings or nodes); `num` marks right-aligned columns. */
export function fillRows(tbody, rows, num = []) {
  tbody.replaceChildren();
  for (const cells of rows) {
    const tr = document.createElement("tr");
    cells.forEach((cell, i) => {
      const td = document.createElement("td");
      if (num.includes(i)) td.className = "num";
      if (cell instanceof Node) td.appendChild(cell);
      else td.textContent = cell;
      tr.appendChild(td);
    });
    tbody.appendChild(tr);
  }
}

/** The phase's words in the page's language. */
export function phaseText(phase) {
  if (!phase) return t("play.phase_none");
  return PHASES[phase] ? t(PHASES[phase]) : phase;
}

/**
 * Follow the table of the page. `render(shown, board)` gets every new state: `shown` the table
 * as GET /api/tables/{id} answers it (view, expected, can_issue, seq, status, fault), kept
 * current by the socket's `table` messages, which carry the same fields — no request per
 * event; `board` GET .../board (countdown, seating, the shoe's wait), read again only when what
 * it shows can have changed: a new round, phase or awaited step, the time between rounds, a
 * reconnection. Returns { command(cmd, control), refresh(), state() }.
 */
export function followTable(render, { wallet = false } = {}) {
  const id = page.table_id;
  const path = `/api/tables/${encodeURIComponent(id)}`;
  let shown = null;
  let board = null;
  let boardKey = null; // what the board was read for (boardKeyOf)
  let deadline = null; // performance.now() at which the countdown reaches 0
  let span = null; // the seconds the running countdown counts down from (its ring's whole)
  const rings = [...document.querySelectorAll("[data-countdown-ring]")].map(countdownRing);
  let chain = Promise.resolve(); // the states are taken one after the other, in order
  let shownRound; // the round shown (undefined: none yet)

  async function readWallet() {
    if (!wallet) return;
    try {
      const mine = await api("/api/wallets/me");
      const node = document.getElementById("wallet");
      if (node) {
        node.textContent = money(mine.balance);
        node.dataset.balance = String(mine.balance);
      }
    } catch (err) {
      showError(err);
    }
  }

  // The board's timers and seating change with the round, its phase and the step it waits for;
  // between rounds (the shoe procedure, the next seating) any event may change them.
  function boardKeyOf(s) {
    const e = s.expected;
    if (!e || !e.commands.length) return `seq ${s.seq} ${s.status} ${s.fault}`;
    return JSON.stringify([s.round_id, e.phase, e.due, s.status, s.fault, s.cycle]);
  }

  /** Show state `s` (a GET answer or a socket message); `readBoard` forces /board. */
  async function take(s, { readBoard = false, readMoney = false } = {}) {
    if (shown && s.seq < shown.seq) return; // older than what is shown (a slow answer)
    const { type: _type, ...fields } = s;
    shown = shown ? { ...shown, ...fields } : fields;
    if (shownRound !== undefined && shown.round_id !== shownRound) showStatus(""); // "Done" was the last round's
    shownRound = shown.round_id;
    const key = boardKeyOf(shown);
    const newBoard = readBoard || !board || key !== boardKey;
    showTableState(shown);
    document.dispatchEvent(new CustomEvent("table-state", { detail: shown })); // cycle.js
    if (board) render(shown, board); // the view at once; the board follows when it changed
    if (newBoard) {
      board = await api(`${path}/board`);
      boardKey = key;
      deadline = board.seconds_left === null ? null : performance.now() + board.seconds_left * 1000;
      span = spanOf(shown, board.seconds_left, key === boardKey ? span : null);
      tick();
      render(shown, board);
    }
    if (newBoard || readMoney) await readWallet();
  }

  function queue(job) {
    const run = chain.then(job).catch((err) => showError(err));
    chain = run;
    return run;
  }

  /** Read the table anew (GET /api/tables/{id}); `board`: its board too. */
  function refresh({ board: readBoard = false, wallet: readMoney = false } = {}) {
    return queue(async () => take(await api(path), { readBoard, readMoney }));
  }

  function tick() {
    const node = document.getElementById("countdown");
    if (!node) return;
    if (deadline === null) {
      node.textContent = t("play.no_countdown");
      node.dataset.seconds = "";
      for (const ring of rings) ring.set(null);
      return;
    }
    const left = Math.max(0, Math.ceil((deadline - performance.now()) / 1000));
    node.textContent = t("play.seconds", { seconds: left });
    node.dataset.seconds = String(left);
    for (const ring of rings) ring.set(left, span);
  }
  setInterval(tick, 500);

  let opened = false;
  const parts = tableParts(); // the shared, seat and own parts, laid together
  connect(`/ws/tables/${encodeURIComponent(id)}`, {
    onMessage(message) {
      const whole = parts.take(message);
      if (whole) queue(() => take(whole));
    },
    onState(state) {
      // after a reconnect the page reads the table again (what it missed, with its board)
      if (state === "open" && opened) refresh({ board: true, wallet: true });
      if (state === "open") opened = true;
    },
  });

  /** Send one command of the round contract (a double click sends it once). */
  async function command(cmd, control) {
    const run = async () => {
      const result = await send(`${path}/commands`, { command: cmd });
      showStatus(t("play.sent"));
      await refresh({ wallet: true });
      return result;
    };
    if (control) {
      const result = await once(control, run);
      if (shown) render(shown, board); // once() gave the control back its state: set it anew
      return result;
    }
    clearError();
    try {
      return await run();
    } catch (err) {
      showError(err);
      await refresh();
      return undefined;
    }
  }

  refresh({ board: true, wallet: true });
  const verify = document.getElementById("verify-cards");
  if (verify) verify.addEventListener("click", () => verifyMyCards(path, shown).catch((err) => showError(err)));
  return { command, refresh, state: () => ({ shown, board }) };
}

/**
 * "Verify my cards": the proofs of the cards this round shows the signed-in player (GET
 * /api/tables/{id}/proofs?round=…: exactly what their view shows), each checked in the
 * browser against the Merkle root published before the shoe's first card (merkle.js).
 */
async function verifyMyCards(path, shown) {
  const list = document.getElementById("card-proofs");
  const result = document.getElementById("card-proofs-result");
  list.replaceChildren();
  result.dataset.result = "";
  if (!shown || !shown.round_id) {
    result.textContent = t("pages.verify_cards_no_round");
    return;
  }
  const answer = await api(`${path}/proofs?round=${encodeURIComponent(shown.round_id)}`);
  let good = 0;
  let cards = 0;
  for (const shoe of answer.shoes) {
    for (const proof of shoe.cards) {
      const ok = await verifyProof(proof, shoe.size, shoe.commitment);
      cards += 1;
      if (ok) good += 1;
      const item = document.createElement("li");
      item.dataset.verified = ok ? "yes" : "no";
      item.dataset.card = proof.card;
      const face = cardNode(proof.card);
      item.append(face, document.createTextNode(` ${ok ? "✓" : "✗"} ${t(ok ? "pages.proof_ok" : "pages.proof_bad")}`));
      list.append(item);
    }
  }
  if (cards === 0) {
    result.textContent = t("pages.verify_cards_none");
    result.dataset.result = "none";
    return;
  }
  result.textContent = t(good === cards ? "pages.verify_cards_ok" : "pages.verify_cards_bad", { good, cards });
  result.dataset.result = good === cards ? "ok" : "mismatch";
}

function showTableState(shown) {
  const round = document.getElementById("round-id");
  if (round) round.textContent = shown.round_id || "—";
  const phase = document.getElementById("phase");
  const current = shown.view ? shown.view.phase : null;
  // a round stopped for a supervisor (a refused card, BAC-10) is not "dealing": it is held
  const held = Boolean(shown.view && shown.view.awaiting_supervisor);
  if (phase) {
    phase.textContent = held ? t("play.phase_held") : phaseText(current);
    phase.dataset.phase = held ? "held" : current || "";
  }
  const state = document.getElementById("table-state");
  if (state) {
    if (shown.fault) {
      state.textContent = t("play.table_fault", { reason: shown.fault });
      state.hidden = false;
    } else if (shown.status === "closed") {
      state.textContent = t("play.table_closed");
      state.hidden = false;
    } else {
      state.hidden = true;
    }
  }
}

/**
 * The seconds a countdown of `left` seconds counts down from, for its ring: the card holding
 * (BAC-16) or decision (CSP-6.4) time-out of the table's rules while one runs, else the round
 * cycle's betting time (its "close" step) or result pause ("open"); else the most seen of this
 * countdown (`known`).
 */
function spanOf(shown, left, known) {
  if (left === null) return null;
  const rules = page.rules || {};
  const step = shown.cycle ? shown.cycle.step : null;
  const view = shown.view || {};
  let whole = null;
  if (view.reveal_due) whole = rules.holding_timeout_seconds;
  else if (view.phase === "deciding") whole = rules.decision_timeout_seconds;
  else if (step === "close") whole = rules.betting_seconds;
  else if (step === "open") whole = rules.result_seconds;
  return Number(whole) > 0 ? Math.max(left, Number(whole)) : Math.max(left, known || 0);
}

/** Whether the round accepts command `name` now (its codec name, e.g. "baccarat.PlaceWager"). */
export function accepts(shown, name) {
  return Boolean(shown && shown.expected && shown.expected.commands.includes(name));
}

export { cardNode, money, t, has };
