// The Caribbean Stud Poker player table, drawn as the felt: the seven boxes of CSP-2, each with
// its jackpot, ante and raise spots (chips stacked on them with the amount, felt.js), the
// dealer's cards (one face up, CSP-7) and the player's own five, dealt and turned with motion,
// the decision (raise / fold) at the box with its timer (CSP-6.4), and at the showdown each hand
// named in the page's language with whether the dealer qualifies (CSP-9.1). The chip rack, the
// box and ante fields and the buttons beside the felt do the same by keyboard.
// CSP-12: no hint, odds or strategy aid — the page shows the view and the commands the round
// accepts, nothing computed from the cards; the hands are named by the server, at the showdown.

import { ApiError, showError } from "./api.js";
import { chipFace, setStack, showCards } from "./felt.js";
import { accepts, fillRows, followTable, kindText, money, outcomeText, page, placeText, t } from "./table.js";

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

// A named hand (caribbean/view.py NamedHand: its category, CSP-8, as HandCategory's number, and
// the ranks that name it): the catalog text of each category and, per placeholder in the order
// of the ranks, whether it reads one rank ("ace-king high") or many ("pair of queens").
const CATEGORIES = [
  "high_card",
  "one_pair",
  "two_pair",
  "three_of_a_kind",
  "straight",
  "flush",
  "full_house",
  "four_of_a_kind",
  "straight_flush",
  "royal_flush",
];
const HAND_TEXTS = {
  high_card: ["play.hand_high_card", [["high", "one"], ["next", "one"]]],
  one_pair: ["play.hand_one_pair", [["rank", "many"]]],
  two_pair: ["play.hand_two_pair", [["high", "many"], ["low", "many"]]],
  three_of_a_kind: ["play.hand_three_of_a_kind", [["rank", "many"]]],
  straight: ["play.hand_straight", [["rank", "one"]]],
  flush: ["play.hand_flush", [["rank", "one"]]],
  full_house: ["play.hand_full_house", [["high", "many"], ["low", "many"]]],
  four_of_a_kind: ["play.hand_four_of_a_kind", [["rank", "many"]]],
  straight_flush: ["play.hand_straight_flush", [["rank", "one"]]],
  royal_flush: ["play.hand_royal_flush", []],
};
// The ranks' words (written out: the catalog test reads them).
const RANK_WORDS = {
  one: {
    2: "play.hand_rank_2", 3: "play.hand_rank_3", 4: "play.hand_rank_4", 5: "play.hand_rank_5",
    6: "play.hand_rank_6", 7: "play.hand_rank_7", 8: "play.hand_rank_8", 9: "play.hand_rank_9",
    T: "play.hand_rank_t", J: "play.hand_rank_j", Q: "play.hand_rank_q", K: "play.hand_rank_k", A: "play.hand_rank_a",
  },
  many: {
    2: "play.hand_ranks_2", 3: "play.hand_ranks_3", 4: "play.hand_ranks_4", 5: "play.hand_ranks_5",
    6: "play.hand_ranks_6", 7: "play.hand_ranks_7", 8: "play.hand_ranks_8", 9: "play.hand_ranks_9",
    T: "play.hand_ranks_t", J: "play.hand_ranks_j", Q: "play.hand_ranks_q", K: "play.hand_ranks_k", A: "play.hand_ranks_a",
  },
};

/** A named hand ({category, ranks}) in the page's language: "pair of queens", 「一對 Q」. */
export function handText(hand) {
  const category = typeof hand.category === "number" ? CATEGORIES[hand.category] : String(hand.category).toLowerCase();
  const [key, places] = HAND_TEXTS[category] || [null, []];
  if (!key) return category;
  const params = {};
  places.forEach(([name, form], i) => {
    const rank = (hand.ranks || [])[i];
    const word = RANK_WORDS[form][rank];
    params[name] = word ? t(word) : rank;
  });
  return t(key, params);
}

// The words of a box's three spots (CSP-2).
const SPOT_WORDS = { jackpot: "play.spot_jackpot", ante: "play.spot_ante", raise: "play.spot_raise" };

const me = page.me;
const rules = page.rules;
const chips = page.chips || [];

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
const anteReady = document.getElementById("ante-ready");
const spots = [...document.querySelectorAll("#boxes .csp-spot")];
let view = null;
let pending = null; // the ante the chips make (minor units), null: the field's own amount

const table = followTable(render, { wallet: true });

function anteAmount() {
  return toMinor(anteInput.value);
}

function placeAnte(box, control) {
  const amount = anteAmount();
  if (amount === null) {
    const params = { minimum: rules.ante_minimum, maximum: rules.ante_maximum };
    showError(new ApiError(422, { key: "play.ante_limits", params, text: t("play.ante_limits", params) }));
    return;
  }
  boxSelect.value = String(box);
  table.command({ type: "caribbean.PlaceAnte", box, player: me, amount }, control);
}

function placeJackpot(box, control) {
  table.command({ type: "caribbean.PlaceJackpotWager", box, player: me }, control);
}

function raise(control) {
  if (!view || !view.box) return;
  table.command({ type: "caribbean.Raise", box: view.box, player: me, amount: 2 * view.ante }, control);
}

anteButton.addEventListener("click", () => placeAnte(Number(boxSelect.value), anteButton));
jackpotButton.addEventListener("click", () => placeJackpot(view && view.box ? view.box : Number(boxSelect.value), jackpotButton));
raiseButton.addEventListener("click", () => raise(raiseButton));
foldButton.addEventListener("click", () => {
  if (!view || !view.box) return;
  table.command({ type: "caribbean.Fold", box: view.box, player: me }, foldButton);
});

for (const spot of spots) {
  spot.addEventListener("click", () => {
    const box = Number(spot.dataset.box);
    if (spot.dataset.spot === "ante") placeAnte(box, spot);
    else if (spot.dataset.spot === "jackpot") placeJackpot(box, spot);
    else raise(spot);
  });
}

// The chip rack: each chip adds its value to the ante to place; "Clear" starts again.
const rack = document.getElementById("chip-rack");
chips.forEach((value, index) => {
  const chip = document.createElement("button");
  chip.type = "button";
  chip.className = "csp-chip";
  chip.dataset.value = String(value);
  chip.setAttribute("aria-label", t("play.chip_add", { amount: value }));
  chip.appendChild(chipFace(value, index));
  chip.addEventListener("click", () => {
    pending = (pending || 0) + value;
    anteInput.value = money(pending);
    showPending();
  });
  rack.appendChild(chip);
});
document.getElementById("chip-clear").addEventListener("click", () => {
  pending = null;
  anteInput.value = money(rules.ante_minimum);
  showPending();
});
anteInput.addEventListener("input", () => {
  pending = null;
  showPending();
});

function showPending() {
  anteReady.textContent = pending === null ? "" : t("play.ante_ready", { amount: pending });
  if (view) render(table.state().shown);
}

function render(shown) {
  if (!shown) return;
  view = shown.view && shown.view.player === me ? shown.view : null;
  const mine = Boolean(view && view.box);
  const due = shown.expected ? shown.expected.due : [];
  const myDecision = mine && due.some((d) => d.kind === "decision" && d.position === view.box && d.player === me);
  const canAnte = accepts(shown, "caribbean.PlaceAnte") && !mine;
  const canJackpot = accepts(shown, "caribbean.PlaceJackpotWager") && !(view && view.jackpot);
  const canRaise = myDecision && accepts(shown, "caribbean.Raise");
  setEnabled(anteButton, canAnte);
  setEnabled(jackpotButton, canJackpot);
  setEnabled(raiseButton, canRaise);
  setEnabled(foldButton, myDecision && accepts(shown, "caribbean.Fold"));
  boxSelect.disabled = mine;
  raiseButton.textContent = mine ? t("play.raise_button", { amount: 2 * view.ante }) : t("play.decide");

  const timedOut = Boolean(view && view.timed_out);
  document.getElementById("decided").hidden = !(view && view.decided) || timedOut || Boolean(view.outcome);
  const timedNote = document.getElementById("timed-out");
  timedNote.hidden = !timedOut;
  timedNote.textContent = timedOut ? t("play.timed_out_notice", { number: view.box }) : "";

  showSpots(shown, { canAnte, canJackpot, canRaise });
  showCards(
    document.getElementById("my-cards"),
    (view ? view.cards : []).map((card, i) => ({ key: `${shown.round_id}:${i}`, card })),
    t("play.no_card"),
  );
  showCards(
    document.getElementById("dealer-cards"),
    (view ? view.dealer_cards : []).map((card, i) => ({ key: `${shown.round_id}:${i}`, card })),
    t("play.no_card"),
  );
  showHands();

  document.getElementById("my-box").textContent = mine
    ? t("play.your_box", { number: view.box, ante: view.ante, jackpot: view.jackpot })
    : "";
  const outcome = document.getElementById("box-outcome");
  const key = view && view.outcome ? BOX_OUTCOMES[view.outcome] : null;
  outcome.textContent = key ? t(key) : view && view.outcome ? view.outcome : "";
  outcome.dataset.outcome = view && view.outcome ? view.outcome : "";
  const results = view ? view.results : [];
  fillRows(
    document.querySelector("#results tbody"),
    results.map((r) => [kindText(r.kind), placeText(r.spot), money(r.stake), outcomeText(r.outcome), money(r.paid)]),
    [2, 4],
  );
  const net = document.getElementById("net");
  net.textContent = results.length ? t("play.net", { amount: results.reduce((n, r) => n + r.paid - r.stake, 0) }) : "";
}

/** The chips on each box's spots (the player's own box only: CSP-12) and what each spot offers. */
function showSpots(shown, { canAnte, canJackpot, canRaise }) {
  const amount = anteAmount();
  const results = view ? view.results : [];
  for (const spot of spots) {
    const box = Number(spot.dataset.box);
    const which = spot.dataset.spot;
    const mine = Boolean(view && view.box === box);
    const staked = !mine ? 0 : which === "ante" ? view.ante : which === "jackpot" ? view.jackpot : view.raise_amount;
    setStack(spot, staked, chips);
    let enabled = false;
    let label = t("play.box_spot_label", { spot: t(SPOT_WORDS[which]), number: box });
    if (which === "ante" && canAnte && amount !== null) {
      enabled = true;
      label = t("play.spot_ante_place", { amount, number: box });
    } else if (which === "jackpot" && canJackpot && mine) {
      enabled = true;
      label = t("play.spot_jackpot_place", { amount: rules.jackpot_wager, number: box });
    } else if (which === "raise" && canRaise && mine) {
      enabled = true;
      label = t("play.raise_button", { amount: 2 * view.ante });
    }
    const result = mine ? results.find((r) => r.kind === which) : null;
    spot.dataset.outcome = result ? result.outcome : "";
    if (result) label += ` — ${t("play.spot_outcome", { outcome: outcomeText(result.outcome), amount: result.paid })}`;
    else if (staked > 0) label += ` — ${money(staked)}`;
    spot.setAttribute("aria-label", label);
    spot.title = label;
    setEnabled(spot, enabled);
    spot.closest(".csp-box").dataset.mine = mine ? "1" : "";
    spot.closest(".csp-box").querySelector(".csp-box-mine").hidden = !mine;
  }
}

/** The hands named at the showdown: the dealer's with whether it qualifies, the player's own. */
function showHands() {
  const dealer = document.getElementById("dealer-hand");
  const hand = view ? view.dealer_hand : null;
  dealer.dataset.qualifies = hand ? String(Boolean(view.dealer_qualifies)) : "";
  dealer.dataset.category = hand ? CATEGORIES[hand.category] || String(hand.category) : "";
  // CSP-9.2: what a dealer who does not qualify pays is said to a box still in play only
  const inPlay = Boolean(view && view.raise_amount);
  const key = view && view.dealer_qualifies ? "play.dealer_hand_qualifies" : inPlay ? "play.dealer_hand_not_qualified" : "play.dealer_hand_not_qualified_folded";
  dealer.textContent = hand ? t(key, { hand: handText(hand) }) : "";
  const mineNode = document.getElementById("my-hand");
  const mine = view ? view.hand : null;
  mineNode.dataset.category = mine ? CATEGORIES[mine.category] || String(mine.category) : "";
  mineNode.textContent = mine ? t("play.your_hand", { hand: handText(mine) }) : "";
}

function setEnabled(button, on) {
  if (button.dataset.busy !== "1") button.disabled = !on;
}
