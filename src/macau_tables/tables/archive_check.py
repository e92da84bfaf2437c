"""``macau-tables verify --archive FILE``: an audit archive checked offline, with no database.

In order, stopping at the first thing that does not hold (a :class:`~.findings.Finding` naming
the member, the record and the table):

1. the file is a readable ZIP with a manifest of this format and version; every member the
   manifest lists is there, with its SHA-256, size and record count (a truncated or changed
   member is refused), and nothing else is but the manifest's signature; a signature present
   holds (:mod:`.signing`: the manifest's bytes, so the whole archive), and is the named
   public key's when one is named (``--public-key``; an unsigned archive is then refused);
2. every configuration hashes to its SHA-256;
3. each table's records are the manifest's segment, gap-free, each linked to the hash before
   it (from the segment's start hash), each hash recomputed, the last one the manifest's
   chain head; each record's type is its payload's, each configuration it names is stored;
4. every transaction's digest recomputed, its postings summing to zero, in id order within the
   manifest's range; every account's opening balance plus the postings is its closing balance;
   opening and closing balances both sum to zero;
5. every meter's log chained from the start, its hits those of the log;
6. every revealed shoe hashes to its commitment; (version 2) the day's audit log entries an
   unbroken piece of its chain, from the manifest's ``audit_chain`` start hash to its end hash,
   each hash recomputed;
7. every table's rounds re-derived through the rules (:mod:`.rederive`): postings, settlements,
   the meter each jackpot settlement was given against the ledger, reveals.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import codec
from ..errors import MacauTablesError
from .archive import FORMAT, MANIFEST, MEMBERS_OF
from .archive_content import (
    Refused,
    check_audit,
    check_configs,
    check_events,
    check_meters,
    check_shoes,
    check_transactions,
    fail,
)
from .audit import running_balances
from .findings import Finding
from .rederive import Counts, LoggedEvent, StoredTx, rederive_table
from .signing import SIGNATURE, fingerprint, signature_of

__all__ = ["ArchiveVerified", "verify_archive"]


@dataclass(frozen=True, slots=True)
class ArchiveVerified:
    """What :func:`verify_archive` read, and the first failure (``None``: all holds)."""

    finding: Finding | None
    manifest: Mapping[str, Any] = field(default_factory=dict)
    counts: Mapping[str, int] = field(default_factory=dict)
    signed_by: str | None = None
    """The public key whose signature of the manifest holds (``None``: not signed)."""

    @property
    def ok(self) -> bool:
        """Whether everything holds."""
        return self.finding is None


def verify_archive(path: Path, *, public_key: str | None = None) -> ArchiveVerified:
    """Check the archive at ``path`` (see the module docstring); with ``public_key`` (an
    ``ed25519:…`` text, :mod:`.signing`), also that it is signed by that key. A signature
    present is always checked. Never raises for what the file holds: a file that is no
    archive, truncated, changed, unsigned when a key is named, or signed by another key is a
    finding."""
    counts: dict[str, int] = {}
    manifest: dict[str, Any] = {}
    signed: list[str] = []
    try:
        members = _open(path, manifest, signed, public_key)
        _check(members, manifest, counts)
    except Refused as refused:
        return ArchiveVerified(refused.found, manifest, counts, signed[0] if signed else None)
    return ArchiveVerified(None, manifest, counts, signed[0] if signed else None)


def _signature(
    names: list[str], zf: zipfile.ZipFile, manifest: bytes, signed: list[str], wanted: str | None
) -> None:
    """Check the manifest's signature (:mod:`.signing`), if any, and that it is ``wanted``'s."""
    if SIGNATURE not in names:
        if wanted is not None:
            fail(SIGNATURE, "-", None, "operations.archive_unsigned", key=fingerprint(wanted))
        return
    by = signature_of(manifest, zf.read(SIGNATURE))
    if by is None:
        fail(SIGNATURE, "-", None, "operations.archive_signature_bad")
    if wanted is not None and by != wanted:
        fail(
            SIGNATURE,
            "-",
            None,
            "operations.archive_signed_by_other",
            key=fingerprint(wanted),
            found=fingerprint(by),
        )
    signed.append(by)


def _open(
    path: Path, manifest: dict[str, Any], signed: list[str], public_key: str | None
) -> dict[str, bytes]:
    name = path.name
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            if MANIFEST not in names:
                fail(name, MANIFEST, None, "operations.archive_manifest", reason="not found")
            raw = zf.read(MANIFEST)
            try:
                manifest.update(json.loads(raw))
            except ValueError as exc:
                fail(name, MANIFEST, None, "operations.archive_manifest", reason=str(exc)[:200])
            _signature(names, zf, raw, signed, public_key)
            version = manifest.get("version")
            if manifest.get("format") != FORMAT or version not in MEMBERS_OF:
                fail(
                    name,
                    MANIFEST,
                    None,
                    "operations.archive_format",
                    expected=f"{FORMAT} {' or '.join(str(v) for v in MEMBERS_OF)}",
                    found=f"{manifest.get('format')} {version}",
                )
            expected = MEMBERS_OF[version]
            listed = manifest.get("members")
            if not isinstance(listed, dict) or set(listed) != set(expected):
                fail(name, MANIFEST, None, "operations.archive_manifest", reason="members differ")
            for member in names:
                if member not in (MANIFEST, SIGNATURE) and member not in listed:
                    fail(member, "-", None, "operations.archive_member_unlisted", member=member)
            out = {}
            for member in expected:
                if member not in names:
                    fail(member, "-", None, "operations.archive_member_missing", member=member)
                out[member] = zf.read(member)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as exc:
        fail(
            name, "-", None, "operations.archive_unreadable", path=str(path), reason=str(exc)[:200]
        )
    for member, data in out.items():
        entry = manifest["members"][member]
        if len(data) != entry.get("bytes"):
            fail(
                member,
                "-",
                None,
                "operations.archive_member_size",
                member=member,
                found=len(data),
                expected=str(entry.get("bytes")),
            )
        if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
            fail(member, "-", None, "operations.archive_member_digest", member=member)
    return out


def _records(members: Mapping[str, bytes], member: str, expected: object) -> list[dict[str, Any]]:
    out = []
    for number, line in enumerate(members[member].splitlines(), start=1):
        try:
            value = json.loads(line)
        except ValueError as exc:
            fail(
                member,
                f"line {number}",
                None,
                "operations.archive_record",
                member=member,
                line=number,
                reason=str(exc)[:200],
            )
        if not isinstance(value, dict):
            fail(
                member,
                f"line {number}",
                None,
                "operations.archive_record",
                member=member,
                line=number,
                reason="not an object",
            )
        out.append(value)
    if len(out) != expected:
        fail(
            member,
            "-",
            None,
            "operations.archive_member_records",
            member=member,
            found=len(out),
            expected=str(expected),
        )
    return out


def _check(
    members: Mapping[str, bytes], manifest: Mapping[str, Any], counts: dict[str, int]
) -> None:
    listed = manifest["members"]
    rows = {m: _records(members, m, listed[m]["records"]) for m in members if m.endswith(".jsonl")}
    try:
        balances = json.loads(members["balances.json"])
        accounts, opening, closing = balances["accounts"], balances["opening"], balances["closing"]
    except (ValueError, KeyError, TypeError) as exc:
        fail(
            "balances.json",
            "-",
            None,
            "operations.archive_record",
            member="balances.json",
            line=1,
            reason=str(exc)[:200],
        )
    try:
        configs = check_configs(rows["configs.jsonl"])
        counts["configs"] = len(configs)
        tables = {t["table_id"]: t for t in rows["tables.jsonl"]}
        counts["tables"] = len(tables)
        events = check_events(rows["events.jsonl"], manifest, tables, configs, counts)
        txs = check_transactions(
            rows["transactions.jsonl"], manifest, accounts, opening, closing, counts
        )
        check_meters(
            rows["meters.jsonl"], rows["meter_log.jsonl"], rows["meter_hits.jsonl"], counts
        )
        check_shoes(rows["shoes.jsonl"], counts)
        if "audit.jsonl" in rows:  # version 2
            check_audit(rows["audit.jsonl"], manifest.get("audit_chain"), counts)
    except (KeyError, TypeError, AttributeError) as exc:
        fail(
            "archive",
            "-",
            None,
            "operations.archive_record",
            member="archive",
            line=0,
            reason=f"missing or malformed field {exc}",
        )
    _rederive(events, txs, tables, configs, accounts, opening, counts)


def _rederive(
    events: Mapping[str, list[dict[str, Any]]],
    txs: list[dict[str, Any]],
    tables: Mapping[str, Any],
    configs: Mapping[str, dict[str, Any]],
    accounts: Mapping[str, str],
    opening: Mapping[str, int],
    counts: dict[str, int],
) -> None:
    decoded: dict[str, Any] = {}

    def resolve(config_id: str) -> Any:
        if config_id not in decoded:
            decoded[config_id] = codec.decode(json.loads(configs[config_id]["payload"]))
        return decoded[config_id]

    meter_postings: dict[str, list[tuple[int, int]]] = {}
    for account, kind in accounts.items():
        if kind == "jackpot_meter":
            meter_postings[account] = [(0, int(opening.get(account, 0)))]
    for row in txs:
        for _, account, amount, _ in row["postings"]:
            if account in meter_postings:
                meter_postings[account].append((int(row["tx_id"]), int(amount)))
    balance = running_balances(meter_postings)
    tally = Counts()
    for table_id, segment in sorted(events.items()):
        table = tables[table_id]
        first, last = int(segment[0]["seq"]), int(segment[-1]["seq"])
        try:
            logged = [
                LoggedEvent(
                    int(r["seq"]),
                    r["round_id"],
                    codec.decode(json.loads(r["payload"]), rules=resolve),
                )
                for r in segment
            ]
        except (MacauTablesError, ValueError, KeyError) as exc:
            fail(
                "events.jsonl",
                f"{table_id}#{first}",
                table_id,
                "operations.archive_record",
                member="events.jsonl",
                line=0,
                reason=str(exc)[:200],
            )
        stored = [
            StoredTx(
                int(r["tx_id"]),
                r["event_seq"],
                r["kind"],
                tuple((p[1], int(p[2]), p[3]) for p in r["postings"]),
            )
            for r in txs
            if r["table_id"] == table_id
            and (r["event_seq"] is None or first <= int(r["event_seq"]) <= last)
        ]
        found = rederive_table(
            table_id,
            table["game"],
            table["meter_id"],
            logged,
            stored,
            meter_balance=balance,
            counts=tally,
            from_start=first == 1,
        )
        if found is not None:
            raise Refused(found)
    counts["rounds"] = tally.rounds
    counts["settlements"] = tally.settlements
