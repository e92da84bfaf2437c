// The shoe check (public): a finished virtual shoe's commitment verified in the browser. The
// digest is computed exactly as macau_tables.rng.commitment_digest does: SHA-256 over the
// domain "macau-tables/shoe/v1\0", the 32-byte salt, then one byte per card of the order
// (index = 4 * (rank - 2) + suit, suits d c h s = 0 1 2 3), with crypto.subtle.

import { api, showError } from "./api.js";
import { dateTime, t } from "./i18n.js";
import { el } from "./tables_info.js";

const DOMAIN = new TextEncoder().encode("macau-tables/shoe/v1\u0000");
const RANKS = { 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9, T: 10, 10: 10, J: 11, Q: 12, K: 13, A: 14 };
const SUITS = { d: 0, c: 1, h: 2, s: 3, "♦": 0, "♣": 1, "♥": 2, "♠": 3, "♢": 0, "♧": 1, "♡": 2, "♤": 3 };

/** A card's index (0..51) as cards.Card.parse reads it, or null. */
export function cardIndex(text) {
  const token = String(text).trim().replaceAll("\ufe0f", "");
  const chars = Array.from(token);
  if (chars.length < 2) return null;
  const rank = RANKS[chars.slice(0, -1).join("").toUpperCase()];
  const suit = SUITS[chars[chars.length - 1].toLowerCase()];
  if (rank === undefined || suit === undefined) return null;
  return (rank - 2) * 4 + suit;
}

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

function hexBytes(text) {
  const clean = text.trim().toLowerCase();
  if (!/^([0-9a-f]{2})*$/.test(clean)) return null;
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(clean.slice(2 * i, 2 * i + 2), 16);
  return out;
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
    picker.append(el("option", { value: String(shoes.length), text: t("pages.shoe_check_option", { table: shoe.table_id, number: shoe.shoe_no, when: dateTime(shoe.revealed_at) }) }));
    shoes.push(shoe);
  }
  next = page.next;
  older.hidden = !next;
}
older.addEventListener("click", () => {
  if (next) loadShoes(next);
});
picker.addEventListener("change", () => {
  const shoe = shoes[Number(picker.value)];
  if (!picker.value || !shoe) return;
  form.elements.commitment.value = shoe.commitment;
  form.elements.order.value = shoe.order.join(" ");
  form.elements.salt.value = shoe.salt;
});
loadShoes();
