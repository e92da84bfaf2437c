"""Baccarat wagers: betting areas, the paytable, validation and card holding (BAC-12 … BAC-18,
56/2018). Settling a wager is :mod:`.settlement`.

Decisions (documented):

* BAC-18: the bet unit is a multiple of 20 minor units with the commission (1/20 of the win is
  then exact) and of 2 with the no-commission option (50 % exact); no rounding is ever needed.
* BAC-14: the per-area limits count what the same player already has on the same wager in the
  same area (a new wager, or a carried wager changed or switched onto it, BAC-12). The
  banker/player difference is a property of the round's totals: it is checked when betting
  closes (:func:`check_difference`), not at each placement.
* BAC-15: an area reserved for a seated box takes wagers only from the player seated there;
  standing players bet in the standing areas.
* BAC-16: the card holder for a side is the seated player with the largest wager of their own
  on that side in their seat's area (a carried wager of a player who left the seat does not
  count); equal largest wagers: the lowest seat number holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from ..errors import RuleViolation
from .rules import BaccaratRules, WagerKind
from .sides import Side

__all__ = [
    "EVEN_MONEY",
    "LUCKY_6_THREE_CARD_ODDS",
    "LUCKY_6_TWO_CARD_ODDS",
    "PAIR_ODDS",
    "TIE_ODDS",
    "Area",
    "Wager",
    "area_total",
    "card_holder",
    "check_area",
    "check_difference",
    "check_stake",
    "seat",
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
    round (BAC-12); its stake is already on the layout (in the carried account)."""

    wager_id: int
    player: str
    area: Area
    kind: WagerKind
    amount: int
    carried: bool = False


def area_total(
    wagers: Iterable[Wager], player: str, area: Area, kind: WagerKind, *, but: int | None = None
) -> int:
    """What ``player`` already has on ``kind`` in ``area`` among ``wagers`` (the wager with id
    ``but`` left out): the amount the BAC-14 per-area limits add a new stake to."""
    return sum(
        w.amount
        for w in wagers
        if w.player == player and w.area == area and w.kind is kind and w.wager_id != but
    )


def check_stake(rules: BaccaratRules, kind: WagerKind, amount: object, area_total: int = 0) -> int:
    """Validate one wager of ``amount`` on ``kind``, with ``area_total`` already staked on that
    kind in the same area by the same player. Returns the amount.

    Refuses (``RuleViolation``): a kind the table does not offer (BAC-13); a non-integer,
    non-positive amount or one off the bet unit (BAC-18); a jackpot wager other than the fixed
    amount (BAC-13.4); an area total outside the table limits (BAC-14).
    """
    if not rules.offers(kind):
        raise RuleViolation("BAC-13", "baccarat.wager_not_offered", kind=kind)
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise RuleViolation("BAC-18", "baccarat.amount_not_positive", amount=repr(amount))
    if amount % rules.bet_unit:
        raise RuleViolation(
            "BAC-18", "baccarat.amount_off_unit", kind=kind, amount=amount, unit=rules.bet_unit
        )
    if kind is WagerKind.JACKPOT and (amount != rules.jackpot_wager or area_total):
        raise RuleViolation("BAC-13", "baccarat.jackpot_wager_fixed", amount=rules.jackpot_wager)
    limit = rules.limits[kind]
    total = area_total + amount
    if not limit.minimum <= total <= limit.maximum:
        raise RuleViolation(
            "BAC-14",
            "baccarat.area_limit",
            kind=kind,
            total=total,
            minimum=limit.minimum,
            maximum=limit.maximum,
        )
    return amount


def check_area(rules: BaccaratRules, area: Area, player: object, seated: Mapping[int, str]) -> str:
    """Refuse (``RuleViolation`` BAC-15) a wager by ``player`` in ``area`` unless the area
    exists and, for a seated box's area, ``player`` is the one seated there (``seated`` maps
    seat number → player id). Standing players' areas take anyone's wager. Returns the player."""
    if not isinstance(player, str) or not player.strip():
        raise RuleViolation("BAC-15", "baccarat.wager_needs_player")
    if (
        not isinstance(area, Area)
        or isinstance(area.number, bool)
        or not isinstance(area.number, int)
    ):
        raise RuleViolation("BAC-15", "baccarat.not_an_area", area=repr(area))
    if area.seated is True:
        if not 1 <= area.number <= rules.seats:
            raise RuleViolation("BAC-15", "baccarat.no_such_seat", seat=area.number)
        if seated.get(area.number) != player:
            if player not in seated.values():
                raise RuleViolation(
                    "BAC-15", "baccarat.standing_in_seat_area", player=player, seat=area.number
                )
            raise RuleViolation(
                "BAC-15", "baccarat.other_in_seat_area", player=player, seat=area.number
            )
    elif area.seated is False:
        if not 1 <= area.number <= rules.standing_areas:
            raise RuleViolation("BAC-15", "baccarat.no_such_standing_area", area=area.number)
    else:
        raise RuleViolation("BAC-15", "baccarat.not_an_area", area=repr(area))
    return player


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
    """Refuse (``RuleViolation`` BAC-14, naming both totals) when total banker and total player
    ``wagers`` differ by more than the table's ``max_difference``."""
    if rules.max_difference is None:
        return
    banker, player = side_totals(wagers)
    if abs(banker - player) > rules.max_difference:
        raise RuleViolation(
            "BAC-14",
            "baccarat.difference_limit",
            banker=banker,
            player=player,
            difference=abs(banker - player),
            limit=rules.max_difference,
        )


def card_holder(
    rules: BaccaratRules,
    side: Side,
    wagers: Iterable[Wager],
    seated: Mapping[int, str] | None = None,
) -> str | None:
    """BAC-16: who holds (reveals) ``side``'s cards, or ``None`` when the dealer does.

    ``None`` when the table does not allow card holding (BAC-16.1) or no seated player bets on
    that side; otherwise the seated player with the largest wager on the side (the sum of their
    own wagers on it in their seat's area). Equal largest: the lowest seat number holds.
    ``seated`` (seat → player id) says who sits where: a wager in a seat's area whose owner no
    longer sits there (carried from a tie, BAC-12) is not a seated player's and does not count.
    """
    if not rules.card_holding or side is Side.TIE:
        return None
    kind = WagerKind.PLAYER if side is Side.PLAYER else WagerKind.BANKER
    totals: dict[tuple[int, str], int] = {}
    for w in wagers:
        if w.kind is not kind or not w.area.seated:
            continue
        if seated is not None and seated.get(w.area.number) != w.player:
            continue
        key = (w.area.number, w.player)
        totals[key] = totals.get(key, 0) + w.amount
    if not totals:
        return None
    _seat, player = min(totals, key=lambda k: (-totals[k], k[0]))
    return player
