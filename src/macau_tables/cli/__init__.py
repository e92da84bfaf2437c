"""The ``macau-tables`` command line: one Typer app.

Sub-commands live beside the code they drive and register themselves on the apps defined here
(``analyze``, ``simulate``, ...); :func:`main` imports them.
"""

from __future__ import annotations

import importlib
import os
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
    """Write a command's result to ``output``, or to stdout when it is ``None``.

    The file is written whole or not at all (a temporary file beside it, then renamed over it),
    so a half-written result never stands as final. A file that cannot be written (disk full,
    permissions) ends the command with ``error: cannot write ...`` and exit code 1, never a
    traceback; a reader that closes the pipe early (``| head``) ends it quietly."""
    if output is None:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            # Point stdout at /dev/null so the interpreter's final flush does not fail again.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise typer.Exit(1) from None
        return
    partial = output.with_name(f".{output.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, output)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        typer.echo(f"error: cannot write {output}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None


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
    try:
        _register()
    except KeyboardInterrupt:
        # Ctrl-C while the command modules (numba kernels) load: nothing was computed yet.
        typer.echo("interrupted: no results", err=True)
        sys.exit(130)
    app()


if __name__ == "__main__":
    main()
