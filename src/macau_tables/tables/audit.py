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
(naming the check, the table and the record). Reads only: it works while a table is stopped by
a fault and while other processes play.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from ..store import ChainHead, Store, Tx
from ..store.history import meter_postings
from ..store.verify import BATCH, verify_tx
from .facts import check_facts
from .findings import Finding, from_store
from .rederive import Counts, LoggedEvent, MeterBalance, StoredTx, rederive_table

__all__ = [
    "Verified",
    "meter_balances",
    "running_balances",
    "table_events",
    "table_transactions",
    "verify_database",
    "verify_in",
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


def verify_database(store: Store, *, progress: Callable[[str], None] | None = None) -> Verified:
    """Verify ``store`` (see the module docstring); ``progress`` is told each table's id as
    its rounds are re-derived."""
    return store.read(lambda tx: verify_in(tx, progress=progress))


def verify_in(tx: Tx, *, progress: Callable[[str], None] | None = None) -> Verified:
    """:func:`verify_database` inside an open (read-only) transaction."""
    base = verify_tx(tx)
    start = Verified(
        None,
        tables=base.tables,
        events=base.events,
        transactions=base.transactions,
        shoes=base.shoes,
        accounts=base.accounts,
        meters=base.meters,
        audit=base.audit,
        voids=base.voids,
        legacy_voids=base.legacy_voids,
        heads=tx.chain_heads(),
    )
    if base.failure is not None:
        return replace(start, finding=from_store(base.failure))
    counts = Counts()
    balance = meter_balances(tx)
    found: Finding | None = None
    for table in sorted(tx.tables(), key=lambda t: t.table_id):
        if progress is not None:
            progress(table.table_id)
        found = rederive_table(
            table.table_id,
            table.game,
            table.meter_id,
            table_events(tx, table.table_id),
            table_transactions(tx, table.table_id),
            meter_balance=balance,
            counts=counts,
        )
        if found is not None:
            break
    if found is None:
        found = check_facts(tx)  # the settlement facts the reports read (.facts)
    return replace(
        start,
        finding=found,
        rounds=counts.rounds,
        settlements=counts.settlements,
        shoes=max(start.shoes, counts.shoes),
    )


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


def table_transactions(tx: Tx, table_id: str) -> Iterator[StoredTx]:
    """Every transaction naming ``table_id``, in id order, read a batch at a time."""
    after = 0
    while True:
        batch = tx.transactions(table_id=table_id, after=after, limit=BATCH)
        if not batch:
            return
        for t in batch:
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
