// WebSockets for the pages: /ws/tables/{id} and /ws/jackpot (server/streams.py).
// Reconnects by itself with a growing pause and resumes from the last event seen (?after=SEQ:
// the server resends the view only when the table has moved on); pings to keep the connection;
// the connection's state is shown in an element with data-live (pages.live_*).

import { t } from "./i18n.js";

// Closes after which trying again cannot help (1008 policy, 1009 oversized, 4401 the session
// expired: sign in again, 4404 unknown table); the others (4409 elsewhere, 4408 too slow, 1013
// try later, a lost network) retry.
const FINAL = new Set([1008, 1009, 4401, 4404]);

function liveNode() {
  return document.querySelector("[data-live]");
}

function showState(state, reason = "") {
  const node = liveNode();
  if (!node) return;
  node.dataset.state = state;
  if (state === "open") node.textContent = t("pages.live_connected");
  else if (state === "closed") node.textContent = t("pages.live_closed", { reason });
  else node.textContent = t("pages.live_reconnecting");
}

/**
 * Open the socket at `path` ("/ws/jackpot"). `onMessage(msg)` receives every JSON message;
 * `onState(state, error)` each change ("open", "reconnecting", "closed"). Returns
 * { close(), seq() }.
 */
export function connect(path, { onMessage, onState } = {}) {
  let seq = null;
  let socket = null;
  let stopped = false;
  let pause = 500;
  let pinger = null;
  let lastError = null;

  function state(name, error) {
    showState(name, error ? error.text || error.key : "");
    if (onState) onState(name, error || null);
  }

  function open() {
    const url = new URL(path, location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    if (seq !== null) url.searchParams.set("after", String(seq));
    socket = new WebSocket(url);
    socket.addEventListener("open", () => {
      pause = 500;
      lastError = null;
      state("open");
      if (seq !== null) socket.send(JSON.stringify({ type: "resume", after: seq }));
      pinger = setInterval(() => {
        if (socket && socket.readyState === WebSocket.OPEN) socket.send('{"type":"ping"}');
      }, 25000);
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      // the newest record seen (a shared part kept since an earlier record carries its own)
      if (typeof message.seq === "number") seq = seq === null ? message.seq : Math.max(seq, message.seq);
      if (message.type === "error") lastError = message.error;
      if (message.type !== "pong" && onMessage) onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      clearInterval(pinger);
      socket = null;
      if (stopped) return;
      if (FINAL.has(event.code)) {
        stopped = true;
        state("closed", lastError || { key: String(event.code), text: event.reason || String(event.code) });
        return;
      }
      state("reconnecting", lastError);
      setTimeout(() => {
        if (!stopped) open();
      }, pause);
      pause = Math.min(pause * 2, 8000);
    });
  }

  // A page being left closes its sockets first (no error for a connection cut by navigation).
  addEventListener("pagehide", () => {
    stopped = true;
    if (socket) socket.close(1000);
  });
  open();
  return {
    close() {
      stopped = true;
      if (socket) socket.close(1000);
    },
    seq: () => seq,
  };
}

/**
 * The table socket's version 3 messages (server/streams.py, docs/server.md) laid together into
 * the state a page shows: each `table` message holds the sections that changed for this socket —
 * `shared` (the same for every socket of the table), `seat` (what every player at the table sees
 * alike: a player's socket only) and the socket's own part (`mine` for a player, `role` for the
 * staff; none for the public); a section left out reads as the last one received. `take(message)`
 * keeps the latest of each and returns the whole state — the shape of GET /api/tables/{id}: view,
 * expected, can_issue, seq, round_id, status, fault, cycle, meter_link; `null` for any other
 * message. The view is the shared view, the seat part's fields laid over it, then the own part's,
 * each less the fields its view has not (`drop`).
 */
export function tableParts() {
  let shared = null;
  let seat = null;
  let own = null;
  let seq = null;
  const lay = (view, part) => {
    if (!part || !part.view) return view;
    const out = { ...(view || {}), ...part.view };
    for (const name of part.drop || []) delete out[name];
    return out;
  };
  return {
    take(message) {
      if (message.type !== "table" || message.v !== 3) return null;
      if (message.shared) shared = message.shared;
      if (message.seat) seat = message.seat;
      if (message.mine || message.role) own = message.mine || message.role;
      seq = seq === null ? message.seq : Math.max(seq, message.seq);
      if (!shared) return null;
      const mine = own || {};
      const whole = {
        table_id: message.table_id,
        seq,
        round_id: shared.round_id,
        view: lay(lay(shared.view, seat), own),
        expected: "expected" in mine ? mine.expected : shared.expected,
        can_issue: mine.can_issue || [],
        status: shared.status,
        fault: shared.fault,
        cycle: shared.cycle,
        meter_link: shared.meter_link,
      };
      if (mine.audience) whole.audience = mine.audience;
      return whole;
    },
  };
}
