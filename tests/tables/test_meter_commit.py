"""A table on a linked meter keeps committing whatever ran before on the same database
connection: each jackpot contribution is credited to the meter in the commit's own round trip
(``store.store._commit_pg``, with the ledger's batch), and that must not rely on any state of
the connection's session. psycopg deallocates every prepared statement of a session after a
``DROP``, an ``ALTER`` or a rolled-back transaction in which it had prepared its own; a credit
that relied on a statement prepared earlier was refused with 'prepared statement … does not
exist', and the round with it (CSP-10, BAC-17; both databases)."""

from __future__ import annotations

from macau_tables.rng import SeededRandom
from macau_tables.store import Store
from macau_tables.tables.bots import Bots

from .support import PLAYERS, caribbean_rules, casino, ledger_total, service


def test_jackpot_rounds_keep_crediting_the_meter_after_a_session_reset_CSP_10(
    store: Store,
) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "c1", rng=SeededRandom(11))
    bots = Bots(svc, PLAYERS, seed=11, batched=False)
    bots.play(3)
    before = store.read(lambda tx: tx.meter_amount("m-car"))
    for n in range(3):  # on every connection of the pool in turn (it reuses the last one)
        store.run(lambda tx, n=n: tx.connection.exec_driver_sql(f"DROP TABLE IF EXISTS gone_{n}"))
        bots.play(3)
    assert svc.state.rounds >= 12
    assert store.read(lambda tx: tx.meter_amount("m-car")) > before  # contributions landed
    assert ledger_total(store) == 0
    svc.close()
