"""The ``macau-tables`` command line: one Typer app.

Sub-commands live beside the code they drive and register themselves on the apps defined here
(``analyze``, ``simulate``, ...); :func:`main` imports them.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr; return the exit (code 2) for the caller to raise.

    Commands call it for bad options, before any work starts."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


@contextmanager
def interruptible() -> Iterator[None]:
    """Turn Ctrl-C into ``interrupted: no results`` and exit code 130: a long run that is
    interrupted never prints partial numbers as if they were final."""
    try:
        yield
    except KeyboardInterrupt:
        typer.echo("interrupted: no results", err=True)
        raise typer.Exit(130) from None


def emit(text: str, output: Path | None) -> None:
    """Write a command's result to ``output``, or to stdout when it is ``None``."""
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


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
