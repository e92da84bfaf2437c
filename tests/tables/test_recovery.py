"""Crash recovery and faults (SPEC "Faults", CSP-11.4, BAC-10) on SQLite and PostgreSQL: the
service object is dropped mid-round (as a crashed process would leave it) and the table opened
again; every round left open is resolved by the law by the phase it stood in (it resumes where
the law lets it go on, it is void only on its ground), nothing is lost or paid twice, and a
fault recorded before the crash is still in force after it, the round it holds still held."""

from __future__ import annotations

from typing import Any

import pytest

from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.commands import CloseBetting as CloseBettingBac
from macau_tables.baccarat.commands import DealCard as BacDeal
from macau_tables.baccarat.commands import PlaceWager, Reveal
from macau_tables.baccarat.rules import ShoeSettings, WagerKind
from macau_tables.cards import Card
from macau_tables.caribbean.commands import (
    CloseBetting,
    DealCard,
    Fold,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
)
from macau_tables.rng import verify_leaves
from macau_tables.rounds import DueKind
from macau_tables.store import Store, TableStatus
from macau_tables.tables import (
    ClearFault,
    MemoryVault,
    ReportFault,
    TableError,
)
from macau_tables.tables.bots import Bots
from macau_tables.tables.storage import read_table

from .support import (
    BANKROLL,
    PLAYERS,
    baccarat_rules,
    balances,
    caribbean_rules,
    casino,
    check_invariants,
    close_betting,
    open_live_shoe,
    open_round,
    send,
    service,
)


def log_types(store: Store, table_id: str, after: int = 0) -> list[str]:
    """The types of the table's records after ``after``, but the round cycle's own (its
    deadlines: tests/tables/test_cycle.py looks at those)."""
    records = store.read(lambda tx: tx.read_events(table_id, after=after))
    return [r.type for r in records if not r.type.startswith("tables.Cycle")]


def net(player: str, settlement: Any) -> int:
    """What ``settlement`` moved for ``player`` (paid back minus staked)."""
    return sum(w.paid - w.stake for w in settlement.wagers if w.player == player)


@pytest.mark.parametrize("vault_kept", [True, False])
def test_a_caribbean_round_in_its_decisions_survives_a_restart_and_settles_CSP_11_4_CSP_9(
    store: Store, vault_kept: bool
) -> None:
    """CSP-11.4 voids only during the deal: a round whose cards are all dealt resumes after a
    crash — its decisions still due, then the showdown (CSP-9) — whether or not its deck's
    sealed order survived (lost, the deck is recorded lost and never revealed)."""
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "c1")
    open_round(svc)
    send(svc, PlaceAnte(1, "p1", 500), "p1")
    send(svc, PlaceJackpotWager(1, "p1"), "p1")
    send(svc, PlaceAnte(2, "p2", 300), "p2")
    head = close_betting(svc, CloseBetting()).last_seq  # the cards are out, decisions due
    cards = [b.cards for b in svc.round.in_play]
    del svc  # the process dies here
    vault = None if vault_kept else MemoryVault()  # a new process has an empty vault
    again = service(store, "c1", vault=vault)
    r = again.round
    assert not r.is_over and r.expected_next().phase == "deciding"
    assert [b.cards for b in r.in_play] == cards
    tail = log_types(store, "c1", after=head)
    assert tail == ["tables.RoundRecovered"] + ([] if vault_kept else ["tables.ShoeLost"])
    money = balances(store)
    assert money["wallet:p1"] == BANKROLL - 600 and money["wallet:p2"] == BANKROLL - 300
    send(again, Raise(1, "p1", 1000), "p1")
    send(again, Fold(2, "p2"), "p2")
    r = again.round
    assert r.settlement is not None and r.void_rule is None
    raised = [w for w in r.settlement.wagers if w.kind == "raise"]
    assert [(w.player, w.stake) for w in raised] == [("p1", 1000)]
    money = balances(store)
    assert money["wallet:p1"] == BANKROLL + net("p1", r.settlement)
    assert money["wallet:p2"] == BANKROLL - 300 and money["in_play:c1"] == 0
    audit = [e.action for e in store.read(lambda tx: tx.audit_entries(table_id="c1"))]
    assert "round_recovered" in audit and ("shoe_lost" in audit) is not vault_kept
    assert ("tables.ShoeRevealed" in log_types(store, "c1", after=head)) is vault_kept
    check_invariants(store, "c1", again)


LIVE_DEAL = "7s 7h 7d 2c 9h As Kd 4c 5s Jh"
"""Box 1: three of a kind; the dealer: ace-king, qualifying (CSP-8)."""


def test_a_three_of_a_kind_raised_against_a_qualifying_dealer_is_paid_after_a_crash_CSP_9(
    store: Store,
) -> None:
    """The audit's case: a live round, all cards entered, the player raised with three of a
    kind, the process killed before the dealer's hand was shown: after the restart the round
    resumes and pays the ante 1:1 and the raise 3:1 (CSP-9), not a void."""
    casino(store, {"l1": ("caribbean", caribbean_rules(), True)})
    svc = service(store, "l1")
    open_round(svc)
    send(svc, PlaceAnte(1, "p1", 500), "p1")
    send(svc, PlaceJackpotWager(1, "p1"), "p1")
    send(svc, PlaceAnte(2, "p2", 300), "p2")
    close_betting(svc, CloseBetting())
    for card in (*LIVE_DEAL.split()[:5], "2s", "3s", "4s", "6d", "8c", *LIVE_DEAL.split()[5:]):
        send(svc, DealCard(Card.parse(card)))
    send(svc, Raise(1, "p1", 1000), "p1")
    del svc  # killed while p2 still decides
    again = service(store, "l1")
    assert not again.round.is_over and log_types(store, "l1")[-1] == "tables.RoundRecovered"
    send(again, Fold(2, "p2"), "p2")
    r = again.round
    assert r.settlement is not None and r.settlement.dealer_qualifies
    lines = {(w.player, w.kind): w for w in r.settlement.wagers}
    assert lines[("p1", "ante")].paid == 1000 and lines[("p1", "raise")].paid == 4000
    assert balances(store)["wallet:p1"] == BANKROLL + 500 + 3000 - 100
    check_invariants(store, "l1", again)


def test_a_virtual_deal_cut_short_by_a_crash_is_void_with_the_jackpot_wagers_carried_CSP_11_4(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CSP-11.4 「如派牌過程中洗牌機失靈」: the process dies after three cards of a virtual deal and
    its deck's sealed order with it: the deal cannot be completed from the committed cards, so
    the round is void on that ground — wagers returned, the jackpot wager carried."""
    from macau_tables.caribbean.dealing import CaribbeanDealing

    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "c1")
    open_round(svc)
    send(svc, PlaceAnte(1, "p1", 500), "p1")
    send(svc, PlaceJackpotWager(1, "p1"), "p1")
    send(svc, PlaceAnte(2, "p2", 300), "p2")
    automatic = CaribbeanDealing.automatic
    dealt: list[int] = []

    def dies_after_three_cards(self: Any, batch: Any, *, play: bool) -> bool:
        r = batch.state.round
        if r is not None and not r.is_over and r.dealt >= 3:
            dealt.append(r.dealt)
            return False  # the deal stops here: what was written is what a crash leaves
        return automatic(self, batch, play=play)

    monkeypatch.setattr(CaribbeanDealing, "automatic", dies_after_three_cards)
    head = close_betting(svc, CloseBetting()).last_seq
    monkeypatch.setattr(CaribbeanDealing, "automatic", automatic)
    assert dealt and svc.round.dealt == 3
    del svc
    again = service(store, "c1", vault=MemoryVault())  # the sealed order died with the process
    r = again.round
    assert r.is_over and r.void_rule == "CSP-11.4"
    tail = log_types(store, "c1", after=head)
    assert tail == ["tables.RoundRecovered", "caribbean.RoundVoided", "tables.ShoeLost"]
    recovered = store.read(lambda tx: tx.read_events("c1", after=head))[0]
    assert "lost mid-deal" in recovered.decode(lambda _: again.state.rules).reason
    money = balances(store)
    assert money["wallet:p1"] == BANKROLL - 100 and money["wallet:p2"] == BANKROLL
    assert money["carried:c1"] == 100 and money["in_play:c1"] == 0
    check_invariants(store, "c1", again)
    # the next round takes the jackpot wager over; it is settled there, once
    assert [(w.box, w.player, w.amount) for w in again.state.carried()] == [(1, "p1", 100)]
    bots = Bots(again, PLAYERS[:2], seed=1)
    first = bots.play_round()
    assert first.box(1).jackpot_carried
    bots.play_round()
    assert balances(store)["carried:c1"] == 0
    check_invariants(store, "c1", again)


def test_a_virtual_deal_cut_short_resumes_from_its_deck_when_the_deck_survived_CSP_11_4(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from macau_tables.caribbean.dealing import CaribbeanDealing

    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "c1")
    open_round(svc)
    send(svc, PlaceAnte(1, "p1", 500), "p1")
    automatic = CaribbeanDealing.automatic

    def stops_after_four(self: Any, batch: Any, *, play: bool) -> bool:
        r = batch.state.round
        if r is not None and not r.is_over and r.dealt >= 4:
            return False
        return automatic(self, batch, play=play)

    monkeypatch.setattr(CaribbeanDealing, "automatic", stops_after_four)
    close_betting(svc, CloseBetting())
    monkeypatch.setattr(CaribbeanDealing, "automatic", automatic)
    del svc
    again = service(store, "c1")  # same process: the deck's sealed order is in the vault
    r = again.round
    assert not r.is_over and r.dealt == 10 and r.expected_next().phase == "deciding"
    send(again, Fold(1, "p1"), "p1")
    assert again.round.settlement is not None
    assert "tables.ShoeRevealed" in log_types(store, "c1")[-2:]
    check_invariants(store, "c1", again)


def test_a_restart_between_rounds_changes_nothing(store: Store) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "c1")
    Bots(svc, PLAYERS[:3], seed=2).play(3)
    head = store.read(lambda tx: tx.chain_head("c1"))
    again = service(store, "c1", vault=MemoryVault())
    assert store.read(lambda tx: tx.chain_head("c1")) == head and again.state == svc.state


def test_a_baccarat_round_whose_cards_are_all_recorded_resumes_BAC_10(store: Store) -> None:
    rules = baccarat_rules(shoe=ShoeSettings(decks=8), card_holding=True)
    casino(store, {"l1": ("baccarat", rules, True)})
    svc = service(store, "l1")
    open_live_shoe(svc)
    open_round(svc, ((1, "p1"), (2, "p2")))
    send(svc, PlaceWager("p1", seat(1), WagerKind.BANKER, 2000), "p1")
    send(svc, PlaceWager("p2", seat(2), WagerKind.PLAYER, 1000), "p2")
    send(svc, PlaceWager("p2", seat(2), WagerKind.JACKPOT, 100), "p2")
    for card in ("9s", "2h", "Kd", "3c"):  # player 9, banker 5: no third card (BAC-9)
        send(svc, BacDeal(Card.parse(card)))
    assert svc.expected().due[0].kind is DueKind.REVEAL  # the holders' reveals (BAC-16)
    del svc
    again = service(store, "l1")
    assert not again.round.is_over and len(again.round.cards) == 4
    assert log_types(store, "l1")[-1] == "tables.RoundRecovered"
    while not again.round.is_over:
        due = again.expected().due[0]
        step = again.round.pending_reveal()
        send(again, Reveal(step.side, step.part, due.player), due.player)
    assert again.round.settlement is not None and again.round.result.winner.value == "player"
    check_invariants(store, "l1", again)


def test_a_virtual_baccarat_round_still_betting_resumes_and_its_shoe_goes_on_BAC_10(
    store: Store,
) -> None:
    """BAC-10 by phase: a round still taking wagers when the process died goes on taking them
    after the restart (nothing was dealt), its wagers in place."""
    casino(store, {"b1": ("baccarat", baccarat_rules(card_holding=False), False)})
    svc = service(store, "b1")
    open_round(svc, ((1, "p1"), (2, "p2")))
    send(svc, PlaceWager("p1", seat(1), WagerKind.BANKER, 2000), "p1")
    send(svc, PlaceWager("p2", seat(2), WagerKind.JACKPOT, 100), "p2")
    del svc
    again = service(store, "b1")  # same process: the shoe's sealed order is in the vault
    assert not again.round.is_over and len(again.round.wagers) == 2
    assert log_types(store, "b1")[-1] == "tables.RoundRecovered"
    money = balances(store)
    assert money["wallet:p1"] == BANKROLL - 2000 and money["wallet:p2"] == BANKROLL - 100
    close_betting(again, CloseBettingBac())  # the service deals and settles it
    assert again.round.is_over and again.round.settlement is not None
    Bots(again, PLAYERS[:2], seed=5).play(3)  # the same shoe goes on
    assert again.state.deal.shoes == 1
    check_invariants(store, "b1", again)


def test_a_virtual_baccarat_shoe_lost_in_a_crash_voids_the_round_and_a_new_shoe_follows(
    store: Store,
) -> None:
    casino(store, {"b1": ("baccarat", baccarat_rules(card_holding=False), False)})
    svc = service(store, "b1")
    open_round(svc, ((1, "p1"),))
    send(svc, PlaceWager("p1", seat(1), WagerKind.BANKER, 2000), "p1")
    del svc
    again = service(store, "b1", vault=MemoryVault())
    assert again.round.is_over and again.round.void is not None
    tail = log_types(store, "b1")[-5:]
    assert tail[0] == "tables.RoundRecovered" and "tables.ShoeLost" in tail
    assert tail[-1] == "baccarat.ShoeFinished"
    assert balances(store)["wallet:p1"] == BANKROLL
    shoes = store.read(lambda tx: tx.shoes("b1"))
    # lost: its order can never be revealed; its leaves are kept (it proves what was dealt)
    lost = shoes[-1].revealed
    assert lost is not None and lost["type"] == "core.ShoeOpening" and "order" not in lost
    assert verify_leaves(shoes[-1].commitment, lost["leaves"])
    Bots(again, PLAYERS[:2], seed=6).play(2)
    assert again.state.deal.shoes == 2
    check_invariants(store, "b1", again)


def live_round_cut_short(store: Store) -> Any:
    """A live baccarat round whose process died after two of its cards (P1, B1)."""
    rules = baccarat_rules(shoe=ShoeSettings(decks=8), card_holding=False)
    casino(store, {"l1": ("baccarat", rules, True)})
    svc = service(store, "l1")
    open_live_shoe(svc)
    open_round(svc, ((1, "p1"),))
    send(svc, PlaceWager("p1", seat(1), WagerKind.BANKER, 2000), "p1")
    send(svc, BacDeal(Card.parse("2s")))
    send(svc, BacDeal(Card.parse("3h")))
    del svc
    return service(store, "l1")


def test_a_live_baccarat_round_cut_short_mid_deal_resumes_with_the_dealers_cards_BAC_10(
    store: Store,
) -> None:
    """BAC-10 (the physical cards are still on the table): a live round interrupted mid-deal
    resumes after the restart, the dealer goes on entering its cards; it is settled as dealt."""
    again = live_round_cut_short(store)
    assert not again.round.is_over and len(again.round.cards) == 2
    assert log_types(store, "l1")[-1] == "tables.RoundRecovered"
    # player 2+K = 2, banker 3+3 = 6: the player draws 5 (7), the banker stands on 6 (BAC-9)
    for card in ("Kd", "3c", "5d"):
        send(again, BacDeal(Card.parse(card)))
    r = again.round
    assert r.is_over and r.settlement is not None and r.result.winner.value == "player"
    assert balances(store)["wallet:p1"] == BANKROLL - 2000
    check_invariants(store, "l1", again)


def test_only_a_supervisors_decision_on_a_BAC_10_ground_voids_a_resumed_live_round(
    store: Store,
) -> None:
    """BAC-10: a void needs its ground and the event showing it (here the dealer's report);
    the shoe keeps the cards the void round took out."""
    from macau_tables.baccarat.commands import Void as BacVoid
    from macau_tables.errors import RuleViolation
    from macau_tables.voids import Ground

    again = live_round_cut_short(store)
    with pytest.raises(RuleViolation) as refused:  # no ground
        send(again, BacVoid("sup-1", "cards dropped"), "sup-1")
    assert refused.value.rule == "BAC-10" and refused.value.key == "voids.needs_ground"
    with pytest.raises(RuleViolation) as refused:  # no event shows the ground yet
        send(again, BacVoid("sup-1", "cards dropped", Ground.UNCORRECTABLE), "sup-1")
    assert refused.value.key == "tables.void_no_evidence"
    send(again, ReportFault("the dealer dropped the shoe: the cards are mixed"))
    send(again, BacVoid("sup-1", "cards mixed, cannot be corrected", Ground.UNCORRECTABLE), "s")
    r = again.round
    assert r.is_over and r.void is not None and r.void.ground is not None
    assert r.void.ground.supervisor == "sup-1" and r.void.ground.evidence is not None
    assert balances(store)["wallet:p1"] == BANKROLL
    send(again, ClearFault("sup-1", "shoe checked"), "sup-1")
    # the shoe took the two cards: the next round is dealt after them
    assert again.state.deal.shoe.out == 10
    open_round(again, ((1, "p1"),))
    check_invariants(store, "l1", again)


def test_a_fault_recorded_before_a_crash_is_still_in_force_after_it(store: Store) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "c1")
    open_round(svc)
    send(svc, PlaceAnte(1, "p1", 500), "p1")
    send(svc, ReportFault("dealer console failure"), "dealer")
    assert not svc.round.is_over and svc.status is TableStatus.FAULT  # held, not void
    assert balances(store)["wallet:p1"] == BANKROLL - 500
    del svc
    again = service(store, "c1")
    assert again.state.fault is not None and again.state.fault.reason == "dealer console failure"
    assert not again.round.is_over  # still held for the supervisor
    assert store.read(lambda tx: tx.table("c1")).status is TableStatus.FAULT
    assert again.cycle_step() is None  # the fault stops the round cycle too
    with pytest.raises(TableError):
        again.open_table(actor="manager", reason="try")
    send(again, ClearFault("sup-9", "console replaced"), "sup-9")
    assert store.read(lambda tx: tx.table("c1")).status is TableStatus.OPEN
    close_betting(again, CloseBetting())  # the held round goes on
    send(again, Fold(1, "p1"), "p1")
    assert again.round.settlement is not None
    open_round(again)
    check_invariants(store, "c1", again)


def test_recovery_is_recorded_once_even_when_two_starts_race(store: Store) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "c1")
    open_round(svc)
    send(svc, PlaceAnte(1, "p1", 500), "p1")
    del svc
    first = service(store, "c1")
    second = service(store, "c1")  # finds the round already resumed: says so, changes nothing
    recovered = [
        e.decode(lambda _: first.state.rules)
        for e in store.read(lambda tx: tx.read_events("c1"))
        if e.type == "tables.RoundRecovered"
    ]
    assert [x.action for x in recovered] == ["resume", "resume"]  # never void twice
    assert first.round == second.round and not second.round.is_over
    assert balances(store)["wallet:p1"] == BANKROLL - 500  # still in the round (CSP-11.4)
    close_betting(second, CloseBetting())
    send(second, Fold(1, "p1"), "p1")
    check_invariants(store, "c1", second)


def test_a_resumed_virtual_round_whose_shoe_was_lost_still_gets_the_dealers_reveals_BAC_10(
    store: Store,
) -> None:
    """BAC-10 / BAC-16: a virtual round whose cards were all recorded resumes after a crash
    even when the shoe's sealed order died with the process; the reveals still due are made —
    the holder's by the holder, the dealer's (a side nobody holds) by the virtual dealer, who
    needs no shoe for cards already out — and the round settles."""
    casino(store, {"b1": ("baccarat", baccarat_rules(card_holding=True), False)})
    svc = service(store, "b1")

    def reveal_as_p1(table: Any) -> None:
        for _ in range(8):
            if table.round.is_over:
                return
            due = table.expected().due[0]
            assert due.kind is DueKind.REVEAL and due.player == "p1", due
            step = table.round.pending_reveal()
            send(table, Reveal(step.side, step.part, "p1"), "p1")

    for _ in range(40):  # until a hand is complete with its first four cards (BAC-9)
        open_round(svc, ((1, "p1"),))
        send(svc, PlaceWager("p1", seat(1), WagerKind.PLAYER, 2000), "p1")  # banker: no holder
        close_betting(svc, CloseBettingBac())
        if svc.round.due_slot() is None:
            break
        reveal_as_p1(svc)
    assert svc.round.due_slot() is None and svc.expected().due[0].player == "p1"
    del svc  # the process dies: its vault (the sealed order) with it
    again = service(store, "b1", vault=MemoryVault())
    assert "tables.ShoeLost" in log_types(store, "b1")[-3:]
    assert not again.round.is_over, again.round.void  # resumed, not void
    reveal_as_p1(again)
    assert again.round.is_over and again.round.settlement is not None
    assert again.round.void is None
    check_invariants(store, "b1", again)


def test_a_request_landing_while_the_next_process_takes_the_table_is_recovered_CSP_11_4(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A killed process's last request may still commit after the next process has read the
    table (its COMMIT was already sent; on PostgreSQL taking the lease waits for it): the new
    service reads the table again once it holds the lease, so the round that request opened is
    recovered by the law (CSP-11.4: no card dealt, it goes on) and the service's state is the
    log's. Read before that commit, the table had no round open, and the round stayed open,
    unrecovered."""
    from macau_tables.tables import links

    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    dying = service(store, "c1")
    renew = links.Lease.renew
    late: list[Any] = []

    def renew_after_the_last_commit(self: Any, now: Any, *, force: bool = False) -> None:
        if self is not dying._lease and not late:  # the dead process's last request lands
            late.append(dying.cycle_step())  # after the table was read, before the lease
        renew(self, now, force=force)

    monkeypatch.setattr(links.Lease, "renew", renew_after_the_last_commit)
    again = service(store, "c1", vault=MemoryVault())
    monkeypatch.setattr(links.Lease, "renew", renew)
    assert late and again.round is not None and not again.round.is_over
    tail = log_types(store, "c1", after=late[0].last_seq)
    assert tail == ["tables.RoundRecovered"]  # found and resolved: no card dealt, it goes on
    assert store.read(lambda tx: read_table(tx, "c1")).state == again.state
