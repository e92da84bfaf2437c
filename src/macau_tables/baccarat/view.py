"""What each audience may see of a baccarat round (the hidden-information rule, BAC-16).

:func:`round_view` projects a round for one :class:`~macau_tables.rounds.Audience`. Decisions
(documented in ``docs/compliance.md``, Interpretations):

* **Cards.** Without card holding the dealer turns the cards as they are entered, so a dealt
  card is shown to everyone. With card holding (BAC-16) a card belongs to a reveal step (the
  player's first two, the banker's first two, each third card); until that step is revealed
  the card is visible to the side's holder only and face down (``None``) to everybody else —
  other players, the dealer, the supervisor and the public. When the dealer reveals a side
  (nobody holds it, or the holder's time ran out) it is face down to all until then, except to
  the holder who had it. A card exposed in error (BAC-4) was seen by all: it is shown to all.
* **The shoe.** No view carries the shoe order, burned or withdrawn cards' faces to players or
  the public, or the per-face counts of the cards left (they are derived from burned cards'
  faces too); the number of cards left is public.
* **Wagers.** A player sees their own wagers and results, and the layout: the total staked per
  area and wager kind, without player ids (the chips lie on the table for everybody there to
  see). Never another player's individual wagers, results or wallet. The dealer and a supervisor
  see every wager and result, the refusal awaiting the supervisor (they must act on it), every
  refusal (see *Refused cards*) and the cards withdrawn from the shoe. The public (the jackpot
  display, the lobby) sees no wager: only the revealed cards, the outcome and the jackpot.
* **Holders.** Who holds each side's cards is seen at the table (players, dealer, supervisor),
  not by the public.
* **Refused cards** (live mode, BAC-10). The dealer and a supervisor see every refusal (its
  rule, slot and message: :class:`RefusalView`). With card holding a refused card may still be
  reassigned to a held slot, so its face is shown to them only when the refusal is about the
  face (a card the shoe cannot hold, BAC-1, which can only be withdrawn), when it came out face
  up (BAC-4), or once the round is settled (every dealt card turned); otherwise it is face down
  to them as the held cards are (BAC-16).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from .. import messages
from ..cards import Card
from ..jackpot import Combination, Meter
from ..rounds import Audience, Role, WagerResult, require_audience
from .bets import Area, Wager
from .commands import RevealPart, RevealStep
from .events import CardRefused, RoundPhase
from .rules import WagerKind
from .sides import Side
from .tableau import CardSlot, RoundResult, deal_round

if TYPE_CHECKING:  # pragma: no cover
    from .round import BaccaratRound

__all__ = ["ANOTHER_PLAYER", "AreaStake", "CardView", "RefusalView", "RoundView", "round_view"]


ANOTHER_PLAYER: Final = ""
"""A side's holder as a player's view shows someone else (BAC-16): held, but not by whom."""


@dataclass(frozen=True, slots=True)
class CardView:
    """One dealt card as an audience sees it: ``card`` is ``None`` while it is face down to
    them (held for the squeeze by someone else, BAC-16). ``exposed``: it came out face up in
    error (BAC-4); ``revealed``: the law has shown it to everyone."""

    slot: CardSlot
    card: Card | None
    exposed: bool
    revealed: bool


@dataclass(frozen=True, slots=True)
class AreaStake:
    """The total staked on ``kind`` in ``area`` (the chips on the layout; no player ids)."""

    area: Area
    kind: WagerKind
    amount: int


@dataclass(frozen=True, slots=True)
class RefusalView:
    """A card refused in live mode (BAC-10) as the dealer and a supervisor see it: ``card`` is
    ``None`` while it is face down to them (card holding, see the module docstring); ``slot``
    where it was put (if said), ``rule``, ``key`` and ``params`` the refusal, ``possible`` it can
    be a card of this shoe, ``exposed`` it came out face up (BAC-4)."""

    card: Card | None
    slot: CardSlot | None
    rule: str
    key: str
    params: tuple[tuple[str, bool | int | str | None], ...]
    possible: bool
    exposed: bool

    @property
    def message(self) -> str:
        """The refusal in English."""
        return messages.render(self.key, dict(self.params))

    def text(self, language: str = messages.DEFAULT_LANGUAGE) -> str:
        """The refusal in ``language`` (one of ``messages.LANGUAGES``)."""
        return messages.render(self.key, dict(self.params), language)


@dataclass(frozen=True, slots=True)
class RoundView:
    """A baccarat round as ``role`` (and, for a player, ``player``) may see it.

    ``cards`` in dealing order (face down ones as ``None``); ``cards_left`` in the shoe;
    ``reveal_due`` the card-holding step due (BAC-16) and ``holders`` who holds each side (the
    dealer and a supervisor see the holder's id; a player sees their own id where they hold a
    side and :data:`ANOTHER_PLAYER` where someone else does — never another player's name);
    ``layout`` the stakes per area and kind; ``wagers`` / ``results`` the audience's own (a
    player), all (dealer, supervisor) or none (public); ``waiting`` carried wagers waiting
    through a demonstration round (BAC-2.2, BAC-12); ``result`` the outcome once every card is
    revealed; ``combination`` and ``meter_after`` the jackpot (BAC-13.4, BAC-17);
    ``awaiting_supervisor`` a refused card stops the round (BAC-10), ``refused`` that refusal
    and ``flags`` every refusal (:class:`RefusalView`), ``discarded`` the cards withdrawn from
    the shoe (dealer and supervisor only).
    """

    role: Role
    player: str | None
    round_id: str
    phase: RoundPhase
    demo: bool
    live: bool
    cards: tuple[CardView, ...]
    cards_left: int
    reveal_due: RevealStep | None
    holders: tuple[tuple[Side, str], ...]
    layout: tuple[AreaStake, ...]
    wagers: tuple[Wager, ...]
    waiting: tuple[Wager, ...]
    results: tuple[WagerResult, ...]
    result: RoundResult | None
    combination: Combination | None
    meter_after: Meter | None
    awaiting_supervisor: bool
    refused: RefusalView | None
    flags: tuple[RefusalView, ...]
    discarded: tuple[Card, ...]


def _step_of(slot: CardSlot) -> RevealStep:
    side = Side.PLAYER if slot.value.startswith("P") else Side.BANKER
    part = RevealPart.THIRD if slot.value.endswith("3") else RevealPart.FIRST_TWO
    return RevealStep(side, part)


def _cards(r: BaccaratRound, audience: Audience) -> tuple[CardView, ...]:
    revealed = {x.step for x in r.revealed}
    out: list[CardView] = []
    for slot, card in r.cards:
        exposed = slot in r.exposed
        if not r.rules.card_holding or exposed:
            out.append(CardView(slot, card, exposed, True))
            continue
        step = _step_of(slot)
        if step in revealed:
            out.append(CardView(slot, card, exposed, True))
            continue
        holder = r.holder(step.side)
        mine = audience.role is Role.PLAYER and holder is not None and holder == audience.player
        out.append(CardView(slot, card if mine else None, exposed, False))
    return tuple(out)


def _refusal(r: BaccaratRound, flag: CardRefused) -> RefusalView:
    face_up = (
        not r.rules.card_holding
        or flag.exposed
        or flag.rule == "BAC-1"
        or r.phase is RoundPhase.SETTLED
    )
    return RefusalView(
        flag.card if face_up else None,
        flag.slot,
        flag.rule,
        flag.key,
        flag.params,
        flag.possible,
        flag.exposed,
    )


_last_layout: tuple[tuple[Wager, ...], tuple[AreaStake, ...]] = ((), ())
"""The last wagers laid out and their layout: every audience of a round at one moment sees
the same layout (the round's own ``wagers`` object), made once for them all."""


def _layout(wagers: tuple[Wager, ...]) -> tuple[AreaStake, ...]:
    global _last_layout  # one (wagers, layout) pair, replaced whole: safe from any thread
    last_wagers, last = _last_layout
    if last_wagers is wagers:
        return last
    totals: dict[tuple[Area, WagerKind], int] = {}
    for w in wagers:
        totals[(w.area, w.kind)] = totals.get((w.area, w.kind), 0) + w.amount
    layout = tuple(AreaStake(a, k, n) for (a, k), n in sorted(totals.items()))
    _last_layout = (wagers, layout)
    return layout


def round_view(r: BaccaratRound, audience: object) -> RoundView:
    """``r`` as ``audience`` may see it (see the module docstring for what each sees).

    Refuses (``RuleViolation`` ``VIEW``, :func:`~macau_tables.rounds.require_audience`) anything
    that is not an :class:`~macau_tables.rounds.Audience`.
    """
    who = require_audience(audience)
    staff = who.role in (Role.DEALER, Role.SUPERVISOR)
    public = who.role is Role.PUBLIC
    settled = r.settlement.lines if r.settlement is not None else ()
    all_results = r.returned + settled
    if staff:
        wagers, waiting, results = r.wagers, r.waiting, all_results
    elif public:
        wagers, waiting, results = (), (), ()
    else:
        wagers = tuple(w for w in r.wagers if w.player == who.player)
        waiting = tuple(w for w in r.waiting if w.player == who.player)
        results = tuple(x for x in all_results if x.player == who.player)
    result = r.result
    if result is None and r.phase is RoundPhase.COMPLETE:
        result = deal_round(r.accepted_cards())  # every card is dealt and revealed
    holders: tuple[tuple[Side, str], ...] = ()
    if not public:
        holders = tuple(
            (side, holder if staff or holder == who.player else ANOTHER_PLAYER)
            for side in (Side.PLAYER, Side.BANKER)
            if (holder := r.holder(side)) is not None
        )
    s = r.settlement
    return RoundView(
        role=who.role,
        player=who.player,
        round_id=r.round_id,
        phase=r.phase,
        demo=r.demo,
        live=r.live,
        cards=_cards(r, who),
        cards_left=max(0, r.cards_left - len(r.cards) - len(r.discarded)),
        reveal_due=r.pending_reveal(),
        holders=holders,
        layout=() if public else _layout(r.wagers),
        wagers=wagers,
        waiting=waiting,
        results=results,
        result=result,
        combination=s.combination if s is not None else None,
        meter_after=s.meter_after if s is not None else None,
        awaiting_supervisor=r.pending is not None,
        refused=_refusal(r, r.pending) if staff and r.pending is not None else None,
        flags=tuple(_refusal(r, f) for f in r.flags) if staff else (),
        discarded=r.discarded if staff else (),
    )
