"""The contents of an audit archive checked offline (part of :mod:`.archive_check`): the
configurations, each table's chain segment, the transactions and balances, the meters' logs and
hits, the shoes. Each function refuses the first record that does not hold by raising
:class:`Refused` with its :class:`~.findings.Finding`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, NoReturn

from .. import codec
from ..errors import MacauTablesError
from ..rng import ShoeOpening, ShoeReveal, opening_fault
from ..store.chain import GENESIS, audit_payload, chain_hash, transaction_digest
from ..store.verify import RecentRounds, check_void
from .findings import Finding, finding

__all__ = [
    "Refused",
    "check_audit",
    "check_configs",
    "check_events",
    "check_meters",
    "check_shoes",
    "check_transactions",
    "fail",
]


class Refused(Exception):
    """The first record of an archive that does not hold."""

    def __init__(self, found: Finding) -> None:
        super().__init__(str(found))
        self.found = found


def fail(
    relation: str, record: str, table_id: str | None, key: str, /, **params: object
) -> NoReturn:
    raise Refused(finding("archive", relation, record, table_id, key, **params))


def check_configs(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for row in rows:
        if hashlib.sha256(row["payload"].encode("utf-8")).hexdigest() != row["sha256"]:
            fail(
                "configs.jsonl",
                row["config_id"],
                None,
                "store.verify_config_hash",
                config_id=row["config_id"],
            )
        out[row["config_id"]] = row
    return out


def check_events(
    rows: list[dict[str, Any]],
    manifest: Mapping[str, Any],
    tables: Mapping[str, Any],
    configs: Mapping[str, dict[str, Any]],
    counts: dict[str, int],
) -> dict[str, list[dict[str, Any]]]:
    by_table: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_table.setdefault(row["table_id"], []).append(row)
    chains = manifest.get("chains") or {}
    for table_id in sorted(set(by_table) | set(chains)):
        segment = by_table.get(table_id, [])
        chain = chains.get(table_id)
        if table_id not in tables or chain is None or not segment:
            fail(
                "events.jsonl",
                table_id,
                table_id,
                "operations.archive_chain_segment",
                table_id=table_id,
                first="-",
                last="-",
            )
        expected, prev = int(chain["first_seq"]), str(chain["start_hash"])
        recent = RecentRounds()
        if expected == 1 and prev != GENESIS:
            fail(
                "events.jsonl",
                f"{table_id}#1",
                table_id,
                "store.verify_chain_broken",
                table_id=table_id,
                seq=1,
            )
        for row in segment:
            seq, record = int(row["seq"]), f"{table_id}#{row['seq']}"
            if seq != expected:
                fail(
                    "events.jsonl",
                    f"{table_id}#{expected}",
                    table_id,
                    "store.verify_seq_gap",
                    table_id=table_id,
                    seq=seq,
                    expected=expected,
                )
            if row["prev_hash"] != prev:
                fail(
                    "events.jsonl",
                    record,
                    table_id,
                    "store.verify_chain_broken",
                    table_id=table_id,
                    seq=seq,
                )
            if chain_hash(row["prev_hash"], row["payload"].encode("utf-8")) != row["hash"]:
                fail(
                    "events.jsonl",
                    record,
                    table_id,
                    "store.verify_hash_mismatch",
                    table_id=table_id,
                    seq=seq,
                )
            data = json.loads(row["payload"])
            if not isinstance(data, dict) or data.get("type") != row["type"]:
                fail(
                    "events.jsonl",
                    record,
                    table_id,
                    "store.verify_type_mismatch",
                    table_id=table_id,
                    seq=seq,
                    type=row["type"],
                    found=str(data.get("type") if isinstance(data, dict) else data),
                )
            for config_id, digest in codec.stored_rules_refs(data):
                if config_id not in configs or configs[config_id]["sha256"] != digest:
                    fail(
                        "events.jsonl",
                        record,
                        table_id,
                        "store.verify_rules_ref",
                        table_id=table_id,
                        seq=seq,
                        config_id=config_id,
                    )
            if int(chain["first_seq"]) == 1 or not _before_segment(data, int(chain["first_seq"])):
                # a void's evidence (CSP-11.1, CSP-11.4, BAC-10); one from before an archive's
                # first record cannot be looked at here (the database's verify checks it)
                bad = check_void(seq, row.get("round_id"), data, recent, counts)
                if bad is not None:
                    fail(
                        "events.jsonl",
                        record,
                        table_id,
                        bad[0],
                        table_id=table_id,
                        seq=seq,
                        **bad[1],
                    )
            recent.add(row.get("round_id"), seq, row["hash"], data)
            expected, prev = seq + 1, row["hash"]
        if segment[-1]["seq"] != chain["last_seq"] or prev != chain["end_hash"]:
            fail(
                "events.jsonl",
                f"{table_id}#{segment[-1]['seq']}",
                table_id,
                "operations.archive_chain_head",
                table_id=table_id,
                seq=segment[-1]["seq"],
                expected=f"#{chain['last_seq']} {chain['end_hash']}",
            )
    counts["events"] = len(rows)
    return by_table


def _before_segment(data: Mapping[str, Any], first_seq: int) -> bool:
    """Whether the evidence a void payload names lies before the archive's first record."""
    basis = data.get("ground")
    evidence = basis.get("evidence") if isinstance(basis, dict) else None
    at = evidence.get("seq") if isinstance(evidence, dict) else None
    return isinstance(at, int) and at < first_seq


def check_transactions(
    rows: list[dict[str, Any]],
    manifest: Mapping[str, Any],
    accounts: Mapping[str, str],
    opening: Mapping[str, int],
    closing: Mapping[str, int],
    counts: dict[str, int],
) -> list[dict[str, Any]]:
    span = manifest.get("tx_range")
    moved: dict[str, int] = {}
    last = 0
    for row in rows:
        tx_id, record = int(row["tx_id"]), f"tx {row['tx_id']}"
        if tx_id <= last or span is None or not span[0] <= tx_id <= span[1]:
            fail(
                "transactions.jsonl",
                record,
                row.get("table_id"),
                "operations.archive_tx_order",
                tx_id=tx_id,
            )
        last = tx_id
        lines = [tuple(p) for p in row["postings"]]
        total = sum(int(p[2]) for p in lines)
        if total or not lines:
            fail(
                "transactions.jsonl",
                record,
                row.get("table_id"),
                "store.verify_tx_unbalanced",
                tx_id=tx_id,
                total=total,
            )
        fields = {
            k: row[k]
            for k in ("table_id", "event_seq", "kind", "actor", "reason", "corrects", "created_at")
        }
        if transaction_digest(fields, lines) != row["digest"]:
            fail(
                "transactions.jsonl",
                record,
                row.get("table_id"),
                "store.verify_tx_digest",
                tx_id=tx_id,
            )
        for _, account, amount, _ in lines:
            moved[account] = moved.get(account, 0) + int(amount)
    if rows and (rows[0]["tx_id"] != span[0] or rows[-1]["tx_id"] != span[1]):  # type: ignore[index]
        fail(
            "transactions.jsonl", "-", None, "operations.archive_tx_order", tx_id=rows[-1]["tx_id"]
        )
    for which, values in (("opening", opening), ("closing", closing)):
        total = sum(int(v) for v in values.values())
        if total:
            fail(
                "balances.json",
                which,
                None,
                "operations.archive_ledger_total",
                which=which,
                total=total,
            )
    for account in sorted(set(opening) | set(closing) | set(moved)):
        start, end = int(opening.get(account, 0)), int(closing.get(account, 0))
        if start + moved.get(account, 0) != end or account not in accounts:
            fail(
                "balances.json",
                account,
                None,
                "operations.archive_balance",
                account=account,
                opening=start,
                moved=moved.get(account, 0),
                closing=end,
            )
    counts["transactions"] = len(rows)
    return rows


def check_audit(
    entries: list[dict[str, Any]], segment: Mapping[str, Any] | None, counts: dict[str, int]
) -> None:
    """The day's audit log entries: ids increasing, each linked to the hash before it from
    the segment's start hash, each hash recomputed (:func:`~..store.chain.audit_payload`), the
    last one the segment's end hash (none at all when the manifest names no segment)."""
    if not entries:
        if segment is not None:
            fail("audit.jsonl", "-", None, "operations.archive_audit_segment", first="-")
        counts["audit entries"] = 0
        return
    if segment is None or int(entries[0]["id"]) != int(segment["first_id"]):
        fail("audit.jsonl", "-", None, "operations.archive_audit_segment", first=entries[0]["id"])
    prev, last = segment["start_hash"], 0
    for entry in entries:
        number = int(entry["id"])
        payload = audit_payload(
            datetime.fromisoformat(entry["at"]),
            entry["actor"],
            entry["action"],
            entry["table_id"],
            entry["reason"],
            entry["detail"],
        )
        if (
            number <= last
            or entry["prev_hash"] != prev
            or chain_hash(prev, payload) != entry["hash"]
        ):
            fail(
                "audit.jsonl",
                f"audit {number}",
                entry["table_id"],
                "store.verify_audit_log",
                id=number,
                action=entry["action"],
            )
        prev, last = entry["hash"], number
    if last != int(segment["last_id"]) or prev != segment["end_hash"]:
        fail("audit.jsonl", f"audit {last}", None, "operations.archive_audit_segment", first=last)
    counts["audit entries"] = len(entries)


def check_meters(
    meters: list[dict[str, Any]],
    log: list[dict[str, Any]],
    hits: list[dict[str, Any]],
    counts: dict[str, int],
) -> None:
    for meter in meters:
        meter_id = meter["meter_id"]
        entries = [e for e in log if e["meter_id"] == meter_id]
        prev, logged = GENESIS, []
        for number, entry in enumerate(entries, start=1):
            seq = int(entry["seq"])
            ok = seq == number and entry["prev_hash"] == prev
            ok = (
                ok
                and chain_hash(entry["prev_hash"], entry["payload"].encode("utf-8"))
                == entry["hash"]
            )
            data = json.loads(entry["payload"]) if ok else {}
            if not ok or data.get("kind") != entry["kind"] or data.get("meter_id") != meter_id:
                fail(
                    "meter_log.jsonl",
                    f"{meter_id}#{seq}",
                    None,
                    "store.verify_meter_log",
                    meter_id=meter_id,
                    seq=seq,
                )
            if entry["kind"] == "hit":
                logged.append(data)
            prev = entry["hash"]
        if len(entries) != int(meter["version"]) or len(logged) != int(meter["hits"]):
            fail(
                "meters.jsonl",
                meter_id,
                None,
                "store.verify_meter_row",
                meter_id=meter_id,
                field="version",
                found=str(meter["version"]),
                expected=str(len(entries)),
            )
        stored = [h for h in hits if h["meter_id"] == meter_id]
        keys = ("seq", "table_id", "round_id", "box", "combination", "amount", "at")
        for i in range(max(len(stored), len(logged))):
            if (
                i >= len(stored)
                or i >= len(logged)
                or {k: stored[i][k] for k in keys} != {k: logged[i].get(k) for k in keys}
                # the winning place: absent from both for a hit recorded before it was
                or stored[i].get("place") != logged[i].get("place")
            ):
                fail(
                    "meter_hits.jsonl",
                    f"{meter_id}#{i + 1}",
                    None,
                    "store.verify_meter_hit",
                    meter_id=meter_id,
                    seq=i + 1,
                )
    counts["meters"] = len(meters)


def check_shoes(rows: list[dict[str, Any]], counts: dict[str, int]) -> None:
    for row in rows:
        if row["revealed"] is None:
            continue
        if isinstance(row["revealed"], dict) and row["revealed"].get("type") == "core.ShoeOpening":
            try:
                opening = codec.decode(row["revealed"], expect=ShoeOpening)
                position = opening_fault(row["commitment"], opening)
            except (MacauTablesError, ValueError):
                position = -1
            if position is not None:
                fail(
                    "shoes.jsonl",
                    f"{row['table_id']}#{row['shoe_no']}",
                    row["table_id"],
                    "store.verify_leaf",
                    table_id=row["table_id"],
                    shoe_no=row["shoe_no"],
                    position="-" if position < 0 else position,
                )
            continue
        try:
            reveal = codec.decode(row["revealed"], expect=ShoeReveal)
            digest = reveal.commitment.digest
        except (MacauTablesError, ValueError):
            digest = None
        if digest != row["commitment"]:
            fail(
                "shoes.jsonl",
                f"{row['table_id']}#{row['shoe_no']}",
                row["table_id"],
                "store.verify_shoe",
                table_id=row["table_id"],
                shoe_no=row["shoe_no"],
            )
    counts["shoes"] = len(rows)
