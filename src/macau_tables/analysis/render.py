"""Rendering of a :class:`~.report.Report`: text, JSON, CSV or a self-contained HTML page.

Computation lives in the analysis modules, the choice of tables and words in the sheet modules;
this module only writes a finished report in a :class:`~.report.Format`. The HTML output is a
PAR sheet a person can hand to a regulator, with the figures inlined as PNG. The words this
module adds (section titles, ``yes`` / ``no``, the warning and note labels) are ``par.*``
catalog messages in the report's :attr:`~.report.Report.language`; the HTML page carries it as
its ``lang``.

``json`` renders :attr:`Report.data` only (after the report's ``warnings``, if any), so the
documented keys are exactly what outside checks read. Integers stay exact integers (they can
exceed 2**53); a :class:`fractions.Fraction` becomes ``{"value": float, "exact": "num/den"}``.

>>> from macau_tables.analysis.report import Report, Table
>>> table = Table("Wagers", ("wager", "edge"), (("tie", 0.1436),))
>>> print(render(Report("Sheet", (("decks", "8"),), (), (table,), {}), Format.TEXT), end="")
Sheet
=====
<BLANKLINE>
Configuration
  decks  8
<BLANKLINE>
Wagers
------
wager    edge
-----  ------
tie    0.1436
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..errors import ConfigError
from ..messages import DEFAULT_LANGUAGE
from .report import Format, Report, Table, say

__all__ = ["format_cell", "render"]


def render(report: Report, fmt: Format) -> str:
    """``report`` as text, JSON, CSV or a self-contained HTML page (``fmt``).

    Refuses (``ConfigError``) a format that is not one of :class:`Format`.
    """
    try:
        chosen = Format(fmt)
    except ValueError:
        raise ConfigError(
            "analysis.unknown_format", format=repr(fmt), choices=", ".join(Format)
        ) from None
    if chosen is Format.JSON:
        data = dict(report.data)
        if report.warnings:
            data = {"warnings": list(report.warnings), **data}
        return json.dumps(_jsonable(data), indent=2, ensure_ascii=False) + "\n"
    if chosen is Format.CSV:
        return _render_csv(report)
    if chosen is Format.HTML:
        return _render_html(report)
    return _render_text(report)


def format_cell(value: object, language: str = DEFAULT_LANGUAGE) -> str:
    """How a table cell is printed: exact integers with thousands separators, fractions and
    floats to 10 significant digits, ``None`` as an empty cell, a ``bool`` as yes or no in
    ``language``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return say(language, "par.yes") if value else say(language, "par.no")
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


def _display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal: a wide East Asian character (莊, 牌) takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _measure(language: str) -> Callable[[str], int]:
    """How the text format measures a cell: by terminal columns, except in English, whose
    recorded sheets (docs/par) count characters (their only wide characters are the Chinese
    names of the baccarat jackpot combinations, in parentheses) and stay byte for byte."""
    return len if language == DEFAULT_LANGUAGE else _display_width


def _text_table(table: Table, language: str) -> list[str]:
    width = _measure(language)
    cells = [[format_cell(c, language) for c in row] for row in table.rows]
    widths = [width(c) for c in table.columns]
    for row in cells:
        for i, c in enumerate(row):
            widths[i] = max(widths[i], width(c))

    def is_number(v: str) -> bool:
        return v[:1].isdigit() or (v[:1] in "-+." and v[1:2].isdigit())

    # A column of numbers is right-aligned (header included), any other column left-aligned:
    # deciding per cell would scatter a column that mixes "10" with "J" or "1:1" with words.
    numeric = [
        all(is_number(row[i]) for row in cells if row[i]) and any(row[i] for row in cells)
        for i in range(len(table.columns))
    ]

    def line(values: Sequence[str]) -> str:
        pads = [" " * (widths[i] - width(v)) for i, v in enumerate(values)]
        out = [pads[i] + v if numeric[i] else v + pads[i] for i, v in enumerate(values)]
        return "  ".join(out).rstrip()

    lines = [table.title, "-" * width(table.title), line(table.columns)]
    lines.append("  ".join("-" * w for w in widths))
    lines.extend(line(row) for row in cells)
    if table.note:
        lines.append(table.note)
    return lines


def _render_text(report: Report) -> str:
    language = report.language
    width = _measure(language)
    lines = [report.title, "=" * width(report.title), ""]
    if report.warnings:
        lines.extend(say(language, "par.warning", text=w) for w in report.warnings)
        lines.append("")
    for key, pairs in (
        ("par.configuration", report.configuration),
        ("par.summary", report.summary),
    ):
        if not pairs:
            continue
        column = max(width(k) for k, _ in pairs)
        lines.append(say(language, key))
        lines.extend(f"  {k}{' ' * (column - width(k))}  {v}" for k, v in pairs)
        lines.append("")
    for table in report.tables:
        lines.extend(_text_table(table, language))
        lines.append("")
    for note in report.notes:
        lines.append(say(language, "par.note", text=note))
    return "\n".join(lines).rstrip() + "\n"


def _render_csv(report: Report) -> str:
    language = report.language
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    # The headline figures (house edge, element of risk, ...) live in the summary, not in a
    # table: a CSV without them would miss half of what the sheet states.
    sections = [
        (say(language, "par.configuration"), report.configuration),
        (say(language, "par.summary"), report.summary),
    ]
    first = True
    if report.warnings:
        writer.writerow([f"# {say(language, 'par.csv_warning')}"])
        writer.writerows([w] for w in report.warnings)
        first = False
    for title, pairs in sections:
        if not pairs:
            continue
        if not first:
            writer.writerow([])
        first = False
        writer.writerow([f"# {title}"])
        writer.writerow([say(language, "par.item"), say(language, "par.value")])
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
    language = report.language
    parts = [
        "<!doctype html>",
        f'<html lang="{e(language)}"><head><meta charset="utf-8">',
        f"<title>{e(report.title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{e(report.title)}</h1>",
    ]
    # Styled inline: the shared style sheet (and so every lawful sheet) stays as it was.
    parts.extend(
        "<p class='warning' style='border:2px solid #8b0000;padding:.4rem .8rem'>"
        f"<strong>{e(w)}</strong></p>"
        for w in report.warnings
    )

    def kv(title: str, pairs: tuple[tuple[str, str], ...]) -> None:
        if not pairs:
            return
        parts.append(f"<h2>{e(title)}</h2><dl class='kv'>")
        parts.extend(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in pairs)
        parts.append("</dl>")

    kv(say(language, "par.configuration"), report.configuration)
    kv(say(language, "par.summary"), report.summary)
    for table in report.tables:
        parts.append(f"<h2>{e(table.title)}</h2><table><thead><tr>")
        parts.extend(f"<th>{e(c)}</th>" for c in table.columns)
        parts.append("</tr></thead><tbody>")
        for row in table.rows:
            parts.append("<tr>")
            for c in row:
                numeric = isinstance(c, (int, float, Fraction)) and not isinstance(c, bool)
                cls = " class='n'" if numeric else ""
                parts.append(f"<td{cls}>{e(format_cell(c, language))}</td>")
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
        parts.append(f"<h2>{e(say(language, 'par.notes'))}</h2><ul>")
        parts.extend(f"<li>{e(n)}</li>" for n in report.notes)
        parts.append("</ul>")
    parts.append(f"<p class='note'>{e(say(language, 'par.generated'))}</p></body></html>")
    return "\n".join(parts) + "\n"
