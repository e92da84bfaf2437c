"""Randomness: production shuffles, the seeded generator for analysis, and shoe commitments.

* :class:`SystemRandom` draws from the operating system's CSPRNG (:mod:`secrets`). It is the
  only source a live table accepts (:func:`require_production`).
* :class:`SeededRandom` is reproducible, for tests, simulation and analysis. It reports
  ``production = False`` and a live table refuses it.
* :func:`shuffle` is an unbiased Fisher-Yates over any :class:`RandomSource`.
* A shoe is committed before its first card (:func:`commit_shoe`): the SHA-256 of a domain tag,
  a 32-byte random salt and the canonical card order. The digest is published at shoe start;
  order and salt are revealed when the shoe ends, and :func:`verify_commitment` lets anyone
  check that the shoe dealt was the shoe committed.

Canonical encoding (version 1)::

    sha256( b"macau-tables/shoe/v1\\x00" + salt (32 bytes) + bytes(card.index for card in order) )
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from .cards import Card
from .errors import ConfigError, MacauTablesError

T = TypeVar("T")

SALT_BYTES = 32
_DOMAIN = b"macau-tables/shoe/v1\x00"


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
