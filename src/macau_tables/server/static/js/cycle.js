// The round cycle on a player's table (tables/cycle.py): the countdown's label (betting closes /
// next round) and the idle or paused notice, from the `cycle` of each table state
// ({step, at, idle, paused}: the same for every audience). table.js sends each state it shows as
// a "table-state" event; the countdown's seconds come from the table's board (its deadline).

import { t } from "./i18n.js";

function showCycle(cycle) {
  const node = document.getElementById("cycle-state");
  const label = document.getElementById("countdown-label");
  if (label) {
    const step = cycle ? cycle.step : null;
    label.textContent = t(step === "close" ? "play.cycle_betting" : step === "open" ? "play.cycle_next_round" : "play.countdown");
    label.dataset.step = step || "";
  }
  if (!node) return;
  const state = !cycle ? "" : cycle.paused ? "paused" : cycle.idle ? "idle" : "";
  node.dataset.cycle = state;
  node.hidden = !state;
  node.textContent = state ? t(state === "paused" ? "play.cycle_paused" : "play.cycle_idle") : "";
}

document.addEventListener("table-state", (event) => showCycle(event.detail.cycle));
