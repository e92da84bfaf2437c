"""``Tx``: everything one database transaction can do (see the package docstring)."""

from __future__ import annotations

from .meter_ops import MeterOps

__all__ = ["Tx"]


class Tx(MeterOps):
    """One database transaction, given to the function :meth:`Store.run` runs.

    Configurations, players and tables (:class:`~.catalog_ops.CatalogOps`), the event log
    (:class:`~.events_ops.EventOps`), the ledger (:class:`~.ledger_ops.LedgerOps`), meters
    (:class:`~.meter_ops.MeterOps`), idempotency, snapshots, shoes and audit
    (:class:`~.records_ops.RecordOps`). Valid only inside ``run``.
    """
