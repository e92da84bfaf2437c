"""Progressive jackpot meters, contributions and award resolution (pure; both games).

Everything here is exact integer / :class:`fractions.Fraction` arithmetic on minor units; there
is no float anywhere. Nothing here touches a database: a :class:`JackpotResult` *describes* the
movements (meter → player, house → player, house → meter for the seed) so that the table service
can post them as balanced ledger entries.

Shared primitives (used by Caribbean Stud, CSP-10, and by Baccarat, BAC-17):

* :class:`Meter` — the meter's amount and its seed (restart minimum).
* :func:`split_contribution` — one jackpot wager → (meter share, house share), share rounded
  **down**, the remainder to the house.
* :func:`meter_portion` — ``floor(meter × fraction)``.
* :func:`share_equally` — ``amount`` among ``n`` winners → (each, remainder kept by the payer).
* :func:`award_each` — one winner's ``max(fixed, floor(meter × fraction))``, split into the part
  that comes out of the meter and the part the house adds up to the fixed award.
* :func:`award_shared` — ``max(fixed, floor(meter × fraction))`` as one pool shared equally by
  ``n`` winners (Baccarat's heavenly straight; its royal flush is ``fixed=0, fraction=1``).
* :func:`fixed_award` — a house-paid fixed award that leaves the meter alone.
* :func:`build_result` — assemble awards in payment order into a :class:`JackpotResult`
  (meter after, reset and seed funding), checking every invariant.
* :func:`resolve_caribbean` — the complete CSP-10 resolution for one Caribbean Stud round.

Rounding rule (SPEC CSP-10.8): every award is rounded down to a whole minor unit; what is not
paid stays in the meter. Contributions are rounded down per wager; the fraction goes to the house.

Reset rule (SPEC CSP-10.8): when an award takes the *whole* meter (a royal flush), the meter is
"paid out in full" and restarts from its seed. The seed is funded by the house
(:attr:`JackpotResult.seed_funding`, a house → meter movement). Fractions left over from sharing
the meter stay in it, on top of the seed: ``after = leftover + seed``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Literal

from .errors import ConfigError

__all__ = [
    "CARIBBEAN_JACKPOT_COMBINATIONS",
    "STRAIGHT_FLUSH_METER_FRACTION",
    "Award",
    "AwardSplit",
    "Combination",
    "JackpotResult",
    "Meter",
    "award_each",
    "award_shared",
    "build_result",
    "fixed_award",
    "meter_portion",
    "resolve_caribbean",
    "share_equally",
    "split_contribution",
]

STRAIGHT_FLUSH_METER_FRACTION = Fraction(1, 10)
"""CSP-10.2 / CSP-10.6: a straight flush pays at least 10 % of the meter."""


class Combination(StrEnum):
    """Jackpot-paying combinations of both games (the value is a stable ledger key)."""

    # Caribbean Stud (CSP-10.2) and Baccarat (BAC-13.4)
    ROYAL_FLUSH = "royal_flush"
    FOUR_OF_A_KIND = "four_of_a_kind"
    # Caribbean Stud only
    STRAIGHT_FLUSH = "straight_flush"
    FULL_HOUSE = "full_house"
    FLUSH = "flush"
    # Baccarat only (BAC-13.4)
    HEAVENLY_STRAIGHT = "heavenly_straight"
    DOUBLE_PAIR = "double_pair"
    THREE_OF_A_KIND = "three_of_a_kind"
    SINGLE_PAIR = "single_pair"


CARIBBEAN_JACKPOT_COMBINATIONS: tuple[Combination, ...] = (
    Combination.ROYAL_FLUSH,
    Combination.STRAIGHT_FLUSH,
    Combination.FOUR_OF_A_KIND,
    Combination.FULL_HOUSE,
    Combination.FLUSH,
)
"""The combinations that pay the Caribbean Stud jackpot (CSP-10.2), highest first."""


def _require_int(value: object, what: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError("core.jackpot_not_minor_units", what=what, value=repr(value))
    if value < minimum:
        raise ConfigError("core.jackpot_below_minimum", what=what, minimum=minimum, value=value)
    return value


def _require_fraction(value: object, what: str) -> Fraction:
    # int and Fraction are exact; a float is refused so no binary rounding sneaks in.
    if type(value) is Fraction:  # the usual case: itself (immutable), its range by its terms
        if not 0 <= value.numerator <= value.denominator:  # (the denominator is positive)
            raise ConfigError("core.jackpot_fraction_range", what=what, value=str(value))
        return value
    if isinstance(value, bool) or not isinstance(value, int | Fraction):
        raise ConfigError("core.jackpot_not_exact", what=what, value=repr(value))
    fraction = Fraction(value)
    if not 0 <= fraction <= 1:
        raise ConfigError("core.jackpot_fraction_range", what=what, value=str(fraction))
    return fraction


@dataclass(frozen=True, slots=True)
class Meter:
    """A progressive meter: ``amount`` now and the ``seed`` it restarts from (minor units).

    Refuses (``ConfigError``) amounts or seeds that are not non-negative ints.
    """

    amount: int
    seed: int

    def __post_init__(self) -> None:
        _require_int(self.amount, "meter_amount")
        _require_int(self.seed, "meter_seed")

    @classmethod
    def seeded(cls, seed: int) -> Meter:
        """A fresh meter standing at its seed."""
        return cls(seed, seed)

    def credit(self, amount: int) -> Meter:
        """The meter after ``amount`` (≥ 0) is added, e.g. contributions."""
        return Meter(self.amount + _require_int(amount, "meter_credit"), self.seed)


def split_contribution(wager: int, share: Fraction | int) -> tuple[int, int]:
    """Split one jackpot wager into ``(to_meter, to_house)``.

    ``to_meter = floor(wager × share)``; the rest (including the fraction of a minor unit) goes
    to the house, so ``to_meter + to_house == wager``. ``share`` is an exact rational in 0..1
    (e.g. ``Fraction(7, 10)``, or basis points as ``Fraction(bp, 10_000)``). Refuses floats and
    out-of-range values (``ConfigError``).
    """
    wager = _require_int(wager, "jackpot_wager")
    fraction = _require_fraction(share, "contribution_share")
    to_meter = wager * fraction.numerator // fraction.denominator
    return to_meter, wager - to_meter


def meter_portion(meter_amount: int, fraction: Fraction | int) -> int:
    """``floor(meter_amount × fraction)`` for an exact ``fraction`` in 0..1."""
    amount = _require_int(meter_amount, "meter_amount")
    f = _require_fraction(fraction, "meter_fraction")
    return amount * f.numerator // f.denominator


def share_equally(amount: int, winners: int) -> tuple[int, int]:
    """``amount`` shared equally by ``winners`` (≥ 1): returns ``(each, remainder)``.

    Each share is rounded down; ``each × winners + remainder == amount`` and the remainder stays
    with the payer (in the meter, for a meter amount).
    """
    amount = _require_int(amount, "amount_to_share")
    if isinstance(winners, bool) or not isinstance(winners, int) or winners < 1:
        raise ConfigError("core.jackpot_bad_winners", winners=repr(winners))
    return amount // winners, amount % winners


@dataclass(frozen=True, slots=True)
class AwardSplit:
    """Who funds one award: ``from_meter`` (lowers the meter) + ``from_house``."""

    from_meter: int
    from_house: int

    @property
    def amount(self) -> int:
        """The total paid to the winner."""
        return self.from_meter + self.from_house


def award_each(meter_amount: int, fraction: Fraction | int, fixed: int) -> AwardSplit:
    """One winner's ``max(fixed, floor(meter × fraction))``.

    The meter part ``floor(meter × fraction)`` always comes out of the meter; when the fixed
    award is higher the house pays the difference (SPEC CSP-10.8 interpretation).
    """
    fixed = _require_int(fixed, "fixed_award")
    part = meter_portion(meter_amount, fraction)
    return AwardSplit(part, max(0, fixed - part))


def award_shared(
    meter_amount: int, fraction: Fraction | int, fixed: int, winners: int
) -> tuple[AwardSplit, ...]:
    """A pool of ``max(fixed, floor(meter × fraction))`` shared equally by ``winners``.

    Returns one split per winner (all equal). Each winner's total is ``floor(pool / winners)``;
    each takes ``floor(meter part / winners)`` from the meter and the house pays the rest of their
    total. The meter keeps the remainder of the meter part. BAC-17: heavenly straight is
    ``fraction=1/10``; royal flush ("the whole meter shared equally") is ``fraction=1, fixed=0``.
    """
    fixed = _require_int(fixed, "fixed_award")
    meter_part = meter_portion(meter_amount, fraction)
    pool = max(fixed, meter_part)
    each_total, _ = share_equally(pool, winners)
    each_meter, _ = share_equally(meter_part, winners)
    return tuple(AwardSplit(each_meter, each_total - each_meter) for _ in range(winners))


def fixed_award(fixed: int) -> AwardSplit:
    """A fixed award paid wholly by the house; it does not lower the meter (CSP-10.8)."""
    return AwardSplit(0, _require_int(fixed, "fixed_award"))


@dataclass(frozen=True, slots=True)
class Award:
    """One jackpot award as paid: who (``box``), for what, how much, and who funded it.

    ``box`` keys the winning wager in its round's settlement: a Caribbean Stud box 1..7 or, in
    baccarat, the jackpot wager's id (not a seat). The winning place (``"box 3"``,
    ``"seat 2"``) is the ``spot`` of the wager result the settlement's ``awarded(award)``
    returns (CSP-10.4, BAC-17).
    """

    box: int
    combination: Combination
    amount: int
    from_meter: int
    from_house: int

    def __post_init__(self) -> None:
        _require_int(self.from_meter, "from_meter")
        _require_int(self.from_house, "from_house")
        if self.amount != self.from_meter + self.from_house:
            raise ConfigError(
                "core.jackpot_award_unbalanced",
                amount=self.amount,
                from_meter=self.from_meter,
                from_house=self.from_house,
            )

    @classmethod
    def of(cls, box: int, combination: Combination, split: AwardSplit) -> Award:
        """An award to ``box`` for ``combination`` funded as ``split``."""
        return cls(box, combination, split.amount, split.from_meter, split.from_house)


@dataclass(frozen=True, slots=True)
class JackpotResult:
    """A round's jackpot payments and meter movements.

    * ``awards`` in payment order;
    * ``meter_before`` (as it stood when the round's jackpots began to pay), ``meter_after``;
    * ``reset``: the meter was paid out in full and restarted from its seed;
    * ``seed_funding``: what the house put into the meter for the restart (0 if no reset).

    Invariant: ``meter_after.amount == meter_before.amount - meter_paid + seed_funding``.
    """

    awards: tuple[Award, ...]
    meter_before: Meter
    meter_after: Meter
    reset: bool
    seed_funding: int

    @property
    def meter_paid(self) -> int:
        """Total paid out of the meter."""
        return sum(a.from_meter for a in self.awards)

    @property
    def house_paid(self) -> int:
        """Total paid by the house to winners (fixed awards and top-ups; not the seed)."""
        return sum(a.from_house for a in self.awards)

    @property
    def total_paid(self) -> int:
        """Total paid to winners."""
        return sum(a.amount for a in self.awards)

    def for_box(self, box: int) -> tuple[Award, ...]:
        """The awards paid to ``box`` (at most one per box in Caribbean Stud)."""
        return tuple(a for a in self.awards if a.box == box)


def build_result(meter: Meter, awards: Iterable[Award], *, whole_meter_paid: bool) -> JackpotResult:
    """Assemble ``awards`` (already in payment order) against ``meter``.

    ``whole_meter_paid`` says an award took the whole meter (royal flush), which resets it to
    its seed funded by the house; leftover fractions stay on top of the seed. Refuses
    (``ConfigError``) awards that take more than the meter holds.
    """
    awards = tuple(awards)
    paid = sum(a.from_meter for a in awards)
    if paid > meter.amount:
        raise ConfigError("core.jackpot_awards_exceed_meter", paid=paid, meter=meter.amount)
    left = meter.amount - paid
    seed_funding = meter.seed if whole_meter_paid else 0
    after = Meter(left + seed_funding, meter.seed)
    return JackpotResult(awards, meter, after, whole_meter_paid, seed_funding)


def resolve_caribbean(
    meter: Meter,
    winners: Sequence[tuple[int, Combination]],
    fixed_awards: Mapping[Combination, int],
    *,
    royal_sharing: Literal["each", "pool"] = "each",
) -> JackpotResult:
    """Resolve one Caribbean Stud round's jackpot (SPEC CSP-10).

    ``winners``: ``(box, combination)`` for every box that qualifies (CSP-10.1: ante and
    accepted jackpot wager, not folded) and holds a paying combination; ``fixed_awards``: the
    table's fixed award per combination (CSP-10.3; 0 allowed for the royal/straight flush).
    ``meter`` is the meter as it stands when the round's jackpots begin to pay.

    Rules (decided and documented):

    * Payment order: every award except royal flushes in box order from box 1 (CSP-10.4), then
      the royal flushes in box order — so every straight flush is paid before any royal flush
      (CSP-10.7) and the royal flush gets the meter the straight flushes left.
    * Straight flush (CSP-10.2, CSP-10.6): each ``max(fixed, floor(10 % × M0))``, ``M0`` being
      the meter before any payment of the round; ``floor(10 % × M0)`` comes out of the meter and
      the house pays any difference to the fixed award.
    * Royal flush (CSP-10.2, CSP-10.5): with ``R`` royals and ``M1`` the meter after the
      straight flushes, each gets ``max(fixed, floor(M1 / R))``; ``floor(M1 / R)`` comes out of the
      meter, the house pays any difference, the remainder ``M1 mod R`` stays in the meter. The
      meter was paid out in full, so it restarts: ``after = remainder + seed``, the seed funded by
      the house. This is SPEC CSP-10.5's reading ("each gets the fixed award" when higher;
      ``royal_sharing="each"``, the default). The Chinese text (平分累進大獎或定額彩金，取其較高者)
      can also be read as "share equally the meter or the fixed award, whichever is higher":
      ``royal_sharing="pool"`` gives each ``floor(max(fixed, M1) / R)`` (meter part
      ``floor(M1 / R)``, the house the rest). Both readings agree for a single royal flush.
    * Four of a kind, full house, flush: the fixed award, paid by the house; the meter is
      unchanged (CSP-10.8).

    Refuses (``ConfigError``) a box listed twice, or a combination that does not pay in
    Caribbean Stud or has no fixed award configured.
    """
    boxes = [box for box, _ in winners]
    if len(set(boxes)) != len(boxes):
        raise ConfigError("core.jackpot_box_twice", boxes=str(boxes))
    for _, combo in winners:
        if combo not in CARIBBEAN_JACKPOT_COMBINATIONS:
            raise ConfigError("core.jackpot_not_caribbean", combination=combo)
        if combo not in fixed_awards:
            raise ConfigError("core.jackpot_no_fixed_award", combination=combo)
    ordered = sorted(winners, key=lambda w: w[0])
    m0 = meter.amount
    awards: list[Award] = []
    for box, combo in ordered:
        if combo is Combination.ROYAL_FLUSH:
            continue
        if combo is Combination.STRAIGHT_FLUSH:
            split = award_each(m0, STRAIGHT_FLUSH_METER_FRACTION, fixed_awards[combo])
        else:
            split = fixed_award(fixed_awards[combo])
        awards.append(Award.of(box, combo, split))
    royals = [box for box, combo in ordered if combo is Combination.ROYAL_FLUSH]
    if royals:
        m1 = m0 - sum(a.from_meter for a in awards)
        fixed = fixed_awards[Combination.ROYAL_FLUSH]
        if royal_sharing == "each":
            splits = tuple(award_each(m1, Fraction(1, len(royals)), fixed) for _ in royals)
        elif royal_sharing == "pool":
            splits = award_shared(m1, 1, fixed, len(royals))
        else:
            raise ConfigError("core.jackpot_royal_sharing", value=repr(royal_sharing))
        for box, split in zip(royals, splits, strict=True):
            awards.append(Award.of(box, Combination.ROYAL_FLUSH, split))
    return build_result(meter, awards, whole_meter_paid=bool(royals))
