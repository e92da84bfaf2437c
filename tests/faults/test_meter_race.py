"""Eight processes on one linked meter with simultaneous royal flushes (CSP-10, issue 9 item
8): every award is exact on the meter the one before left, the order is recorded (the meter's
hits), nothing is lost or paid twice. Asked of PostgreSQL (tables on several servers); the same
test runs on SQLite, whose writers are serial anyway."""

from __future__ import annotations

import multiprocessing
from typing import Any

from macau_tables.caribbean.events import RoundSettled
from macau_tables.jackpot import Combination
from macau_tables.store import Store, Tx
from tests.tables.support import CARIBBEAN_SEED, caribbean_rules, casino

from .invariants import check_database
from .royal import AWARDS, boxes_of, player, royal_worker, table_id

WORKERS = 8
CONTRIBUTION = 70  # 7/10 of each 100 jackpot wager (tests/tables/support.caribbean_rules)


def _context() -> Any:
    """A fork server that has imported the service once: eight workers start in a blink."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["tests.faults.royal"])
    return ctx


def test_eight_processes_hitting_royal_flushes_at_once_are_paid_exactly_in_a_recorded_order_CSP_10(
    store: Store,
) -> None:
    rules = caribbean_rules(jackpot_fixed_awards=AWARDS)
    casino(store, {table_id(i): ("caribbean", rules, True) for i in range(WORKERS)})
    m0 = store.read(lambda tx: tx.meter_amount("m-car"))
    url = store.raw_url.render_as_string(hide_password=False)
    ctx = _context()
    barrier = ctx.Barrier(WORKERS)
    procs = [ctx.Process(target=royal_worker, args=(url, i, barrier)) for i in range(WORKERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=180)
    assert [p.exitcode for p in procs] == [0] * WORKERS

    def read(tx: Tx) -> tuple[Any, ...]:
        hits = list(reversed(tx.hits("m-car", last=25)))  # oldest first
        settled = {}
        for i in range(WORKERS):
            events = [r.decode(tx.config_resolver()) for r in tx.read_events(table_id(i))]
            ends = [e for e in events if isinstance(e, RoundSettled)]
            assert len(ends) == 1, f"{table_id(i)} settled {len(ends)} times"
            settled[table_id(i)] = ends[0].settlement
        paid = [
            t.table_id
            for t in tx.transactions()
            if t.reason == "caribbean.RoundSettled" and t.table_id is not None
        ]
        return hits, settled, tx.meter_amount("m-car"), tx.meter("m-car"), paid

    hits, settled, after, meter, paid = store.read(read)
    # one hit per table, in the order the meter's lock gave them
    assert sorted(h.table_id for h in hits) == sorted(table_id(i) for i in range(WORKERS))
    assert [h.combination for h in hits] == [Combination.ROYAL_FLUSH.value] * WORKERS
    assert meter.hits == WORKERS
    assert paid == [h.table_id for h in hits]  # the ledger paid them in the meter's order
    # exact: each royal flush takes the whole meter — its table's contributions included —
    # and the meter restarts from its seed, funded by the house (CSP-10.2, CSP-10.8)
    index = {table_id(i): i for i in range(WORKERS)}
    expected = m0
    for h in hits:
        i = index[h.table_id]
        s = settled[h.table_id]
        expected += CONTRIBUTION * boxes_of(i)
        (award,) = s.jackpot.awards
        assert (h.box, h.amount) == (1, expected), f"{h.table_id} in the recorded order"
        assert (award.box, award.from_meter, award.from_house) == (1, expected, 0)
        assert s.jackpot.meter_before.amount == expected and s.jackpot.reset
        assert s.jackpot.seed_funding == CARIBBEAN_SEED
        won = [w for w in s.wagers if w.kind == "jackpot" and w.award]
        assert [(w.player, w.award) for w in won] == [(player(i, 1), expected)]
        expected = CARIBBEAN_SEED
    assert after == expected == CARIBBEAN_SEED
    summary = check_database(store)  # ledger zero, replay, verify: nothing lost or twice
    assert summary.total("settled") == WORKERS
    assert summary.total("jackpot_placed") == sum(boxes_of(i) for i in range(WORKERS))
