"""How a table's cards are dealt: the one game-specific part of the table service.

The service drives every round through the round contract (:class:`macau_tables.rounds.Round`)
alone. What differs per game is the *dealing*: where the cards come from and how a round is
opened and closed around them. A :class:`Dealing` adapter says it, for one game:

* Caribbean Stud (:mod:`macau_tables.caribbean.dealing`): a fresh CSPRNG-shuffled 52-card
  deck per round, committed in ``CloseBetting(shoe_commitment)`` before the first card
  (virtual mode);
* baccarat (:mod:`macau_tables.baccarat.dealing`): the shoe procedure of
  :mod:`macau_tables.baccarat.shoe` (shoe opened with its commitment, cut, burn, demonstration
  rounds, rounds started and ended in the shoe, the cut card's last round, the automatic
  machine's per-round shuffles).

Each adapter also says how a round is opened with the wagers the last one carried out, what to
submit to settle it (the game's settlement command with the jackpot meter read under lock),
which command is a jackpot wager (refused while the meter is out of reach), which time-outs the
clock issues (CSP-6.4, BAC-16), what start-up recovery does to a round left open (CSP-11.4,
BAC-10) and which awards are jackpot hits.

This module holds the protocol and what both adapters share: sealing a shuffled order with its
card-by-card commitment (:func:`seal`), checking a finished shoe against it (:func:`reveal`) and
refusing a leaf a client would send with a card (:func:`refuse_client_leaf`), and a
settlement's jackpot hits with the place each paid (:func:`jackpot_hits`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from .. import codec
from ..cards import Card
from ..jackpot import Award, JackpotResult
from ..rng import CardShown, RandomSource, commit_leaves, shuffle, verify_order
from ..rounds import Due, WagerResult
from .model import (
    TABLE_EVENTS,
    CardsPublished,
    Hit,
    OpenRound,
    Sealed,
    ShoeCommitted,
    ShoeLost,
    ShoeRevealed,
    TableError,
)

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Batch

__all__ = [
    "Dealing",
    "Proving",
    "game_events",
    "jackpot_hits",
    "refuse_client_leaf",
    "reveal",
    "seal",
]


class Dealing(Protocol):
    """A game's dealing adapter (see the module docstring). The dealing state is a value
    (``deal`` in :class:`~.engine.TableState`); every method is pure but for the random source
    and the meter reader the :class:`~.engine.Batch` carries."""

    @property
    def game(self) -> str:
        """The game's name (a key of :data:`macau_tables.games.GAMES`)."""
        ...

    def initial(self) -> Any:
        """The dealing state of a table that never dealt."""
        ...

    def load(self, deal: Any, events: Sequence[object]) -> Any:
        """``deal`` after the recorded ``events`` (every event of the table's log after the
        state ``deal`` stood for, in order; the adapter takes the ones that concern it)."""
        ...

    def is_dealing_event(self, event: object) -> bool:
        """Whether ``event`` is one of the dealing's own (a shoe event), not a round's."""
        ...

    def opens_round(self, event: object) -> bool:
        """Whether ``event`` is the first event of a round (its ``RoundOpened``)."""
        ...

    def snapshot(self, deal: Any) -> Mapping[str, Any]:
        """``deal`` as JSON-ready data (never a sealed order: that stays hidden)."""
        ...

    def restore(self, data: Mapping[str, Any], rules: Any) -> Any:
        """The dealing state :meth:`snapshot` wrote."""
        ...

    def progress(self, deal: Any) -> Mapping[str, Any]:
        """What anyone may know of the shoe or deck in play, JSON-ready (its id, published
        commitment, how far it went): never a card."""
        ...

    def proving(self, deal: Any) -> tuple[Proving, str | None]:
        """The committed shoe in play's leaves (to prove its cards) and its commitment."""
        ...

    def awaiting_seal(self, deal: Any) -> tuple[int, str, str] | None:
        """A committed virtual order in play whose sealed order is not in memory (after a
        restart): ``(shoe_no, shoe_id, commitment)``; ``None`` when nothing is missing."""
        ...

    def with_sealed(self, deal: Any, sealed: Sealed) -> Any:
        """``deal`` holding ``sealed`` again (recovered after a restart)."""
        ...

    def lose_seal(self, batch: Batch, reason: str) -> None:
        """The sealed order in play is lost (CSP-11.4 "lost shoe"): record it and close it."""
        ...

    def open_round(self, batch: Batch, command: OpenRound, when: datetime) -> None:
        """Open the table's next round (and whatever the dealing needs first: a new virtual
        shoe, its cut and burn, demonstration rounds), carrying the last round's wagers."""
        ...

    def open_shoe(self, batch: Batch) -> None:
        """Live mode: a new physical shoe (refused where the game or mode has none)."""
        ...

    def admit(self, batch: Batch, command: object) -> None:
        """Apply a client's game command: to the round, or to the dealing (a live shoe's cut,
        burn, cut card, change of shoe); refuse what only the service may do (virtual cards,
        the settlement)."""
        ...

    def automatic(self, batch: Batch, *, play: bool) -> bool:
        """Do the next thing nobody has to be asked for, if any, and say whether it did:
        bookkeeping always (ending a round in the shoe, revealing a finished virtual shoe);
        with ``play`` also dealing virtual cards, the virtual dealer's reveals and the
        settlement (the game's command with the meter read through the batch)."""
        ...

    def recovery(self, round_: Any, *, order_lost: bool) -> tuple[object | None, str, str]:
        """What resolves ``round_`` (open after an interruption) by the law, by the phase it
        stood in: ``(command or None to resume, rule id, reason)``. ``order_lost``: the sealed
        order in play did not survive (a virtual deal cannot be completed from it)."""
        ...

    def timeout(self, round_: Any, due: Due) -> tuple[object, int] | None:
        """The time-out command for ``due`` and after how many seconds the clock issues it
        (CSP-6.4 decision, BAC-16 card holding), or ``None``."""
        ...

    def is_jackpot_wager(self, command: object) -> bool:
        """Whether ``command`` places a jackpot wager (refused while the meter is unreachable)."""
        ...

    def hits(self, event: object) -> tuple[Hit, ...]:
        """The jackpot awards ``event`` pays, in the order they were paid."""
        ...


@dataclass(frozen=True, slots=True)
class Proving:
    """What a dealing keeps to prove the cards of the committed shoe in play (both games): its
    number ``shoe_no``, its ``leaves`` (hashes, hex: they reveal nothing; from its
    :class:`~.model.ShoeCommitted`) and the ``public`` cards shown so far (from its
    :class:`~.model.CardsPublished`). Rebuilt from the log (:meth:`fold`), so it survives a
    restart when the sealed order does not."""

    shoe_no: int | None = None
    leaves: tuple[str, ...] = ()
    public: tuple[CardShown, ...] = ()

    def fold(self, event: object) -> Proving:
        """After one recorded event."""
        if isinstance(event, ShoeCommitted):
            return Proving(event.shoe_no, event.leaves)
        if isinstance(event, CardsPublished) and event.shoe_no == self.shoe_no:
            return Proving(self.shoe_no, self.leaves, (*self.public, *event.cards))
        if isinstance(event, ShoeRevealed | ShoeLost) and event.shoe_no == self.shoe_no:
            return Proving()
        return self

    def snapshot(self) -> dict[str, Any]:
        """JSON-ready (leaf hashes and public cards only: nothing hidden)."""
        return {
            "shoe_no": self.shoe_no,
            "leaves": list(self.leaves),
            "public": [codec.encode(c) for c in self.public],
        }

    @classmethod
    def restore(cls, data: object) -> Proving:
        """What :meth:`snapshot` wrote (absent in a snapshot of before: nothing to prove)."""
        if not isinstance(data, Mapping):
            return cls()
        public = tuple(codec.decode(c, expect=CardShown) for c in data.get("public", ()))
        return cls(data.get("shoe_no"), tuple(data.get("leaves", ())), public)


class AwardingSettlement(Protocol):
    """A settlement with jackpot awards (both games' settlements): the ``jackpot`` result and
    the wager result each award paid (``awarded``), whose ``spot`` names the place."""

    @property
    def jackpot(self) -> JackpotResult | None: ...

    def awarded(self, award: Award) -> WagerResult | None: ...


def game_events(dealing: Dealing, events: Sequence[object]) -> list[object]:
    """The game's own events among a round's records (decoded): neither the table's
    (:data:`~.model.TABLE_EVENTS`) nor the dealing's (``dealing.is_dealing_event``) — what
    the game's ``replay`` takes."""
    return [
        e for e in events if not isinstance(e, TABLE_EVENTS) and not dealing.is_dealing_event(e)
    ]


def jackpot_hits(settlement: AwardingSettlement) -> tuple[Hit, ...]:
    """Every jackpot award of ``settlement`` in payment order, each with the winning place:
    the ``spot`` of the wager it paid (``"box 3"``, ``"seat 2"``; CSP-10.4, BAC-17) — never
    the award's key, which at baccarat is a wager id."""
    if settlement.jackpot is None:
        return ()
    hits = []
    for a in settlement.jackpot.awards:
        paid = settlement.awarded(a)
        place = None if paid is None else paid.spot
        hits.append(Hit(a.box, a.combination.value, a.amount, a.from_meter, place))
    return tuple(hits)


def seal(cards: Sequence[Card], source: RandomSource, shoe_no: int, shoe_id: str) -> Sealed:
    """``cards`` shuffled by ``source`` (unbiased Fisher-Yates) and committed card by card
    (scheme ``merkle-v2``: a fresh 32-byte salt per position and the Merkle root of the leaves,
    :func:`macau_tables.rng.commit_leaves`)."""
    order = tuple(shuffle(cards, source))
    committed = commit_leaves(order, source)
    production = bool(getattr(source, "production", False))
    return Sealed(
        shoe_no,
        shoe_id,
        order,
        committed.salts,
        committed.commitment,
        committed.leaves,
        0,
        production,
    )


def reveal(
    sealed: Sealed, dealt: Sequence[Card | None], public: Sequence[CardShown] = ()
) -> ShoeRevealed:
    """The reveal of ``sealed`` once its shoe is over, with the check of the ``dealt`` cards
    (every card that left the shoe, in order; ``None``: a card burned unseen) against the
    committed order after the cut, and of the order and salts against the commitment.
    ``public``: the cards the public view showed (what the public shoe list proves)."""
    mismatch = None
    for position, card in enumerate(dealt):
        if position >= len(sealed.order) or (
            card is not None and card != sealed.order[(sealed.cut + position) % len(sealed.order)]
        ):
            mismatch = position
            break
    return ShoeRevealed(
        shoe_no=sealed.shoe_no,
        shoe_id=sealed.shoe_id,
        commitment=sealed.commitment,
        order=sealed.order,
        salt="",
        cut=sealed.cut,
        dealt=len(dealt),
        commitment_ok=verify_order(sealed.commitment, sealed.order, sealed.salts),
        dealt_ok=mismatch is None,
        mismatch_at=mismatch,
        salts=sealed.salts,
        public=tuple(public),
    )


def refuse_client_leaf(command: object) -> None:
    """A card's leaf (its position and salt in a committed shoe) is the service's: refused
    from a client (``tables.leaf_from_client``)."""
    if getattr(command, "leaf", None) is not None:
        raise TableError("tables.leaf_from_client", command=type(command).__name__)
