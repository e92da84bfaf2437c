"""Dealing a Caribbean Stud table (CSP-3, CSP-6.4, CSP-7, CSP-10, CSP-11.4).

Virtual mode: every round has a fresh 52-card deck shuffled by the CSPRNG and committed card by
card in the round's ``CloseBetting(shoe_commitment)`` (the Merkle root; its leaf hashes in
a :class:`~.model.ShoeCommitted`) — recorded before the first card (Common rules
"Randomness") — from which the service deals each card the round says is due (CSP-7), each
with its leaf (position and salt). When the round is over (settled or void) the deck is closed
and the cards dealt are checked against it (:class:`~.model.ShoeRevealed`, for the audit
archive); the public shoe list proves only what the public view showed (nothing, CSP-12).
Live mode: the dealer console enters every card (``DealCard``), checked by the round; there is
no deck to reveal. Where the table's dealing procedure is the shoe (CSP-3(1)), the dealer first
records the hand shuffle and the cut of the round's deck (``ShuffleAndCut``, recorded as
``DeckShuffledAndCut``): until then no card is taken (CSP-3).

The showdown is the service's: ``Showdown(meter)`` with the linked meter read in the settling
transaction (under lock when a jackpot wager is in play, CSP-10). A client's ``Showdown`` is
refused; a virtual table accepts no physical act (a card, an exposure, a misdeal, a dead hand,
a shuffler's failure: their ``MODES``, refused by :func:`~.engine.execute`).

Start-up recovery (CSP-11.4, SPEC "Faults"), by the phase the round stood in: a round whose
cards are all dealt resumes — the decisions still due are awaited (or timed out by the clock),
then it is settled; a round cut short mid-deal resumes when the deal can be completed (live: the
dealer enters the remaining cards; virtual: the committed deck survived the crash, the service
deals on from it) and is void only when it cannot (a virtual deck lost mid-deal, 「如派牌過程中
洗牌機失靈」) — wagers returned, jackpot wagers carried over to the next round; a round still
taking wagers (no card dealt) goes on taking them. The decision timer (CSP-6.4) folds an absent
player's hand after the table's ``decision_timeout_seconds`` (started afresh after a restart).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, cast

from ..cards import DECK, Card
from ..errors import RuleViolation
from ..jackpot import Meter
from ..rounds import Due, DueKind
from ..tables.clock import opening_date
from ..tables.dealing import Proving, jackpot_hits, refuse_client_leaf, reveal, seal
from ..tables.model import Hit, OpenRound, Sealed, ShoeLost, ShoeRevealed, TableError
from ..tables.proofs import published
from ..voids import Ground
from .commands import (
    CloseBetting,
    DealCard,
    DecisionTimeout,
    PlaceJackpotWager,
    Showdown,
    Void,
)
from .events import BettingClosed, CardDealt, RoundOpened, RoundSettled
from .procedure import DeckShuffledAndCut, ShuffleAndCut
from .round import CaribbeanRound
from .rules import DealingProcedure

if TYPE_CHECKING:  # pragma: no cover
    from ..tables.engine import Batch

__all__ = ["CaribbeanDeal", "CaribbeanDealing"]

LOST_MID_DEAL: Final = (
    "the deck was lost mid-deal (its sealed order did not survive): the deal cannot be completed; "
    "void, wagers returned, jackpot wagers carried"
)


@dataclass(frozen=True, slots=True)
class CaribbeanDeal:
    """The dealing state of a Caribbean Stud table: ``seals`` decks committed so far; the deck
    in play (committed, not yet revealed): its number, id and ``commitment``; ``deck`` its
    sealed order (in memory only); ``proving`` its leaves (to prove its cards); ``cut_for``:
    the round whose deck the dealer shuffled by hand and cut (CSP-3(1), live tables)."""

    seals: int = 0
    deck_no: int | None = None
    deck_id: str | None = None
    commitment: str | None = None
    deck: Sealed | None = field(default=None, compare=False)
    proving: Proving = field(default_factory=Proving)
    cut_for: str | None = None


class CaribbeanDealing:
    """The dealing adapter of Caribbean Stud (see the module docstring)."""

    game: Final = "caribbean"

    def __init__(self, *, live: bool) -> None:
        self.live = live

    def initial(self) -> CaribbeanDeal:
        """No deck yet."""
        return CaribbeanDeal()

    def is_dealing_event(self, event: object) -> bool:
        """The hand shuffle and cut of a live deck (CSP-3(1)); a virtual deck is committed in
        the round's ``BettingClosed``."""
        return isinstance(event, DeckShuffledAndCut)

    def opens_round(self, event: object) -> bool:
        """A Caribbean ``RoundOpened``."""
        return isinstance(event, RoundOpened)

    def load(self, deal: CaribbeanDeal, events: Sequence[object]) -> CaribbeanDeal:
        """Decks committed (``BettingClosed`` with a commitment) and revealed or lost."""
        round_id = deal.deck_id
        for e in events:
            if isinstance(e, RoundOpened):
                round_id = e.round_id
            elif isinstance(e, BettingClosed) and e.shoe_commitment is not None:
                n = deal.seals + 1
                deal = CaribbeanDeal(n, n, _deck_id(round_id or "?"), e.shoe_commitment)
            elif isinstance(e, ShoeRevealed | ShoeLost):
                deal = CaribbeanDeal(deal.seals)
            elif isinstance(e, DeckShuffledAndCut):
                deal = replace(deal, cut_for=e.round_id)
            proving = deal.proving.fold(e)
            if proving is not deal.proving:
                deal = replace(deal, proving=proving)
        return deal

    def snapshot(self, deal: CaribbeanDeal) -> Mapping[str, Any]:
        """The counters and the deck in play's commitment (never its order)."""
        return {
            "seals": deal.seals,
            "deck_no": deal.deck_no,
            "deck_id": deal.deck_id,
            "commitment": deal.commitment,
            "proving": deal.proving.snapshot(),
            "cut_for": deal.cut_for,
        }

    def progress(self, deal: CaribbeanDeal) -> Mapping[str, Any]:
        """The deck in play (shuffled and committed for each round): its id and published
        commitment (``None`` between rounds), and how many decks were committed so far."""
        return {"decks": deal.seals, "deck_id": deal.deck_id, "commitment": deal.commitment}

    def restore(self, data: Mapping[str, Any], rules: Any) -> CaribbeanDeal:
        """What :meth:`snapshot` wrote."""
        g = data.get
        return CaribbeanDeal(
            int(g("seals", 0)),
            g("deck_no"),
            g("deck_id"),
            g("commitment"),
            proving=Proving.restore(g("proving")),
            cut_for=g("cut_for"),
        )

    def proving(self, deal: CaribbeanDeal) -> tuple[Proving, str | None]:
        """The leaves of the committed order in play and its commitment."""
        return deal.proving, deal.commitment

    def awaiting_seal(self, deal: CaribbeanDeal) -> tuple[int, str, str] | None:
        """The deck in play when its order is not in memory."""
        if deal.commitment is None or deal.deck is not None or deal.deck_no is None:
            return None
        return deal.deck_no, deal.deck_id or "?", deal.commitment

    def with_sealed(self, deal: CaribbeanDeal, sealed: Sealed) -> CaribbeanDeal:
        """The deck in play, its order recovered."""
        return replace(deal, deck=sealed)

    def lose_seal(self, batch: Batch, reason: str) -> None:
        """The deck in play cannot be revealed (CSP-11.4): recorded as lost."""
        deal: CaribbeanDeal = batch.state.deal
        if deal.commitment is None or deal.deck_no is None:
            return
        p = deal.proving
        lost = ShoeLost(
            deal.deck_no, deal.deck_id or "?", deal.commitment, reason, p.leaves, p.public
        )
        batch.dealt(CaribbeanDeal(deal.seals), (lost,), batch.round_id)

    # -- opening and client commands ---------------------------------------------------------

    def open_round(self, batch: Batch, command: OpenRound, when: datetime) -> None:
        """``CaribbeanRound.new`` (approvals checked, CSP-13) with the jackpot wagers the last
        round carried over (CSP-11.1)."""
        state = batch.state
        r = CaribbeanRound.new(
            state.rules,
            state.next_round_id(),
            opening_date(when),
            carried=state.carried(),
            config_id=state.setup.config_id,
        )
        batch.open(r)

    def open_shoe(self, batch: Batch) -> None:
        """Refused: Caribbean Stud has no shoe procedure to open."""
        raise TableError("tables.no_shoe_procedure", game=self.game)

    def admit(self, batch: Batch, command: object) -> None:
        """A client's command to the round. Virtual mode: ``CloseBetting`` gets the new deck's
        commitment (CSP-3, "Randomness"); cards are the service's (a client's card never gets
        here: :func:`~.engine.execute` refused it by its ``MODES``). The showdown is always the
        service's (it reads the meter)."""
        if isinstance(command, Showdown):
            raise TableError("tables.service_settles", command="Showdown")
        refuse_client_leaf(command)
        if isinstance(command, ShuffleAndCut):
            self._shuffle_and_cut(batch)
            return
        if self.live:
            if isinstance(command, DealCard) and self.procedure_waits(batch.state) is not None:
                raise RuleViolation("CSP-3", "caribbean.shuffle_and_cut_first")
            batch.apply_round(command)
            return
        if isinstance(command, CloseBetting):
            deal: CaribbeanDeal = batch.state.deal
            round_id = batch.round_id or "?"
            n = deal.seals + 1
            deck = seal(DECK, batch.source, n, _deck_id(round_id))
            batch.apply_round(CloseBetting(deck.commitment))
            batch.seal(deck, batch.round_id)
            proving = Proving(n, deck.leaves)
            dealt = CaribbeanDeal(n, n, deck.shoe_id, deck.commitment, deck, proving)
            batch.dealt(dealt, ())
            return
        batch.apply_round(command)

    def procedure_waits(self, state: Any) -> type | None:
        """The dealer's command the deck's preparation waits for: :class:`ShuffleAndCut` at a
        live table whose dealing procedure is the shoe (CSP-3(1)), while its open round has
        no card yet and its deck is not recorded shuffled and cut; else ``None``."""
        r: CaribbeanRound | None = state.round
        if not self.live or r is None or r.is_over or r.dealt:
            return None
        if r.rules.dealing_procedure is not DealingProcedure.SHOE:
            return None
        return None if state.deal.cut_for == r.round_id else ShuffleAndCut

    def _shuffle_and_cut(self, batch: Batch) -> None:
        """CSP-3(1): the hand shuffle and cut recorded for the open round, before its first
        card. Refused (``RuleViolation`` CSP-3, nothing recorded) at a table with the
        shuffling machine (no cut, CSP-3(2)), with no round open or once a card is dealt, and
        a second time for the same round."""
        r = cast("CaribbeanRound | None", batch.state.round)  # the table's round is this game's
        if r is not None and r.rules.dealing_procedure is not DealingProcedure.SHOE:
            raise RuleViolation("CSP-3", "caribbean.no_cut_with_shuffler")
        deal: CaribbeanDeal = batch.state.deal
        if r is not None and not r.is_over and deal.cut_for == r.round_id:
            raise RuleViolation("CSP-3", "caribbean.already_shuffled_and_cut", round_id=r.round_id)
        if r is None or r.is_over or r.dealt:
            raise RuleViolation("CSP-3", "caribbean.shuffle_and_cut_not_now")
        event = DeckShuffledAndCut(r.round_id, batch.actor)
        batch.dealt(replace(deal, cut_for=r.round_id), (event,), r.round_id)

    # -- automatic steps ---------------------------------------------------------------------

    def automatic(self, batch: Batch, *, play: bool) -> bool:
        """Reveal the deck of a round that is over; with ``play``, deal the card due from the
        virtual deck, and hold the showdown with the meter when it is due."""
        r = cast("CaribbeanRound | None", batch.state.round)  # the table's round is this game's
        deal: CaribbeanDeal = batch.state.deal
        if r is None:
            return False
        if r.is_over:
            if deal.deck is not None and deal.commitment is not None:
                dealt: list[Card | None] = [e.card for e in r.events if isinstance(e, CardDealt)]
                shown = published(r, deal.proving)
                public = deal.proving.fold(shown).public if shown is not None else ()
                ended = (reveal(deal.deck, dealt, public),)
                events = ended if shown is None else (shown, *ended)
                batch.dealt(CaribbeanDeal(deal.seals), events, r.round_id)
                return True
            return False
        if not play:
            return False
        due = r.expected_next().due
        if not due:
            return False
        if due[0].kind is DueKind.SETTLEMENT:
            return self._showdown(batch, r)
        if due[0].kind is DueKind.CARD and not self.live and deal.deck is not None:
            deck = deal.deck
            batch.apply_round(DealCard(deck.card_at(r.dealt), leaf=deck.leaf_at(r.dealt)))
            return True
        return False

    def _showdown(self, batch: Batch, r: CaribbeanRound) -> bool:
        jackpot = any(b.jackpot for b in r.in_play)
        if batch.meter_reader is not None and batch.meter_up:
            meter = batch.meter(lock=jackpot)
            seed = r.rules.jackpot_seed
            if jackpot and not batch.usable_meter(meter, seed):
                return False
            meter = Meter(meter.amount, seed)  # without a jackpot wager no award, no restart
        elif jackpot:
            return False  # waits for the meter (the service retries on its clock)
        else:
            # No jackpot wager in play: the meter's amount matters to no one in the round; it is
            # settled on the last amount the table saw (or the seed), never blocked.
            meter = batch.last_meter or Meter.seeded(r.rules.jackpot_seed)
        batch.apply_round(Showdown(meter))
        return True

    # -- recovery, time-outs, jackpot ------------------------------------------------------

    def recovery(self, round_: Any, *, order_lost: bool) -> tuple[object | None, str, str]:
        """CSP-11.4 by phase (the module docstring): resume while betting, when the cards are
        all dealt or when the deal can be completed; void only when a virtual deck was lost
        mid-deal (wagers returned, jackpot wagers carried)."""
        r: CaribbeanRound = round_
        due = r.expected_next().due
        kind = due[0].kind if due else None
        if kind is DueKind.WAGERS:
            return None, "CSP-11.4", "no card dealt yet: the betting goes on"
        if kind is DueKind.CARD and not self.live and order_lost:
            # The system proves the ground (no supervisor); the RoundRecovered recorded just
            # before is its evidence (found by the batch).
            return Void(LOST_MID_DEAL, Ground.SHOE_LOST), "CSP-11.4", LOST_MID_DEAL
        if kind is DueKind.CARD:
            why = "cut short mid-deal: the deal goes on from the " + (
                "dealer's console" if self.live else "committed deck"
            )
            return None, "CSP-11.4", why
        return None, "CSP-11.4", "its cards are all dealt: the round resumes"

    def timeout(self, round_: Any, due: Due) -> tuple[object, int] | None:
        """CSP-6.4: a pending decision is folded after ``decision_timeout_seconds``."""
        if due.kind is DueKind.DECISION and isinstance(due.position, int):
            return DecisionTimeout(due.position), int(round_.rules.decision_timeout_seconds)
        return None

    def is_jackpot_wager(self, command: object) -> bool:
        """``PlaceJackpotWager``."""
        return isinstance(command, PlaceJackpotWager)

    def hits(self, event: object) -> tuple[Hit, ...]:
        """Every jackpot award of a showdown, in payment order (CSP-10.4, CSP-10.7)."""
        if isinstance(event, RoundSettled):
            return jackpot_hits(event.settlement)
        return ()


def _deck_id(round_id: str) -> str:
    return f"{round_id}-deck"
