// The shoe check (public): a finished virtual shoe checked in the browser, with crypto.subtle.
// A shoe committed card by card (scheme merkle-v2): each card the public was shown is proved
// against the Merkle root published before the first card (merkle.js: RFC 6962, leaf hash over
// the card's own salt, position and index); no other card of the shoe is ever published. A shoe
// committed whole (scheme sha256-v1, before): its order and salt (from the audit archive) are
// hashed as macau_tables.rng.commitment_digest does: SHA-256 over the domain
// "macau-tables/shoe/v1\0", the 32-byte salt, then one byte per card of the order.

import { api, showError } from "./api.js";
import { dateTime, t } from "./i18n.js";
import { cardIndex, hexBytes, verifyProof } from "./merkle.js";
import { el, shoeName } from "./tables_info.js";

const DOMAIN = new TextEncoder().encode("macau-tables/shoe/v1\u0000");

export { cardIndex };

/** The cards of `text`: a JSON array or cards separated by spaces, commas or new lines. */
export function parseOrder(text) {
  let tokens;
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    try {
      tokens = JSON.parse(trimmed).map(String);
    } catch {
      return { error: t("pages.shoe_check_bad_json") };
    }
  } else {
    tokens = trimmed.split(/[\s,;]+/).filter(Boolean);
  }
  const indexes = [];
  for (const [i, token] of tokens.entries()) {
    const index = cardIndex(token);
    if (index === null) return { error: t("pages.shoe_check_bad_card", { position: i + 1, card: token }) };
    indexes.push(index);
  }
  return { indexes };
}

/** SHA-256 hex of the domain, the salt and the card indexes (rng.commitment_digest). */
export async function commitmentDigest(indexes, salt) {
  const data = new Uint8Array(DOMAIN.length + salt.length + indexes.length);
  data.set(DOMAIN, 0);
  data.set(salt, DOMAIN.length);
  data.set(Uint8Array.from(indexes), DOMAIN.length + salt.length);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

const form = document.getElementById("shoe-form");
const result = document.getElementById("shoe-result");

function say(kind, text) {
  result.className = `notice ${kind === "ok" ? "notice-status" : "notice-error"}`;
  result.textContent = text;
  result.hidden = false;
  result.dataset.result = kind;
}

async function check() {
  const commitment = form.elements.commitment.value.trim().toLowerCase();
  const salt = hexBytes(form.elements.salt.value);
  if (!/^[0-9a-f]{64}$/.test(commitment)) return say("bad", t("pages.shoe_check_bad_commitment"));
  if (!salt || salt.length !== 32) return say("bad", t("pages.shoe_check_bad_salt"));
  const order = parseOrder(form.elements.order.value);
  if (order.error) return say("bad", order.error);
  if (!crypto.subtle) return say("bad", t("pages.shoe_check_no_crypto"));
  const digest = await commitmentDigest(order.indexes, salt);
  document.getElementById("shoe-digest").textContent = digest;
  if (digest === commitment) return say("ok", t("pages.shoe_check_ok", { cards: order.indexes.length }));
  return say("mismatch", t("pages.shoe_check_mismatch"));
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  check().catch((err) => showError(err));
});

const picker = document.getElementById("shoe-pick");
const older = document.getElementById("shoe-older");
let shoes = [];
let games = null; // table id → its game (GET /api/tables), to name a shoe or a deck
async function gameOf(tableId) {
  if (!games) games = new Map((await api("/api/tables").catch(() => [])).map((x) => [x.table_id, x.game]));
  return games.get(tableId) ?? null; // not known: shoeName says "shoe or deck"
}
let next = null; // the `before` of the next (older) page of GET /api/shoes, null at the end
async function loadShoes(before = null) {
  let page;
  try {
    page = await api(before ? `/api/shoes?before=${encodeURIComponent(before)}` : "/api/shoes");
  } catch (err) {
    showError(err);
    return;
  }
  if (!before) {
    shoes = [];
    picker.replaceChildren(el("option", { value: "", text: page.shoes.length ? t("pages.shoe_check_pick_one") : t("pages.shoe_check_none") }));
  }
  for (const shoe of page.shoes) {
    picker.append(el("option", { value: String(shoes.length), text: t("pages.shoe_check_option", { table: shoe.table_id, shoe: shoeName(await gameOf(shoe.table_id), shoe.shoe_no), when: dateTime(shoe.revealed_at) }) }));
    shoes.push(shoe);
  }
  next = page.next;
  older.hidden = !next;
}

const proofsPanel = document.getElementById("shoe-proofs");
const proofsBody = document.querySelector("#shoe-proof-table tbody");
const proofsResult = document.getElementById("shoe-proofs-result");

/** Verify every proof of `shoe` (merkle-v2) and show a row per card with ✓ or ✗. */
export async function checkProofs(shoe) {
  proofsPanel.hidden = false;
  document.getElementById("shoe-root").textContent = shoe.commitment;
  proofsBody.replaceChildren();
  if (!crypto.subtle) {
    proofsResult.textContent = t("pages.shoe_check_no_crypto");
    proofsResult.dataset.result = "bad";
    return;
  }
  let good = 0;
  for (const proof of shoe.proofs) {
    const ok = await verifyProof(proof, shoe.size, shoe.commitment);
    if (ok) good += 1;
    const row = el("tr", { "data-verified": ok ? "yes" : "no" });
    row.append(
      el("td", { class: "num", text: String(proof.position) }),
      el("td", { class: "mono", text: proof.card }),
      el("td", { text: ok ? `✓ ${t("pages.proof_ok")}` : `✗ ${t("pages.proof_bad")}` }),
    );
    proofsBody.append(row);
  }
  const all = good === shoe.proofs.length;
  proofsResult.className = `notice ${all ? "notice-status" : "notice-error"}`;
  proofsResult.dataset.result = all ? "ok" : "mismatch";
  proofsResult.textContent = shoe.proofs.length === 0
    ? t("pages.shoe_check_no_public_cards", { cards: shoe.size })
    : t(all ? "pages.shoe_check_proofs_ok" : "pages.shoe_check_proofs_bad", { good, cards: shoe.proofs.length, size: shoe.size });
}

older.addEventListener("click", () => {
  if (next) loadShoes(next);
});
picker.addEventListener("change", () => {
  const shoe = shoes[Number(picker.value)];
  if (!picker.value || !shoe) return;
  form.elements.commitment.value = shoe.commitment;
  if (shoe.scheme === "merkle-v2") {
    form.hidden = true;
    checkProofs(shoe).catch((err) => showError(err));
  } else {
    form.hidden = false;
    proofsPanel.hidden = true;
  }
});
loadShoes();
