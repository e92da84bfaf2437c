// A card proved against its shoe's Merkle root, in the browser (Common rules "Randomness"), as
// macau_tables.merkle does it: RFC 6962's Merkle Tree Hash with
//   leaf hash = SHA-256(0x00 ‖ salt (32 bytes) ‖ position (2 bytes, big-endian) ‖ card index (1 byte))
//   node hash = SHA-256(0x01 ‖ left ‖ right)
// and the card index of macau_tables.cards: 4 * (rank - 2) + suit, suits d c h s = 0 1 2 3.
// An audit path is checked by RFC 9162's algorithm (section 2.1.3.2). crypto.subtle only.

const RANKS = { 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9, T: 10, 10: 10, J: 11, Q: 12, K: 13, A: 14 };
const SUITS = { d: 0, c: 1, h: 2, s: 3, "♦": 0, "♣": 1, "♥": 2, "♠": 3, "♢": 0, "♧": 1, "♡": 2, "♤": 3 };

/** A card's index (0..51) as cards.Card.parse reads it ("As", "10h", "T♦"), or null. */
export function cardIndex(text) {
  const token = String(text).trim().replaceAll("\ufe0f", "");
  const chars = Array.from(token);
  if (chars.length < 2) return null;
  const rank = RANKS[chars.slice(0, -1).join("").toUpperCase()];
  const suit = SUITS[chars[chars.length - 1].toLowerCase()];
  if (rank === undefined || suit === undefined) return null;
  return (rank - 2) * 4 + suit;
}

/** The bytes of hex `text`, or null. */
export function hexBytes(text) {
  const clean = String(text).trim().toLowerCase();
  if (!/^([0-9a-f]{2})*$/.test(clean)) return null;
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(clean.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(parts) {
  const size = parts.reduce((n, p) => n + p.length, 0);
  const data = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    data.set(p, at);
    at += p.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data));
}

/** The leaf hash of card `index` at `position` with `salt` (32 bytes). */
export function leafHash(salt, position, index) {
  return sha256([Uint8Array.of(0), salt, Uint8Array.of(position >> 8, position & 0xff, index)]);
}

/** An inner node's hash. */
export function nodeHash(left, right) {
  return sha256([Uint8Array.of(1), left, right]);
}

/** The Merkle root (hex) a "merkle-v2:<root>" commitment publishes, or null. */
export function rootOf(commitment) {
  const m = /^merkle-v2:([0-9a-f]{64})$/.exec(String(commitment || ""));
  return m ? m[1] : null;
}

/**
 * Whether `proof` ({position, card, salt, path}) proves its card in the tree of `size` leaves
 * whose root is `commitment`'s. Malformed input does not verify (false).
 */
export async function verifyProof(proof, size, commitment) {
  const root = rootOf(commitment);
  const salt = hexBytes(proof.salt);
  const index = cardIndex(proof.card);
  const position = proof.position;
  if (!root || !salt || salt.length !== 32 || index === null) return false;
  if (!Number.isInteger(position) || position < 0 || position >= size || position > 0xffff) return false;
  const path = (proof.path || []).map(hexBytes);
  if (path.some((p) => !p || p.length !== 32)) return false;
  let fn = position;
  let sn = size - 1;
  let r = await leafHash(salt, position, index);
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn !== 0 && fn % 2 === 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && hex(r) === root;
}
