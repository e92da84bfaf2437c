"""The rounds' ends a daily report counts (``report``: rounds, voided), read through the
partial index of schema v11, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from macau_tables.store import Store
from macau_tables.store.history import round_end_counts
from tests.store.support import behind_the_back, events, setup

DAY = datetime(2026, 1, 4, 16, 0, tzinfo=UTC)


def test_only_settlements_and_voids_of_the_table_in_the_range_are_counted(store: Store) -> None:
    setup(store)
    for n, at in enumerate((DAY - timedelta(seconds=1), DAY, DAY + timedelta(hours=23)), 1):
        store.clock = lambda at=at: at
        store.run(lambda tx, n=n: tx.append_events("t1", events(4, f"r{n}"), round_id=f"r{n}"))
    # seq 1-4 before the day, 5-8 at its start, 9-12 late in it: a round end in each batch,
    # a void in the day; the other events (opened, dealt) are never counted.
    for seq, kind in ((4, "RoundSettled"), (8, "RoundSettled"), (11, "RoundVoided")):
        behind_the_back(
            store,
            "UPDATE events SET type = :t WHERE table_id = 't1' AND seq = :s",
            t=f"toy.{kind}",
            s=seq,
        )
    behind_the_back(store, "UPDATE events SET type = 'toy.RoundSettledNot' WHERE seq = 12")

    def counts(start: datetime | None, end: datetime | None) -> dict[str, int]:
        return store.read(lambda tx: round_end_counts(tx, "t1", start, end))

    day = counts(DAY, DAY + timedelta(days=1))
    assert day == {"toy.RoundSettled": 1, "toy.RoundVoided": 1}
    assert counts(None, DAY) == {"toy.RoundSettled": 1}
    assert counts(None, None) == {"toy.RoundSettled": 2, "toy.RoundVoided": 1}
    assert counts(DAY + timedelta(days=1), None) == {}
    assert store.read(lambda tx: round_end_counts(tx, "elsewhere", None, None)) == {}
