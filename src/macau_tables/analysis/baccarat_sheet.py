"""The baccarat PAR sheet and simulation report: analysis results → :class:`Report`.

:func:`par_sheet` presents an exact analysis (:mod:`.baccarat_exact`) with the optional
card-counting study, and :func:`simulation_sheet` a simulation (:mod:`.baccarat_sim`), as a
:class:`~.report.Report`. A shoe outside BAC-1's 6 … 12 decks is said so in the header
(:attr:`Report.warnings`). Nothing is computed here beyond reading the results.
"""

from __future__ import annotations

from fractions import Fraction

from ..jackpot import Combination
from ..money import format_minor
from .baccarat_counting import CountingResult
from .baccarat_exact import WAGERS, BaccaratAnalysis, break_even_meter, law_note
from .baccarat_sim import SimulationResult
from .report import Figure, Report, Table

__all__ = ["par_sheet", "simulation_sheet"]

_RANK_NAMES = {10: "10", 11: "J", 12: "Q", 13: "K", 14: "A"}
_COMBO_NAMES = {
    Combination.ROYAL_FLUSH: "royal flush (黃袍麒)",
    Combination.HEAVENLY_STRAIGHT: "heavenly straight (天堂順)",
    Combination.FOUR_OF_A_KIND: "four of a kind (四條)",
    Combination.DOUBLE_PAIR: "double pair (雙對子)",
    Combination.THREE_OF_A_KIND: "three of a kind (三條)",
    Combination.SINGLE_PAIR: "single pair (單對子)",
}


def _exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def _pct(value: Fraction | float, digits: int = 4) -> str:
    return f"{float(value) * 100:.{digits}f} %"


# -- the analysis report -----------------------------------------------------------------------


def _outcome_rows(a: BaccaratAnalysis) -> tuple[tuple[object, ...], ...]:
    m = a.main
    events: list[tuple[str, int]] = [
        ("banker wins (BAC-11)", m.banker),
        ("player wins (BAC-11)", m.player),
        ("tie (BAC-12)", m.tie),
        ("banker wins on 6 (BAC-18.2)", m.banker_six),
        ("  with two cards (Lucky 6 12:1)", m.banker_six_two_cards),
        ("  with three cards (Lucky 6 20:1)", m.banker_six_three_cards),
        ("natural (BAC-9.2)", m.natural),
        ("cards dealt: 4", m.cards_dealt(4)),
        ("cards dealt: 5", m.cards_dealt(5)),
        ("cards dealt: 6", m.cards_dealt(6)),
        ("player pair (BAC-13)", a.pairs),
        ("banker pair (BAC-13)", a.pairs),
    ]
    return tuple((name, count, a.probability(count)) for name, count in events)


def _wager_rows(a: BaccaratAnalysis) -> tuple[tuple[object, ...], ...]:
    rows: list[tuple[object, ...]] = []
    for key in WAGERS:
        w = a.wagers[key]
        rows.append(
            (
                w.name,
                w.pays,
                _pct(w.house_edge),
                _exact(w.house_edge),
                w.standard_deviation,
                w.win_probability,
            )
        )
    j = a.jackpot
    rows.append(
        (
            "Jackpot",
            "fixed awards / meter (BAC-17)",
            _pct(j.house_edge),
            _exact(j.house_edge),
            j.standard_deviation,
            j.hit_probability,
        )
    )
    return tuple(rows)


def _breakdown_rows(a: BaccaratAnalysis) -> tuple[tuple[object, ...], ...]:
    rows: list[tuple[object, ...]] = []
    for key in WAGERS:
        w = a.wagers[key]
        for desc, count, payoff in w.outcomes:
            rows.append((w.name, desc, str(payoff), count, Fraction(count, w.total)))
    return tuple(rows)


def _jackpot_rows(a: BaccaratAnalysis) -> tuple[tuple[object, ...], ...]:
    rows: list[tuple[object, ...]] = [
        (
            _COMBO_NAMES[line.combination],
            line.count,
            line.probability,
            format_minor(line.award),
            _pct(line.return_share, 4),
        )
        for line in a.jackpot.lines
    ]
    rows.append(("total", None, a.jackpot.hit_probability, None, _pct(a.jackpot.total_return, 4)))
    return tuple(rows)


def _eor_rows(a: BaccaratAnalysis) -> tuple[tuple[object, ...], ...]:
    keys = [*WAGERS, "jackpot"]
    return tuple(
        (_RANK_NAMES.get(rank, str(rank)), *(f"{float(a.eor[rank][k]) * 100:+.5f}" for k in keys))
        for rank in range(2, 15)
    )


def _counting_table(c: CountingResult) -> Table:
    rows = tuple(
        (
            r.wager,
            r.rule,
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
    note = (
        f"{c.shoes:,} simulated shoes ({c.rounds:,} rounds), seed {c.seed}. Expectations are "
        "exact for the cards the counter has not seen (rest of the shoe plus face-down burned "
        "cards). Lucky 6 tags (from the effects of removal): "
        f"{tags}; true count = balanced running count per 52 unseen cards; linear break-even "
        f"true count {c.break_even_true_count:+.1f}. The pair wagers' effects of removal are "
        "all exactly 0, so no linear count exists for them: only tracking all 13 ranks helps. "
        f"Mean expectation over all rounds: pair {_pct(c.mean_ev_pair, 3)}, Lucky 6 "
        f"{_pct(c.mean_ev_lucky_six, 3)}."
    )
    return Table(
        "Game protection: what a card counter could gain",
        (
            "wager",
            "strategy",
            "rounds bet",
            "mean EV of those bets",
            "gain per 100 rounds (units)",
            "95 % CI",
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
) -> Report:
    """The PAR sheet of an exact analysis, with the card-counting study when ``counting`` is
    given and plots when ``figures`` (shown only in HTML). ``seconds``: the computation time,
    stated when given."""
    m = a.main
    w = a.wagers
    aw = a.jackpot.awards
    configuration: list[tuple[str, str]] = [
        ("Game", "Baccarat (百家樂), 2004 regulation with 73/2005, 30/2007, 56/2018"),
        ("Decks", f"{a.decks} ({52 * a.decks} cards, each distinct)"),
        (
            "Counting",
            "ordered 6-card sequences from the full shoe (4/5-card rounds weighted by "
            "their completions)",
        ),
        ("Total combinations", f"{a.total:,}"),
        ("Banker / player / tie", "1:1 less 5 % / 1:1 / 8:1 (BAC-17, BAC-18.1)"),
        ("No-commission banker", "1:1, a win on 6 pays 1:2 (BAC-18.2)"),
        ("Pairs", "11:1 (BAC-13, BAC-17)"),
        ("Lucky 6", "12:1 two-card 6, 20:1 three-card 6 (56/2018)"),
        (
            "Amounts",
            "major units with two decimals (--jackpot-wager, --meter and --award-* take minor "
            "units: 10000 = 100.00)",
        ),
        ("Jackpot wager", format_minor(aw.wager)),
        ("Jackpot meter", format_minor(aw.meter)),
        (
            "Jackpot fixed awards",
            f"heavenly straight {format_minor(aw.heavenly_straight)} (or 10 % of the meter), "
            f"four of a kind {format_minor(aw.four_of_a_kind)}, "
            f"double pair {format_minor(aw.double_pair)}, "
            f"three of a kind {format_minor(aw.three_of_a_kind)}, "
            f"single pair {format_minor(aw.single_pair)}",
        ),
        ("Jackpot bettors per round", str(aw.bettors)),
    ]
    if counting is not None:
        configuration.extend(
            (f"Counting study: {k}", v) for k, v in counting.procedure.describe()[1:]
        )
    summary: list[tuple[str, str]] = [
        (
            "P(banker) / P(player) / P(tie)",
            " / ".join(_pct(a.probability(c)) for c in (m.banker, m.player, m.tie)),
        ),
    ]
    for key in WAGERS:
        summary.append(
            (
                f"House edge: {w[key].name}",
                f"{_pct(w[key].house_edge)} = {_exact(w[key].house_edge)}",
            )
        )
    even = break_even_meter(a.jackpot_counts, a.total, aw)
    summary.append(("Jackpot return", _pct(a.jackpot.total_return)))
    summary.append(("Jackpot break-even meter", "none" if even is None else format_minor(even)))
    if seconds is not None:
        summary.append(("Computed in", f"{seconds:.3f} s"))
    tables = [
        Table("Outcomes", ("event", "count", "probability"), _outcome_rows(a)),
        Table(
            "Wagers (per unit wagered, per round dealt)",
            ("wager", "pays", "house edge", "exact", "standard deviation", "P(win)"),
            _wager_rows(a),
            "Ties push banker and player wagers (BAC-12). The house edge is per round dealt.",
        ),
        Table(
            "Wager outcomes",
            ("wager", "outcome", "net payoff", "count", "probability"),
            _breakdown_rows(a),
        ),
        Table(
            "Banker wins by total",
            ("banker total", "count", "probability"),
            tuple((t, m.banker_wins_on(t), a.probability(m.banker_wins_on(t))) for t in range(10)),
        ),
        Table(
            "Progressive jackpot (BAC-13.4, BAC-17): highest combination only",
            ("combination", "count", "probability", "award", "return"),
            _jackpot_rows(a),
            "Award per winning wager; royal flush = the whole meter, heavenly straight = the "
            "higher of the fixed award and 10 % of the meter, both shared by the round's "
            "jackpot bettors; the others are fixed awards paid to each winner. Return = "
            "Σ probability × award / wager (the wager is collected every round).",
        ),
        Table(
            "Effects of removal (change of the player's expectation, % of a unit, per card)",
            ("rank", *(w[k].name for k in WAGERS), "Jackpot"),
            _eor_rows(a),
            f"One card of the rank removed from the full {a.decks}-deck shoe (jackpot: average "
            "of the four suits). Positive = the wager improves for the player.",
        ),
    ]
    if counting is not None:
        tables.append(_counting_table(counting))
    notes = [
        "Exact: the value-only wagers come from a table of all 339,400 value sequences of a "
        "round grouped by their multiset of values (each weighted by falling factorials of "
        "the shoe's counts); pairs and jackpot combinations from closed forms in the rank and "
        "suit counts. Both are checked against independent brute-force enumerations.",
        "Interpretations: a pair is two cards of one rank (J-J, not J-Q, BAC-13); four of a "
        "kind needs four different suits, four of one rank otherwise counts as three of a "
        "kind; royal flush / heavenly straight use P1 B1 P2 B2 and the fifth card dealt.",
        "Fixed jackpot awards shown here are illustrative settings; real awards need the "
        "regulator's approval (BAC-17.7, BAC-19).",
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
        title=f"Baccarat PAR sheet: {a.decks} decks",
        configuration=tuple(configuration),
        summary=tuple(summary),
        tables=tuple(tables),
        data=data,
        figures=_figures(a) if figures else (),
        notes=tuple(notes),
        warnings=_warnings(a.decks),
    )


def _figures(a: BaccaratAnalysis) -> tuple[Figure, ...]:
    from .plots import baccarat_figures

    return baccarat_figures(a)


def _warnings(decks: int) -> tuple[str, ...]:
    note = law_note(decks)
    return () if note is None else (note,)


# -- the simulation report ---------------------------------------------------------------------


def simulation_sheet(result: SimulationResult, seconds: float | None = None) -> Report:
    """Simulated means with 95 % confidence intervals beside the exact values."""
    rows = tuple(
        (e.label, e.mean, e.low, e.high, e.exact, e.covers_exact) for e in result.estimates
    )
    summary = [
        ("Rounds", f"{result.rounds:,}"),
        ("Shoes", f"{result.shoes:,}" if not result.procedure.machine else "machine (no shoe)"),
        ("Seed", str(result.seed)),
    ]
    if seconds is not None:
        summary.append(
            ("Speed", f"{result.rounds / max(seconds, 1e-9) / 1e6:.2f} million rounds/s")
        )
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
        title=f"Baccarat simulation: {result.procedure.decks} decks",
        configuration=result.procedure.describe(),
        summary=tuple(summary),
        tables=(
            Table(
                "Simulated against exact (net result per unit for wagers, probability for events)",
                ("quantity", "simulated", "95 % CI low", "95 % CI high", "exact", "inside CI"),
                rows,
                "Confidence intervals by batch means over independent batches of whole shoes. "
                "Exact values are for one round off the top of a full shoe. Over dealt shoes the "
                "cut card and the burn shift the per-round frequencies a little (the cut-card "
                "effect: naturals about 0.005 percentage points lower with 8 decks, 0.02 with 1 "
                "deck), so with "
                "billions of rounds, or few decks, an exact value can fall outside its interval.",
            ),
        ),
        data=data,
        notes=(
            "Shoe procedure as the law describes it (BAC-2, BAC-3); the kernel's round function "
            "is tested equal to macau_tables.baccarat.tableau.deal_round.",
        ),
        warnings=_warnings(result.procedure.decks),
    )
