"""Each linked table's jackpot lines, for the jackpot display (CSP-10.3: the fixed awards are
shown at the table and on the jackpot display; BAC-17).

A meter may be linked to several tables, each with its own configuration and so its own fixed
awards: :func:`linked_awards` gives every linked table's awards and the jackpot section of its
paytable (:mod:`macau_tables.paytable`: each line and note with its article — the reading of
CSP-10.8 / BAC-17.5 on who funds a fixed award above the meter's share among them), in table
order. ``GET /api/meters`` and the first message of ``/ws/jackpot`` carry it.
"""

from __future__ import annotations

from typing import Any

from ..errors import json_param
from ..paytable import paytable_of
from ..store import TableRecord, Tx

__all__ = ["fixed_awards", "linked_awards"]


def fixed_awards(rules: object) -> dict[str, int]:
    """The configuration's fixed jackpot awards by combination (CSP-10.3, BAC-17): a mapping
    or an object with ``as_mapping()``; ``{}`` when it has none."""
    awards: Any = getattr(rules, "jackpot_fixed_awards", None)
    if awards is None:
        return {}
    mapping = awards.as_mapping() if hasattr(awards, "as_mapping") else awards
    return {str(json_param(k)): int(v) for k, v in mapping.items()}


def linked_awards(tx: Tx, meter_id: str, tables: list[TableRecord]) -> list[dict[str, Any]]:
    """``[{"table", "name", "fixed_awards", "paytable"}]``: every table linked to
    ``meter_id``, by id, with its own configuration's fixed awards and the jackpot section of
    its paytable (``{"lines", "notes"}``; empty when its rules offer none)."""
    out = []
    for t in sorted((t for t in tables if t.meter_id == meter_id), key=lambda t: t.table_id):
        rules = tx.get_config(t.config_id)
        table = paytable_of(rules)
        jackpot = table.section("jackpot").to_json() if table else {"lines": [], "notes": []}
        out.append(
            {
                "table": t.table_id,
                "name": t.name,
                "fixed_awards": fixed_awards(rules),
                "paytable": jackpot,
            }
        )
    return out
