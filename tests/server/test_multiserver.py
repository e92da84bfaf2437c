"""Several servers, one casino (issue 10, "Deliver" 4): two ``macau-tables serve`` processes on
one scratch PostgreSQL database serve different tables of the same linked jackpot.

* A jackpot contribution on one process's table (a baccarat round with a jackpot wager played
  through its API, BAC-17; the table's round cycle configured with a short countdown before
  the first start, :func:`_quick_cycle`) reaches the other process, serving another table of
  the same linked meter (``LISTEN/NOTIFY``): its ``/metrics`` gauge shows it (the jackpot
  stream reads the same runtime fan-out).
* A table is served by one process at a time (its lease in the database); the other refuses it
  (``/readyz`` lists it as elsewhere) and takes it over when the holder stops renewing its lease
  (a paused process: after ``lease_seconds``) or dies (killed: at once, on the same host) —
  loading it from the store and resolving an open round by the law (CSP-11.4, BAC-10).

PostgreSQL only (SQLite serves one process); skipped without it, failed under
``MACAU_TABLES_REQUIRE_ALL=1``. Waits are bounded; no timing is asserted.
"""

from __future__ import annotations

import signal
from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.server.serving import Server, wait_for

from macau_tables import codec
from macau_tables.baccarat.bets import standing
from macau_tables.baccarat.commands import PlaceWager
from macau_tables.baccarat.rules import WagerKind
from macau_tables.server.runtime import prepare
from macau_tables.store import Store

FAST = {"MACAU_TABLES_LEASE_SECONDS": "5", "MACAU_TABLES_TICK_SECONDS": "0.1"}
"""A short lease (renewed every ~2.5 s by the tick) so that a take-over comes quickly, long
enough that a busy machine does not let a live holder's lease run out."""


def _quick_cycle(url: str, table: str) -> None:
    """Make ``url`` the demonstration casino (as a first start does, without its users: the
    first server creates and prints them) with ``table``'s round cycle on a configuration of
    its own: a 2-second countdown, a 1-second result pause, no idling — the rounds of the
    test come every few seconds instead of after the demonstration's 15-second countdown."""
    store = Store.open(url)
    try:
        prepare(store, users=False)

        def quicken(tx: Any) -> None:
            record = tx.table(table)
            rules = tx.get_config(record.config_id)
            quick = replace(rules, betting_seconds=2, result_seconds=1, idle_after_rounds=1_000)
            tx.put_config(record.game, f"{record.config_id}-quick", quick)
            tx.set_table_config(
                table, f"{record.config_id}-quick", actor="test", reason="a quick round cycle"
            )

        store.run(quicken)
    finally:
        store.close()


def _meter_in_store(url: str, meter_id: str) -> int:
    store = Store.open(url)
    try:
        return store.read(lambda tx: tx.meter_amount(meter_id))
    finally:
        store.close()


def _bearer(server: Server, name: str, password: str) -> dict[str, str]:
    signed = server.post("/api/auth/token", json={"name": name, "password": password})
    assert signed.status_code == 200, signed.text
    return {"Authorization": f"Bearer {signed.json()['token']}"}


def _jackpot_round(server: Server, table: str, credentials: dict[str, str]) -> None:
    """One baccarat round through ``server``'s API: the table's round cycle opens it, alice
    bets banker and the jackpot wager in a standing area (BAC-17: its contribution goes to
    the linked meter at settlement), the cycle closes the betting at the end of its countdown;
    the virtual shoe deals and settles. Nobody at the dealer console."""
    alice = _bearer(server, "alice", credentials["alice"])

    def table_answer() -> dict[str, Any]:
        answer = server.get(f"/api/tables/{table}", headers=alice)
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def betting() -> str | None:
        answer = table_answer()
        return answer["round_id"] if "baccarat.PlaceWager" in answer["can_issue"] else None

    # One bet slip (both wagers or neither): a slip reaching the table after its countdown ran
    # out is refused as a whole, and sent again in the next round.
    slip = [
        codec.encode(PlaceWager("alice", standing(1), WagerKind.BANKER, 1_000)),
        codec.encode(PlaceWager("alice", standing(1), WagerKind.JACKPOT, 1_000)),
    ]
    refusals: list[str] = []

    def placed() -> str | None:
        wait_for("the cycle opens a round taking bets", betting)
        sent = server.post(
            f"/api/tables/{table}/commands",
            headers=alice,
            json={"idempotency_key": f"multi-{len(refusals)}", "commands": slip},
        )
        if sent.status_code == 200:
            assert sent.json()["events"] == ["baccarat.WagerPlaced"] * 2
            return str(sent.json()["round_id"])
        assert sent.status_code == 409, sent.text  # the betting closed meanwhile
        refusals.append(sent.text)
        return None

    round_id = wait_for("a round takes the bet slip", placed)

    def settled() -> bool:
        answer = table_answer()
        return bool(answer["round_id"] != round_id or answer["expected"]["phase"] == "settled")

    wait_for("the cycle closes the betting and the round settles", settled)


def test_two_servers_share_the_linked_meter_and_take_each_other_s_tables_over(
    pg_module_database: str, tmp_path: Path
) -> None:
    url = pg_module_database
    _quick_cycle(url, "bac-1")
    with Server(
        tmp_path, url, args=("--tables", "bac-1"), env=FAST, name="a", cheap_hashes=True
    ) as a:
        a.wait_healthy()
        wait_for("A serves bac-1", lambda: a.ready().get("tables") == ["bac-1"])
        credentials = a.credentials()
        assert sorted(credentials) == ["admin", "alice", "bruno", "dealer", "supervisor"]
        with Server(tmp_path, url, env=FAST, name="b", cheap_hashes=True) as b:
            b.wait_healthy()
            ready = wait_for("B serves the rest", lambda: b.ready().get("tables") or None)
            assert ready == ["bac-live", "bac-squeeze", "csp-1"]
            assert b.ready()["elsewhere"] == {"bac-1": "tables.leased"}
            assert "Users exist already" in b.stdout

            # B refuses the table A serves, naming why.
            refused = b.get("/api/tables/bac-1")
            assert refused.status_code == 409
            assert refused.json()["error"]["key"] == "server.table_elsewhere"

            # bac-1 (on A) and bac-live (on B) share m-baccarat: a jackpot contribution on
            # A's table reaches B's meter (LISTEN/NOTIFY).
            seed = wait_for("A's meter", lambda: a.meter("m-baccarat"))
            assert b.meter("m-baccarat") == seed
            _jackpot_round(a, "bac-1", credentials)
            after = _meter_in_store(url, "m-baccarat")
            assert after != seed
            for server in (a, b):
                wait_for(
                    f"{server.url} sees the meter move",
                    lambda s=server: s.meter("m-baccarat") == after,
                )
            assert 'macau_tables_rounds_settled_total{table="bac-1"}' in a.get("/metrics").text

            # A paused: its lease runs out and B takes bac-1 over.
            a.process.send_signal(signal.SIGSTOP)
            try:
                wait_for(
                    "B takes bac-1 over",
                    lambda: (
                        b.ready().get("tables") == ["bac-1", "bac-live", "bac-squeeze", "csp-1"]
                    ),
                )
            finally:
                a.process.send_signal(signal.SIGCONT)
            # A finds its lease taken and stops serving the table (not ready: no table).
            wait_for("A gives bac-1 up", lambda: a.ready().get("problems") == ["server.no_tables"])
            assert a.get("/readyz").status_code == 503

            # B killed: A, configured for bac-1, takes it over at once (its holder is dead).
            b.stop(signal.SIGKILL)
        wait_for("A takes bac-1 back", lambda: a.ready().get("tables") == ["bac-1"])
        assert a.meter("m-baccarat") == after
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
