"""Eight processes, one meter, simultaneous royal flushes (no tests here: the worker and its
builders, importable by a spawned child).

Each worker process opens its own live Caribbean Stud table (the cards come from the dealer
console, checked by the round: no rigged source is needed) linked to the one meter, plays a
round up to the last decision — box 1 holds a royal flush with its jackpot wager, boxes 2..n
junk hands with jackpot wagers too (so each table contributes ``n`` wagers' shares) — then
waits at a barrier shared by all the workers and sends that last decision: the showdown, the
contributions and the award are settled by the service in one transaction, on the meter read
under its lock, all eight at once.
"""

from __future__ import annotations

from typing import Any

from macau_tables.cards import Card
from macau_tables.caribbean.commands import (
    CloseBetting,
    DealCard,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
)
from macau_tables.caribbean.rules import JackpotFixedAwards
from macau_tables.rounds import DEALER, DueKind
from macau_tables.store import Store
from macau_tables.tables import OpenRound, TableService

ROYAL = ("As", "Ks", "Qs", "Js", "Ts")
DEALER_HAND = ("2c", "3d", "4s", "Jc", "Kd")  # king high: does not qualify
JUNK = (  # no pair, no straight, no flush: nothing the jackpot pays
    ("2h", "4c", "6d", "8s", "Th"),
    ("3h", "5c", "7d", "9s", "Jh"),
    ("2d", "5h", "7c", "9d", "Qh"),
)
AWARDS = JackpotFixedAwards(
    royal_flush=0, straight_flush=0, four_of_a_kind=50_000, full_house=15_000, flush=10_000
)
"""Royal flush: 100 % of the meter (no fixed award above it), CSP-10.2."""


def boxes_of(index: int) -> int:
    """How many boxes (each with a jackpot wager) table ``index`` plays: 1 to 4."""
    return index % 4 + 1


def table_id(index: int) -> str:
    """The id of worker ``index``'s table."""
    return f"L{index + 1}"


def player(index: int, box: int) -> str:
    """Who plays ``box`` at table ``index`` (p1..p7, spread over the tables)."""
    return f"p{(index + box - 1) % 7 + 1}"


def _send(svc: TableService, command: object, key: str, actor: str) -> Any:
    return svc.submit(command, idempotency_key=f"{svc.table_id}:{key}", actor=actor)


def play_to_last_decision(svc: TableService, index: int) -> Raise:
    """Open a round at ``svc``'s live table, ante and jackpot-wager every box, deal box 1 a
    royal flush and the others junk, make every decision but the last; returns the last."""
    n = boxes_of(index)
    _send(svc, OpenRound(), "open", "dealer")
    for box in range(1, n + 1):
        who = player(index, box)
        _send(svc, PlaceAnte(box, who, 100), f"ante{box}", who)
        _send(svc, PlaceJackpotWager(box, who), f"jackpot{box}", who)
    _send(svc, CloseBetting(), "close", "dealer")
    hands = {DEALER: list(DEALER_HAND), 1: list(ROYAL)}
    for box in range(2, n + 1):
        hands[box] = list(JUNK[box - 2])
    dealt = 0
    while (due := svc.expected()) is not None and due.due and due.due[0].kind is DueKind.CARD:
        to = due.due[0].position
        dealt += 1
        _send(svc, DealCard(Card.parse(hands[to].pop(0))), f"card{dealt}", "dealer")
    decisions = [Raise(box, player(index, box), 200) for box in range(1, n + 1)]
    for d in decisions[:-1]:
        _send(svc, d, f"decide{d.box}", d.player)
    return decisions[-1]


def royal_worker(url: str, index: int, barrier: Any) -> None:
    """In a child process: play table ``index`` to its last decision, wait for every worker,
    then send it (the settlement pays the royal flush from the shared meter)."""
    store = Store.open(url)
    try:
        svc = TableService(store, table_id(index), owner=f"royal:{index}")
        last = play_to_last_decision(svc, index)
        barrier.wait(timeout=120)
        _send(svc, last, "last", last.player)
        svc.close()
    finally:
        store.close()
