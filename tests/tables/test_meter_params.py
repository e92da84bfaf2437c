"""Meter parameters change only between rounds, audited, in force after the next hit
(STANDARDS "Linked progressive"; issue 9 bad input: a meter parameter change while a round is
open), on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from macau_tables.caribbean.commands import PlaceAnte
from macau_tables.errors import MacauTablesError
from macau_tables.store import Store
from macau_tables.tables.meters import change_meter_params

from .support import CARIBBEAN_SEED, caribbean_rules, casino, open_round, service


def test_meter_parameters_refused_while_a_round_is_open_CSP_10_8(store: Store) -> None:
    casino(store, {"t1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "t1")
    open_round(svc)
    svc.submit(PlaceAnte(1, "p1", 500), idempotency_key="a1", actor="p1")
    before = store.read(lambda tx: tx.meter("m-car"))
    with pytest.raises(MacauTablesError) as exc:
        change_meter_params(
            store, "m-car", seed=CARIBBEAN_SEED * 2, actor="admin", reason="new promotion"
        )
    assert exc.value.key == "tables.meter_round_open"
    assert "t1" in exc.value.message and "finish or void" in exc.value.message
    assert store.read(lambda tx: tx.meter("m-car")) == before  # nothing written
    svc.close()


def test_meter_parameters_wait_for_the_next_hit_between_rounds_CSP_10_8(store: Store) -> None:
    casino(store, {"t1": ("caribbean", caribbean_rules(), False)})
    changed = change_meter_params(
        store, "m-car", params={"note": "x"}, actor="admin", reason="new signage"
    )
    assert changed.params_pending == {"note": "x"}
    assert changed.seed == CARIBBEAN_SEED
    with pytest.raises(MacauTablesError):
        change_meter_params(store, "m-car", actor="admin", reason="nothing to change")
