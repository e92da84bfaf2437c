"""Storage: the only code that speaks SQL (SQLAlchemy Core; SQLite by default, PostgreSQL).

The table service (:mod:`macau_tables.tables`) stands on this package; nothing here knows a
game's rules beyond the codec (:mod:`macau_tables.codec`).

Opening, migrating, checking
----------------------------
``store = Store.open(url: str | None = None)`` — the URL from the argument, else the environment
variable ``MACAU_TABLES_DATABASE``, else ``sqlite:///macau-tables.db`` (working directory).
SQLite: a file in WAL mode, ``synchronous=FULL``, ``foreign_keys=ON``, a busy time-out, every
write transaction ``BEGIN IMMEDIATE``. PostgreSQL: ``postgresql+psycopg://…`` (psycopg 3; a
plain ``postgresql://`` URL is taken as psycopg too; a store keeps 24 connections open, at
most 40: :data:`~.engine.PG_POOL`).

* ``store.upgrade() -> int`` creates or migrates the schema (Alembic, scripts inside the package:
  ``macau_tables/store/migrations``) and returns the schema version now in force.
* ``store.check() -> None`` at start-up refuses (:class:`~macau_tables.errors.StoreError`) a
  database that is not migrated (``store.not_migrated``: "run macau-tables db upgrade"), from an
  older schema (``store.schema_older``), from a newer schema (``store.schema_newer``: "upgrade
  macau-tables"), or that fails its integrity check (``store.integrity_failed``: SQLite
  ``PRAGMA quick_check``; both: the ledger sums to zero).
* ``store.close()`` (also a context manager). ``store.dialect`` is ``"sqlite"`` or
  ``"postgresql"``; ``store.url`` the URL without its password (``store.raw_url`` with it, for
  child processes); ``store.schema_version() -> int | None``.
  ``Store.open(url, *, clock=utc_now, busy_timeout=10.0)``: ``clock`` gives every stored time.

Transactions
------------
``store.run(fn: Callable[[Tx], T], *, retries: int = 5, readonly: bool = False,
serializable: bool = False) -> T`` runs ``fn`` in ONE database transaction and commits it.
Serialization failures (SQLSTATE 40001, deadlock 40P01, SQLite "database is locked") are retried
at most ``retries`` times with a small jittered back-off, then refused with
``StoreError("store.retries_exhausted")``. ``fn`` may be called more than once: it must have no
effect outside ``tx`` (use ``tx.after_commit(callback)`` for those; they run once, after the
commit, in order). Any other exception rolls everything back and propagates; a database error
that is not a conflict becomes ``StoreError("store.unavailable" | "store.database_error")``.
PostgreSQL writes run at READ COMMITTED (every money change is a row-locked
``UPDATE … SET balance = balance + x``, so contributions commute and many writers never
conflict), ``serializable=True`` asks for SERIALIZABLE; ``readonly=True`` gives one consistent
snapshot (REPEATABLE READ READ ONLY; SQLite deferred ``BEGIN``). ``store.read(fn)`` is
``run(fn, readonly=True)``.

``Tx`` (inside ``run``) — every method refuses with ``StoreError`` and a message key:

Configurations (stored once per version, referenced by id and hash)
  ``put_config(game: str, config_id: str, rules: object) -> str`` (the rules' codec SHA-256;
  the same id again with the same rules is a no-op, with other rules ``store.config_conflict``);
  ``get_config(config_id) -> object`` (decoded, hash verified); ``config(config_id) ->
  ConfigRecord``; ``config_resolver() -> Callable[[str], object]`` (for
  ``codec.decode(payload, rules=...)``).
Players and casino tables
  ``add_player(player_id, name) -> None`` (creates the wallet ``wallet:<player_id>``);
  ``player(player_id) -> PlayerRecord | None``; ``players() -> list[PlayerRecord]``;
  ``create_table(table_id, *, name, game, mode: TableMode, demo: bool, config_id,
  meter_id: str | None = None) -> TableRecord`` (created CLOSED); ``table(table_id) ->
  TableRecord`` (refuses an unknown table: ``store.unknown_table``); ``tables() ->
  list[TableRecord]``;
  ``set_table_status(table_id, status: TableStatus, *, actor, reason, fault: Mapping | None =
  None) -> None`` (audited); ``set_table_config(table_id, config_id, *, actor, reason)``
  (audited); ``acquire_lease(table_id, owner, *, until: datetime) -> bool``;
  ``release_lease(table_id, owner) -> None``.
Event log (per table, append-only, hash-chained; :mod:`macau_tables.store.chain`)
  ``append_events(table_id, events: Sequence[object], *, round_id: str | None = None,
  expected_seq: int | None = None) -> list[EventRecord]`` (payload =
  ``codec.canonical_bytes(event)``; ``hash = sha256(bytes.fromhex(prev_hash) + payload)``;
  genesis ``prev_hash`` = 64 zeros; ``expected_seq`` = the head the caller's state was built
  from, else ``store.chain_conflict``; two racing appends: the second ``store.chain_race``);
  ``read_events(table_id, *, after: int = 0,
  limit: int | None = None) -> list[EventRecord]`` (``record.decode(rules)`` gives the event);
  ``chain_head(table_id) -> ChainHead`` (``seq``, ``hash``; seq 0 and genesis when empty);
  ``chain_heads() -> dict[str, ChainHead]``; ``round_ids(table_id) -> list[str]`` (in order);
  ``read_events(..., round_id=...)`` reads one round.
Ledger (double entry; balances updated in the same transaction)
  ``post(postings: Iterable[ledger.Posting], *, kind: TxKind, table_id: str | None = None,
  meter_id: str | None = None, actor: str | None = None, reason: str | None = None,
  event_seq: int | None = None, corrects: int | None = None) -> int | None`` — the tx id
  (``None`` when every amount is zero: nothing to post). Refused, with nothing written:
  postings that do not sum to zero (``store.unbalanced``), an account that cannot be mapped
  (``store.account_unmapped``), a wallet of an unknown player (``store.unknown_player``), a wallet
  going below zero (``ledger.insufficient_funds`` naming the player), another account that may
  not go negative doing so (``store.account_negative``), a meter decreased other than by an
  award or an audited adjustment (``store.meter_decrease``). The accounts debited that may not go
  negative are locked in id order (PostgreSQL) until the commit; an account only credited is not
  locked before its update, and a meter's balance is updated last (its row is held only from
  there to the commit, so contributions from many tables commute). A posting's reference to its
  account is checked at the commit (schema v3; by then a meter's row is held by the
  transaction's own update, so the check takes no lock of its own beside other writers').
  ``post_many(entries: Sequence[LedgerEntry]) -> list[int | None]`` posts several transactions
  (a request's events' postings) as ``post`` would one after the other, with a few statements
  for all of them; any balance going below zero after any entry refuses the whole batch.
  ``post_deferred(entries)`` is ``post_many`` without the ids (what a table's request posts):
  on PostgreSQL the batch goes with the commit, in its one round trip (with the ``BEGIN`` too
  when nothing else was sent), or before the transaction's next statement if one comes first;
  the batches left so are merged into one (every balance still checked after each entry in
  turn); its refusal is then raised there or by ``run``, nothing kept. On PostgreSQL the
  ledger's write is the server function ``macau_post`` (schema v4). A correction is a new
  transaction (``kind=TxKind.CORRECTION, corrects=<tx id>``, actor and reason required).
  ``deposit(player_id, amount, *, actor, reason) -> int`` and ``withdraw(...) -> int``: cashier ↔
  wallet transactions with who and why. ``balance(account_id) -> int``; ``wallet_balance(
  player_id) -> int``; ``accounts() -> list[AccountRecord]``; ``ledger_total() -> int``;
  ``transaction(tx_id) -> TransactionRecord``; ``transactions(*, table_id=None, after: int = 0,
  limit: int | None = None, tx_ids=None) -> list[TransactionRecord]`` (with their postings).
  Account ids (:func:`account_id`): ``wallet:<player>``, ``<kind>:<table_id>`` for in_play,
  carried, table_bank, commission; ``jackpot_meter:<meter_id>``; ``house_funding``; ``cashier``.
Linked meters (the amount is the balance of ``jackpot_meter:<meter_id>``: one truth)
  ``create_meter(meter_id, *, game, seed: int, params: Mapping[str, JSON], actor) -> MeterRecord``
  (posts the seed from house funding); ``meter(meter_id) -> MeterRecord``; ``meters() ->
  list[MeterRecord]``; ``meter_amount(meter_id, *, lock: bool = False) -> int`` (``lock``:
  ``SELECT … FOR UPDATE`` on PostgreSQL, serialised awards; SQLite writers are already serial);
  contributions are ordinary postings (deltas); ``record_hit(meter_id, *, table_id, round_id,
  box: int, combination: str, amount: int, place: str | None = None) -> MeterHit`` (hits +1,
  pending parameters take effect now; ``place`` the winning box or seat, ``"box 3"``,
  ``"seat 2"``, CSP-10.4, BAC-17 — schema v9, ``None`` for a hit recorded before);
  ``hits(meter_id, *, last: int = 25) -> list[MeterHit]`` (newest first);
  ``set_meter_params(meter_id, *, seed: int | None = None, params: Mapping | None = None, actor,
  reason) -> MeterRecord`` (``seed_pending``/``params_pending`` until the next hit; whether a
  round is open is the service's check); ``adjust_meter(meter_id, amount, *,
  actor, reason) -> int`` (an audited adjustment transaction, either sign). Each meter change is
  in the meter's own hash-chained log (``meter_log``), so a tampered meter row is found.
  ``store.listen_meters(callback: Callable[[str, int], None]) -> Listener`` — called with
  ``(meter_id, amount)`` after every commit that changed a meter's amount, in every process
  (PostgreSQL ``LISTEN/NOTIFY`` on channel ``macau_meters``, payload ``"<meter_id>:<amount>"``,
  one listening connection per store shared by all its subscribers; in-process callbacks on
  SQLite). ``listener.close()`` stops it.
A table's requests (what :mod:`macau_tables.tables` runs for each command)
  ``request_start(table_id, key) -> (ChainHead, IdempotencyRecord | None)`` (the log's head and
  the key's record in one read; on PostgreSQL, as the transaction's first statement, with its
  ``BEGIN``); ``prefetch_requests(table_ids, keys)`` (PostgreSQL: the heads and keys of a
  group's requests in ONE round trip, with the ``BEGIN``; ``request_start`` then reads nothing
  for them and finds a key this transaction stored); ``defer_writes()`` (PostgreSQL: from then
  on ``append_events`` and ``idempotency_put`` wait for the commit like ``post_deferred``: the
  events, the idempotency records and ONE ``macau_post`` for all the ledger batches go with the
  ``COMMIT`` in one round trip — a group of requests is two round trips —, or before the
  transaction's next statement if one comes first; a key stored meanwhile by another
  transaction is then refused by the commit, ``store.idempotency_exists``, a race for a seq
  ``store.chain_race``; SQLite: nothing changes). ``mark() -> Mark`` and ``rewind(mark)``
  forget the writes made since, when none was sent (``flushes`` unchanged); ``flush_writes()``
  sends them now. The statements so sent are one simple query of literals quoted by libpq
  (:mod:`.pgwire`).
Idempotency, snapshots, shoes, audit
  ``idempotency_get(key) -> IdempotencyRecord | None``; ``idempotency_put(key, *, scope,
  request_sha256, response: Mapping) -> None`` (a key already stored: ``store.idempotency_exists``);
  ``idempotency_prune(before: datetime, *, limit=10_000) -> int`` (the records older than
  ``before``, oldest first; schema v5's index by age);
  ``snapshot_put(table_id, seq, payload: Mapping) -> None`` (the same again is a no-op);
  ``snapshot_latest(table_id, *, at_most: int | None = None) -> Snapshot | None``;
  ``shoe_put(table_id, shoe_no, commitment: str) -> None``; ``next_shoe_no(table_id) -> int``;
  ``shoe_reveal(table_id, shoe_no, revealed: Mapping, verified: bool) -> None`` (once);
  ``shoes(table_id) -> list[ShoeRecord]``, ``shoe(table_id, shoe_no) -> ShoeRecord | None``
  (``revealed`` as stored: store ``codec.encode(ShoeOpening)`` — a card-by-card shoe's leaves
  and public cards — or, for a whole-shoe commitment, ``codec.encode(ShoeReveal)``, so that
  verify checks it against the commitment);
  ``revealed_shoes_page(table_id=None, *, before: ShoeCursor | None = None, limit) ->
  ShoesPage`` (the revealed shoes newest first, at most ``limit`` rows read whatever the
  history: schema v8's indexes by reveal time); ``audit(action, *, actor,
  table_id=None, reason=None, detail: Mapping | None = None) -> int`` (hash-chained in id order,
  schema v6; verify walks the chain); ``audit_entries(*,
  table_id=None, action=None) -> list[AuditEntry]``; ``last_audit(action) -> AuditEntry | None``
  (the latest of that action).
  ``tx.now() -> datetime`` (UTC, the store's clock); ``tx.after_commit(callback)``.

Verification (:mod:`macau_tables.store.verify`, reads only)
  ``verify(store) -> Verification`` (``.ok``, ``.failure: Failure | None``, counts):
  every configuration's hash, every table's chain (hashes recomputed, seq contiguous, type column
  = payload type, rules references known with their hash), every meter's log chain and its row
  and hits, every revealed shoe against its commitment, every transaction's digest and sum zero,
  every account balance = the sum of its postings, the ledger sums to zero. ``verify_tx(tx)``
  does the same inside an open transaction; ``verify_chain``, ``verify_meters``, … each part.
  The first failure names the check, the database relation, the record
  (``"t1#17"``, ``"tx 42"``, ``"wallet:alice"``) and the table id.
"""

from __future__ import annotations

from .chain import GENESIS, chain_hash
from .ledger_ops import LedgerEntry, account_id
from .meter_ops import meter_account
from .records import (
    AccountRecord,
    AuditEntry,
    ChainHead,
    ConfigRecord,
    EventRecord,
    IdempotencyRecord,
    MeterHit,
    MeterRecord,
    PlayerRecord,
    PostingRecord,
    ShoeCursor,
    ShoeRecord,
    ShoesPage,
    Snapshot,
    TableMode,
    TableRecord,
    TableStatus,
    TransactionRecord,
    TxKind,
)
from .schema import SCHEMA_VERSION
from .store import METER_CHANNEL, Listener, MeterCallback, Store
from .tx import Tx

__all__ = [
    "GENESIS",
    "METER_CHANNEL",
    "SCHEMA_VERSION",
    "AccountRecord",
    "AuditEntry",
    "ChainHead",
    "ConfigRecord",
    "EventRecord",
    "IdempotencyRecord",
    "LedgerEntry",
    "Listener",
    "MeterCallback",
    "MeterHit",
    "MeterRecord",
    "PlayerRecord",
    "PostingRecord",
    "ShoeCursor",
    "ShoeRecord",
    "ShoesPage",
    "Snapshot",
    "Store",
    "TableMode",
    "TableRecord",
    "TableStatus",
    "TransactionRecord",
    "Tx",
    "TxKind",
    "account_id",
    "chain_hash",
    "meter_account",
]
