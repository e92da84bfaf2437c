"""What every command shares: refusals, Ctrl-C, progress bars and writing results.

Every message a command prints comes from the message catalog (``messages/cli.toml``, or the
library's own error), in English.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, Protocol

import typer

from ..cards import Card
from ..errors import ConfigError, MacauTablesError

__all__ = [
    "Progress",
    "cannot_write",
    "check_output",
    "emit",
    "interruptible",
    "progress",
    "refuse",
    "say_error",
    "show_cards",
]


def show_cards(cards: Iterable[Card]) -> str:
    """Cards as a person reads them, e.g. ``A♠ 10♥`` (what the demos print).

    >>> from macau_tables.cards import parse_cards
    >>> show_cards(parse_cards("As Th 2d"))
    'A♠ 10♥ 2♦'
    """
    return " ".join(c.pretty for c in cards)


def say_error(message: str) -> None:
    """Print an error the one way the command line prints errors: ``error: <message>``, one
    line on standard error (a refusal, a usage error, a file that cannot be written, a port in
    use). The exit code says which kind: 2 bad input, 1 a failure while working."""
    typer.echo(f"error: {message}", err=True)


def refuse(error: MacauTablesError, option: str | None = None) -> typer.Exit:
    """Print ``error: [option: ]message`` (the error's English text) on stderr; return the exit
    (code 2) for the caller to raise. Commands call it for bad options, before any work."""
    prefix = f"{option}: " if option else ""
    say_error(f"{prefix}{error.message}")
    return typer.Exit(2)


@contextmanager
def interruptible() -> Iterator[None]:
    """Turn Ctrl-C into ``interrupted: no results`` and exit code 130: a long run that is
    interrupted never prints partial numbers as if they were final."""
    try:
        yield
    except KeyboardInterrupt:
        typer.echo(ConfigError("cli.interrupted").message, err=True)
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
        cannot_write(output, exc)


def cannot_write(path: Path, exc: OSError) -> NoReturn:
    """End the command: ``error: cannot write PATH: reason``, exit code 1."""
    say_error(ConfigError("cli.cannot_write", path=str(path), reason=exc.strerror or exc).message)
    raise typer.Exit(1) from None


def check_output(output: Path | None) -> Path | None:
    """Return ``output`` if a result can be written there (``None`` means stdout); refuse
    (``typer.BadParameter``, exit code 2, naming the option) a folder, a missing folder or a
    path that is not writable.

    The ``--output`` options' callback: it runs before any work starts, so a mistyped path does
    not throw away a long run.
    """
    if output is None:
        return None
    folder = output.parent if str(output.parent) else Path(".")
    error: ConfigError | None = None
    if output.is_dir():
        error = ConfigError("cli.output_is_folder", path=repr(str(output)))
    elif not folder.is_dir():
        error = ConfigError("cli.output_folder_missing", folder=repr(str(folder)))
    elif not os.access(folder, os.W_OK) or (output.exists() and not os.access(output, os.W_OK)):
        error = ConfigError("cli.output_not_writable", path=repr(str(output)))
    if error is not None:
        raise typer.BadParameter(error.message)
    return output


class Progress(Protocol):
    """Where a long computation reports how far it got."""

    def advance(self, n: int = 1) -> None: ...


class _QuietProgress:
    def advance(self, n: int = 1) -> None:
        pass


class _RichProgress:
    def __init__(self, bar: Any, task: Any) -> None:
        self._bar = bar
        self._task = task

    def advance(self, n: int = 1) -> None:
        self._bar.advance(self._task, n)


@contextmanager
def progress(description: str, total: int) -> Iterator[Progress]:
    """A progress bar on stderr (Rich) for work longer than a second; silent when stderr is not
    a terminal, so pipes and tests see clean output."""
    if not sys.stderr.isatty():
        yield _QuietProgress()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as RichProgress

    with RichProgress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=total)
        yield _RichProgress(bar, task)
