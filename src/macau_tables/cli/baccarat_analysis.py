"""``macau-tables analyze baccarat`` and ``macau-tables simulate baccarat``.

Both commands validate every option before any work starts (a bad option exits with code 2 and
a message naming it), show a Rich progress bar on stderr for the simulations, and on Ctrl-C print
``interrupted: no results`` and exit 130 without printing partial numbers.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path

import typer

from ..cli import analyze_app, emit, fail, interruptible, simulate_app
from ..errors import ConfigError
from ..jackpot import Combination
from .baccarat_exact import (
    WAGERS,
    BaccaratAnalysis,
    JackpotAwards,
    analyze,
    break_even_meter,
    check_decks,
    jackpot_return,
)
from .baccarat_sim import (
    BurnRule,
    CountingResult,
    LastRound,
    ShoeProcedure,
    SimulationResult,
    counting_study,
    simulate,
)
from .report import (
    MAX_ROUNDS,
    METER_LINES_KEY,
    Figure,
    Report,
    Table,
    check_format,
    check_output,
    figure_png,
    mark_meters,
    progress,
    render,
)

__all__ = ["analysis_report", "simulation_report"]

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


def _money(minor: int) -> str:
    return f"{minor // 100:,}.{minor % 100:02d}"


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
            _money(line.award),
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


def _meter_curve(a: BaccaratAnalysis) -> tuple[list[int], list[float], int | None]:
    awards = a.jackpot.awards
    even = break_even_meter(a.jackpot_counts, a.total, awards)
    top = max(awards.meter * 3, (even or 0) * 3 // 2, 1000 * awards.wager)
    points = [top * i // 200 for i in range(201)]
    returns = [
        float(
            jackpot_return(
                a.jackpot_counts, a.total, dataclasses.replace(awards, meter=m)
            ).total_return
        )
        for m in points
    ]
    return points, returns, even


def _figures(a: BaccaratAnalysis) -> tuple[Figure, ...]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure as MplFigure

    m = a.main
    fig = MplFigure(figsize=(9, 4))
    ax1, ax2 = fig.subplots(1, 2)
    cards = ("4 cards", "5 cards", "6 cards")
    kinds = ((0, 1), (2, 3), (4,))
    bottom = [0.0, 0.0, 0.0]
    for winner, label, colour in (
        (1, "banker", "#c0392b"),
        (0, "player", "#2660a4"),
        (2, "tie", "#2e8b57"),
    ):
        heights = [float(a.probability(m.count_where(k, (winner,), range(10)))) for k in kinds]
        ax1.bar(cards, heights, bottom=bottom, label=label, color=colour)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax1.set_ylabel("probability")
    ax1.set_title("Winner by cards dealt")
    ax1.legend(ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.08), frameon=False)
    totals = list(range(10))
    ax2.bar(
        [str(t) for t in totals],
        [float(a.probability(m.banker_wins_on(t))) for t in totals],
        color="#c0392b",
    )
    ax2.set_xlabel("banker's winning total")
    ax2.set_title("Banker wins by total (6: no-commission, Lucky 6)")
    dist = Figure(
        "Outcome distribution",
        figure_png(fig),
        f"Exact probabilities, {a.decks} decks, over all ordered 6-card sequences.",
    )
    points, returns, even = _meter_curve(a)
    fig2 = MplFigure(figsize=(8, 4.4))
    ax = fig2.add_subplot()
    ax.plot([p / 100 for p in points], [r * 100 for r in returns], color="#8b0000", label="return")
    current = a.jackpot.awards.meter
    mark_meters(
        ax,
        (current / 100, _money(current)),
        None if even is None else (even / 100, _money(even)),
    )
    ax.set_xlabel("meter (major units)")
    ax.set_ylabel("return per jackpot wager (%)")
    title = "Jackpot return against the meter"
    if even is not None:
        title += f" (break even at a meter of {_money(even)})"
    ax.set_title(title)
    meter = Figure(
        "Jackpot return against the meter",
        figure_png(fig2),
        f"Expected award per unit of jackpot wager with the fixed awards of this sheet; "
        f"{METER_LINES_KEY}.",
    )
    return (dist, meter)


def analysis_report(
    a: BaccaratAnalysis, counting: CountingResult | None, fmt: str, seconds: float | None = None
) -> Report:
    """The PAR sheet of an exact analysis (figures only for ``html``)."""
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
        ("Jackpot wager", _money(aw.wager)),
        ("Jackpot meter", _money(aw.meter)),
        (
            "Jackpot fixed awards",
            f"heavenly straight {_money(aw.heavenly_straight)} (or 10 % of the meter), four of "
            f"a kind {_money(aw.four_of_a_kind)}, double pair {_money(aw.double_pair)}, three "
            f"of a kind {_money(aw.three_of_a_kind)}, single pair {_money(aw.single_pair)}",
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
    summary.append(("Jackpot break-even meter", "none" if even is None else _money(even)))
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
        figures=_figures(a) if fmt == "html" else (),
        notes=tuple(notes),
    )


# -- the simulation report ---------------------------------------------------------------------


def simulation_report(result: SimulationResult, seconds: float | None = None) -> Report:
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
    )


# -- command line ------------------------------------------------------------------------------


def _procedure(
    decks: int, burn: str, burn_count: int, cut_card: int, last_round: str, machine: bool
) -> ShoeProcedure:
    try:
        check_decks(decks)
    except ConfigError as exc:
        raise fail(f"--decks: {exc}") from None
    try:
        rule = BurnRule(burn)
    except ValueError:
        raise fail(
            f"--burn: unknown burn rule {burn!r}; choose {', '.join(b.value for b in BurnRule)}"
        ) from None
    try:
        last = LastRound(last_round)
    except ValueError:
        raise fail(
            f"--last-round: unknown rule {last_round!r}; choose "
            f"{', '.join(r.value for r in LastRound)}"
        ) from None
    if rule is BurnRule.FIXED and not 1 <= burn_count <= 8:
        raise fail(f"--burn-count: the fixed burn is 1 … 8 cards (83/2011), got {burn_count}")
    if rule is not BurnRule.FIXED and burn_count != 0:
        # Silently ignoring it would report a procedure the user did not ask for.
        raise fail(f"--burn-count applies only with --burn fixed (the burn rule is {burn!r})")
    try:
        return ShoeProcedure(decks, rule, burn_count, cut_card, last, machine)
    except ConfigError as exc:
        raise fail(f"--cut-card: {exc}") from None


def _check_format(fmt: str, output: Path | None) -> None:
    try:
        check_format(fmt)
    except ConfigError as exc:
        raise fail(f"--format: {exc}") from None
    try:
        check_output(output)
    except ConfigError as exc:
        raise fail(str(exc)) from None


def _write(text: str, output: Path | None) -> None:
    try:
        emit(text, output)
    except OSError as exc:
        raise fail(f"--output: cannot write {str(output)!r}: {exc.strerror or exc}") from None


def _check_seed(seed: int) -> None:
    if not 0 <= seed < 2**63:
        raise fail(f"--seed must be a whole number 0 … 2**63 - 1, got {seed}")


_OUTPUT = typer.Option(None, "--output", "-o", help="Write to this file.")
_BURN_HELP = "Burn rule (BAC-2.1): card (first card's value), decks, or fixed (--burn-count)."


@analyze_app.command("baccarat")
def analyze_baccarat(
    decks: int = typer.Option(8, help="Decks in the shoe, 1 … 12 (BAC-1: 6 … 12)."),
    jackpot_wager: int = typer.Option(10_000, help="Jackpot wager (minor units, ≥ 1)."),
    meter: int = typer.Option(1_000_000_000, help="Jackpot meter (minor units)."),
    award_heavenly_straight: int = typer.Option(
        200_000_000, help="Fixed award, heavenly straight (or 10 % of the meter if higher)."
    ),
    award_four_of_a_kind: int = typer.Option(10_000_000, help="Fixed award, four of a kind."),
    award_double_pair: int = typer.Option(300_000, help="Fixed award, double pair."),
    award_three_of_a_kind: int = typer.Option(100_000, help="Fixed award, three of a kind."),
    award_single_pair: int = typer.Option(20_000, help="Fixed award, single pair."),
    jackpot_bettors: int = typer.Option(
        1, help="Jackpot wagers per round (royal / heavenly awards are shared)."
    ),
    count_shoes: int = typer.Option(
        1000, help="Shoes simulated for the card-counting table (0: leave it out)."
    ),
    seed: int = typer.Option(1, help="Seed of the counting study's random streams."),
    burn: str = typer.Option("card", help=_BURN_HELP),
    burn_count: int = typer.Option(0, help="Cards burned with --burn fixed (1 … 8)."),
    cut_card: int = typer.Option(14, help="Cards behind the cut card (≥ 12, BAC-2.1)."),
    last_round: str = typer.Option(
        "last", help="When the cut card comes out: last (this round) or one-more (BAC-3.1)."
    ),
    fmt: str = typer.Option("text", "--format", help="text, json, csv or html."),
    output: Path | None = _OUTPUT,
) -> None:
    """Exact analysis of every baccarat wager (PAR sheet): banker, no-commission banker, player,
    tie, pairs, Lucky 6, the BAC-13.4 jackpot, effects of removal and a card-counting study."""
    _check_format(fmt, output)
    procedure = _procedure(decks, burn, burn_count, cut_card, last_round, False)
    amounts = (
        ("jackpot-wager", jackpot_wager, 1),
        ("meter", meter, 0),
        ("award-heavenly-straight", award_heavenly_straight, 0),
        ("award-four-of-a-kind", award_four_of_a_kind, 0),
        ("award-double-pair", award_double_pair, 0),
        ("award-three-of-a-kind", award_three_of_a_kind, 0),
        ("award-single-pair", award_single_pair, 0),
        ("jackpot-bettors", jackpot_bettors, 1),
    )
    for name, value, minimum in amounts:
        if value < minimum:
            what = "a count" if name == "jackpot-bettors" else "an amount in minor units"
            raise fail(f"--{name} must be {what} ≥ {minimum}, got {value}")
    awards = JackpotAwards(
        wager=jackpot_wager,
        meter=meter,
        heavenly_straight=award_heavenly_straight,
        four_of_a_kind=award_four_of_a_kind,
        double_pair=award_double_pair,
        three_of_a_kind=award_three_of_a_kind,
        single_pair=award_single_pair,
        bettors=jackpot_bettors,
    )
    if count_shoes < 0:
        raise fail(f"--count-shoes must be 0 or more, got {count_shoes}")
    _check_seed(seed)
    with interruptible():
        analysis = analyze(decks, awards)
        counting = None
        if count_shoes:
            with progress("Baccarat: card-counting study (shoes)", total=count_shoes) as bar:
                counting = counting_study(procedure, count_shoes, seed, analysis.eor, bar.advance)
        # No computation time in the sheet: the same options always give the same sheet
        # (docs/par/ is regenerated by the recorded commands; bench/ measures the time).
        text = render(analysis_report(analysis, counting, fmt), fmt)
    _write(text, output)


@simulate_app.command("baccarat")
def simulate_baccarat(
    rounds: int = typer.Option(10_000_000, help="Rounds to deal (≥ 1)."),
    seed: int = typer.Option(1, help="Seed of the simulation's random streams (0 … 2**63-1)."),
    decks: int = typer.Option(8, help="Decks in the shoe, 1 … 12."),
    burn: str = typer.Option("card", help=_BURN_HELP),
    burn_count: int = typer.Option(0, help="Cards burned with --burn fixed (1 … 8)."),
    cut_card: int = typer.Option(14, help="Cards behind the cut card (≥ 12, BAC-2.1)."),
    last_round: str = typer.Option(
        "last", help="When the cut card comes out: last (this round) or one-more (BAC-3.1)."
    ),
    machine: bool = typer.Option(
        False, help="Automatic shuffling-and-dealing machine: every round from the full set."
    ),
    fmt: str = typer.Option("text", "--format", help="text, json, csv or html."),
    output: Path | None = _OUTPUT,
) -> None:
    """Simulate baccarat with the full shoe procedure; 95 % intervals beside the exact values."""
    _check_format(fmt, output)
    procedure = _procedure(decks, burn, burn_count, cut_card, last_round, machine)
    if not 1 <= rounds <= MAX_ROUNDS:
        raise fail(f"--rounds must be a whole number 1 … {MAX_ROUNDS:,}, got {rounds}")
    _check_seed(seed)
    with interruptible():
        with progress("Baccarat: simulation (rounds)", total=rounds) as bar:
            result = simulate(procedure, rounds, seed, bar.advance)
        text = render(simulation_report(result, result.kernel_seconds), fmt)
    _write(text, output)
