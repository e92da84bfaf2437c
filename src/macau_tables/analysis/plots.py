"""The plots of the PAR sheets (matplotlib, Agg backend): figures as PNG bytes.

Each sheet module asks for its figures here only when the sheet is rendered as HTML, so text,
CSV and JSON output never import matplotlib. The plot data come from the analysis results;
nothing is computed here beyond sampling a curve.
"""

from __future__ import annotations

import dataclasses
import io
from fractions import Fraction
from typing import Any, Protocol

from ..money import format_minor
from .baccarat_exact import BaccaratAnalysis, break_even_meter, jackpot_return
from .caribbean_exact import CaribbeanAnalysis, JackpotAnalysis
from .report import Figure

__all__ = [
    "METER_LINES_KEY",
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


#: Caption words for the lines :func:`mark_meters` draws.
METER_LINES_KEY = (
    "dash-dot: this sheet's meter; dotted: the break-even meter; dashed: 100 % (break even)"
)


def mark_meters(ax: Any, current: tuple[float, str], even: tuple[float, str] | None) -> None:
    """The reference lines of a jackpot-return-against-the-meter plot (return in %): 100 %
    (break even), this sheet's meter and the break-even meter (``(x, label)``; ``even`` may be
    ``None`` when there is none), thousands separators on the meter axis, and the legend. Call
    it after plotting the return curve."""
    from matplotlib.ticker import FuncFormatter

    ax.axhline(100, color="#555", linestyle="--", linewidth=1, label="100 % (break even)")
    x, label = current
    ax.axvline(x, color="#2660a4", linestyle="-.", linewidth=1, label=f"this sheet's meter {label}")
    if even is not None:
        x, label = even
        ax.axvline(x, color="#555", linestyle=":", linewidth=1.2, label=f"break-even meter {label}")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
    ax.legend(loc="lower right", fontsize="small", framealpha=0.95)


def caribbean_figures(
    analysis: CaribbeanAnalysis, jackpot: JackpotAnalysis, points: list[int]
) -> tuple[Figure, ...]:
    """The Caribbean Stud sheet's plots: the distribution of the result per ante, and the
    jackpot return at the meters ``points`` with this sheet's and the break-even meter."""
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
    ax2.plot(
        points,
        [float(jackpot.return_rate(m)) * 100 for m in points],
        color="#8b0000",
        label="return",
    )
    current = jackpot.meter
    be = jackpot.break_even_meter()
    mark_meters(
        ax2,
        (current, format_minor(current, decimals=0)),
        (be, format_minor(be, decimals=0)),
    )
    ax2.set_xlabel("meter (minor units)")
    ax2.set_ylabel("return per jackpot wager (%)")
    ax2.set_title(f"Jackpot return against the meter (break-even {format_minor(be, decimals=0)})")
    meter = Figure(
        "Jackpot return against the meter",
        figure_png(fig2),
        f"Expected award per unit of jackpot wager; {METER_LINES_KEY}.",
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


def baccarat_figures(a: BaccaratAnalysis) -> tuple[Figure, ...]:
    """The baccarat sheet's plots: the winner by cards dealt and the banker's winning totals,
    and the jackpot return against the meter."""
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
    points, returns, even = baccarat_meter_curve(a)
    fig2 = MplFigure(figsize=(8, 4.4))
    ax = fig2.add_subplot()
    ax.plot([p / 100 for p in points], [r * 100 for r in returns], color="#8b0000", label="return")
    current = a.jackpot.awards.meter
    mark_meters(
        ax,
        (current / 100, format_minor(current)),
        None if even is None else (even / 100, format_minor(even)),
    )
    ax.set_xlabel("meter (major units)")
    ax.set_ylabel("return per jackpot wager (%)")
    title = "Jackpot return against the meter"
    if even is not None:
        title += f" (break even at a meter of {format_minor(even)})"
    ax.set_title(title)
    meter = Figure(
        "Jackpot return against the meter",
        figure_png(fig2),
        f"Expected award per unit of jackpot wager with the fixed awards of this sheet; "
        f"{METER_LINES_KEY}.",
    )
    return (dist, meter)
