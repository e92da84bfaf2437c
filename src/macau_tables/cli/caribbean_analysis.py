"""``macau-tables analyze caribbean-stud`` and ``macau-tables simulate caribbean-stud``.

Both commands validate every option before any work starts (a bad option exits with code 2 and
a message naming it: ranges and choices are checked by Typer itself, the table settings by
:class:`~macau_tables.caribbean.rules.CaribbeanRules`), show a Rich progress bar on stderr, and
on Ctrl-C print ``interrupted: no results`` and exit 130 without printing partial numbers.
``--lang`` (``en`` by default, ``zh-Hant``, ``pt``: the sheets' languages, ``report.
sheet_languages``) writes the sheet's words in that language, the same figures
in every one; the baccarat commands share the option (:data:`LANGUAGE_OPTION`).
"""

from __future__ import annotations

import time
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Final

import typer

from ..analysis.caribbean_exact import (
    CaribbeanAnalysis,
    analyze,
    analyze_jackpot,
    par_rules,
)
from ..analysis.caribbean_sheet import par_sheet, simulation_sheet
from ..analysis.render import render
from ..analysis.report import Format, check_language, sheet_languages
from ..caribbean.hands import Ranking
from ..caribbean.rules import CaribbeanRules, JackpotFixedAwards
from ..errors import ConfigError
from .apps import analyze_app, simulate_app
from .output import check_output, emit, interruptible, progress, refuse

__all__ = [
    "LANGUAGE_OPTION",
    "MAX_ROUNDS",
    "RankingOption",
    "analyze_caribbean_stud",
    "parse_share",
    "run_analysis",
    "simulate_caribbean_stud",
]

MAX_ROUNDS: Final = 10**15
"""The most rounds a simulation accepts (weeks of computing at any speed reached here)."""


class RankingOption(StrEnum):
    """``--ranking``: the law's hand ranking or the standard one (for published figures)."""

    MACAU = "macau"
    """CSP-8: suits break ties, no two hands are equal."""
    STANDARD = "standard"
    """No suits: equal hands push."""


_RANKING: Final[dict[RankingOption, Ranking]] = {
    RankingOption.MACAU: "macau",
    RankingOption.STANDARD: "standard",
}


def parse_share(text: str) -> Fraction:
    """A share in 0..1 from ``"0.7"``, ``"70%"`` or ``"7/10"`` (exact, never a float).

    Refuses (``ConfigError``) anything else.

    >>> parse_share("70%"), parse_share("7/10"), parse_share("0.7")
    (Fraction(7, 10), Fraction(7, 10), Fraction(7, 10))
    """
    raw = text.strip()
    try:
        value = Fraction(raw[:-1]) / 100 if raw.endswith("%") else Fraction(raw)
    except (ValueError, ZeroDivisionError):
        raise ConfigError("cli.bad_share", text=repr(text)) from None
    if not 0 <= value <= 1:
        raise ConfigError("cli.share_out_of_range", text=repr(text))
    return value


def _share(text: str) -> Fraction:
    """``--contribution``'s parser: :func:`parse_share`, refused as a bad parameter (exit 2)."""
    try:
        return parse_share(text)
    except ConfigError as exc:
        raise typer.BadParameter(exc.message) from None


def _language(value: str) -> str:
    """``--lang``'s callback: a language the sheets are written in, or a bad parameter (exit 2,
    naming the option and the languages there are), before any work starts."""
    try:
        return check_language(value)
    except ConfigError as exc:
        raise typer.BadParameter(exc.message) from None


LANGUAGE_OPTION: Final = typer.Option(
    "en",
    "--lang",
    callback=_language,
    metavar="|".join(sheet_languages()),
    help="Language of the sheet's words (the figures are the same in each).",
)
"""``--lang`` of the PAR-sheet and simulation commands of both games."""


def run_analysis(
    rules: CaribbeanRules, ranking: Ranking, max_payout_units: int | None, threads: int = 2
) -> CaribbeanAnalysis:
    """The exact analysis with a progress bar on stderr."""
    with progress("Caribbean Stud: exact analysis", total=3) as bar:
        return analyze(
            rules,
            ranking=ranking,
            max_payout_units=max_payout_units,
            step=lambda _: bar.advance(1),
            threads=threads,
        )


def _rules(
    royal_odds: int, jackpot_wager: int, awards: JackpotFixedAwards, share: Fraction
) -> CaribbeanRules:
    """The table the options describe; a setting the rules refuse exits 2 before any work."""
    try:
        return par_rules(
            royal_odds,
            jackpot_wager=jackpot_wager,
            jackpot_fixed_awards=awards,
            jackpot_contribution=share,
        )
    except ConfigError as exc:
        raise refuse(exc) from None


_OUTPUT = typer.Option(
    None,
    "--output",
    "-o",
    callback=check_output,
    help="Write to this file instead of stdout.",
)
_FORMAT = typer.Option(Format.TEXT, "--format", help="Output format.")
_ROYAL_ODDS = typer.Option(100, min=50, max=100, help="Royal flush raise odds n:1 (CSP-9.5).")
_RANKING_OPTION = typer.Option(
    RankingOption.MACAU, help="macau (the law, CSP-8) or standard (ties push)."
)
_CONTRIBUTION = typer.Option(
    "0",
    parser=_share,
    metavar="SHARE",
    help="Share of the jackpot wager credited to the meter (0.7, 70% or 7/10).",
)
_CAP = typer.Option(
    None, min=1, help="Cap the raise's win for quads/straight flush/royal at this many antes."
)


@analyze_app.command("caribbean-stud")
def analyze_caribbean_stud(
    royal_odds: int = _ROYAL_ODDS,
    ranking: RankingOption = _RANKING_OPTION,
    award_royal: int = typer.Option(
        0, min=0, help="Jackpot fixed award, royal flush (minor units)."
    ),
    award_straight_flush: int = typer.Option(0, min=0, help="Jackpot fixed award, straight flush."),
    award_four: int = typer.Option(0, min=0, help="Jackpot fixed award, four of a kind."),
    award_full_house: int = typer.Option(0, min=0, help="Jackpot fixed award, full house."),
    award_flush: int = typer.Option(0, min=0, help="Jackpot fixed award, flush."),
    meter: int = typer.Option(0, min=0, help="Jackpot meter (minor units)."),
    jackpot_wager: int = typer.Option(100, min=1, help="The jackpot wager (minor units)."),
    contribution: Fraction = _CONTRIBUTION,
    max_payout_units: int | None = _CAP,
    fmt: Format = _FORMAT,
    output: Path | None = _OUTPUT,
    threads: int = typer.Option(2, min=1, max=64, help="Parallel work chunks."),
    lang: str = LANGUAGE_OPTION,
) -> None:
    """Exact analysis of Caribbean Stud Poker with the optimal raise strategy (PAR sheet)."""
    awards = JackpotFixedAwards(
        royal_flush=award_royal,
        straight_flush=award_straight_flush,
        four_of_a_kind=award_four,
        full_house=award_full_house,
        flush=award_flush,
    )
    rules = _rules(royal_odds, jackpot_wager, awards, contribution)
    with interruptible():
        analysis = run_analysis(rules, _RANKING[ranking], max_payout_units, threads)
        # No computation time in the report: the same options always give the same sheet.
        sheet = par_sheet(
            analysis,
            analyze_jackpot(analysis, meter),
            figures=fmt is Format.HTML,
            language=lang,
        )
        text = render(sheet, fmt)
    emit(text, output)


@simulate_app.command("caribbean-stud")
def simulate_caribbean_stud(
    rounds: int = typer.Option(
        10_000_000, min=1, max=MAX_ROUNDS, help="Rounds (one box against the dealer)."
    ),
    seed: int = typer.Option(
        1, min=0, max=2**64 - 1, help="Seed of the simulation's random streams (0..2**64-1)."
    ),
    royal_odds: int = _ROYAL_ODDS,
    ranking: RankingOption = _RANKING_OPTION,
    max_payout_units: int | None = _CAP,
    fmt: Format = _FORMAT,
    output: Path | None = _OUTPUT,
    lang: str = LANGUAGE_OPTION,
) -> None:
    """Monte Carlo simulation with the optimal strategy, beside the exact values (95 % CI)."""
    from ..analysis.caribbean_sim import simulate

    rules = _rules(royal_odds, 100, JackpotFixedAwards(0, 0, 0, 0, 0), Fraction(0))
    with interruptible():
        analysis = run_analysis(rules, _RANKING[ranking], max_payout_units)
        started = time.perf_counter()
        with progress("Caribbean Stud: simulation", total=rounds) as bar:
            result = simulate(analysis, rounds, seed, advance=bar.advance)
        seconds = time.perf_counter() - started
        text = render(simulation_sheet(result, seconds, lang), fmt)
    emit(text, output)
