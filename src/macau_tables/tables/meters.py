"""Changing a linked meter's parameters: only between rounds (STANDARDS "Linked progressive").

A meter's seed and parameters change under access control, with who and why recorded, never
while a table linked to it is running a round, and they take effect only after the next hit
(the store keeps them pending until then: :meth:`macau_tables.store.Tx.set_meter_params`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..store import MeterRecord, Store, Tx
from .model import TableError
from .storage import read_table

__all__ = ["change_meter_params", "tables_in_round"]


def tables_in_round(tx: Tx, meter_id: str) -> list[str]:
    """The tables linked to ``meter_id`` with a round in progress that has something at
    stake (their log, replayed; an empty round taking bets has none: ``round_at_stake``)."""
    return [
        t.table_id
        for t in tx.tables()
        if t.meter_id == meter_id and read_table(tx, t.table_id).state.round_at_stake
    ]


def change_meter_params(
    store: Store,
    meter_id: str,
    *,
    seed: int | None = None,
    params: Mapping[str, Any] | None = None,
    actor: str,
    reason: str,
) -> MeterRecord:
    """Make ``seed`` / ``params`` pending on ``meter_id`` (in force from its next hit), audited
    with ``actor`` and ``reason``. Returns the meter as changed.

    Refuses (``TableError`` ``tables.meter_round_open``, nothing written) while any table
    linked to the meter has a round in progress: finish or void those rounds first. The meter
    row is locked before the tables are read, so a second change waits for this one. Refuses
    what the store refuses (an unknown meter, a negative seed, no actor or reason).
    """

    def work(tx: Tx) -> MeterRecord:
        tx.meter_amount(meter_id, lock=True)
        busy = tables_in_round(tx, meter_id)
        if busy:
            raise TableError("tables.meter_round_open", meter=meter_id, tables=", ".join(busy))
        return tx.set_meter_params(meter_id, seed=seed, params=params, actor=actor, reason=reason)

    return store.run(work)
