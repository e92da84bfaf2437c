"""The card-counting study for operators (game protection): what a counter could gain.

:func:`counting_study` simulates shoes with a :class:`~.baccarat_sim.ShoeProcedure` and, at
every round, computes from the cards a counter has *not* seen the exact expectation of the pair
wagers and of Lucky 6, and what a counter gains by betting only when a count says so (see
``docs/methods.md``). The Lucky 6 count's tags come from the effects of removal
(:func:`lucky_six_tags`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from ..errors import ConfigError
from .baccarat_counts import full_shoe, main_counts, multiset_table, pair_count
from .baccarat_exact import wager_stats
from .baccarat_sim import ShoeProcedure, _ratio_ci, _split

__all__ = ["CountRow", "CountingResult", "counting_study", "lucky_six_tags"]


def lucky_six_tags(eor: Mapping[int, Mapping[str, Fraction]], level: int = 4) -> tuple[int, ...]:
    """Integer count tags for the ten BAC-5 values, proportional to the Lucky 6 effects of
    removal ``eor`` (by rank, from :func:`~.baccarat_exact.effects_of_removal`), scaled so the
    largest is ``±level`` and rounded half away from zero."""
    by_value = [
        eor[10]["lucky_six"],
        eor[14]["lucky_six"],
        *(eor[v]["lucky_six"] for v in range(2, 10)),
    ]
    scale = max(abs(e) for e in by_value)
    return tuple(
        int(math.copysign(math.floor(abs(level * e / scale) + Fraction(1, 2)), e)) for e in by_value
    )


@dataclass(frozen=True, slots=True)
class CountRow:
    """A betting rule and what it earns: share of rounds bet, mean expectation of those bets,
    expected gain per round dealt (units of one wager) with its 95 % CI half-width."""

    wager: str
    rule: str
    bet_share: float
    mean_when_bet: float
    gain_per_round: float
    gain_half_width: float


@dataclass(frozen=True, slots=True)
class CountingResult:
    """The counting study (see :func:`counting_study`)."""

    procedure: ShoeProcedure
    seed: int
    shoes: int
    rounds: int
    tags: tuple[int, ...]
    break_even_true_count: float
    mean_ev_pair: float
    mean_ev_lucky_six: float
    rows: tuple[CountRow, ...]


def _lucky_six_table() -> tuple[
    npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]
]:
    mult, k, coef = multiset_table()
    # banker wins (winner 1) with total 6: two cards in kinds 0-2, three in kinds 3-4
    two = coef[:, [(kind * 3 + 1) * 10 + 6 for kind in (0, 1, 2)]].sum(axis=1)
    three = coef[:, [(kind * 3 + 1) * 10 + 6 for kind in (3, 4)]].sum(axis=1)
    keep = np.flatnonzero((two + three) > 0)
    keep = keep[np.argsort(k[keep], kind="stable")]  # grouped by size: one division per size
    return (
        mult[keep].astype(np.uint8),
        k[keep].astype(np.int64),
        two[keep].astype(np.float64),
        three[keep].astype(np.float64),
    )


def counting_study(
    procedure: ShoeProcedure,
    shoes: int,
    seed: int,
    eor: Mapping[int, Mapping[str, Fraction]],
    advance: Callable[[int], None] | None = None,
) -> CountingResult:
    """Simulate ``shoes`` shoes with ``procedure`` and, before every round, compute from the
    cards not yet seen (the rest of the shoe and the face-down burned cards) the exact
    expectation of the pair wager (``12 Σ u_r(u_r−1) / U(U−1) − 1``) and of Lucky 6 (the
    multiset table of :mod:`.baccarat_exact`, in floating point), and the Lucky 6 true count of
    the integer tags :func:`lucky_six_tags` (running count, balanced by the tags' shoe mean, per
    52 unseen cards). Gains are expectations (not simulated outcomes): the study estimates how
    often and how much a counter is ahead, with far less noise than paying out simulated bets.

    ``eor`` are the effects of removal of :func:`~.baccarat_exact.effects_of_removal` for the
    same number of decks. Refuses bad arguments with :class:`ConfigError`.
    """
    if isinstance(shoes, bool) or not isinstance(shoes, int) or shoes < 1:
        raise ConfigError("analysis.bad_shoes", shoes=repr(shoes))
    if procedure.machine:
        raise ConfigError("analysis.counting_needs_a_shoe")
    from . import _baccarat_kernels as kern

    decks = procedure.decks
    tags = lucky_six_tags(eor)
    value_counts = [16 * decks] + [4 * decks] * 9
    cards = 52 * decks
    tag_mean = sum(t * n for t, n in zip(tags, value_counts, strict=True)) / cards
    # Linear model: EV ≈ EV0 + (R / 52) · s · TC with EOR_v ≈ s · (t_v − mean); break-even TC.
    eor_by_value = [
        eor[10]["lucky_six"],
        eor[14]["lucky_six"],
        *(eor[v]["lucky_six"] for v in range(2, 10)),
    ]
    centred = [t - tag_mean for t in tags]
    s = sum(
        float(e) * c * n for e, c, n in zip(eor_by_value, centred, value_counts, strict=True)
    ) / sum(c * c * n for c, n in zip(centred, value_counts, strict=True))
    main = main_counts(full_shoe(decks))
    ev0 = float(wager_stats(main, pair_count(full_shoe(decks)))["lucky_six"].expectation)
    break_even = -ev0 * 52 / (cards * s)
    thresholds = np.array(
        [round(break_even) - 4, round(break_even), round(break_even) + 4], np.float64
    )
    l6_m, l6_k, l6_two, l6_three = _lucky_six_table()
    quota = _split(shoes, min(shoes, 200))
    out = np.zeros((quota.size, 8 + 2 * thresholds.size), np.float64)
    tag_array = np.array(tags, np.float64)
    chunk = 8
    for first in range(0, quota.size, chunk):
        part = quota[first : first + chunk]
        kern.counting_study(
            seed,
            first,
            part,
            decks,
            procedure.burn_mode,
            procedure.burn_count,
            procedure.cut_card,
            procedure.extra_rounds,
            l6_m,
            l6_k,
            l6_two,
            l6_three,
            tag_array,
            tag_mean,
            thresholds,
            out[first : first + chunk],
        )
        if advance is not None:
            advance(int(part.sum()))
    x = out[:, 0]
    rounds = int(x.sum())

    def row(
        wager: str, rule: str, bets: npt.NDArray[np.float64], ev: npt.NDArray[np.float64]
    ) -> CountRow:
        gain, half = _ratio_ci(ev, x)
        n_bets = float(bets.sum())
        return CountRow(
            wager,
            rule,
            n_bets / rounds,
            float(ev.sum()) / n_bets if n_bets else math.nan,
            gain,
            half,
        )

    result_rows = [
        row(
            "player or banker pair", "perfect rank tracking: bet when EV > 0", out[:, 2], out[:, 3]
        ),
        row("Lucky 6", "perfect value tracking: bet when EV > 0", out[:, 5], out[:, 6]),
    ]
    for j, t in enumerate(thresholds):
        result_rows.append(
            row(
                "Lucky 6",
                f"tag count: bet when true count ≥ {t:+.0f}",
                out[:, 8 + 2 * j],
                out[:, 9 + 2 * j],
            )
        )
    return CountingResult(
        procedure,
        seed,
        int(out[:, 7].sum()),
        rounds,
        tags,
        break_even,
        float(out[:, 1].sum()) / rounds,
        float(out[:, 4].sum()) / rounds,
        tuple(result_rows),
    )
