"""Settling a baccarat round: each wager's :class:`~macau_tables.rounds.WagerResult` and the
round's :class:`RoundSettlement` (BAC-10, BAC-12, BAC-17, BAC-18, 56/2018, 73/2005).

Settlement is exact integer arithmetic. Every settled wager satisfies the shared identity

    stake + award_from_meter + award_from_house == paid + commission + house + meter + carried

where ``paid`` is what is handed to the player (stake back included, jackpot award included),
``commission`` the 5 % taken on a banker win (BAC-18), ``house`` the table bank's net on the
wager (positive: it wins), ``meter`` the wager's gross contribution to the jackpot meter and
``carried`` the stake that stays the player's after a tie (BAC-12). A jackpot award is
``award_from_meter`` + ``award_from_house`` (CSP-10.8 via BAC-17).

Decisions (documented):

* BAC-12: a banker/player wager on a tied round is neither won nor lost: its stake is carried
  (:attr:`~macau_tables.rounds.Outcome.CARRIED_OVER`) into the next round, where it may be
  withdrawn, left or changed as the table allows.
* Jackpot wager: the stake is always consumed (its contribution goes to the meter, the rest to
  the house); an award is paid on top of it. This round's contributions reach the meter before
  its jackpot pays.
* BAC-17 (meter rules as CSP-10.8): the meter given for a settlement must be this table's (its
  seed is the table's ``jackpot_seed``); a round with jackpot wagers cannot be settled without
  it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import ConfigError, RuleViolation
from ..jackpot import Award, AwardSplit, Combination, JackpotResult, Meter, split_contribution
from ..ledger import Posting
from ..ledger import settlement as settlement_postings
from ..rounds import Outcome, WagerResult
from .bets import (
    EVEN_MONEY,
    LUCKY_6_THREE_CARD_ODDS,
    LUCKY_6_TWO_CARD_ODDS,
    PAIR_ODDS,
    TIE_ODDS,
    Wager,
)
from .jackpot_combos import jackpot_combination, resolve_baccarat
from .rules import COMMISSION_DIVISOR, BaccaratRules, CommissionMode, WagerKind
from .sides import Side
from .tableau import RoundResult

__all__ = [
    "RoundSettlement",
    "check_meter",
    "returned",
    "settle_round",
    "settle_wager",
    "void_settlement",
]


def _result(wager: Wager, outcome: Outcome, **money: int) -> WagerResult:
    return WagerResult(
        player=wager.player,
        spot=str(wager.area),
        kind=wager.kind.value,
        stake=wager.amount,
        outcome=outcome,
        carried_in=wager.carried,
        **money,
    )


def returned(wager: Wager) -> WagerResult:
    """``wager`` handed back whole (void round BAC-10, a withdrawn wager BAC-12 / BAC-14)."""
    return _result(wager, Outcome.RETURNED, paid=wager.amount)


def _win(wager: Wager, win: int, commission: int = 0) -> WagerResult:
    return _result(
        wager,
        Outcome.WON,
        paid=wager.amount + win - commission,
        commission=commission,
        house=-win,
    )


def _lose(wager: Wager) -> WagerResult:
    return _result(wager, Outcome.LOST, house=wager.amount)


def settle_wager(
    rules: BaccaratRules,
    wager: Wager,
    result: RoundResult,
    award: AwardSplit | None = None,
) -> WagerResult:
    """Settle ``wager`` on the round ``result``; ``award`` is the jackpot award of a winning
    jackpot wager (from :func:`~.jackpot_combos.resolve_baccarat`), ``None`` otherwise.

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
            return _result(wager, Outcome.CARRIED_OVER, carried=amount)
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
    # Jackpot wager: the contribution goes to the meter, the rest to the house (CSP-10.8 via
    # BAC-17); an award is paid on top, funded as the award says.
    to_meter, to_house = split_contribution(amount, rules.jackpot_contribution)
    if award is None:
        return _result(wager, Outcome.LOST, house=to_house, meter=to_meter)
    return _result(
        wager,
        Outcome.WON,
        paid=award.amount,
        house=to_house,
        meter=to_meter,
        award_from_meter=award.from_meter,
        award_from_house=award.from_house,
    )


@dataclass(frozen=True, slots=True)
class RoundSettlement:
    """All money a round's end moves. ``lines[i]`` is the :class:`~macau_tables.rounds.WagerResult`
    of the round's wager ``wager_ids[i]`` (every wager in play when the round was settled or
    voided; carried wagers handed back before the cards are not here: their own events moved
    them). ``meter_before`` is the meter as given (before this round's contributions),
    ``meter_after`` after its jackpot; both ``None`` when the round had no jackpot wager.

    :attr:`balance` is ``players + carried + commission + house + meter == 0``: money is only
    moved, never made.
    """

    lines: tuple[WagerResult, ...]
    wager_ids: tuple[int, ...]
    combination: Combination | None = None
    jackpot: JackpotResult | None = None
    meter_before: Meter | None = None
    meter_after: Meter | None = None

    def __post_init__(self) -> None:
        if len(self.lines) != len(self.wager_ids):
            raise ConfigError(
                "baccarat.settlement_ids", lines=len(self.lines), ids=len(self.wager_ids)
            )

    def line(self, wager_id: int) -> WagerResult | None:
        """The result of wager ``wager_id``, or ``None``."""
        for i, line in zip(self.wager_ids, self.lines, strict=True):
            if i == wager_id:
                return line
        return None

    def awarded(self, award: Award) -> WagerResult | None:
        """The jackpot wager ``award`` (one of ``jackpot.awards``, keyed by wager id) paid,
        whose ``spot`` names the winning seat or standing area (BAC-15, BAC-17); ``None`` if
        the round had no such wager."""
        return self.line(award.box)

    def for_player(self, player: str) -> tuple[WagerResult, ...]:
        """The results of ``player``'s wagers, in wager order."""
        return tuple(x for x in self.lines if x.player == player)

    @property
    def seed_funding(self) -> int:
        """What the house put into the meter for its restart (BAC-17.4), 0 if none."""
        return self.jackpot.seed_funding if self.jackpot is not None else 0

    @property
    def players(self) -> int:
        """Players' net: paid out minus new stakes (carried-in stakes were staked before)."""
        return sum(x.paid - (0 if x.carried_in else x.stake) for x in self.lines)

    @property
    def carried(self) -> int:
        """The carried-wager account's net: carried out minus carried in."""
        return sum(x.carried - (x.stake if x.carried_in else 0) for x in self.lines)

    @property
    def commission(self) -> int:
        """Commission taken (BAC-18)."""
        return sum(x.commission for x in self.lines)

    @property
    def house(self) -> int:
        """The house's net: the table bank's, less what it funded (fixed awards, top-ups, the
        meter's restart)."""
        return (
            sum(x.house for x in self.lines)
            - sum(x.award_from_house for x in self.lines)
            - self.seed_funding
        )

    @property
    def meter(self) -> int:
        """The meter's net: contributions − awards from it + seed funding."""
        return (
            sum(x.meter for x in self.lines)
            - sum(x.award_from_meter for x in self.lines)
            + self.seed_funding
        )

    @property
    def balance(self) -> int:
        """Always 0: money is only moved, never made."""
        return self.players + self.carried + self.commission + self.house + self.meter

    def postings(self) -> tuple[Posting, ...]:
        """The ledger postings of this settlement (:func:`macau_tables.ledger.settlement`)."""
        return settlement_postings(self.lines, seed_funding=self.seed_funding)


def check_meter(rules: BaccaratRules, meter: object, *, needed: bool) -> Meter | None:
    """``meter`` if it is this table's jackpot meter (BAC-17, meter rules as CSP-10.8), ``None``
    when none is given and none is ``needed``.

    Refuses (``RuleViolation`` BAC-17): a missing meter when ``needed`` (the round has jackpot
    wagers); something that is not a :class:`~macau_tables.jackpot.Meter`; a meter whose seed is
    not the table's ``jackpot_seed`` (another table's meter).
    """
    if meter is None:
        if needed:
            raise RuleViolation("BAC-17", "baccarat.meter_needed")
        return None
    if not isinstance(meter, Meter):
        raise RuleViolation("BAC-17", "baccarat.not_a_meter", meter=repr(meter))
    if meter.seed != rules.jackpot_seed:
        raise RuleViolation(
            "BAC-17", "baccarat.meter_seed", seed=meter.seed, table_seed=rules.jackpot_seed
        )
    return meter


def settle_round(
    rules: BaccaratRules, wagers: Sequence[Wager], result: RoundResult, meter: object = None
) -> RoundSettlement:
    """Settle every wager of ``wagers`` on ``result``; ``meter`` is the table's jackpot meter as
    it stands before this round's contributions.

    Returns the :class:`RoundSettlement` (lines in ``wagers`` order). With jackpot wagers their
    contributions are credited first, then the round's highest combination (BAC-13.4) pays
    (BAC-17). Refuses (``RuleViolation`` BAC-17) a meter :func:`check_meter` refuses.
    """
    jackpot_wagers = [w for w in wagers if w.kind is WagerKind.JACKPOT]
    given = check_meter(rules, meter, needed=bool(jackpot_wagers))
    ids = tuple(w.wager_id for w in wagers)
    if not jackpot_wagers or given is None:
        return RoundSettlement(tuple(settle_wager(rules, w, result) for w in wagers), ids)
    contributions = sum(
        split_contribution(w.amount, rules.jackpot_contribution)[0] for w in jackpot_wagers
    )
    # This round's contributions are credited before its jackpot pays (documented choice).
    combo = jackpot_combination(result)
    jackpot = resolve_baccarat(
        given.credit(contributions),
        combo,
        [w.wager_id for w in jackpot_wagers],
        rules.jackpot_fixed_awards,
    )
    awards = {a.box: a for a in jackpot.awards}
    lines: list[WagerResult] = []
    for w in wagers:
        award = awards.get(w.wager_id) if w.kind is WagerKind.JACKPOT else None
        split = AwardSplit(award.from_meter, award.from_house) if award is not None else None
        lines.append(settle_wager(rules, w, result, split))
    return RoundSettlement(tuple(lines), ids, combo, jackpot, given, jackpot.meter_after)


def void_settlement(wagers: Iterable[Wager]) -> RoundSettlement:
    """Every wager of ``wagers`` handed back whole (BAC-10: a void round)."""
    wagers = tuple(wagers)
    return RoundSettlement(tuple(returned(w) for w in wagers), tuple(w.wager_id for w in wagers))
