"""A baccarat table's rules object: every setting in one frozen, validated value.

:class:`ShoeSettings` holds the shoe procedure (BAC-1 … BAC-3, BAC-7.2, BAC-8);
:class:`BaccaratRules` holds it with the wagers, limits, paytable options, tie options,
card holding and jackpot settings. Both are validated on construction: a bad setting raises
:class:`~macau_tables.errors.ConfigError` naming the field.

Which settings are "options" needing the regulator's approval (BAC-19, amendments; decided and
documented — see :meth:`BaccaratRules.options_requiring_approval`):

* BAC-2.1 burn rule: the law's first rule (burn as many cards as there are decks) is the
  baseline; burning by the first card's value, and the fixed burn of 83/2011, are options.
* BAC-2.2 demonstration rounds (``demo_rounds`` > 0).
* BAC-2.3 / BAC-7.2 the automatic shuffling-and-dealing machine.
* BAC-3.1 "one more round" after the cut card (the baseline: the cut card's round is the last).
* BAC-12 tie choices other than the baseline "left" (a new round decides the wager):
  withdraw, reduce, switch side.
* BAC-13.1(4) the additional wagers: banker pair / player pair *and* the progressive jackpot
  (the Chinese Article 13(1)(4) lists both; BAC-19 names that item).
* 56/2018 Lucky 6; 73/2005 the no-commission option.
* BAC-17.7 every fixed jackpot award (heavenly straight, four of a kind, double pair, three of
  a kind, single pair), each for its value.

Per-round burns (BAC-8) and card holding (BAC-16) are house decisions the law does not put
under BAC-19; the cut card's position (≥ 12 behind) and the number of decks are requirements,
not options.
"""

from __future__ import annotations

import reprlib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import Final, TypeVar

from ..approvals import Approval, ApprovalRequirement, check_approvals
from ..errors import ConfigError
from ..jackpot import Combination, Meter
from ..paytable import PayLine, PayNote, Payout, Paytable
from ..timings import CYCLE_FIELDS, check_cycle_settings

__all__ = [
    "ALL_WAGERS",
    "BACCARAT_JACKPOT_COMBINATIONS",
    "COMMISSION_DIVISOR",
    "MAIN_WAGERS",
    "MAX_DECKS",
    "MIN_CUT_CARD_BEHIND",
    "MIN_DECKS",
    "MIN_SEATS",
    "RULES_CODEC_TYPES",
    "BaccaratRules",
    "BurnRule",
    "CommissionMode",
    "LastRoundRule",
    "ShoeSettings",
    "TieOption",
    "WagerKind",
    "WagerLimit",
    "default_limits",
]

E = TypeVar("E", bound=StrEnum)

MIN_DECKS: Final = 6
MAX_DECKS: Final = 12
"""BAC-1: six to twelve decks of 52 cards."""

MIN_CUT_CARD_BEHIND: Final = 12
"""BAC-2.1: the cut card goes in with at least (about) 12 cards behind it; never fewer here."""

MIN_SEATS: Final = 7
"""BAC-1: a table with seven or more seats."""

MAX_DEMO_ROUNDS: Final = 3
"""BAC-2.2: at most three demonstration rounds at the start of a shoe."""

COMMISSION_DIVISOR: Final = 20
"""BAC-18: the commission is 5 % = 1/20 of the banker wager's win."""

BACCARAT_JACKPOT_COMBINATIONS: Final[tuple[Combination, ...]] = (
    Combination.ROYAL_FLUSH,
    Combination.HEAVENLY_STRAIGHT,
    Combination.FOUR_OF_A_KIND,
    Combination.DOUBLE_PAIR,
    Combination.THREE_OF_A_KIND,
    Combination.SINGLE_PAIR,
)
"""BAC-13.4, highest first: only the highest combination of a round pays."""

_FIXED_AWARD_COMBINATIONS: Final = BACCARAT_JACKPOT_COMBINATIONS[1:]


class WagerKind(StrEnum):
    """The wagers of BAC-13 (and Lucky 6 of 56/2018). The value is a stable ledger key."""

    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"
    BANKER_PAIR = "banker_pair"
    PLAYER_PAIR = "player_pair"
    LUCKY_6 = "lucky_6"
    JACKPOT = "jackpot"


MAIN_WAGERS: Final = frozenset({WagerKind.PLAYER, WagerKind.BANKER, WagerKind.TIE})
"""BAC-13: the wagers every table offers."""
ALL_WAGERS: Final = frozenset(WagerKind)


class BurnRule(StrEnum):
    """BAC-2.1 (and 83/2011): how many cards are burned at the start of a shoe."""

    DECKS = "decks"  # as many cards as there are decks
    FIRST_CARD = "first_card"  # the first card's value (A=1 … 10/J/Q/K=10), plus the first card
    FIXED = "fixed"  # a fixed number 1..8 set by the house (83/2011)


class LastRoundRule(StrEnum):
    """BAC-3.1: when the cut card comes out, that round is the last, or one more is dealt."""

    THIS_ROUND = "this_round"
    ONE_MORE = "one_more"


class CommissionMode(StrEnum):
    """BAC-18: 5 % commission on banker wins, or (73/2005) none with a banker 6 paying 50 %."""

    STANDARD = "standard"
    NO_COMMISSION = "no_commission"


class TieOption(StrEnum):
    """BAC-12: what a banker/player wager may do before the round after a tie."""

    WITHDRAW = "withdraw"  # (1) taken back
    LEAVE = "leave"  # (2) left as it is: the next round decides it
    REDUCE = "reduce"  # (3) changed: reduced
    SWITCH = "switch"  # (3) changed: moved from player to banker or back


def _int(value: object, name: str, *, minimum: int) -> int:
    """``value`` if it is an ``int`` (not a bool) of at least ``minimum``; otherwise a
    :class:`ConfigError` naming the field ``name``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError("shoe.setting_not_integer", field=name, value=reprlib.repr(value))
    if value < minimum:
        raise ConfigError("shoe.setting_below_minimum", field=name, minimum=minimum, value=value)
    return value


def _bool(value: object, name: str) -> bool:
    """``value`` if it is a ``bool``; otherwise a :class:`ConfigError` naming the field."""
    if not isinstance(value, bool):
        raise ConfigError("shoe.setting_not_bool", field=name, value=reprlib.repr(value))
    return value


@dataclass(frozen=True, slots=True)
class ShoeSettings:
    """The shoe procedure of a table (BAC-1 … BAC-3, BAC-7.2, BAC-8).

    * ``decks``: 6..12 (BAC-1), default 8;
    * ``cut_card_behind``: cards behind the cut card, at least 12 (BAC-2.1);
    * ``burn_rule`` / ``fixed_burn``: BAC-2.1; ``fixed_burn`` is 1..8 with ``BurnRule.FIXED``
      (83/2011) and must be 0 otherwise;
    * ``last_round``: BAC-3.1;
    * ``demo_rounds``: how many demonstration rounds the house may deal at the start of a
      shoe, 0..3 (BAC-2.2);
    * ``per_round_burn``: the house may burn cards at the start of any round (BAC-8);
    * ``machine``: the automatic shuffling-and-dealing machine (BAC-2.3, BAC-7.2): no cut, no
      burn, every round dealt from the full set.

    Raises :class:`ConfigError` naming the field otherwise.
    """

    decks: int = 8
    cut_card_behind: int = 14
    burn_rule: BurnRule = BurnRule.DECKS
    fixed_burn: int = 0
    last_round: LastRoundRule = LastRoundRule.THIS_ROUND
    demo_rounds: int = 0
    per_round_burn: bool = False
    machine: bool = False

    def __post_init__(self) -> None:
        decks = _int(self.decks, "decks", minimum=MIN_DECKS)
        if decks > MAX_DECKS:
            raise ConfigError("shoe.decks_range", minimum=MIN_DECKS, maximum=MAX_DECKS, value=decks)
        behind = _int(self.cut_card_behind, "cut_card_behind", minimum=MIN_CUT_CARD_BEHIND)
        if behind > decks * 52 - 60:
            raise ConfigError("shoe.cut_card_behind_too_many", value=behind)
        burn_rule = _enum(BurnRule, self.burn_rule, "burn_rule", "BAC-2.1")
        object.__setattr__(self, "burn_rule", burn_rule)
        last_round = _enum(LastRoundRule, self.last_round, "last_round", "BAC-3.1")
        object.__setattr__(self, "last_round", last_round)
        fixed = _int(self.fixed_burn, "fixed_burn", minimum=0)
        if burn_rule is BurnRule.FIXED and not 1 <= fixed <= 8:
            raise ConfigError("shoe.fixed_burn_range", value=fixed)
        if burn_rule is not BurnRule.FIXED and fixed:
            raise ConfigError("shoe.fixed_burn_unused", value=fixed)
        demo = _int(self.demo_rounds, "demo_rounds", minimum=0)
        if demo > MAX_DEMO_ROUNDS:
            raise ConfigError("shoe.demo_rounds_max", maximum=MAX_DEMO_ROUNDS, value=demo)
        _bool(self.per_round_burn, "per_round_burn")
        _bool(self.machine, "machine")

    @property
    def cards(self) -> int:
        """How many cards the shoe holds: ``decks × 52``."""
        return self.decks * 52


def _enum(cls: type[E], value: object, name: str, rule: str) -> E:
    """``value`` as a member of ``cls`` (a member or its value); otherwise a
    :class:`ConfigError` naming the field ``name``, the values allowed and the ``rule``."""
    if isinstance(value, cls):
        return value
    if isinstance(value, str) and value in {m.value for m in cls}:
        return cls(value)
    raise ConfigError(
        "shoe.setting_not_one_of",
        field=name,
        allowed=", ".join(m.value for m in cls),
        value=reprlib.repr(value),
        rule=rule,
    )


def _items(value: object, name: str) -> list[tuple[object, object]]:
    """The ``(key, value)`` pairs of ``value`` if it is a mapping; otherwise a
    :class:`ConfigError` naming the field."""
    if not isinstance(value, Mapping):
        raise ConfigError("shoe.setting_not_mapping", field=name, value=reprlib.repr(value))
    return list(value.items())


def _members(value: object, name: str) -> list[object]:
    """The members of ``value`` if it is a collection (not a text); otherwise a
    :class:`ConfigError` naming the field."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise ConfigError("shoe.setting_not_collection", field=name, value=reprlib.repr(value))
    return list(value)


@dataclass(frozen=True, slots=True)
class WagerLimit:
    """The table limits (限紅) of one wager kind: ``minimum`` … ``maximum`` per betting area."""

    minimum: int
    maximum: int

    def __post_init__(self) -> None:
        _int(self.minimum, "limit minimum", minimum=1)
        _int(self.maximum, "limit maximum", minimum=1)
        if self.maximum < self.minimum:
            raise ConfigError(
                "shoe.limit_maximum_below_minimum", maximum=self.maximum, minimum=self.minimum
            )


def default_limits(
    unit: int = 100, kinds: Collection[WagerKind] | None = None
) -> Mapping[WagerKind, WagerLimit]:
    """Example limits for ``kinds`` (default: the main wagers player, banker, tie only): main
    wagers 1..1000 units, tie and side wagers 1..100 units, the jackpot wager 1 unit."""
    wanted = MAIN_WAGERS if kinds is None else frozenset(kinds)
    limits = {
        WagerKind.PLAYER: WagerLimit(unit, 1000 * unit),
        WagerKind.BANKER: WagerLimit(unit, 1000 * unit),
        WagerKind.TIE: WagerLimit(unit, 100 * unit),
        WagerKind.BANKER_PAIR: WagerLimit(unit, 100 * unit),
        WagerKind.PLAYER_PAIR: WagerLimit(unit, 100 * unit),
        WagerKind.LUCKY_6: WagerLimit(unit, 100 * unit),
        WagerKind.JACKPOT: WagerLimit(unit, unit),
    }
    return MappingProxyType({k: v for k, v in limits.items() if k in wanted})


@dataclass(frozen=True, slots=True)
class BaccaratRules:
    """Everything a baccarat table is configured with. Frozen; validated on construction.

    Amounts are ``int`` minor units. Fields:

    * ``shoe``: :class:`ShoeSettings`;
    * ``bet_unit``: every wager is a whole multiple of it (BAC-18). With the 5 % commission it
      must be a multiple of 20, with the no-commission option a multiple of 2, so that the
      commission (1/20) and the 50 % payout are exact — no rounding anywhere;
    * ``limits``: per wager kind, the minimum and maximum per betting area; a kind that is
      missing is not offered (player, banker and tie are always required, BAC-13);
    * ``max_difference``: BAC-14, the most by which the total banker and total player wagers
      may differ (``None``: no limit beyond the per-area ones);
    * ``commission``: :class:`CommissionMode` (BAC-18);
    * ``tie_options``: the BAC-12 choices the table allows (non-empty);
    * ``seats`` (≥ 7, BAC-1) and ``standing_areas`` (BAC-15);
    * ``card_holding`` and ``holding_timeout_seconds`` (BAC-16);
    * ``jackpot_wager``: the fixed jackpot wager amount; ``jackpot_contribution`` (exact
      ``Fraction``), ``jackpot_seed``, ``jackpot_fixed_awards`` (BAC-17: heavenly straight,
      four of a kind, double pair, three of a kind, single pair);
    * ``approvals``: the regulator's :class:`~macau_tables.approvals.Approval` records;
    * ``betting_seconds`` (15), ``result_seconds`` (5), ``idle_after_rounds`` (3),
      ``countdown_closes`` (``True``): the table's round cycle (:mod:`macau_tables.timings`).
    """

    shoe: ShoeSettings = field(default_factory=ShoeSettings)
    bet_unit: int = 100
    limits: Mapping[WagerKind, WagerLimit] = field(default_factory=default_limits)
    max_difference: int | None = None
    commission: CommissionMode = CommissionMode.STANDARD
    tie_options: frozenset[TieOption] = frozenset({TieOption.LEAVE})
    seats: int = MIN_SEATS
    standing_areas: int = 4
    card_holding: bool = False
    holding_timeout_seconds: int = 30
    jackpot_wager: int = 100
    jackpot_contribution: Fraction = Fraction(1, 2)
    jackpot_seed: int = 1_000_000
    jackpot_fixed_awards: Mapping[Combination, int] = field(
        default_factory=lambda: MappingProxyType(
            {
                Combination.HEAVENLY_STRAIGHT: 500_000,
                Combination.FOUR_OF_A_KIND: 200_000,
                Combination.DOUBLE_PAIR: 20_000,
                Combination.THREE_OF_A_KIND: 10_000,
                Combination.SINGLE_PAIR: 500,
            }
        )
    )
    approvals: tuple[Approval, ...] = ()
    betting_seconds: int = 15
    result_seconds: int = 5
    idle_after_rounds: int = 3
    countdown_closes: bool = True

    __codec_omit_default__ = CYCLE_FIELDS  # (a class attribute, not a field)

    def __post_init__(self) -> None:
        if not isinstance(self.shoe, ShoeSettings):
            raise ConfigError("shoe.rules_shoe_not_settings", value=reprlib.repr(self.shoe))
        unit = _int(self.bet_unit, "bet_unit", minimum=1)
        mode = _enum(CommissionMode, self.commission, "commission", "BAC-18")
        object.__setattr__(self, "commission", mode)
        # BAC-18: "bet amounts are whole multiples of the bet unit, so every payout is exact".
        if mode is CommissionMode.STANDARD and unit % COMMISSION_DIVISOR:
            raise ConfigError("shoe.bet_unit_commission", unit=unit, need=COMMISSION_DIVISOR)
        if mode is CommissionMode.NO_COMMISSION and unit % 2:
            raise ConfigError("shoe.bet_unit_no_commission", unit=unit, need=2)
        object.__setattr__(self, "limits", MappingProxyType(self._checked_limits(unit)))
        limits = self.limits
        if self.max_difference is not None:
            _int(self.max_difference, "max_difference", minimum=0)
        options = frozenset(
            _enum(TieOption, o, "tie_options", "BAC-12")
            for o in _members(self.tie_options, "tie_options")
        )
        if not options:
            raise ConfigError("shoe.tie_options_empty")
        object.__setattr__(self, "tie_options", options)
        _int(self.seats, "seats", minimum=MIN_SEATS)
        _int(self.standing_areas, "standing_areas", minimum=0)
        if _bool(self.card_holding, "card_holding") and self.shoe.machine:
            # BAC-7.2: the machine deals every card face up, so nobody can hold them.
            raise ConfigError("shoe.card_holding_with_machine")
        _int(self.holding_timeout_seconds, "holding_timeout_seconds", minimum=1)
        check_cycle_settings(
            self.betting_seconds,
            self.result_seconds,
            self.idle_after_rounds,
            self.countdown_closes,
        )
        jw = _int(self.jackpot_wager, "jackpot_wager", minimum=1)
        if jw % unit:
            raise ConfigError("shoe.jackpot_wager_not_multiple", value=jw, unit=unit)
        if WagerKind.JACKPOT in limits and not (
            limits[WagerKind.JACKPOT].minimum <= jw <= limits[WagerKind.JACKPOT].maximum
        ):
            raise ConfigError("shoe.jackpot_wager_outside_limits", value=jw)
        share = self.jackpot_contribution
        if isinstance(share, bool) or not isinstance(share, int | Fraction):
            raise ConfigError("shoe.contribution_not_fraction", value=reprlib.repr(share))
        if not 0 <= share <= 1:
            raise ConfigError("shoe.contribution_range", value=str(share))
        object.__setattr__(self, "jackpot_contribution", Fraction(share))
        _int(self.jackpot_seed, "jackpot_seed", minimum=0)
        awards = self._checked_awards()
        if WagerKind.JACKPOT in limits:
            missing = [c.value for c in _FIXED_AWARD_COMBINATIONS if c not in awards]
            if missing:
                raise ConfigError("shoe.fixed_awards_missing", missing=", ".join(missing))
        object.__setattr__(self, "jackpot_fixed_awards", MappingProxyType(awards))
        approvals = tuple(_members(self.approvals, "approvals"))
        for a in approvals:
            if not isinstance(a, Approval):
                raise ConfigError("shoe.bad_approval", value=reprlib.repr(a))
        object.__setattr__(self, "approvals", approvals)

    def _checked_limits(self, unit: int) -> dict[WagerKind, WagerLimit]:
        """The limits by wager kind; refuses (ConfigError) a bad kind (BAC-13), a limit that is
        not a :class:`WagerLimit` or not a multiple of the bet unit, and a missing main wager."""
        limits: dict[WagerKind, WagerLimit] = {}
        for kind, limit in _items(self.limits, "limits"):
            k = _enum(WagerKind, kind, "limits key", "BAC-13")
            if not isinstance(limit, WagerLimit):
                raise ConfigError("shoe.limit_not_wager_limit", kind=k, value=reprlib.repr(limit))
            for bound in (limit.minimum, limit.maximum):
                if bound % unit:
                    raise ConfigError("shoe.limit_not_multiple", kind=k, bound=bound, unit=unit)
            limits[k] = limit
        for k in sorted(MAIN_WAGERS):
            if k not in limits:
                raise ConfigError("shoe.main_wager_missing", kind=k)
        return limits

    def _checked_awards(self) -> dict[Combination, int]:
        """The fixed jackpot awards; refuses (ConfigError) a combination that has none in
        baccarat (BAC-17) and an amount that is not an ``int`` ≥ 0."""
        awards: dict[Combination, int] = {}
        for combo, amount in _items(self.jackpot_fixed_awards, "jackpot_fixed_awards"):
            c = _enum(Combination, combo, "jackpot_fixed_awards key", "BAC-17")
            if c not in _FIXED_AWARD_COMBINATIONS:
                raise ConfigError("shoe.no_fixed_award", combination=c)
            awards[c] = _int(amount, f"jackpot fixed award {c}", minimum=0)
        return awards

    # -- wagers ----------------------------------------------------------------------------

    def offers(self, kind: WagerKind) -> bool:
        """True when the table offers the wager ``kind`` (it has limits for it)."""
        return kind in self.limits

    def paytable(self) -> Paytable:
        """What the table pays, as its page and the jackpot display show it: the wagers it
        offers (BAC-17.1–17.3; the banker by its commission option, BAC-18.1 or BAC-18.2;
        Lucky 6 by 56/2018) and, when it offers the jackpot, each combination (BAC-17.4–17.6)
        with this table's fixed awards; notes: a tie carries banker and player wagers
        (BAC-12), the jackpot wager's amount (BAC-13.4) and who funds a fixed award above the
        meter's share (BAC-17.5, CSP-10.8)."""
        # the odds where settlement takes them (bets imports this module: read at call time)
        from .bets import (
            EVEN_MONEY,
            LUCKY_6_THREE_CARD_ODDS,
            LUCKY_6_TWO_CARD_ODDS,
            PAIR_ODDS,
            TIE_ODDS,
        )
        from .jackpot_combos import HEAVENLY_STRAIGHT_METER_FRACTION

        odds = {
            WagerKind.TIE: TIE_ODDS,
            WagerKind.BANKER_PAIR: PAIR_ODDS,
            WagerKind.PLAYER_PAIR: PAIR_ODDS,
        }
        article = {
            WagerKind.TIE: "BAC-17.2",
            WagerKind.BANKER_PAIR: "BAC-17.3",
            WagerKind.PLAYER_PAIR: "BAC-17.3",
        }
        lines = [PayLine("wagers", "player", Payout.ODDS, "BAC-17.1", odds=EVEN_MONEY)]
        if self.commission is CommissionMode.STANDARD:
            commission = 100 // COMMISSION_DIVISOR
            lines.append(
                PayLine(
                    "wagers",
                    "banker",
                    Payout.ODDS_LESS_COMMISSION,
                    "BAC-18.1",
                    odds=EVEN_MONEY,
                    percent=commission,
                )
            )
        else:
            lines.append(PayLine("wagers", "banker", Payout.ODDS, "BAC-17.1", odds=EVEN_MONEY))
            lines.append(PayLine("wagers", "banker_six", Payout.PERCENT, "BAC-18.2", percent=50))
        for kind in (WagerKind.TIE, WagerKind.BANKER_PAIR, WagerKind.PLAYER_PAIR):
            if self.offers(kind):
                lines.append(
                    PayLine("wagers", kind.value, Payout.ODDS, article[kind], odds=odds[kind])
                )
        if self.offers(WagerKind.LUCKY_6):
            two, three = LUCKY_6_TWO_CARD_ODDS, LUCKY_6_THREE_CARD_ODDS
            lines.append(PayLine("wagers", "lucky_6_two_cards", Payout.ODDS, "56/2018", odds=two))
            lines.append(
                PayLine("wagers", "lucky_6_three_cards", Payout.ODDS, "56/2018", odds=three)
            )
        notes = [PayNote("wagers", "tie_carries", "BAC-12")]
        if self.offers(WagerKind.JACKPOT):
            awards = self.jackpot_fixed_awards
            lines.append(PayLine("jackpot", "royal_flush", Payout.METER_SHARED, "BAC-17.4"))
            lines.append(
                PayLine(
                    "jackpot",
                    "heavenly_straight",
                    Payout.FIXED_OR_METER_SHARED,
                    "BAC-17.5",
                    amount=awards[Combination.HEAVENLY_STRAIGHT],
                    percent=int(HEAVENLY_STRAIGHT_METER_FRACTION * 100),
                )
            )
            for combo in _FIXED_AWARD_COMBINATIONS[1:]:
                lines.append(
                    PayLine("jackpot", combo.value, Payout.FIXED, "BAC-17.6", amount=awards[combo])
                )
            notes.append(
                PayNote("jackpot", "highest_combination", "BAC-13.4", amount=self.jackpot_wager)
            )
            notes.append(PayNote("jackpot", "house_funds_difference", "BAC-17.5"))
        return Paytable(tuple(lines), tuple(notes))

    def new_meter(self) -> Meter:
        """A jackpot meter standing at this table's seed."""
        return Meter.seeded(self.jackpot_seed)

    # -- approvals (BAC-19) ----------------------------------------------------------------

    def options_requiring_approval(self) -> list[ApprovalRequirement]:
        """Options in use that need the regulator's prior approval (BAC-19, the amendments and
        BAC-17.7); see the module docstring for what counts as an option.

        Returns ``[(option key, value, rule id, description)]`` in a stable order.
        """
        s = self.shoe
        out: list[ApprovalRequirement] = []

        def need(option: str, value: object, rule: str, description: str) -> None:
            out.append(ApprovalRequirement(option, value, rule, description))

        if s.burn_rule is BurnRule.FIRST_CARD:
            need("bac.burn_rule", "first_card", "BAC-19", "burn by the first card (BAC-2.1)")
        elif s.burn_rule is BurnRule.FIXED:
            need(
                "bac.burn_rule",
                f"fixed:{s.fixed_burn}",
                "BAC-19",
                f"fixed burn of {s.fixed_burn} cards (BAC-2.1, 83/2011)",
            )
        if s.demo_rounds:
            need("bac.demo_rounds", s.demo_rounds, "BAC-19", "demonstration rounds (BAC-2.2)")
        if s.machine:
            need("bac.machine", True, "BAC-19", "automatic shuffling-and-dealing machine (BAC-2.3)")
        if s.last_round is LastRoundRule.ONE_MORE:
            need(
                "bac.last_round",
                "one_more",
                "BAC-19",
                "one more round after the cut card (BAC-3.1)",
            )
        if self.tie_options != frozenset({TieOption.LEAVE}):
            value = ",".join(sorted(o.value for o in self.tie_options))
            need("bac.tie_options", value, "BAC-19", f"tie choices {value} (BAC-12)")
        for kind in (WagerKind.BANKER_PAIR, WagerKind.PLAYER_PAIR):
            if self.offers(kind):
                need(f"bac.{kind.value}", True, "BAC-19", f"{kind.value} wager (BAC-13.1(4))")
        if self.offers(WagerKind.JACKPOT):
            need("bac.jackpot", True, "BAC-19", "progressive jackpot (BAC-13.4)")
            for combo in _FIXED_AWARD_COMBINATIONS:
                amount = self.jackpot_fixed_awards[combo]
                need(
                    f"bac.fixed_award.{combo.value}",
                    amount,
                    "BAC-17",
                    f"fixed jackpot award for {combo.value}: {amount} (BAC-17.7)",
                )
        if self.offers(WagerKind.LUCKY_6):
            need("bac.lucky_6", True, "BAC-19", "Lucky 6 wager (56/2018)")
        if self.commission is CommissionMode.NO_COMMISSION:
            need("bac.no_commission", True, "BAC-19", "no commission, banker 6 pays 50% (73/2005)")
        return out

    def check_approvals(
        self, opening_date: date, holidays: Collection[date] = ()
    ) -> tuple[Approval, ...]:
        """Refuse (``RuleViolation`` BAC-19 / BAC-17) to open on ``opening_date`` without a
        valid, effective approval for every option in use; returns the approvals relied on."""
        return check_approvals(
            self.options_requiring_approval(), self.approvals, opening_date, holidays
        )


RULES_CODEC_TYPES: tuple[type, ...] = (
    BaccaratRules,
    ShoeSettings,
    WagerLimit,
    # enums, stored by value
    BurnRule,
    LastRoundRule,
    CommissionMode,
    TieOption,
    WagerKind,
)
"""The rules object and its nested setting types, for the codec (``baccarat.BaccaratRules`` …).
The approvals (:class:`~macau_tables.approvals.Approval`) and the jackpot
:class:`~macau_tables.jackpot.Combination` keys are core types. Inside an event the rules are
written by reference (``config_id`` and SHA-256), see :mod:`macau_tables.codec`."""
