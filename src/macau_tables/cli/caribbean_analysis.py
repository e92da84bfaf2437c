"""``macau-tables analyze caribbean-stud`` and ``macau-tables simulate caribbean-stud``.

Both commands validate every option before any work starts (a bad option exits with code 2 and
a message naming it), show a Rich progress bar on stderr, and on Ctrl-C print
``interrupted: no results`` and exit 130 without printing partial numbers.
"""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import typer

from ..caribbean.hands import HandCategory
from ..caribbean.rules import FIXED_RAISE_ODDS
from ..cli import analyze_app, emit, fail, interruptible, simulate_app
from ..errors import ConfigError
from .caribbean_exact import (
    DEALS_PER_UP_CARD,
    TOTAL_DEALS,
    TOTAL_DECISIONS,
    CaribbeanAnalysis,
    CaribbeanConfig,
    JackpotAnalysis,
    JackpotConfig,
    analyze,
    analyze_jackpot,
    category_name,
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

__all__ = ["ak_strategy_table", "build_report", "parse_share", "run_analysis", "simulation_report"]

_RANK_LETTERS = "23456789TJQKA"


def parse_share(text: str) -> Fraction:
    """A share in 0..1 from ``"0.7"``, ``"70%"`` or ``"7/10"`` (exact, never a float).

    Refuses (``ConfigError`` naming ``--contribution``) anything else.
    """
    raw = text.strip()
    try:
        value = Fraction(raw[:-1]) / 100 if raw.endswith("%") else Fraction(raw)
    except (ValueError, ZeroDivisionError) as exc:
        raise ConfigError(
            f"--contribution must be a share such as 0.7, 70% or 7/10: {text!r}"
        ) from exc
    if not 0 <= value <= 1:
        raise ConfigError(f"--contribution must be between 0 and 1, got {text!r}")
    return value


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
        name = "high card" if cat == HandCategory.HIGH_CARD else category_name(cat)
        pairs = analysis.pairs_by_category[c]
        raised = analysis.raised_by_category[c]
        rows.append((name, pairs // 47, pairs, raised, Fraction(raised, pairs)))
    return Table(
        "Optimal strategy by the player's hand category",
        ("player hand", "hands", "(hand, up card) pairs", "raised pairs", "share raised"),
        tuple(rows),
    )


def _jackpot_rows(jackpot: JackpotAnalysis, meter: int) -> tuple[tuple[object, ...], ...]:
    c = jackpot.config
    p = jackpot.probabilities
    awards = (
        ("royal flush", HandCategory.ROYAL_FLUSH, max(c.award_royal, meter)),
        ("straight flush", HandCategory.STRAIGHT_FLUSH, max(c.award_straight_flush, meter // 10)),
        ("four of a kind", HandCategory.FOUR_OF_A_KIND, c.award_four),
        ("full house", HandCategory.FULL_HOUSE, c.award_full_house),
        ("flush", HandCategory.FLUSH, c.award_flush),
    )
    return tuple((name, p[cat], award, p[cat] * award / c.wager) for name, cat, award in awards)


def _meter_points(jackpot: JackpotAnalysis) -> list[int]:
    top = max(2 * jackpot.break_even_meter(), 2 * jackpot.config.meter, 1000)
    return sorted({round(top * k / 20) for k in range(21)} | {jackpot.config.meter})


def build_report(
    analysis: CaribbeanAnalysis,
    jackpot: JackpotAnalysis,
    fmt: str,
    seconds: float | None = None,
) -> Report:
    """The PAR sheet of an exact analysis (figures only when ``fmt`` is ``"html"``)."""
    cfg = analysis.config
    jc = jackpot.config
    break_even = jackpot.break_even_meter()
    cap = (
        f"{cfg.max_payout_units} ante units on the raise's win (four of a kind, straight flush, "
        "royal flush)"
        if cfg.max_payout_units is not None
        else "not applied (CSP-9.5 caps the raise's win in money per box; see --max-payout-units)"
    )
    paytable = ", ".join(
        f"{category_name(HandCategory(c))} "
        + (
            f"{cfg.royal_odds}:1"
            if c == HandCategory.ROYAL_FLUSH
            else f"{FIXED_RAISE_ODDS[HandCategory(c)]}:1"
        )
        for c in range(10)
    )
    if cfg.max_payout_units is not None:
        paytable += f" (the raise's win capped at {cfg.max_payout_units} antes where CSP-9.5 caps)"
    configuration = (
        ("Game", "Caribbean Stud Poker (Dispatch 61/2004), one box against the dealer"),
        (
            "Ranking",
            f"{cfg.ranking} ("
            + (
                "CSP-8 suit tie-breaks, no ties"
                if cfg.ranking == "macau"
                else "no suits, equal hands push"
            )
            + ")",
        ),
        ("Royal flush odds", f"{cfg.royal_odds}:1 (CSP-9.5, CSP-13 option)"),
        ("Raise paytable (CSP-9.5)", paytable),
        ("Max payout cap", cap),
        ("Dealer qualifies", "A-K high or better (CSP-9.1)"),
        ("Decision", "optimal raise/fold per (own five cards, dealer's up card) (CSP-6.5, CSP-7)"),
        ("Jackpot wager", f"{jc.wager:,} minor units"),
        (
            "Jackpot fixed awards",
            f"royal flush {jc.award_royal:,} (or 100 % of the meter), straight flush "
            f"{jc.award_straight_flush:,} (or 10 % of the meter), four of a kind "
            f"{jc.award_four:,}, full house {jc.award_full_house:,}, flush {jc.award_flush:,} "
            "(minor units, CSP-10.2)",
        ),
        ("Jackpot meter", f"{jc.meter:,} minor units"),
        ("Meter contribution", f"{float(jc.contribution) * 100:g} % of each jackpot wager"),
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
        ("Jackpot return at the meter", _pct(jackpot.return_rate(jc.meter), 4)),
        ("Jackpot break-even meter", f"{break_even:,} minor units"),
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
        f"Jackpot wager at meter {jc.meter:,} (per jackpot wager of {jc.wager:,})",
        ("combination", "probability (box raised)", "award", "return"),
        (*_jackpot_rows(jackpot, jc.meter), ("total", None, None, jackpot.return_rate(jc.meter))),
        note="A folded box wins no jackpot (CSP-6.7); the wager is not returned with an award.",
    )
    ak_table = ak_strategy_table(analysis)
    meter_table = Table(
        "Jackpot return against the meter",
        ("meter", "expected award", "return", "expected paid from the meter"),
        tuple(
            (m, jackpot.expected_award(m), jackpot.return_rate(m), jackpot.meter_drain(m))
            for m in _meter_points(jackpot)
        ),
        note=(
            f"Each jackpot wager credits {int(jc.contribution * jc.wager):,} minor units (rounded "
            "down, as macau_tables.jackpot.split_contribution) to the "
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
        "ranking": cfg.ranking,
        "royal_odds": cfg.royal_odds,
        "max_payout_units": cfg.max_payout_units,
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
            "wager": jc.wager,
            "meter": jc.meter,
            "contribution": _exact(jc.contribution),
            "awards": {
                "royal_flush": jc.award_royal,
                "straight_flush": jc.award_straight_flush,
                "four_of_a_kind": jc.award_four,
                "full_house": jc.award_full_house,
                "flush": jc.award_flush,
            },
            "probabilities": {
                HandCategory(c).name.lower(): float(jackpot.probabilities[c]) for c in range(5, 10)
            },
            # Exact counts behind the probabilities: raised (hand, up card) pairs of the
            # category, of total_decisions (a folded box wins no jackpot, CSP-6.7).
            "counts": {
                HandCategory(c).name.lower(): analysis.raised_by_category[c] for c in range(5, 10)
            },
            "return": float(jackpot.return_rate(jc.meter)),
            "return_exact": _exact(jackpot.return_rate(jc.meter)),
            "break_even_meter": break_even,
            "return_by_meter": [
                {
                    "meter": m,
                    "expected_award": float(jackpot.expected_award(m)),
                    "return": float(jackpot.return_rate(m)),
                }
                for m in _meter_points(jackpot)
            ],
        },
    }
    figures: tuple[Figure, ...] = ()
    if fmt == "html":
        figures = _figures(analysis, jackpot)
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
            f"Caribbean Stud Poker PAR sheet: {cfg.ranking} ranking, royal flush {cfg.royal_odds}:1"
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
        figures=figures,
        notes=notes,
    )


def _exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def _figures(analysis: CaribbeanAnalysis, jackpot: JackpotAnalysis) -> tuple[Figure, ...]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(8, 4.2))
    ax = fig.add_subplot()
    by_units: dict[int, Fraction] = {}
    for o in analysis.outcomes:
        by_units[o.units] = by_units.get(o.units, Fraction(0)) + o.probability
    units = sorted(u for u, p in by_units.items() if p > 0)
    probs = [float(by_units[u]) for u in units]
    ax.bar([str(u) for u in units], probs, color="#8b0000")
    ax.set_yscale("log")
    ax.set_xlabel("units won per ante")
    ax.set_ylabel("probability (log scale)")
    ax.set_title("Distribution of the result per ante (optimal play)")
    dist = Figure(
        "Outcome distribution",
        figure_png(fig),
        "Probability of each net result per ante over all deals (exact).",
    )
    fig2 = MplFigure(figsize=(8, 4.2))
    ax2 = fig2.add_subplot()
    points = _meter_points(jackpot)
    ax2.plot(
        points,
        [float(jackpot.return_rate(m)) * 100 for m in points],
        color="#8b0000",
        label="return",
    )
    current = jackpot.config.meter
    be = jackpot.break_even_meter()
    mark_meters(ax2, (current, f"{current:,}"), (be, f"{be:,}"))
    ax2.set_xlabel("meter (minor units)")
    ax2.set_ylabel("return per jackpot wager (%)")
    ax2.set_title(f"Jackpot return against the meter (break-even {be:,})")
    meter = Figure(
        "Jackpot return against the meter",
        figure_png(fig2),
        f"Expected award per unit of jackpot wager; {METER_LINES_KEY}.",
    )
    return (dist, meter)


# -- command line ------------------------------------------------------------------------------


def _configs(
    royal_odds: int,
    ranking: str,
    max_payout_units: int | None,
    jackpot_wager: int,
    meter: int,
    awards: tuple[int, int, int, int, int],
    contribution: str,
) -> tuple[CaribbeanConfig, JackpotConfig]:
    cfg = CaribbeanConfig(royal_odds=royal_odds, ranking=ranking, max_payout_units=max_payout_units)  # type: ignore[arg-type]
    jc = JackpotConfig(
        wager=jackpot_wager,
        meter=meter,
        award_royal=awards[0],
        award_straight_flush=awards[1],
        award_four=awards[2],
        award_full_house=awards[3],
        award_flush=awards[4],
        contribution=parse_share(contribution),
    )
    return cfg, jc


def run_analysis(cfg: CaribbeanConfig, threads: int = 2) -> CaribbeanAnalysis:
    """The exact analysis with a progress bar on stderr."""
    with progress("Caribbean Stud: exact analysis", total=3) as bar:
        return analyze(cfg, step=lambda _: bar.advance(1), threads=threads)


_OUTPUT = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout.")


def _write(text: str, output: Path | None) -> None:
    try:
        emit(text, output)
    except OSError as exc:
        raise fail(f"--output: cannot write {str(output)!r}: {exc.strerror or exc}") from None


def _validate(
    output: Path | None,
    fmt: str,
    royal_odds: int,
    ranking: str,
    max_payout_units: int | None,
    jackpot_wager: int,
    meter: int,
    awards: tuple[int, int, int, int, int],
    contribution: str,
) -> tuple[CaribbeanConfig, JackpotConfig]:
    try:
        check_format(fmt)
    except ConfigError as exc:
        raise fail(f"--format: {exc}") from None
    try:
        check_output(output)
        return _configs(
            royal_odds, ranking, max_payout_units, jackpot_wager, meter, awards, contribution
        )
    except ConfigError as exc:
        raise fail(str(exc)) from None


@analyze_app.command("caribbean-stud")
def analyze_caribbean_stud(
    royal_odds: int = typer.Option(100, help="Royal flush raise odds n:1, 50..100 (CSP-9.5)."),
    ranking: str = typer.Option("macau", help="macau (the law, CSP-8) or standard (ties push)."),
    award_royal: int = typer.Option(0, help="Jackpot fixed award, royal flush (minor units)."),
    award_straight_flush: int = typer.Option(0, help="Jackpot fixed award, straight flush."),
    award_four: int = typer.Option(0, help="Jackpot fixed award, four of a kind."),
    award_full_house: int = typer.Option(0, help="Jackpot fixed award, full house."),
    award_flush: int = typer.Option(0, help="Jackpot fixed award, flush."),
    meter: int = typer.Option(0, help="Jackpot meter (minor units)."),
    jackpot_wager: int = typer.Option(100, help="The jackpot wager (minor units)."),
    contribution: str = typer.Option(
        "0", help="Share of the jackpot wager credited to the meter (0.7, 70% or 7/10)."
    ),
    max_payout_units: int | None = typer.Option(
        None, help="Cap the raise's win for quads/straight flush/royal at this many antes."
    ),
    fmt: str = typer.Option("text", "--format", help="text, json, csv or html."),
    output: Path | None = _OUTPUT,
    threads: int = typer.Option(2, min=1, max=64, help="Parallel work chunks."),
) -> None:
    """Exact analysis of Caribbean Stud Poker with the optimal raise strategy (PAR sheet)."""
    awards = (award_royal, award_straight_flush, award_four, award_full_house, award_flush)
    cfg, jc = _validate(
        output,
        fmt,
        royal_odds,
        ranking,
        max_payout_units,
        jackpot_wager,
        meter,
        awards,
        contribution,
    )
    with interruptible():
        analysis = run_analysis(cfg, threads)
        # No computation time in the report: the same options always give the same sheet.
        report = build_report(analysis, analyze_jackpot(analysis, jc), fmt)
        text = render(report, fmt)
    _write(text, output)


@simulate_app.command("caribbean-stud")
def simulate_caribbean_stud(
    rounds: int = typer.Option(10_000_000, help="Rounds (one box against the dealer)."),
    seed: int = typer.Option(1, help="Seed of the simulation's random streams (0..2**64-1)."),
    royal_odds: int = typer.Option(100, help="Royal flush raise odds n:1, 50..100 (CSP-9.5)."),
    ranking: str = typer.Option("macau", help="macau (the law, CSP-8) or standard (ties push)."),
    max_payout_units: int | None = typer.Option(
        None, help="Cap the raise's win for quads/straight flush/royal at this many antes."
    ),
    fmt: str = typer.Option("text", "--format", help="text, json, csv or html."),
    output: Path | None = _OUTPUT,
) -> None:
    """Monte Carlo simulation with the optimal strategy, beside the exact values (95 % CI)."""
    from .caribbean_sim import simulate

    cfg, _ = _validate(
        output, fmt, royal_odds, ranking, max_payout_units, 100, 0, (0, 0, 0, 0, 0), "0"
    )
    if not 1 <= rounds <= MAX_ROUNDS:
        raise fail(f"--rounds must be a positive integer up to {MAX_ROUNDS:,}, got {rounds}")
    if not 0 <= seed < 2**64:
        raise fail(f"--seed must be an integer 0..2**64-1, got {seed}")
    with interruptible():
        analysis = run_analysis(cfg)
        started = time.perf_counter()
        with progress("Caribbean Stud: simulation", total=rounds) as bar:
            result = simulate(analysis, rounds, seed, advance=bar.advance)
        seconds = time.perf_counter() - started
        text = render(simulation_report(result, seconds), fmt)
    _write(text, output)


def simulation_report(result: Any, seconds: float | None = None) -> Report:
    """The report of a simulation: observed frequencies, 95 % intervals, exact values."""
    from .caribbean_sim import SimulationResult

    assert isinstance(result, SimulationResult)
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
        "ranking": exact.config.ranking,
        "royal_odds": exact.config.royal_odds,
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
        title=f"Caribbean Stud Poker simulation: {exact.config.ranking} ranking, "
        f"royal flush {exact.config.royal_odds}:1",
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
