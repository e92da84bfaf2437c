"""The ``macau-tables`` Typer app and its command groups (``analyze``, ``simulate``, ``demo``).

The command modules register their commands on these groups; :mod:`.app` imports them all.
"""

from __future__ import annotations

from importlib import metadata

import typer

from .. import __version__

__all__ = ["analyze_app", "app", "demo_app", "simulate_app", "version"]

app = typer.Typer(
    name="macau-tables",
    help="Macau's statutory Baccarat and Caribbean Stud Poker: engine, tables and mathematics.",
    no_args_is_help=True,
    add_completion=False,
)
analyze_app = typer.Typer(help="Exact game mathematics and PAR sheets.", no_args_is_help=True)
simulate_app = typer.Typer(
    help="Monte Carlo simulation beside the exact values.", no_args_is_help=True
)
demo_app = typer.Typer(
    help="Seeded demonstration rounds (never a live table).", no_args_is_help=True
)
app.add_typer(analyze_app, name="analyze")
app.add_typer(simulate_app, name="simulate")
app.add_typer(demo_app, name="demo")


def version() -> str:
    """The installed package's version (its metadata), or the source tree's when the package
    is not installed.

    >>> version() == __version__
    True
    """
    try:
        return metadata.version("macau-tables")
    except metadata.PackageNotFoundError:
        return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"macau-tables {version()}")
        raise typer.Exit()


@app.callback()
def _main(
    show_version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the version (macau-tables <version>) and exit.",
    ),
) -> None:
    """Macau's statutory Baccarat and Caribbean Stud Poker: engine, tables and mathematics."""
