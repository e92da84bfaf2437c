"""The regulator's commands: ``recall``, ``verify``, ``report`` and ``audit export``.

All of them only read (they work while a table is stopped by a fault, and while other
processes play) and take ``--database URL``; bad input is refused with ``error: …`` and exit
code 2.

* ``recall --table ID --last N``: each of the last N rounds as recorded — cards in dealing
  order, wagers, balances before and after, wins, jackpot awards, the round's hash; a round
  still in play as a supervisor's live view of it (the operator's audience: no card the table
  does not show a supervisor, :mod:`macau_tables.visibility`);
* ``verify``: hash chains, the ledger, every round re-derived through its rules, shoes against
  their commitments (:mod:`macau_tables.tables.audit`); ``verify --archive FILE`` checks an
  audit archive offline, with no database (:mod:`macau_tables.tables.archive_check`), and
  ``--public-key KEY`` that it is signed by that key. Exit 0 when everything holds, 1 naming
  the first failing table and record;
* ``report --day YYYY-MM-DD``: per table drop, win, hold %, commission, jackpot contributions,
  awards and liability (:mod:`macau_tables.tables.reports`), as text or CSV;
* ``audit export --day YYYY-MM-DD -o FILE [--sign-key KEYFILE]``: the day's self-contained
  archive (:mod:`macau_tables.tables.archive`), signed when a key is given;
* ``audit keygen -o KEYFILE``: a key that signs archives (:mod:`macau_tables.tables.signing`):
  the private key in KEYFILE (never overwritten), the public key in KEYFILE.pub and printed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from ..errors import ConfigError
from ..messages import DEFAULT_LANGUAGE, render
from ..rounds import Audience
from ..tables.archive import export_day
from ..tables.archive_check import verify_archive
from ..tables.audit import default_jobs, verify_database
from ..tables.findings import Finding
from ..tables.recall import RecalledAward, RecalledRound, recall
from ..tables.reports import (
    DayReport,
    PositionFigures,
    day_positions,
    day_report,
    position_csv,
    report_csv,
)
from ..tables.signing import fingerprint, generate_key, load_key, parse_public_key, write_key
from .apps import app, group
from .database import (
    DATABASE_HELP,
    Format,
    ReportFormat,
    money,
    open_store,
    parse_day,
    percent,
    refusals,
)
from .database import when as shown_time
from .output import cannot_write, check_output, emit, interruptible, refuse

__all__ = ["audit_app", "audit_export", "audit_keygen", "recall_rounds", "report", "verify"]

OPERATOR = Audience.supervisor()
"""Whom ``recall`` shows a round still in play as: the operator at the console is staff, and
sees what a supervisor's live view shows (CSP-12, BAC-16)."""

audit_app = group("Audit archives for regulators and test labs.")
app.add_typer(audit_app, name="audit")

DATABASE = typer.Option(None, "--database", help=DATABASE_HELP, show_default=False)
DAY_HELP = "The gaming day, YYYY-MM-DD (midnight to midnight, Macau time)."
FORMAT = typer.Option(Format.TEXT, "--format", help="text for people, json for scripts.")
ARCHIVE = typer.Option(
    None, "--archive", help="Check this audit archive offline (no database) instead."
)
REPORT_FORMAT = typer.Option(
    ReportFormat.TEXT, "--format", help="text for people, csv for a spreadsheet."
)
REPORT_OUTPUT = typer.Option(
    None, "--output", "-o", callback=check_output, help="Write to this file (default: stdout)."
)
JOBS = typer.Option(
    None,
    "--jobs",
    "-j",
    min=1,
    show_default=False,
    help="How many processes check the tables' logs at once, each log split into parts "
    "(default: the number of cores; 1: all in this process). The report is the same.",
)
PUBLIC_KEY = typer.Option(
    None,
    "--public-key",
    help="With --archive: require the archive signed by this key (ed25519:… or a .pub file).",
)
KEY_OUTPUT = typer.Option(
    ..., "--output", "-o", help="The private key file to write (never overwritten)."
)
BY_POSITION = typer.Option(
    False, "--by-position", help="Per betting position (box or seat) of each table instead."
)
SIGN_KEY = typer.Option(
    None, "--sign-key", help="Sign the archive with this private key (audit keygen)."
)
ARCHIVE_OUTPUT = typer.Option(
    ..., "--output", "-o", callback=check_output, help="The archive file to write (a ZIP)."
)


# -- recall ---------------------------------------------------------------------------------------


@app.command("recall")
def recall_rounds(
    table: str = typer.Option(..., "--table", help="The table's id (see macau-tables tables)."),
    last: int = typer.Option(10, "--last", min=1, max=10_000, help="How many rounds."),
    output_format: Format = FORMAT,
    database: str | None = DATABASE,
) -> None:
    """The table's last rounds as recorded: cards in dealing order, wagers, balances before and
    after, wins, jackpot awards and each round's hash."""
    with refusals():
        store = open_store(database)
        try:
            status, rounds = store.read(
                lambda tx: (tx.table(table), recall(tx, table, last, audience=OPERATOR))
            )
        finally:
            store.close()
    if output_format is Format.JSON:
        typer.echo(json.dumps([r.to_dict() for r in rounds], indent=2, ensure_ascii=False))
        return
    state = status.status.value
    if status.fault is not None:
        state += f" — fault in force: {status.fault.get('reason')}"
    lines = [f"Table {table} ({status.game}, {status.mode.value}): {state}"]
    if not rounds:
        lines.append("No rounds recorded yet.")
    for r in rounds:
        lines += ["", *describe_round(r)]
    typer.echo("\n".join(lines))


def describe_round(r: RecalledRound, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """One recalled round as text lines (its jackpot awards in ``language``: the CLI's is
    English)."""
    out = [
        f"Round {r.round_id} — {r.state}, records #{r.first_seq}…#{r.last_seq}, "
        f"{shown_time(r.started)} → {shown_time(r.ended)} (Macau)",
        "  cards (dealing order): "
        + (", ".join(f"{c.to} {c.card}" + _note(c.event) for c in r.cards) or "none"),
    ]
    if r.view is not None:  # in play: what a supervisor's live view shows, no card more
        out[-1] = "  in play, as the live view shows it: " + json.dumps(
            r.view, ensure_ascii=False, sort_keys=True
        )
    if r.wagers:
        out.append("  wagers:")
        out += [
            f"    {w.player:<8} {w.spot:<10} {w.kind:<12} {money(w.stake):>12}  {w.outcome:<13}"
            f" paid {money(w.paid)}"
            + (f" (award {money(w.award)})" if w.award else "")
            + (" [carried in]" if w.carried_in else "")
            for w in r.wagers
        ]
    else:
        out.append("  wagers: none")
    if r.players:
        out.append("  balances (before → after, the round's net):")
        out += [
            f"    {p.player:<8} {money(p.before):>14} → {money(p.after):>14}  ({_signed(p.net)})"
            for p in r.players
        ]
    out.append(
        "  jackpot awards: " + (", ".join(describe_award(a, language) for a in r.awards) or "none")
    )
    out += [f"  {n}" for n in r.notes]
    out.append(f"  hash #{r.last_seq}: {r.hash}")
    return out


def describe_award(award: RecalledAward, language: str = DEFAULT_LANGUAGE) -> str:
    """A recalled jackpot award as text in ``language``: the winning box or seat (CSP-10.4,
    BAC-17), the combination and the amount with the part from the meter."""
    return render(
        "cli.recall_award",
        {
            "place": award.place or "no place recorded",
            "combination": award.combination,
            "amount": money(award.amount),
            "from_meter": money(award.from_meter),
        },
        language,
    )


def _note(event: str) -> str:
    return "" if event == "CardDealt" else f" [{event}]"


def _signed(amount: int) -> str:
    return ("+" if amount > 0 else "") + money(amount)


# -- verify ---------------------------------------------------------------------------------------


@app.command("verify")
def verify(
    archive: Path | None = ARCHIVE,
    public_key: str | None = PUBLIC_KEY,
    output_format: Format = FORMAT,
    database: str | None = DATABASE,
    jobs: int | None = JOBS,
) -> None:
    """Verify hash chains, the ledger, every round's settlement re-derived by its rules and the
    shoes against their commitments. Exit 0 when all hold, 1 naming the first failing table
    and record. The tables' logs are checked by --jobs processes at once (default: the number of
    cores); the report is the same whatever their number."""
    if public_key is not None and archive is None:
        raise refuse(ConfigError("cli.public_key_without_archive"))
    if archive is not None:
        if not archive.is_file():
            raise refuse(ConfigError("cli.archive_missing", path=str(archive)), "--archive")
        wanted = None
        if public_key is not None:
            with refusals():
                wanted = parse_public_key(public_key)
        with interruptible():
            checked = verify_archive(archive, public_key=wanted)
        counts = dict(checked.counts)
        where = f"archive {archive}"
        if checked.signed_by is not None:
            where += f" (signed by {fingerprint(checked.signed_by)})"
        _verdict(checked.finding, counts, where, output_format, checked.signed_by)
        return
    with refusals():
        store = open_store(database, strict=False)
        try:
            with interruptible():
                result = verify_database(store, jobs=default_jobs() if jobs is None else jobs)
            where = store.url
        finally:
            store.close()
    _verdict(result.finding, result.counts(), where, output_format)


def _verdict(
    found: Finding | None,
    counts: dict[str, int],
    where: str,
    output_format: Format,
    signed_by: str | None = None,
) -> None:
    if output_format is Format.JSON:
        body: dict[str, Any] = {"ok": found is None, "source": where, "counts": counts}
        if signed_by is not None:
            body["signed_by"] = {"public_key": signed_by, "fingerprint": fingerprint(signed_by)}
        body["failure"] = None if found is None else found.to_dict()
        typer.echo(json.dumps(body, indent=2, ensure_ascii=False))
    elif found is None:
        read = ", ".join(f"{n} {k}" for k, n in counts.items())
        typer.echo(f"verify: OK — {where}: {read}")
    else:
        typer.echo(f"verify: FAILED — {where}: {describe_finding(found)}")
    if found is not None:
        raise typer.Exit(1)


def describe_finding(found: Finding) -> str:
    """``table T, record R (relation, check): message``, leaving out what is not known."""
    where = []
    if found.table_id:
        where.append(f"table {found.table_id}")
    if found.record and found.record != "-":
        where.append(f"record {found.record}")
    head = ", ".join(where)
    return f"{head} ({found.relation}, {found.check}): {found.message}".lstrip()


# -- report ---------------------------------------------------------------------------------------


@app.command("report")
def report(
    day: str = typer.Option(..., "--day", help=DAY_HELP),
    by_position: bool = BY_POSITION,
    output_format: ReportFormat = REPORT_FORMAT,
    output: Path | None = REPORT_OUTPUT,
    database: str | None = DATABASE,
) -> None:
    """A gaming day's figures per table: drop, win, hold %, commission, jackpot contributions,
    awards and liability; with --by-position, per box or seat of each table."""
    with refusals():
        gaming_day = parse_day(day)
        store = open_store(database)
        try:
            result = store.read(lambda tx: day_report(tx, gaming_day))
            positions = (
                store.read(lambda tx: day_positions(tx, gaming_day)) if by_position else None
            )
        finally:
            store.close()
    if positions is not None:
        csv_form = output_format is ReportFormat.CSV
        text = position_csv(positions) if csv_form else positions_text(result, positions)
    else:
        text = report_csv(result) if output_format is ReportFormat.CSV else report_text(result)
    emit(text, output)


def positions_text(r: DayReport, figures: list[PositionFigures]) -> str:
    """The per-position report for people."""
    head = (
        f"{'table':<9} {'position':<12} {'wagers':>6} {'drop':>13} {'paid':>13} "
        f"{'commission':>11} {'contrib.':>10} {'awards':>11} {'win':>12}"
    )
    lines = [
        f"Gaming day {r.day.isoformat()} (Macau), {shown_time(r.start)} to {shown_time(r.end)}: "
        "per betting position, rounds settled that day",
        "",
        head,
        "-" * len(head),
    ]
    for f in figures:
        lines.append(
            f"{f.table_id:<9} {f.position:<12} {f.wagers:>6} {money(f.drop):>13} "
            f"{money(f.paid):>13} {money(f.commission):>11} {money(f.contributions):>10} "
            f"{money(f.awards):>11} "
            f"{money(f.win):>12}"
        )
    lines += [
        "",
        "drop: stakes taken from wallets in those rounds; paid: stakes back, wins and awards; "
        "win: the table bank's net and the commission, less house-funded awards.",
    ]
    return "\n".join(lines) + "\n"


def report_text(r: DayReport) -> str:
    """The report for people."""
    head = (
        f"{'table':<9} {'game':<9} {'rounds':>6} {'drop':>13} {'win':>12} {'hold %':>7} "
        f"{'commission':>11} {'contrib.':>10} {'awards':>11} {'house-fund.':>11} "
        f"{'carried':>10} {'liability':>13}"
    )
    lines = [
        f"Gaming day {r.day.isoformat()} (Macau), {shown_time(r.start)} to {shown_time(r.end)}",
        "",
        head,
        "-" * len(head),
    ]
    for f in (*r.tables, r.totals):
        if f is r.totals:
            lines.append("-" * len(head))
        lines.append(
            f"{f.table_id:<9} {f.game:<9} {f.rounds:>6} {money(f.drop):>13} {money(f.win):>12} "
            f"{percent(f.hold) or '-':>7} {money(f.commission):>11} {money(f.contributions):>10} "
            f"{money(f.awards):>11} {money(f.awards_from_house):>11} {money(f.carried):>10} "
            f"{money(f.liability):>13}"
        )
    lines += [
        "",
        "win: the house's result (table bank, commission, house-funded awards); contributions "
        "go to the meter, not to win;",
        "house-fund.: the jackpot awards the house funded (CSP-10.8, BAC-17.5): a meter award "
        "takes only its share out of the meter and the house pays the difference up to a "
        "larger fixed award; the fixed awards of the other combinations are the house's;",
        "liability: the linked meter at the end of the day (shared meters counted once in the "
        "total); carried: wagers held for a later round.",
    ]
    return "\n".join(lines) + "\n"


# -- audit export ---------------------------------------------------------------------------------


@audit_app.command("export")
def audit_export(
    day: str = typer.Option(..., "--day", help=DAY_HELP),
    output: Path = ARCHIVE_OUTPUT,
    sign_key: Path | None = SIGN_KEY,
    database: str | None = DATABASE,
) -> None:
    """Write a self-contained archive of a gaming day (configurations, events, transactions,
    meters, shoe reveals, chain heads) that macau-tables verify --archive checks offline."""
    with refusals():
        gaming_day = parse_day(day)
        key = None if sign_key is None else load_key(sign_key)
        store = open_store(database, strict=False)
        try:
            try:
                done = export_day(store, gaming_day, output, sign_with=key)
            except OSError as exc:
                cannot_write(output, exc)
        finally:
            store.close()
    members = done.manifest["members"]
    chains = done.manifest["chains"]
    typer.echo(f"Audit archive of {gaming_day.isoformat()} written to {done.path}")
    typer.echo(f"  SHA-256 {done.sha256}")
    typer.echo(
        f"  {members['events.jsonl']['records']} events of {len(chains)} tables, "
        f"{members['transactions.jsonl']['records']} transactions, "
        f"{members['shoes.jsonl']['records']} shoes"
    )
    for table_id, chain in sorted(chains.items()):
        typer.echo(f"  chain head {table_id} #{chain['last_seq']}: {chain['end_hash']}")
    if done.signed_by is None:
        typer.echo(f"Check it offline: macau-tables verify --archive {done.path}")
        return
    typer.echo(f"  signed by {done.signed_by} (fingerprint {fingerprint(done.signed_by)})")
    typer.echo(
        f"Check it offline: macau-tables verify --archive {done.path} --public-key {done.signed_by}"
    )


@audit_app.command("keygen")
def audit_keygen(
    output: Path = KEY_OUTPUT,
) -> None:
    """Make a key that signs audit archives: the private key in FILE (readable by you only),
    the public key in FILE.pub and on the screen, to publish for regulators and test labs."""
    key = generate_key()
    with refusals():
        try:
            public_path = write_key(key, output)
        except OSError as exc:
            cannot_write(output, exc)
    typer.echo(f"Private key written to {output} (keep it secret: it signs your archives)")
    typer.echo(f"Public key written to {public_path}:")
    typer.echo(f"  {key.public}")
    typer.echo(f"  fingerprint {fingerprint(key.public)}")
