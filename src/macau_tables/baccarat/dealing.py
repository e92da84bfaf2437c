"""Dealing a baccarat table: the shoe procedure around the rounds (BAC-1 … BAC-3, BAC-7.2,
BAC-10, BAC-16, BAC-17).

Virtual mode: the service shuffles each shoe with the CSPRNG and commits it
(:func:`~.dealing.seal`) in the shoe's ``ShoeOpened`` before any card; it cuts at a random
position (the virtual dealer, BAC-2.1), burns by the table's rule, plays the table's
demonstration rounds (BAC-2.2), starts and ends every round in the shoe, deals each card the
round says is due, reveals for the virtual dealer (BAC-16, when nobody holds the cards or the
holder's time ran out), and when the shoe is finished (the cut card's last round, BAC-3.1, or a
change of shoe) reveals it and checks every card that left it against the committed order
(:class:`~.model.ShoeRevealed`). With the automatic machine (BAC-2.3, BAC-7.2) every round is
dealt from its own committed shuffle of the full set, revealed when the round ends.

Live mode: ``OpenShoe`` opens a physical shoe; the console sends the cut, the burn, the cut card
(``baccarat.Cut``, ``Burn``, ``CutCardOut``, a supervisor's ``ConfirmCutCardOut``,
``ChangeShoe``) and every card (``DealCard``), each checked by the shoe procedure or the round
(BAC-10: a wrong card refused and flagged). The cut card is the shoe procedure's rule in both
modes (BAC-3.1): the count brings it out, a dealer's report is placed by the count (the cards
the round in progress has taken so far are passed along), and once the shoe is finished no
round opens until the shoe is changed.

The settlement is the service's: ``Settle(meter)`` with the linked meter read under lock when a
jackpot wager is in play (BAC-17), ``Settle()`` otherwise.

Start-up recovery (SPEC "Faults", BAC-10): a round left open resumes from its recorded cards
when they are all recorded — its hand is complete (only reveals, a supervisor's correction or
the settlement may be due) — otherwise it is void, every wager in play returned (a round still
taking wagers too: none of its cards is recorded). The card-holding timer (BAC-16) turns an
absent holder's reveal over to the dealer after ``holding_timeout_seconds``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, cast

from .. import codec
from ..cards import Card, new_shoe
from ..errors import RuleViolation
from ..rng import ShoeCommitment
from ..rounds import DEALER, Due, DueKind, replacer
from ..tables.clock import opening_date
from ..tables.dealing import Proving, jackpot_hits, refuse_client_leaf, reveal, seal
from ..tables.model import Hit, OpenRound, Sealed, ShoeLost, ShoeRevealed, TableError
from ..tables.proofs import published
from ..voids import Ground
from . import shoe as S
from .commands import DealCard, PlaceWager, Reveal, RevealTimeout, Settle, Void
from .events import RoundOpened, RoundPhase, RoundSettled
from .round import BaccaratRound
from .rules import BaccaratRules, BurnRule, WagerKind

if TYPE_CHECKING:  # pragma: no cover
    from ..tables.engine import Batch

__all__ = [
    "VIRTUAL_DEALER",
    "BaccaratDeal",
    "BaccaratDealing",
    "check_cutter",
    "players_at_table",
]

VIRTUAL_DEALER: Final = "virtual-dealer"
"""Who cuts a virtual shoe (BAC-2.1 records who cut) and voids at recovery."""

_SHOE_COMMANDS: Final = (S.Cut, S.Burn, S.CutCardOut, S.ConfirmCutCardOut, S.ChangeShoe)
_SHOE_EVENTS: Final = (
    S.ShoeOpened,
    S.ShoeCut,
    S.CardsBurned,
    S.RoundStarted,
    S.RoundEnded,
    S.CutCardConfirmed,
    S.CutCardCameOut,
    S.ShoeFinished,
)


@dataclass(frozen=True, slots=True)
class BaccaratDeal:
    """The dealing state of a baccarat table: ``seals`` orders committed and ``shoes`` shoes
    opened so far; the current shoe's ``events`` and state ``shoe``; the committed order in
    play (``sealed_no``, ``sealed_id``, ``commitment``: not yet revealed or lost) and its
    ``sealed`` order (in memory only); ``proving`` its leaves (to prove its cards)."""

    seals: int = 0
    shoes: int = 0
    events: tuple[Any, ...] = ()
    shoe: S.ShoeState | None = None
    sealed_no: int | None = None
    sealed_id: str | None = None
    commitment: str | None = None
    sealed: Sealed | None = field(default=None, compare=False)
    proving: Proving = field(default_factory=Proving)

    def after(self, shoe: S.ShoeState, events: Sequence[object]) -> BaccaratDeal:
        """The same dealing with the shoe ``shoe`` after ``events``."""
        return _deal(self, shoe=shoe, events=(*self.events, *events))

    def sealing(self, sealed_id: str, commitment: str, sealed: Sealed | None) -> BaccaratDeal:
        """The same dealing with one more committed order in play (``sealed`` in memory)."""
        n = self.seals + 1
        proving = self.proving if sealed is None else Proving(n, sealed.leaves)
        return replace(
            self,
            seals=n,
            sealed_no=n,
            sealed_id=sealed_id,
            commitment=commitment,
            sealed=sealed,
            proving=proving,
        )

    def closed_seal(self) -> BaccaratDeal:
        """The same shoe with no committed order in play."""
        return replace(
            self, sealed_no=None, sealed_id=None, commitment=None, sealed=None, proving=Proving()
        )


_deal = replacer(BaccaratDeal)  # (twice a round: dataclasses.replace costs more)


def _fold(deal: BaccaratDeal, e: object) -> BaccaratDeal:
    """``deal`` after one recorded event (the shoe state itself is rebuilt afterwards)."""
    if isinstance(e, S.ShoeOpened):
        # (its leaves were recorded just before it: ShoeCommitted, kept in ``proving``)
        deal = replace(deal.closed_seal(), shoes=deal.shoes + 1, events=(e,), proving=deal.proving)
        if e.commitment is not None:
            deal = deal.sealing(e.shoe_id, e.commitment, None)
        return deal
    if isinstance(e, S.RoundStarted):
        deal = replace(deal, events=(*deal.events, e))
        if e.commitment is not None and e.commitment != deal.commitment:
            deal = deal.sealing(e.round_id, e.commitment, None)
        return deal
    if isinstance(e, _SHOE_EVENTS):
        return replace(deal, events=(*deal.events, e))
    if isinstance(e, ShoeRevealed | ShoeLost):
        return deal.closed_seal()
    return deal


class BaccaratDealing:
    """The dealing adapter of baccarat (see the module docstring)."""

    game: Final = "baccarat"

    def __init__(self, *, live: bool) -> None:
        self.live = live

    def initial(self) -> BaccaratDeal:
        """No shoe yet."""
        return BaccaratDeal()

    def is_dealing_event(self, event: object) -> bool:
        """The shoe procedure's events."""
        return isinstance(event, _SHOE_EVENTS)

    def opens_round(self, event: object) -> bool:
        """A baccarat ``RoundOpened``."""
        return isinstance(event, RoundOpened)

    def load(self, deal: BaccaratDeal, events: Sequence[object]) -> BaccaratDeal:
        """The shoe events and reveals among ``events``, the shoe rebuilt by ``replay``."""
        for e in events:
            deal = _fold(deal, e)
            proving = deal.proving.fold(e)
            if proving is not deal.proving:
                deal = replace(deal, proving=proving)
        return replace(deal, shoe=S.replay(deal.events) if deal.events else None)

    def snapshot(self, deal: BaccaratDeal) -> Mapping[str, Any]:
        """The counters, the current shoe's events and the commitment in play (no order)."""
        return {
            "seals": deal.seals,
            "shoes": deal.shoes,
            "events": [codec.encode(e) for e in deal.events],
            "sealed_no": deal.sealed_no,
            "sealed_id": deal.sealed_id,
            "commitment": deal.commitment,
            "proving": deal.proving.snapshot(),
        }

    def progress(self, deal: BaccaratDeal) -> Mapping[str, Any]:
        """The shoe in play (BAC-2, BAC-3): its id, phase, published commitment, size, cards
        out of it (burned, dealt, discarded) and left, where the cut card comes out, rounds
        started (of them demonstrations) and the last round once known; ``shoes`` opened."""
        shoe = deal.shoe
        if shoe is None:
            return {"shoes": deal.shoes, "shoe_id": None}
        return {
            "shoes": deal.shoes,
            "shoe_id": shoe.shoe_id,
            "phase": shoe.phase.value,
            "commitment": shoe.commitment,
            "cards": shoe.size,
            "out": shoe.out,
            "remaining": shoe.remaining,
            "cut_card_at": shoe.cut_card_at,
            "rounds": shoe.rounds,
            "demo_rounds": shoe.demo_rounds,
            "last_round": shoe.last_round,
        }

    def restore(self, data: Mapping[str, Any], rules: Any) -> BaccaratDeal:
        """What :meth:`snapshot` wrote."""
        events = tuple(codec.decode(e) for e in data.get("events", []))
        return BaccaratDeal(
            int(data.get("seals", 0)),
            int(data.get("shoes", 0)),
            events,
            S.replay(events) if events else None,
            data.get("sealed_no"),
            data.get("sealed_id"),
            data.get("commitment"),
            proving=Proving.restore(data.get("proving")),
        )

    def proving(self, deal: BaccaratDeal) -> tuple[Proving, str | None]:
        """The leaves of the committed order in play and its commitment."""
        return deal.proving, deal.commitment

    def awaiting_seal(self, deal: BaccaratDeal) -> tuple[int, str, str] | None:
        """The committed order in play when it is not in memory."""
        if deal.commitment is None or deal.sealed is not None or deal.sealed_no is None:
            return None
        return deal.sealed_no, deal.sealed_id or "?", deal.commitment

    def with_sealed(self, deal: BaccaratDeal, sealed: Sealed) -> BaccaratDeal:
        """The order in play recovered."""
        return replace(deal, sealed=sealed)

    def lose_seal(self, batch: Batch, reason: str) -> None:
        """The order in play is lost (CSP-11.4 "lost shoe" read for baccarat): recorded; the
        shoe is then changed as soon as no round is in it (:meth:`automatic`)."""
        deal: BaccaratDeal = batch.state.deal
        if deal.commitment is None or deal.sealed_no is None:
            return
        p = deal.proving
        lost = ShoeLost(
            deal.sealed_no, deal.sealed_id or "?", deal.commitment, reason, p.leaves, p.public
        )
        batch.dealt(deal.closed_seal(), (lost,))

    # -- opening -----------------------------------------------------------------------------

    def open_shoe(self, batch: Batch) -> None:
        """Live mode: a new physical shoe (approvals checked, BAC-19); refused while the current
        shoe is not finished (a virtual table's ``OpenShoe`` never gets here: its ``MODES``)."""
        deal: BaccaratDeal = batch.state.deal
        if deal.shoe is not None and deal.shoe.phase is not S.ShoePhase.FINISHED:
            raise TableError("tables.shoe_in_use", shoe=deal.shoe.shoe_id)
        shoe_id = f"{batch.state.setup.table_id}-shoe-{deal.shoes + 1}"
        shoe, events = S.open_table_shoe(
            batch.state.rules, shoe_id, opening_date(batch.now), live=True
        )
        batch.dealt(
            replace(deal.closed_seal(), shoes=deal.shoes + 1, events=tuple(events), shoe=shoe),
            events,
        )

    def _virtual_shoe(self, batch: Batch) -> None:
        """A new virtual shoe: shuffled and committed, opened (BAC-19 approvals), cut at a
        random position by the virtual dealer and burned by the table's rule (BAC-2.1); with
        the machine (BAC-2.3) no cut and no burn."""
        state, deal = batch.state, batch.state.deal
        rules: BaccaratRules = state.rules
        settings = rules.shoe
        shoe_id = f"{state.setup.table_id}-shoe-{deal.shoes + 1}"
        n = deal.seals + 1
        sealed = seal(new_shoe(settings.decks), batch.source, n, shoe_id)
        shoe, events = S.open_table_shoe(
            rules, shoe_id, opening_date(batch.now), commitment=ShoeCommitment(sealed.commitment)
        )
        if not settings.machine:
            cut = 1 + batch.source.randbelow(settings.cards - 1)
            shoe, ev = S.apply(shoe, S.Cut(S.Cutter.DEALER, VIRTUAL_DEALER, cut))
            events += ev
            sealed = replace(sealed, cut=cut)
            shoe, ev = S.apply(shoe, S.Burn(_burn(settings, sealed)))
            events += ev
        batch.seal(sealed)
        opened = replace(deal.closed_seal(), shoes=deal.shoes + 1, events=tuple(events), shoe=shoe)
        batch.dealt(opened.sealing(shoe_id, sealed.commitment, sealed), events)

    def open_round(self, batch: Batch, command: OpenRound, when: datetime) -> None:
        """The next round: a new virtual shoe first when there is none or it is finished
        (live: refused, ``OpenShoe`` then the cut and the burn come first; a finished live shoe
        refuses it with BAC-3.1 until the shoe is changed); the round started
        in the shoe (a demonstration round while the table's are due, BAC-2.2) and opened from
        it with the wagers the last round carried (BAC-12). A virtual table plays its
        demonstration rounds through at once and opens the first round with wagers."""
        rules: BaccaratRules = batch.state.rules
        while True:
            deal: BaccaratDeal = batch.state.deal
            if deal.shoe is None or deal.shoe.phase is S.ShoePhase.FINISHED:
                if self.live and deal.shoe is None:
                    raise TableError("tables.open_shoe_first")
                if self.live and deal.shoe is not None:
                    raise S.finished_refusal(deal.shoe)  # BAC-3.1: change the shoe first
                self._virtual_shoe(batch)
                deal = batch.state.deal
            shoe = deal.shoe
            assert shoe is not None
            if shoe.phase is not S.ShoePhase.READY:
                expected = shoe.expected()
                raise TableError(
                    "tables.shoe_not_ready", expected=expected.__name__ if expected else "-"
                )
            round_id = batch.state.next_round_id()
            demo = shoe.rounds == shoe.demo_rounds < rules.shoe.demo_rounds
            commitment = None
            if rules.shoe.machine and not self.live:
                deal = self._machine_shuffle(batch, deal, round_id)
                commitment = ShoeCommitment(deal.commitment or "")
            shoe, events = S.apply(shoe, S.StartRound(round_id, demo, commitment))
            batch.dealt(deal.after(shoe, events), events, round_id)
            r = BaccaratRound.from_shoe(
                shoe,
                rules,
                round_id,
                opening_date(when),
                carried=batch.state.carried(),
                config_id=batch.state.setup.config_id,
                seated=dict(command.seated),
            )
            batch.open(r)
            if not demo or self.live:
                return
            batch.advance()  # a virtual demonstration round plays itself through

    def _machine_shuffle(self, batch: Batch, deal: BaccaratDeal, round_id: str) -> BaccaratDeal:
        """BAC-7.2: the round's own committed shuffle of the full set (the shoe's first one,
        committed when it opened, serves its first round)."""
        if deal.sealed is not None and not any(isinstance(e, S.RoundStarted) for e in deal.events):
            return deal
        decks = batch.state.rules.shoe.decks
        sealed = seal(new_shoe(decks), batch.source, deal.seals + 1, round_id)
        batch.seal(sealed, round_id)
        return deal.sealing(round_id, sealed.commitment, sealed)

    # -- client commands ---------------------------------------------------------------------

    def admit(self, batch: Batch, command: object) -> None:
        """A client's command: a live shoe's cut, burn, cut card or change of shoe (a virtual
        table does those itself, but for a change of shoe between rounds: the others' ``MODES``
        kept them from reaching here), or a round command (a virtual table deals its own cards,
        likewise; the settlement is always the service's)."""
        if isinstance(command, Settle):
            raise TableError("tables.service_settles", command="Settle")
        refuse_client_leaf(command)
        if isinstance(command, _SHOE_COMMANDS):
            deal: BaccaratDeal = batch.state.deal
            if deal.shoe is None:
                raise TableError("tables.no_shoe")
            r = cast("BaccaratRound | None", batch.state.round)  # the table's round is this game's
            if isinstance(command, S.Cut):
                check_cutter(r, command, batch.actor)
            in_shoe = r is not None and deal.shoe.current_round == r.round_id
            taken = len(r.cards) + len(r.discarded) if r is not None and in_shoe else 0
            shoe, events = S.apply(deal.shoe, command, taken=taken)
            batch.dealt(deal.after(shoe, events), events)
            return
        batch.apply_round(command)

    # -- automatic steps ---------------------------------------------------------------------

    def automatic(self, batch: Batch, *, play: bool) -> bool:
        """Bookkeeping: end a round that is over in the shoe; reveal a finished virtual shoe
        (with the machine: each round's shuffle once the round ended); change a virtual shoe
        whose order was lost. With ``play``: deal the card due from the virtual shoe, reveal for
        the virtual dealer, settle a complete round."""
        r = cast("BaccaratRound | None", batch.state.round)  # the table's round is this game's
        deal: BaccaratDeal = batch.state.deal
        shoe = deal.shoe
        if shoe is not None and r is not None and r.is_over and shoe.current_round == r.round_id:
            shoe, events = S.apply(shoe, S.EndRound(r.accepted_cards(), tuple(r.discarded)))
            shown = published(r, deal.proving)
            if shown is None:
                batch.dealt(deal.after(shoe, events), events, r.round_id)
            else:
                after = replace(deal.after(shoe, events), proving=deal.proving.fold(shown))
                batch.dealt(after, (*events, shown), r.round_id)
            return True
        if shoe is not None and deal.sealed is not None and self._seal_spent(deal, shoe):
            dealt = _dealt(deal, shoe.settings.machine)
            ended = reveal(deal.sealed, dealt, deal.proving.public)
            batch.dealt(deal.closed_seal(), (ended,))
            return True
        if (
            shoe is not None
            and not self.live
            and not shoe.settings.machine
            and deal.commitment is None
            and shoe.phase is S.ShoePhase.READY
        ):
            shoe, events = S.apply(shoe, S.ChangeShoe("the shoe's sealed order was lost"))
            batch.dealt(deal.after(shoe, events), events)
            return True
        if not play or r is None or r.is_over:
            return False
        return self._play(batch, r, deal)

    def _seal_spent(self, deal: BaccaratDeal, shoe: S.ShoeState) -> bool:
        if shoe.phase is S.ShoePhase.FINISHED:
            return True
        return shoe.settings.machine and _machine_round_ended(deal) is not None

    def _play(self, batch: Batch, r: BaccaratRound, deal: BaccaratDeal) -> bool:
        due = r.expected_next().due
        if not due:
            return False
        first = due[0]
        if first.kind is DueKind.SETTLEMENT:
            jackpot = any(w.kind is WagerKind.JACKPOT for w in r.wagers)
            if jackpot and not batch.meter_up:
                return False  # waits for the meter (the service retries on its clock)
            meter = batch.meter(lock=True) if jackpot else None
            if meter is not None and not batch.usable_meter(meter, r.rules.jackpot_seed):
                return False
            batch.apply_round(Settle(meter))
            return True
        if self.live:
            return False
        if first.kind is DueKind.REVEAL and first.position is DEALER:
            # The virtual dealer turns cards already out (BAC-16): no shoe is needed, so a
            # round resumed after its sealed order was lost (BAC-10) still gets this reveal.
            step = r.pending_reveal()
            if step is None:  # pragma: no cover - the round says a reveal is due
                return False
            batch.apply_round(Reveal(step.side, step.part, DEALER))
            return True
        if deal.sealed is None or deal.shoe is None:
            return False
        slot = r.card_due()
        if first.kind is DueKind.CARD and slot is not None:
            position = deal.shoe.out + len(r.cards) + len(r.discarded)
            sealed = deal.sealed
            batch.apply_round(
                DealCard(sealed.card_at(position), slot, leaf=sealed.leaf_at(position))
            )
            return True
        return False

    # -- recovery, time-outs, jackpot ------------------------------------------------------

    def recovery(self, round_: Any, *, order_lost: bool) -> tuple[object | None, str, str]:
        """BAC-10 (SPEC "Faults"), by phase: a round still taking wagers goes on taking them;
        a round whose cards are all recorded resumes (whatever reveal or settlement is still
        due); a round cut short mid-deal resumes — live, the dealer goes on entering the cards
        (they are still on the table: only a supervisor's decision on a BAC-10 ground voids
        it); virtual, the service deals on from the committed shoe — and is void only when its
        virtual shoe was lost mid-deal (the system's ground, no supervisor), every wager in
        play returned."""
        r: BaccaratRound = round_
        if len(r.cards) >= 4 and r.due_slot() is None:
            return None, "BAC-10", "its cards are all recorded: the round resumes"
        betting = not r.cards and r.phase is RoundPhase.BETTING
        if self.live:
            why = (
                "no card dealt yet: the betting goes on"
                if betting
                else "cut short mid-deal: the dealer goes on entering the cards still on the table"
            )
            return None, "BAC-10", why
        if order_lost:
            # the round's cards would come from the lost shoe: the deal cannot be completed
            why = (
                "the shoe was lost before the round's last card (its sealed order did not "
                "survive): void, every wager returned"
            )
            return Void(None, why, Ground.SHOE_LOST), "BAC-10", why
        if betting:
            return None, "BAC-10", "no card dealt yet: the betting goes on"
        return None, "BAC-10", "cut short mid-deal: the deal goes on from the committed shoe"

    def timeout(self, round_: Any, due: Due) -> tuple[object, int] | None:
        """BAC-16: the holder's reveal passes to the dealer after ``holding_timeout_seconds``."""
        r: BaccaratRound = round_
        step = r.pending_reveal()
        if due.kind is DueKind.REVEAL and due.player is not None and step is not None:
            return RevealTimeout(step.side, step.part), int(r.rules.holding_timeout_seconds)
        return None

    def is_jackpot_wager(self, command: object) -> bool:
        """A ``PlaceWager`` on the jackpot."""
        return isinstance(command, PlaceWager) and command.kind == WagerKind.JACKPOT

    def hits(self, event: object) -> tuple[Hit, ...]:
        """Every jackpot award of a settlement, in payment order (BAC-17)."""
        if isinstance(event, RoundSettled):
            return jackpot_hits(event.settlement)
        return ()


def players_at_table(last_round: BaccaratRound | None) -> frozenset[str]:
    """The players at the table between rounds (BAC-2.1, project reading): those seated in
    its latest round (BAC-15) or holding a wager on its layout, standing areas and wagers
    carried from a tie included. A table that has dealt no round yet has none."""
    if last_round is None:
        return frozenset()
    seated = {player for _, player in last_round.seated}
    betting = {w.player for w in (*last_round.wagers, *last_round.waiting)}
    return frozenset(seated | betting)


def check_cutter(last_round: BaccaratRound | None, cut: S.Cut, actor: str) -> None:
    """BAC-2.1: a player at the table or the dealer cuts. Refuses (``RuleViolation``
    BAC-2.1, nothing recorded) a dealer's cut naming anyone but the dealer issuing it
    (``actor``: who is at the console) and a player's cut naming someone not at the table
    (:func:`players_at_table`). A cutter or id the shoe procedure itself refuses (not a
    :class:`~.S.Cutter`, no id) is left to it."""
    who, cutter = cut.cutter_id, cut.cutter
    if not isinstance(who, str) or not who.strip() or not isinstance(cutter, str):
        return
    if cutter == S.Cutter.DEALER and who != actor:
        raise RuleViolation("BAC-2.1", "shoe.cutter_not_the_dealer", cutter=who, dealer=actor)
    if cutter == S.Cutter.PLAYER and who not in players_at_table(last_round):
        raise RuleViolation("BAC-2.1", "shoe.cutter_not_at_table", cutter=who)


def _burn(settings: Any, sealed: Sealed) -> tuple[Card | None, ...]:
    """The start-of-shoe burn by the table's rule (BAC-2.1; 83/2011)."""
    if settings.burn_rule is BurnRule.DECKS:
        count = settings.decks
    elif settings.burn_rule is BurnRule.FIXED:
        count = settings.fixed_burn
    else:
        count = 1 + S.burn_value(sealed.card_at(0))
    return tuple(sealed.card_at(i) for i in range(count))


def _machine_round_ended(deal: BaccaratDeal) -> S.RoundEnded | None:
    """With the machine: the end of the round dealt from the order in play, if it ended."""
    started = next(
        (
            e.round_id
            for e in deal.events
            if isinstance(e, S.RoundStarted) and e.commitment == deal.commitment
        ),
        None,
    )
    return next(
        (e for e in deal.events if isinstance(e, S.RoundEnded) and e.round_id == started), None
    )


def _dealt(deal: BaccaratDeal, machine: bool) -> list[Card | None]:
    """Every card that left the shoe for the order in play, in order."""
    if machine:
        ended = _machine_round_ended(deal)
        return [] if ended is None else [*ended.cards, *ended.discarded]
    cards: list[Card | None] = []
    for e in deal.events:
        if isinstance(e, S.CardsBurned):
            cards += e.cards
        elif isinstance(e, S.RoundEnded):
            cards += [*e.cards, *e.discarded]
    return cards
