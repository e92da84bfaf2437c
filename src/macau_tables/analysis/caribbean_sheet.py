"""The Caribbean Stud PAR sheet and simulation report: analysis results → :class:`Report`.

:func:`par_sheet` presents an exact analysis (:mod:`.caribbean_exact`) and its jackpot, and
:func:`simulation_sheet` a simulation (:mod:`.caribbean_sim`), as a
:class:`~.report.Report` — the tables, words and JSON payload of the sheet. Nothing is computed
here beyond reading the results, and nothing is written: :func:`.render.render` does that.
Both take a ``language`` (one of :func:`.report.sheet_languages`): every word of the sheet —
headings, titles, column headers, labels, descriptions and notes — is a ``par.*`` message; the
figures do not change.
"""

from __future__ import annotations

from fractions import Fraction
from functools import partial

import numpy as np

from ..caribbean.hands import HandCategory
from ..jackpot import CARIBBEAN_JACKPOT_COMBINATIONS
from ..messages import DEFAULT_LANGUAGE
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
from .report import Figure, Report, Table, check_language, say, speed_line

__all__ = ["ak_strategy_table", "meter_points", "par_sheet", "simulation_sheet"]

_RANK_LETTERS = "23456789TJQKA"


def _pct(value: Fraction | float, digits: int = 6) -> str:
    return f"{float(value) * 100:.{digits}f} %"


def ak_strategy_table(analysis: CaribbeanAnalysis, language: str = DEFAULT_LANGUAGE) -> Table:
    """The A-K borderline of the optimal strategy: for each A-K-x-y-z high-card rank pattern
    with at least one raise, against each up-card rank, ``R`` (raise with every suit
    combination), ``.`` (fold) or the percentage of suit combinations raised (words in
    ``language``)."""
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
        say(language, "par.csp_ak_others_fold", count=str(never))
        if never
        else say(language, "par.csp_ak_all_raised")
    )
    return Table(
        say(language, "par.csp_ak_table"),
        (say(language, "par.hand"), *(say(language, "par.up_card", rank=c) for c in _RANK_LETTERS)),
        tuple(rows),
        note=say(language, "par.csp_ak_note", others=others),
    )


# The hand categories' names (HandCategory.english in English).
_HAND_KEYS = {
    HandCategory.HIGH_CARD: "par.hand_high_card",
    HandCategory.ONE_PAIR: "par.hand_one_pair",
    HandCategory.TWO_PAIR: "par.hand_two_pair",
    HandCategory.THREE_OF_A_KIND: "par.hand_three_of_a_kind",
    HandCategory.STRAIGHT: "par.hand_straight",
    HandCategory.FLUSH: "par.hand_flush",
    HandCategory.FULL_HOUSE: "par.hand_full_house",
    HandCategory.FOUR_OF_A_KIND: "par.hand_four_of_a_kind",
    HandCategory.STRAIGHT_FLUSH: "par.hand_straight_flush",
    HandCategory.ROYAL_FLUSH: "par.hand_royal_flush",
}
# The return table's events other than the player's wins (caribbean_exact's English words).
_EVENT_KEYS = {
    "dealer does not qualify (raised)": "par.csp_dealer_does_not_qualify",
    "push (equal hands)": "par.csp_push",
    "dealer wins": "par.csp_dealer_wins",
    "fold": "par.csp_fold",
}


def _hand_name(category: HandCategory, language: str, *, as_it_wins: bool = False) -> str:
    """A hand category's name in ``language``; ``as_it_wins``: the high-card category as it can
    win, A-K high (CSP-9.1; :func:`.caribbean_exact.category_name`)."""
    if as_it_wins and category is HandCategory.HIGH_CARD:
        return say(language, "par.hand_ak_high")
    return say(language, _HAND_KEYS[category])


def _event_name(event: str, language: str) -> str:
    """An event of the return table (:attr:`.caribbean_exact.OutcomeLine.event`) in
    ``language``; an event this sheet does not know is shown as it is."""
    for category in HandCategory:
        if event == f"player wins with {category_name(category)}":
            hand = _hand_name(category, language, as_it_wins=True)
            return say(language, "par.csp_player_wins_with", hand=hand)
    key = _EVENT_KEYS.get(event)
    return event if key is None else say(language, key)


def _category_table(analysis: CaribbeanAnalysis, language: str) -> Table:
    t = partial(say, language)
    rows: list[tuple[object, ...]] = []
    for c in reversed(range(10)):
        cat = HandCategory(c)
        name = _hand_name(cat, language)
        pairs = analysis.pairs_by_category[c]
        raised = analysis.raised_by_category[c]
        rows.append((name, pairs // 47, pairs, raised, Fraction(raised, pairs)))
    return Table(
        t("par.csp_category_table"),
        (
            t("par.player_hand"),
            t("par.hands"),
            t("par.hand_up_card_pairs"),
            t("par.raised_pairs"),
            t("par.share_raised"),
        ),
        tuple(rows),
    )


def _minor_units(amount: int) -> str:
    """An amount as this sheet prints it: whole minor units with thousands separators."""
    return format_minor(amount, decimals=0)


def _ranking_name(ranking: str, language: str) -> str:
    """The ranking's name in a sheet's title (``macau`` / ``standard`` in English)."""
    if ranking == "macau":
        return say(language, "par.ranking_macau")
    return say(language, "par.ranking_standard")


def _jackpot_rows(jackpot: JackpotAnalysis, language: str) -> tuple[tuple[object, ...], ...]:
    rows: list[tuple[object, ...]] = []
    for combination in CARIBBEAN_JACKPOT_COMBINATIONS:
        p = jackpot.probability(combination)
        award = jackpot.award(combination, jackpot.meter).amount
        name = _hand_name(HandCategory[combination.upper()], language)
        rows.append((name, p, award, p * award / jackpot.wager))
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
    language: str = DEFAULT_LANGUAGE,
) -> Report:
    """The PAR sheet of an exact analysis and its jackpot (with plots when ``figures``: they
    are shown only in HTML). ``seconds``: the computation time, stated when given (the
    recorded sheets leave it out, so the same options always give the same sheet).
    ``language``: the sheet's words (one of :func:`.report.sheet_languages`;
    any other is refused with ``ConfigError``)."""
    t = partial(say, check_language(language))
    rules = analysis.rules
    ranking = analysis.ranking
    units = _minor_units
    cap_units = analysis.max_payout_units
    fixed = rules.jackpot_fixed_awards
    break_even = jackpot.break_even_meter()
    cap = (
        t("par.csp_cap_value", cap=str(cap_units))
        if cap_units is not None
        else t("par.csp_cap_not_applied")
    )
    paytable = ", ".join(
        t(
            "par.paytable_entry",
            hand=_hand_name(category, language, as_it_wins=True),
            odds=str(rules.raise_odds(category)),
        )
        for category in HandCategory
    )
    if cap_units is not None:
        paytable = t("par.csp_paytable_capped", paytable=paytable, cap=str(cap_units))
    ranking_detail = (
        t("par.csp_ranking_macau_detail")
        if ranking == "macau"
        else t("par.csp_ranking_standard_detail")
    )
    configuration = (
        (t("par.game"), t("par.csp_game_value")),
        (t("par.ranking"), ranking_detail),
        (
            t("par.royal_flush_odds"),
            t("par.csp_royal_odds_value", odds=str(rules.royal_flush_odds)),
        ),
        (t("par.raise_paytable"), paytable),
        (t("par.max_payout_cap"), cap),
        (t("par.dealer_qualifies"), t("par.csp_qualifies_value")),
        (t("par.decision"), t("par.csp_decision_value")),
        (t("par.jackpot_wager"), t("par.minor_units", amount=units(jackpot.wager))),
        (
            t("par.jackpot_fixed_awards"),
            t(
                "par.csp_fixed_awards_value",
                royal_flush=units(fixed.royal_flush),
                straight_flush=units(fixed.straight_flush),
                four_of_a_kind=units(fixed.four_of_a_kind),
                full_house=units(fixed.full_house),
                flush=units(fixed.flush),
            ),
        ),
        (t("par.jackpot_meter"), t("par.minor_units", amount=units(jackpot.meter))),
        (
            t("par.meter_contribution"),
            t(
                "par.csp_contribution_value",
                share=f"{float(rules.jackpot_contribution) * 100:g}",
            ),
        ),
        (t("par.deals_counted"), t("par.csp_deals_value", deals=f"{TOTAL_DEALS:,}")),
    )
    summary = [
        (t("par.house_edge_per_ante"), _pct(analysis.house_edge, 8)),
        (t("par.element_of_risk"), _pct(analysis.element_of_risk, 8)),
        (t("par.expected_win_per_ante"), str(analysis.expected_win)),
        (t("par.raise_probability"), _pct(analysis.raise_probability)),
        (t("par.average_wager_per_ante"), f"{float(analysis.average_wager):.8f}"),
        (t("par.dealer_qualifies"), _pct(analysis.dealer_qualifies_probability)),
        (t("par.dealer_qualifies_given_raise"), _pct(analysis.dealer_qualifies_given_raise)),
        (t("par.standard_deviation_per_ante"), f"{analysis.standard_deviation:.6f}"),
        (t("par.jackpot_return_at_meter"), _pct(jackpot.return_rate(jackpot.meter), 4)),
        (t("par.jackpot_break_even_meter"), t("par.minor_units", amount=units(break_even))),
    ]
    if seconds is not None:
        summary.append((t("par.computation_time"), t("par.seconds", seconds=f"{seconds:.1f}")))
    outcome_table = Table(
        t("par.csp_return_table"),
        (
            t("par.event"),
            t("par.units_won"),
            t("par.combinations"),
            t("par.probability"),
            t("par.return"),
        ),
        (
            *(
                (
                    _event_name(o.event, language),
                    o.units,
                    o.combinations,
                    o.probability,
                    o.expected_return,
                )
                for o in analysis.outcomes
            ),
            (t("par.total"), None, analysis.total_combinations, Fraction(1), analysis.expected_win),
        ),
    )
    jackpot_table = Table(
        t("par.csp_jackpot_table", meter=units(jackpot.meter), wager=units(jackpot.wager)),
        (t("par.combination"), t("par.probability_box_raised"), t("par.award"), t("par.return")),
        (
            *_jackpot_rows(jackpot, language),
            (t("par.total"), None, None, jackpot.return_rate(jackpot.meter)),
        ),
        note=t("par.csp_jackpot_note"),
    )
    ak_table = ak_strategy_table(analysis, language)
    meter_table = Table(
        t("par.jackpot_return_by_meter"),
        (t("par.meter"), t("par.expected_award"), t("par.return"), t("par.expected_paid")),
        tuple(
            (m, jackpot.expected_award(m), jackpot.return_rate(m), jackpot.meter_drain(m))
            for m in meter_points(jackpot)
        ),
        note=t("par.csp_meter_note", amount=units(jackpot.contribution_per_wager)),
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

        plots = caribbean_figures(analysis, jackpot, meter_points(jackpot), language)
    notes = (
        t("par.csp_note_method"),
        t("par.csp_note_indifferent", count=str(analysis.indifferent_pairs)),
        t("par.csp_note_element_of_risk"),
        t("par.csp_note_jackpot"),
    )
    return Report(
        title=t(
            "par.csp_title",
            ranking=_ranking_name(ranking, language),
            odds=str(rules.royal_flush_odds),
        ),
        configuration=configuration,
        summary=tuple(summary),
        tables=(
            outcome_table,
            _category_table(analysis, language),
            ak_table,
            jackpot_table,
            meter_table,
        ),
        data=data,
        figures=plots,
        notes=notes,
        language=language,
    )


def _exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def simulation_sheet(
    result: SimulationResult, seconds: float | None = None, language: str = DEFAULT_LANGUAGE
) -> Report:
    """The report of a simulation: observed frequencies, 95 % intervals, exact values
    (``seconds``: the simulation's time, for the speed line; ``language``: its words)."""
    t = partial(say, check_language(language))
    exact = result.exact
    rows: list[tuple[object, ...]] = []
    for line in result.lines:
        low, high = line.ci95
        inside = low <= float(line.exact) <= high
        rows.append(
            (
                _event_name(line.event, language),
                line.units,
                line.count,
                line.frequency,
                low,
                high,
                line.exact,
                inside,
            )
        )
    mean_low = result.mean - result.mean_half_width
    mean_high = result.mean + result.mean_half_width
    summary = [
        (t("par.rounds"), f"{result.rounds:,}"),
        (t("par.seed"), str(result.seed)),
        (
            t("par.mean_win_per_ante"),
            t(
                "par.csp_simulated_mean",
                mean=f"{result.mean:.6f}",
                low=f"{mean_low:.6f}",
                high=f"{mean_high:.6f}",
                exact=f"{float(exact.expected_win):.6f}",
            ),
        ),
        (
            t("par.raise_frequency"),
            t(
                "par.csp_simulated_raise_frequency",
                frequency=f"{result.raise_frequency:.6f}",
                exact=f"{float(exact.raise_probability):.6f}",
            ),
        ),
    ]
    if seconds is not None:
        summary.append(speed_line(result.rounds, seconds, language))
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
        title=t(
            "par.csp_simulation_title",
            ranking=_ranking_name(exact.ranking, language),
            odds=str(exact.rules.royal_flush_odds),
        ),
        configuration=(
            (t("par.strategy"), t("par.csp_simulation_strategy")),
            (t("par.random_numbers"), t("par.csp_simulation_random_numbers")),
        ),
        summary=tuple(summary),
        tables=(
            Table(
                t("par.observed_against_exact"),
                (
                    t("par.event"),
                    t("par.units"),
                    t("par.count"),
                    t("par.frequency"),
                    t("par.low_95"),
                    t("par.high_95"),
                    t("par.exact"),
                    t("par.exact_inside"),
                ),
                tuple(rows),
                note=t("par.csp_simulation_note"),
            ),
        ),
        data=data,
        language=language,
    )
