"""Workers of the multi-process tests: importable by a spawned child without the game
packages (a child starts in well under a second)."""

from __future__ import annotations

from typing import Any

from macau_tables.ledger import Account, AccountKind, Posting, Reason
from macau_tables.store import Store, Tx, TxKind


def contribution(amount: int) -> tuple[Posting, ...]:
    """A meter contribution (from house funding, so it can be repeated at will)."""
    return (
        Posting(Account(AccountKind.HOUSE_FUNDING), -amount, Reason.CONTRIBUTION),
        Posting(Account(AccountKind.JACKPOT_METER), amount, Reason.CONTRIBUTION),
    )


def contribute(store: Store, amount: int, *, meter_id: str = "m-1") -> int | None:
    """Post one contribution to ``meter_id`` in its own transaction."""
    return store.run(lambda tx: tx.post(contribution(amount), kind=TxKind.ROUND, meter_id=meter_id))


def contribute_worker(url: str, times: int, amount: int, start: Any = None) -> None:
    """In a child process: open the store and post ``times`` contributions of ``amount``."""
    store = Store.open(url)
    try:
        if start is not None:
            start.wait()
        for _ in range(times):
            contribute(store, amount)
    finally:
        store.close()


def pay_tenth(tx: Tx, box: int) -> int:
    """Award 10 % of the meter (read under its lock) to alice and record the hit; returns it."""
    meter = tx.meter_amount("m-1", lock=True)
    amount = meter // 10
    tx.post(
        (
            Posting(Account(AccountKind.JACKPOT_METER), -amount, Reason.AWARD),
            Posting(Account.wallet("alice"), amount, Reason.AWARD),
        ),
        kind=TxKind.ROUND,
        table_id="t1",
        meter_id="m-1",
    )
    tx.record_hit(
        "m-1",
        table_id="t1",
        round_id=f"r{box}",
        box=box,
        combination="straight_flush",
        amount=amount,
    )
    return amount


def award_worker(url: str, box: int, start: Any = None) -> None:
    """In a child process: one straight flush paid 10 % of the meter."""
    store = Store.open(url)
    try:
        if start is not None:
            start.wait()
        store.run(lambda tx: pay_tenth(tx, box))
    finally:
        store.close()
