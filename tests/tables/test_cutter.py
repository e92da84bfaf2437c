"""BAC-2.1: a player at the table or the dealer cuts a new shoe, through the table service on
SQLite and PostgreSQL. A live dealer cuts as themselves (the one at the console); a player who
is not at the table (seated or betting in its latest round) is refused with the rule id and
nothing is recorded; a virtual shoe is cut by the virtual dealer, named as such."""

from __future__ import annotations

import random
from typing import Any

import pytest

from macau_tables.baccarat import shoe as S
from macau_tables.baccarat.bets import seat, standing
from macau_tables.baccarat.commands import DealCard, PlaceWager
from macau_tables.baccarat.dealing import VIRTUAL_DEALER, check_cutter, players_at_table
from macau_tables.baccarat.rules import ShoeSettings, WagerKind
from macau_tables.cards import new_shoe
from macau_tables.errors import RuleViolation
from macau_tables.rng import SeededRandom
from macau_tables.store import Store
from macau_tables.tables import OpenShoe

from .support import baccarat_rules, casino, open_round, service

_n = 0


def send(svc: Any, command: object, actor: str = "dealer-7") -> Any:
    global _n
    _n += 1
    return svc.submit(command, idempotency_key=f"cutter{_n}", actor=actor)


def _refused(store: Store, svc: Any, command: object, key: str, actor: str = "dealer-7") -> str:
    """``command`` refused with BAC-2.1 and ``key``, nothing written; the English text."""
    head = store.read(lambda tx: tx.chain_head("l1"))
    with pytest.raises(RuleViolation) as exc:
        send(svc, command, actor)
    assert (exc.value.rule, exc.value.key) == ("BAC-2.1", key)
    assert exc.value.text("zh-Hant") != exc.value.message
    assert store.read(lambda tx: tx.chain_head("l1")) == head
    return exc.value.message


def _cut_event(svc: Any) -> S.ShoeCut:
    cuts = [e for e in svc.state.deal.events if isinstance(e, S.ShoeCut)]
    assert len(cuts) == 1
    return cuts[0]


def test_the_cutter_of_a_live_shoe_is_the_dealer_or_a_player_at_the_table_BAC_2_1(
    store: Store,
) -> None:
    """A new table: nobody is at it yet, so a player's cut is refused (the message says the
    dealer cuts); the dealer naming someone else is refused; the dealer cutting as themselves
    is recorded. After a round where alice sat and bob bet standing, the next shoe is cut by
    either of them, and not by carol, who was at neither."""
    rules = baccarat_rules(shoe=ShoeSettings(decks=8, demo_rounds=0), card_holding=False)
    casino(store, {"l1": ("baccarat", rules, True)})
    svc = service(store, "l1")
    send(svc, OpenShoe())
    text = _refused(store, svc, S.Cut(S.Cutter.PLAYER, "p1", 200), "shoe.cutter_not_at_table")
    assert "p1" in text and "dealer" in text
    text = _refused(
        store, svc, S.Cut(S.Cutter.DEALER, "dealer-9", 200), "shoe.cutter_not_the_dealer"
    )
    assert "dealer-7" in text and "dealer-9" in text
    send(svc, S.Cut(S.Cutter.DEALER, "dealer-7", 200))
    assert (_cut_event(svc).cutter, _cut_event(svc).cutter_id) == (S.Cutter.DEALER, "dealer-7")
    send(svc, S.Burn((None,) * 8))

    open_round(svc, ((1, "p1"),))
    send(svc, PlaceWager("p1", seat(1), WagerKind.BANKER, 1_000), "p1")
    send(svc, PlaceWager("p2", standing(1), WagerKind.PLAYER, 1_000), "p2")
    order = list(new_shoe(8))
    random.Random(5).shuffle(order)
    while not svc.round.is_over:
        r, shoe = svc.round, svc.state.deal.shoe
        send(svc, DealCard(order[shoe.out + len(r.cards) + len(r.discarded)]))
    send(svc, S.ChangeShoe("new shoe"), "supervisor-1")
    send(svc, OpenShoe())
    _refused(store, svc, S.Cut(S.Cutter.PLAYER, "p3", 100), "shoe.cutter_not_at_table")
    send(svc, S.Cut(S.Cutter.PLAYER, "p2", 100))  # standing, with a wager: at the table
    assert (_cut_event(svc).cutter, _cut_event(svc).cutter_id) == (S.Cutter.PLAYER, "p2")
    # the seated player may cut too (checked without a database: the same function decides)
    assert players_at_table(svc.round) == frozenset({"p1", "p2"})
    check_cutter(svc.round, S.Cut(S.Cutter.PLAYER, "p1", 100), "dealer-7")
    svc.close()


def test_a_virtual_shoe_is_cut_by_the_virtual_dealer_BAC_2_1(store: Store) -> None:
    """A virtual table cuts its own shoes: the recorded cut names the dealer (the virtual
    dealer), never a player, shoe after shoe."""
    rules = baccarat_rules(shoe=ShoeSettings(decks=8, demo_rounds=0), card_holding=False)
    casino(store, {"l1": ("baccarat", rules, False)})
    svc = service(store, "l1", rng=SeededRandom(4))
    open_round(svc, ((1, "p1"),))
    cut = _cut_event(svc)
    assert (cut.cutter, cut.cutter_id) == (S.Cutter.DEALER, VIRTUAL_DEALER)
    svc.close()
