"""``macau-tables audit export``: a self-contained archive of one gaming day.

What a regulator or a test lab takes away and checks offline, with no database
(:mod:`.archive_check`, ``macau-tables verify --archive FILE``). A ZIP file whose members are
JSON lines (one record a line, canonical JSON: sorted keys, UTF-8) plus a manifest:

``manifest.json``
    format and version, the gaming day and its bounds (Macau midnight to midnight, as UTC),
    when and from which database (no password) it was exported, the software version, the
    transaction id range, the audit log's segment (``audit_chain``: first and last id, the hash
    before it, the hash of its last entry), each table's chain segment (``first_seq`` …
    ``last_seq``, the hash before it and the hash of its last record: the *chain heads*, to
    compare with the heads published by the operator or with the next day's archive), and
    every other member's SHA-256, size in bytes and number of records.
``configs.jsonl``
    every table configuration (the codec's canonical bytes and their SHA-256).
``tables.jsonl``
    every casino table (game, mode, demonstration or not, configuration, meter, status).
``events.jsonl``
    per table, the hash-chained records of the rounds that *closed* that day (settled or void,
    by the time of their closing record), each whole — with its records of earlier days — and
    the table's other records among them: the piece of the chain after the previous day's and
    up to, not including, the opening of the round still in play at the day's end (or now).
    So an export is the same whenever it is made, the days' pieces follow one another without
    gap or overlap, and no card of a round still in play is in any archive (CSP-12, BAC-16:
    :func:`macau_tables.visibility.is_closed`) until the round closes — then it is in the
    archive of its closing day. The payload exactly as stored (the bytes the chain hashes).
``transactions.jsonl``
    every ledger transaction with an id from the first to the last of those the day's records
    and the day's clock touched, with its postings and digest.
``balances.json``
    every account's kind, its balance before the first of those transactions (``opening``)
    and after the last (``closing``).
``meters.jsonl``, ``meter_log.jsonl``, ``meter_hits.jsonl``
    the linked meters as stored, their whole hash-chained logs and their hits.
``shoes.jsonl``
    the virtual shoes in play that day: commitment, and the reveal once the shoe ended.
``audit.jsonl`` (version 2)
    the audit log's entries of the day (privileged actions and faults: who, what, why, when),
    an unbroken piece of its hash chain, from ``audit_chain.start_hash`` to ``end_hash`` in the
    manifest.
``manifest.sig`` (when exported with a signing key)
    the Ed25519 signature of the manifest's bytes, with the public key that made it
    (:mod:`.signing`): who exported the archive.

The archive is written whole or not at all (a temporary file beside it, renamed over it).
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Final

from .. import __version__
from ..store import SCHEMA_VERSION, Store, TableRecord, Tx
from ..store.chain import canonical_json, iso
from ..store.history import (
    audit_segment,
    balances_before,
    config_ids,
    event_range,
    meter_hit_rows,
    meter_log,
    round_start,
    transactions_of_events,
    tx_range,
)
from ..visibility import is_closed
from .recall import replayed
from .reports import day_bounds
from .signing import SIGNATURE, ArchiveKey, sign_manifest

__all__ = [
    "FORMAT",
    "MANIFEST",
    "MEMBERS",
    "MEMBERS_OF",
    "VERSION",
    "Exported",
    "closed_before",
    "collect_day",
    "export_day",
    "write_archive",
]

FORMAT: Final = "macau-tables-audit-archive"
VERSION: Final = 2
"""The archive format's version: 2 adds the audit log's segment (``audit.jsonl``); archives of
version 1 are still checked (:data:`MEMBERS_OF`)."""
MANIFEST: Final = "manifest.json"
MEMBERS: Final = (
    "configs.jsonl",
    "tables.jsonl",
    "events.jsonl",
    "transactions.jsonl",
    "balances.json",
    "meters.jsonl",
    "meter_log.jsonl",
    "meter_hits.jsonl",
    "shoes.jsonl",
    "audit.jsonl",
)
"""Every member beside the manifest (all of them, always: an empty day has empty members)."""
MEMBERS_OF: Final = {1: MEMBERS[:-1], 2: MEMBERS}
"""The members of each archive version this code checks."""


@dataclass(frozen=True, slots=True)
class Exported:
    """What :func:`export_day` wrote: the file, its SHA-256, the manifest, and the public key
    of its signature (``None``: not signed)."""

    path: Path
    sha256: str
    manifest: Mapping[str, Any]
    signed_by: str | None = None


def export_day(
    store: Store, day: date, path: Path, *, sign_with: ArchiveKey | None = None
) -> Exported:
    """Write the archive of gaming day ``day`` to ``path`` (see the module docstring), read
    in one consistent snapshot, its manifest signed with ``sign_with`` if given
    (:mod:`.signing`); returns what was written. ``OSError`` when the file cannot be written
    (nothing is left behind)."""
    members, manifest = store.read(lambda tx: collect_day(tx, day, store.url))
    return write_archive(path, members, manifest, sign_with=sign_with)


def _lines(records: Iterable[Mapping[str, Any]]) -> tuple[bytes, int]:
    rows = [canonical_json(dict(r)) + b"\n" for r in records]
    return b"".join(rows), len(rows)


def collect_day(
    tx: Tx, day: date, database: str
) -> tuple[dict[str, tuple[bytes, int]], dict[str, Any]]:
    """The members (name → bytes, record count) and the manifest (without the members'
    digests) of gaming day ``day``."""
    start, end = day_bounds(day)
    tables = sorted(tx.tables(), key=lambda t: t.table_id)
    chains: dict[str, dict[str, Any]] = {}
    events: list[dict[str, Any]] = []
    tx_ids: list[int] = []
    for table in tables:
        first = closed_before(tx, table, start) + 1
        last = closed_before(tx, table, end)
        if last < first:
            continue
        records = tx.read_events(table.table_id, after=first - 1, limit=last - first + 1)
        chains[table.table_id] = {
            "first_seq": records[0].seq,
            "last_seq": records[-1].seq,
            "start_hash": records[0].prev_hash,
            "end_hash": records[-1].hash,
        }
        events += [
            {
                "table_id": r.table_id,
                "seq": r.seq,
                "round_id": r.round_id,
                "type": r.type,
                "payload": r.payload,
                "prev_hash": r.prev_hash,
                "hash": r.hash,
                "recorded_at": iso(r.recorded_at),
            }
            for r in records
        ]
        own = transactions_of_events(tx, table.table_id, records[0].seq, records[-1].seq)
        tx_ids += [t.tx_id for t in own[:1] + own[-1:]]
    by_clock = tx_range(tx, start, end)
    if by_clock is not None:
        tx_ids += list(by_clock)
    transactions: list[dict[str, Any]] = []
    opening: dict[str, int] = {}
    closing: dict[str, int] = {}
    span = [min(tx_ids), max(tx_ids)] if tx_ids else None
    if span is not None:
        after = span[0] - 1
        while after < span[1]:
            batch = [t for t in tx.transactions(after=after, limit=5_000) if t.tx_id <= span[1]]
            if not batch:
                break
            transactions += [_transaction(t) for t in batch]
            after = batch[-1].tx_id
        opening = balances_before(tx, None, span[0])
        closing = balances_before(tx, None, span[1] + 1)
    kinds = {a.account_id: a.kind for a in tx.accounts()}
    balances = {"accounts": kinds, "opening": opening, "closing": closing}
    meters = sorted(tx.meters(), key=lambda m: m.meter_id)
    audit = audit_segment(tx, start, end)
    members = {
        "configs.jsonl": _lines(_configs(tx)),
        "tables.jsonl": _lines(
            {
                "table_id": t.table_id,
                "name": t.name,
                "game": t.game,
                "mode": t.mode.value,
                "demo": t.demo,
                "config_id": t.config_id,
                "meter_id": t.meter_id,
                "status": t.status.value,
                "fault": t.fault,
            }
            for t in tables
        ),
        "events.jsonl": _lines(events),
        "transactions.jsonl": _lines(transactions),
        "balances.json": (canonical_json(balances) + b"\n", len(kinds)),
        "meters.jsonl": _lines(
            {
                "meter_id": m.meter_id,
                "game": m.game,
                "seed": m.seed,
                "params": m.params,
                "params_pending": m.params_pending,
                "seed_pending": m.seed_pending,
                "hits": m.hits,
                "version": m.version,
                "amount": m.amount,
            }
            for m in meters
        ),
        "meter_log.jsonl": _lines(
            {"meter_id": m.meter_id, "seq": q, "kind": k, "payload": p, "prev_hash": h0, "hash": h}
            for m in meters
            for q, k, p, h0, h in meter_log(tx, m.meter_id)
        ),
        "meter_hits.jsonl": _lines(
            {
                "meter_id": h.meter_id,
                "seq": h.seq,
                "table_id": h.table_id,
                "round_id": h.round_id,
                "box": h.box,
                "combination": h.combination,
                "amount": h.amount,
                "at": iso(h.at),
                "place": h.place,
            }
            for m in meters
            for h in meter_hit_rows(tx, m.meter_id)
        ),
        "shoes.jsonl": _lines(_shoes(tx, [t.table_id for t in tables], start, end)),
        "audit.jsonl": _lines(
            {
                "id": int(a.id),
                "at": iso(a.at),
                "actor": a.actor,
                "action": a.action,
                "table_id": a.table_id,
                "reason": a.reason,
                "detail": a.detail,
                "prev_hash": a.prev_hash,
                "hash": a.hash,
            }
            for a in audit
        ),
    }
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "day": day.isoformat(),
        "timezone": "Asia/Macau (UTC+8)",
        "from": iso(start),
        "to": iso(end),
        "exported_at": iso(tx.now()),
        "database": database,
        "schema_version": SCHEMA_VERSION,
        "software": f"macau-tables {__version__}",
        "tx_range": span,
        "chains": chains,
        "audit_chain": None
        if not audit
        else {
            "first_id": int(audit[0].id),
            "last_id": int(audit[-1].id),
            "start_hash": audit[0].prev_hash,
            "end_hash": audit[-1].hash,
        },
    }
    return members, manifest


def closed_before(tx: Tx, table: TableRecord, at: datetime) -> int:
    """The last ``seq`` of ``table``'s records made before ``at`` that an archive may hold by
    then: every one of them, except the round still in play at ``at`` (not closed by a record
    made before ``at``, :func:`macau_tables.visibility.is_closed`) and what follows its
    opening; ``0`` when none."""
    found = event_range(tx, table.table_id, None, at)
    if found is None:
        return 0
    last = found[1]
    first = round_start(tx, table.table_id, last)
    records = tx.read_events(table.table_id, after=first - 1, limit=last - first + 1)
    round_id = records[0].round_id
    if round_id is None:  # no round so far
        return last
    resolver = tx.config_resolver()
    events = [r.decode(resolver) for r in records if r.round_id == round_id]
    return last if is_closed(replayed(table, events)) else first - 1


def _configs(tx: Tx) -> list[dict[str, Any]]:
    """Every stored configuration (a day's events may name an older one)."""
    records = [tx.config(i) for i in config_ids(tx)]
    return [
        {"config_id": c.config_id, "game": c.game, "sha256": c.sha256, "payload": c.payload}
        for c in records
    ]


def _transaction(t: Any) -> dict[str, Any]:
    return {
        "tx_id": t.tx_id,
        "table_id": t.table_id,
        "event_seq": t.event_seq,
        "kind": t.kind,
        "actor": t.actor,
        "reason": t.reason,
        "corrects": t.corrects,
        "created_at": iso(t.created_at),
        "digest": t.digest,
        "postings": [[p.line, p.account_id, p.amount, p.reason] for p in t.postings],
    }


def _shoes(tx: Tx, table_ids: list[str], start: datetime, end: datetime) -> list[dict[str, Any]]:
    out = []
    for table_id in table_ids:
        for shoe in tx.shoes(table_id):
            if shoe.created_at >= end:
                continue
            if shoe.revealed_at is not None and shoe.revealed_at < start:
                continue
            out.append(
                {
                    "table_id": shoe.table_id,
                    "shoe_no": shoe.shoe_no,
                    "commitment": shoe.commitment,
                    "revealed": shoe.revealed,
                    "verified": shoe.verified,
                    "created_at": iso(shoe.created_at),
                    "revealed_at": None if shoe.revealed_at is None else iso(shoe.revealed_at),
                }
            )
    return out


def write_archive(
    path: Path,
    members: Mapping[str, tuple[bytes, int]],
    manifest: Mapping[str, Any],
    *,
    sign_with: ArchiveKey | None = None,
) -> Exported:
    """Write ``members`` and the manifest (completed with each member's SHA-256, size and
    record count) as a ZIP at ``path``, whole or not at all, with the manifest's signature
    (:data:`.signing.SIGNATURE`) when ``sign_with`` is given; returns what was written."""
    listed = {
        name: {
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
            "records": count,
        }
        for name, (data, count) in members.items()
    }
    full = {**manifest, "members": listed}
    partial = path.with_name(f".{path.name}.partial")
    stamp = (1980, 1, 1, 0, 0, 0)  # fixed member times: the same day exports the same bytes
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            info = zipfile.ZipInfo(MANIFEST, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            text = json.dumps(full, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
            zf.writestr(info, text.encode("utf-8"))
            if sign_with is not None:
                info = zipfile.ZipInfo(SIGNATURE, date_time=stamp)
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, sign_manifest(text.encode("utf-8"), sign_with))
            for name, (data, _) in members.items():
                info = zipfile.ZipInfo(name, date_time=stamp)
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, data)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return Exported(path, digest, full, None if sign_with is None else sign_with.public)
