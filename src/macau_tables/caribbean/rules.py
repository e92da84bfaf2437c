"""A Caribbean Stud table's rules object: every setting in one frozen, validated value.

:class:`CaribbeanRules` holds the table settings the law leaves to the house (bet unit, limits,
jackpot amounts, dealing procedure, the royal-flush odds option, ...) next to the paytable the law
fixes (CSP-9.5). It is validated on construction: a bad setting raises
:class:`~macau_tables.errors.ConfigError` naming the field, so no table can run on one.

Interpretation (CSP-13, decided and documented): the royal-flush odds of CSP-9.5 (50:1 … 100:1)
are the option of CSP-13. The law gives no default, so *every* setting in 50..100 needs an
approval record for that value; :meth:`CaribbeanRules.options_requiring_approval` lists it and
:meth:`CaribbeanRules.check_approvals` refuses to open without it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, fields
from datetime import date
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import Final

from ..approvals import Approval, ApprovalRequirement, check_approvals
from ..errors import ConfigError
from ..jackpot import STRAIGHT_FLUSH_METER_FRACTION, Combination, Meter
from ..paytable import PayLine, PayNote, Payout, Paytable
from ..timings import CYCLE_FIELDS, check_cycle_settings
from .hands import HandCategory

__all__ = [
    "BOXES",
    "CAPPED_CATEGORIES",
    "FIXED_RAISE_ODDS",
    "ROYAL_FLUSH_ODDS_OPTION",
    "CaribbeanRules",
    "DealingProcedure",
    "JackpotFixedAwards",
    "jackpot_combination",
]

BOXES: Final = 7
"""CSP-2: eight positions including the dealer, i.e. seven player boxes."""

ROYAL_FLUSH_ODDS_OPTION: Final = "royal_flush_odds"
"""The option key of CSP-13 (the royal-flush odds of CSP-9.5)."""

FIXED_RAISE_ODDS: Final[Mapping[HandCategory, int]] = MappingProxyType(
    {
        # CSP-9.5: fixed by law; the royal flush (50..100) is a table setting.
        HandCategory.HIGH_CARD: 1,
        HandCategory.ONE_PAIR: 1,
        HandCategory.TWO_PAIR: 2,
        HandCategory.THREE_OF_A_KIND: 3,
        HandCategory.STRAIGHT: 4,
        HandCategory.FLUSH: 5,
        HandCategory.FULL_HOUSE: 7,
        HandCategory.FOUR_OF_A_KIND: 20,
        HandCategory.STRAIGHT_FLUSH: 50,
    }
)
"""The raise odds fixed by CSP-9.5 (``n`` means n:1), every category except the royal flush."""

CAPPED_CATEGORIES: Final = frozenset(
    {HandCategory.FOUR_OF_A_KIND, HandCategory.STRAIGHT_FLUSH, HandCategory.ROYAL_FLUSH}
)
"""CSP-9.5: the raise's win on these is capped at the table's maximum payout per box."""

_RAISE_LINES: Final = (
    HandCategory.ONE_PAIR,
    HandCategory.TWO_PAIR,
    HandCategory.THREE_OF_A_KIND,
    HandCategory.STRAIGHT,
    HandCategory.FLUSH,
    HandCategory.FULL_HOUSE,
    HandCategory.FOUR_OF_A_KIND,
    HandCategory.STRAIGHT_FLUSH,
    HandCategory.ROYAL_FLUSH,
)
"""CSP-9.5 items (1)–(9), in order: (1) is "one pair or less"."""

_JACKPOT_OF_CATEGORY: Final[Mapping[HandCategory, Combination]] = MappingProxyType(
    {
        HandCategory.ROYAL_FLUSH: Combination.ROYAL_FLUSH,
        HandCategory.STRAIGHT_FLUSH: Combination.STRAIGHT_FLUSH,
        HandCategory.FOUR_OF_A_KIND: Combination.FOUR_OF_A_KIND,
        HandCategory.FULL_HOUSE: Combination.FULL_HOUSE,
        HandCategory.FLUSH: Combination.FLUSH,
    }
)


def jackpot_combination(category: HandCategory) -> Combination | None:
    """The jackpot combination a hand of ``category`` wins (CSP-10.2), or ``None``."""
    return _JACKPOT_OF_CATEGORY.get(category)


class DealingProcedure(StrEnum):
    """CSP-3 / CSP-7: how the cards are prepared and dealt (a table setting)."""

    SHOE = "shoe"
    """CSP-3(1), CSP-7.1: one card at a time to each box with a bet, dealer last, five rounds."""
    SHUFFLER = "shuffler"
    """CSP-3(2), CSP-7.2: five cards at a time to each box with a bet, dealer last."""


def _int(value: object, field: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError("caribbean.setting_not_int", field=field, value=repr(value))
    if value < minimum:
        raise ConfigError("caribbean.setting_too_small", field=field, minimum=minimum, value=value)
    return value


@dataclass(frozen=True, slots=True)
class JackpotFixedAwards:
    """The fixed jackpot awards of CSP-10.2/10.3, in minor units (table settings).

    Royal and straight flush pay at least these (or the meter share, whichever is higher);
    four of a kind, full house and flush pay exactly these, from the house.
    """

    royal_flush: int
    straight_flush: int
    four_of_a_kind: int
    full_house: int
    flush: int

    def __post_init__(self) -> None:
        for f in fields(self):
            _int(getattr(self, f.name), f"jackpot fixed award {f.name}", minimum=0)

    def as_mapping(self) -> Mapping[Combination, int]:
        """``{Combination: amount}`` for :func:`macau_tables.jackpot.resolve_caribbean`."""
        return MappingProxyType({Combination(f.name): getattr(self, f.name) for f in fields(self)})


@dataclass(frozen=True, slots=True)
class CaribbeanRules:
    """Everything a Caribbean Stud table is configured with. Frozen; validated on construction.

    Amounts are ``int`` minor units. Fields:

    * ``bet_unit``: every wager is a whole multiple of it (CSP-6.2);
    * ``ante_minimum`` / ``ante_maximum``: the ante limits (multiples of the unit);
    * ``jackpot_wager``: the fixed jackpot wager amount, a multiple of the unit (CSP-6.3);
    * ``royal_flush_odds``: 50..100 (CSP-9.5), the option that needs approval (CSP-13);
    * ``max_payout_per_box``: caps the raise's win for four of a kind, straight flush and royal
      flush, per box per round (CSP-9.5);
    * ``jackpot_fixed_awards``: :class:`JackpotFixedAwards` (CSP-10.3);
    * ``jackpot_contribution``: the share of each jackpot wager credited to the meter, an exact
      ``Fraction`` in 0..1 (e.g. ``Fraction(7000, 10_000)``); never a float;
    * ``jackpot_seed``: the meter's restart amount (CSP-10.8);
    * ``dealing_procedure``: :class:`DealingProcedure` (CSP-3, CSP-7);
    * ``decision_timeout_seconds``: an absent player's hand is folded after this (CSP-6.4);
    * ``betting_seconds`` (20), ``result_seconds`` (5), ``idle_after_rounds`` (3),
      ``countdown_closes`` (``True``): the table's round cycle (:mod:`macau_tables.timings`);
    * ``boxes``: 7 (CSP-2);
    * ``approvals``: the regulator's :class:`~macau_tables.approvals.Approval` records (CSP-13).

    Raises :class:`ConfigError` naming the field for any invalid or inconsistent setting.
    """

    bet_unit: int
    ante_minimum: int
    ante_maximum: int
    jackpot_wager: int
    royal_flush_odds: int
    max_payout_per_box: int
    jackpot_fixed_awards: JackpotFixedAwards
    jackpot_contribution: Fraction
    jackpot_seed: int
    dealing_procedure: DealingProcedure = DealingProcedure.SHUFFLER
    decision_timeout_seconds: int = 30
    boxes: int = BOXES
    approvals: tuple[Approval, ...] = ()
    betting_seconds: int = 20
    result_seconds: int = 5
    idle_after_rounds: int = 3
    countdown_closes: bool = True

    __codec_omit_default__ = CYCLE_FIELDS  # (a class attribute, not a field)

    def __post_init__(self) -> None:
        unit = _int(self.bet_unit, "bet_unit", minimum=1)
        for name in ("ante_minimum", "ante_maximum", "jackpot_wager"):
            value = _int(getattr(self, name), name, minimum=1)
            if value % unit:
                raise ConfigError(
                    "caribbean.not_multiple_of_unit", field=name, value=value, unit=unit
                )
        if self.ante_maximum < self.ante_minimum:
            raise ConfigError(
                "caribbean.ante_limits_inverted",
                maximum=self.ante_maximum,
                minimum=self.ante_minimum,
            )
        odds = self.royal_flush_odds
        if isinstance(odds, bool) or not isinstance(odds, int):
            raise ConfigError("caribbean.royal_odds_not_int", value=repr(odds))
        if not 50 <= odds <= 100:
            raise ConfigError("caribbean.royal_odds_range", value=odds)
        _int(self.max_payout_per_box, "max_payout_per_box", minimum=1)
        if not isinstance(self.jackpot_fixed_awards, JackpotFixedAwards):
            raise ConfigError("caribbean.bad_fixed_awards", value=repr(self.jackpot_fixed_awards))
        share = self.jackpot_contribution
        if isinstance(share, bool) or not isinstance(share, int | Fraction):
            raise ConfigError("caribbean.contribution_not_fraction", value=repr(share))
        if not 0 <= share <= 1:
            raise ConfigError("caribbean.contribution_range", value=str(share))
        object.__setattr__(self, "jackpot_contribution", Fraction(share))
        _int(self.jackpot_seed, "jackpot_seed", minimum=0)
        if not isinstance(self.dealing_procedure, DealingProcedure):
            try:
                procedure = DealingProcedure(self.dealing_procedure)
            except ValueError as exc:
                raise ConfigError(
                    "caribbean.bad_dealing_procedure", value=repr(self.dealing_procedure)
                ) from exc
            object.__setattr__(self, "dealing_procedure", procedure)
        _int(self.decision_timeout_seconds, "decision_timeout_seconds", minimum=1)
        check_cycle_settings(
            self.betting_seconds,
            self.result_seconds,
            self.idle_after_rounds,
            self.countdown_closes,
        )
        if self.boxes != BOXES or isinstance(self.boxes, bool):
            raise ConfigError("caribbean.boxes_fixed", boxes=BOXES, value=repr(self.boxes))
        approvals = tuple(self.approvals)
        for a in approvals:
            if not isinstance(a, Approval):
                raise ConfigError("caribbean.bad_approval", value=repr(a))
        object.__setattr__(self, "approvals", approvals)

    # -- paytable --------------------------------------------------------------------------

    @property
    def uses_shuffler(self) -> bool:
        """The table deals from a shuffling machine (CSP-3(2)): after the machine failed, no
        round is dealt until it is recorded replaced (CSP-11.4)."""
        return self.dealing_procedure is DealingProcedure.SHUFFLER

    def raise_odds(self, category: HandCategory) -> int:
        """The raise's odds ``n`` (paid n:1) for a winning hand of ``category`` (CSP-9.5)."""
        if category == HandCategory.ROYAL_FLUSH:
            return self.royal_flush_odds
        return FIXED_RAISE_ODDS[HandCategory(category)]

    def raise_win(self, category: HandCategory, raise_amount: int) -> int:
        """What a winning raise of ``raise_amount`` wins (stake not included), capped at
        ``max_payout_per_box`` for four of a kind, straight flush and royal flush (CSP-9.5)."""
        win = self.raise_odds(category) * raise_amount
        if category in CAPPED_CATEGORIES:
            win = min(win, self.max_payout_per_box)
        return win

    def paytable(self) -> Paytable:
        """What the table pays, as its page and the jackpot display show it (CSP-10.3): the
        ante (CSP-9.2, CSP-9.5), the raise by hand (CSP-9.5(1)–(9)) with the cap of
        ``max_payout_per_box`` per box per round on items (7)–(9), and the jackpot by
        combination (CSP-10.2) with this table's fixed awards; notes: the dealer who does not
        qualify (CSP-9.2), the cap's reading (CSP-9.5), the royal flush's odds as the table's
        approved option (CSP-9.5(9), CSP-13), who funds a fixed award above the meter's share
        (CSP-10.8)."""
        lines = [PayLine("ante", "ante", Payout.ODDS, "CSP-9.5", odds=1)]
        for item, category in enumerate(_RAISE_LINES, start=1):
            odds, article = self.raise_odds(category), f"CSP-9.5({item})"
            term = "one_pair_or_less" if category is HandCategory.ONE_PAIR else category.name
            if category in CAPPED_CATEGORIES:
                line = PayLine(
                    "raise",
                    term.lower(),
                    Payout.ODDS_CAPPED,
                    article,
                    odds=odds,
                    amount=self.max_payout_per_box,
                )
            else:
                line = PayLine("raise", term.lower(), Payout.ODDS, article, odds=odds)
            lines.append(line)
        awards = self.jackpot_fixed_awards
        meter_share = {  # CSP-10.2(1)/(2): the whole meter, a tenth of it
            Combination.ROYAL_FLUSH: 100,
            Combination.STRAIGHT_FLUSH: int(STRAIGHT_FLUSH_METER_FRACTION * 100),
        }
        for item, (combo, amount) in enumerate(awards.as_mapping().items(), start=1):
            article = f"CSP-10.2({item})"
            if combo in meter_share:
                lines.append(
                    PayLine(
                        "jackpot",
                        combo.value,
                        Payout.FIXED_OR_METER,
                        article,
                        amount=amount,
                        percent=meter_share[combo],
                    )
                )
            else:
                lines.append(PayLine("jackpot", combo.value, Payout.FIXED, article, amount=amount))
        notes = (
            PayNote("ante", "dealer_not_qualified", "CSP-9.2"),
            PayNote("raise", "raise_cap", "CSP-9.5", amount=self.max_payout_per_box),
            PayNote("raise", "royal_flush_option", "CSP-13"),
            PayNote("jackpot", "jackpot_wager", "CSP-10.1", amount=self.jackpot_wager),
            PayNote("jackpot", "house_funds_difference", "CSP-10.8"),
        )
        return Paytable(tuple(lines), notes)

    # -- jackpot ---------------------------------------------------------------------------

    def new_meter(self) -> Meter:
        """A meter standing at this table's seed."""
        return Meter.seeded(self.jackpot_seed)

    # -- approvals (CSP-13) ----------------------------------------------------------------

    def options_requiring_approval(self) -> list[ApprovalRequirement]:
        """Options in use that need the regulator's prior approval (CSP-13).

        Returns ``[(option key, value, rule id, description)]``: the royal-flush odds, whatever
        their value (the law gives no default).
        """
        return [
            ApprovalRequirement(
                ROYAL_FLUSH_ODDS_OPTION,
                self.royal_flush_odds,
                "CSP-13",
                f"royal flush raise odds {self.royal_flush_odds}:1 (CSP-9.5 option)",
            )
        ]

    def check_approvals(
        self, opening_date: date, holidays: Collection[date] = ()
    ) -> tuple[Approval, ...]:
        """Refuse (``RuleViolation`` CSP-13) to open on ``opening_date`` without a valid,
        effective approval for every option in use; returns the approvals relied on."""
        return check_approvals(
            self.options_requiring_approval(), self.approvals, opening_date, holidays
        )
