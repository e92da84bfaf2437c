"""Verification of a whole database, reading only: what ``macau-tables verify`` checks.

In order, the first failure wins:

1. every configuration's payload hashes to its recorded SHA-256;
2. every table's event chain: ``seq`` gap-free from 1, each ``prev_hash`` the hash before it,
   each hash recomputed (:func:`~macau_tables.store.chain.chain_hash`), the ``type`` column the
   payload's type, every rules reference ``{config_id, sha256}`` a stored configuration; every
   void (CSP-11.1, CSP-11.4, BAC-10) names its ground and its evidence, an event of the same
   round, earlier in the chain, with that hash, that shows the ground
   (:func:`check_void`; a void written before voids carried a ground is counted apart, as
   ``legacy_voids``; the ground's fit to the round's phase is re-derived by the table
   service);
3. every meter's log chain, the meter row re-derived from it, its hits equal to the logged ones;
4. every revealed shoe (a codec ``core.ShoeReveal``) hashes to the commitment published;
5. every ledger transaction: its digest recomputed, its postings summing to zero;
6. every account's balance equal to the sum of its postings;
7. the ledger sums to zero;
8. the audit log's chain (schema v6): in id order, each ``prev_hash`` the hash before it, each
   hash recomputed from the entry (:func:`~macau_tables.store.chain.audit_payload`).

:func:`verify` returns a :class:`Verification`: ``ok``, the counts, and the first
:class:`Failure` naming the check, the database relation, the record (``"t1#17"``,
``"tx 42"``, ``"wallet:alice"``, ``"m-bac#3"``) and the table id. The table service adds the
re-derivation of each round's settlement by replay on top of this.
"""

from __future__ import annotations

import hashlib
import json
import json.scanner
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, NamedTuple, cast

from sqlalchemy import func, select

from .. import codec, messages
from ..errors import CodecError, MacauTablesError, Param, json_param
from ..voids import Ground, shows, void_since
from . import schema as s
from .chain import GENESIS, audit_payload, chain_hash, iso, transaction_digest
from .records import EventRecord, dumps
from .store import Store
from .tx import Tx

__all__ = [
    "BATCH",
    "LAST_SEQ",
    "ChainRecord",
    "ChainWalk",
    "Check",
    "Failure",
    "Verification",
    "check_void",
    "recent_rounds",
    "stored_configs",
    "table_records",
    "verify",
    "verify_audit",
    "verify_balances",
    "verify_chain",
    "verify_configs",
    "verify_meters",
    "verify_rest",
    "verify_shoes",
    "verify_transactions",
    "verify_tx",
]

BATCH: Final = 5_000
"""Rows read at a time (the log of a long-running table does not fit in memory at once)."""


class Check(StrEnum):
    """What a failure broke."""

    CONFIG = "config"
    CHAIN = "chain"
    METER = "meter"
    SHOE = "shoe"
    TRANSACTION = "transaction"
    BALANCE = "balance"
    LEDGER = "ledger"
    AUDIT = "audit"


@dataclass(frozen=True, slots=True)
class Failure:
    """The first record that does not hold: ``check`` what broke (a :class:`Check` here; the
    table service's re-derivation and the archive check add their own kinds, ``settlement``,
    ``archive``, …), ``relation`` the database table or archive member, ``record`` the row
    (``"t1#17"``, ``"tx 42"``, ``"wallet:alice"``), ``table_id`` the casino table (if any),
    ``key``/``params`` the message. One shape for every verifier."""

    check: str
    relation: str
    record: str
    table_id: str | None
    key: str
    params: Mapping[str, Param] = field(default_factory=dict)

    @property
    def message(self) -> str:
        """The English sentence."""
        return self.text()

    def text(self, language: str = messages.DEFAULT_LANGUAGE) -> str:
        """The sentence in ``language``."""
        return messages.render(self.key, self.params, language)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "check": str(self.check),
            "relation": self.relation,
            "record": self.record,
            "table_id": self.table_id,
            "key": self.key,
            "params": dict(self.params),
            "message": self.message,
        }

    def __str__(self) -> str:
        where = f"table {self.table_id}, " if self.table_id else ""
        return f"{where}{self.relation} {self.record}: {self.message}"


@dataclass(frozen=True, slots=True)
class Verification:
    """What :func:`verify` found: the counts of what it read and the first failure."""

    failure: Failure | None
    configs: int = 0
    tables: int = 0
    events: int = 0
    meters: int = 0
    shoes: int = 0
    transactions: int = 0
    accounts: int = 0
    audit: int = 0
    voids: int = 0
    legacy_voids: int = 0

    @property
    def ok(self) -> bool:
        """Whether everything holds."""
        return self.failure is None


def _fail(
    check: Check, relation: str, record: str, table_id: str | None, key: str, /, **params: object
) -> Failure:
    return Failure(
        check, relation, record, table_id, key, {k: json_param(v) for k, v in params.items()}
    )


def verify(store: Store) -> Verification:
    """Verify the whole database in one read-only snapshot (see the module docstring)."""
    return store.read(verify_tx)


def verify_tx(tx: Tx) -> Verification:
    """:func:`verify` inside an open transaction."""
    tx.flush_meters()
    counts: dict[str, int] = {}
    failure = _verify_all(tx, counts)
    return Verification(failure, **counts)


def _verify_all(tx: Tx, counts: dict[str, int]) -> Failure | None:
    configs = stored_configs(tx)
    counts["configs"] = len(configs)
    failure = verify_configs(tx)
    if failure:
        return failure
    table_ids = list(tx.connection.execute(select(s.casino_tables.c.table_id)).scalars())
    counts["tables"] = len(table_ids)
    counts["events"] = 0
    counts["voids"] = counts["legacy_voids"] = 0
    for table_id in sorted(table_ids):
        failure, n = verify_chain(tx, table_id, configs=configs, voids=counts)
        counts["events"] += n
        if failure:
            return failure
    return verify_rest(tx, counts)


def stored_configs(tx: Tx) -> dict[str, str]:
    """Every stored configuration's id → its recorded SHA-256."""
    return {r.config_id: r.sha256 for r in tx.connection.execute(select(s.configs))}


def verify_rest(tx: Tx, counts: dict[str, int]) -> Failure | None:
    """The checks after the tables' chains (items 3 to 8 of the module docstring), in order,
    the first failure winning; ``counts`` gets ``meters``, ``shoes``, ``transactions``,
    ``accounts`` and ``audit`` as far as they were read."""
    counts["meters"] = int(
        tx.connection.execute(select(func.count()).select_from(s.meters)).scalar_one()
    )
    failure = verify_meters(tx)
    if failure:
        return failure
    failure, counts["shoes"] = verify_shoes(tx)
    if failure:
        return failure
    failure, counts["transactions"] = verify_transactions(tx)
    if failure:
        return failure
    failure, counts["accounts"] = verify_balances(tx)
    if failure:
        return failure
    failure, counts["audit"] = verify_audit(tx)
    return failure


def verify_audit(tx: Tx) -> tuple[Failure | None, int]:
    """Walk the audit log's chain in id order; the first broken entry (changed, removed,
    reordered or inserted behind the store's back) and how many entries were read."""
    c = s.audit_log.c
    prev = GENESIS
    n = 0
    after = 0
    while True:
        rows = list(
            tx.connection.execute(
                select(s.audit_log).where(c.id > after).order_by(c.id).limit(BATCH)
            )
        )
        for row in rows:
            n += 1
            payload = audit_payload(
                row.at, row.actor, row.action, row.table_id, row.reason, row.detail
            )
            if row.prev_hash != prev or chain_hash(prev, payload) != row.hash:
                return _fail(
                    Check.AUDIT,
                    "audit_log",
                    f"audit {row.id}",
                    row.table_id,
                    "store.verify_audit_log",
                    id=int(row.id),
                    action=row.action,
                ), n
            prev = row.hash
        if len(rows) < BATCH:
            return None, n
        after = int(rows[-1].id)


def verify_configs(tx: Tx) -> Failure | None:
    """The first configuration whose payload does not hash to its recorded SHA-256."""
    for row in tx.connection.execute(select(s.configs).order_by(s.configs.c.config_id)):
        if hashlib.sha256(row.payload.encode("utf-8")).hexdigest() != row.sha256:
            return _fail(
                Check.CONFIG,
                "configs",
                row.config_id,
                None,
                "store.verify_config_hash",
                config_id=row.config_id,
            )
    return None


def verify_chain(
    tx: Tx,
    table_id: str,
    *,
    configs: Mapping[str, str] | None = None,
    voids: dict[str, int] | None = None,
    until: int | None = None,
) -> tuple[Failure | None, int]:
    """Walk ``table_id``'s event chain; returns the first failure (or ``None``) and how many
    events were read. ``configs`` maps config id -> SHA-256 (read from the store if omitted);
    ``voids`` (if given) counts the voids with a ground (``"voids"``) and those written before
    voids carried one (``"legacy_voids"``); ``until``: the last ``seq`` read (``None``: all)."""
    if configs is None:
        configs = {r.config_id: r.sha256 for r in tx.connection.execute(select(s.configs))}
    walk = ChainWalk(table_id, configs, voids)
    for record in table_records(tx, table_id, until=until):
        if walk.check(record) is not None:
            break
    return walk.failure, walk.count


class ChainRecord(NamedTuple):
    """What the chain walk reads of a stored event: its columns but the time it was recorded
    (which no hash covers), as the driver returns them — no record object built, no timestamp
    parsed (:func:`table_records`)."""

    seq: int
    round_id: str | None
    type: str
    payload: str
    prev_hash: str
    hash: str


_TABLE_RECORDS: Final = (
    "SELECT seq, round_id, type, payload, prev_hash, hash FROM events"
    " WHERE table_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?"
)
"""A batch of :func:`table_records` (the columns of :class:`ChainRecord`), read through the
driver (:meth:`Tx.driver_rows`: plain strings and integers, no SQLAlchemy row built — the
events are most of what ``verify`` reads)."""

LAST_SEQ: Final = 2**62
"""Above any ``seq`` or transaction id (the upper bound of a read "up to the end")."""


def table_records(
    tx: Tx, table_id: str, *, until: int | None = None, after: int = 0
) -> Iterator[ChainRecord]:
    """``table_id``'s stored events in ``seq`` order after ``after`` (up to ``until`` if
    given), read :data:`BATCH` at a time, as :class:`ChainRecord` s."""
    make = ChainRecord._make
    last = LAST_SEQ if until is None else until
    while True:
        rows = tx.driver_rows(_TABLE_RECORDS, (table_id, after, last, BATCH))
        for row in rows:
            yield make(row)
        if len(rows) < BATCH:
            return
        after = int(rows[-1][0])


class ChainWalk:
    """One table's chain checked one stored event at a time (:meth:`check`), in ``seq``
    order: the store's per-event checks, used by :func:`verify_chain` and by the table check
    of ``macau-tables verify`` (:func:`macau_tables.tables.audit.check_table`), which reads
    each event once for both. After the first failure (:attr:`failure`) it checks no more.

    A new check of each stored event goes in :meth:`check` (it has the record and its parsed
    payload; a failure is a :func:`_fail` of :attr:`Check.CHAIN`)."""

    def __init__(
        self,
        table_id: str,
        configs: Mapping[str, str],
        voids: dict[str, int] | None = None,
        *,
        start: int = 1,
        prev: str = GENESIS,
        recent: RecentRounds | None = None,
    ) -> None:
        """``start``, ``prev``, ``recent``: a walk from the middle of the chain (``verify``
        splits a long log between processes) — the first ``seq`` expected, the stored hash of
        the event before it (checked by the walk of the part before) and the rounds seen last
        before it (:func:`recent_rounds`)."""
        self.table_id = table_id
        self.configs = configs
        self.voids = voids
        self.expected = start
        self.prev = prev
        self.count = 0
        self.failure: Failure | None = None
        self.data: dict[str, Any] = {}
        """The last event's parsed payload (when it passed)."""
        self.recent = RecentRounds() if recent is None else recent

    def _fail(self, key: str, record: str, /, **params: object) -> Failure:
        self.failure = _fail(Check.CHAIN, "events", record, self.table_id, key, **params)
        return self.failure

    def check(self, record: ChainRecord | EventRecord) -> Failure | None:
        """Check the next stored event (see the module docstring, item 2); its failure, if
        any (also kept in :attr:`failure`)."""
        if self.failure is not None:
            return self.failure
        self.count += 1
        table_id, seq = self.table_id, record.seq
        name = f"{table_id}#{seq}"
        if seq != self.expected:
            return self._fail(
                "store.verify_seq_gap",
                f"{table_id}#{self.expected}",
                table_id=table_id,
                seq=seq,
                expected=self.expected,
            )
        if record.prev_hash != self.prev:
            return self._fail("store.verify_chain_broken", name, table_id=table_id, seq=seq)
        payload = record.payload
        if chain_hash(record.prev_hash, payload.encode("utf-8")) != record.hash:
            return self._fail("store.verify_hash_mismatch", name, table_id=table_id, seq=seq)
        try:
            data = _loads(payload)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            return self._fail("store.verify_payload", name, table_id=table_id, seq=seq)
        if data.get("type") != record.type:
            return self._fail(
                "store.verify_type_mismatch",
                name,
                table_id=table_id,
                seq=seq,
                type=record.type,
                found=str(data.get("type")),
            )
        if _may_refer(payload):  # (a payload naming no "sha256" holds no rules reference)
            for config_id, digest in codec.stored_rules_refs(data):
                if self.configs.get(config_id) != digest:
                    return self._fail(
                        "store.verify_rules_ref",
                        name,
                        table_id=table_id,
                        seq=seq,
                        config_id=config_id,
                    )
        found = check_void(seq, record.round_id, data, self.recent, self.voids)
        if found is not None:
            return self._fail(found[0], name, table_id=table_id, seq=seq, **found[1])
        self.recent.add(record.round_id, seq, record.hash, data)
        self.expected, self.prev, self.data = seq + 1, record.hash, data
        return None


_SCAN: Final[Callable[[str, int], tuple[Any, int]]] = json.scanner.make_scanner(
    cast(Any, json.JSONDecoder())  # (the scanner json.loads's own decoder makes)
)


def _loads(text: str) -> Any:
    """``json.loads(text)``: a text that is one JSON value from its first character to its
    last (what the store writes) is read by the scanner ``json.loads`` ends in, without its
    calls around it; any other text goes through ``json.loads`` itself (the same value, the
    same refusal)."""
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, ValueError):
        return json.loads(text)
    if end != len(text):
        return json.loads(text)
    return value


def _may_refer(payload: str) -> bool:
    """Whether a payload's text may hold a rules reference ``{"config_id", "sha256"}``: it
    names ``sha256``, or escapes a character (a key written with ``\\u`` escapes)."""
    return "sha256" in payload or "\\u" in payload


class RecentRounds:
    """The events of a table's last few rounds as the chain is walked (a void's evidence is an
    earlier event of its own round): round id → seq → ``(hash, payload)``."""

    KEEP: Final = 4

    def __init__(self) -> None:
        self.rounds: dict[str, dict[int, tuple[str, dict[str, Any]]]] = {}

    def add(self, round_id: str | None, seq: int, digest: str, data: dict[str, Any]) -> None:
        """Remember one event of ``round_id`` (a table-level event, ``None``, is not kept)."""
        if round_id is None:
            return
        events = self.rounds.get(round_id)
        if events is None:
            if len(self.rounds) >= self.KEEP:
                del self.rounds[next(iter(self.rounds))]
            events = self.rounds[round_id] = {}
        events[seq] = (digest, data)

    def get(self, round_id: str | None, seq: int) -> tuple[str, dict[str, Any]] | None:
        """The event ``seq`` of ``round_id``, if it was one of its events."""
        return None if round_id is None else self.rounds.get(round_id, {}).get(seq)


def recent_rounds(tx: Tx, table_id: str, before: int) -> RecentRounds:
    """The :class:`RecentRounds` a walk of ``table_id``'s chain from its start holds when it
    reaches ``seq`` ``before`` (every event before it passing): which rounds it keeps follows
    from the ``round_id`` column alone; then only their events are read."""
    c = s.events.c
    kept: dict[str, int] = {}  # round id -> the seq from which the walk keeps its events
    rows = tx.connection.execute(
        select(c.seq, c.round_id).where(c.table_id == table_id, c.seq < before).order_by(c.seq)
    )
    for seq, round_id in rows:
        if round_id is None or round_id in kept:
            continue
        if len(kept) >= RecentRounds.KEEP:
            del kept[next(iter(kept))]
        kept[round_id] = int(seq)
    recent = RecentRounds()
    if not kept:
        return recent
    query = (
        select(c.seq, c.round_id, c.hash, c.payload)
        .where(
            c.table_id == table_id,
            c.seq >= min(kept.values()),
            c.seq < before,
            c.round_id.in_(list(kept)),
        )
        .order_by(c.seq)
    )
    for seq, round_id, digest, payload in tx.connection.execute(query):
        if int(seq) >= kept[round_id]:
            recent.add(round_id, int(seq), digest, json.loads(payload))
    return recent


_VOID_SINCE: dict[str, int | None] = {}
"""A registered event type's name → :func:`~macau_tables.voids.void_since` of its class."""


def _void_since(name: str) -> int | None:
    """The codec version from which the registered type ``name`` is a void event carrying its
    basis (``None``: no void event, or no registered type)."""
    if name in _VOID_SINCE:
        return _VOID_SINCE[name]
    try:
        cls = codec.default_registry().class_named(name)
    except (CodecError, MacauTablesError):
        return None  # (not remembered: a type registered later is looked up again)
    since = _VOID_SINCE[name] = void_since(cls)
    return since


def check_void(
    seq: int,
    round_id: str | None,
    data: Mapping[str, Any],
    recent: RecentRounds,
    counts: dict[str, int] | None = None,
) -> tuple[str, dict[str, object]] | None:
    """For a void event (payload ``data``, at ``seq`` of round ``round_id``): the message key
    and parameters of what does not hold, or ``None`` — also for any other event. A void of a
    version that carries a ground names one, and its evidence: an event of the same round
    earlier in the chain (``recent``), with the hash given, that shows the ground (CSP-11.1,
    CSP-11.4, BAC-10). ``counts`` counts the voids (``voids``) and those of an older version,
    with no ground, counted apart (``legacy_voids``)."""
    name = data.get("type")
    if not isinstance(name, str):
        return None
    since = _void_since(name)
    if since is None:
        return None
    version = data.get("v")
    if isinstance(version, int) and version < since:
        if counts is not None:
            counts["legacy_voids"] = counts.get("legacy_voids", 0) + 1
        return None
    if counts is not None:
        counts["voids"] = counts.get("voids", 0) + 1
    basis = data.get("ground")
    ground_text = basis.get("ground") if isinstance(basis, dict) else None
    if ground_text not in {g.value for g in Ground}:
        return "store.verify_void_ground", {}
    ground = Ground(ground_text)
    evidence = basis.get("evidence") if isinstance(basis, dict) else None
    if not isinstance(evidence, dict) or not isinstance(evidence.get("seq"), int):
        return "store.verify_void_evidence", {"ground": ground.value}
    at = int(evidence["seq"])
    if at >= seq:
        return "store.verify_void_evidence_after", {"evidence": at}
    found = recent.get(round_id, at)
    if found is None:
        return "store.verify_void_evidence_round", {"evidence": at, "round_id": str(round_id)}
    digest, payload = found
    if digest != evidence.get("hash"):
        return "store.verify_void_evidence_hash", {"evidence": at}
    try:
        shown = shows(codec.decode(payload))
    except (MacauTablesError, ValueError):
        shown = frozenset()
    if ground not in shown:
        return "store.verify_void_evidence_ground", {"evidence": at, "ground": ground.value}
    return None


def verify_meters(tx: Tx) -> Failure | None:
    """Each meter's log chain, its row re-derived from the log, its hits as logged."""
    for row in tx.connection.execute(select(s.meters).order_by(s.meters.c.meter_id)):
        failure = _verify_meter(tx, row)
        if failure:
            return failure
    return None


def _verify_meter(tx: Tx, row: Any) -> Failure | None:
    meter_id = row.meter_id
    c = s.meter_log.c
    entries = tx.connection.execute(
        select(s.meter_log).where(c.meter_id == meter_id).order_by(c.seq)
    )
    state: dict[str, Any] = {
        "game": None,
        "seed": None,
        "params": None,
        "params_pending": None,
        "seed_pending": None,
        "hits": 0,
        "version": 0,
    }
    logged_hits: list[dict[str, Any]] = []
    prev = GENESIS
    for entry in entries:
        seq = int(entry.seq)
        broken = _fail(
            Check.METER,
            "meter_log",
            f"{meter_id}#{seq}",
            None,
            "store.verify_meter_log",
            meter_id=meter_id,
            seq=seq,
        )
        if seq != state["version"] + 1 or entry.prev_hash != prev:
            return broken
        if chain_hash(entry.prev_hash, entry.payload.encode("utf-8")) != entry.hash:
            return broken
        data = json.loads(entry.payload)
        if data.get("kind") != entry.kind or data.get("meter_id") != meter_id:
            return broken
        if entry.kind == "create":
            state.update(game=data["game"], seed=data["seed"], params=dumps(data["params"]))
        elif entry.kind == "params":
            pending = data["params_pending"]
            state.update(
                seed_pending=data["seed_pending"],
                params_pending=dumps(pending) if pending is not None else None,
            )
        elif entry.kind == "hit":
            state["hits"] += 1
            if state["params_pending"] is not None:
                state["params"] = state["params_pending"]
            if state["seed_pending"] is not None:
                state["seed"] = state["seed_pending"]
            state.update(params_pending=None, seed_pending=None)
            logged_hits.append(data)
        state["version"] = seq
        prev = entry.hash
    for name in ("game", "seed", "params", "params_pending", "seed_pending", "hits", "version"):
        found = getattr(row, name)
        if found is not None and name in ("seed", "seed_pending", "hits", "version"):
            found = int(found)
        if found != state[name]:
            return _fail(
                Check.METER,
                "meters",
                meter_id,
                None,
                "store.verify_meter_row",
                meter_id=meter_id,
                field=name,
                found=str(found),
                expected=str(state[name]),
            )
    h = s.meter_hits.c
    stored = list(
        tx.connection.execute(select(s.meter_hits).where(h.meter_id == meter_id).order_by(h.seq))
    )
    for i in range(max(len(stored), len(logged_hits))):
        seq = i + 1
        bad = _fail(
            Check.METER,
            "meter_hits",
            f"{meter_id}#{seq}",
            None,
            "store.verify_meter_hit",
            meter_id=meter_id,
            seq=seq,
        )
        if i >= len(stored) or i >= len(logged_hits):
            return bad
        hit, logged = stored[i], logged_hits[i]
        if {
            "seq": int(hit.seq),
            "table_id": hit.table_id,
            "round_id": hit.round_id,
            "box": int(hit.box),
            "combination": hit.combination,
            "amount": int(hit.amount),
            "at": iso(hit.at),
            "place": hit.place,  # None in both for a hit of before schema v9
        } != {
            k: logged.get(k)
            for k in ("seq", "table_id", "round_id", "box", "combination", "amount", "at", "place")
        }:
            return bad
    return None


def verify_shoes(tx: Tx) -> tuple[Failure | None, int]:
    """Every ended shoe must match the commitment published before its first card: a
    card-by-card shoe's ``core.ShoeOpening`` (its leaves have the commitment's Merkle root, and
    every public card with its salt is its position's leaf: else ``store.verify_leaf`` naming
    the shoe and the position), a whole-shoe ``core.ShoeReveal`` (the order and salt hash to
    the digest); returns the first failure and how many shoes were read."""
    from .. import codec
    from ..errors import MacauTablesError
    from ..rng import ShoeOpening, opening_fault

    count = 0
    c = s.shoes.c
    for row in tx.connection.execute(select(s.shoes).order_by(c.table_id, c.shoe_no)):
        count += 1
        if row.revealed is None:
            continue
        data = json.loads(row.revealed)
        if isinstance(data, dict) and data.get("type") == "core.ShoeOpening":
            try:
                position = opening_fault(row.commitment, codec.decode(data, expect=ShoeOpening))
            except (MacauTablesError, ValueError):
                position = -1
            if position is not None:
                return _fail(
                    Check.SHOE,
                    "shoes",
                    f"{row.table_id}#{row.shoe_no}",
                    row.table_id,
                    "store.verify_leaf",
                    table_id=row.table_id,
                    shoe_no=row.shoe_no,
                    position="-" if position < 0 else position,
                ), count
            continue
        if not isinstance(data, dict) or data.get("type") != "core.ShoeReveal":
            continue
        try:
            digest = codec.decode(data).commitment.digest
        except (MacauTablesError, ValueError):
            digest = None
        if digest != row.commitment:
            return _fail(
                Check.SHOE,
                "shoes",
                f"{row.table_id}#{row.shoe_no}",
                row.table_id,
                "store.verify_shoe",
                table_id=row.table_id,
                shoe_no=row.shoe_no,
            ), count
    return None, count


def verify_transactions(tx: Tx) -> tuple[Failure | None, int]:
    """Every transaction's digest recomputed and its postings summing to zero; returns the
    first failure and how many transactions were read (read :data:`BATCH` at a time as plain
    rows: no record object built)."""
    c = s.transactions.c
    p = s.postings.c
    conn = tx.connection
    after, count = 0, 0
    while True:
        batch = conn.execute(
            select(
                c.tx_id,
                c.table_id,
                c.event_seq,
                c.kind,
                c.actor,
                c.reason,
                c.corrects,
                c.created_at,
                c.digest,
            )
            .where(c.tx_id > after)
            .order_by(c.tx_id)
            .limit(BATCH)
        ).all()
        if not batch:
            return None, count
        lines: dict[int, list[tuple[int, str, int, str]]] = {int(t[0]): [] for t in batch}
        for tx_id, line, account, amount, reason in conn.execute(
            select(p.tx_id, p.line, p.account_id, p.amount, p.reason)
            .where(p.tx_id >= int(batch[0][0]), p.tx_id <= int(batch[-1][0]))
            .order_by(p.tx_id, p.line)
        ).all():
            found = lines.get(int(tx_id))
            if found is not None:
                found.append((int(line), account, int(amount), reason))
        for tx_id, table_id, event_seq, kind, actor, reason, corrects, created_at, digest in batch:
            count += 1
            tx_id = int(tx_id)
            record = f"tx {tx_id}"
            postings = lines[tx_id]
            total = sum(x[2] for x in postings)
            if total or not postings:
                return _fail(
                    Check.TRANSACTION,
                    "postings",
                    record,
                    table_id,
                    "store.verify_tx_unbalanced",
                    tx_id=tx_id,
                    total=total,
                ), count
            fields = {
                "table_id": table_id,
                "event_seq": event_seq,
                "kind": kind,
                "actor": actor,
                "reason": reason,
                "corrects": corrects,
                "created_at": iso(created_at),
            }
            if transaction_digest(fields, postings) != digest:
                return _fail(
                    Check.TRANSACTION,
                    "transactions",
                    record,
                    table_id,
                    "store.verify_tx_digest",
                    tx_id=tx_id,
                ), count
            after = tx_id


def verify_balances(tx: Tx) -> tuple[Failure | None, int]:
    """Every account's balance equal to the sum of its postings, then the ledger summing to
    zero; returns the first failure and how many accounts were read."""
    p = s.postings.c
    sums = {
        r.account_id: int(r.total)
        for r in tx.connection.execute(
            select(p.account_id, func.sum(p.amount).label("total")).group_by(p.account_id)
        )
    }
    total, count = 0, 0
    for row in tx.connection.execute(select(s.accounts).order_by(s.accounts.c.account_id)):
        count += 1
        balance = int(row.balance)
        total += balance
        posted = sums.get(row.account_id, 0)
        if balance != posted:
            table_id = row.account_id.partition(":")[2] or None
            if row.kind in ("wallet", "jackpot_meter"):
                table_id = None
            return _fail(
                Check.BALANCE,
                "accounts",
                row.account_id,
                table_id,
                "store.verify_balance",
                account=row.account_id,
                balance=balance,
                postings=posted,
            ), count
    if total:
        return _fail(
            Check.LEDGER, "accounts", "*", None, "store.verify_ledger_total", total=total
        ), count
    return None, count
