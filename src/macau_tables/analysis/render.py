"""Reports shared by every analysis command: one model, four formats.

An analysis builds a :class:`Report` (configuration, headline numbers, tables, figures and the
machine-readable payload) and :func:`render` turns it into ``text``, ``json``, ``csv`` or
``html``. The HTML output is a self-contained PAR sheet: a page a person can hand to a regulator,
with the figures inlined as PNG.

``json`` renders :attr:`Report.data` only, so the documented keys are exactly what outside checks
read. Integers stay exact integers (they can exceed 2**53); a :class:`fractions.Fraction` becomes
``{"value": float, "exact": "num/den"}``.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

from ..errors import ConfigError

FORMATS: tuple[str, ...] = ("text", "json", "csv", "html")


@dataclass(frozen=True, slots=True)
class Table:
    """A titled table; cells may be str, int, float, Fraction or None."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]
    note: str = ""


@dataclass(frozen=True, slots=True)
class Figure:
    """A rendered plot (PNG bytes), shown only in the HTML sheet."""

    title: str
    png: bytes
    caption: str = ""


@dataclass(frozen=True, slots=True)
class Report:
    """Everything an analysis command prints, in every format."""

    title: str
    configuration: tuple[tuple[str, str], ...]
    summary: tuple[tuple[str, str], ...]
    tables: tuple[Table, ...]
    data: Mapping[str, object]
    figures: tuple[Figure, ...] = ()
    notes: tuple[str, ...] = ()


def check_format(fmt: str) -> str:
    """Return ``fmt`` if it is one of :data:`FORMATS`; raise :class:`ConfigError` otherwise.

    Call it before any work starts, so a typo costs nothing.
    """
    if fmt not in FORMATS:
        raise ConfigError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    return fmt


def check_output(output: Path | None) -> Path | None:
    """Return ``output`` if a report can be written there (``None`` means stdout); raise
    :class:`ConfigError` naming ``--output`` when its folder does not exist or is not writable,
    or when it names a folder.

    Call it before any work starts, so a mistyped path does not throw away a long run.
    """
    if output is None:
        return None
    folder = output.parent if str(output.parent) else Path(".")
    if output.is_dir():
        raise ConfigError(f"--output: {str(output)!r} is a folder, not a file")
    if not folder.is_dir():
        raise ConfigError(f"--output: the folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK) or (output.exists() and not os.access(output, os.W_OK)):
        raise ConfigError(f"--output: {str(output)!r} is not writable")
    return output


MAX_ROUNDS = 10**15
"""The most rounds a simulation accepts (weeks of computing at any speed reached here)."""


def render(report: Report, fmt: str) -> str:
    """``report`` as text, JSON, CSV or a self-contained HTML page."""
    check_format(fmt)
    if fmt == "json":
        return json.dumps(_jsonable(report.data), indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        return _render_csv(report)
    if fmt == "html":
        return _render_html(report)
    return _render_text(report)


def format_cell(value: object) -> str:
    """How a table cell is printed: exact integers with thousands separators, fractions and
    floats to 10 significant digits, ``None`` as an empty cell."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, Fraction):
        return f"{float(value):.10g}"
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


def _jsonable(value: object) -> Any:
    if isinstance(value, Fraction):
        return {"value": float(value), "exact": f"{value.numerator}/{value.denominator}"}
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _jsonable(value.item())
    return value


def _text_table(table: Table) -> list[str]:
    cells = [[format_cell(c) for c in row] for row in table.rows]
    widths = [len(c) for c in table.columns]
    for row in cells:
        for i, c in enumerate(row):
            widths[i] = max(widths[i], len(c))

    def is_number(v: str) -> bool:
        return v[:1].isdigit() or (v[:1] in "-+." and v[1:2].isdigit())

    # A column of numbers is right-aligned (header included), any other column left-aligned:
    # deciding per cell would scatter a column that mixes "10" with "J" or "1:1" with words.
    numeric = [
        all(is_number(row[i]) for row in cells if row[i]) and any(row[i] for row in cells)
        for i in range(len(table.columns))
    ]

    def line(values: Sequence[str]) -> str:
        out = [
            v.rjust(widths[i]) if numeric[i] else v.ljust(widths[i]) for i, v in enumerate(values)
        ]
        return "  ".join(out).rstrip()

    lines = [table.title, "-" * len(table.title), line(table.columns)]
    lines.append("  ".join("-" * w for w in widths))
    lines.extend(line(row) for row in cells)
    if table.note:
        lines.append(table.note)
    return lines


def _render_text(report: Report) -> str:
    lines = [report.title, "=" * len(report.title), ""]
    if report.configuration:
        width = max(len(k) for k, _ in report.configuration)
        lines.append("Configuration")
        lines.extend(f"  {k.ljust(width)}  {v}" for k, v in report.configuration)
        lines.append("")
    if report.summary:
        width = max(len(k) for k, _ in report.summary)
        lines.append("Summary")
        lines.extend(f"  {k.ljust(width)}  {v}" for k, v in report.summary)
        lines.append("")
    for table in report.tables:
        lines.extend(_text_table(table))
        lines.append("")
    for note in report.notes:
        lines.append(f"Note: {note}")
    return "\n".join(lines).rstrip() + "\n"


def _render_csv(report: Report) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    # The headline figures (house edge, element of risk, ...) live in the summary, not in a
    # table: a CSV without them would miss half of what the sheet states.
    sections = [("Configuration", report.configuration), ("Summary", report.summary)]
    first = True
    for title, pairs in sections:
        if not pairs:
            continue
        if not first:
            writer.writerow([])
        first = False
        writer.writerow([f"# {title}"])
        writer.writerow(["item", "value"])
        writer.writerows([k, v] for k, v in pairs)
    for table in report.tables:
        if not first:
            writer.writerow([])
        first = False
        writer.writerow([f"# {table.title}"])
        writer.writerow(table.columns)
        # Exact fractions become decimals (shortest repr that round-trips the float): a
        # spreadsheet reads "19/20" as text and "1/2" as a date. Counts stay exact integers;
        # the exact fractions are in the JSON.
        for row in table.rows:
            writer.writerow(
                [
                    "" if c is None else (repr(float(c)) if isinstance(c, Fraction) else c)
                    for c in row
                ]
            )
    return buf.getvalue()


_CSS = """
body{font-family:system-ui,"Segoe UI",Roboto,"Noto Sans TC",sans-serif;margin:2rem auto;
max-width:60rem;color:#1c1c1c;line-height:1.45;padding:0 1rem}
h1{font-size:1.6rem;border-bottom:3px solid #8b0000;padding-bottom:.3rem}
h2{font-size:1.15rem;margin-top:2rem;color:#8b0000}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.92rem}
th,td{border:1px solid #ccc;padding:.25rem .6rem}th{background:#f4eeee;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
dl.kv{display:grid;grid-template-columns:max-content auto;gap:.2rem 1.2rem}dl.kv dt{font-weight:600}
dl.kv dd{margin:0;font-variant-numeric:tabular-nums}
figure{margin:1rem 0}figure img{max-width:100%}figcaption,.note{color:#555;font-size:.88rem}
@media print{body{margin:0}h2{break-after:avoid}table,figure{break-inside:avoid}}
"""


def _render_html(report: Report) -> str:
    e = html.escape
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(report.title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{e(report.title)}</h1>",
    ]

    def kv(title: str, pairs: tuple[tuple[str, str], ...]) -> None:
        if not pairs:
            return
        parts.append(f"<h2>{e(title)}</h2><dl class='kv'>")
        parts.extend(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in pairs)
        parts.append("</dl>")

    kv("Configuration", report.configuration)
    kv("Summary", report.summary)
    for table in report.tables:
        parts.append(f"<h2>{e(table.title)}</h2><table><thead><tr>")
        parts.extend(f"<th>{e(c)}</th>" for c in table.columns)
        parts.append("</tr></thead><tbody>")
        for row in table.rows:
            parts.append("<tr>")
            for c in row:
                numeric = isinstance(c, (int, float, Fraction)) and not isinstance(c, bool)
                cls = " class='n'" if numeric else ""
                parts.append(f"<td{cls}>{e(format_cell(c))}</td>")
            parts.append("</tr>")
        parts.append("</tbody></table>")
        if table.note:
            parts.append(f"<p class='note'>{e(table.note)}</p>")
    for fig in report.figures:
        data = base64.b64encode(fig.png).decode("ascii")
        parts.append(f"<h2>{e(fig.title)}</h2><figure>")
        parts.append(f"<img alt='{e(fig.title)}' src='data:image/png;base64,{data}'>")
        if fig.caption:
            parts.append(f"<figcaption>{e(fig.caption)}</figcaption>")
        parts.append("</figure>")
    if report.notes:
        parts.append("<h2>Notes</h2><ul>")
        parts.extend(f"<li>{e(n)}</li>" for n in report.notes)
        parts.append("</ul>")
    parts.append("<p class='note'>Generated by macau-tables.</p></body></html>")
    return "\n".join(parts) + "\n"


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


class Progress(Protocol):
    def advance(self, n: int = 1) -> None: ...


class _QuietProgress:
    def advance(self, n: int = 1) -> None:
        pass


class _RichProgress:
    def __init__(self, bar: Any, task: Any) -> None:
        self._bar = bar
        self._task = task

    def advance(self, n: int = 1) -> None:
        self._bar.advance(self._task, n)


@contextmanager
def progress(description: str, total: int) -> Iterator[Progress]:
    """A progress bar on stderr (Rich) for work longer than a second; silent when stderr is not
    a terminal, so pipes and tests see clean output."""
    if not sys.stderr.isatty():
        yield _QuietProgress()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as RichProgress

    with RichProgress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=total)
        yield _RichProgress(bar, task)
