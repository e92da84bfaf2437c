"""Baccarat simulation with the full shoe procedure (the counting study: in
:mod:`.baccarat_counting`).

:func:`simulate` deals rounds exactly as a table does (SPEC BAC-2, BAC-3, BAC-7, BAC-9):
shuffle the ``52·N`` cards, burn (BAC-2.1: the first card and as many more as its value, or as
many cards as decks, or a fixed number, 83/2011), place the cut card with at least 12 cards
behind it, deal until the cut card comes out, finish that round (and optionally one more,
BAC-3.1), reshuffle. With ``machine=True`` every round is dealt from the full, freshly shuffled
set (automatic shuffling-and-dealing machine, BAC-2.3 / BAC-7.2). The numba kernel runs
independent *batches* of shoes in parallel; each batch has its own random stream derived from
``(seed, batch)``, so a result depends only on the seed and the number of rounds.

Confidence intervals: rounds of one shoe are not independent (they share the shoe), so the
95 % intervals use *batch means*: each batch is a run of whole shoes, batches are independent,
and the ratio estimator ``Σ y_b / Σ x_b`` gets its variance from the spread of the batches
(delta method). ``y_b`` is the batch's total net result of a wager (or its number of events),
``x_b`` its number of rounds.

:func:`.baccarat_counting.counting_study` is the game-protection estimate: at every round of
simulated shoes it computes, from the cards a counter has *not* seen, the exact expectation of
the pair wagers and of Lucky 6, and what a counter gains by betting only when a count says so
(see ``docs/methods.md``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

import numpy as np
import numpy.typing as npt

from ..baccarat.bets import (
    EVEN_MONEY,
    LUCKY_6_THREE_CARD_ODDS,
    LUCKY_6_TWO_CARD_ODDS,
    PAIR_ODDS,
    TIE_ODDS,
)
from ..baccarat.rules import (
    BACCARAT_JACKPOT_COMBINATIONS,
    COMMISSION_DIVISOR,
    BurnRule,
    LastRoundRule,
    ShoeSettings,
)
from ..errors import ConfigError
from ..jackpot import Combination
from .baccarat_exact import (
    check_decks,
    full_shoe,
    jackpot_counts,
    main_counts,
    pair_count,
    wager_stats,
)

__all__ = [
    "MIN_CUT_CARD",
    "Estimate",
    "ShoeProcedure",
    "SimulationResult",
    "simulate",
]

MIN_CUT_CARD: Final = 12
"""BAC-2.1: the cut card goes in with at least (about) 12 cards behind it."""
Z95: Final = 1.959963984540054


@dataclass(frozen=True, slots=True)
class ShoeProcedure:
    """The shoe procedure a simulation deals by: the table's rules of BAC-2.1 / BAC-3.1
    (:class:`~macau_tables.baccarat.rules.BurnRule`,
    :class:`~macau_tables.baccarat.rules.LastRoundRule`) with 1 … 12 decks (BAC-1 asks for
    6 … 12: fewer are for comparison). ``cut_card`` is the number of cards behind the cut
    card; ``burn_count`` the cards of the fixed burn (83/2011, 0 with the other rules).
    :meth:`from_settings` takes a table's :class:`~macau_tables.baccarat.rules.ShoeSettings`.

    Refuses (:class:`ConfigError`, naming the setting) decks outside 1 … 12, a cut card with
    fewer than 12 cards behind it or too deep to deal a round, a fixed burn outside 1 … 8 and a
    burn count with another burn rule.
    """

    decks: int = 8
    burn: BurnRule = BurnRule.FIRST_CARD
    burn_count: int = 0
    cut_card: int = 14
    last_round: LastRoundRule = LastRoundRule.THIS_ROUND
    machine: bool = False

    def __post_init__(self) -> None:
        check_decks(self.decks)
        if not isinstance(self.burn, BurnRule):
            raise ConfigError(
                "analysis.bad_burn_rule",
                rule=repr(self.burn),
                choices=", ".join(b.value for b in BurnRule),
            )
        if not isinstance(self.last_round, LastRoundRule):
            raise ConfigError(
                "analysis.bad_last_round",
                rule=repr(self.last_round),
                choices=", ".join(r.value for r in LastRoundRule),
            )
        count = self.burn_count
        if isinstance(count, bool) or not isinstance(count, int):
            raise ConfigError("analysis.bad_burn_count", count=repr(count))
        if self.burn is BurnRule.FIXED and not 1 <= count <= 8:
            raise ConfigError("analysis.fixed_burn_count", count=count)
        if self.burn is not BurnRule.FIXED and count != 0:
            # Silently ignoring it would describe a procedure nobody asked for.
            raise ConfigError("analysis.burn_count_without_fixed", count=count, rule=self.burn)
        deepest = 52 * self.decks - 11 - 12  # worst burn (1 + 10), then at least two rounds
        if isinstance(self.cut_card, bool) or not MIN_CUT_CARD <= self.cut_card <= deepest:
            raise ConfigError(
                "analysis.bad_cut_card",
                minimum=MIN_CUT_CARD,
                maximum=deepest,
                cut_card=repr(self.cut_card),
            )

    @classmethod
    def from_settings(cls, settings: ShoeSettings) -> ShoeProcedure:
        """The procedure of a table's shoe ``settings`` (decks, burn, cut card, last round,
        machine). Refuses (``ConfigError``) a cut card too deep for a simulation.

        >>> from macau_tables.baccarat.rules import ShoeSettings
        >>> ShoeProcedure.from_settings(ShoeSettings(decks=6)).burn
        <BurnRule.DECKS: 'decks'>
        """
        return cls(
            decks=settings.decks,
            burn=settings.burn_rule,
            burn_count=settings.fixed_burn,
            cut_card=settings.cut_card_behind,
            last_round=settings.last_round,
            machine=settings.machine,
        )

    @property
    def burn_mode(self) -> int:
        return {BurnRule.FIRST_CARD: 1, BurnRule.DECKS: 2, BurnRule.FIXED: 3}[self.burn]

    @property
    def extra_rounds(self) -> int:
        return 1 if self.last_round is LastRoundRule.ONE_MORE else 0

    def describe(self) -> tuple[tuple[str, str], ...]:
        """(label, value) pairs for a report's configuration block."""
        if self.machine:
            return (
                ("decks", str(self.decks)),
                (
                    "dealing",
                    "automatic shuffling-and-dealing machine: every round from the "
                    "full set (BAC-2.3, BAC-7.2)",
                ),
            )
        burn = {
            BurnRule.FIRST_CARD: "first card shown and burned with as many more as its value "
            "(10/J/Q/K = 10)",
            BurnRule.DECKS: f"{self.decks} cards (one per deck)",
            BurnRule.FIXED: f"{self.burn_count} cards (fixed, 83/2011)",
        }[self.burn]
        last = {
            LastRoundRule.THIS_ROUND: "the round in which the cut card comes out is the last",
            LastRoundRule.ONE_MORE: "one more round after the cut card comes out",
        }[self.last_round]
        return (
            ("decks", str(self.decks)),
            ("burn (BAC-2.1)", burn),
            ("cut card (BAC-2.1)", f"{self.cut_card} cards behind it"),
            ("last round (BAC-3.1)", last),
        )


@dataclass(frozen=True, slots=True)
class Estimate:
    """A simulated mean per round with its 95 % confidence interval, beside the exact value."""

    key: str
    label: str
    mean: float
    low: float
    high: float
    exact: Fraction

    @property
    def covers_exact(self) -> bool:
        return self.low <= self.exact <= self.high


def _ratio_ci(y: npt.NDArray[np.float64], x: npt.NDArray[np.float64]) -> tuple[float, float]:
    """Ratio estimate Σy/Σx and its 95 % half-width from independent batches (delta method)."""
    total = float(x.sum())
    r = float(y.sum()) / total
    b = x.size
    if b < 2:
        return r, math.inf
    resid = (y - r * x) / (total / b)
    half = Z95 * math.sqrt(float((resid**2).sum()) / (b * (b - 1)))
    return r, half


def _wilson(hits: float, n: float) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion."""
    p = hits / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return centre - half, centre + half


def _class_parts() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    cls = np.arange(150)
    return cls // 30, (cls // 10) % 3, cls % 10


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """What :func:`simulate` measured (``tallies``: one row per batch, see the kernel module)."""

    procedure: ShoeProcedure
    seed: int
    rounds: int
    shoes: int
    tallies: npt.NDArray[np.int64] = field(repr=False)
    estimates: tuple[Estimate, ...]
    kernel_seconds: float = 0.0  # time spent dealing (for the speed line of a report)

    def estimate(self, key: str) -> Estimate:
        for e in self.estimates:
            if e.key == key:
                return e
        raise KeyError(key)


def _estimates(tallies: npt.NDArray[np.int64], decks: int) -> tuple[Estimate, ...]:
    from . import _baccarat_kernels as kern

    kind, winner, bt = _class_parts()
    classes = tallies[:, :150].astype(np.float64)
    x = classes.sum(axis=1)
    full = full_shoe(decks)
    main = main_counts(full)
    pairs = pair_count(full)
    stats = wager_stats(main, pairs)
    jack = jackpot_counts(full)
    total = main.total
    pp = tallies[:, kern.T_PLAYER_PAIR].astype(np.float64)
    bp = tallies[:, kern.T_BANKER_PAIR].astype(np.float64)

    def over(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        summed: npt.NDArray[np.float64] = classes[:, mask].sum(axis=1)
        return summed

    banker = over(winner == 1)
    player = over(winner == 0)
    tie = over(winner == 2)
    six2 = over((winner == 1) & (bt == 6) & (kind <= 2))
    six3 = over((winner == 1) & (bt == 6) & (kind >= 3))
    # Net results per unit from the law's odds (macau_tables.baccarat.bets, BAC-17/BAC-18,
    # 56/2018): a losing wager loses its unit, a winning one wins its odds.
    payoffs: dict[str, npt.NDArray[np.float64]] = {
        "banker": float(EVEN_MONEY - Fraction(EVEN_MONEY, COMMISSION_DIVISOR)) * banker - player,
        "banker_no_commission": banker - float(Fraction(EVEN_MONEY, 2)) * (six2 + six3) - player,
        "player": player - banker,
        "tie": (TIE_ODDS + 1) * tie - x,
        "player_pair": (PAIR_ODDS + 1) * pp - x,
        "banker_pair": (PAIR_ODDS + 1) * bp - x,
        "lucky_six": (LUCKY_6_TWO_CARD_ODDS + 1) * six2 + (LUCKY_6_THREE_CARD_ODDS + 1) * six3 - x,
    }
    out = []
    for key, y in payoffs.items():
        mean, half = _ratio_ci(y, x)
        out.append(
            Estimate(key, stats[key].name, mean, mean - half, mean + half, stats[key].expectation)
        )
    events: list[tuple[str, str, npt.NDArray[np.float64], int]] = [
        ("p_banker", "banker wins", banker, main.banker),
        ("p_player", "player wins", player, main.player),
        ("p_tie", "tie", tie, main.tie),
        ("p_banker_six_two", "banker wins on a two-card 6", six2, main.banker_six_two_cards),
        (
            "p_banker_six_three",
            "banker wins on a three-card 6",
            six3,
            main.banker_six_three_cards,
        ),
        ("p_natural", "natural", over(kind == 0), main.natural),
        ("p_cards_4", "cards dealt: 4", over(kind <= 1), main.cards_dealt(4)),
        ("p_cards_5", "cards dealt: 5", over((kind == 2) | (kind == 3)), main.cards_dealt(5)),
        ("p_cards_6", "cards dealt: 6", over(kind == 4), main.cards_dealt(6)),
        ("p_player_pair", "player pair", pp, pairs),
        ("p_banker_pair", "banker pair", bp, pairs),
    ]
    codes = {
        Combination.SINGLE_PAIR: kern.JP_SINGLE_PAIR,
        Combination.THREE_OF_A_KIND: kern.JP_THREE_OF_A_KIND,
        Combination.DOUBLE_PAIR: kern.JP_DOUBLE_PAIR,
        Combination.FOUR_OF_A_KIND: kern.JP_FOUR_OF_A_KIND,
        Combination.HEAVENLY_STRAIGHT: kern.JP_HEAVENLY_STRAIGHT,
        Combination.ROYAL_FLUSH: kern.JP_ROYAL_FLUSH,
    }
    for combo in BACCARAT_JACKPOT_COMBINATIONS:
        y = tallies[:, kern.T_JACKPOT + codes[combo]].astype(np.float64)
        events.append(
            (f"p_{combo.value}", f"jackpot: {combo.value.replace('_', ' ')}", y, jack[combo])
        )
    for key, label, y, count in events:
        mean, half = _ratio_ci(y, x)
        # Rare events (a royal flush in a short run) leave too few batches with a hit for batch
        # means; the Wilson interval (rounds taken as independent) keeps such intervals honest.
        w_low, w_high = _wilson(float(y.sum()), float(x.sum()))
        out.append(
            Estimate(
                key,
                label,
                mean,
                min(mean - half, w_low),
                max(mean + half, w_high),
                Fraction(count, total),
            )
        )
    return tuple(out)


def _split(n: int, count: int) -> npt.NDArray[np.int64]:
    """``n`` split into ``count`` near-equal whole parts."""
    base, extra = divmod(n, count)
    quota = np.full(count, base, np.int64)
    quota[:extra] += 1
    return quota


def _batches(rounds: int) -> npt.NDArray[np.int64]:
    """Split ``rounds`` into independent batches: enough of them for the batch-means CI
    (at least 100 when possible), each big enough to amortise a call (≤ 2,000 batches)."""
    return _split(rounds, max(1, min(rounds, max(100, min(2000, rounds // 50_000)))))


def simulate(
    procedure: ShoeProcedure,
    rounds: int,
    seed: int,
    advance: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Deal ``rounds`` rounds (≥ 1) with ``procedure`` from the seeded stream ``seed``
    (0 … 2**63 − 1) and return the tallies and estimates. ``advance(n)`` is called after every
    ``n`` rounds (a progress bar). Refuses bad arguments with :class:`ConfigError`."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ConfigError("analysis.bad_rounds", rounds=repr(rounds))
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ConfigError("analysis.bad_seed", seed=repr(seed), maximum="2**63 - 1")
    from . import _baccarat_kernels as kern

    quota = _batches(rounds)
    tallies = kern.empty_tallies(quota.size)
    chunk = 32
    started = time.perf_counter()
    for first in range(0, quota.size, chunk):
        part = quota[first : first + chunk]
        kern.simulate(
            seed,
            first,
            part,
            procedure.decks,
            procedure.burn_mode,
            procedure.burn_count,
            procedure.cut_card,
            procedure.extra_rounds,
            procedure.machine,
            tallies[first : first + chunk],
        )
        if advance is not None:
            advance(int(part.sum()))
    seconds = time.perf_counter() - started
    return SimulationResult(
        procedure,
        seed,
        int(tallies[:, :150].sum()),
        int(tallies[:, kern.T_SHOES].sum()),
        tallies,
        _estimates(tallies, procedure.decks),
        seconds,
    )
