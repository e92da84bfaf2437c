"""Shoe and rounds together: a whole virtual shoe, a live shoe with a refused card, and the
automatic machine (BAC-1, BAC-2, BAC-3, BAC-7.2, BAC-10, BAC-12)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables.approvals import Approval
from macau_tables.baccarat import shoe as S
from macau_tables.baccarat.bets import seat, standing
from macau_tables.baccarat.commands import (
    Correct,
    CorrectionAction,
    DealCard,
    PlaceWager,
    Settle,
)
from macau_tables.baccarat.events import CardRefused
from macau_tables.baccarat.round import BaccaratRound, deal_from
from macau_tables.baccarat.rules import BaccaratRules, ShoeSettings, TieOption, WagerKind
from macau_tables.cards import parse_cards
from macau_tables.errors import RuleViolation
from macau_tables.rng import SeededRandom, verify_commitment

DAY = date(2026, 12, 2)
SEATED = {1: "alice"}


def approved(rules: BaccaratRules) -> BaccaratRules:
    records = tuple(
        Approval(q.option, q.value, f"R{i}", date(2026, 11, 2), date(2026, 11, 5))
        for i, q in enumerate(rules.options_requiring_approval())
    )
    return replace(rules, approvals=records)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 300), st.integers(6, 12))
def test_whole_virtual_shoe_BAC_1_BAC_2_BAC_3(seed: int, cut: int, decks: int) -> None:
    rules = approved(BaccaratRules(shoe=ShoeSettings(decks=decks, demo_rounds=1)))
    order = S.shuffle_shoe(rules.shoe, SeededRandom(seed))
    shoe, shoe_events = S.open_shoe("s", rules.shoe, commitment=order.commitment)
    shoe, ev = S.apply(shoe, S.Cut(S.Cutter.PLAYER, "alice", cut))
    shoe_events += ev
    order = order.after_cut(cut)
    shoe, ev = S.apply(shoe, S.Burn(tuple(order.card_at(i) for i in range(decks))))
    shoe_events += ev
    carried: tuple = ()
    k = 0
    while shoe.phase is not S.ShoePhase.FINISHED:
        k += 1
        demo = k == 1
        shoe, ev = S.apply(shoe, S.StartRound(f"r{k}", demo))
        shoe_events += ev
        r = BaccaratRound.from_shoe(
            shoe, rules, f"r{k}", DAY, seated=SEATED, carried=carried, demo=demo
        )
        if not demo:
            r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
            r, _ = r.apply(PlaceWager("bob", standing(1), WagerKind.PLAYER, 500))
        r, _, _ = deal_from(r, order, shoe.out)
        r, _ = r.apply(Settle())
        assert r.settlement is not None and r.settlement.balance == 0
        carried = r.carried_out()
        shoe, ev = S.apply(shoe, S.EndRound(r.accepted_cards(), r.discarded))
        shoe_events += ev
        assert max(shoe.seen) <= decks
    assert shoe.demo_rounds == 1
    assert S.replay(shoe_events) == shoe
    # the shoe dealt is the shoe committed: the dealt cards are the committed order, cut
    reveal = order.reveal
    assert verify_commitment(order.commitment, reveal.order, reveal.salt)
    dealt = [c for e in shoe_events if isinstance(e, S.RoundEnded) for c in e.cards]
    assert dealt == [order.card_at(decks + i) for i in range(len(dealt))]


def test_live_shoe_refused_card_withdrawn_counts_out_of_shoe_BAC_10() -> None:
    rules = BaccaratRules(shoe=ShoeSettings(decks=6))
    shoe, _ = S.open_shoe("live", rules.shoe, live=True)
    shoe, _ = S.apply(shoe, S.Cut(S.Cutter.DEALER, "dealer-1", 150))
    shoe, _ = S.apply(shoe, S.Burn((None,) * 6))
    shoe, _ = S.apply(shoe, S.StartRound("r1"))
    r = BaccaratRound.from_shoe(shoe, rules, "r1", DAY)
    assert r.live
    for card in parse_cards("9s 5h Kd 2c"):
        r, _ = r.apply(DealCard(card))
    r, ev = r.apply(DealCard("7c"))  # no third card on a natural
    assert isinstance(ev[0], CardRefused)
    r, _ = r.apply(Correct("sup-9", "drawn on a natural", CorrectionAction.WITHDRAW))
    r, _ = r.apply(Settle())
    shoe, _ = S.apply(shoe, S.EndRound(r.accepted_cards(), r.discarded))
    assert shoe.out == 6 + 5 and shoe.available()[parse_cards("7c")[0].index] == 5


def test_machine_rounds_each_from_the_full_set_BAC_7_2() -> None:
    rules = approved(BaccaratRules(shoe=ShoeSettings(machine=True)))
    shoe, _ = S.open_shoe(
        "m", rules.shoe, commitment=S.shuffle_shoe(rules.shoe, SeededRandom(0)).commitment
    )
    for k in range(5):
        order = S.shuffle_shoe(rules.shoe, SeededRandom(k + 1))
        shoe, _ = S.apply(shoe, S.StartRound(f"r{k}", commitment=order.commitment))
        r = BaccaratRound.from_shoe(shoe, rules, f"r{k}", DAY)
        assert r.available == (8,) * 52 and r.cards_left == 416
        r, _, _ = deal_from(r, order, 0)
        r, _ = r.apply(Settle())
        shoe, _ = S.apply(shoe, S.EndRound(r.accepted_cards()))


def test_round_from_shoe_is_the_shoe_s_round_and_a_demo_takes_no_wagers_BAC_2_2_BAC_7() -> None:
    rules = approved(BaccaratRules(shoe=ShoeSettings(demo_rounds=1)))
    shoe, _ = S.open_shoe("live", rules.shoe, live=True)
    shoe, _ = S.apply(shoe, S.Cut(S.Cutter.DEALER, "dealer-1", 150))
    shoe, _ = S.apply(shoe, S.Burn((None,) * 8))
    with pytest.raises(RuleViolation) as exc:  # no round started in the shoe
        BaccaratRound.from_shoe(shoe, rules, "d1", DAY)
    assert exc.value.rule == "BAC-7"
    shoe, _ = S.apply(shoe, S.StartRound("d1", demo=True))
    with pytest.raises(RuleViolation) as exc:  # another round's id
        BaccaratRound.from_shoe(shoe, rules, "r9", DAY)
    assert exc.value.rule == "BAC-7"
    with pytest.raises(RuleViolation) as exc:  # the shoe recorded a demonstration round
        BaccaratRound.from_shoe(shoe, rules, "d1", DAY, seated=SEATED, demo=False)
    assert exc.value.rule == "BAC-2.2"
    r = BaccaratRound.from_shoe(shoe, rules, "d1", DAY, seated=SEATED)
    assert r.demo
    with pytest.raises(RuleViolation) as exc:
        r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    assert exc.value.rule == "BAC-2.2"
    for card in parse_cards("9s 5h Kd 2c"):
        r, _ = r.apply(DealCard(card))
    r, _ = r.apply(Settle())
    shoe, _ = S.apply(shoe, S.EndRound(r.accepted_cards()))
    shoe, _ = S.apply(shoe, S.StartRound("r1"))
    with pytest.raises(RuleViolation) as exc:
        BaccaratRound.from_shoe(shoe, rules, "r1", DAY, demo=True)
    assert exc.value.rule == "BAC-2.2"
    r = BaccaratRound.from_shoe(shoe, rules, "r1", DAY, seated=SEATED)
    assert not r.demo
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))


def _live_shoe(rules: BaccaratRules, shoe_id: str) -> S.ShoeState:
    shoe, _ = S.open_shoe(shoe_id, rules.shoe, live=True)
    shoe, _ = S.apply(shoe, S.Cut(S.Cutter.DEALER, "dealer-1", 150))
    shoe, _ = S.apply(shoe, S.Burn((None,) * rules.shoe.decks))
    return shoe


def _play(r: BaccaratRound, text: str) -> BaccaratRound:
    for card in parse_cards(text):
        r, _ = r.apply(DealCard(card))
    r, _ = r.apply(Settle())
    return r


def test_tied_wagers_of_a_shoe_s_last_round_wait_through_the_next_shoe_s_demos_BAC_2_2_BAC_12() -> (
    None
):
    """A tie in the last round of a shoe carries its banker/player wagers (BAC-12); the next
    shoe may start with demonstration rounds, which take no wagers (BAC-2.2): the carried wagers
    wait through them untouched and the first round with wagers takes them, with the BAC-12
    choices."""
    rules = approved(
        BaccaratRules(
            shoe=ShoeSettings(demo_rounds=2),
            tie_options=frozenset({TieOption.LEAVE, TieOption.WITHDRAW}),
        )
    )
    shoe = _live_shoe(rules, "shoe-1")
    shoe, _ = S.apply(shoe, S.StartRound("a1"))
    r = BaccaratRound.from_shoe(shoe, rules, "a1", DAY, seated=SEATED)
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    r = _play(r, "7s 7h Kc Kd")  # a tie
    shoe, _ = S.apply(shoe, S.EndRound(r.accepted_cards()))
    shoe, _ = S.apply(shoe, S.ChangeShoe("last round of the shoe"))  # BAC-3.2
    carried = r.carried_out()
    assert [(w.player, w.amount) for w in carried] == [("alice", 1000)]
    shoe = _live_shoe(rules, "shoe-2")
    for k in (1, 2):
        shoe, _ = S.apply(shoe, S.StartRound(f"b{k}", demo=True))
        demo = BaccaratRound.from_shoe(shoe, rules, f"b{k}", DAY, seated=SEATED, carried=carried)
        assert demo.demo and demo.wagers == () and len(demo.waiting) == 1
        demo = _play(demo, "9s 5h Kd 2c")
        assert all(demo.postings(e) == () for e in demo.events)  # no money moves
        shoe, _ = S.apply(shoe, S.EndRound(demo.accepted_cards()))
        carried = demo.carried_out()
    shoe, _ = S.apply(shoe, S.StartRound("b3"))
    r = BaccaratRound.from_shoe(shoe, rules, "b3", DAY, seated=SEATED, carried=carried)
    assert not r.demo and [(w.player, w.amount, w.carried) for w in r.wagers] == [
        ("alice", 1000, True)
    ]
    r = _play(r, "9s 5h Kd 2c")  # the player wins: alice's carried banker wager loses
    assert r.settlement is not None and r.settlement.lines[0].carried_in
