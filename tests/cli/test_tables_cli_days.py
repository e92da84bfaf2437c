"""Gaming days (Macau midnight to midnight) for ``report`` and ``audit export``: a round in play
at midnight belongs to the archive of the day it closed, whole (its records of the day before
included) and to no other; the days' chain segments follow one another without gap or overlap;
each archive verifies offline on its own (its chain segment starts from the hash before it, its
balances from the opening ones), and the days' reports add up to the table's totals."""

from __future__ import annotations

import json
import threading
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from macau_tables.store import Store
from macau_tables.tables import FakeClock, TableService
from macau_tables.tables.bots import Bots
from macau_tables.tables.casino import create_demo_casino
from macau_tables.tables.reports import table_figures

from .tables_support import run

MIDNIGHT = datetime(2026, 1, 5, 16, 0, tzinfo=UTC)  # 6 January 00:00 in Macau


class SteppingClock:
    """The store's clock: a step of 10 ms at every reading, jumping over midnight at the
    reading ``jump_at`` (set by the test while a round is in play)."""

    def __init__(self) -> None:
        self.now = MIDNIGHT - timedelta(minutes=5)
        self.readings = 0
        self.jump_at: int | None = None
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            self.readings += 1
            if self.jump_at is not None and self.readings >= self.jump_at and self.now < MIDNIGHT:
                self.now = MIDNIGHT + timedelta(seconds=1)
            self.now += timedelta(milliseconds=10)
            return self.now


def test_a_round_across_midnight_is_in_its_closing_days_archive_and_each_verifies_CSP_12(
    database_url: str, tmp_path: Path
) -> None:
    assert run("db", "upgrade", "--database", database_url).exit_code == 0
    clock = SteppingClock()
    with Store.open(database_url, clock=clock) as store:
        create_demo_casino(store)
        service = TableService(store, "csp-1", clock=FakeClock(MIDNIGHT - timedelta(minutes=4)))
        bots = Bots(service, ["alice", "bruno", "carmen"], seed=5)
        start = clock.readings
        bots.play(1)
        per_round = clock.readings - start
        clock.jump_at = clock.readings + per_round // 2  # midnight falls inside round 2
        bots.play(2)
        service.close()
        totals = store.read(lambda tx: table_figures(tx, tx.table("csp-1"), None, None))

    manifests = {}
    reports = {}
    for day in ("2026-01-05", "2026-01-06"):
        path = tmp_path / f"{day}.zip"
        exported = run("audit", "export", "--day", day, "-o", str(path), "--database", database_url)
        assert exported.exit_code == 0, exported.output
        checked = run("verify", "--archive", str(path))
        assert checked.exit_code == 0, checked.output
        with zipfile.ZipFile(path) as zf:
            manifests[day] = json.loads(zf.read("manifest.json"))
        csv_text = run("report", "--day", day, "--format", "csv", "--database", database_url).stdout
        reports[day] = {line.split(",")[0]: line.split(",") for line in csv_text.splitlines()[1:]}

    first, second = manifests["2026-01-05"]["chains"], manifests["2026-01-06"]["chains"]
    # the second day's segment starts at the opening of the round in play at midnight, right
    # after the first day's segment (which holds none of that round), and chains on from it
    assert second["csp-1"]["first_seq"] == first["csp-1"]["last_seq"] + 1
    assert second["csp-1"]["start_hash"] == first["csp-1"]["end_hash"]
    with zipfile.ZipFile(tmp_path / "2026-01-05.zip") as zf:
        before = {json.loads(line)["round_id"] for line in zf.read("events.jsonl").splitlines()}
    with zipfile.ZipFile(tmp_path / "2026-01-06.zip") as zf:
        rows = [json.loads(line) for line in zf.read("events.jsonl").splitlines()]
    across = rows[0]["round_id"]
    assert across not in before  # CSP-12: no card of it while it was in play at midnight
    assert rows[0]["type"] == "caribbean.RoundOpened"
    assert rows[0]["recorded_at"] < MIDNIGHT.isoformat()  # whole: from the day before
    assert manifests["2026-01-06"]["members"]["events.jsonl"]["records"] > 0
    # the rounds and the drop of the two days are the table's
    rounds = sum(int(reports[d]["csp-1"][2]) for d in reports)
    assert rounds == totals.rounds == 3
    drop = sum(round(float(reports[d]["csp-1"][4]) * 100) for d in reports)
    assert drop == totals.drop


def test_a_day_without_play_exports_an_empty_archive_that_verifies(
    database_url: str, tmp_path: Path
) -> None:
    run("db", "upgrade", "--database", database_url)
    run("casino", "init", "--database", database_url)
    path = tmp_path / "empty.zip"
    exported = run(
        "audit", "export", "--day", "2001-01-01", "-o", str(path), "--database", database_url
    )
    assert exported.exit_code == 0, exported.output
    checked = run("verify", "--archive", str(path))
    assert checked.exit_code == 0, checked.output
    assert "0 events" in checked.stdout
