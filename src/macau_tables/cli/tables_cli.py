"""The casino's commands: ``db upgrade``, ``casino init``, ``tables`` and ``autoplay``.

Each takes ``--database URL`` (default: ``$MACAU_TABLES_DATABASE``, else
``sqlite:///macau-tables.db``) and refuses bad input — an unknown table, a database not
migrated or already holding a casino, a live table for the bots — with ``error: …`` and exit
code 2, never a traceback.

* ``db upgrade`` creates or migrates the schema (refuses a database from a newer schema);
* ``casino init`` creates the demonstration casino (:mod:`macau_tables.tables.casino`);
* ``tables`` lists the tables: id, game, mode, state, meter (``--format json`` for scripts);
* ``autoplay --table ID --rounds N [--players K] [--seed S]``: bots play N rounds through the
  table service itself (:class:`~macau_tables.tables.bots.Bots`): the seed drives only their
  choices, the cards come from the CSPRNG shoe; a progress bar on a terminal, then the run and
  the table's totals (rounds, drop, win, commission, jackpot contributions and awards).
"""

from __future__ import annotations

import json
from typing import Any

import typer

from ..errors import ConfigError
from ..store import Store
from ..tables import TableService
from ..tables.bots import Bots, Played
from ..tables.casino import DemoCasino, create_demo_casino
from ..tables.reports import TableFigures, table_figures, table_rows
from .apps import app, group
from .database import DATABASE_HELP, Format, money, open_store, percent, refusals
from .output import interruptible, progress

__all__ = ["autoplay", "casino_app", "casino_init", "db_app", "db_upgrade", "list_tables"]

db_app = group("The database: create or migrate its schema.")
casino_app = group("A demonstration casino.")
app.add_typer(db_app, name="db")
app.add_typer(casino_app, name="casino")

DATABASE = typer.Option(None, "--database", help=DATABASE_HELP, show_default=False)
FORMAT = typer.Option(Format.TEXT, "--format", help="text for people, json for scripts.")


@db_app.command("upgrade")
def db_upgrade(database: str | None = DATABASE) -> None:
    """Create or migrate the database's schema to this version of macau-tables."""
    with refusals():
        store = open_store(database, create=True)
        try:
            version = store.upgrade()
            typer.echo(f"{store.url}: schema version {version}")
        finally:
            store.close()


@casino_app.command("init")
def casino_init(database: str | None = DATABASE) -> None:
    """Create a demonstration casino: an 8-deck baccarat table with a virtual shoe, a live
    baccarat table, a Caribbean Stud table with a virtual deck, one linked jackpot meter per
    game and demonstration players with money (deposited by the cashier)."""
    with refusals():
        store = open_store(database)
        try:
            made = create_demo_casino(store)
            typer.echo(describe_casino(made, store))
        finally:
            store.close()


def describe_casino(made: DemoCasino, store: Store) -> str:
    """What :func:`casino_init` prints."""
    lines = [f"Demonstration casino created in {store.url}", "", "Linked jackpot meters:"]
    lines += [f"  {m:<12} {g:<10} seeded at {money(s)}" for m, g, s in made.meters]
    lines += ["", "Tables (open; approvals: DEMO-ONLY records, a demonstration only):"]
    lines += [
        f"  {t.table_id:<9} {t.game:<10} {t.mode.value:<8} meter {t.meter_id:<12} {t.name}"
        for t in made.tables
    ]
    lines += ["", "Players (deposited by the cashier: actor 'casino init', 'demonstration float'):"]
    lines += [
        f"  {p:<8} {n:<8} {money(b):>12}  (tx {tx})"
        for (p, n, b), tx in zip(made.players, made.deposits, strict=True)
    ]
    lines += [
        "",
        "Next: macau-tables autoplay --table bac-1 --rounds 20",
        "      macau-tables tables | recall --table bac-1 | verify",
    ]
    return "\n".join(lines) + "\n"


@app.command("tables")
def list_tables(
    database: str | None = DATABASE,
    output_format: Format = FORMAT,
) -> None:
    """The casino's tables: id, game, mode (virtual / live), state and linked meter."""
    with refusals():
        store = open_store(database)
        try:
            rows = store.read(table_rows)
        finally:
            store.close()
    if output_format is Format.JSON:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not rows:
        typer.echo("No tables: create the demonstration casino with macau-tables casino init")
        return
    head = f"{'id':<10} {'game':<10} {'mode':<8} {'state':<8} {'events':>7}  meter"
    typer.echo(head)
    for r in rows:
        meter = "-" if r["meter_id"] is None else f"{r['meter_id']} {money(r['meter_amount'])}"
        state = r["status"] if r["fault"] is None else f"{r['status']} ({r['fault']})"
        typer.echo(
            f"{r['table_id']:<10} {r['game']:<10} {r['mode']:<8} {state:<8} "
            f"{r['events']:>7}  {meter}"
        )


@app.command("autoplay")
def autoplay(
    table: str = typer.Option(..., "--table", help="The table's id (see macau-tables tables)."),
    rounds: int = typer.Option(..., "--rounds", min=1, max=1_000_000, help="Rounds to play."),
    players: int = typer.Option(3, "--players", min=1, max=7, help="Bots at the table (1-7)."),
    seed: int | None = typer.Option(
        None, "--seed", help="Seeds the bots' choices only (the shoe stays on the CSPRNG)."
    ),
    owner: str | None = typer.Option(
        None,
        "--owner",
        help="Who runs the table (its lease); the same owner takes a table over after a crash.",
    ),
    database: str | None = DATABASE,
) -> None:
    """Bots play ROUNDS rounds at a virtual table through the table service itself, then the
    table's totals are printed."""
    with refusals():
        store = open_store(database)
        try:
            _autoplay(store, table, rounds, players, seed, owner)
        finally:
            store.close()


def _autoplay(
    store: Store, table: str, rounds: int, players: int, seed: int | None, owner: str | None
) -> None:
    store.read(lambda tx: tx.table(table))  # an unknown table: store.unknown_table
    funded = store.read(
        lambda tx: [
            p.player_id for p in sorted(tx.players(), key=lambda p: p.player_id) if p.balance > 0
        ]
    )
    if len(funded) < players:
        raise ConfigError("cli.not_enough_players", wanted=players, found=len(funded))
    service = TableService(store, table, owner=owner)
    try:
        bots = Bots(service, funded[:players], seed=seed, actor="autoplay")
        with interruptible(), progress(f"autoplay {table}", rounds) as bar:
            played = bots.play(rounds, progress=lambda _r: bar.advance())
    finally:
        service.close()
    figures = store.read(lambda tx: table_figures(tx, tx.table(table), None, None))
    typer.echo(describe_run(table, played, figures))


def _funded(players: list[Any]) -> list[str]:
    """The ids of the players with money, in id order (who the bots play as)."""
    return [p.player_id for p in sorted(players, key=lambda p: p.player_id) if p.balance > 0]


def describe_run(table: str, played: Played, figures: TableFigures) -> str:
    """What :func:`autoplay` prints: this run, then the table's totals since it opened."""
    held = "-" if figures.hold is None else f"{percent(figures.hold)} %"
    lines = [
        f"Table {table}: {played.rounds} rounds played ({played.voided} void), "
        f"{played.commands} commands, {played.refused} wagers refused",
        "",
        f"Totals of table {table} since it opened:",
        f"  rounds                  {figures.rounds:>14}",
        f"  drop                    {money(figures.drop):>14}",
        f"  win                     {money(figures.win):>14}",
        f"  hold                    {held:>14}",
        f"  commission              {money(figures.commission):>14}",
        f"  jackpot contributions   {money(figures.contributions):>14}",
        f"  jackpot awards          {money(figures.awards):>14}"
        f"  (from the meter {money(figures.awards_from_meter)}, "
        f"from the house {money(figures.awards_from_house)}: CSP-10.8, BAC-17.5)",
        f"  carried to next rounds  {money(figures.carried):>14}",
    ]
    if figures.meter_id is not None:
        lines.append(f"  meter {figures.meter_id:<17} {money(figures.liability):>14}")
    return "\n".join(lines) + "\n"
