"""``macau-tables analyze baccarat`` and ``macau-tables simulate baccarat``.

Both commands validate every option before any work starts (a bad option exits with code 2 and
a message naming it: ranges and choices are checked by Typer itself, the shoe procedure by
:class:`~macau_tables.analysis.baccarat_sim.ShoeProcedure`), show a Rich progress bar on stderr
for the simulations, and on Ctrl-C print ``interrupted: no results`` and exit 130 without
printing partial numbers. ``--decks`` takes 1 … 12: a shoe outside BAC-1's 6 … 12 is analysed,
and the sheet says in its header that it is outside the law. ``--lang`` writes the sheet's
words in ``en``, ``zh-Hant`` or ``pt`` (the Caribbean commands' option).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Final

import typer

from ..analysis.baccarat_counting import counting_study
from ..analysis.baccarat_exact import MAX_DECKS, MIN_DECKS, JackpotAwards, analyze
from ..analysis.baccarat_sheet import par_sheet, simulation_sheet
from ..analysis.baccarat_sim import ShoeProcedure, simulate
from ..analysis.render import render
from ..analysis.report import Format
from ..baccarat.rules import BurnRule, LastRoundRule
from ..errors import ConfigError
from .apps import analyze_app, simulate_app
from .caribbean_analysis import LANGUAGE_OPTION, MAX_ROUNDS
from .output import check_output, emit, interruptible, progress, refuse

__all__ = ["BurnOption", "LastRoundOption", "analyze_baccarat", "simulate_baccarat"]


class BurnOption(StrEnum):
    """``--burn``: the start-of-shoe burn rule (BAC-2.1, 83/2011)."""

    CARD = "card"
    """The first card is shown and burned with as many more as its value."""
    DECKS = "decks"
    """As many cards as there are decks."""
    FIXED = "fixed"
    """A fixed number of cards (``--burn-count``, 1 … 8)."""


class LastRoundOption(StrEnum):
    """``--last-round``: what happens when the cut card comes out (BAC-3.1)."""

    LAST = "last"
    """The round in which it comes out is the last."""
    ONE_MORE = "one-more"
    """One more round is dealt."""


_BURN: Final[dict[BurnOption, BurnRule]] = {
    BurnOption.CARD: BurnRule.FIRST_CARD,
    BurnOption.DECKS: BurnRule.DECKS,
    BurnOption.FIXED: BurnRule.FIXED,
}
_LAST_ROUND: Final[dict[LastRoundOption, LastRoundRule]] = {
    LastRoundOption.LAST: LastRoundRule.THIS_ROUND,
    LastRoundOption.ONE_MORE: LastRoundRule.ONE_MORE,
}

# Which option a refusal of the shoe procedure is about (the message names the option).
_OPTION_OF: Final = {
    "analysis.bad_decks": "--decks",
    "analysis.fixed_burn_count": "--burn-count",
    "analysis.burn_count_without_fixed": "--burn-count",
    "analysis.bad_burn_count": "--burn-count",
    "analysis.bad_cut_card": "--cut-card",
}


def _procedure(
    decks: int,
    burn: BurnOption,
    burn_count: int,
    cut_card: int,
    last_round: LastRoundOption,
    machine: bool,
) -> ShoeProcedure:
    """The shoe procedure of the options; one it refuses exits 2 naming the option."""
    try:
        return ShoeProcedure(
            decks, _BURN[burn], burn_count, cut_card, _LAST_ROUND[last_round], machine
        )
    except ConfigError as exc:
        raise refuse(exc, _OPTION_OF.get(exc.key)) from None


_OUTPUT = typer.Option(None, "--output", "-o", callback=check_output, help="Write to this file.")
_FORMAT = typer.Option(Format.TEXT, "--format", help="Output format.")
_DECKS = typer.Option(
    8,
    min=MIN_DECKS,
    max=MAX_DECKS,
    help="Decks in the shoe, 1 … 12 (BAC-1: 6 … 12; other shoes are marked outside the law).",
)
_BURN_OPTION = typer.Option(
    BurnOption.CARD,
    help="Burn rule (BAC-2.1): card (first card's value), decks, or fixed (--burn-count).",
)
_BURN_COUNT = typer.Option(0, min=0, max=8, help="Cards burned with --burn fixed (1 … 8).")
_CUT_CARD = typer.Option(14, min=12, help="Cards behind the cut card (≥ 12, BAC-2.1).")
_LAST = typer.Option(
    LastRoundOption.LAST,
    help="When the cut card comes out: last (this round) or one-more (BAC-3.1).",
)


@analyze_app.command("baccarat")
def analyze_baccarat(
    decks: int = _DECKS,
    jackpot_wager: int = typer.Option(10_000, min=1, help="Jackpot wager (minor units, ≥ 1)."),
    meter: int = typer.Option(1_000_000_000, min=0, help="Jackpot meter (minor units)."),
    award_heavenly_straight: int = typer.Option(
        200_000_000,
        min=0,
        help="Fixed award, heavenly straight (or 10 % of the meter if higher).",
    ),
    award_four_of_a_kind: int = typer.Option(
        10_000_000, min=0, help="Fixed award, four of a kind."
    ),
    award_double_pair: int = typer.Option(300_000, min=0, help="Fixed award, double pair."),
    award_three_of_a_kind: int = typer.Option(100_000, min=0, help="Fixed award, three of a kind."),
    award_single_pair: int = typer.Option(20_000, min=0, help="Fixed award, single pair."),
    jackpot_bettors: int = typer.Option(
        1, min=1, help="Jackpot wagers per round (royal / heavenly awards are shared)."
    ),
    count_shoes: int = typer.Option(
        1000, min=0, help="Shoes simulated for the card-counting table (0: leave it out)."
    ),
    seed: int = typer.Option(
        1, min=0, max=2**63 - 1, help="Seed of the counting study's random streams."
    ),
    burn: BurnOption = _BURN_OPTION,
    burn_count: int = _BURN_COUNT,
    cut_card: int = _CUT_CARD,
    last_round: LastRoundOption = _LAST,
    fmt: Format = _FORMAT,
    output: Path | None = _OUTPUT,
    lang: str = LANGUAGE_OPTION,
) -> None:
    """Exact analysis of every baccarat wager (PAR sheet): banker, no-commission banker, player,
    tie, pairs, Lucky 6, the BAC-13.4 jackpot, effects of removal and a card-counting study."""
    procedure = _procedure(decks, burn, burn_count, cut_card, last_round, False)
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
    with interruptible():
        analysis = analyze(decks, awards)
        counting = None
        if count_shoes:
            with progress("Baccarat: card-counting study (shoes)", total=count_shoes) as bar:
                counting = counting_study(procedure, count_shoes, seed, analysis.eor, bar.advance)
        # No computation time in the sheet: the same options always give the same sheet
        # (docs/par/ is regenerated by the recorded commands; bench/ measures the time).
        sheet = par_sheet(analysis, counting, figures=fmt is Format.HTML, language=lang)
        text = render(sheet, fmt)
    emit(text, output)


@simulate_app.command("baccarat")
def simulate_baccarat(
    rounds: int = typer.Option(10_000_000, min=1, max=MAX_ROUNDS, help="Rounds to deal (≥ 1)."),
    seed: int = typer.Option(
        1, min=0, max=2**63 - 1, help="Seed of the simulation's random streams (0 … 2**63-1)."
    ),
    decks: int = _DECKS,
    burn: BurnOption = _BURN_OPTION,
    burn_count: int = _BURN_COUNT,
    cut_card: int = _CUT_CARD,
    last_round: LastRoundOption = _LAST,
    machine: bool = typer.Option(
        False, help="Automatic shuffling-and-dealing machine: every round from the full set."
    ),
    fmt: Format = _FORMAT,
    output: Path | None = _OUTPUT,
    lang: str = LANGUAGE_OPTION,
) -> None:
    """Simulate baccarat with the full shoe procedure; 95 % intervals beside the exact values."""
    procedure = _procedure(decks, burn, burn_count, cut_card, last_round, machine)
    with interruptible():
        with progress("Baccarat: simulation (rounds)", total=rounds) as bar:
            result = simulate(procedure, rounds, seed, bar.advance)
        text = render(simulation_sheet(result, result.kernel_seconds, lang), fmt)
    emit(text, output)
