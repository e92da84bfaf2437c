"""Property tests of the baccarat round (hypothesis): money conservation per round, replay equals
the live round, a voided round returns every wager, no card beyond what the shoe holds, and
the hand-off of tied wagers across rounds (BAC-1, BAC-10, BAC-12, BAC-17, BAC-18)."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables.approvals import Approval
from macau_tables.baccarat.bets import Area, Outcome, seat, standing
from macau_tables.baccarat.round import (
    BaccaratRound,
    CardRefused,
    ChangeCarried,
    CloseBetting,
    Correct,
    CorrectionAction,
    DealCard,
    PlaceWager,
    RoundPhase,
    Settle,
    Void,
    deal_from,
)
from macau_tables.baccarat.rules import (
    ALL_WAGERS,
    BaccaratRules,
    CommissionMode,
    TieOption,
    WagerKind,
    default_limits,
)
from macau_tables.baccarat.shoe import SequenceSource
from macau_tables.baccarat.tableau import deal_round
from macau_tables.cards import DECK, Card, new_shoe
from macau_tables.errors import RuleViolation
from macau_tables.jackpot import Meter
from macau_tables.rng import SeededRandom, shuffle

DAY = date(2026, 12, 2)
SEATED = {1: "alice", 2: "bob", 3: "carol"}
PEOPLE: list[tuple[str, Area]] = [
    ("alice", seat(1)),
    ("bob", seat(2)),
    ("carol", seat(3)),
    ("dave", standing(1)),
    ("erin", standing(2)),
]


def approved(rules: BaccaratRules) -> BaccaratRules:
    records = tuple(
        Approval(q.option, q.value, f"R{i}", date(2026, 11, 2), date(2026, 11, 5))
        for i, q in enumerate(rules.options_requiring_approval())
    )
    return replace(rules, approvals=records)


STANDARD = approved(
    BaccaratRules(
        limits=default_limits(100, ALL_WAGERS),
        max_difference=30_000,
        tie_options=frozenset(TieOption),
    )
)
NO_COMMISSION = approved(replace(STANDARD, commission=CommissionMode.NO_COMMISSION, approvals=()))

wagers_st = st.lists(
    st.tuples(st.integers(0, 4), st.sampled_from(list(WagerKind)), st.integers(1, 120)),
    max_size=12,
)


def place_all(r: BaccaratRound, wagers: list[tuple[int, WagerKind, int]]) -> BaccaratRound:
    for who, kind, units in wagers:
        player, area = PEOPLE[who]
        amount = r.rules.jackpot_wager if kind is WagerKind.JACKPOT else units * 100
        try:
            r2, _ = r.apply(PlaceWager(player, area, kind, amount))
        except RuleViolation:
            continue  # refused: the round is unchanged (it is a value; nothing to roll back)
        assert len(r2.wagers) == len(r.wagers) + 1
        r = r2
    return r


def shoe_cards(seed: int) -> tuple[Card, ...]:
    return tuple(shuffle(new_shoe(8), SeededRandom(seed)))


@settings(max_examples=150, deadline=None)
@given(wagers_st, st.integers(0, 2**32), st.booleans(), st.integers(0, 5_000_000))
def test_money_conserved_and_replay_equals_live_BAC_17_BAC_18(
    wagers: list[tuple[int, WagerKind, int]], seed: int, no_commission: bool, meter_amount: int
) -> None:
    rules = NO_COMMISSION if no_commission else STANDARD
    r, _ = BaccaratRound.new(rules, "r", DAY, seated=SEATED)
    r = place_all(r, wagers)
    r, _ = r.apply(CloseBetting())
    r, _, used = deal_from(r, SequenceSource(shoe_cards(seed)), 0)
    meter = Meter(meter_amount, 1_000)
    r, _ = r.apply(Settle(meter))
    s = r.settlement
    assert s is not None and r.result is not None
    assert r.result == deal_round(shoe_cards(seed)) and used == r.result.cards_used
    assert s.balance == 0  # players + commission + house + meter + carried = 0
    assert s.players + s.commission + s.house + s.meter + s.carried == 0
    for line in s.lines:
        assert line.paid + line.commission + line.house + line.meter + line.carried == (
            line.wager.amount
        )
    if s.meter_after is not None:
        assert s.meter_after.amount == meter.amount + s.meter  # the meter moved by its net
    assert BaccaratRound.replay(r.events) == r


@settings(max_examples=100, deadline=None)
@given(wagers_st, st.integers(0, 2**32), st.integers(0, 6))
def test_void_returns_every_wager_BAC_10(
    wagers: list[tuple[int, WagerKind, int]], seed: int, cards_before_void: int
) -> None:
    r, _ = BaccaratRound.new(STANDARD, "r", DAY, seated=SEATED)
    r = place_all(r, wagers)
    staked = sum(w.amount for w in r.wagers)
    for card in shoe_cards(seed)[:cards_before_void]:
        if r.expected_next() is None:
            break
        r, _ = r.apply(DealCard(card))
    r, _ = r.apply(Void("sup", "cannot be corrected"))
    s = r.settlement
    assert s is not None
    assert all(x.outcome is Outcome.RETURNED for x in s.lines)
    assert sum(x.paid for x in s.lines) == staked and s.players == 0 and s.balance == 0
    assert BaccaratRound.replay(r.events) == r


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(DECK), min_size=1, max_size=40),
    st.lists(st.integers(0, 2), min_size=52, max_size=52),
)
def test_live_round_never_takes_more_copies_than_the_shoe_holds_BAC_1(
    stream: list[Card], avail: list[int]
) -> None:
    """Live console: random cards arrive; impossible or undue ones are flagged and withdrawn."""
    rules = approved(replace(STANDARD, shoe=replace(STANDARD.shoe, decks=6)))
    r, _ = BaccaratRound.new(rules, "r", DAY, live=True, available=avail)
    for card in stream:
        if r.phase is RoundPhase.COMPLETE:
            break
        before = r
        r, ev = r.apply(DealCard(card))
        if isinstance(ev[-1], CardRefused):
            assert r.cards == before.cards and r.wagers == before.wagers
            r, _ = r.apply(Correct("sup", "refused card", CorrectionAction.WITHDRAW))
        for c in DECK:  # dealt + withdrawn-from-the-shoe copies never exceed what it holds
            assert r.used_in_round(c) <= avail[c.index]
    assert BaccaratRound.replay(r.events) == r


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32),
    st.lists(
        st.tuples(st.sampled_from(list(TieOption)), st.integers(1, 10)), min_size=0, max_size=6
    ),
)
def test_tied_wagers_hand_off_conserves_money_BAC_12(
    seed: int, choices: list[tuple[TieOption, int]]
) -> None:
    """Across a sequence of rounds with carried wagers, all money is accounted for."""
    cards = shoe_cards(seed)
    pos = 0
    carried: tuple = ()
    total_players = total_carried = total_other = 0
    for k in range(12):
        r, _ = BaccaratRound.new(STANDARD, f"r{k}", DAY, seated=SEATED, carried=carried)
        for i, (option, units) in enumerate(choices):
            if not r.wagers:
                break
            w = r.wagers[i % len(r.wagers)]
            if not w.carried:
                continue
            amount = None if option is not TieOption.REDUCE else min(units * 100, w.amount - 100)
            with contextlib.suppress(RuleViolation):
                r, _ = r.apply(ChangeCarried(w.wager_id, w.player, option, amount))
        r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
        r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 800))
        r, _, pos = deal_from(r, SequenceSource(cards), pos)
        r, _ = r.apply(Settle())
        s = r.settlement
        assert s is not None and s.balance == 0
        total_players += s.players
        total_carried += s.carried
        total_other += s.commission + s.house + s.meter
        carried = r.carried_out()
        assert total_carried == sum(w.amount for w in carried)
    assert total_players + total_carried + total_other == 0
