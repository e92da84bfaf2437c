"""A server that begins to serve several virtual tables whose next round is due at once spreads
their first openings over a round's cycle (``Settings.spread_openings``, the default of
``serve``): identical tables opened together would close, deal, settle and open together for
ever. On both databases, with the store's clock moved by the test: the first table opens at
once, the k-th of n at k/n of its cycle and not before; the countdown of a held table's round
is its rules' ``betting_seconds`` from its opening, as any round's; a restart while the rounds
take bets holds nothing; a round opened before its place ends the hold; with the setting off
every table opens at the first tick."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from tests.server.support import demo_casino, server_settings

from macau_tables.rounds import TableMode
from macau_tables.server.runtime import Runtime
from macau_tables.tables.clock import FakeClock
from macau_tables.tables.service import TableService


def _virtual(rt: Runtime) -> list[TableService]:
    """The virtual tables ``rt`` serves, in table order (the order of the spread)."""
    found = [rt.service(t) for t in sorted(rt.table_ids())]
    return [s for s in found if s.setup.mode is TableMode.VIRTUAL]


def _opened(services: list[TableService]) -> list[str]:
    return [s.table_id for s in services if s.state.round is not None]


def test_first_openings_spread_over_a_cycle_in_table_order(store: Any) -> None:
    demo_casino(store)
    clock = FakeClock()
    rt = Runtime(server_settings(spread_openings=True), store, clock=clock)
    rt.start()
    try:
        tables = _virtual(rt)
        n = len(tables)
        assert n >= 3, "the demonstration casino has several virtual tables"
        start = clock.now()
        rt.tick()
        assert _opened(tables) == [tables[0].table_id]  # the first at once
        for k, service in enumerate(tables[1:], start=1):
            due = start + timedelta(seconds=k * service.cycle_seconds() / n)
            clock.advance((due - clock.now()).total_seconds() - 0.001)
            rt.tick()
            assert service.state.round is None, f"{service.table_id} opened before its place"
            clock.advance(0.001)
            rt.tick()
            assert service.state.round is not None, f"{service.table_id} did not open at {due}"
            # its countdown is its rules' betting time from its opening, as any round's
            at = service.state.cycle.at()
            assert at == clock.now() + timedelta(seconds=service.state.rules.betting_seconds)
        assert _opened(tables) == [s.table_id for s in tables]
    finally:
        rt.stop()


def test_a_restart_while_the_rounds_take_bets_holds_nothing(store: Any) -> None:
    demo_casino(store)
    clock = FakeClock()
    first = Runtime(server_settings(spread_openings=False), store, clock=clock)
    first.start()
    try:
        first.tick()
        assert len(_opened(_virtual(first))) == len(_virtual(first))
    finally:
        first.stop()
    clock.advance(1)
    again = Runtime(server_settings(spread_openings=True), store, clock=clock)
    again.start()
    try:
        tables = _virtual(again)
        assert not any(s.opening_due() for s in tables)
        closes: dict[str, datetime | None] = {s.table_id: s.state.cycle.at() for s in tables}
        at = min(t for t in closes.values() if t is not None)
        clock.advance((at - clock.now()).total_seconds())
        again.tick()  # the countdown that ends first closes on time: nothing was held
        ended = [s.table_id for s in tables if closes[s.table_id] == at]
        assert all(again.service(t).state.cycle.at() != at for t in ended)
    finally:
        again.stop()


def test_with_the_spread_off_every_table_opens_at_the_first_tick(store: Any) -> None:
    demo_casino(store)
    rt = Runtime(server_settings(spread_openings=False), store, clock=FakeClock())
    rt.start()
    try:
        rt.tick()
        tables = _virtual(rt)
        assert _opened(tables) == [s.table_id for s in tables]
    finally:
        rt.stop()


def test_a_round_opened_before_its_place_ends_the_hold(store: Any) -> None:
    """An opening held for its place in the spread is held once: when a round of the table
    opens before then (``cycle_step``, a wake), the next opening is not held."""
    demo_casino(store)
    clock = FakeClock()
    rt = Runtime(server_settings(spread_openings=True), store, clock=clock)
    rt.start()
    try:
        held = _virtual(rt)[-1]
        assert held.state.round is None
        rt.tick()
        assert held.state.round is None and held._held_until() is not None
        held.cycle_step()  # opened at once, before its place
        assert held.state.round is not None
        assert held._held_until() is None
    finally:
        rt.stop()
