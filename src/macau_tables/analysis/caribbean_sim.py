"""Monte Carlo simulation of Caribbean Stud Poker beside the exact values.

The player follows the optimal strategy of the exact analysis, looked up per (own five cards,
dealer's up card) (CSP-6.5). The numba kernel settles each round with precomputed tables: the
hand strengths from :func:`macau_tables.caribbean.hands.evaluate_many`, the qualification of
CSP-9.1 and the raise paytable of CSP-9.5. ``tests/analysis/test_caribbean_sim.py`` plays more
than 100,000 kernel rounds again through ``evaluate``/``compare``/``dealer_qualifies`` and the
rules' paytable and requires the same result for every round.

Random numbers: xoshiro256** streams seeded from ``seed`` by splitmix64 (analysis only, never a
table: SPEC "Randomness"). The same seed and round count give the same result on any machine and
any number of threads.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

import numpy as np
import numpy.typing as npt

from ..caribbean.hands import QUALIFYING_STRENGTH, HandCategory, evaluate_many, strength_category
from ..errors import ConfigError
from .caribbean_exact import CaribbeanAnalysis, category_name, raise_win_units

__all__ = ["STREAMS", "SimulatedLine", "SimulationResult", "simulate"]

STREAMS: Final = 8
"""Independent random streams (a fixed number, so results do not depend on the thread count)."""
BATCH: Final = 1 << 21
"""Rounds per progress step."""
Z95: Final = 1.959963984540054


@dataclass(frozen=True, slots=True)
class SimulatedLine:
    """One event of the return table: observed count and the exact probability beside it."""

    event: str
    units: int
    count: int
    rounds: int
    exact: Fraction

    @property
    def frequency(self) -> float:
        """Observed relative frequency."""
        return self.count / self.rounds

    @property
    def half_width(self) -> float:
        """Half-width of the normal-approximation 95 % confidence interval of the frequency."""
        p = self.frequency
        return Z95 * math.sqrt(p * (1 - p) / self.rounds)

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95 % Wilson score interval of the probability: inside 0..1 and not empty when
        an event was never (or always) seen, where the normal approximation fails (a royal
        flush in a short run)."""
        n = self.rounds
        p = self.frequency
        z2 = Z95 * Z95
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
        return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """Counts of a simulation run, with the exact analysis it is compared against.

    ``record`` holds the first rounds of stream 0: player's cards, dealer's cards (the fifth is
    the up card), raised (0/1) and units won per ante.
    """

    seed: int
    rounds: int
    lines: tuple[SimulatedLine, ...]
    raised: int
    jackpot_counts: tuple[int, ...]
    exact: CaribbeanAnalysis = field(repr=False)
    record: npt.NDArray[np.int64] = field(repr=False)

    @property
    def mean(self) -> float:
        """Observed mean win per ante."""
        return sum(line.units * line.count for line in self.lines) / self.rounds

    @property
    def mean_half_width(self) -> float:
        """Half-width of the 95 % confidence interval of the mean win per ante."""
        second = sum(line.units**2 * line.count for line in self.lines) / self.rounds
        variance = max(second - self.mean**2, 0.0)
        return Z95 * math.sqrt(variance / self.rounds)

    @property
    def raise_frequency(self) -> float:
        """Observed share of rounds raised."""
        return self.raised / self.rounds


Advance = Callable[[int], None]


def _nothing(_: int) -> None:
    return None


def simulate(
    analysis: CaribbeanAnalysis,
    rounds: int,
    seed: int,
    advance: Advance = _nothing,
    record_rounds: int = 0,
) -> SimulationResult:
    """Play ``rounds`` single-box rounds with the optimal strategy of ``analysis``.

    ``advance(n)`` is called after every batch of ``n`` rounds (progress bar); Ctrl-C between
    batches raises ``KeyboardInterrupt`` with nothing returned. ``record_rounds`` rounds of the
    first stream are kept in :attr:`SimulationResult.record`. Refuses (``ConfigError``) a round
    count below 1, a negative seed or one of 2**64 or more, and a negative ``record_rounds``.
    """
    from . import _caribbean_kernels as kernels

    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ConfigError("analysis.bad_rounds", rounds=repr(rounds))
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ConfigError("analysis.bad_seed", seed=repr(seed), maximum="2**64 - 1")
    if isinstance(record_rounds, bool) or not isinstance(record_rounds, int) or record_rounds < 0:
        raise ConfigError("analysis.bad_record_rounds", rounds=repr(record_rounds))
    strengths = analysis.strengths
    macau = strengths if analysis.ranking == "macau" else evaluate_many(analysis.hands, "macau")
    qualifies = macau >= QUALIFYING_STRENGTH
    category = strength_category(strengths)
    raise_win = np.array(
        [
            raise_win_units(analysis.rules, HandCategory(c), analysis.max_payout_units)
            for c in range(10)
        ],
        dtype=np.int64,
    )
    table = np.empty((strengths.shape[0], 2), dtype=np.int64)
    table[:, 0] = analysis.decisions.view(np.int64)
    table[:, 1] = (strengths << 5) | (qualifies.astype(np.int64) << 4) | category
    states = kernels.seed_streams(seed, STREAMS)
    totals = np.zeros(kernels.SIM_SLOTS, dtype=np.int64)
    per_stream = [rounds * (s + 1) // STREAMS - rounds * s // STREAMS for s in range(STREAMS)]
    # Recorded rounds come from the first batch of stream 0.
    kept = min(record_rounds, per_stream[0], BATCH // STREAMS)
    record = np.zeros((kept, kernels.RECORD_COLUMNS), dtype=np.int64)
    done = 0
    first = True
    while done < rounds:
        step = min(BATCH, rounds - done)
        quota = np.array(
            [
                min(per_stream[s], (step * (s + 1)) // STREAMS - (step * s) // STREAMS)
                for s in range(STREAMS)
            ],
            dtype=np.int64,
        )
        # Streams whose share is used up give their slack to the others, so the batch plays
        # exactly `step` rounds in total.
        short = step - int(quota.sum())
        for s in range(STREAMS):
            if short <= 0:
                break
            room = per_stream[s] - int(quota[s])
            take = min(room, short)
            quota[s] += take
            short -= take
        rec = record if first else record[:0]
        counts = kernels.simulate_batch(states, quota, table, raise_win, rec)
        first = False
        totals += counts.sum(axis=0)
        for s in range(STREAMS):
            per_stream[s] -= int(quota[s])
        done += step
        advance(step)
    exact = {o.event: o for o in analysis.outcomes}
    lines: list[SimulatedLine] = []
    for c in reversed(range(10)):
        event = f"player wins with {category_name(HandCategory(c))}"
        lines.append(
            SimulatedLine(
                event, exact[event].units, int(totals[c]), rounds, exact[event].probability
            )
        )
    for slot, event in (
        (kernels.SLOT_NOT_QUALIFIED, "dealer does not qualify (raised)"),
        (kernels.SLOT_PUSH, "push (equal hands)"),
        (kernels.SLOT_DEALER_WINS, "dealer wins"),
        (kernels.SLOT_FOLD, "fold"),
    ):
        line = exact[event]
        lines.append(SimulatedLine(event, line.units, int(totals[slot]), rounds, line.probability))
    return SimulationResult(
        seed=seed,
        rounds=rounds,
        lines=tuple(lines),
        raised=int(totals[16:26].sum()),
        jackpot_counts=tuple(int(x) for x in totals[16:26]),
        exact=analysis,
        record=record,
    )
