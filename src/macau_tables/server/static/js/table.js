// What every game page shares (player tables, dealer console): the table's live state from the
// round contract's API — the WebSocket /ws/tables/{id} says when the table moved on, then
// GET /api/tables/{id} gives the view for this user with `expected` (what the round waits for
// and the commands it accepts now) and GET /api/tables/{id}/board the time-out countdown and
// seating. The pages never read a card the server did not put in this user's view.

import { api, clearError, once, send, showError, showStatus } from "./api.js";
import { has, money, pageData, t } from "./i18n.js";
import { connect } from "./socket.js";

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

const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };

/** A card ("As", "Th") as an element; `null` is a face-down card. */
export function cardNode(card, extra = "") {
  const node = document.createElement("span");
  node.setAttribute("role", "img");
  if (!card) {
    node.className = `card card-back ${extra}`;
    node.setAttribute("aria-label", t("play.card_face_down"));
    node.dataset.card = "";
    return node;
  }
  const rank = card[0] === "T" ? "10" : card[0];
  const suit = card[1];
  node.className = `card suit-${suit} ${suit === "h" || suit === "d" ? "card-red" : "card-black"} ${extra}`;
  node.dataset.card = card;
  node.textContent = `${rank}${SUITS[suit] || suit}`;
  node.setAttribute("aria-label", `${rank}${SUITS[suit] || suit}`);
  return node;
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
 * Follow the table of the page. `render(shown, board)` gets every new state: `shown` is
 * GET /api/tables/{id} (view, expected, seq, status, fault), `board` GET .../board. Returns
 * { command(cmd, control), refresh(), state() }.
 */
export function followTable(render, { wallet = false } = {}) {
  const id = page.table_id;
  let shown = null;
  let board = null;
  let again = false;
  let deadline = null; // performance.now() at which the countdown reaches 0

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

  let current = null; // the refresh running now: a caller awaits the state it ends with

  function refresh() {
    if (current) {
      again = true;
      return current;
    }
    current = (async () => {
      try {
        do {
          again = false;
          const [s, b] = await Promise.all([
            api(`/api/tables/${encodeURIComponent(id)}`),
            api(`/api/tables/${encodeURIComponent(id)}/board`),
          ]);
          const moved = !shown || s.seq !== shown.seq;
          shown = s;
          board = b;
          deadline = b.seconds_left === null ? null : performance.now() + b.seconds_left * 1000;
          tick();
          showTableState(s);
          render(s, b);
          if (moved) await readWallet();
        } while (again);
      } catch (err) {
        showError(err);
      } finally {
        current = null;
      }
    })();
    return current;
  }

  function tick() {
    const node = document.getElementById("countdown");
    if (!node) return;
    if (deadline === null) {
      node.textContent = t("play.no_countdown");
      node.dataset.seconds = "";
      return;
    }
    const left = Math.max(0, Math.ceil((deadline - performance.now()) / 1000));
    node.textContent = t("play.seconds", { seconds: left });
    node.dataset.seconds = String(left);
  }
  setInterval(tick, 500);

  connect(`/ws/tables/${encodeURIComponent(id)}`, {
    onMessage(message) {
      if (message.type === "table") refresh();
    },
    onState(state) {
      if (state === "open") refresh(); // after a reconnect the page reads the table again
    },
  });

  /** Send one command of the round contract (a double click sends it once). */
  async function command(cmd, control) {
    const run = async () => {
      const result = await send(`/api/tables/${encodeURIComponent(id)}/commands`, { command: cmd });
      showStatus(t("play.sent"));
      await refresh();
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

  refresh();
  return { command, refresh, state: () => ({ shown, board }) };
}

function showTableState(shown) {
  const round = document.getElementById("round-id");
  if (round) round.textContent = shown.round_id || "—";
  const phase = document.getElementById("phase");
  const current = shown.view ? shown.view.phase : null;
  if (phase) {
    phase.textContent = phaseText(current);
    phase.dataset.phase = current || "";
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

/** Whether the round accepts command `name` now (its codec name, e.g. "baccarat.PlaceWager"). */
export function accepts(shown, name) {
  return Boolean(shown && shown.expected && shown.expected.commands.includes(name));
}

export { money, t, has };
