"""The program's integrity (:mod:`macau_tables.tables.program`): a table that is not a
demonstration table opens only on the program approved last.

* ``program show [--format text|json]``: the running program's digest, version and number of
  files, the last approval (who, when, why) and whether the running program is it. Exit 0 when
  it is, 1 when it is not (or none was approved): for a start-up script or a test lab.
* ``program approve --actor NAME --reason TEXT``: record the running program as approved (in
  the audit log, with its every file's SHA-256). Tables kept closed by a changed program open at
  the server's next tick.

Bad input (an empty actor or reason, a database that is not migrated) is refused with
``error: …`` and exit code 2, nothing written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TypeVar

import typer

from ..store import Store
from ..tables.program import (
    approve_program,
    changed_files,
    last_approval,
    running_program,
)
from .apps import app, group
from .database import DATABASE_HELP, Format, open_store, refusals, when

__all__ = ["program_app", "program_approve", "program_show"]

program_app = group("The program's integrity: what runs is what was approved.")
app.add_typer(program_app, name="program")

DATABASE = typer.Option(None, "--database", help=DATABASE_HELP, show_default=False)
T = TypeVar("T")
FORMAT = typer.Option(Format.TEXT, "--format", help="text for people, json for scripts.")


def _in_store(database: str | None, work: Callable[[Store], T]) -> T:
    """``work(store)`` on the checked store at ``database``, closed after; refusals exit 2."""
    with refusals():
        store = open_store(database)
        try:
            return work(store)
        finally:
            store.close()


@program_app.command("show")
def program_show(
    output_format: Format = FORMAT,
    database: str | None = DATABASE,
) -> None:
    """The running program and the last approval; exit 1 when they differ."""
    running = running_program()
    approved = _in_store(database, lambda store: store.read(last_approval))
    same = approved is not None and approved.program.digest == running.digest
    changes = [] if approved is None else changed_files(approved.program.files, running.files)
    if output_format is Format.JSON:
        typer.echo(
            json.dumps(
                {
                    "running": {
                        "digest": running.digest,
                        "version": running.version,
                        "files": len(running.files),
                    },
                    "approved": None
                    if approved is None
                    else {
                        "digest": approved.program.digest,
                        "version": approved.program.version,
                        "actor": approved.actor,
                        "reason": approved.reason,
                        "at": approved.at.isoformat(),
                    },
                    "approved_is_running": same,
                    "changed": changes,
                },
                indent=2,
            )
        )
    else:
        typer.echo(
            f"running program  {running.digest}  version {running.version}, "
            f"{len(running.files)} files"
        )
        if approved is None:
            typer.echo(
                "approved program none: tables that are not demonstration tables stay closed"
            )
        else:
            typer.echo(
                f"approved program {approved.program.digest}  version {approved.program.version}, "
                f"by {approved.actor} at {when(approved.at)}: {approved.reason}"
            )
            if same:
                typer.echo("the running program is the one approved")
            else:
                typer.echo(
                    "the running program is NOT the one approved: tables that are not "
                    f"demonstration tables stay closed; changed since ({len(changes)}):"
                )
                for change in changes:
                    typer.echo(f"  {change}")
    if not same:
        raise typer.Exit(1)


@program_app.command("approve")
def program_approve(
    actor: str = typer.Option(..., "--actor", help="Who approves it (audited)."),
    reason: str = typer.Option(..., "--reason", help="Why: the release and its check (audited)."),
    database: str | None = DATABASE,
) -> None:
    """Record the running program as approved."""
    running = running_program()
    entry = _in_store(
        database,
        lambda store: store.run(
            lambda tx: approve_program(tx, running, actor=actor, reason=reason)
        ),
    )
    typer.echo(
        f"program {running.digest} (version {running.version}, {len(running.files)} files) "
        f"approved by {actor}: audit entry {entry}"
    )
