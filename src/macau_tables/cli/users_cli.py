"""Users of the table server, for operators who script their set-up.

* ``user add NAME --role ROLE [--reason TEXT] [--database URL]``: the password is read from
  standard input (its first line; asked twice, hidden, at a terminal), never from the command
  line where other users of the machine could see it. A player's wallet is opened too.
* ``user list [--format text|json] [--collisions]``: every user, role and whether disabled
  (never a hash); with ``--collisions``, the groups of users whose names are the same but for
  case and punctuation (made before such names were refused; left alone, each signs in with
  their exact name).
* ``user disable NAME --reason TEXT`` / ``user enable NAME --reason TEXT``: a disabled user's
  sessions and tokens end at once.
* ``user unlock NAME --reason TEXT``: forget the user's failed logins from every address (no
  address then waits before trying them again).

Every change is in the audit log with who (``cli:<login name>``) and why. Bad input (an unknown
role, a bad name, a short password, a name already used, a database that is not migrated) is
refused with ``error: …`` and exit code 2, nothing written.
"""

from __future__ import annotations

import getpass
import json
import sys

import typer

from ..server.auth import create_user, parse_role, record_action, unlock_user
from ..server.principal import Principal, UserRole
from ..store import Tx
from ..store import users_ops as ops
from .apps import app, group
from .database import DATABASE_HELP, Format, open_store, refusals, when

__all__ = ["user_add", "user_app", "user_list", "user_set_disabled", "user_unlock"]

user_app = group("Users of the table server (roles, passwords).")
app.add_typer(user_app, name="user")

DATABASE = typer.Option(None, "--database", help=DATABASE_HELP, show_default=False)
FORMAT = typer.Option(Format.TEXT, "--format", help="text for people, json for scripts.")
ROLES = ", ".join(r.value for r in UserRole)


def _actor() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except Exception:  # no login name (a container): still an actor
        return "cli"


def _read_password() -> str:
    if sys.stdin.isatty():
        password: str = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
        return password
    line = sys.stdin.readline()
    return line.rstrip("\r\n")


@user_app.command("add")
def user_add(
    name: str = typer.Argument(..., help="The user's name (a player's: their player id)."),
    role: str = typer.Option(..., "--role", help=f"One of: {ROLES}."),
    reason: str = typer.Option("macau-tables user add", "--reason", help="Why (audited)."),
    database: str | None = DATABASE,
) -> None:
    """Add a user; the password is read from standard input."""
    with refusals():
        checked = parse_role(role)
        ops.check_user_name(name)
        password = _read_password()
        store = open_store(database)
        try:
            create_user(store, name, checked, password, actor=_actor(), reason=reason)
        finally:
            store.close()
    typer.echo(f"user {name} ({checked.value}) added")


COLLISIONS = typer.Option(
    False,
    "--collisions",
    help="Only the groups of users whose names differ only in case or punctuation.",
)


@user_app.command("list")
def user_list(
    output_format: Format = FORMAT,
    collisions: bool = COLLISIONS,
    database: str | None = DATABASE,
) -> None:
    """Every user, their role and whether they are disabled (or, with --collisions, the
    look-alike names left from before they were refused)."""
    with refusals():
        store = open_store(database)
        try:
            users = store.read(ops.users)
            groups = store.read(ops.collisions) if collisions else []
        finally:
            store.close()
    if collisions:
        if output_format is Format.JSON:
            typer.echo(json.dumps([{"key": ops.name_key(g[0]), "names": g} for g in groups]))
        elif not groups:
            typer.echo("no user names collide")
        for group in groups if output_format is Format.TEXT else ():
            typer.echo(f"{ops.name_key(group[0])}: {' '.join(group)}")
        return
    if output_format is Format.JSON:
        rows = [
            {
                "name": u.name,
                "role": u.role,
                "disabled": u.disabled,
                "created_by": u.created_by,
                "created_at": u.created_at.isoformat(),
            }
            for u in users
        ]
        typer.echo(json.dumps(rows, indent=2))
        return
    for u in users:
        state = "disabled" if u.disabled else "enabled"
        typer.echo(f"{u.name:<24} {u.role:<11} {state:<9} {when(u.created_at)} by {u.created_by}")


def user_set_disabled(name: str, reason: str, database: str | None, *, disabled: bool) -> None:
    """Disable (or enable) ``name``, audited with the reason."""
    with refusals():
        store = open_store(database)
        actor = Principal(_actor(), UserRole.ADMIN, via="cli")

        def change(tx: Tx) -> None:
            ops.set_user_disabled(tx, name, disabled)
            action = "user_disable" if disabled else "user_enable"
            record_action(tx, actor, action, reason, name=name)

        try:
            store.run(change)
        finally:
            store.close()
    typer.echo(f"user {name} {'disabled' if disabled else 'enabled'}")


REASON = typer.Option(..., "--reason", help="Why (audited).")


@user_app.command("disable")
def user_disable(
    name: str = typer.Argument(..., help="The user's name."),
    reason: str = REASON,
    database: str | None = DATABASE,
) -> None:
    """Disable a user: they cannot sign in, and their sessions and tokens end."""
    user_set_disabled(name, reason, database, disabled=True)


@user_app.command("enable")
def user_enable(
    name: str = typer.Argument(..., help="The user's name."),
    reason: str = REASON,
    database: str | None = DATABASE,
) -> None:
    """Let a disabled user sign in again."""
    user_set_disabled(name, reason, database, disabled=False)


@user_app.command("unlock")
def user_unlock(
    name: str = typer.Argument(..., help="The user's name."),
    reason: str = REASON,
    database: str | None = DATABASE,
) -> None:
    """Forget a user's failed logins from every address (audited)."""
    with refusals():
        store = open_store(database)
        try:
            forgotten = unlock_user(
                store, name, Principal(_actor(), UserRole.ADMIN, via="cli"), reason
            )
        finally:
            store.close()
    typer.echo(f"user {name} unlocked ({forgotten} failed logins forgotten)")
