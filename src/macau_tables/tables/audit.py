"""``macau-tables verify``: the whole database checked, in one consistent snapshot.

:func:`verify_database` runs, in order, stopping at the first record that does not hold:

1. the store's verification (:func:`macau_tables.store.verify.verify_tx`): configurations'
   hashes, every table's hash chain, every meter's log, every revealed shoe against its
   commitment, every transaction's digest and sum, every balance against its postings, the
   ledger summing to zero;
2. every table's rounds re-derived through the rules (:mod:`.rederive`): the postings of each
   event, each settlement computed again, the meter each jackpot settlement was given against
   the ledger, every reveal against its published commitment;
3. every settlement's facts (what the per-position report reads: :mod:`.facts`) derived again
   from its settlement by the game's plug-in, against the facts event and the stored rows.

It returns a :class:`Verified` with the counts and the first :class:`~.findings.Finding`
(naming the check, the table and the record). Each table is checked in one pass over its log
(:func:`check_table`: the chain walk and the re-derivation of its rounds); with ``jobs`` > 1
the tables are checked by that many processes (:func:`verify_parallel`) and the parts merged in
the order above (:func:`merge`), so the report is the one a single process gives.
Reads only: it works while a table is stopped by a fault and while other processes play.
"""

from __future__ import annotations

import bisect
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import func, select, text

from ..codec import decode
from ..store import ChainHead, Store, TableRecord, Tx
from ..store import schema as s
from ..store.history import meter_postings
from ..store.verify import (
    BATCH,
    ChainWalk,
    Failure,
    stored_configs,
    table_records,
    verify_configs,
    verify_rest,
)
from .facts import check_table_facts
from .findings import Finding, from_store
from .rederive import Counts, LoggedEvent, MeterBalance, StoredTx, rederive_table

__all__ = [
    "RestCheck",
    "TableCheck",
    "Verified",
    "check_table",
    "default_jobs",
    "merge",
    "meter_balances",
    "running_balances",
    "table_events",
    "table_transactions",
    "verify_database",
    "verify_in",
    "verify_parallel",
]


@dataclass(frozen=True, slots=True)
class Verified:
    """What :func:`verify_database` read and the first failure (``None``: all holds)."""

    finding: Finding | None
    tables: int = 0
    events: int = 0
    rounds: int = 0
    settlements: int = 0
    transactions: int = 0
    shoes: int = 0
    accounts: int = 0
    meters: int = 0
    audit: int = 0
    voids: int = 0
    legacy_voids: int = 0
    heads: dict[str, ChainHead] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether everything holds."""
        return self.finding is None

    def counts(self) -> dict[str, int]:
        """What was read, by kind (what ``verify`` prints and ``GET /api/verify`` answers)."""
        return {
            "tables": self.tables,
            "events": self.events,
            "rounds": self.rounds,
            "settlements": self.settlements,
            "transactions": self.transactions,
            "accounts": self.accounts,
            "meters": self.meters,
            "shoes": self.shoes,
            "audit entries": self.audit,
            "voids": self.voids,
            "voids before grounds": self.legacy_voids,
        }


def verify_database(
    store: Store, *, jobs: int = 1, progress: Callable[[str], None] | None = None
) -> Verified:
    """Verify ``store`` (see the module docstring); ``progress`` is told each table's id as
    its check starts. ``jobs``: how many processes check the tables (see
    :func:`verify_parallel`); 1 checks everything in this process. The report is the same
    whatever ``jobs`` is."""
    if jobs > 1:
        return store.read(lambda tx: verify_parallel(store, tx, jobs, progress=progress))
    return store.read(lambda tx: verify_in(tx, progress=progress))


@dataclass(frozen=True, slots=True)
class TableCheck:
    """What :func:`check_table` found at one table: the store's chain check (its failure,
    the events read, the voids counted) and the re-derivation of its rounds (its finding and
    counts, as far as it read)."""

    table_id: str
    chain: Failure | None
    events: int
    voids: int
    legacy_voids: int
    rederived: Finding | None
    counts: Counts
    facts: Finding | None = None


@dataclass(frozen=True, slots=True)
class RestCheck:
    """What the store's checks after the chains found (:func:`~macau_tables.store.verify.
    verify_rest`): the first failure and the counts read."""

    failure: Failure | None
    counts: dict[str, int]


def check_table(
    tx: Tx,
    table: TableRecord,
    *,
    configs: Mapping[str, str],
    meter_balance: MeterBalance,
    until_seq: int | None = None,
    until_tx: int | None = None,
) -> TableCheck:
    """The per-table check of ``verify``: each stored event of ``table`` read once, checked
    by the store's chain walk (:class:`~macau_tables.store.verify.ChainWalk`: seq, hashes,
    type, rules references, voids), then decoded from the payload the walk parsed and given to
    the re-derivation of its rounds (:func:`.rederive.rederive_table`) with the table's
    transactions. A finding of the re-derivation stops it, not the chain walk (the chain's
    failures come first in the report); a chain failure stops both. ``until_seq`` and
    ``until_tx``: the last event and transaction read (another process's snapshot).

    A new check of each event goes in the chain walk (the stored record and its JSON) or in
    the re-derivation (the decoded events, round by round)."""
    voids = {"voids": 0, "legacy_voids": 0}
    walk = ChainWalk(table.table_id, configs, voids)
    records = table_records(tx, table.table_id, until=until_seq)
    resolver = tx.config_resolver()

    def logged() -> Iterator[LoggedEvent]:
        for record in records:
            if walk.check(record) is not None:
                return
            yield LoggedEvent(record.seq, record.round_id, decode(walk.data, rules=resolver))

    counts = Counts()
    found = rederive_table(
        table.table_id,
        table.game,
        table.meter_id,
        logged(),
        table_transactions(tx, table.table_id, until=until_tx),
        meter_balance=meter_balance,
        counts=counts,
    )
    for record in records:  # the rest of the chain after a finding of the re-derivation
        if walk.check(record) is not None:
            break
    # The settlement facts the reports read (.facts), when the rounds themselves hold.
    facts = check_table_facts(tx, table) if walk.failure is None and found is None else None
    return TableCheck(
        table.table_id,
        walk.failure,
        walk.count,
        voids["voids"],
        voids["legacy_voids"],
        found,
        counts,
        facts,
    )


def _begin(
    tx: Tx,
) -> tuple[dict[str, str], list[TableRecord], dict[str, ChainHead], Verified | None]:
    """What every verification reads first, in its snapshot ``tx``: the configurations (their
    hashes checked: a failure there is the report, the last item), the tables, the chain
    heads."""
    tx.flush_meters()
    configs = stored_configs(tx)
    failure = verify_configs(tx)
    heads = tx.chain_heads()
    failed = None if failure is None else Verified(from_store(failure), heads=heads)
    return configs, tx.tables(), heads, failed


def verify_in(tx: Tx, *, progress: Callable[[str], None] | None = None) -> Verified:
    """:func:`verify_database` inside an open (read-only) transaction, in this process."""
    configs, tables, heads, failed = _begin(tx)
    if failed is not None:
        return failed
    balance = meter_balances(tx)
    checked: list[TableCheck] = []
    for table in tables:
        if progress is not None:
            progress(table.table_id)
        checked.append(check_table(tx, table, configs=configs, meter_balance=balance))
        if checked[-1].chain is not None:
            return merge(tables, checked, None, heads)
    counts: dict[str, int] = {}
    rest = RestCheck(verify_rest(tx, counts), counts)
    return merge(tables, checked, rest, heads)


def merge(
    tables: Sequence[TableRecord],
    checked: Iterable[TableCheck],
    rest: RestCheck | None,
    heads: dict[str, ChainHead],
) -> Verified:
    """The report of ``verify`` from its parts, whichever process checked them: in the order
    of the module docstring, the first failure winning — the tables' chains in table order,
    then the store's other checks (``rest``; ``None``: not run, a chain failed), then the
    tables' re-derivations in table order — with the counts read up to it (what a check in
    one process, stopping there, would have read)."""
    by_table = {c.table_id: c for c in checked}
    start = Verified(None, tables=len(tables), heads=heads)
    for table in tables:
        c = by_table[table.table_id]
        start = replace(
            start,
            events=start.events + c.events,
            voids=start.voids + c.voids,
            legacy_voids=start.legacy_voids + c.legacy_voids,
        )
        if c.chain is not None:
            return replace(start, finding=from_store(c.chain))
    if rest is None:  # pragma: no cover - only when a chain failed (returned above)
        raise ValueError("the store's checks after the chains were not run")
    n = rest.counts
    start = replace(
        start,
        meters=n.get("meters", 0),
        shoes=n.get("shoes", 0),
        transactions=n.get("transactions", 0),
        accounts=n.get("accounts", 0),
        audit=n.get("audit", 0),
    )
    if rest.failure is not None:
        return replace(start, finding=from_store(rest.failure))
    rounds = settlements = shoes = 0
    found: Finding | None = None
    for table in tables:
        c = by_table[table.table_id]
        rounds += c.counts.rounds
        settlements += c.counts.settlements
        shoes += c.counts.shoes
        if c.rederived is not None:
            found = c.rederived
            break
    if found is None:  # then the settlement facts the reports read (.facts), table by table
        found = next((c.facts for t in tables if (c := by_table[t.table_id]).facts), None)
    return replace(
        start,
        finding=found,
        rounds=rounds,
        settlements=settlements,
        shoes=max(start.shoes, shoes),
    )


def default_jobs() -> int:
    """``verify``'s default number of processes: the cores this process may run on (1 when
    that is not known)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - a platform without affinity
        return max(1, os.cpu_count() or 1)


def verify_parallel(
    store: Store, tx: Tx, jobs: int, *, progress: Callable[[str], None] | None = None
) -> Verified:
    """:func:`verify_database` with ``jobs`` processes: this process reads the
    configurations (checking their hashes), the tables, the chain heads and the last
    transaction id in its snapshot ``tx``; then each table (:func:`check_table`) and the
    store's other checks (:func:`~macau_tables.store.verify.verify_rest`) are a task of a pool
    of ``jobs`` new processes (``spawn``), the largest first; the parts are merged as one
    process would have found them (:func:`merge`).

    The snapshot: on PostgreSQL every task reads this transaction's snapshot
    (``pg_export_snapshot``/``SET TRANSACTION SNAPSHOT``: exactly what one process reads). On
    SQLite each task reads its own, bounded by this one's chain heads and last transaction
    (the log and the ledger only grow: what was committed before stays as it was); the store's
    other checks then count what was committed by the time they run."""
    configs, tables, heads, failed = _begin(tx)
    if failed is not None:
        return failed
    snapshot = None
    if tx.postgres:
        snapshot = str(tx.connection.execute(text("SELECT pg_export_snapshot()")).scalar_one())
    last_tx = tx.connection.execute(select(func.max(s.transactions.c.tx_id))).scalar()
    until_tx = int(last_tx or 0)
    url = store.raw_url.render_as_string(hide_password=False)
    sizes = {t.table_id: heads.get(t.table_id, ChainHead()).seq for t in tables}
    order = sorted(tables, key=lambda t: -sizes[t.table_id])
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=max(1, min(jobs, len(tables) + 1)),
        mp_context=context,
        initializer=_open_worker,
        initargs=(url, snapshot),
    ) as pool:
        rest_future = pool.submit(_rest_task)
        futures = []
        for table in order:
            if progress is not None:
                progress(table.table_id)
            until_seq = sizes[table.table_id]
            futures.append(pool.submit(_table_task, table, configs, until_seq, until_tx))
        checked = [f.result() for f in futures]
        rest = rest_future.result()
    return merge(tables, checked, rest, heads)


# -- the worker processes of verify_parallel -------------------------------------------------

_WORKER: dict[str, Any] = {}


def _open_worker(url: str, snapshot: str | None) -> None:
    _WORKER["store"] = Store.open(url)
    _WORKER["snapshot"] = snapshot


def _read(fn: Callable[[Tx], Any]) -> Any:
    store: Store = _WORKER["store"]
    snapshot: str | None = _WORKER["snapshot"]

    def run(tx: Tx) -> Any:
        if snapshot is not None:
            tx.connection.execute(text(f"SET TRANSACTION SNAPSHOT '{snapshot}'"))
        return fn(tx)

    return store.read(run)


def _table_task(
    table: TableRecord, configs: dict[str, str], until_seq: int, until_tx: int
) -> TableCheck:
    def run(tx: Tx) -> TableCheck:
        return check_table(
            tx,
            table,
            configs=configs,
            meter_balance=meter_balances(tx),
            until_seq=until_seq,
            until_tx=until_tx,
        )

    result: TableCheck = _read(run)
    return result


def _rest_task() -> RestCheck:
    def run(tx: Tx) -> RestCheck:
        counts: dict[str, int] = {}
        return RestCheck(verify_rest(tx, counts), counts)

    result: RestCheck = _read(run)
    return result


def table_events(tx: Tx, table_id: str, *, after: int = 0) -> Iterator[LoggedEvent]:
    """``table_id``'s events after ``after``, decoded (configurations by reference), read a
    batch at a time."""
    resolver = tx.config_resolver()
    while True:
        batch = tx.read_events(table_id, after=after, limit=BATCH)
        if not batch:
            return
        for record in batch:
            yield LoggedEvent(record.seq, record.round_id, record.decode(resolver))
        after = batch[-1].seq


def table_transactions(tx: Tx, table_id: str, *, until: int | None = None) -> Iterator[StoredTx]:
    """Every transaction naming ``table_id``, in id order (up to ``until`` if given), read a
    batch at a time."""
    after = 0
    while True:
        batch = tx.transactions(table_id=table_id, after=after, limit=BATCH)
        if not batch:
            return
        for t in batch:
            if until is not None and t.tx_id > until:
                return
            lines = tuple((p.account_id, p.amount, p.reason) for p in t.postings)
            yield StoredTx(t.tx_id, t.event_seq, t.kind, lines)
        after = batch[-1].tx_id


def meter_balances(tx: Tx) -> MeterBalance:
    """A meter account's balance just before a transaction, from every meter posting."""
    return running_balances(meter_postings(tx))


def running_balances(postings: dict[str, list[tuple[int, int]]]) -> MeterBalance:
    """``(account, tx_id)`` → the account's balance before ``tx_id``, from its postings
    ``[(tx_id, amount), …]`` in transaction order (plus an opening balance at ``tx_id`` 0)."""
    ids: dict[str, list[int]] = {}
    sums: dict[str, list[int]] = {}
    for account, rows in postings.items():
        total, id_list, sum_list = 0, [], []
        for tx_id, amount in rows:
            total += amount
            id_list.append(tx_id)
            sum_list.append(total)
        ids[account], sums[account] = id_list, sum_list

    def before(account: str, tx_id: int) -> int | None:
        if account not in ids:
            return None
        i = bisect.bisect_left(ids[account], tx_id)
        return sums[account][i - 1] if i else 0

    return before
