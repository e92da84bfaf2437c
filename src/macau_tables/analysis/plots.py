"""The plots of the PAR sheets (matplotlib, Agg backend): figures as PNG bytes.

Each sheet module asks for its figures here only when the sheet is rendered as HTML, so text,
CSV and JSON output never import matplotlib. The plot data come from the analysis results;
nothing is computed here beyond sampling a curve. Titles, axis labels, legends and captions
are ``par.*`` catalog messages in the sheet's language; a Chinese sheet's plots are drawn with
an installed CJK font when there is one (Noto Sans / Serif CJK TC), the others with
matplotlib's default fonts, as before.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from functools import partial
from typing import Any, Protocol

from ..money import format_minor
from .baccarat_exact import BaccaratAnalysis, break_even_meter, jackpot_return
from .caribbean_exact import CaribbeanAnalysis, JackpotAnalysis
from .report import Figure, say

__all__ = [
    "baccarat_figures",
    "baccarat_meter_curve",
    "caribbean_figures",
    "figure_png",
    "mark_meters",
]


class _SavesFigure(Protocol):
    def savefig(self, fname: Any, **kwargs: Any) -> None: ...


def figure_png(fig: _SavesFigure, dpi: int = 110) -> bytes:
    """A matplotlib figure (use the Agg backend) as PNG bytes. Closes nothing; the caller owns
    the figure."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


# Fonts with the Traditional Chinese glyphs, tried in this order after matplotlib's default.
_CJK_FONTS = ("Noto Sans CJK TC", "Noto Serif CJK TC", "Noto Sans Mono CJK TC")


@contextmanager
def _fonts(language: str) -> Iterator[None]:
    """Draw in ``language``: for Chinese, matplotlib's default font with the installed CJK fonts
    of :data:`_CJK_FONTS` as fallbacks (none installed: the default alone); any other language
    draws with the defaults untouched."""
    import matplotlib
    from matplotlib import font_manager

    installed = {f.name for f in font_manager.fontManager.ttflist}
    fallback = [name for name in _CJK_FONTS if name in installed]
    if not language.startswith("zh") or not fallback:
        yield
        return
    families = [*matplotlib.rcParams["font.family"], *fallback]
    with matplotlib.rc_context({"font.family": families}):
        yield


def mark_meters(
    ax: Any, current: tuple[float, str], even: tuple[float, str] | None, language: str
) -> None:
    """The reference lines of a jackpot-return-against-the-meter plot (return in %): 100 %
    (break even), this sheet's meter and the break-even meter (``(x, label)``; ``even`` may be
    ``None`` when there is none), thousands separators on the meter axis, and the legend in
    ``language``. Call it after plotting the return curve."""
    from matplotlib.ticker import FuncFormatter

    t = partial(say, language)
    ax.axhline(100, color="#555", linestyle="--", linewidth=1, label=t("par.plot_break_even_line"))
    x, label = current
    ax.axvline(
        x, color="#2660a4", linestyle="-.", linewidth=1, label=t("par.plot_this_meter", meter=label)
    )
    if even is not None:
        x, label = even
        ax.axvline(
            x,
            color="#555",
            linestyle=":",
            linewidth=1.2,
            label=t("par.plot_break_even_meter", meter=label),
        )
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
    ax.legend(loc="lower right", fontsize="small", framealpha=0.95)


def caribbean_figures(
    analysis: CaribbeanAnalysis, jackpot: JackpotAnalysis, points: list[int], language: str
) -> tuple[Figure, ...]:
    """The Caribbean Stud sheet's plots: the distribution of the result per ante, and the
    jackpot return at the meters ``points`` with this sheet's and the break-even meter (words
    in ``language``)."""
    import matplotlib

    matplotlib.use("Agg")
    with _fonts(language):
        return _caribbean_figures(analysis, jackpot, points, language)


def _caribbean_figures(
    analysis: CaribbeanAnalysis, jackpot: JackpotAnalysis, points: list[int], language: str
) -> tuple[Figure, ...]:
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
    t = partial(say, language)
    ax.set_xlabel(t("par.plot_units_won_per_ante"))
    ax.set_ylabel(t("par.plot_probability_log"))
    ax.set_title(t("par.plot_csp_distribution"))
    dist = Figure(
        t("par.outcome_distribution"),
        figure_png(fig),
        t("par.plot_csp_distribution_caption"),
    )
    fig2 = MplFigure(figsize=(8, 4.2))
    ax2 = fig2.add_subplot()
    ax2.plot(
        points,
        [float(jackpot.return_rate(m)) * 100 for m in points],
        color="#8b0000",
        label=t("par.return"),
    )
    current = jackpot.meter
    be = jackpot.break_even_meter()
    mark_meters(
        ax2,
        (current, format_minor(current, decimals=0)),
        (be, format_minor(be, decimals=0)),
        language,
    )
    ax2.set_xlabel(t("par.plot_meter_minor_units"))
    ax2.set_ylabel(t("par.plot_return_per_jackpot_wager"))
    ax2.set_title(t("par.plot_csp_meter_title", meter=format_minor(be, decimals=0)))
    meter = Figure(
        t("par.jackpot_return_by_meter"),
        figure_png(fig2),
        t("par.plot_csp_meter_caption", lines=t("par.plot_meter_lines")),
    )
    return (dist, meter)


def baccarat_meter_curve(a: BaccaratAnalysis) -> tuple[list[int], list[float], int | None]:
    """The jackpot return (per unit of wager) at 201 meters from 0 up, and the break-even
    meter (``None`` when there is none)."""
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


def baccarat_figures(a: BaccaratAnalysis, language: str) -> tuple[Figure, ...]:
    """The baccarat sheet's plots: the winner by cards dealt and the banker's winning totals,
    and the jackpot return against the meter (words in ``language``)."""
    import matplotlib

    matplotlib.use("Agg")
    with _fonts(language):
        return _baccarat_figures(a, language)


def _baccarat_figures(a: BaccaratAnalysis, language: str) -> tuple[Figure, ...]:
    from matplotlib.figure import Figure as MplFigure

    t = partial(say, language)
    m = a.main
    fig = MplFigure(figsize=(9, 4))
    ax1, ax2 = fig.subplots(1, 2)
    cards = tuple(t("par.plot_cards", cards=str(n)) for n in (4, 5, 6))
    kinds = ((0, 1), (2, 3), (4,))
    bottom = [0.0, 0.0, 0.0]
    for winner, label, colour in (
        (1, t("par.plot_banker"), "#c0392b"),
        (0, t("par.plot_player"), "#2660a4"),
        (2, t("par.plot_tie"), "#2e8b57"),
    ):
        heights = [float(a.probability(m.count_where(k, (winner,), range(10)))) for k in kinds]
        ax1.bar(cards, heights, bottom=bottom, label=label, color=colour)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax1.set_ylabel(t("par.probability"))
    ax1.set_title(t("par.plot_winner_by_cards_dealt"))
    ax1.legend(ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.08), frameon=False)
    totals = list(range(10))
    ax2.bar(
        [str(t) for t in totals],
        [float(a.probability(m.banker_wins_on(t))) for t in totals],
        color="#c0392b",
    )
    ax2.set_xlabel(t("par.plot_banker_winning_total"))
    ax2.set_title(t("par.plot_banker_wins_by_total"))
    dist = Figure(
        t("par.outcome_distribution"),
        figure_png(fig),
        t("par.plot_bac_distribution_caption", decks=str(a.decks)),
    )
    points, returns, even = baccarat_meter_curve(a)
    fig2 = MplFigure(figsize=(8, 4.4))
    ax = fig2.add_subplot()
    ax.plot(
        [p / 100 for p in points],
        [r * 100 for r in returns],
        color="#8b0000",
        label=t("par.return"),
    )
    current = a.jackpot.awards.meter
    mark_meters(
        ax,
        (current / 100, format_minor(current)),
        None if even is None else (even / 100, format_minor(even)),
        language,
    )
    ax.set_xlabel(t("par.plot_meter_major_units"))
    ax.set_ylabel(t("par.plot_return_per_jackpot_wager"))
    title = t("par.jackpot_return_by_meter")
    if even is not None:
        title = t("par.plot_bac_meter_title", meter=format_minor(even))
    ax.set_title(title)
    meter = Figure(
        t("par.jackpot_return_by_meter"),
        figure_png(fig2),
        t("par.plot_bac_meter_caption", lines=t("par.plot_meter_lines")),
    )
    return (dist, meter)
