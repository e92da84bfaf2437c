"""Several servers, one casino (issue 10, "Deliver" 4): two ``macau-tables serve`` processes on
one scratch PostgreSQL database serve different tables of the same linked jackpot.

* A meter change committed anywhere reaches both processes (``LISTEN/NOTIFY``): each one's
  ``/metrics`` gauge shows it (the jackpot stream reads the same runtime fan-out).
* A table is served by one process at a time (its lease in the database); the other refuses it
  (``/readyz`` lists it as elsewhere) and takes it over when the holder stops renewing its lease
  (a paused process: after ``lease_seconds``) or dies (killed: at once, on the same host) —
  loading it from the store and resolving an open round by the law (CSP-11.4, BAC-10).

PostgreSQL only (SQLite serves one process); skipped without it, failed under
``MACAU_TABLES_REQUIRE_ALL=1``. Waits are bounded; no timing is asserted.
"""

from __future__ import annotations

import signal
from pathlib import Path

from tests.server.serving import Server, wait_for

from macau_tables.store import Store

FAST = {"MACAU_TABLES_LEASE_SECONDS": "2", "MACAU_TABLES_TICK_SECONDS": "0.1"}


def _adjust(url: str, meter_id: str, amount: int) -> None:
    store = Store.open(url)
    try:
        store.run(
            lambda tx: tx.adjust_meter(meter_id, amount, actor="test", reason="multi-server test")
        )
    finally:
        store.close()


def test_two_servers_share_the_linked_meter_and_take_each_other_s_tables_over(
    pg_module_database: str, tmp_path: Path
) -> None:
    url = pg_module_database
    with Server(tmp_path, url, args=("--tables", "bac-1"), env=FAST, name="a") as a:
        a.wait_healthy()
        wait_for("A serves bac-1", lambda: a.ready().get("tables") == ["bac-1"])
        assert sorted(a.credentials()) == ["admin", "alice", "bruno", "dealer", "supervisor"]
        with Server(tmp_path, url, env=FAST, name="b") as b:
            b.wait_healthy()
            ready = wait_for("B serves the rest", lambda: b.ready().get("tables") or None)
            assert ready == ["bac-live", "csp-1"]
            assert b.ready()["elsewhere"] == {"bac-1": "tables.leased"}
            assert "Users exist already" in b.stdout

            # bac-1 (on A) and bac-live (on B) share m-baccarat: a change reaches both.
            seed = wait_for("A's meter", lambda: a.meter("m-baccarat"))
            assert b.meter("m-baccarat") == seed
            _adjust(url, "m-baccarat", 12_345)
            for server in (a, b):
                wait_for(
                    f"{server.url} sees the meter move",
                    lambda s=server: s.meter("m-baccarat") == seed + 12_345,
                )

            # A paused: its lease runs out and B takes bac-1 over.
            a.process.send_signal(signal.SIGSTOP)
            try:
                wait_for(
                    "B takes bac-1 over",
                    lambda: b.ready().get("tables") == ["bac-1", "bac-live", "csp-1"],
                )
            finally:
                a.process.send_signal(signal.SIGCONT)
            # A finds its lease taken and stops serving the table (not ready: no table).
            wait_for("A gives bac-1 up", lambda: a.ready().get("problems") == ["server.no_tables"])
            assert a.get("/readyz").status_code == 503

            # B killed: A, configured for bac-1, takes it over at once (its holder is dead).
            b.stop(signal.SIGKILL)
        wait_for("A takes bac-1 back", lambda: a.ready().get("tables") == ["bac-1"])
        assert a.meter("m-baccarat") == seed + 12_345
        assert a.stop() == 0
    store = Store.open(url)
    try:
        owners = {t.table_id: t.lease_owner for t in store.read(lambda tx: tx.tables())}
        audit = store.read(lambda tx: tx.audit_entries(action="lease_taken_over"))
    finally:
        store.close()
    assert owners["bac-1"] is None  # released by A's graceful stop
    assert owners["bac-live"] is not None  # still B's: killed, never released
    assert audit and audit[-1].table_id == "bac-1"
