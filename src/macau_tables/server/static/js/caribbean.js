// The Caribbean Stud Poker player table: ante and jackpot wager, the player's own
// five cards and the dealer's up card, raise / fold with the decision timer (CSP-6.4), the
// showdown and the payouts. CSP-12: no hint, odds or strategy aid — the page shows the view
// and the buttons the round accepts, nothing computed from the cards.

import { ApiError, showError } from "./api.js";
import { accepts, cardNode, fillRows, followTable, kindText, money, outcomeText, page, placeText, t } from "./table.js";

// CSP-9: how a box's hand ended (BoxOutcome), in the page's language.
const BOX_OUTCOMES = {
  folded: "play.box_outcome_folded",
  timed_out: "play.box_outcome_timed_out",
  dealer_not_qualified: "play.box_outcome_dealer_not_qualified",
  won: "play.box_outcome_won",
  lost: "play.box_outcome_lost",
  tied: "play.box_outcome_tied",
  void: "play.box_outcome_void",
};
const me = page.me;
const rules = page.rules;

/** "10.00" (major units, optional grouping commas) as minor units; null when unreadable. */
function toMinor(text) {
  const m = /^\s*(\d{1,12})(?:\.(\d{1,2}))?\s*$/.exec(String(text).replaceAll(",", ""));
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] || "0").padEnd(2, "0"));
}

const boxSelect = document.getElementById("box");
const anteInput = document.getElementById("ante");
const anteButton = document.getElementById("place-ante");
const jackpotButton = document.getElementById("place-jackpot");
const raiseButton = document.getElementById("raise");
const foldButton = document.getElementById("fold");
let view = null;

const table = followTable(render, { wallet: true });

anteButton.addEventListener("click", () => {
  const amount = toMinor(anteInput.value);
  if (amount === null) {
    const params = { minimum: money(rules.ante_minimum), maximum: money(rules.ante_maximum) };
    showError(new ApiError(422, { key: "play.ante_limits", params, text: t("play.ante_limits", params) }));
    return;
  }
  table.command({ type: "caribbean.PlaceAnte", box: Number(boxSelect.value), player: me, amount }, anteButton);
});

jackpotButton.addEventListener("click", () => {
  const box = view && view.box ? view.box : Number(boxSelect.value);
  table.command({ type: "caribbean.PlaceJackpotWager", box, player: me }, jackpotButton);
});

raiseButton.addEventListener("click", () => {
  if (!view || !view.box) return;
  table.command({ type: "caribbean.Raise", box: view.box, player: me, amount: 2 * view.ante }, raiseButton);
});

foldButton.addEventListener("click", () => {
  if (!view || !view.box) return;
  table.command({ type: "caribbean.Fold", box: view.box, player: me }, foldButton);
});

function render(shown) {
  view = shown.view && shown.view.player === me ? shown.view : null;
  const mine = Boolean(view && view.box);
  const due = shown.expected ? shown.expected.due : [];
  const myDecision = mine && due.some((d) => d.kind === "decision" && d.position === view.box && d.player === me);
  setEnabled(anteButton, accepts(shown, "caribbean.PlaceAnte") && !mine);
  setEnabled(jackpotButton, accepts(shown, "caribbean.PlaceJackpotWager") && !(view && view.jackpot));
  setEnabled(raiseButton, myDecision && accepts(shown, "caribbean.Raise"));
  setEnabled(foldButton, myDecision && accepts(shown, "caribbean.Fold"));
  boxSelect.disabled = mine;
  raiseButton.textContent = mine ? t("play.raise_button", { amount: money(2 * view.ante) }) : t("play.decide");
  document.getElementById("decided").hidden = !(view && view.decided);

  const myCards = document.getElementById("my-cards");
  myCards.replaceChildren(...(view ? view.cards : []).map((c) => cardNode(c)));
  const dealer = document.getElementById("dealer-cards");
  dealer.replaceChildren(...(view ? view.dealer_cards : []).map((c) => cardNode(c)));
  for (const node of [myCards, dealer]) {
    if (!node.children.length) {
      const empty = document.createElement("span");
      empty.className = "muted";
      empty.textContent = t("play.no_card");
      node.appendChild(empty);
    }
  }
  document.getElementById("my-box").textContent = mine
    ? t("play.your_box", { number: view.box, ante: money(view.ante), jackpot: money(view.jackpot) })
    : "";
  const outcome = document.getElementById("box-outcome");
  const key = view && view.outcome ? BOX_OUTCOMES[view.outcome] : null;
  outcome.textContent = key ? t(key) : view && view.outcome ? view.outcome : "";
  const results = view ? view.results : [];
  fillRows(
    document.querySelector("#results tbody"),
    results.map((r) => [kindText(r.kind), placeText(r.spot), money(r.stake), outcomeText(r.outcome), money(r.paid)]),
    [2, 4],
  );
  const net = document.getElementById("net");
  net.textContent = results.length
    ? t("play.net", { amount: money(results.reduce((n, r) => n + r.paid - r.stake, 0)) })
    : "";
}

function setEnabled(button, on) {
  if (button.dataset.busy !== "1") button.disabled = !on;
}
