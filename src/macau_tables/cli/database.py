"""What the table commands share: the ``--database`` option, opening and checking the store,
refusals (exit 2, never a traceback), the output formats, money and times as people read them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Final

from ..errors import ConfigError, MacauTablesError, StoreError
from ..money import format_minor
from ..money import format_percent as percent
from ..store import Store
from ..tables.clock import MACAU, parse_day
from .output import refuse

__all__ = [
    "DATABASE_HELP",
    "Format",
    "ReportFormat",
    "money",
    "open_store",
    "parse_day",
    "percent",
    "refusals",
    "when",
]

DATABASE_HELP: Final = (
    "Database URL (sqlite:///FILE or postgresql://USER@HOST/DB); default: "
    "$MACAU_TABLES_DATABASE, else sqlite:///macau-tables.db in the working directory."
)


class Format(StrEnum):
    """Output of the listing commands: for people, or JSON for scripts."""

    TEXT = "text"
    JSON = "json"


class ReportFormat(StrEnum):
    """Output of ``report``: for people, or CSV for a spreadsheet."""

    TEXT = "text"
    CSV = "csv"


@contextmanager
def refusals() -> Iterator[None]:
    """Turn a refusal of the library (``MacauTablesError``: a bad value, an unknown table, a
    database that is not migrated, …) into ``error: <message>`` and exit code 2."""
    try:
        yield
    except MacauTablesError as exc:
        raise refuse(exc) from None


def open_store(url: str | None, *, strict: bool = True, create: bool = False) -> Store:
    """The store at ``url`` (``None``: the environment's, else the default), checked.

    Refuses (exit 2 through :func:`refusals`): a URL it cannot use; a SQLite file that does not
    exist (``cli.database_missing``: never created as a side effect, unless ``create``); a
    database not migrated, from another schema or (``strict``) failing its integrity check.
    ``strict=False`` lets ``verify`` and ``audit export`` read a database whose ledger no
    longer sums to zero: finding where is their work."""
    store = Store.open(url)
    try:
        if store.dialect == "sqlite" and not create:
            name = store.raw_url.database
            local = bool(name) and name != ":memory:" and not str(name).startswith("file:")
            if local and not Path(str(name)).is_file():
                raise ConfigError("cli.database_missing", path=str(name), url=store.url)
        if not create:
            try:
                store.check()
            except StoreError as exc:
                if strict or exc.key != "store.integrity_failed":
                    raise
    except BaseException:
        store.close()
        raise
    return store


def money(amount: int, *, grouping: bool = True) -> str:
    """Minor units as major units, e.g. ``1,234.50`` (``grouping=False``: ``1234.50``)."""
    return format_minor(amount, grouping=grouping)


def when(at: datetime) -> str:
    """A stored time as Macau time, to the second (``2026-01-05 10:00:00``)."""
    return at.astimezone(MACAU).strftime("%Y-%m-%d %H:%M:%S")
