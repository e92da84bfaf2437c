"""The Caribbean Stud PAR sheet and simulation report: analysis results → :class:`Report`.

:func:`par_sheet` presents an exact analysis (:mod:`.caribbean_exact`) and its jackpot, and
:func:`simulation_sheet` a simulation (:mod:`.caribbean_sim`), as a
:class:`~.report.Report` — the tables, words and JSON payload of the sheet. Nothing is computed
here beyond reading the results, and nothing is written: :func:`.render.render` does that.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..caribbean.hands import HandCategory
from ..jackpot import CARIBBEAN_JACKPOT_COMBINATIONS
from ..money import format_minor
from .caribbean_exact import (
    DEALS_PER_UP_CARD,
    TOTAL_DEALS,
    TOTAL_DECISIONS,
    CaribbeanAnalysis,
    JackpotAnalysis,
    category_name,
)
from .caribbean_sim import SimulationResult
from .report import Figure, Report, Table

__all__ = ["ak_strategy_table", "meter_points", "par_sheet", "simulation_sheet"]

_RANK_LETTERS = "23456789TJQKA"


def _pct(value: Fraction | float, digits: int = 6) -> str:
    return f"{float(value) * 100:.{digits}f} %"


def ak_strategy_table(analysis: CaribbeanAnalysis) -> Table:
    """The A-K borderline of the optimal strategy: for each A-K-x-y-z high-card rank pattern
    with at least one raise, against each up-card rank, ``R`` (raise with every suit
    combination), ``.`` (fold) or the percentage of suit combinations raised."""
    hands = analysis.hands
    ranks = hands.astype(np.int64) // 4 + 2
    category = analysis.strengths >> 22
    has_ace = (ranks == 14).any(axis=1)
    has_king = (ranks == 13).any(axis=1)
    selected = np.flatnonzero((category == HandCategory.HIGH_CARD) & has_ace & has_king)
    sub = np.sort(ranks[selected], axis=1)[:, ::-1]  # A K x y z
    key = sub[:, 2] * 256 + sub[:, 3] * 16 + sub[:, 4]
    patterns, inverse = np.unique(key, return_inverse=True)
    # Per up-card rank: how many of the (up to four) up cards of that rank are raised against,
    # and how many are possible (not in the hand); then summed per rank pattern.
    decisions = analysis.decisions[selected]
    in_hand = np.zeros(selected.shape[0], dtype=np.uint64)
    for i in range(5):
        in_hand |= np.uint64(1) << hands[selected, i].astype(np.uint64)
    raised = np.zeros((selected.shape[0], 13), dtype=np.int64)
    possible = np.zeros((selected.shape[0], 13), dtype=np.int64)
    for u in range(52):
        bit = np.uint64(1) << np.uint64(u)
        raised[:, u // 4] += ((decisions & bit) != 0).astype(np.int64)
        possible[:, u // 4] += ((in_hand & bit) == 0).astype(np.int64)
    n_patterns = patterns.shape[0]
    raised_sum = np.stack(
        [np.bincount(inverse, weights=raised[:, r], minlength=n_patterns) for r in range(13)],
        axis=1,
    ).astype(np.int64)
    possible_sum = np.stack(
        [np.bincount(inverse, weights=possible[:, r], minlength=n_patterns) for r in range(13)],
        axis=1,
    ).astype(np.int64)
    rows: list[tuple[object, ...]] = []
    never = 0
    for p in reversed(range(patterns.shape[0])):
        if raised_sum[p].sum() == 0:
            never += 1
            continue
        k = int(patterns[p])
        name = "A K " + " ".join(_RANK_LETTERS[r - 2] for r in (k >> 8, (k >> 4) & 15, k & 15))
        cells: list[object] = [name]
        for r in range(13):
            done, total = int(raised_sum[p, r]), int(possible_sum[p, r])
            if done == total:
                cells.append("R")
            elif done == 0:
                cells.append(".")
            else:
                cells.append(f"{100 * done / total:.0f}%")
        rows.append(tuple(cells))
    others = (
        f"The other {never} A-K-x-y-z rank patterns fold against every up card."
        if never
        else "Every A-K-x-y-z rank pattern is raised against at least one up card."
    )
    return Table(
        "Optimal strategy at the A-K borderline (high-card hands holding an ace and a king)",
        ("hand", *(f"up {c}" for c in _RANK_LETTERS)),
        tuple(rows),
        note=(
            "R = raise with every suit combination, . = fold, n% = share of the suit combinations "
            f"raised (the suits matter under Macau ranking). {others} Every pair or better is "
            "raised; every high-card hand without both an ace and a king is folded (see the "
            "table by category)."
        ),
    )


def _category_table(analysis: CaribbeanAnalysis) -> Table:
    rows: list[tuple[object, ...]] = []
    for c in reversed(range(10)):
        cat = HandCategory(c)
        name = cat.english
        pairs = analysis.pairs_by_category[c]
        raised = analysis.raised_by_category[c]
        rows.append((name, pairs // 47, pairs, raised, Fraction(raised, pairs)))
    return Table(
        "Optimal strategy by the player's hand category",
        ("player hand", "hands", "(hand, up card) pairs", "raised pairs", "share raised"),
        tuple(rows),
    )


def _minor_units(amount: int) -> str:
    """An amount as this sheet prints it: whole minor units with thousands separators."""
    return format_minor(amount, decimals=0)


def _jackpot_rows(jackpot: JackpotAnalysis) -> tuple[tuple[object, ...], ...]:
    rows: list[tuple[object, ...]] = []
    for combination in CARIBBEAN_JACKPOT_COMBINATIONS:
        p = jackpot.probability(combination)
        award = jackpot.award(combination, jackpot.meter).amount
        rows.append((combination.replace("_", " "), p, award, p * award / jackpot.wager))
    return tuple(rows)


def meter_points(jackpot: JackpotAnalysis) -> list[int]:
    """The meters of the sheet's return-against-the-meter table and plot: 21 steps from 0 to
    twice the larger of the break-even meter and this sheet's meter, and the sheet's meter."""
    top = max(2 * jackpot.break_even_meter(), 2 * jackpot.meter, 1000)
    return sorted({round(top * k / 20) for k in range(21)} | {jackpot.meter})


def par_sheet(
    analysis: CaribbeanAnalysis,
    jackpot: JackpotAnalysis,
    *,
    figures: bool = False,
    seconds: float | None = None,
) -> Report:
    """The PAR sheet of an exact analysis and its jackpot (with plots when ``figures``: they
    are shown only in HTML). ``seconds``: the computation time, stated when given (the
    recorded sheets leave it out, so the same options always give the same sheet)."""
    rules = analysis.rules
    ranking = analysis.ranking
    units = _minor_units
    cap_units = analysis.max_payout_units
    fixed = rules.jackpot_fixed_awards
    break_even = jackpot.break_even_meter()
    cap = (
        f"{cap_units} ante units on the raise's win (four of a kind, straight flush, royal flush)"
        if cap_units is not None
        else "not applied (CSP-9.5 caps the raise's win in money per box; see --max-payout-units)"
    )
    paytable = ", ".join(
        f"{category_name(category)} {rules.raise_odds(category)}:1" for category in HandCategory
    )
    if cap_units is not None:
        paytable += f" (the raise's win capped at {cap_units} antes where CSP-9.5 caps)"
    configuration = (
        ("Game", "Caribbean Stud Poker (Dispatch 61/2004), one box against the dealer"),
        (
            "Ranking",
            f"{ranking} ("
            + (
                "CSP-8 suit tie-breaks, no ties"
                if ranking == "macau"
                else "no suits, equal hands push"
            )
            + ")",
        ),
        ("Royal flush odds", f"{rules.royal_flush_odds}:1 (CSP-9.5, CSP-13 option)"),
        ("Raise paytable (CSP-9.5)", paytable),
        ("Max payout cap", cap),
        ("Dealer qualifies", "A-K high or better (CSP-9.1)"),
        ("Decision", "optimal raise/fold per (own five cards, dealer's up card) (CSP-6.5, CSP-7)"),
        ("Jackpot wager", f"{units(jackpot.wager)} minor units"),
        (
            "Jackpot fixed awards",
            f"royal flush {units(fixed.royal_flush)} (or 100 % of the meter), straight flush "
            f"{units(fixed.straight_flush)} (or 10 % of the meter), four of a kind "
            f"{units(fixed.four_of_a_kind)}, full house {units(fixed.full_house)}, "
            f"flush {units(fixed.flush)} (minor units, CSP-10.2)",
        ),
        ("Jackpot meter", f"{units(jackpot.meter)} minor units"),
        (
            "Meter contribution",
            f"{float(rules.jackpot_contribution) * 100:g} % of each jackpot wager",
        ),
        ("Deals counted", f"{TOTAL_DEALS:,} (every dealer card as the up card)"),
    )
    summary = [
        ("House edge per ante", _pct(analysis.house_edge, 8)),
        ("Element of risk (per amount wagered)", _pct(analysis.element_of_risk, 8)),
        ("Expected win per ante (exact)", str(analysis.expected_win)),
        ("Probability of raising", _pct(analysis.raise_probability)),
        ("Average total wager per ante", f"{float(analysis.average_wager):.8f}"),
        ("Dealer qualifies", _pct(analysis.dealer_qualifies_probability)),
        ("Dealer qualifies, given a raise", _pct(analysis.dealer_qualifies_given_raise)),
        ("Standard deviation per ante", f"{analysis.standard_deviation:.6f}"),
        ("Jackpot return at the meter", _pct(jackpot.return_rate(jackpot.meter), 4)),
        ("Jackpot break-even meter", f"{units(break_even)} minor units"),
    ]
    if seconds is not None:
        summary.append(("Computation time", f"{seconds:.1f} s"))
    outcome_table = Table(
        "Return table (per ante; the raise is two antes)",
        ("event", "units won", "combinations", "probability", "return"),
        (
            *(
                (o.event, o.units, o.combinations, o.probability, o.expected_return)
                for o in analysis.outcomes
            ),
            ("total", None, analysis.total_combinations, Fraction(1), analysis.expected_win),
        ),
    )
    jackpot_table = Table(
        f"Jackpot wager at meter {units(jackpot.meter)} "
        f"(per jackpot wager of {units(jackpot.wager)})",
        ("combination", "probability (box raised)", "award", "return"),
        (
            *_jackpot_rows(jackpot),
            ("total", None, None, jackpot.return_rate(jackpot.meter)),
        ),
        note="A folded box wins no jackpot (CSP-6.7); the wager is not returned with an award.",
    )
    ak_table = ak_strategy_table(analysis)
    meter_table = Table(
        "Jackpot return against the meter",
        ("meter", "expected award", "return", "expected paid from the meter"),
        tuple(
            (m, jackpot.expected_award(m), jackpot.return_rate(m), jackpot.meter_drain(m))
            for m in meter_points(jackpot)
        ),
        note=(
            f"Each jackpot wager credits {units(jackpot.contribution_per_wager)} minor units "
            "(rounded down, as macau_tables.jackpot.split_contribution) to the "
            "meter; royal flush pays max(fixed, 100 % of meter), straight flush max(fixed, 10 % "
            "of meter, rounded down) (CSP-10.2)."
        ),
    )
    outcomes_data = [
        {
            "event": o.event,
            "units": o.units,
            "combinations": o.combinations,
            "probability": float(o.probability),
            "probability_exact": f"{o.probability.numerator}/{o.probability.denominator}",
            "return": float(o.expected_return),
        }
        for o in analysis.outcomes
    ]
    data: dict[str, object] = {
        "game": "caribbean-stud",
        "ranking": ranking,
        "royal_odds": rules.royal_flush_odds,
        "max_payout_units": cap_units,
        "house_edge": float(analysis.house_edge),
        "house_edge_exact": _exact(analysis.house_edge),
        "expected_win_exact": _exact(analysis.expected_win),
        "element_of_risk": float(analysis.element_of_risk),
        "raise_probability": float(analysis.raise_probability),
        "raised_decisions": analysis.raised_pairs,
        "total_decisions": TOTAL_DECISIONS,
        "indifferent_decisions": analysis.indifferent_pairs,
        "dealer_qualifies_probability": float(analysis.dealer_qualifies_probability),
        "dealer_qualifies_combinations": analysis.dealer_qualifies_deals,
        "dealer_qualifies_given_raise_probability": float(analysis.dealer_qualifies_given_raise),
        "dealer_qualifies_raised_combinations": analysis.dealer_qualifies_raised_deals,
        "raised_combinations": analysis.raised_pairs * DEALS_PER_UP_CARD,
        "standard_deviation": analysis.standard_deviation,
        "total_combinations": analysis.total_combinations,
        "outcomes": outcomes_data,
        "ak_strategy": [
            {"hand": row[0], "up_card": dict(zip(_RANK_LETTERS, row[1:], strict=True))}
            for row in ak_table.rows
        ],
        "strategy_by_category": [
            {
                "category": HandCategory(c).name.lower(),
                "pairs": analysis.pairs_by_category[c],
                "raised": analysis.raised_by_category[c],
            }
            for c in range(10)
        ],
        "jackpot": {
            "wager": jackpot.wager,
            "meter": jackpot.meter,
            "contribution": _exact(rules.jackpot_contribution),
            "awards": {str(c): a for c, a in fixed.as_mapping().items()},
            "probabilities": {
                HandCategory(c).name.lower(): float(jackpot.probabilities[c]) for c in range(5, 10)
            },
            # Exact counts behind the probabilities: raised (hand, up card) pairs of the
            # category, of total_decisions (a folded box wins no jackpot, CSP-6.7).
            "counts": {
                HandCategory(c).name.lower(): analysis.raised_by_category[c] for c in range(5, 10)
            },
            "return": float(jackpot.return_rate(jackpot.meter)),
            "return_exact": _exact(jackpot.return_rate(jackpot.meter)),
            "break_even_meter": break_even,
            "return_by_meter": [
                {
                    "meter": m,
                    "expected_award": float(jackpot.expected_award(m)),
                    "return": float(jackpot.return_rate(m)),
                }
                for m in meter_points(jackpot)
            ],
        },
    }
    plots: tuple[Figure, ...] = ()
    if figures:
        from .plots import caribbean_figures

        plots = caribbean_figures(analysis, jackpot, meter_points(jackpot))
    notes = (
        "Exact enumeration, no sampling: all 2,598,960 player hands, each against all 1,533,939 "
        "dealer hands from the other 47 cards, each dealer card in turn face up. Method: "
        "strength-ordered sweep with inclusion-exclusion over card subsets "
        "(docs/methods.md).",
        "Where raising and folding are worth exactly the same, the player folds "
        f"({analysis.indifferent_pairs} such decisions); this changes no return.",
        "Element of risk = house edge / (1 + 2 x P(raise)): the raise is twice the ante (CSP-6.6).",
        "The jackpot return assumes the box plays the optimal ante strategy above; jackpots of "
        "several boxes in one round (CSP-10.5, 10.6) are not modelled.",
    )
    return Report(
        title=(
            f"Caribbean Stud Poker PAR sheet: {ranking} ranking, "
            f"royal flush {rules.royal_flush_odds}:1"
        ),
        configuration=configuration,
        summary=tuple(summary),
        tables=(
            outcome_table,
            _category_table(analysis),
            ak_table,
            jackpot_table,
            meter_table,
        ),
        data=data,
        figures=plots,
        notes=notes,
    )


def _exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def simulation_sheet(result: SimulationResult, seconds: float | None = None) -> Report:
    """The report of a simulation: observed frequencies, 95 % intervals, exact values
    (``seconds``: the simulation's time, for the speed line)."""
    exact = result.exact
    rows: list[tuple[object, ...]] = []
    for line in result.lines:
        low, high = line.ci95
        inside = low <= float(line.exact) <= high
        rows.append(
            (line.event, line.units, line.count, line.frequency, low, high, line.exact, inside)
        )
    mean_low = result.mean - result.mean_half_width
    mean_high = result.mean + result.mean_half_width
    summary = [
        ("Rounds", f"{result.rounds:,}"),
        ("Seed", str(result.seed)),
        (
            "Mean win per ante",
            f"{result.mean:.6f} (95 % CI {mean_low:.6f} .. {mean_high:.6f}); "
            f"exact {float(exact.expected_win):.6f}",
        ),
        (
            "Raise frequency",
            f"{result.raise_frequency:.6f}; exact {float(exact.raise_probability):.6f}",
        ),
    ]
    if seconds is not None:
        summary.append(
            ("Speed", f"{result.rounds / max(seconds, 1e-9) / 1e6:.2f} million rounds/s")
        )
    data: dict[str, object] = {
        "game": "caribbean-stud",
        "rounds": result.rounds,
        "seed": result.seed,
        "ranking": exact.ranking,
        "royal_odds": exact.rules.royal_flush_odds,
        "mean": result.mean,
        "mean_ci95": [mean_low, mean_high],
        "house_edge": -result.mean,
        "exact_house_edge": float(exact.house_edge),
        "raise_frequency": result.raise_frequency,
        "exact_raise_probability": float(exact.raise_probability),
        "outcomes": [
            {
                "event": line.event,
                "units": line.units,
                "count": line.count,
                "frequency": line.frequency,
                "ci95": list(line.ci95),
                "exact_probability": float(line.exact),
            }
            for line in result.lines
        ],
    }
    return Report(
        title=f"Caribbean Stud Poker simulation: {exact.ranking} ranking, "
        f"royal flush {exact.rules.royal_flush_odds}:1",
        configuration=(
            (
                "Strategy",
                "optimal raise/fold per (own five cards, up card), from the exact analysis",
            ),
            ("Random numbers", "xoshiro256** streams seeded by splitmix64 (analysis only)"),
        ),
        summary=tuple(summary),
        tables=(
            Table(
                "Observed against exact",
                (
                    "event",
                    "units",
                    "count",
                    "frequency",
                    "95 % low",
                    "95 % high",
                    "exact",
                    "exact inside",
                ),
                tuple(rows),
                note="Wilson score intervals per event; about 1 in 20 may miss by chance.",
            ),
        ),
        data=data,
    )
