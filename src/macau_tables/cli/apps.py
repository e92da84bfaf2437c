"""The ``macau-tables`` Typer app and its command groups (``analyze``, ``simulate``, ``demo``).

The command modules register their commands on these groups (:func:`group` makes the others);
:mod:`.app` imports them all.

One error format: every error the command line prints, its own refusals as well as a usage
error found by Typer (an unknown option, a value out of range), is one line
``error: <message>`` on standard error (:func:`.output.say_error`), exit code 2 for bad input.
Help is plain text (no option shows a ``<bool>`` type: flags take no value).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import metadata
from typing import Any, Final

import typer
from typer.core import TyperGroup

from .. import __version__
from ..errors import ConfigError
from .output import say_error

__all__ = ["analyze_app", "app", "demo_app", "group", "simulate_app", "version"]


def _click_class(name: str) -> type[Exception]:
    """Click's exception class ``name`` as Typer raises it (recent Typer carries its own copy
    of Click: the class is found through ``typer.BadParameter``'s bases, not imported)."""
    return next(c for c in typer.BadParameter.__mro__ if c.__name__ == name)


_USAGE_ERROR: Final = _click_class("UsageError")
_CLICK_ERROR: Final = _click_class("ClickException")


class _OneErrorFormat(TyperGroup):
    """The top group: a usage error Typer finds (an unknown option, a value out of range, a
    missing argument) is printed as every other error of the command line, ``error: <message>
    (see <command> --help)``, one line on stderr, with its exit code (2)."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _CLICK_ERROR as exc:
            error: Any = exc
            if type(exc).__name__ == "NoArgsIsHelpError":  # a group without its command: help
                error.show()
            elif isinstance(exc, _USAGE_ERROR) and error.ctx is not None:
                problem = error.format_message()
                command = error.ctx.command_path
                say_error(ConfigError("cli.usage", problem=problem, command=command).message)
            else:
                say_error(error.format_message())
            sys.exit(error.exit_code)
        except typer.Abort:
            typer.echo(ConfigError("cli.interrupted").message, err=True)
            sys.exit(130)
        # Not standalone, Typer returns a typer.Exit's code (None: the command ran to its end).
        sys.exit(result if isinstance(result, int) else 0)


def group(help: str, **options: Any) -> typer.Typer:
    """A command group (or the app): plain-text help, every option's type shown only where it
    takes a value."""
    return typer.Typer(help=help, no_args_is_help=True, rich_markup_mode=None, **options)


app = group(
    "Macau's statutory Baccarat and Caribbean Stud Poker: engine, tables and mathematics.",
    name="macau-tables",
    add_completion=False,
    cls=_OneErrorFormat,
)
analyze_app = group("Exact game mathematics and PAR sheets.")
simulate_app = group("Monte Carlo simulation beside the exact values.")
demo_app = group("Seeded demonstration rounds (never a live table).")
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
        help="Print the installed version and exit.",
    ),
) -> None:
    """Macau's statutory Baccarat and Caribbean Stud Poker: engine, tables and mathematics."""
