"""The ``macau-tables`` command line: one Typer app.

Sub-commands live beside the code they drive and register themselves on the apps defined here
(``analyze``, ``simulate``, ...); :func:`main` imports them.
"""

from __future__ import annotations

import importlib

import typer

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

# Modules that add commands to the apps above (imported lazily by main()).
COMMAND_MODULES: tuple[str, ...] = (
    "macau_tables.caribbean.commands",
    "macau_tables.analysis.caribbean_commands",
    "macau_tables.analysis.baccarat_commands",
)


def _register() -> None:
    for name in COMMAND_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise


def main() -> None:
    """Entry point of the console script."""
    _register()
    app()


if __name__ == "__main__":
    main()
