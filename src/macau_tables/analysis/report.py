"""The report model shared by every analysis: one value, rendered in four formats.

An analysis's sheet module (:mod:`.caribbean_sheet`, :mod:`.baccarat_sheet`) turns computed
results into a :class:`Report` (configuration, headline numbers, tables, figures and the
machine-readable payload); :func:`macau_tables.analysis.render.render` writes it as one of the
:class:`Format` s. Nothing here computes or formats numbers.

>>> Format("html")
<Format.HTML: 'html'>
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Figure", "Format", "Report", "Table"]


class Format(StrEnum):
    """The output formats of a report."""

    TEXT = "text"
    JSON = "json"
    CSV = "csv"
    HTML = "html"
    """A self-contained PAR sheet page (figures inlined as PNG)."""


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
    """Everything an analysis prints, in every format.

    ``data`` is the JSON payload (the documented keys outside checks read); ``warnings`` are
    stated in the header of every format, the JSON's included (a ``warnings`` key first).
    """

    title: str
    configuration: tuple[tuple[str, str], ...]
    summary: tuple[tuple[str, str], ...]
    tables: tuple[Table, ...]
    data: Mapping[str, object]
    figures: tuple[Figure, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    """Said first, in the header of every format (e.g. a shoe outside the law, BAC-1)."""
