"""With ``group_cycle_steps`` the server's clock takes the round cycle's steps due at every table
in ONE transaction (a group of the group commit, tables/group.py): the openings of many virtual
tables due at one tick commit together, so their players see them and bet at once (off, the
default, a transaction each). On both databases, with the
store's clock moved by the test and the store counting its write transactions: each table's
log has its own events (its own seq range, its hash chain), every table's countdown ends at
the same time (the steps run at the tick's time), the counters count each opening as the step
run alone would, and a step no longer due when its group reaches it (a supervisor
paused the cycle meanwhile) writes nothing and is refused to nobody. The leases of every table
the server serves renew in one transaction too, once any is due."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from tests.server.support import demo_casino, server_settings
from tests.tables.support import CountingStore

from macau_tables.rounds import TableMode
from macau_tables.server.runtime import Runtime
from macau_tables.tables import cycle
from macau_tables.tables.audit import verify_database
from macau_tables.tables.clock import FakeClock
from macau_tables.tables.group import Request, committer
from macau_tables.tables.model import OpenRound, PauseCycle
from macau_tables.tables.service import CycleMoved, TableService


class _Ticking(FakeClock):
    """A clock that moves on a millisecond at every reading (each step of a group would see
    its own time)."""

    def now(self) -> datetime:
        self.advance(0.001)
        return super().now()


def _virtual(rt: Runtime) -> list[TableService]:
    found = [rt.service(t) for t in sorted(rt.table_ids())]
    return [s for s in found if s.setup.mode is TableMode.VIRTUAL]


@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "one_by_one"])
def test_the_openings_due_at_one_tick_commit_in_one_transaction(store: Any, grouped: bool) -> None:
    """``group_cycle_steps``: one transaction for every table's opening, at the tick's time;
    off (the default), a transaction each, each at its own time."""
    demo_casino(store)
    counting = CountingStore(store)
    # no idempotency pruning: the tick's only writes are then the openings
    settings = server_settings(idempotency_days=0, group_cycle_steps=grouped)
    rt = Runtime(settings, counting, clock=_Ticking())
    rt.start()
    try:
        tables = _virtual(rt)
        assert len(tables) >= 3, "the demonstration casino has several virtual tables"
        heads = {s.table_id: s._seq for s in tables}
        before = counting.writes
        done = rt.tick()
        # one COMMIT for every table's opening, or one each
        assert counting.writes - before == (1 if grouped else len(tables))
        assert all(s.state.round is not None for s in tables)
        assert sorted(d.table_id for d in done) == [s.table_id for s in tables]
        for d in done:  # each table's own events, after its own head
            assert d.first_seq == heads[d.table_id] + 1 and d.last_seq >= d.first_seq
        # grouped, stepped at the tick's time: every countdown starts then (tables of one
        # configuration close at one tick); one by one, each at its own
        starts = {
            s.state.cycle.at() - timedelta(seconds=s.state.rules.betting_seconds) for s in tables
        }
        assert len(starts) == (1 if grouped else len(tables))
        accepted = rt.counters.snapshot()["accepted"]
        assert all(accepted[(s.table_id, OpenRound.__name__)] == 1 for s in tables)
        before = counting.writes
        assert rt.tick() == []  # nothing more due: nothing written
        assert counting.writes == before
    finally:
        rt.stop()
        counting.close()
    found = verify_database(store)
    assert found.ok, found.finding


def test_a_step_no_longer_due_when_its_group_runs_writes_nothing(store: Any) -> None:
    demo_casino(store)
    rt = Runtime(server_settings(idempotency_days=0), store, clock=FakeClock())
    rt.start()
    try:
        svc = _virtual(rt)[0]
        steps: list[Request] = []
        assert svc.tick(defer=steps) == []
        assert len(steps) == 1 and steps[0].note[0] is cycle.Action.OPEN
        seq = svc._seq
        # the supervisor pauses the cycle before the clock's group reaches the step
        svc.submit(PauseCycle("sam", "checking the screens"), idempotency_key="p", actor="sam")
        paused = svc._seq
        assert paused > seq
        committer(store, None).submit_many(steps)
        with pytest.raises(CycleMoved):
            svc.cycle_answered(steps[0])
        assert svc._seq == paused and svc.state.round is None
        assert not any(k[1] == OpenRound.__name__ for k in rt.counters.snapshot()["accepted"])
    finally:
        rt.stop()


def test_the_leases_of_every_table_served_renew_in_one_transaction(store: Any) -> None:
    demo_casino(store)
    counting = CountingStore(store)
    clock = FakeClock()
    rt = Runtime(server_settings(idempotency_days=0), counting, clock=clock)
    rt.start()
    try:
        served = [rt.service(t) for t in sorted(rt.table_ids())]
        assert len(served) >= 3
        for s in served:  # no round cycle moves: the tick's only writes are the leases'
            if s.setup.mode is TableMode.VIRTUAL:
                s.submit(
                    PauseCycle("sam", "leases"), idempotency_key=f"p-{s.table_id}", actor="sam"
                )
        assert len({s.lease.until for s in served}) > 1  # their first renewals staggered
        clock.advance(rt.settings.lease_seconds / 2)
        before = counting.writes
        rt.tick()
        assert counting.writes - before == 1
        assert {s.lease.until for s in served} == {
            clock.now() + timedelta(seconds=rt.settings.lease_seconds)
        }
        clock.advance(1)
        before = counting.writes
        rt.tick()
        assert counting.writes == before  # none due
    finally:
        rt.stop()
        counting.close()
