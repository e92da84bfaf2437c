"""Baccarat wagers: betting areas, validation and settlement (BAC-12 … BAC-18, 56/2018).

Settlement is exact integer arithmetic. Every settled wager satisfies the conservation identity

    stake == paid + commission + house + meter + carried

where ``paid`` is what is handed to the player (stake back included), ``commission`` the 5 %
taken on a banker win (BAC-18), ``house`` the house's net (positive: it wins), ``meter`` the
jackpot meter's net (contribution minus what the award took out of it) and ``carried`` the stake
that stays on the layout after a tie (BAC-12). Summed over a round this is
``players + commission + house + meter + carried = 0``.

Decisions (documented):

* BAC-18: the bet unit is a multiple of 20 minor units with the commission (1/20 of the win is
  then exact) and of 2 with the no-commission option (50 % exact); no rounding is ever needed.
* BAC-12: a banker/player wager on a tied round is neither won nor lost: its stake is *carried*
  (settled as :attr:`Outcome.CARRIED`) into the next round, where it may be withdrawn, left or
  changed as the table allows (:mod:`.round`).
* Jackpot wager: the stake is always consumed (its contribution goes to the meter, the rest to
  the house); an award is paid on top of it.
* BAC-15: an area reserved for a seated box takes wagers only from the player seated there;
  standing players bet in the standing areas.
* BAC-16: the card holder for a side is the seated player with the largest wager on that side;
  equal largest wagers: the lowest seat number holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from ..errors import RuleViolation
from ..jackpot import AwardSplit, split_contribution
from .rules import COMMISSION_DIVISOR, BaccaratRules, CommissionMode, WagerKind
from .sides import Side
from .tableau import RoundResult

__all__ = [
    "EVEN_MONEY",
    "LUCKY_6_THREE_CARD_ODDS",
    "LUCKY_6_TWO_CARD_ODDS",
    "PAIR_ODDS",
    "TIE_ODDS",
    "Area",
    "Outcome",
    "Wager",
    "WagerSettlement",
    "card_holder",
    "check_area",
    "check_difference",
    "check_stake",
    "returned",
    "seat",
    "settle_wager",
    "side_totals",
    "standing",
]

# Odds fixed by law (n means n:1): BAC-17, and Lucky 6 from 56/2018.
EVEN_MONEY: Final = 1
TIE_ODDS: Final = 8
PAIR_ODDS: Final = 11
LUCKY_6_TWO_CARD_ODDS: Final = 12
LUCKY_6_THREE_CARD_ODDS: Final = 20


@dataclass(frozen=True, slots=True, order=True)
class Area:
    """A betting area on the layout: a seated box's (``seated=True``, seat 1..seats) or a
    standing players' area (``seated=False``, 1..standing_areas). BAC-15."""

    seated: bool
    number: int

    def __str__(self) -> str:
        return f"{'seat' if self.seated else 'standing'} {self.number}"


def seat(number: int) -> Area:
    """The betting area of seated box ``number``."""
    return Area(True, number)


def standing(number: int) -> Area:
    """Standing players' area ``number``."""
    return Area(False, number)


@dataclass(frozen=True, slots=True)
class Wager:
    """One accepted wager. ``carried`` marks a banker/player wager carried over from a tied
    round (BAC-12); its stake is already on the layout."""

    wager_id: int
    player: str
    area: Area
    kind: WagerKind
    amount: int
    carried: bool = False


class Outcome(StrEnum):
    """How a wager ended."""

    WIN = "win"
    LOSE = "lose"
    CARRIED = "carried"  # BAC-12: tie; the stake stays for the next round
    RETURNED = "returned"  # void round (BAC-10) or a withdrawn carried wager (BAC-12)


@dataclass(frozen=True, slots=True)
class WagerSettlement:
    """The money of one settled wager; ``stake == paid + commission + house + meter + carried``.

    Refuses (``ValueError``) a settlement that breaks the identity: money is never made up.
    """

    wager: Wager
    outcome: Outcome
    paid: int
    commission: int = 0
    house: int = 0
    meter: int = 0
    carried: int = 0
    award: AwardSplit | None = None

    def __post_init__(self) -> None:
        total = self.paid + self.commission + self.house + self.meter + self.carried
        if total != self.wager.amount:
            raise ValueError(f"settlement of wager {self.wager.wager_id} does not balance")

    @property
    def player_net(self) -> int:
        """The player's gain (+) or loss (−) on this wager, the carried stake counted as
        still the player's money at risk."""
        return self.paid + self.carried - self.wager.amount


def check_stake(rules: BaccaratRules, kind: WagerKind, amount: object, area_total: int = 0) -> int:
    """Validate one wager of ``amount`` on ``kind``, with ``area_total`` already staked on that
    kind in the same area. Returns the amount.

    Refuses (``RuleViolation``): a kind the table does not offer (BAC-13); a non-integer,
    non-positive amount or one off the bet unit (BAC-18); a jackpot wager other than the fixed
    amount (BAC-13.4); an area total outside the table limits (BAC-14).
    """
    if not rules.offers(kind):
        raise RuleViolation("BAC-13", f"this table does not offer the {kind.value} wager")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise RuleViolation(
            "BAC-18", f"a wager is a positive whole number of minor units: {amount!r}"
        )
    if amount % rules.bet_unit:
        raise RuleViolation(
            "BAC-18",
            f"{kind.value} wager {amount} is not a whole multiple of the bet unit {rules.bet_unit}",
        )
    if kind is WagerKind.JACKPOT and (amount != rules.jackpot_wager or area_total):
        raise RuleViolation(
            "BAC-13", f"the jackpot wager is exactly {rules.jackpot_wager}, once per area"
        )
    limit = rules.limits[kind]
    total = area_total + amount
    if not limit.minimum <= total <= limit.maximum:
        raise RuleViolation(
            "BAC-14",
            f"{kind.value} wager {total} in one area is outside the table limits "
            f"{limit.minimum}..{limit.maximum}",
        )
    return amount


def check_area(rules: BaccaratRules, area: Area, player: str, seated: Mapping[int, str]) -> None:
    """Refuse (``RuleViolation`` BAC-15) a wager by ``player`` in ``area`` unless the area
    exists and, for a seated box's area, ``player`` is the one seated there (``seated`` maps
    seat number → player id). Standing players' areas take anyone's wager."""
    if not isinstance(player, str) or not player:
        raise RuleViolation("BAC-15", "a wager needs the player's id")
    if area.seated:
        if not 1 <= area.number <= rules.seats:
            raise RuleViolation("BAC-15", f"there is no seat {area.number} at this table")
        if seated.get(area.number) != player:
            who = "a standing player" if player not in seated.values() else "another player"
            raise RuleViolation(
                "BAC-15",
                f"{who} ({player}) may not bet in the area reserved for seat {area.number}",
            )
    elif not 1 <= area.number <= rules.standing_areas:
        raise RuleViolation("BAC-15", f"there is no standing area {area.number} at this table")


def side_totals(wagers: Iterable[Wager]) -> tuple[int, int]:
    """``(total banker, total player)`` wagered (BAC-14)."""
    banker = player = 0
    for w in wagers:
        if w.kind is WagerKind.BANKER:
            banker += w.amount
        elif w.kind is WagerKind.PLAYER:
            player += w.amount
    return banker, player


def check_difference(rules: BaccaratRules, wagers: Iterable[Wager]) -> None:
    """Refuse (``RuleViolation`` BAC-14) when total banker and total player wagers differ by
    more than the table's ``max_difference``."""
    if rules.max_difference is None:
        return
    banker, player = side_totals(wagers)
    if abs(banker - player) > rules.max_difference:
        raise RuleViolation(
            "BAC-14",
            f"banker {banker} and player {player} differ by {abs(banker - player)}, above the "
            f"table limit {rules.max_difference}",
        )


def returned(wager: Wager) -> WagerSettlement:
    """The wager handed back in full (void round BAC-10, or a withdrawn carried wager BAC-12)."""
    return WagerSettlement(wager, Outcome.RETURNED, paid=wager.amount)


def _win(wager: Wager, win: int, commission: int = 0) -> WagerSettlement:
    return WagerSettlement(
        wager, Outcome.WIN, paid=wager.amount + win - commission, commission=commission, house=-win
    )


def _lose(wager: Wager) -> WagerSettlement:
    return WagerSettlement(wager, Outcome.LOSE, paid=0, house=wager.amount)


def settle_wager(
    rules: BaccaratRules,
    wager: Wager,
    result: RoundResult,
    award: AwardSplit | None = None,
) -> WagerSettlement:
    """Settle ``wager`` on the round ``result``; ``award`` is the jackpot award of a winning
    jackpot wager (from :mod:`.jackpot_combos`), ``None`` otherwise.

    Player and banker 1:1 (BAC-17), the banker's win less 5 % commission, or with the
    no-commission option a banker 6 paying 50 % (BAC-18); on a tie both are carried (BAC-12).
    Tie 8:1; banker pair and player pair 11:1 (BAC-17); Lucky 6 12:1 with a two-card banker 6,
    20:1 with a three-card one (56/2018). Refuses nothing: the wager was validated when placed.
    """
    kind = wager.kind
    amount = wager.amount
    winner = result.winner
    if kind is WagerKind.PLAYER or kind is WagerKind.BANKER:
        if winner is Side.TIE:
            return WagerSettlement(wager, Outcome.CARRIED, paid=0, carried=amount)
        if kind is WagerKind.PLAYER:
            return _win(wager, EVEN_MONEY * amount) if winner is Side.PLAYER else _lose(wager)
        if winner is not Side.BANKER:
            return _lose(wager)
        if rules.commission is CommissionMode.STANDARD:
            # BAC-18: 5 % of the win, exact because the bet unit is a multiple of 20.
            return _win(wager, EVEN_MONEY * amount, amount // COMMISSION_DIVISOR)
        # 73/2005: no commission, but a banker win on 6 pays 50 % (exact: even bet unit).
        return _win(wager, amount // 2 if result.banker_total == 6 else EVEN_MONEY * amount)
    if kind is WagerKind.TIE:
        return _win(wager, TIE_ODDS * amount) if winner is Side.TIE else _lose(wager)
    if kind is WagerKind.BANKER_PAIR:
        return _win(wager, PAIR_ODDS * amount) if result.banker_pair else _lose(wager)
    if kind is WagerKind.PLAYER_PAIR:
        return _win(wager, PAIR_ODDS * amount) if result.player_pair else _lose(wager)
    if kind is WagerKind.LUCKY_6:
        if winner is Side.BANKER and result.banker_total == 6:
            odds = (
                LUCKY_6_TWO_CARD_ODDS if len(result.banker_cards) == 2 else LUCKY_6_THREE_CARD_ODDS
            )
            return _win(wager, odds * amount)
        return _lose(wager)
    # Jackpot wager: the contribution goes to the meter, the rest to the house (CSP-10 /
    # BAC-17 meter rules); an award is paid on top.
    to_meter, to_house = split_contribution(amount, rules.jackpot_contribution)
    if award is None:
        return WagerSettlement(wager, Outcome.LOSE, paid=0, house=to_house, meter=to_meter)
    return WagerSettlement(
        wager,
        Outcome.WIN,
        paid=award.amount,
        house=to_house - award.from_house,
        meter=to_meter - award.from_meter,
        award=award,
    )


def card_holder(rules: BaccaratRules, side: Side, wagers: Iterable[Wager]) -> str | None:
    """BAC-16: who holds (reveals) ``side``'s cards, or ``None`` when the dealer does.

    ``None`` when the table does not allow card holding (BAC-16.1) or no seated box bets on
    that side; otherwise the seated player with the largest wager on the side (the sum of their
    wagers on it in their seat's area). Equal largest: the lowest seat number holds.
    """
    if not rules.card_holding or side is Side.TIE:
        return None
    kind = WagerKind.PLAYER if side is Side.PLAYER else WagerKind.BANKER
    per_seat: dict[int, tuple[int, str]] = {}
    for w in wagers:
        if w.kind is kind and w.area.seated:
            total, _ = per_seat.get(w.area.number, (0, w.player))
            per_seat[w.area.number] = (total + w.amount, w.player)
    if not per_seat:
        return None
    best_seat = min(per_seat, key=lambda s: (-per_seat[s][0], s))
    return per_seat[best_seat][1]
