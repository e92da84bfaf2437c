"""CSP-3(1): at a live Caribbean Stud table whose deck is shuffled by hand (dealing procedure
the shoe), the dealer records the hand shuffle and the cut of each round's deck before its first
card; a card is refused until then (CSP-3, nothing written). A table with the shuffling machine
has no cut to record (CSP-3(2)); a virtual table none at all (live only). Through the table
service on SQLite and PostgreSQL, across a restart."""

from __future__ import annotations

from typing import Any

import pytest

from macau_tables.cards import Card
from macau_tables.caribbean import (
    CloseBetting,
    DealCard,
    DealingProcedure,
    Fold,
    PlaceAnte,
    ShuffleAndCut,
)
from macau_tables.errors import MacauTablesError, RuleViolation
from macau_tables.rng import SeededRandom
from macau_tables.store import Store
from macau_tables.tables.audit import verify_database

from .support import caribbean_rules, casino, close_betting, ledger_total, open_round, service

_n = 0


def send(svc: Any, command: object, actor: str = "dealer-3") -> Any:
    global _n
    _n += 1
    return svc.submit(command, idempotency_key=f"hs{_n}", actor=actor)


def _refused(store: Store, svc: Any, command: object, rule: str, key: str) -> MacauTablesError:
    head = store.read(lambda tx: tx.chain_head(svc.table_id))
    with pytest.raises(MacauTablesError) as exc:
        send(svc, command)
    assert exc.value.key == key
    if isinstance(exc.value, RuleViolation):
        assert exc.value.rule == rule
    assert store.read(lambda tx: tx.chain_head(svc.table_id)) == head
    return exc.value


def _open(svc: Any) -> None:
    open_round(svc)
    send(svc, PlaceAnte(1, "p1", 100), "p1")
    close_betting(svc, CloseBetting())


CARDS = [Card.parse(c) for c in ("2c", "5d", "9h", "Js", "Ac", "3h", "6s", "8d", "Qc", "Kh")]


def test_a_live_hand_shuffled_deck_is_recorded_shuffled_and_cut_before_the_first_card_CSP_3(
    store: Store,
) -> None:
    """CSP-3(1): the first card of a round is refused (the message says to record the shuffle
    and the cut) until ``ShuffleAndCut``; it is recorded once per round, by whom; a second one
    is refused; the next round needs its own; a restart keeps what was recorded."""
    rules = caribbean_rules(dealing_procedure=DealingProcedure.SHOE)
    casino(store, {"H1": ("caribbean", rules, True)})
    svc = service(store, "H1")
    _open(svc)
    refusal = _refused(store, svc, DealCard(CARDS[0]), "CSP-3", "caribbean.shuffle_and_cut_first")
    assert "record the shuffle and the cut" in refusal.message and "洗牌" in refusal.text("zh-Hant")
    send(svc, ShuffleAndCut())
    recorded = [r for r in store.read(lambda tx: tx.read_events("H1")) if r.type.endswith("Cut")]
    assert [r.type for r in recorded] == ["caribbean.DeckShuffledAndCut"]
    assert recorded[0].round_id == svc.round.round_id
    assert recorded[0].data()["by"] == "dealer-3"
    _refused(store, svc, ShuffleAndCut(), "CSP-3", "caribbean.already_shuffled_and_cut")
    svc.close()
    svc = service(store, "H1")  # a restart: the recorded shuffle and cut still stand
    assert svc.state.deal.cut_for == svc.round.round_id
    send(svc, DealCard(CARDS[0]))
    assert svc.round.dealt == 1
    _refused(store, svc, ShuffleAndCut(), "CSP-3", "caribbean.already_shuffled_and_cut")
    for card in CARDS[1:]:
        send(svc, DealCard(card))
    assert svc.round.expected_next().due[0].kind.value == "decision"
    assert ledger_total(store) == 0
    svc.close()


def test_no_hand_shuffle_at_a_shuffler_table_nor_at_a_virtual_one_CSP_3(store: Store) -> None:
    """CSP-3(2): a live table with the shuffling machine deals without a cut, and refuses one;
    a virtual table refuses the physical act whatever its procedure (its ``MODES``)."""
    casino(
        store,
        {
            "M1": ("caribbean", caribbean_rules(dealing_procedure=DealingProcedure.SHUFFLER), True),
            "V1": ("caribbean", caribbean_rules(dealing_procedure=DealingProcedure.SHOE), False),
        },
    )
    machine = service(store, "M1")
    _open(machine)
    _refused(store, machine, ShuffleAndCut(), "CSP-3", "caribbean.no_cut_with_shuffler")
    send(machine, DealCard(CARDS[0]))
    assert machine.round.dealt == 1
    machine.close()
    virtual = service(store, "V1", rng=SeededRandom(2))
    open_round(virtual)
    _refused(store, virtual, ShuffleAndCut(), "", "tables.mode_refuses")
    send(virtual, PlaceAnte(1, "p1", 100), "p1")
    close_betting(virtual, CloseBetting())
    assert virtual.round.dealt > 0  # dealt by the service from its committed deck
    virtual.close()


def test_the_hand_shuffle_and_cut_is_recorded_only_for_an_open_round_before_its_card_CSP_3(
    store: Store,
) -> None:
    """Between rounds there is no deck to record; each new round needs its own shuffle and
    cut before its first card."""
    casino(
        store, {"H2": ("caribbean", caribbean_rules(dealing_procedure=DealingProcedure.SHOE), True)}
    )
    svc = service(store, "H2")
    _refused(store, svc, ShuffleAndCut(), "CSP-3", "caribbean.shuffle_and_cut_not_now")
    open_round(svc)
    send(svc, ShuffleAndCut())  # during the betting, before any card: allowed
    first = svc.round.round_id
    assert svc.state.deal.cut_for == first
    send(svc, PlaceAnte(1, "p1", 100), "p1")
    close_betting(svc, CloseBetting())
    for card in CARDS:
        send(svc, DealCard(card))
    send(svc, Fold(1, "p1"), "p1")
    assert svc.round.is_over  # settled: the deck goes back for the next round's shuffle
    _refused(store, svc, ShuffleAndCut(), "CSP-3", "caribbean.shuffle_and_cut_not_now")
    _open(svc)
    assert svc.round.round_id != first
    _refused(store, svc, DealCard(CARDS[0]), "CSP-3", "caribbean.shuffle_and_cut_first")
    send(svc, ShuffleAndCut())
    send(svc, DealCard(CARDS[0]))
    cuts = [e for e in store.read(lambda tx: tx.read_events("H2")) if e.type.endswith("AndCut")]
    assert [(e.round_id, e.data()["by"]) for e in cuts] == [
        (first, "dealer-3"),
        (svc.round.round_id, "dealer-3"),
    ]
    assert ledger_total(store) == 0
    found = verify_database(store)  # the records re-derive, the chain holds
    assert found.finding is None, found.finding
    svc.close()
