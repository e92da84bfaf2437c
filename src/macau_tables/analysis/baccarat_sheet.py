"""The baccarat PAR sheet and simulation report: analysis results → :class:`Report`.

:func:`par_sheet` presents an exact analysis (:mod:`.baccarat_exact`) with the optional
card-counting study, and :func:`simulation_sheet` a simulation (:mod:`.baccarat_sim`), as a
:class:`~.report.Report`. A shoe outside BAC-1's 6 … 12 decks is said so in the header
(:attr:`Report.warnings`). Nothing is computed here beyond reading the results. Both take a
``language`` (one of :func:`.report.sheet_languages`): every word of the sheet — headings,
titles, column headers, labels, the wagers', outcomes' and jackpot combinations' names,
descriptions and notes — is a ``par.*`` message; the figures do not change.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import partial

from ..baccarat.rules import MAX_DECKS as LAW_MAX_DECKS
from ..baccarat.rules import MIN_DECKS as LAW_MIN_DECKS
from ..baccarat.rules import BurnRule, LastRoundRule
from ..jackpot import Combination
from ..messages import DEFAULT_LANGUAGE
from ..money import format_minor
from .baccarat_counting import CountingResult
from .baccarat_exact import WAGERS, BaccaratAnalysis, break_even_meter, law_note
from .baccarat_sim import ShoeProcedure, SimulationResult
from .report import Figure, Report, Table, check_language, say, speed_line

__all__ = ["describe_procedure", "par_sheet", "simulation_sheet"]

_RANK_NAMES = {10: "10", 11: "J", 12: "Q", 13: "K", 14: "A"}
_COMBO_KEYS = {
    Combination.ROYAL_FLUSH: "par.bac_royal_flush",
    Combination.HEAVENLY_STRAIGHT: "par.bac_heavenly_straight",
    Combination.FOUR_OF_A_KIND: "par.bac_four_of_a_kind",
    Combination.DOUBLE_PAIR: "par.bac_double_pair",
    Combination.THREE_OF_A_KIND: "par.bac_three_of_a_kind",
    Combination.SINGLE_PAIR: "par.bac_single_pair",
}
# The wagers' names by their key (baccarat_exact.WAGERS; the English ones are WagerStats.name).
_WAGER_KEYS = {
    "banker": "par.bac_banker",
    "banker_no_commission": "par.bac_banker_no_commission",
    "player": "par.bac_player",
    "tie": "par.bac_tie",
    "player_pair": "par.bac_player_pair",
    "banker_pair": "par.bac_banker_pair",
    "lucky_six": "par.bac_lucky_six",
}
# The words of baccarat_exact and baccarat_counting (English) this sheet shows, by catalog key:
# what a wager pays (WagerStats.pays), its outcomes (WagerStats.outcomes), the counting study's
# wagers and rules (CountRow). A text not listed is shown as it is.
_PAYS_KEYS = {
    "1:1 less 5 % (BAC-17, BAC-18.1)": "par.bac_pays_banker",
    "1:1, a win on 6 pays 1:2 (BAC-18.2)": "par.bac_pays_no_commission",
    "1:1 (BAC-17)": "par.bac_pays_player",
    "8:1 (BAC-17)": "par.bac_pays_tie",
    "11:1 (BAC-17)": "par.bac_pays_pair",
    "12:1 two cards, 20:1 three cards (56/2018)": "par.bac_pays_lucky_six",
}
_OUTCOME_KEYS = {
    "banker wins": "par.bac_outcome_banker_wins",
    "player wins": "par.bac_outcome_player_wins",
    "tie (push)": "par.bac_outcome_tie_push",
    "tie": "par.bac_outcome_tie",
    "banker wins, not on 6": "par.bac_outcome_banker_wins_not_on_6",
    "banker wins on 6": "par.bac_outcome_banker_wins_on_6",
    "P1 and P2 one rank": "par.bac_outcome_player_pair",
    "B1 and B2 one rank": "par.bac_outcome_banker_pair",
    "banker wins on a two-card 6": "par.bac_outcome_two_card_6",
    "banker wins on a three-card 6": "par.bac_outcome_three_card_6",
    "loses": "par.bac_outcome_loses",
}
_COUNTING_WAGER_KEYS = {
    "player or banker pair": "par.bac_counting_pairs",
    "Lucky 6": "par.bac_lucky_six",
}
_COUNTING_RULE_KEYS = {
    "perfect rank tracking: bet when EV > 0": "par.bac_counting_rank_tracking",
    "perfect value tracking: bet when EV > 0": "par.bac_counting_value_tracking",
}
_TAG_COUNT = re.compile(r"tag count: bet when true count ≥ (\S+)")


def _known(text: str, keys: dict[str, str], language: str) -> str:
    key = keys.get(text)
    return text if key is None else say(language, key)


def _counting_rule(rule: str, language: str) -> str:
    tag = _TAG_COUNT.fullmatch(rule)
    if tag is not None:
        return say(language, "par.bac_counting_tag_count", count=tag.group(1))
    return _known(rule, _COUNTING_RULE_KEYS, language)


# A simulation's estimates other than the wagers (baccarat_sim.Estimate.key → catalog key).
_ESTIMATE_KEYS = {
    "p_banker": "par.bac_outcome_banker_wins",
    "p_player": "par.bac_outcome_player_wins",
    "p_tie": "par.bac_outcome_tie",
    "p_banker_six_two": "par.bac_outcome_two_card_6",
    "p_banker_six_three": "par.bac_outcome_three_card_6",
    "p_natural": "par.bac_estimate_natural",
    "p_player_pair": "par.bac_estimate_player_pair",
    "p_banker_pair": "par.bac_estimate_banker_pair",
}
# The jackpot combinations' plain names (the simulation's "jackpot: …" estimates).
_PLAIN_COMBO_KEYS = {
    Combination.ROYAL_FLUSH: "par.hand_royal_flush",
    Combination.HEAVENLY_STRAIGHT: "par.combo_heavenly_straight",
    Combination.FOUR_OF_A_KIND: "par.hand_four_of_a_kind",
    Combination.DOUBLE_PAIR: "par.combo_double_pair",
    Combination.THREE_OF_A_KIND: "par.hand_three_of_a_kind",
    Combination.SINGLE_PAIR: "par.combo_single_pair",
}


def _estimate_label(key: str, label: str, language: str) -> str:
    """A simulation estimate's label in ``language`` (``label``, the English one, when this
    sheet does not know the key)."""
    if key in _WAGER_KEYS:
        return _wager_name(key, language)
    if key in _ESTIMATE_KEYS:
        return say(language, _ESTIMATE_KEYS[key])
    if key.startswith("p_cards_"):
        return say(language, "par.bac_cards_dealt", cards=key.removeprefix("p_cards_"))
    combination = key.removeprefix("p_")
    if combination in {c.value for c in _PLAIN_COMBO_KEYS}:
        name = say(language, _PLAIN_COMBO_KEYS[Combination(combination)])
        return say(language, "par.bac_estimate_jackpot", combination=name)
    return label


def _wager_name(key: str, language: str) -> str:
    return say(language, _WAGER_KEYS[key])


def describe_procedure(procedure: ShoeProcedure, language: str) -> tuple[tuple[str, str], ...]:
    """The (label, value) pairs of a shoe procedure in ``language``; in English exactly
    :meth:`.baccarat_sim.ShoeProcedure.describe` (a test keeps them equal)."""
    t = partial(say, language)
    decks = (t("par.procedure_decks"), str(procedure.decks))
    if procedure.machine:
        return decks, (t("par.procedure_dealing"), t("par.procedure_machine"))
    burn = {
        BurnRule.FIRST_CARD: t("par.procedure_burn_first_card"),
        BurnRule.DECKS: t("par.procedure_burn_decks", cards=str(procedure.decks)),
        BurnRule.FIXED: t("par.procedure_burn_fixed", cards=str(procedure.burn_count)),
    }[procedure.burn]
    last = {
        LastRoundRule.THIS_ROUND: t("par.procedure_last_this_round"),
        LastRoundRule.ONE_MORE: t("par.procedure_last_one_more"),
    }[procedure.last_round]
    return (
        decks,
        (t("par.procedure_burn"), burn),
        (
            t("par.procedure_cut_card"),
            t("par.procedure_cut_card_value", cards=str(procedure.cut_card)),
        ),
        (t("par.procedure_last_round"), last),
    )


def _exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def _pct(value: Fraction | float, digits: int = 4) -> str:
    return f"{float(value) * 100:.{digits}f} %"


# -- the analysis report -----------------------------------------------------------------------


def _outcome_rows(a: BaccaratAnalysis, language: str) -> tuple[tuple[object, ...], ...]:
    m = a.main
    t = partial(say, language)
    events: list[tuple[str, int]] = [
        (t("par.bac_banker_wins"), m.banker),
        (t("par.bac_player_wins"), m.player),
        (t("par.bac_tie_event"), m.tie),
        (t("par.bac_banker_wins_on_6"), m.banker_six),
        ("  " + t("par.bac_with_two_cards"), m.banker_six_two_cards),
        ("  " + t("par.bac_with_three_cards"), m.banker_six_three_cards),
        (t("par.bac_natural"), m.natural),
        *((t("par.bac_cards_dealt", cards=str(n)), m.cards_dealt(n)) for n in (4, 5, 6)),
        (t("par.bac_player_pair_event"), a.pairs),
        (t("par.bac_banker_pair_event"), a.pairs),
    ]
    return tuple((name, count, a.probability(count)) for name, count in events)


def _wager_rows(a: BaccaratAnalysis, language: str) -> tuple[tuple[object, ...], ...]:
    rows: list[tuple[object, ...]] = []
    for key in WAGERS:
        w = a.wagers[key]
        rows.append(
            (
                _wager_name(key, language),
                _known(w.pays, _PAYS_KEYS, language),
                _pct(w.house_edge),
                _exact(w.house_edge),
                w.standard_deviation,
                w.win_probability,
            )
        )
    j = a.jackpot
    rows.append(
        (
            say(language, "par.bac_jackpot"),
            say(language, "par.bac_pays_jackpot"),
            _pct(j.house_edge),
            _exact(j.house_edge),
            j.standard_deviation,
            j.hit_probability,
        )
    )
    return tuple(rows)


def _breakdown_rows(a: BaccaratAnalysis, language: str) -> tuple[tuple[object, ...], ...]:
    rows: list[tuple[object, ...]] = []
    for key in WAGERS:
        w = a.wagers[key]
        for desc, count, payoff in w.outcomes:
            outcome = _known(desc, _OUTCOME_KEYS, language)
            name = _wager_name(key, language)
            rows.append((name, outcome, str(payoff), count, Fraction(count, w.total)))
    return tuple(rows)


def _jackpot_rows(a: BaccaratAnalysis, language: str) -> tuple[tuple[object, ...], ...]:
    rows: list[tuple[object, ...]] = [
        (
            say(language, _COMBO_KEYS[line.combination]),
            line.count,
            line.probability,
            format_minor(line.award),
            _pct(line.return_share, 4),
        )
        for line in a.jackpot.lines
    ]
    total = say(language, "par.total")
    rows.append((total, None, a.jackpot.hit_probability, None, _pct(a.jackpot.total_return, 4)))
    return tuple(rows)


def _eor_rows(a: BaccaratAnalysis) -> tuple[tuple[object, ...], ...]:
    keys = [*WAGERS, "jackpot"]
    return tuple(
        (_RANK_NAMES.get(rank, str(rank)), *(f"{float(a.eor[rank][k]) * 100:+.5f}" for k in keys))
        for rank in range(2, 15)
    )


def _counting_table(c: CountingResult, language: str) -> Table:
    words = partial(say, language)
    rows = tuple(
        (
            _known(r.wager, _COUNTING_WAGER_KEYS, language),
            _counting_rule(r.rule, language),
            _pct(r.bet_share, 2),
            _pct(r.mean_when_bet, 2),
            f"{r.gain_per_round * 100:.4f}",
            f"± {r.gain_half_width * 100:.4f}",
        )
        for r in c.rows
    )
    tags = ", ".join(
        f"{name}: {t:+d}"
        for name, t in zip(("10-K", "A", *map(str, range(2, 10))), c.tags, strict=True)
    )
    note = words(
        "par.bac_counting_note",
        shoes=f"{c.shoes:,}",
        rounds=f"{c.rounds:,}",
        seed=str(c.seed),
        tags=tags,
        break_even=f"{c.break_even_true_count:+.1f}",
        pair=_pct(c.mean_ev_pair, 3),
        lucky_six=_pct(c.mean_ev_lucky_six, 3),
    )
    return Table(
        words("par.bac_counting_table"),
        (
            words("par.wager"),
            words("par.strategy_column"),
            words("par.rounds_bet"),
            words("par.mean_ev_of_bets"),
            words("par.gain_per_100_rounds"),
            words("par.ci_95"),
        ),
        rows,
        note,
    )


def par_sheet(
    a: BaccaratAnalysis,
    counting: CountingResult | None = None,
    *,
    figures: bool = False,
    seconds: float | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> Report:
    """The PAR sheet of an exact analysis, with the card-counting study when ``counting`` is
    given and plots when ``figures`` (shown only in HTML). ``seconds``: the computation time,
    stated when given. ``language``: the sheet's words (one of
    :func:`.report.sheet_languages`; any other is refused with ``ConfigError``)."""
    t = partial(say, check_language(language))
    m = a.main
    w = a.wagers
    aw = a.jackpot.awards
    configuration: list[tuple[str, str]] = [
        (t("par.game"), t("par.bac_game_value")),
        (
            t("par.decks"),
            t("par.bac_decks_value", decks=str(a.decks), cards=str(52 * a.decks)),
        ),
        (t("par.counting"), t("par.bac_counting_value")),
        (t("par.total_combinations"), f"{a.total:,}"),
        (t("par.bac_main_wagers"), t("par.bac_main_wagers_value")),
        (t("par.bac_no_commission_banker"), t("par.bac_pays_no_commission")),
        (t("par.bac_pairs"), t("par.bac_pairs_value")),
        (t("par.bac_lucky_six"), t("par.bac_lucky_six_value")),
        (t("par.amounts"), t("par.bac_amounts_value")),
        (t("par.jackpot_wager"), format_minor(aw.wager)),
        (t("par.jackpot_meter"), format_minor(aw.meter)),
        (
            t("par.jackpot_fixed_awards"),
            t(
                "par.bac_fixed_awards_value",
                heavenly_straight=format_minor(aw.heavenly_straight),
                four_of_a_kind=format_minor(aw.four_of_a_kind),
                double_pair=format_minor(aw.double_pair),
                three_of_a_kind=format_minor(aw.three_of_a_kind),
                single_pair=format_minor(aw.single_pair),
            ),
        ),
        (t("par.jackpot_bettors_per_round"), str(aw.bettors)),
    ]
    if counting is not None:
        configuration.extend(
            (t("par.counting_study_item", item=k), v)
            for k, v in describe_procedure(counting.procedure, language)[1:]
        )
    summary: list[tuple[str, str]] = [
        (
            t("par.bac_probabilities"),
            " / ".join(_pct(a.probability(c)) for c in (m.banker, m.player, m.tie)),
        ),
    ]
    for key in WAGERS:
        summary.append(
            (
                t("par.house_edge_of", wager=_wager_name(key, language)),
                f"{_pct(w[key].house_edge)} = {_exact(w[key].house_edge)}",
            )
        )
    even = break_even_meter(a.jackpot_counts, a.total, aw)
    summary.append((t("par.jackpot_return"), _pct(a.jackpot.total_return)))
    summary.append(
        (
            t("par.jackpot_break_even_meter"),
            t("par.none") if even is None else format_minor(even),
        )
    )
    if seconds is not None:
        summary.append((t("par.computation_time"), t("par.seconds", seconds=f"{seconds:.3f}")))
    tables = [
        Table(
            t("par.outcomes"),
            (t("par.event"), t("par.count"), t("par.probability")),
            _outcome_rows(a, language),
        ),
        Table(
            t("par.bac_wagers_table"),
            (
                t("par.wager"),
                t("par.pays"),
                t("par.house_edge"),
                t("par.exact"),
                t("par.standard_deviation"),
                t("par.p_win"),
            ),
            _wager_rows(a, language),
            t("par.bac_wagers_note"),
        ),
        Table(
            t("par.bac_wager_outcomes"),
            (
                t("par.wager"),
                t("par.outcome"),
                t("par.net_payoff"),
                t("par.count"),
                t("par.probability"),
            ),
            _breakdown_rows(a, language),
        ),
        Table(
            t("par.bac_banker_wins_by_total"),
            (t("par.bac_banker_total"), t("par.count"), t("par.probability")),
            tuple(
                (total, m.banker_wins_on(total), a.probability(m.banker_wins_on(total)))
                for total in range(10)
            ),
        ),
        Table(
            t("par.bac_jackpot_table"),
            (
                t("par.combination"),
                t("par.count"),
                t("par.probability"),
                t("par.award"),
                t("par.return"),
            ),
            _jackpot_rows(a, language),
            t("par.bac_jackpot_note"),
        ),
        Table(
            t("par.bac_eor_table"),
            (t("par.rank"), *(_wager_name(k, language) for k in WAGERS), t("par.bac_jackpot")),
            _eor_rows(a),
            t("par.bac_eor_note", decks=str(a.decks)),
        ),
    ]
    if counting is not None:
        tables.append(_counting_table(counting, language))
    notes = [
        t("par.bac_note_method"),
        t("par.bac_note_interpretations"),
        t("par.bac_note_illustrative"),
    ]
    data: dict[str, object] = {
        "game": "baccarat",
        "decks": a.decks,
        "total_combinations": a.total,
        "probabilities": {
            "banker": float(a.probability(m.banker)),
            "player": float(a.probability(m.player)),
            "tie": float(a.probability(m.tie)),
            "banker_six": float(a.probability(m.banker_six)),
            "banker_six_two_cards": float(a.probability(m.banker_six_two_cards)),
            "banker_six_three_cards": float(a.probability(m.banker_six_three_cards)),
            "natural": float(a.probability(m.natural)),
            "player_pair": float(a.probability(a.pairs)),
            "banker_pair": float(a.probability(a.pairs)),
        },
        "counts": {
            "banker": m.banker,
            "player": m.player,
            "tie": m.tie,
            "banker_six": m.banker_six,
            "banker_six_two_cards": m.banker_six_two_cards,
            "banker_six_three_cards": m.banker_six_three_cards,
            "natural": m.natural,
            "player_pair": a.pairs,
            "banker_pair": a.pairs,
            "cards_dealt": {str(n): m.cards_dealt(n) for n in (4, 5, 6)},
            "banker_wins_by_total": [m.banker_wins_on(t) for t in range(10)],
        },
        "house_edge": {key: float(w[key].house_edge) for key in WAGERS},
        "house_edge_exact": {key: _exact(w[key].house_edge) for key in WAGERS},
        "standard_deviation": {key: w[key].standard_deviation for key in WAGERS},
        "cards_dealt": {str(n): float(a.probability(m.cards_dealt(n))) for n in (4, 5, 6)},
        "jackpot": {
            "wager": aw.wager,
            "meter": aw.meter,
            "bettors": aw.bettors,
            "combinations": {
                line.combination.value: {
                    "count": line.count,
                    "probability": float(line.probability),
                    "award": line.award,
                    "return": float(line.return_share),
                }
                for line in a.jackpot.lines
            },
            "return": float(a.jackpot.total_return),
            "return_exact": _exact(a.jackpot.total_return),
            "break_even_meter": even,
            "house_edge": float(a.jackpot.house_edge),
            "standard_deviation": a.jackpot.standard_deviation,
        },
        "effect_of_removal": {
            str(rank): {k: float(v) for k, v in a.eor[rank].items()} for rank in range(2, 15)
        },
        "counting": None
        if counting is None
        else {
            "shoes": counting.shoes,
            "rounds": counting.rounds,
            "seed": counting.seed,
            "lucky_six_tags": list(counting.tags),
            "break_even_true_count": counting.break_even_true_count,
            "strategies": [
                {
                    "wager": r.wager,
                    "rule": r.rule,
                    "bet_share": r.bet_share,
                    "mean_ev_when_bet": r.mean_when_bet,
                    "gain_per_round": r.gain_per_round,
                    "gain_ci95_half_width": r.gain_half_width,
                }
                for r in counting.rows
            ],
        },
    }
    return Report(
        title=t("par.bac_title", decks=str(a.decks)),
        configuration=tuple(configuration),
        summary=tuple(summary),
        tables=tuple(tables),
        data=data,
        figures=_figures(a, language) if figures else (),
        notes=tuple(notes),
        warnings=_warnings(a.decks, language),
        language=language,
    )


def _figures(a: BaccaratAnalysis, language: str) -> tuple[Figure, ...]:
    from .plots import baccarat_figures

    return baccarat_figures(a, language)


def _warnings(decks: int, language: str) -> tuple[str, ...]:
    """The header of a sheet for a shoe outside BAC-1 (in English, :func:`.baccarat_exact.
    law_note`'s sentence)."""
    if law_note(decks) is None:
        return ()
    law = {"minimum": str(LAW_MIN_DECKS), "maximum": str(LAW_MAX_DECKS), "decks": str(decks)}
    return (say(language, "par.bac_outside_the_law", **law),)


# -- the simulation report ---------------------------------------------------------------------


def simulation_sheet(
    result: SimulationResult, seconds: float | None = None, language: str = DEFAULT_LANGUAGE
) -> Report:
    """Simulated means with 95 % confidence intervals beside the exact values (words in
    ``language``)."""
    t = partial(say, check_language(language))
    rows = tuple(
        (_estimate_label(e.key, e.label, language), e.mean, e.low, e.high, e.exact, e.covers_exact)
        for e in result.estimates
    )
    summary = [
        (t("par.rounds"), f"{result.rounds:,}"),
        (
            t("par.shoes"),
            f"{result.shoes:,}" if not result.procedure.machine else t("par.bac_machine_no_shoe"),
        ),
        (t("par.seed"), str(result.seed)),
    ]
    if seconds is not None:
        summary.append(speed_line(result.rounds, seconds, language))
    data: dict[str, object] = {
        "game": "baccarat",
        "decks": result.procedure.decks,
        "rounds": result.rounds,
        "shoes": result.shoes,
        "seed": result.seed,
        "procedure": dict(result.procedure.describe()),
        "estimates": {
            e.key: {
                "mean": e.mean,
                "ci95": [e.low, e.high],
                "exact": float(e.exact),
                "exact_fraction": _exact(e.exact),
                "covers_exact": e.covers_exact,
            }
            for e in result.estimates
        },
    }
    return Report(
        title=t("par.bac_simulation_title", decks=str(result.procedure.decks)),
        configuration=describe_procedure(result.procedure, language),
        summary=tuple(summary),
        tables=(
            Table(
                t("par.bac_simulated_against_exact"),
                (
                    t("par.quantity"),
                    t("par.simulated"),
                    t("par.ci_95_low"),
                    t("par.ci_95_high"),
                    t("par.exact"),
                    t("par.inside_ci"),
                ),
                rows,
                t("par.bac_simulation_table_note"),
            ),
        ),
        data=data,
        notes=(t("par.bac_simulation_note"),),
        warnings=_warnings(result.procedure.decks, language),
        language=language,
    )
