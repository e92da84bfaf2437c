"""The server and the program's integrity (STANDARDS "Faults, power loss, recovery": a changed
program keeps the tables closed): a table that is not a demonstration table is not served while
the running program is not the one approved last — the reason is shown, the server says it is
not ready — and it is served at the next tick once the program is approved, without a restart.
On SQLite and PostgreSQL."""

from __future__ import annotations

from fastapi.testclient import TestClient
from tests.server.support import server_settings
from tests.tables.support import caribbean_rules, casino

from macau_tables.server.app import create_app
from macau_tables.server.runtime import Runtime
from macau_tables.store import Store
from macau_tables.tables.clock import FakeClock
from macau_tables.tables.program import approve_program, running_program


def test_a_table_stays_closed_until_the_program_is_approved_then_opens_at_the_next_tick(
    store: Store,
) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)}, demo=False)
    rt = Runtime(server_settings(), store, clock=FakeClock())
    rt.start()
    try:
        assert rt.table_ids() == []
        assert rt.elsewhere() == {"c1": "tables.program_not_approved"}
        # with what a supervisor's page needs to say why (the running program's digest)
        assert rt.not_served() == {
            "c1": ("tables.program_not_approved", {"digest": running_program().digest[:16]})
        }
        assert "server.no_tables" in rt.ready()
        with TestClient(create_app(rt)) as client:  # what a load balancer or an operator sees
            body = client.get("/readyz").json()
        assert body["elsewhere"] == {"c1": "tables.program_not_approved"}
        store.run(lambda tx: approve_program(tx, running_program(), actor="lab", reason="0.1.0"))
        rt.tick()
        assert rt.table_ids() == ["c1"]
        assert rt.elsewhere() == {} and rt.not_served() == {}
        assert rt.ready() == []
    finally:
        rt.stop()
