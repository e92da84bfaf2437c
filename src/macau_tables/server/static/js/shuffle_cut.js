// CSP-3(1) at a live table whose deck is shuffled by hand: the dealer records the hand shuffle
// and the cut of the round's deck before its first card (a card is refused until then). The
// control shows while the table's board says the deck waits for it (procedure_waits).

import { api, once, send, showStatus } from "./api.js";
import { t } from "./i18n.js";
import { page } from "./table.js";

const path = `/api/tables/${encodeURIComponent(page.table_id)}`;
const panel = document.getElementById("shuffle-cut");
const button = document.getElementById("shuffle-and-cut");
let waits = null;

async function look() {
  try {
    const board = await api(`${path}/board`);
    waits = board.procedure_waits || null;
  } catch {
    waits = null; // the page's own reads report the errors
  }
  panel.hidden = !waits;
  panel.dataset.waits = waits || "";
}

button.addEventListener("click", () =>
  once(button, async () => {
    if (!waits) return;
    await send(`${path}/commands`, { command: { type: waits } });
    showStatus(t("play.sent"));
    await look();
  }),
);

look();
setInterval(look, 2000);
