"""The ``macau-tables`` command line: one Typer app over the library (the games and analysis).

The command line imports the games and the analysis, never the reverse: no game or analysis
module imports this package. Modules:

* :mod:`.apps` — the app, its groups ``analyze`` / ``simulate`` / ``demo`` and ``--version``;
* :mod:`.caribbean_analysis`, :mod:`.baccarat_analysis` — ``analyze`` and ``simulate``;
* :mod:`.caribbean_demo`, :mod:`.baccarat_demo` — ``demo`` (seeded demonstration rounds);
* :mod:`.output` — refusals, Ctrl-C, progress bars, writing results whole;
* :mod:`.app` — the complete app (every command registered): ``from macau_tables.cli.app
  import app``.

:func:`main` is the console script; it loads the commands lazily, so a Ctrl-C while they load
says ``interrupted: no results`` instead of a traceback.
"""

from __future__ import annotations

import importlib
import sys

import typer

from ..errors import ConfigError
from .output import emit, interruptible, refuse

__all__ = ["emit", "interruptible", "main", "refuse"]


def main() -> None:
    """Entry point of the console script."""
    try:
        app: typer.Typer = importlib.import_module("macau_tables.cli.app").app
    except KeyboardInterrupt:
        # Ctrl-C while the command modules (numpy, the analysis) load: nothing was computed yet.
        typer.echo(ConfigError("cli.interrupted").message, err=True)
        sys.exit(130)
    app()


if __name__ == "__main__":
    main()
