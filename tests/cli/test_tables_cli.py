"""The casino's command line on SQLite and PostgreSQL (issue 9, "Command line"): after a short
session of play (``db upgrade`` → ``casino init`` → ``autoplay``), ``tables``, ``recall``,
``verify``, ``report`` and ``audit export`` work; bad input is refused with exit code 2 and a
message saying what to do, never a traceback."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path

from macau_tables.store import Store
from macau_tables.tables import ReportFault, TableService

from .tables_support import played, run, session, today

__all__ = ["played", "session"]  # the fixtures, imported for the tests below


def test_casino_init_prints_what_it_created_and_refuses_a_second_casino(
    database_url: str,
) -> None:
    assert run("db", "upgrade", "--database", database_url).exit_code == 0
    made = run("casino", "init", "--database", database_url)
    assert made.exit_code == 0, made.output
    for expected in ("bac-1", "bac-live", "csp-1", "m-baccarat", "m-caribbean", "alice"):
        assert expected in made.stdout
    again = run("casino", "init", "--database", database_url)
    assert again.exit_code == 2
    assert "already holds a casino" in again.stderr and "--database" in again.stderr
    assert "Traceback" not in again.output


def test_the_demo_casino_deposits_through_the_cashier_with_actor_and_reason(
    database_url: str,
) -> None:
    run("db", "upgrade", "--database", database_url)
    run("casino", "init", "--database", database_url)
    with Store.open(database_url) as store:
        deposits = store.read(lambda tx: [t for t in tx.transactions() if t.kind == "deposit"])
        players = store.read(lambda tx: tx.players())
        tables = store.read(lambda tx: {t.table_id: t for t in tx.tables()})
    assert len(deposits) == len(players) == 7
    assert all(t.actor == "casino init" and t.reason for t in deposits)
    assert {t.table_id: (t.game, t.mode.value) for t in tables.values()} == {
        "bac-1": ("baccarat", "virtual"),
        "bac-live": ("baccarat", "live"),
        "bac-squeeze": ("baccarat", "virtual"),
        "csp-1": ("caribbean", "virtual"),
    }
    assert tables["bac-1"].meter_id == tables["bac-live"].meter_id == "m-baccarat"
    assert all(t.status.value == "open" and t.demo for t in tables.values())


def test_tables_lists_id_game_mode_state_and_meter(session: str) -> None:
    text = run("tables", "--database", session)
    assert text.exit_code == 0, text.output
    assert "bac-live" in text.stdout and "live" in text.stdout and "m-caribbean" in text.stdout
    data = json.loads(run("tables", "--format", "json", "--database", session).stdout)
    rows = {r["table_id"]: r for r in data}
    assert set(rows) == {"bac-1", "bac-live", "bac-squeeze", "csp-1"}
    assert rows["bac-1"]["mode"] == "virtual" and rows["bac-live"]["mode"] == "live"
    assert rows["csp-1"]["status"] == "open" and rows["csp-1"]["meter_id"] == "m-caribbean"
    assert rows["bac-1"]["events"] > 0 and rows["bac-live"]["events"] == 0
    assert rows["bac-1"]["meter_amount"] >= 1_000_000


def test_autoplay_ends_with_the_table_totals(database_url: str) -> None:
    run("db", "upgrade", "--database", database_url)
    run("casino", "init", "--database", database_url)
    result = run("autoplay", "--table", "csp-1", "--rounds", "2", "--database", database_url)
    assert result.exit_code == 0, result.output
    for label in ("2 rounds played", "drop", "win", "commission", "jackpot contributions"):
        assert label in result.stdout
    assert "jackpot awards" in result.stdout


def test_recall_shows_cards_wagers_balances_and_each_round_hash(session: str) -> None:
    result = run("recall", "--table", "csp-1", "--last", "2", "--database", session)
    assert result.exit_code == 0, result.output
    assert result.stdout.count("Round csp-1-") == 2
    assert "cards (dealing order): box 1" in result.stdout and "dealer" in result.stdout
    assert "ante" in result.stdout and "→" in result.stdout and "hash #" in result.stdout
    rounds = json.loads(
        run(
            "recall", "--table", "bac-1", "--last", "10", "--format", "json", "--database", session
        ).stdout
    )
    assert [r["round_id"] for r in rounds] == [f"bac-1-{n}" for n in range(1, 5)]
    with Store.open(session) as store:
        heads = store.read(lambda tx: {r.seq: r.hash for r in tx.read_events("bac-1")})
    for r in rounds:
        assert r["hash"] == heads[r["last_seq"]]
        # A demonstration round (BAC-2.2) is dealt without wagers and recalled as one.
        assert r["state"] == ("demonstration" if not r["wagers"] else "settled")
        assert [c["to"] for c in r["cards"]][:4] == ["P1", "B1", "P2", "B2"]  # BAC-7.1 order
        for p in r["players"]:
            assert p["after"] - p["before"] == p["net"]
        staked = sum(w["stake"] for w in r["wagers"] if not w["carried_in"])
        assert sum(p["net"] for p in r["players"]) == sum(w["paid"] for w in r["wagers"]) - staked


def test_recall_works_while_a_fault_is_in_force(played: str) -> None:
    with Store.open(played) as store:
        service = TableService(store, "csp-1")
        service.submit(ReportFault("card reader failure"), idempotency_key="f1", actor="pit")
        service.close()
    result = run("recall", "--table", "csp-1", "--last", "1", "--database", played)
    assert result.exit_code == 0, result.output
    assert "fault in force: card reader failure" in result.stdout
    assert "Round csp-1-3" in result.stdout
    assert run("verify", "--database", played, "--jobs", "1").exit_code == 0


def test_verify_passes_after_a_session_of_play(session: str) -> None:
    result = run("verify", "--database", session, "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("verify: OK")
    data = json.loads(
        run("verify", "--format", "json", "--database", session, "--jobs", "1").stdout
    )
    assert data["ok"] and data["failure"] is None
    assert data["counts"]["settlements"] == data["counts"]["rounds"] == 3 + 1 + 3  # + demo round


def test_report_gives_drop_win_hold_commission_jackpot_and_liability(session: str) -> None:
    text = run("report", "--day", today(), "--database", session)
    assert text.exit_code == 0, text.output
    assert "hold %" in text.stdout and "liability" in text.stdout and "csp-1" in text.stdout
    rows = list(
        csv.DictReader(
            io.StringIO(
                run("report", "--day", today(), "--format", "csv", "--database", session).stdout
            )
        )
    )
    by_table = {r["table_id"]: r for r in rows}
    assert set(by_table) == {"bac-1", "bac-live", "bac-squeeze", "csp-1", "total"}
    assert by_table["bac-1"]["rounds"] == "4" and by_table["csp-1"]["rounds"] == "3"
    assert float(by_table["csp-1"]["drop"]) > 0 and by_table["bac-live"]["hold_percent"] == ""
    assert by_table["bac-1"]["liability"] == by_table["bac-live"]["liability"]  # one meter
    assert float(by_table["csp-1"]["liability"]) >= 10_000  # the seed at least
    other_day = run("report", "--day", "2001-01-01", "--format", "csv", "--database", session)
    assert all(r.split(",")[2] == "0" for r in other_day.stdout.splitlines()[1:])


def test_report_by_position_gives_each_box_and_seat_and_adds_up_to_the_table(
    session: str,
) -> None:
    """STANDARDS: meters for drop, wagers and payouts per betting position. Over the rounds
    settled that day (no void in this session), each table's positions add up to its figures."""
    text = run("report", "--day", today(), "--by-position", "--database", session)
    assert text.exit_code == 0, text.output
    assert "per betting position" in text.stdout and "seat 1" in text.stdout
    assert "box 1" in text.stdout
    found = run(
        "report", "--day", today(), "--by-position", "--format", "csv", "--database", session
    )
    rows = list(csv.DictReader(io.StringIO(found.stdout)))
    assert rows and {r["table_id"] for r in rows} == {"bac-1", "csp-1"}
    tables = {
        r["table_id"]: r
        for r in csv.DictReader(
            io.StringIO(
                run("report", "--day", today(), "--format", "csv", "--database", session).stdout
            )
        )
    }
    for table_id in ("bac-1", "csp-1"):
        mine = [r for r in rows if r["table_id"] == table_id]
        assert all(r["position"].split()[0] in ("box", "seat") for r in mine)
        assert int(sum(100 * Fraction(r["drop"]) for r in mine)) == int(
            100 * Fraction(tables[table_id]["drop"])
        )
        for column, total in (
            ("commission", "commission"),
            ("contributions", "jackpot_contributions"),
        ):
            assert sum(Fraction(r[column]) for r in mine) == Fraction(tables[table_id][total])
        if Fraction(tables[table_id]["jackpot_awards"]) == 0:  # (a hit's house-funded restart)
            assert sum(Fraction(r["win"]) for r in mine) == Fraction(tables[table_id]["win"])
    nothing = run(
        "report", "--day", "2001-01-01", "--by-position", "--format", "csv", "--database", session
    )
    assert nothing.stdout.splitlines() == [
        "table_id,position,wagers,drop,paid,commission,contributions,awards,win"
    ]


def test_audit_export_is_verified_offline(session: str, tmp_path: Path) -> None:
    archive = tmp_path / "day.zip"
    result = run("audit", "export", "--day", today(), "-o", str(archive), "--database", session)
    assert result.exit_code == 0, result.output
    assert "chain head bac-1" in result.stdout and archive.is_file()
    offline = run("verify", "--archive", str(archive))  # no --database: none is opened
    assert offline.exit_code == 0, offline.output
    assert "verify: OK — archive" in offline.stdout and "7 settlements" in offline.stdout


def test_the_environment_names_the_default_database(session: str) -> None:
    result = run("tables", "--format", "json", env={"MACAU_TABLES_DATABASE": session})
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)) == 4


REFUSED = (
    (["recall", "--table", "nope"], "no table nope"),
    (["autoplay", "--table", "nope", "--rounds", "1"], "no table nope"),
    (["autoplay", "--table", "bac-live", "--rounds", "1"], "live"),
    (["autoplay", "--table", "bac-1", "--rounds", "1", "--players", "8"], "--players"),
    (["autoplay", "--table", "bac-1", "--rounds", "0"], "--rounds"),
    (["autoplay", "--table", "bac-1", "--rounds", "many"], "--rounds"),
    (["recall", "--table", "bac-1", "--last", "0"], "--last"),
    (["report", "--day", "2026-02-30"], "YYYY-MM-DD"),
    (["report", "--day", "today"], "YYYY-MM-DD"),
    (["report", "--day", "2026-01-05", "--format", "pdf"], "--format"),
    (["audit", "export", "--day", "yesterday", "-o", "x.zip"], "YYYY-MM-DD"),
    (["audit", "export", "--day", "2026-01-05"], "--output"),
    (["tables", "--format", "xml"], "--format"),
    (["casino", "init"], "already holds a casino"),
)


def test_bad_input_is_refused_with_exit_2_and_no_traceback(database_url: str) -> None:
    """Each case on a database holding the demonstration casino: exit 2, a message naming the
    option or saying what to do, no traceback, nothing written."""
    run("db", "upgrade", "--database", database_url)
    run("casino", "init", "--database", database_url)
    for args, says in REFUSED:
        result = run(*args, "--database", database_url)
        assert result.exit_code == 2, (args, result.output)
        assert says in result.output, (args, result.output)
        assert "Traceback" not in result.output, args
    tables = json.loads(run("tables", "--format", "json", "--database", database_url).stdout)
    assert all(t["events"] == 0 for t in tables)


def test_a_database_that_is_not_there_or_not_migrated_is_refused(tmp_path: Path) -> None:
    missing = f"sqlite:///{tmp_path / 'none.db'}"
    result = run("tables", "--database", missing)
    assert result.exit_code == 2 and "db upgrade" in result.stderr
    assert not (tmp_path / "none.db").exists()  # not created as a side effect
    (tmp_path / "empty.db").touch()
    empty = f"sqlite:///{tmp_path / 'empty.db'}"
    for args in (["casino", "init"], ["verify"], ["recall", "--table", "bac-1"]):
        result = run(*args, "--database", empty)
        assert result.exit_code == 2, (args, result.output)
        assert "db upgrade" in result.stderr
    assert run("tables", "--database", "mysql://x@y/z").exit_code == 2
    missing_archive = run("verify", "--archive", str(tmp_path / "no.zip"))
    assert missing_archive.exit_code == 2 and "--archive" in missing_archive.stderr


def test_every_casino_command_is_on_the_one_app() -> None:
    for args in (
        ["db", "upgrade"],
        ["casino", "init"],
        ["tables"],
        ["autoplay"],
        ["recall"],
        ["verify"],
        ["report"],
        ["audit", "export"],
    ):
        result = run(*args, "--help")
        assert result.exit_code == 0, (args, result.output)
        assert "--database" in result.stdout
