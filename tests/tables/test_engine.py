"""The table engine without a database: the dealing adapters of both games, the reveal and its
check, replay of the log, snapshots, recovery decisions and the refusals of the service's own
rules (virtual cards, the settlement, faults, the meter link)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables import codec
from macau_tables.baccarat import shoe as S
from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.commands import CloseBetting as BacClose
from macau_tables.baccarat.commands import DealCard as BacDeal
from macau_tables.baccarat.commands import PlaceWager, Reveal, Settle
from macau_tables.baccarat.events import CardDealt as BacCardDealt
from macau_tables.baccarat.events import RoundSettled as BacSettled
from macau_tables.baccarat.round import BaccaratRound
from macau_tables.baccarat.rules import BurnRule, ShoeSettings, WagerKind
from macau_tables.cards import DECK, Card
from macau_tables.caribbean.commands import (
    CloseBetting,
    DealCard,
    Fold,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
    Showdown,
    Void,
)
from macau_tables.caribbean.events import BettingClosed, CardDealt
from macau_tables.errors import RuleViolation
from macau_tables.rng import SeededRandom, commit_shoe, verify_order
from macau_tables.rounds import DueKind
from macau_tables.tables.dealing import reveal, seal
from macau_tables.tables.engine import TableState, recover, restore, snapshot
from macau_tables.tables.model import (
    ClearFault,
    OpenRound,
    ReportFault,
    RoundRecovered,
    Sealed,
    ShoeLost,
    ShoeRevealed,
    TableError,
    TableFaulted,
)
from macau_tables.tables.rederive import Counts, LoggedEvent, _shoe
from macau_tables.voids import Ground

from .support import PureTable, baccarat_rules, caribbean_rules

# -- drivers ----------------------------------------------------------------------------------


def caribbean_round(t: PureTable, rnd: random.Random, *, boxes: int = 3) -> Any:
    """One Caribbean Stud round with ``boxes`` players (jackpot wagers now and then)."""
    t.run(OpenRound())
    for box in range(1, boxes + 1):
        player = f"p{box}"
        if t.state.round.box(box) is None or t.state.round.box(box).ante == 0:
            t.run(PlaceAnte(box, player, 100 * rnd.randint(1, 5)))
        if not t.state.round.box(box).jackpot and rnd.random() < 0.5:
            t.run(PlaceJackpotWager(box, player))
    t.run(CloseBetting())
    r = t.state.round
    for due in r.expected_next().due:
        if due.kind is DueKind.DECISION:
            ante = r.box(due.position).ante
            if rnd.random() < 0.6:
                t.run(Raise(due.position, due.player, 2 * ante))
            else:
                t.run(Fold(due.position, due.player))
    assert t.state.round.is_over
    return t.state.round


def baccarat_round(t: PureTable, rnd: random.Random) -> Any:
    """One baccarat round (two seated players, card holding answered by the holder)."""
    t.run(OpenRound(((1, "alice"), (2, "bob"))))
    r = t.state.round
    if not any(w.carried and w.player == "alice" for w in r.wagers):
        t.run(PlaceWager("alice", seat(1), rnd.choice([WagerKind.BANKER, WagerKind.PLAYER]), 1000))
    t.run(PlaceWager("bob", seat(2), WagerKind.PLAYER, 500))
    if rnd.random() < 0.5:
        t.run(PlaceWager("bob", seat(2), WagerKind.JACKPOT, 100))
    t.run(BacClose())
    while not t.state.round.is_over:
        r = t.state.round
        due = r.expected_next().due[0]
        assert due.kind is DueKind.REVEAL and due.player is not None, due
        step = r.pending_reveal()
        t.run(Reveal(step.side, step.part, due.player))
    return t.state.round


# -- Caribbean Stud ---------------------------------------------------------------------------


def test_caribbean_virtual_rounds_deal_from_a_deck_committed_before_the_first_card() -> None:
    t = PureTable("caribbean", caribbean_rules())
    rnd = random.Random(3)
    for _ in range(25):
        caribbean_round(t, rnd)
    assert t.reloaded() == t.state
    reveals = [e for e in t.log if isinstance(e, ShoeRevealed)]
    assert len(reveals) == 25 and all(x.verified for x in reveals)
    # Randomness: each round's commitment is in its BettingClosed, before its first card; the
    # reveal is that commitment and the cards dealt are the committed order's first cards.
    closed = [i for i, e in enumerate(t.log) if isinstance(e, BettingClosed)]
    first_cards = [
        next(i for i in range(c, len(t.log)) if isinstance(t.log[i], CardDealt)) for c in closed
    ]
    assert all(c < f for c, f in zip(closed, first_cards, strict=True))
    for c, x in zip(closed, reveals, strict=True):
        assert t.log[c].shoe_commitment == x.commitment
        assert verify_order(x.commitment, x.order, x.salts) and x.salt == ""
        # the public view of Caribbean Stud shows no card (CSP-12): nothing published
        assert x.public == ()
    # every card dealt carries its leaf: its position in the committed deck and that salt
    deals = [e for e in t.log if isinstance(e, CardDealt)]
    for x in reveals:
        mine = [e for e in deals if e.leaf is not None and e.leaf.shoe_no == x.shoe_no]
        assert [e.leaf.position for e in mine] == list(range(len(mine)))
        assert all(x.order[e.leaf.position] == e.card for e in mine)
        assert all(x.salts[e.leaf.position] == e.leaf.salt for e in mine)
    assert all(s.production is False for s in t.sealed)  # the test's seeded source


def test_caribbean_refuses_cards_and_the_showdown_from_a_client_at_a_virtual_table() -> None:
    t = PureTable("caribbean", caribbean_rules())
    t.run(OpenRound())
    t.run(PlaceAnte(1, "p1", 100))
    with pytest.raises(TableError) as exc:
        t.run(DealCard(DECK[0]))
    assert exc.value.key == "tables.mode_refuses"
    t.run(CloseBetting())
    with pytest.raises(TableError) as exc:
        t.run(Showdown(t.state.rules.new_meter()))
    assert exc.value.key == "tables.service_settles"
    with pytest.raises(TableError) as exc:
        t.run(OpenRound())
    assert exc.value.key == "tables.round_open"


def test_caribbean_live_takes_the_console_cards_checked_by_the_round_CSP_7() -> None:
    t = PureTable("caribbean", caribbean_rules(), live=True)
    t.run(OpenRound())
    t.run(PlaceAnte(1, "p1", 100))
    t.run(CloseBetting())
    deck = list(DECK)
    while t.state.round.expected_next().due[0].kind is DueKind.CARD:
        t.run(DealCard(deck.pop()))
    with pytest.raises(RuleViolation):  # a card already in the round
        t.run(DealCard(t.state.round.dealer_cards[0]))
    t.run(Fold(1, "p1"))
    assert t.state.round.is_over and not any(isinstance(e, ShoeRevealed) for e in t.log)


def test_a_caribbean_round_in_its_decisions_resumes_after_a_restart_CSP_11_4() -> None:
    """CSP-11.4 voids only during the deal: a round whose cards are all dealt resumes (its
    decisions still due), then settles; its deck, kept, is revealed at the end."""
    t = PureTable("caribbean", caribbean_rules())
    t.run(OpenRound())
    t.run(PlaceAnte(2, "p2", 300))
    t.run(PlaceJackpotWager(2, "p2"))
    t.run(CloseBetting())
    b = t.commit(recover(t.batch(), "restart"))
    events = [r.event for r in b.records]
    assert len(events) == 1 and isinstance(events[0], RoundRecovered)
    assert events[0].rule == "CSP-11.4" and events[0].action == "resume"
    assert not t.state.round.is_over and t.state.round.expected_next().phase == "deciding"
    t.run(Raise(2, "p2", 600))
    r = t.state.round
    assert r.is_over and r.settlement is not None and r.void_rule is None
    raised = [w for w in r.settlement.wagers if w.kind == "raise"]
    assert [w.stake for w in raised] == [600]
    assert isinstance(t.log[-1], ShoeRevealed) and t.log[-1].verified
    assert t.reloaded() == t.state


def test_a_lost_deck_is_recorded_and_a_dealt_round_still_resumes_CSP_11_4() -> None:
    t = PureTable("caribbean", caribbean_rules())
    t.run(OpenRound())
    t.run(PlaceAnte(1, "p1", 100))
    t.run(CloseBetting())
    restarted = replace(t.state, deal=t.dealing.load(t.dealing.initial(), t.log))
    assert t.dealing.awaiting_seal(restarted.deal) is not None
    t.state = restarted
    b = t.commit(recover(t.batch(), "restart", seal_lost=True))
    kinds = [type(r.event).__name__ for r in b.records]
    assert kinds == ["RoundRecovered", "ShoeLost"] and b.records[0].event.action == "resume"
    assert t.dealing.awaiting_seal(t.state.deal) is None
    t.run(Fold(1, "p1"))
    assert t.state.round.settlement is not None and t.state.round.void_rule is None
    assert not any(isinstance(e, ShoeRevealed) for e in t.log)  # lost: never revealed
    assert t.reloaded() == t.state


def cut_short(t: PureTable, cards: int) -> None:
    """Close the betting of ``t``'s round and deal only ``cards`` cards (a deal cut short)."""
    b = t.batch()
    t.dealing.admit(b, CloseBetting())
    for _ in range(cards):
        assert t.dealing.automatic(b, play=True)
    t.commit(b)
    assert t.state.round.expected_next().due[0].kind is DueKind.CARD


@pytest.mark.parametrize("deck_kept", [True, False])
def test_a_virtual_caribbean_deal_cut_short_is_void_only_when_its_deck_is_lost_CSP_11_4(
    deck_kept: bool,
) -> None:
    """CSP-11.4 「如派牌過程中洗牌機失靈」: a virtual deal cut short is completed from the committed
    deck when it survived; lost, the round is void on that ground, the jackpot wager carried."""
    t = PureTable("caribbean", caribbean_rules())
    t.run(OpenRound())
    t.run(PlaceAnte(1, "p1", 100))
    t.run(PlaceJackpotWager(1, "p1"))
    t.run(PlaceAnte(2, "p2", 300))
    cut_short(t, 3)
    if not deck_kept:
        t.state = replace(t.state, deal=t.dealing.load(t.dealing.initial(), t.log))
    b = t.commit(recover(t.batch(), "restart", seal_lost=not deck_kept))
    recovered = b.records[0].event
    assert isinstance(recovered, RoundRecovered) and recovered.rule == "CSP-11.4"
    r = t.state.round
    if deck_kept:
        assert recovered.action == "resume" and not r.is_over
        assert r.expected_next().phase == "deciding" and r.dealt == 15
        assert t.reloaded() == t.state
        return
    assert recovered.action == "void" and "lost mid-deal" in recovered.reason
    kinds = [type(x.event).__name__ for x in b.records]
    assert kinds == ["RoundRecovered", "RoundVoided", "ShoeLost"]
    assert r.is_over and r.void_rule == "CSP-11.4"
    assert [(w.box, w.player, w.amount) for w in t.state.carried()] == [(1, "p1", 100)]
    t.run(OpenRound())
    assert t.state.round.box(1).jackpot_carried
    assert t.reloaded() == t.state


def test_a_live_caribbean_deal_cut_short_resumes_with_the_dealer_entering_the_rest_CSP_11_4() -> (
    None
):
    t = PureTable("caribbean", caribbean_rules(), live=True)
    t.run(OpenRound())
    t.run(PlaceAnte(1, "p1", 100))
    t.run(CloseBetting())
    deck = list(DECK)
    for _ in range(4):
        t.run(DealCard(deck.pop()))
    b = t.commit(recover(t.batch(), "restart", seal_lost=False))
    assert [type(x.event).__name__ for x in b.records] == ["RoundRecovered"]
    assert b.records[0].event.action == "resume"
    while t.state.round.expected_next().due[0].kind is DueKind.CARD:
        t.run(DealCard(deck.pop()))
    t.run(Fold(1, "p1"))
    assert t.state.round.settlement is not None


@settings(max_examples=60)
@given(
    boxes=st.integers(1, 3),
    live=st.booleans(),
    lost=st.booleans(),
    stop=st.integers(0, 20),
    seed=st.integers(0, 10_000),
)
def test_caribbean_recovery_voids_only_a_virtual_deal_cut_short_with_its_deck_lost_CSP_11_4(
    boxes: int, live: bool, lost: bool, stop: int, seed: int
) -> None:
    """CSP-11.4, by phase, for a round interrupted anywhere (betting, any card of the deal, any
    decision): the recovery voids it exactly when a virtual deal was cut short and its deck
    lost; otherwise it resumes, moving no money, and plays to its settlement."""
    t = PureTable("caribbean", caribbean_rules(), live=live, seed=seed)
    rnd = random.Random(seed)
    deck = list(DECK)
    rnd.shuffle(deck)
    t.run(OpenRound())
    for box in range(1, boxes + 1):
        t.run(PlaceAnte(box, f"p{box}", 100))
        t.run(PlaceJackpotWager(box, f"p{box}"))
    cards = 5 * (boxes + 1)
    if stop > 0 and live:
        t.run(CloseBetting())
        for _ in range(min(stop - 1, cards)):
            t.run(DealCard(deck.pop()))
    elif stop > 0 and stop - 1 < cards:
        cut_short(t, stop - 1)
    elif stop > 0:
        t.run(CloseBetting())
    due = t.state.round.expected_next().due
    if due[0].kind is DueKind.DECISION and stop - 1 > cards:
        t.run(Fold(due[0].position, due[0].player))
    if t.state.round.is_over:
        return
    kind = t.state.round.expected_next().due[0].kind
    if lost and not live:
        t.state = replace(t.state, deal=t.dealing.load(t.dealing.initial(), t.log))
    b = t.commit(recover(t.batch(), "restart", seal_lost=lost))
    recovered = b.records[0].event
    assert isinstance(recovered, RoundRecovered) and recovered.rule == "CSP-11.4"
    void = kind is DueKind.CARD and lost and not live
    assert (recovered.action == "void") is void
    assert t.state.round.is_over is void
    if void:
        assert [(w.box, w.amount) for w in t.state.carried()] == [
            (n, 100) for n in range(1, boxes + 1)
        ]
        return
    assert all(r.postings == () for r in b.records)  # resuming moves no money
    for _ in range(80):
        r = t.state.round
        if r.is_over:
            break
        due = r.expected_next().due
        if due[0].kind is DueKind.WAGERS:
            t.run(CloseBetting())
        elif due[0].kind is DueKind.CARD:
            t.run(DealCard(deck.pop()))
        else:
            t.run(Raise(due[0].position, due[0].player, 200))
    assert t.state.round.settlement is not None and t.reloaded() == t.state


# -- baccarat ---------------------------------------------------------------------------------


@pytest.mark.parametrize("burn", list(BurnRule))
def test_baccarat_virtual_shoes_cut_burn_demo_rounds_and_verified_reveals(burn: BurnRule) -> None:
    fixed = 3 if burn is BurnRule.FIXED else 0
    shoe = ShoeSettings(decks=6, burn_rule=burn, fixed_burn=fixed, demo_rounds=2)
    t = PureTable("baccarat", baccarat_rules(shoe=shoe), seed=5)
    rnd = random.Random(5)
    for _ in range(150):
        baccarat_round(t, rnd)
    assert t.reloaded() == t.state
    opened = [e for e in t.log if isinstance(e, S.ShoeOpened)]
    reveals = [e for e in t.log if isinstance(e, ShoeRevealed)]
    assert len(opened) >= 2 and len(reveals) == len(opened) - 1
    assert all(x.verified for x in reveals)
    demo = [e for e in t.log if isinstance(e, S.RoundStarted) and e.demo]
    assert len(demo) == 2 * len(opened)  # BAC-2.2: the table's demonstration rounds, each shoe
    # the commitment of each shoe is recorded in its ShoeOpened, before any of its cards
    for o, x in zip(opened, reveals, strict=False):
        assert o.commitment == x.commitment
    cut = [e for e in t.log if isinstance(e, S.ShoeCut)]
    assert all(c.cutter is S.Cutter.DEALER for c in cut)  # BAC-2.1: who cut is recorded


def test_baccarat_machine_deals_each_round_from_its_own_committed_shuffle_BAC_7_2() -> None:
    rules = baccarat_rules(shoe=ShoeSettings(decks=8, machine=True), card_holding=False)
    t = PureTable("baccarat", rules, seed=9)
    for _ in range(12):
        t.run(OpenRound(((1, "alice"),)))
        t.run(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
        t.run(BacClose())
        assert t.state.round.is_over
    reveals = [e for e in t.log if isinstance(e, ShoeRevealed)]
    assert len(reveals) == 12 and all(x.verified and x.cut == 0 for x in reveals)
    assert len({x.commitment for x in reveals}) == 12
    assert t.reloaded() == t.state


def test_baccarat_client_cards_shoe_commands_and_settlement_refused_at_a_virtual_table() -> None:
    t = PureTable("baccarat", baccarat_rules())
    t.run(OpenRound(((1, "alice"),)))
    for command, key in [
        (BacDeal(DECK[0]), "tables.mode_refuses"),
        (S.Cut(S.Cutter.PLAYER, "alice", 10), "tables.mode_refuses"),
        (S.Burn((None,)), "tables.mode_refuses"),
        (Settle(), "tables.service_settles"),
    ]:
        with pytest.raises(TableError) as exc:
            t.run(command)
        assert exc.value.key == key


def test_baccarat_live_shoe_opened_cut_burned_then_rounds_from_the_console_BAC_10() -> None:
    rules = baccarat_rules(shoe=ShoeSettings(decks=8), card_holding=False)
    t = PureTable("baccarat", rules, live=True)
    with pytest.raises(TableError) as exc:
        t.run(OpenRound())
    assert exc.value.key == "tables.open_shoe_first"
    from macau_tables.tables.model import OpenShoe

    t.run(OpenShoe())
    with pytest.raises(TableError) as exc:
        t.run(OpenRound())
    assert exc.value.key == "tables.shoe_not_ready"
    t.run(S.Cut(S.Cutter.DEALER, "test", 200))
    t.run(S.Burn((None,) * 8))
    t.run(OpenRound(((1, "alice"),)))
    t.run(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    physical = [Card.parse(x) for x in ("9s", "2h", "Kd", "3c")]
    for card in physical:
        t.run(BacDeal(card))
    assert t.state.round.is_over  # a natural: settled by the service
    assert t.state.deal.shoe.out == 12 and t.state.deal.shoe.current_round is None
    assert t.reloaded() == t.state


@pytest.mark.parametrize(
    ("cards", "action"),
    [
        (0, "resume"),  # betting: the wagers go on
        (2, "resume"),  # mid-deal at a live table: the dealer goes on entering the cards
        (4, "resume"),  # a complete hand (banker 8, no third card), the reveals still due
    ],
)
def test_live_baccarat_recovery_resumes_in_every_phase_BAC_10(cards: int, action: str) -> None:
    rules = baccarat_rules(shoe=ShoeSettings(decks=8), card_holding=True)
    t = PureTable("baccarat", rules, live=True)
    from macau_tables.tables.model import OpenShoe

    t.run(OpenShoe())
    t.run(S.Cut(S.Cutter.DEALER, "test", 200))
    t.run(S.Burn((None,) * 8))
    t.run(OpenRound(((1, "alice"),)))
    t.run(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    for card in [Card.parse(x) for x in ("2s", "3h", "4d", "5c")][:cards]:
        t.run(BacDeal(card))
    b = t.commit(recover(t.batch(), "restart"))
    first = b.records[0].event
    assert isinstance(first, RoundRecovered) and first.rule == "BAC-10" and first.action == action
    assert not t.state.round.is_over and len(t.state.round.cards) == cards


def test_baccarat_with_its_shoe_lost_voids_a_round_that_needs_cards_and_changes_the_shoe() -> None:
    t = PureTable("baccarat", baccarat_rules(card_holding=False))
    t.run(OpenRound(((1, "alice"),)))
    t.run(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    t.state = replace(t.state, deal=t.dealing.load(t.dealing.initial(), t.log))
    b = t.commit(recover(t.batch(), "restart", seal_lost=True))
    kinds = [type(r.event).__name__ for r in b.records]
    assert kinds[0] == "RoundRecovered" and b.records[0].event.action == "void"
    assert "ShoeLost" in kinds and kinds[-1] == "ShoeFinished"
    t.run(OpenRound(((1, "alice"),)))  # a new shoe, shuffled and committed
    assert t.state.deal.shoes == 2 and t.state.deal.sealed is not None
    assert t.reloaded() == t.state


# -- the reveal and its check -----------------------------------------------------------------


def test_reveal_checks_every_card_dealt_against_the_committed_order_after_the_cut() -> None:
    sealed = replace(seal(DECK, SeededRandom(1), 1, "s1"), cut=5)
    dealt = [sealed.card_at(i) for i in range(20)]
    ok = reveal(sealed, dealt)
    assert ok.verified and ok.dealt == 20 and ok.mismatch_at is None
    swapped = [*dealt[:7], dealt[8], dealt[7], *dealt[9:]]
    bad = reveal(sealed, swapped)
    assert not bad.verified and bad.commitment_ok and bad.mismatch_at == 7
    unseen = reveal(sealed, [None, *dealt[1:]])  # a card burned face down counts, unseen
    assert unseen.verified
    forged = reveal(replace(sealed, salts=("00" * 32,) * 52), dealt)
    assert not forged.commitment_ok and not forged.verified
    assert "order" not in repr(sealed) and str(DECK[0]) not in repr(sealed)


def test_a_shoe_that_fails_its_check_stops_the_table() -> None:
    t = PureTable("caribbean", caribbean_rules())
    t.run(OpenRound())
    t.run(PlaceAnte(1, "p1", 100))
    t.run(CloseBetting())
    deck = t.state.deal.deck
    order = list(deck.order)
    order[0], order[1] = order[1], order[0]
    forged = Sealed(
        deck.shoe_no, deck.shoe_id, tuple(order), deck.salts, deck.commitment, deck.leaves
    )
    t.state = replace(t.state, deal=replace(t.state.deal, deck=forged))
    t.run(Fold(1, "p1"))
    assert isinstance(t.log[-1], TableFaulted) and t.state.fault is not None
    with pytest.raises(TableError) as exc:
        t.run(OpenRound())
    assert exc.value.key == "tables.in_fault"


# -- faults, the meter link -------------------------------------------------------------------


def test_a_reported_fault_holds_the_round_until_a_supervisor_clears_it_BAC_10_CSP_11_4() -> None:
    """Dealers report, supervisors decide: the report voids nothing and moves no money; while
    it is in force nothing but a supervisor's decision is taken; cleared, the round goes on."""
    t = PureTable("caribbean", caribbean_rules())
    t.run(OpenRound())
    t.run(PlaceAnte(1, "p1", 100))
    held = t.run(ReportFault("shuffler jammed"))
    assert [type(r.event) for r in held.records] == [TableFaulted]
    assert all(r.postings == () for r in held.records)
    assert t.state.fault is not None and not t.state.round.is_over
    for command in (OpenRound(), PlaceAnte(2, "p2", 100), CloseBetting()):
        with pytest.raises(TableError) as exc:
            t.run(command)
        assert exc.value.key == "tables.in_fault"
    with pytest.raises(TableError):
        t.run(ClearFault("", "ok"))
    assert t.reloaded().fault == t.state.fault
    t.run(ClearFault("sup-1", "shuffler replaced"))
    assert t.state.fault is None and t.reloaded() == t.state
    t.run(PlaceAnte(2, "p2", 100))  # the round goes on from where it stood
    t.run(CloseBetting())
    assert t.state.round.expected_next().phase == "deciding"


def test_a_reported_fault_in_the_decisions_is_decided_by_the_supervisors_void_CSP_11_4() -> None:
    t = PureTable("caribbean", caribbean_rules())
    t.run(OpenRound())
    t.run(PlaceAnte(1, "p1", 100))
    t.run(PlaceJackpotWager(1, "p1"))
    t.run(CloseBetting())
    t.run(ReportFault("the dealer says a card was exposed"))
    assert not t.state.round.is_over
    with pytest.raises(TableError) as exc:
        t.run(Raise(1, "p1", 200))
    assert exc.value.key == "tables.in_fault"
    with pytest.raises(RuleViolation):
        t.run(Void(""))  # a void names its ground (CSP-11.1, CSP-11.4)
    with pytest.raises(RuleViolation):
        t.run(Void("", Ground.EXPOSURES, "sup-1"))  # and gives its reason
    with pytest.raises(RuleViolation):  # all cards dealt: a shuffler's failure voids nothing
        t.run(Void("shuffler jammed", Ground.SHUFFLER_FAILURE, "sup-1"))
    voided = t.run(Void("two cards exposed in error", Ground.EXPOSURES, "sup-1"))
    r = t.state.round
    assert r.is_over and r.void_rule is not None
    assert isinstance(voided.records[-1].event, ShoeRevealed)  # the deck closed, checked
    assert [(w.box, w.player, w.amount) for w in t.state.carried()] == [(1, "p1", 100)]
    assert t.state.fault is not None  # the table stays stopped until cleared
    with pytest.raises(TableError):
        t.run(OpenRound())
    t.run(ClearFault("sup-1", "cards checked, table back in service"))
    t.run(OpenRound())
    assert t.reloaded() == t.state


def test_jackpot_wagers_refused_while_the_meter_cannot_be_reached() -> None:
    t = PureTable("caribbean", caribbean_rules())
    t.meter_up = False
    t.run(OpenRound())
    t.run(PlaceAnte(1, "p1", 100))
    with pytest.raises(TableError) as exc:
        t.run(PlaceJackpotWager(1, "p1"))
    assert exc.value.key == "tables.meter_link_down"
    t.run(CloseBetting())
    t.run(Fold(1, "p1"))  # no jackpot wager in play: settled on the last meter known
    assert t.state.round.is_over
    b = PureTable("baccarat", baccarat_rules())
    b.meter_up = False
    b.run(OpenRound(((1, "alice"),)))
    with pytest.raises(TableError) as exc:
        b.run(PlaceWager("alice", seat(1), WagerKind.JACKPOT, 100))
    assert exc.value.key == "tables.meter_link_down"


def test_a_settlement_with_a_jackpot_wager_waits_for_the_meter() -> None:
    t = PureTable("caribbean", caribbean_rules())
    t.run(OpenRound())
    t.run(PlaceAnte(1, "p1", 100))
    t.run(PlaceJackpotWager(1, "p1"))
    t.run(CloseBetting())
    t.meter_up = False
    t.run(Fold(1, "p1"))
    assert not t.state.round.is_over  # the showdown waits
    t.meter_up = True
    from macau_tables.tables.engine import advance

    b = t.batch()
    advance(b)
    t.commit(b)
    assert t.state.round.is_over


# -- snapshots --------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["caribbean", "baccarat"])
def test_a_snapshot_restores_the_state_and_the_log_continues_from_it(game: str) -> None:
    rules = caribbean_rules() if game == "caribbean" else baccarat_rules()
    t = PureTable(game, rules, seed=11)
    rnd = random.Random(11)
    play = caribbean_round if game == "caribbean" else baccarat_round
    for _ in range(30):
        play(t, rnd)
    data = codec.canonical_bytes(snapshot(t.state, t.dealing))  # JSON-ready
    import json

    resolver = {"cfg": rules}
    restored = restore(t.setup, rules, json.loads(data), t.dealing, resolver.__getitem__)
    assert restored == t.state
    mark = len(t.log)
    for _ in range(10):
        play(t, rnd)
    from macau_tables.tables.engine import load

    assert load(restored, t.log[mark:], t.dealing) == t.state
    sealed = t.state.deal.sealed if game == "baccarat" else None
    if sealed is not None:  # the shoe in play: never its salt (nor its order) in a snapshot
        # (a card the public was shown is published with its salt; no other salt is there)
        text, public = data.decode(), {c.salt for c in t.state.deal.proving.public}
        assert public and sealed.commitment in text
        assert not any(s in text for s in sealed.salts if s not in public)


def test_recover_of_a_table_between_rounds_does_nothing() -> None:
    t = PureTable("baccarat", baccarat_rules())
    baccarat_round(t, random.Random(1))
    b = recover(t.batch(), "restart")
    assert b.records == [] and b.state == t.state


def test_table_state_names_its_rounds_by_table_and_number() -> None:
    t = PureTable("caribbean", caribbean_rules(), table_id="car-7")
    assert isinstance(t.state, TableState) and t.state.next_round_id() == "car-7-1"
    caribbean_round(t, random.Random(2))
    assert t.state.round.round_id == "car-7-1" and t.state.next_round_id() == "car-7-2"


def test_baccarat_settles_a_complete_round_with_the_meter_when_a_jackpot_wager_is_in_play() -> None:
    t = PureTable("baccarat", baccarat_rules(card_holding=False), meter=5_000_000)
    t.run(OpenRound(((1, "alice"),)))
    t.run(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    t.run(PlaceWager("alice", seat(1), WagerKind.JACKPOT, 100))
    t.run(BacClose())
    settled = [e for e in t.log if isinstance(e, BacSettled)][-1]  # after the demo round
    assert settled.settlement.meter_before is not None
    assert settled.settlement.meter_before.amount == 5_000_000
    assert any(isinstance(e, BacCardDealt) for e in t.log)
    assert isinstance(t.state.round, BaccaratRound)


def test_void_by_a_client_is_a_round_command() -> None:
    t = PureTable("caribbean", caribbean_rules())
    t.run(OpenRound())
    t.run(PlaceAnte(1, "p1", 100))
    t.run(Void("shuffler jammed", Ground.SHUFFLER_FAILURE, "sup-1"))
    assert t.state.round.is_over and t.state.carried() == ()
    assert not any(isinstance(e, ShoeLost) for e in t.log)


def test_a_table_without_a_meter_refuses_jackpot_wagers_and_still_plays() -> None:
    t = PureTable("caribbean", caribbean_rules())
    t.state = replace(t.state, setup=replace(t.setup, meter_id=None))
    t.run(OpenRound())
    t.run(PlaceAnte(1, "p1", 100))
    with pytest.raises(TableError) as exc:
        t.run(PlaceJackpotWager(1, "p1"))
    assert exc.value.key == "tables.no_meter"
    t.run(CloseBetting())
    b = t.batch()
    b.meter_reader = None
    from macau_tables.tables.engine import execute

    t.commit(execute(b, Fold(1, "p1")))
    assert t.state.round.is_over


def test_events_of_the_whole_shoe_scheme_still_decode_and_verify() -> None:
    """Common rules "Randomness": a log recorded before the card-by-card scheme — version 1
    deal events without a leaf, a version 1 ``ShoeRevealed`` with one salt over a ``sha256-v1``
    commitment — still decodes, and its reveal verifies (and is re-derived) as before."""
    commitment, revealed = commit_shoe(DECK, SeededRandom(11))
    old = {
        "type": "tables.ShoeRevealed",
        "v": 1,
        "shoe_no": 1,
        "shoe_id": "t1-1-deck",
        "commitment": commitment.digest,
        "order": [str(c) for c in revealed.order],
        "salt": revealed.salt,
        "cut": 0,
        "dealt": 20,
        "commitment_ok": True,
        "dealt_ok": True,
        "mismatch_at": None,
    }
    e = codec.decode(old)
    assert isinstance(e, ShoeRevealed) and e.salts == () and e.public == ()
    assert verify_order(e.commitment, e.order, e.salt_of) and e.verified
    counts = Counts()
    assert _shoe("t1", LoggedEvent(5, None, e), {commitment.digest}, True, counts) is None
    forged = replace(e, salt="00" * 32)
    found = _shoe("t1", LoggedEvent(5, None, forged), {commitment.digest}, True, counts)
    assert found is not None and found.key == "operations.verify_reveal"
    for payload, cls in (
        (
            {"type": "caribbean.CardDealt", "v": 1, "card": "As", "to": 3, "face_up": False},
            CardDealt,
        ),
        ({"type": "baccarat.CardDealt", "v": 1, "slot": "P1", "card": "Kd"}, BacCardDealt),
    ):
        dealt = codec.decode(payload)
        assert isinstance(dealt, cls) and dealt.leaf is None
        assert codec.encode(dealt)["v"] == 2
