"""The linked progressive jackpot through the service (CSP-1, CSP-10, BAC-17) on SQLite and
PostgreSQL: tables sharing one meter are paid, one after the other, on the meter the one before
left; contributions are deltas; the meter's history records the hits in order; parameter
changes wait for the next hit; meter changes are published to every table on the meter."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from macau_tables.cards import Card
from macau_tables.caribbean.commands import (
    CloseBetting,
    DealCard,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
)
from macau_tables.errors import MacauTablesError
from macau_tables.rounds import DEALER, Audience
from macau_tables.store import Store
from macau_tables.tables import MeterUpdate, OpenRound

from .support import (
    AWARDS,
    CARIBBEAN_SEED,
    DEALER_JUNK,
    award_of,
    caribbean_rules,
    casino,
    deal_a_straight_flush,
    ledger_total,
    send,
    service,
)

CONTRIBUTION = 70  # 7/10 of a 100 jackpot wager (support.caribbean_rules)


def two_live_tables(store: Store) -> tuple[Any, Any]:
    rules = caribbean_rules(jackpot_fixed_awards=AWARDS)
    casino(store, {"L1": ("caribbean", rules, True), "L2": ("caribbean", rules, True)})
    return service(store, "L1"), service(store, "L2")


def meter_amount(store: Store) -> int:
    return store.read(lambda tx: tx.meter_amount("m-car"))


def test_two_tables_on_one_meter_are_paid_on_the_meter_the_one_before_left_CSP_10(
    store: Store,
) -> None:
    a, b = two_live_tables(store)
    store.run(
        lambda tx: tx.set_meter_params(
            "m-car", params={"display": "new"}, actor="manager", reason="after the next hit"
        )
    )
    deal_a_straight_flush(a, "p1")
    deal_a_straight_flush(b, "p2")
    m0 = meter_amount(store)
    assert m0 == CARIBBEAN_SEED  # nothing settled yet: the wagers are in play
    send(a, Raise(1, "p1", 200), "p1")
    first = (m0 + CONTRIBUTION) // 10  # CSP-10.2/10.6: 10 % of the meter, rounded down
    assert award_of(a) == first
    left = m0 + CONTRIBUTION - first
    assert meter_amount(store) == left
    meter = store.read(lambda tx: tx.meter("m-car"))
    assert meter.params == {"display": "new"} and meter.params_pending is None
    send(b, Raise(1, "p2", 200), "p2")
    second = (left + CONTRIBUTION) // 10  # on what the first hit left
    assert award_of(b) == second
    assert meter_amount(store) == left + CONTRIBUTION - second
    hits = store.read(lambda tx: tx.hits("m-car"))
    assert [(h.table_id, h.amount, h.combination) for h in hits] == [
        ("L2", second, "straight_flush"),
        ("L1", first, "straight_flush"),
    ]
    assert ledger_total(store) == 0


def test_two_tables_hitting_at_once_are_paid_one_after_the_other_exactly(store: Store) -> None:
    a, b = two_live_tables(store)
    deal_a_straight_flush(a, "p1")
    deal_a_straight_flush(b, "p2")
    m0 = meter_amount(store)
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def hit(svc: Any, player: str) -> None:
        try:
            start.wait()
            send(svc, Raise(1, player, 200), player)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=hit, args=(a, "p1")),
        threading.Thread(target=hit, args=(b, "p2")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    hits = store.read(lambda tx: tx.hits("m-car"))
    order = [h.table_id for h in reversed(hits)]  # the recorded order, first hit first
    first_svc, second_svc = (a, b) if order == ["L1", "L2"] else (b, a)
    first = award_of(first_svc)
    second = award_of(second_svc)
    # the first was paid on the meter with its own contribution (the other's may have come in
    # first as a delta, without a hit: both orders of the deltas are exact)
    candidates = {(m0 + CONTRIBUTION) // 10, (m0 + 2 * CONTRIBUTION) // 10}
    assert first in candidates
    assert second == (m0 + 2 * CONTRIBUTION - first) // 10
    assert meter_amount(store) == m0 + 2 * CONTRIBUTION - first - second
    assert ledger_total(store) == 0


def test_meter_changes_are_published_to_every_table_on_the_meter(store: Store) -> None:
    a, b = two_live_tables(store)
    seen: list[MeterUpdate] = []
    b.subscribe(Audience.public(), lambda u: seen.append(u) if isinstance(u, MeterUpdate) else None)
    deal_a_straight_flush(a, "p1")
    send(a, Raise(1, "p1", 200), "p1")
    deadline = time.monotonic() + 10  # PostgreSQL NOTIFY arrives on the listener's thread
    while not seen and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seen and seen[-1] == MeterUpdate("m-car", meter_amount(store))
    assert b.meter_link == (True, None)


@pytest.mark.parametrize("jackpot", [True, False])
def test_a_round_with_no_jackpot_wager_leaves_the_meter_alone(store: Store, jackpot: bool) -> None:
    a, _ = two_live_tables(store)
    send(a, OpenRound())
    send(a, PlaceAnte(1, "p1", 100), "p1")
    if jackpot:
        send(a, PlaceJackpotWager(1, "p1"), "p1")
    send(a, CloseBetting())
    box, dealer = ["2h", "7c", "9d", "Js", "Kh"], list(DEALER_JUNK)
    while a.expected().due[0].kind.value == "card":
        to = a.expected().due[0].position
        send(a, DealCard(Card.parse((dealer if to is DEALER else box).pop(0))))
    send(a, Raise(1, "p1", 200), "p1")
    assert meter_amount(store) == CARIBBEAN_SEED + (CONTRIBUTION if jackpot else 0)
    assert store.read(lambda tx: tx.hits("m-car")) == []


def test_after_a_hit_brings_in_a_new_seed_a_jackpot_round_waits_and_the_table_says_so(
    store: Store,
) -> None:
    a, b = two_live_tables(store)
    store.run(
        lambda tx: tx.set_meter_params("m-car", seed=2_000_000, actor="manager", reason="raise")
    )
    deal_a_straight_flush(a, "p1")
    deal_a_straight_flush(b, "p2")
    send(a, Raise(1, "p1", 200), "p1")  # the hit: the new seed is in force from now on
    assert store.read(lambda tx: tx.meter("m-car")).seed == 2_000_000
    send(b, Raise(1, "p2", 200), "p2")  # the player's raise is taken; the showdown waits
    assert not b.round.is_over and b.expected().due[0].kind.value == "settlement"
    up, reason = b.meter_link
    assert not up and reason is not None and "2000000" in reason
    with pytest.raises(MacauTablesError) as exc:  # and jackpot wagers are refused, saying so
        send(b, PlaceJackpotWager(2, "p3"), "p3")
    assert exc.value.key == "tables.meter_link_down"
    assert ledger_total(store) == 0
