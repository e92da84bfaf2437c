"""The service's clock (a fake one here): the decision time-out of CSP-6.4 and the card holding
time-out of BAC-16, issued by ``tick`` from the table's settings."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.commands import CloseBetting as BacClose
from macau_tables.baccarat.commands import PlaceWager
from macau_tables.baccarat.events import CardsRevealed, RevealTimedOut
from macau_tables.baccarat.rules import WagerKind
from macau_tables.caribbean.commands import CloseBetting, PlaceAnte, Raise
from macau_tables.caribbean.events import DecisionMade
from macau_tables.errors import ConfigError
from macau_tables.rounds import DEALER, DueKind
from macau_tables.store import Store
from macau_tables.tables import ClearFault, FakeClock, ReportFault, opening_date

from .support import (
    START,
    baccarat_rules,
    caribbean_rules,
    casino,
    close_betting,
    open_round,
    send,
    service,
)


def test_an_absent_player_s_hand_is_folded_when_the_decision_timer_runs_out_CSP_6_4(
    store: Store,
) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(decision_timeout_seconds=30), False)})
    clock = FakeClock(START)
    svc = service(store, "c1", clock)
    open_round(svc)
    send(svc, PlaceAnte(1, "p1", 100), "p1")
    send(svc, PlaceAnte(2, "p2", 200), "p2")
    close_betting(svc, CloseBetting())  # the decisions are due from now
    assert svc.next_deadline() == START + timedelta(seconds=30)
    clock.advance(10)
    send(svc, Raise(1, "p1", 200), "p1")
    assert svc.next_deadline() == START + timedelta(seconds=30)  # box 2's timer kept running
    clock.advance(19)
    assert svc.tick() == []
    clock.advance(1)
    issued = svc.tick()
    assert len(issued) == 1 and issued[0].events[0] == "caribbean.DecisionMade"
    r = svc.round
    assert r.is_over and r.box(2).timed_out and not r.box(1).timed_out
    made = [e for e in r.events if isinstance(e, DecisionMade)]
    assert [(e.box, e.timed_out) for e in made] == [(1, False), (2, True)]
    # what runs next is the round cycle's result pause before the next round
    assert svc.tick() == []
    assert svc.next_deadline() == clock.now() + timedelta(seconds=svc.state.rules.result_seconds)
    audit = store.read(lambda tx: tx.read_events("c1"))
    assert any(r.type == "caribbean.RoundSettled" for r in audit)


def test_time_outs_are_not_issued_while_a_fault_is_in_force(store: Store) -> None:
    casino(store, {"b1": ("baccarat", baccarat_rules(), False)})
    clock = FakeClock(START)
    svc = service(store, "b1", clock)
    open_round(svc, ((1, "p1"),))
    send(svc, ReportFault("card reader failure"), "supervisor")
    clock.advance(3600)
    assert svc.tick() == []


def test_a_held_round_s_decision_timer_stops_and_starts_afresh_once_cleared_CSP_6_4(
    store: Store,
) -> None:
    """A dealer's fault report holds the round (BAC-10, CSP-11.4): no box is folded by the
    decision timer while the table stands still; once a supervisor clears the fault the
    decisions get a fresh ``decision_timeout_seconds`` (as after a restart: the time the
    table stood still is not held against a player)."""
    casino(store, {"c1": ("caribbean", caribbean_rules(decision_timeout_seconds=30), False)})
    clock = FakeClock(START)
    svc = service(store, "c1", clock)
    open_round(svc)
    send(svc, PlaceAnte(1, "p1", 100), "p1")
    close_betting(svc, CloseBetting())
    clock.advance(20)
    send(svc, ReportFault("the dealer saw a card face up"), "dealer")
    assert svc.next_deadline() is None
    clock.advance(3600)
    assert svc.tick() == [] and not svc.round.is_over and not svc.round.box(1).decided
    send(svc, ClearFault("sup-1", "no card was exposed"), "sup-1")
    cleared = clock.now()
    assert svc.next_deadline() == cleared + timedelta(seconds=30)
    clock.advance(29)
    assert svc.tick() == []
    clock.advance(1)
    issued = svc.tick()
    assert len(issued) == 1 and svc.round.is_over and svc.round.box(1).timed_out


def play_until_a_holder_reveal(svc: Any) -> None:
    """Open rounds until one stops at a holder's reveal (BAC-16)."""
    for _ in range(20):
        open_round(svc, ((1, "p1"), (2, "p2")))
        send(svc, PlaceWager("p1", seat(1), WagerKind.BANKER, 2000), "p1")
        send(svc, PlaceWager("p2", seat(2), WagerKind.PLAYER, 1000), "p2")
        close_betting(svc, BacClose())
        due = svc.expected().due
        if due and due[0].kind is DueKind.REVEAL and due[0].player is not None:
            return
        assert svc.round.is_over
    pytest.fail("no round stopped at a holder's reveal")


def test_an_absent_card_holder_s_reveal_passes_to_the_dealer_BAC_16(store: Store) -> None:
    casino(store, {"b1": ("baccarat", baccarat_rules(holding_timeout_seconds=20), False)})
    clock = FakeClock(START)
    svc = service(store, "b1", clock)
    play_until_a_holder_reveal(svc)
    clock.advance(19)
    assert svc.tick() == []
    for _ in range(4):  # each of the holder's steps in turn (BAC-16.2), 20 s apiece
        if svc.round.is_over:
            break
        clock.advance(20)
        assert svc.tick()
    r = svc.round
    assert r.is_over and r.settlement is not None
    timed = [e for e in r.events if isinstance(e, RevealTimedOut)]
    by_dealer = [e for e in r.events if isinstance(e, CardsRevealed) and e.by is DEALER]
    assert timed and [e.step for e in timed] == [e.step for e in by_dealer]


def test_the_fake_clock_refuses_to_go_back_and_opening_dates_are_macau_dates() -> None:
    clock = FakeClock(START)
    with pytest.raises(ConfigError):
        clock.advance(-1)
    with pytest.raises(ConfigError):
        clock.set(START - timedelta(seconds=1))
    with pytest.raises(ConfigError):
        FakeClock(START.replace(tzinfo=None))
    assert opening_date(START.replace(hour=15, minute=59)).day == 5
    assert opening_date(START.replace(hour=16)).day == 6  # midnight in Macau (UTC+8)
