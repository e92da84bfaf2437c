"""Randomness: production shuffles, the seeded generator for analysis, and shoe commitments.

* :class:`SystemRandom` draws from the operating system's CSPRNG (:mod:`secrets`). It is the
  only source a live table accepts (:func:`require_production`).
* :class:`SeededRandom` is reproducible, for tests, simulation and analysis. It reports
  ``production = False`` and a live table refuses it.
* :func:`shuffle` is an unbiased Fisher-Yates over any :class:`RandomSource`.
* A shoe is committed before its first card, card by card (:func:`commit_leaves`, scheme
  ``merkle-v2``): every position gets its own random 32-byte salt and a leaf hash, and the
  commitment is the Merkle root of the leaves (:mod:`macau_tables.merkle`, RFC 6962), published
  as ``"merkle-v2:<root hex>"``. A card shown to someone is proved to them alone (its position,
  salt and audit path); the cards never shown stay hidden.
* Scheme ``sha256-v1`` (shoes committed before the Merkle scheme; a bare 64-hex digest): the
  SHA-256 of a domain tag, one 32-byte salt and the whole order, revealed whole when the shoe
  ended. Such commitments keep verifying exactly as before (:func:`verify_commitment`)::

    sha256( b"macau-tables/shoe/v1\\x00" + salt (32 bytes) + bytes(card.index for card in order) )

:func:`commitment_scheme` tells the two apart; :func:`verify_order` checks a whole revealed
order (the audit archive's) against a commitment of either scheme.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from . import merkle
from .cards import Card
from .errors import ConfigError, MacauTablesError, RuleViolation

T = TypeVar("T")

SALT_BYTES = 32
_DOMAIN = b"macau-tables/shoe/v1\x00"
SCHEME_WHOLE = "sha256-v1"
"""The whole-shoe scheme: a bare SHA-256 digest (hex) over one salt and the whole order."""
SCHEME_MERKLE = "merkle-v2"
"""The card-by-card scheme: ``"merkle-v2:" + root hex`` (:mod:`macau_tables.merkle`)."""


class RandomSource(Protocol):
    """Anything that can draw a uniform integer in ``0 .. n-1``."""

    @property
    def production(self) -> bool:
        """True only for a source a live table may use."""
        ...

    def randbelow(self, n: int) -> int:
        """A uniform integer ``0 <= k < n`` (``n >= 1``)."""
        ...

    def token_bytes(self, n: int) -> bytes:
        """``n`` random bytes (used for commitment salts)."""
        ...


class SystemRandom:
    """The operating system's CSPRNG, via :mod:`secrets`. The production source."""

    @property
    def production(self) -> bool:
        return True

    def randbelow(self, n: int) -> int:
        return secrets.randbelow(n)

    def token_bytes(self, n: int) -> bytes:
        return secrets.token_bytes(n)

    def __repr__(self) -> str:
        return "SystemRandom()"


class SeededRandom:
    """A reproducible generator for tests, simulation and analysis only.

    ``production`` is False: :func:`require_production` refuses it, so a live table can never
    select it.
    """

    def __init__(self, seed: int | str | bytes) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    @property
    def production(self) -> bool:
        return False

    def randbelow(self, n: int) -> int:
        if n < 1:
            raise ValueError(f"randbelow needs n >= 1, got {n}")
        return self._rng.randrange(n)

    def token_bytes(self, n: int) -> bytes:
        return self._rng.randbytes(n)

    def __repr__(self) -> str:
        return f"SeededRandom({self.seed!r})"


class _HasProduction(Protocol):
    @property
    def production(self) -> bool: ...


P = TypeVar("P", bound=_HasProduction)


def require_production(source: P) -> P:
    """Return ``source`` (a random source or a :class:`VirtualShoe`) if a live table may use it;
    raise :class:`ConfigError` otherwise."""
    if not getattr(source, "production", False):
        raise ConfigError("core.rng_not_production", source=repr(source))
    return source


def shuffle(items: Sequence[T], source: RandomSource) -> list[T]:
    """A uniformly random permutation of ``items`` (a new list), by unbiased Fisher-Yates."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = source.randbelow(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


@dataclass(frozen=True, slots=True)
class ShoeCommitment:
    """What is published before the first card: the digest (hex)."""

    digest: str


@dataclass(frozen=True, slots=True)
class ShoeReveal:
    """What is revealed after the last card: the full order and the salt (hex)."""

    order: tuple[Card, ...]
    salt: str

    @property
    def commitment(self) -> ShoeCommitment:
        return ShoeCommitment(commitment_digest(self.order, bytes.fromhex(self.salt)))


def commitment_digest(order: Sequence[Card], salt: bytes) -> str:
    """SHA-256 (hex) of the canonical encoding of ``order`` with ``salt`` (32 bytes).

    Refuses (:class:`ConfigError`, a ``ValueError``) a salt of another length.
    """
    if len(salt) != SALT_BYTES:
        raise ConfigError("core.rng_salt_length", expected=SALT_BYTES, got=len(salt))
    h = hashlib.sha256(_DOMAIN)
    h.update(salt)
    h.update(bytes(c.index for c in order))
    return h.hexdigest()


def commit_shoe(order: Sequence[Card], source: RandomSource) -> tuple[ShoeCommitment, ShoeReveal]:
    """Commit to ``order``: returns the commitment to publish now and the reveal to keep."""
    salt = source.token_bytes(SALT_BYTES)
    reveal = ShoeReveal(tuple(order), salt.hex())
    return ShoeCommitment(commitment_digest(order, salt)), reveal


def verify_commitment(
    commitment: ShoeCommitment | str, order: Sequence[Card], salt: str | bytes
) -> bool:
    """True when ``order`` and ``salt`` are exactly what ``commitment`` committed to.

    A malformed commitment or salt (not hex, wrong length) does not verify: ``False``, never an
    exception, so a checker can feed it whatever was published.
    """
    digest = commitment.digest if isinstance(commitment, ShoeCommitment) else commitment
    if not isinstance(digest, str) or not digest.isascii():
        return False
    if isinstance(salt, str):
        try:
            salt_bytes = bytes.fromhex(salt)
        except ValueError:
            return False
    elif isinstance(salt, bytes | bytearray):
        salt_bytes = bytes(salt)
    else:
        return False
    if len(salt_bytes) != SALT_BYTES:
        return False
    return hmac.compare_digest(digest.lower(), commitment_digest(order, salt_bytes))


class ShoeExhausted(MacauTablesError):
    """A card was asked of a shoe that has none left."""

    code = "shoe_exhausted"


class ShoeNotFinished(MacauTablesError):
    """The order and salt of a shoe were asked for while cards could still be dealt from it."""

    code = "shoe_not_finished"


class VirtualShoe:
    """A shuffled, committed sequence of cards dealt one at a time (the electronic table's shoe).

    The order is fixed and committed at construction; :meth:`draw` deals the next card.
    :attr:`commitment` may be published at once; :meth:`reveal` only once the shoe is finished
    (its last card drawn, or :meth:`close` called): before that the order is hidden information.
    :attr:`production` tells whether the shuffle came from a source a live table may use
    (``require_production(shoe)`` refuses a seeded shoe).
    """

    def __init__(self, cards: Sequence[Card], source: RandomSource) -> None:
        self._order = tuple(shuffle(cards, source))
        self.commitment, self._reveal = commit_shoe(self._order, source)
        self._next = 0
        self._closed = False
        self._production = bool(getattr(source, "production", False))

    @property
    def production(self) -> bool:
        """True only when the shuffle and salt came from a production (CSPRNG) source."""
        return self._production

    def __repr__(self) -> str:
        source = "CSPRNG" if self._production else "seeded source, never a live table"
        return f"VirtualShoe({len(self._order)} cards, {source})"

    @property
    def finished(self) -> bool:
        """No more cards will be dealt: the last card is out or the shoe was closed."""
        return self._closed or self._next >= len(self._order)

    def close(self) -> None:
        """End the shoe (e.g. after a Caribbean Stud round): no more draws; reveal allowed."""
        self._closed = True

    @property
    def dealt(self) -> int:
        """How many cards have left the shoe."""
        return self._next

    @property
    def remaining(self) -> int:
        """How many cards are still in the shoe."""
        return len(self._order) - self._next

    def draw(self) -> Card:
        """The next card. Raises :class:`ShoeExhausted` when none is left."""
        if self._closed:
            raise ShoeExhausted("core.shoe_closed")
        if self._next >= len(self._order):
            raise ShoeExhausted("core.shoe_empty")
        card = self._order[self._next]
        self._next += 1
        return card

    def reveal(self) -> ShoeReveal:
        """Order and salt, to publish when the shoe is finished.

        Raises :class:`ShoeNotFinished` while cards can still be dealt (the undealt order is
        hidden information).
        """
        if not self.finished:
            raise ShoeNotFinished("core.shoe_not_finished", remaining=self.remaining)
        return self._reveal


# -- the card-by-card commitment (scheme merkle-v2) --------------------------------------------


def commitment_scheme(commitment: str) -> tuple[str, str]:
    """``(scheme, digest hex)`` of a published commitment: ``"merkle-v2:<root>"`` is
    :data:`SCHEME_MERKLE`, a bare digest :data:`SCHEME_WHOLE`; anything else ``("", "")``."""
    if not isinstance(commitment, str):
        return "", ""
    scheme, sep, digest = commitment.partition(":")
    if not sep:
        scheme, digest = SCHEME_WHOLE, commitment
    if scheme not in (SCHEME_WHOLE, SCHEME_MERKLE) or not _is_digest(digest):
        return "", ""
    return scheme, digest


def _is_digest(text: str) -> bool:
    return len(text) == 64 and all(ch in "0123456789abcdef" for ch in text)


def merkle_commitment(leaves: Sequence[str]) -> str:
    """The published commitment of ``leaves`` (leaf hashes, hex): ``"merkle-v2:<root hex>"``."""
    return f"{SCHEME_MERKLE}:{merkle.root([bytes.fromhex(h) for h in leaves]).hex()}"


def leaf_of(position: int, card: Card, salt: str) -> str:
    """The leaf hash (hex) of ``card`` at ``position`` with ``salt`` (hex)."""
    return merkle.leaf_hash(bytes.fromhex(salt), position, card.index).hex()


@dataclass(frozen=True, slots=True)
class CommittedShoe:
    """A shoe committed card by card: ``order`` (hidden), a ``salts`` (hex, hidden) per
    position, the ``leaves`` (their leaf hashes, hex: they reveal nothing) and the published
    ``commitment``."""

    order: tuple[Card, ...]
    salts: tuple[str, ...]
    leaves: tuple[str, ...]
    commitment: str

    def __repr__(self) -> str:
        return f"CommittedShoe({len(self.order)} cards, {self.commitment[:22]}…)"


def commit_leaves(order: Sequence[Card], source: RandomSource) -> CommittedShoe:
    """Commit to ``order`` card by card: a fresh 32-byte salt from ``source`` per position."""
    cards = tuple(order)
    salts = tuple(source.token_bytes(SALT_BYTES).hex() for _ in cards)
    leaves = tuple(leaf_of(i, c, s) for i, (c, s) in enumerate(zip(cards, salts, strict=True)))
    return CommittedShoe(cards, salts, leaves, merkle_commitment(leaves))


@dataclass(frozen=True, slots=True)
class CardLeaf:
    """Where a dealt card sits in its committed shoe: shoe ``shoe_no``'s ``position`` (0-based,
    in the committed order) and the leaf's ``salt`` (hex). As secret as the card: recorded
    with the card's deal event, shown only with the card."""

    shoe_no: int
    position: int
    salt: str

    def __repr__(self) -> str:
        return f"CardLeaf(shoe {self.shoe_no}, position {self.position})"


def card_leaf(value: object, rule: str) -> CardLeaf | None:
    """``value`` if it is ``None`` or a well-formed :class:`CardLeaf` (a shoe number and a
    position that are non-negative ints, a 64-hex salt); otherwise a :class:`RuleViolation` of
    ``rule`` (``core.bad_card_leaf``)."""
    if value is None:
        return None
    if (
        type(value) is CardLeaf
        and all(
            isinstance(n, int) and not isinstance(n, bool) and 0 <= n < merkle.MAX_LEAVES**2
            for n in (value.shoe_no, value.position)
        )
        and isinstance(value.salt, str)
        and _is_digest(value.salt)
    ):
        return value
    raise RuleViolation(rule, "core.bad_card_leaf", leaf=repr(value)[:80])


@dataclass(frozen=True, slots=True)
class CardProof:
    """The proof of one card shown: ``card`` at ``position`` with ``salt`` (hex), and the
    audit ``path`` (hex, leaf's sibling first) up to the root of ``size`` leaves."""

    position: int
    card: Card
    salt: str
    path: tuple[str, ...]
    size: int

    def verifies(self, commitment: str) -> bool:
        """Whether this proof verifies against ``commitment`` (a merkle-v2 commitment)."""
        scheme, digest = commitment_scheme(commitment)
        if scheme != SCHEME_MERKLE:
            return False
        return merkle.verify_leaf(
            digest, self.size, self.position, self.card.index, self.salt, self.path
        )


def prove(leaves: Sequence[str], position: int, card: Card, salt: str) -> CardProof:
    """The :class:`CardProof` of ``card`` at ``position`` in the shoe of ``leaves`` (hex)."""
    return prove_all(leaves, [(position, card, salt)])[0]


def prove_all(
    leaves: Sequence[str], cards: Sequence[tuple[int, Card, str]]
) -> tuple[CardProof, ...]:
    """The :class:`CardProof` of each ``(position, card, salt)`` in the shoe of ``leaves``
    (hex), the tree built once."""
    raw = [bytes.fromhex(h) for h in leaves]
    paths = merkle.audit_paths(raw, [position for position, _, _ in cards])
    return tuple(
        CardProof(position, card, salt, tuple(p.hex() for p in path), len(leaves))
        for (position, card, salt), path in zip(cards, paths, strict=True)
    )


@dataclass(frozen=True, slots=True)
class CardShown:
    """One card shown to the public: ``card`` at ``position`` with its ``salt`` (hex); its
    audit path is built from the shoe's leaves when asked."""

    position: int
    card: Card
    salt: str


@dataclass(frozen=True, slots=True)
class ShoeOpening:
    """What the shoes table keeps of a card-by-card shoe once it ended (revealed or lost):
    its ``commitment``, every ``leaves`` hash (hex: they reveal nothing) and the ``public``
    cards — only those the public view showed — with their positions and salts. The whole
    order and every salt go to the audit archive (the log's ``ShoeRevealed``), never here."""

    commitment: str
    leaves: tuple[str, ...]
    public: tuple[CardShown, ...]


def verify_order(commitment: str, order: Sequence[Card], salts: str | Sequence[str]) -> bool:
    """Whether a whole revealed ``order`` is what ``commitment`` committed: one salt (hex) for a
    ``sha256-v1`` commitment, a salt per position for ``merkle-v2``. ``False`` for anything
    malformed."""
    scheme, _ = commitment_scheme(commitment)
    if scheme == SCHEME_WHOLE:
        return isinstance(salts, str) and verify_commitment(commitment, order, salts)
    if scheme != SCHEME_MERKLE or isinstance(salts, str) or len(salts) != len(order) or not order:
        return False
    try:
        leaves = [leaf_of(i, c, s) for i, (c, s) in enumerate(zip(order, salts, strict=True))]
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(merkle_commitment(leaves), commitment)


def verify_leaves(commitment: str, leaves: Sequence[str]) -> bool:
    """Whether the leaf hashes ``leaves`` (hex) have ``commitment``'s Merkle root."""
    if commitment_scheme(commitment)[0] != SCHEME_MERKLE or not leaves:
        return False
    try:
        return hmac.compare_digest(merkle_commitment(leaves), commitment)
    except (ValueError, TypeError):
        return False


def opening_fault(commitment: str, opening: object) -> int | None:
    """Where a stored :class:`ShoeOpening` fails ``commitment``: ``None`` when it holds; ``-1``
    when its leaves (or its own commitment) are not the commitment's; else the position of the
    first public card whose card and salt are not its leaf."""
    if not isinstance(opening, ShoeOpening) or opening.commitment != commitment:
        return -1
    if not verify_leaves(commitment, opening.leaves):
        return -1
    for shown in opening.public:
        try:
            ok = 0 <= shown.position < len(opening.leaves) and hmac.compare_digest(
                leaf_of(shown.position, shown.card, shown.salt), opening.leaves[shown.position]
            )
        except (ValueError, TypeError, AttributeError):
            ok = False
        if not ok:
            return shown.position if isinstance(shown.position, int) else -1
    return None
