"""The report model shared by every analysis: one value, rendered in four formats.

An analysis's sheet module (:mod:`.caribbean_sheet`, :mod:`.baccarat_sheet`) turns computed
results into a :class:`Report` (configuration, headline numbers, tables, figures and the
machine-readable payload); :func:`macau_tables.analysis.render.render` writes it as one of the
:class:`Format` s. Nothing here computes numbers.

A report is written in one language (:attr:`Report.language`): its words (headings, section
titles, table titles, column headers, labels, descriptions, notes) are the ``par.*`` messages of
the catalog (``messages/par.toml``), read through :func:`say`; its numbers are the same in every
language.
:func:`sheet_languages` are the languages every ``par.*`` message has.

>>> Format("html")
<Format.HTML: 'html'>
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from .. import messages
from ..errors import ConfigError

__all__ = [
    "Figure",
    "Format",
    "Report",
    "Table",
    "check_language",
    "say",
    "sheet_languages",
    "speed_line",
]

_NAMESPACE = "par."


@cache
def sheet_languages() -> tuple[str, ...]:
    """The languages a sheet can be written in: those every ``par.*`` message of the catalog
    has a template for (the catalog's :data:`~macau_tables.messages.LANGUAGES` first, in their
    order, then any other).

    >>> sheet_languages()[0]
    'en'
    """
    sheets = [set(t) for k, t in messages.catalog().items() if k.startswith(_NAMESPACE)]
    common = set.intersection(*sheets) if sheets else {messages.DEFAULT_LANGUAGE}
    known = [lang for lang in messages.LANGUAGES if lang in common]
    return (*known, *sorted(common - set(known)))


def check_language(language: str) -> str:
    """``language`` if a sheet can be written in it; refuses (``ConfigError``) any other.

    >>> check_language("en")
    'en'
    """
    if language not in sheet_languages():
        raise ConfigError(
            "par.unknown_language", language=repr(language), choices=", ".join(sheet_languages())
        )
    return language


def say(language: str, key: str, /, **params: object) -> str:
    """The sheet message ``key`` (``"par.<name>"``) in ``language`` with ``params``; numbers
    are passed already formatted as the sheet prints them (str), so every language shows the
    same figures.

    >>> say("en", "par.configuration"), say("zh-Hant", "par.configuration")
    ('Configuration', '設定')
    """
    return messages.render(key, params, language)


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
    language: str = messages.DEFAULT_LANGUAGE
    """The language of the words the renderer adds (section titles, ``yes`` / ``no``) and of
    the HTML page's ``lang``; the sheet modules write the rest in it."""


def speed_line(rounds: int, seconds: float, language: str) -> tuple[str, str]:
    """The speed line of a simulation report (both games'): label and millions of rounds per
    second, in ``language``."""
    rate = f"{rounds / max(seconds, 1e-9) / 1e6:.2f}"
    return say(language, "par.speed"), say(language, "par.million_rounds_per_second", rate=rate)
