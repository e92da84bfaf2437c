"""Seats at a virtual table (BAC-15, BAC-16), on both databases: a player takes a free seat
and leaves it (``TakeSeat`` / ``LeaveSeat``, table events in the log); the round cycle opens
the next round with the table's seating (the seating is fixed when a round opens: a seat taken
during a round counts from the next); a restart keeps the seating; the card holder of a side
is the seated player with the largest wager of the round the cycle opened (BAC-16). Every
refusal names its rule and changes nothing."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables.baccarat.bets import seat, standing
from macau_tables.baccarat.commands import CloseBetting as BacClose
from macau_tables.baccarat.commands import PlaceWager
from macau_tables.baccarat.rules import WagerKind
from macau_tables.baccarat.sides import Side
from macau_tables.errors import MacauTablesError, RuleViolation
from macau_tables.rounds import DueKind
from macau_tables.store import Store
from macau_tables.store.verify import verify
from macau_tables.tables import LeaveSeat, SeatLeft, SeatTaken, TableError, TakeSeat
from macau_tables.tables.engine import restore, snapshot
from macau_tables.tables.storage import read_table

from .support import (
    PureTable,
    baccarat_rules,
    caribbean_rules,
    casino,
    close_betting,
    open_round,
    service,
)

_keys = itertools.count(1)


def send(svc: Any, command: object, actor: str) -> Any:
    return svc.submit(command, idempotency_key=f"seat-{next(_keys)}", actor=actor)


TABLES = {
    "b1": ("baccarat", baccarat_rules(), False),
    "bl": ("baccarat", baccarat_rules(), True),
    "c1": ("caribbean", caribbean_rules(), False),
}


def refused(svc: Any, command: object, actor: str, key: str) -> None:
    """``command`` is refused with ``key`` (BAC-15) and nothing is recorded."""
    head, seating = svc.state, svc.state.seating
    with pytest.raises(MacauTablesError) as info:
        send(svc, command, actor)
    assert info.value.key == key
    assert svc.state.seating == seating and svc.state.rounds == head.rounds


def test_players_take_and_leave_seats_and_the_next_round_is_seated_so_BAC_15(
    store: Store,
) -> None:
    casino(store, TABLES)
    svc = service(store, "b1")
    open_round(svc)  # the first round: nobody seated
    assert svc.round.seated == () and svc.state.seating is None
    done = send(svc, TakeSeat("p1", 3), "p1")
    assert any("SeatTaken" in e for e in done.events)
    send(svc, TakeSeat("p2", 1), "p2")
    assert svc.state.seating == ((1, "p2"), (3, "p1"))
    # BAC-15: the seating is fixed at the opening; the round in play keeps its own.
    assert svc.round.seated == ()
    with pytest.raises(RuleViolation) as early:  # not p1's seat yet
        send(svc, PlaceWager("p1", seat(3), WagerKind.BANKER, 1000), "p1")
    assert early.value.rule == "BAC-15"
    send(svc, PlaceWager("p1", standing(1), WagerKind.BANKER, 1000), "p1")
    close_betting(svc, BacClose())
    finish(svc)
    open_round(svc)
    assert svc.round.seated == ((1, "p2"), (3, "p1"))
    send(svc, PlaceWager("p1", seat(3), WagerKind.BANKER, 1000), "p1")
    send(svc, LeaveSeat("p2"), "p2")
    assert svc.state.seating == ((3, "p1"),)
    assert svc.round.seated == ((1, "p2"), (3, "p1"))  # p2 leaves from the next round
    close_betting(svc, BacClose())
    finish(svc)
    open_round(svc)
    assert svc.round.seated == ((3, "p1"),)
    # The state the log rebuilds is the live one (the seating included); verify passes.
    assert store.read(lambda tx: read_table(tx, "b1")).state == svc.state
    found = verify(store)
    assert found.ok, found.failure


def finish(svc: Any) -> None:
    """Let the round's time-outs run until it is over (BAC-16's holders time out)."""
    for _ in range(20):
        if svc.round.is_over:
            return
        svc.clock.advance(30)  # past the holders' 20 s (BAC-16.2)
        svc.tick()
    raise AssertionError("the round did not end")


def test_every_seat_refusal_names_BAC_15_and_changes_nothing(store: Store) -> None:
    casino(store, TABLES)
    svc = service(store, "b1")
    seats = svc.state.rules.seats
    send(svc, TakeSeat("p1", 2), "p1")
    for wrong in (0, seats + 1, -1):
        refused(svc, TakeSeat("p3", wrong), "p3", "tables.seat_out_of_range")
    refused(svc, TakeSeat("p3", 2), "p3", "tables.seat_taken")
    refused(svc, TakeSeat("p1", 4), "p1", "tables.already_seated")
    refused(svc, LeaveSeat("p3"), "p3", "tables.not_seated")
    with pytest.raises(RuleViolation) as info:
        send(svc, TakeSeat("p3", 2), "p3")
    assert info.value.rule == "BAC-15"
    # A game whose boxes are taken by the wagers (Caribbean Stud's by the antes) has no seats.
    csp = service(store, "c1")
    refused(csp, TakeSeat("p1", 1), "p1", "tables.no_seats")
    # A live table's dealer seats the players in OpenRound (the command's MODES).
    live = service(store, "bl")
    with pytest.raises(TableError) as mode:
        send(live, TakeSeat("p1", 1), "p1")
    assert mode.value.key == "tables.mode_refuses"
    send(svc, LeaveSeat("p1"), "p1")
    assert svc.state.seating == ()
    send(svc, TakeSeat("p1", 4), "p1")  # once left, another seat may be taken


def test_a_restart_keeps_the_seating_and_old_snapshots_load_with_none_BAC_15(
    store: Store,
) -> None:
    casino(store, TABLES)
    svc = service(store, "b1")
    send(svc, TakeSeat("p1", 5), "p1")
    send(svc, TakeSeat("p2", 6), "p2")
    send(svc, LeaveSeat("p2"), "p2")
    again = service(store, "b1")  # a new service on the same store, as after kill -9
    assert again.state.seating == ((5, "p1"),)
    open_round(again)
    assert again.round.seated == ((5, "p1"),)
    dealing = again.dealing
    data = snapshot(again.state, dealing)
    back = restore(again.setup, again.state.rules, data, dealing, lambda _: again.state.rules)
    assert back.seating == ((5, "p1"),)
    data.pop("seating")
    assert (
        restore(again.setup, again.state.rules, data, dealing, lambda _: again.state.rules).seating
        is None
    )
    kinds = [type(e) for e in again.state.round.events]
    assert SeatTaken not in kinds and SeatLeft not in kinds  # table events, in no round


def test_the_card_holder_is_the_seated_player_with_the_largest_wager_BAC_16(
    store: Store,
) -> None:
    """BAC-16: at a virtual table the players took their seats; the cycle opened the round
    with them; the holder of a side is the seated player with the largest wager on it (a
    standing player's larger wager does not count)."""
    casino(store, TABLES)
    svc = service(store, "b1")
    send(svc, TakeSeat("p1", 1), "p1")
    send(svc, TakeSeat("p2", 2), "p2")
    open_round(svc)
    assert svc.round.seated == ((1, "p1"), (2, "p2"))
    send(svc, PlaceWager("p1", seat(1), WagerKind.BANKER, 1000), "p1")
    send(svc, PlaceWager("p2", seat(2), WagerKind.BANKER, 3000), "p2")
    send(svc, PlaceWager("p3", standing(1), WagerKind.BANKER, 9000), "p3")
    send(svc, PlaceWager("p1", seat(1), WagerKind.PLAYER, 2000), "p1")
    assert svc.round.holder(Side.BANKER) == "p2"
    assert svc.round.holder(Side.PLAYER) == "p1"
    close_betting(svc, BacClose())
    due = svc.expected().due
    if due and due[0].kind is DueKind.REVEAL:  # (a demonstration round deals no holder)
        assert due[0].player in {"p1", "p2"}


_PLAYERS = ("p1", "p2", "p3")
_SEATS = baccarat_rules().seats
_ACTS = st.lists(
    st.one_of(
        st.tuples(st.just("take"), st.sampled_from(_PLAYERS), st.integers(-1, _SEATS + 1)),
        st.tuples(st.just("leave"), st.sampled_from(_PLAYERS), st.just(0)),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(acts=_ACTS)
def test_any_sequence_of_seat_commands_keeps_one_player_per_seat_BAC_15(
    acts: list[tuple[str, str, int]],
) -> None:
    """BAC-15 (pure engine, no database): whatever players try, each seat holds at most one
    player and each player at most one seat; an accepted command does what it says, a refused
    one changes nothing; the log rebuilds the same seating."""
    table = PureTable("baccarat", baccarat_rules())
    model: dict[int, str] = {}
    for act, player, number in acts:
        before = table.state
        command = TakeSeat(player, number) if act == "take" else LeaveSeat(player)
        try:
            table.run(command)
        except RuleViolation as exc:
            assert exc.rule == "BAC-15"
            assert table.state == before
            continue
        if act == "take":
            assert 1 <= number <= _SEATS and number not in model
            assert player not in model.values()
            model[number] = player
        else:
            mine = [n for n, p in model.items() if p == player]
            assert mine
            del model[mine[0]]
        assert table.state.seating == tuple(sorted(model.items()))
    assert table.reloaded().seating == table.state.seating
