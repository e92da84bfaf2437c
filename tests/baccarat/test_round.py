"""The baccarat round state machine (BAC-2.2, BAC-4, BAC-7, BAC-9, BAC-10, BAC-12 … BAC-19)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from macau_tables.approvals import Approval
from macau_tables.baccarat.bets import Outcome, seat, standing
from macau_tables.baccarat.round import (
    DEALER,
    BaccaratRound,
    CardDealt,
    CardRefused,
    CardSlot,
    ChangeCarried,
    CloseBetting,
    Correct,
    CorrectionAction,
    DealCard,
    PlaceWager,
    Reveal,
    RevealPart,
    RevealTimeout,
    RoundPhase,
    Settle,
    Void,
)
from macau_tables.baccarat.rules import (
    ALL_WAGERS,
    BaccaratRules,
    TieOption,
    WagerKind,
    default_limits,
)
from macau_tables.baccarat.sides import Side
from macau_tables.cards import Card, parse_cards
from macau_tables.errors import ParseError, RuleViolation
from macau_tables.jackpot import Combination, Meter

DAY = date(2026, 12, 2)
SEATED = {1: "alice", 2: "bob", 3: "carol"}


def approved(rules: BaccaratRules) -> BaccaratRules:
    """``rules`` with a timely approval for every option it uses."""
    records = tuple(
        Approval(req.option, req.value, f"DICJ-{i}", date(2026, 11, 2), date(2026, 11, 5))
        for i, req in enumerate(rules.options_requiring_approval())
    )
    return replace(rules, approvals=records)


RULES = approved(
    BaccaratRules(
        limits=default_limits(100, ALL_WAGERS),
        max_difference=20_000,
        tie_options=frozenset(TieOption),
    )
)


def open_round(rules: BaccaratRules = RULES, **kw: object) -> BaccaratRound:
    r, _ = BaccaratRound.new(rules, "r1", DAY, seated=SEATED, **kw)  # type: ignore[arg-type]
    return r


def deal(r: BaccaratRound, text: str) -> BaccaratRound:
    for card in parse_cards(text):
        r, _ = r.apply(DealCard(card))
    return r


def refused(r: BaccaratRound, cmd: object, rule: str) -> None:
    with pytest.raises(RuleViolation) as exc:
        r.apply(cmd)  # type: ignore[arg-type]
    assert exc.value.rule == rule
    assert not r.can_apply(cmd)  # type: ignore[arg-type]


def test_expected_next_walks_the_tableau_BAC_7_BAC_9() -> None:
    r = open_round()
    seen = []
    for card in parse_cards("2s 3h Ac Kd 5c 9c"):  # P 3 draws 5 -> 8; B 3 draws on 5 (BAC-9.3)
        seen.append(r.expected_next())
        r, _ = r.apply(DealCard(card))
    assert seen == [
        CardSlot.PLAYER_1,
        CardSlot.BANKER_1,
        CardSlot.PLAYER_2,
        CardSlot.BANKER_2,
        CardSlot.PLAYER_3,
        CardSlot.BANKER_3,
    ]
    assert r.expected_next() is None and r.phase is RoundPhase.COMPLETE
    r = deal(open_round(), "9s 5h Kd 2c")  # natural: nothing more is due
    assert r.expected_next() is None and r.phase is RoundPhase.COMPLETE


def test_full_round_settlement_BAC_17_BAC_18() -> None:
    r = open_round()
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 1000))
    r, _ = r.apply(PlaceWager("dave", standing(1), WagerKind.TIE, 100))
    r, _ = r.apply(CloseBetting())
    r = deal(r, "2s 5h 4c 2d")  # P 6 stands; B 7 stands: banker wins 7-6
    r, _ev = r.apply(Settle())
    assert r.result is not None and r.result.winner is Side.BANKER
    s = r.settlement
    assert s is not None and s.balance == 0
    paid = {x.wager.player: (x.outcome, x.paid, x.commission) for x in s.lines}
    assert paid == {
        "alice": (Outcome.WIN, 1950, 50),
        "bob": (Outcome.LOSE, 0, 0),
        "dave": (Outcome.LOSE, 0, 0),
    }
    assert (s.players, s.commission, s.house) == (1950 - 2100, 50, 2100 - 2000)
    assert BaccaratRound.replay(r.events) == r
    refused(r, Settle(), "BAC-11")


def test_bad_wagers_refused_nothing_changed_BAC_13_BAC_14_BAC_15_BAC_18() -> None:
    r = open_round()
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 15_000))
    refused(r, PlaceWager("alice", seat(1), WagerKind.BANKER, 150), "BAC-18")  # off the unit
    refused(r, PlaceWager("alice", seat(1), WagerKind.TIE, 10_100), "BAC-14")  # above limit
    refused(r, PlaceWager("bob", seat(2), WagerKind.BANKER, 5100), "BAC-14")  # difference
    refused(r, PlaceWager("dave", seat(3), WagerKind.PLAYER, 100), "BAC-15")  # standing
    refused(r, PlaceWager("dave", standing(1), WagerKind.JACKPOT, 200), "BAC-13")
    refused(r, PlaceWager("alice", seat(1), "dragon", 100), "BAC-13")  # type: ignore[arg-type]
    no_side = open_round(BaccaratRules())
    refused(no_side, PlaceWager("alice", seat(1), WagerKind.LUCKY_6, 100), "BAC-13")
    before = r
    r2, _ = r.apply(CloseBetting())
    refused(r2, PlaceWager("bob", seat(2), WagerKind.PLAYER, 100), "BAC-13")  # betting closed
    assert r == before and len(r.wagers) == 1


def test_demo_round_takes_no_wagers_BAC_2_2() -> None:
    r = open_round(demo=True)
    refused(r, PlaceWager("alice", seat(1), WagerKind.BANKER, 100), "BAC-2.2")
    r = deal(r, "9s 5h Kd 2c")
    r, _ = r.apply(Settle())
    assert r.settlement is not None and r.settlement.lines == ()


def test_option_without_approval_refused_at_opening_BAC_19() -> None:
    unapproved = replace(RULES, approvals=())
    with pytest.raises(RuleViolation) as exc:
        BaccaratRound.new(unapproved, "r", DAY)
    assert exc.value.rule in ("BAC-19", "BAC-17")
    _r, ev = BaccaratRound.new(RULES, "r", DAY)
    assert ev[0].approval_references  # the approvals relied on are recorded


def test_virtual_mode_wrong_card_raises_nothing_changed_BAC_9() -> None:
    r = deal(open_round(), "9s 5h Kd 2c")
    refused(r, DealCard("3c"), "BAC-9")  # a third card when none is due
    r = deal(open_round(), "2s")
    refused(r, DealCard("3c", CardSlot.PLAYER_2), "BAC-7")  # B1 is due
    refused(r, DealCard("3c", CardSlot.PLAYER_3), "BAC-9")


def test_live_card_not_due_is_flagged_then_corrected_BAC_10() -> None:
    r = deal(open_round(live=True), "2s 3h Ac")
    r2, ev = r.apply(DealCard("Kd", CardSlot.PLAYER_3))  # dealer put it in the wrong place
    assert isinstance(ev[0], CardRefused) and ev[0].rule == "BAC-9"
    assert r2.cards == r.cards and r2.wagers == r.wagers and r2.pending == ev[0]
    assert r2.flags == (ev[0],) and r2.expected_next() is None
    refused(r2, DealCard("5c"), "BAC-10")  # nothing more until the supervisor acts
    refused(r2, Correct("", "misplaced", CorrectionAction.REASSIGN), "BAC-10")  # no supervisor
    refused(r2, Correct("sup-1", "", CorrectionAction.REASSIGN), "BAC-10")  # no reason
    r3, ev = r2.apply(Correct("sup-1", "card placed in P3 box", CorrectionAction.REASSIGN))
    assert isinstance(ev[1], CardDealt) and ev[1].slot is CardSlot.BANKER_2
    assert r3.pending is None and r3.cards[-1] == (CardSlot.BANKER_2, Card.parse("Kd"))
    assert BaccaratRound.replay(r3.events) == r3


def test_live_third_card_when_none_due_withdrawn_BAC_9_BAC_10() -> None:
    r = deal(open_round(live=True), "9s 5h Kd 2c")
    r, ev = r.apply(DealCard("3c"))
    assert isinstance(ev[0], CardRefused) and ev[0].rule == "BAC-9" and ev[0].possible
    refused(r, Correct("sup", "no draw on a natural", CorrectionAction.REASSIGN), "BAC-9")
    r, _ = r.apply(Correct("sup", "no draw on a natural", CorrectionAction.WITHDRAW))
    assert r.discarded == (Card.parse("3c"),)  # it left the shoe
    assert r.phase is RoundPhase.COMPLETE and len(r.cards) == 4


def test_no_settlement_while_a_refused_card_awaits_the_supervisor_BAC_10() -> None:
    r = open_round(live=True)
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    r = deal(r, "9s 5h Kd 2c")  # complete: player natural
    assert r.phase is RoundPhase.COMPLETE
    r, ev = r.apply(DealCard("3c"))  # a card drawn after the round is complete
    assert isinstance(ev[0], CardRefused) and r.pending == ev[0]
    refused(r, Settle(), "BAC-10")  # the refused card must not be forgotten
    r, _ = r.apply(Correct("sup", "drawn after the round", CorrectionAction.WITHDRAW))
    r, _ = r.apply(Settle())
    assert r.discarded == (Card.parse("3c"),) and r.settlement is not None


def test_live_impossible_card_flagged_BAC_1_BAC_10() -> None:
    avail = [8] * 52
    avail[Card.parse("As").index] = 0  # every A♠ is already out of this shoe
    r = open_round(live=True, available=avail)
    r, ev = r.apply(DealCard("As"))
    assert isinstance(ev[-1], CardRefused) and ev[-1].rule == "BAC-1" and not ev[-1].possible
    assert r.cards == ()
    refused(r, Correct("sup", "foreign card", CorrectionAction.REASSIGN), "BAC-1")
    r, _ = r.apply(Correct("sup", "foreign card", CorrectionAction.WITHDRAW))
    assert r.discarded == () and r.pending is None  # not from this shoe: not counted


def test_round_counts_copies_it_deals_BAC_1() -> None:
    avail = [8] * 52
    avail[Card.parse("9s").index] = 1
    r = deal(open_round(available=avail), "9s")
    refused(r, DealCard("9s"), "BAC-1")


def test_void_with_a_refused_card_counts_it_out_of_the_shoe_BAC_10() -> None:
    r = deal(open_round(live=True), "9s 5h Kd 2c")
    r, _ = r.apply(DealCard("3c"))
    r, _ = r.apply(Void("sup", "dealer error"))
    assert r.pending is None and r.discarded == (Card.parse("3c"),)
    assert BaccaratRound.replay(r.events) == r


def test_supervisor_withdraws_last_card_BAC_10() -> None:
    r = deal(open_round(live=True), "2s 3h Ac")
    r, _ev = r.apply(Correct("sup", "typed the wrong card", CorrectionAction.WITHDRAW))
    assert len(r.cards) == 2 and r.discarded == (Card.parse("Ac"),)
    assert r.expected_next() is CardSlot.PLAYER_2


def test_virtual_round_has_nothing_to_correct_BAC_10() -> None:
    r = deal(open_round(), "9s 5h Kd 2c")  # dealt from the committed shoe
    refused(r, Correct("sup", "take the natural back", CorrectionAction.WITHDRAW), "BAC-10")
    refused(r, Correct("sup", "move it", CorrectionAction.REASSIGN), "BAC-10")
    r, _ = r.apply(Void("sup", "fault"))  # voiding stays possible
    assert r.phase is RoundPhase.VOID


def test_unreadable_commands_are_parse_errors_nothing_changed_BAC_7_BAC_10_BAC_16() -> None:
    r = deal(open_round(live=True, rules=replace(RULES, card_holding=True)), "2s 3h")
    for bad in (
        DealCard("Zz"),
        DealCard("Ac", "Q9"),  # type: ignore[arg-type]
        Correct("sup", "why", "undo"),  # type: ignore[arg-type]
        Reveal("dragon", RevealPart.FIRST_TWO, DEALER),  # type: ignore[arg-type]
        RevealTimeout(Side.PLAYER, "all"),  # type: ignore[arg-type]
    ):
        with pytest.raises(ParseError):
            r.apply(bad)
    assert BaccaratRound.replay(r.events) == r and len(r.cards) == 2 and r.pending is None


def test_card_exposed_in_error_stays_valid_BAC_4() -> None:
    r = open_round()
    r, _ = r.apply(DealCard("9s", exposed=True))
    assert r.exposed == (CardSlot.PLAYER_1,) and r.cards[0][1] == Card.parse("9s")
    r = deal(r, "5h Kd 2c")
    r, _ = r.apply(Settle())
    assert r.result is not None and r.result.winner is Side.PLAYER


def test_void_returns_every_wager_BAC_10() -> None:
    r = open_round()
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    r, _ = r.apply(PlaceWager("dave", standing(2), WagerKind.JACKPOT, 100))
    r = deal(r, "2s 3h")
    refused(r, Void("", "cannot correct"), "BAC-10")
    r, _ = r.apply(Void("sup-2", "cards out of order, cannot be corrected"))
    assert r.phase is RoundPhase.VOID
    s = r.settlement
    assert s is not None and all(x.outcome is Outcome.RETURNED for x in s.lines)
    assert sum(x.paid for x in s.lines) == 1100 and s.players == 0 and s.balance == 0
    refused(r, DealCard("4c"), "BAC-9")
    refused(r, Void("sup-2", "again"), "BAC-10")


def _tied_round(rules: BaccaratRules = RULES) -> BaccaratRound:
    r = open_round(rules)
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 600))
    r, _ = r.apply(PlaceWager("carol", seat(3), WagerKind.TIE, 100))
    r = deal(r, "7s 7h Kc Kd")
    r, _ = r.apply(Settle())
    return r


def test_tie_carries_banker_and_player_wagers_BAC_12() -> None:
    r = _tied_round()
    s = r.settlement
    assert s is not None and s.balance == 0
    carried = r.carried_out()
    assert [(w.player, w.kind, w.amount) for w in carried] == [
        ("alice", WagerKind.BANKER, 1000),
        ("bob", WagerKind.PLAYER, 600),
    ]
    assert s.carried == 1600
    nxt, _ev = BaccaratRound.new(RULES, "r2", DAY, seated=SEATED, carried=carried)
    assert [w.wager_id for w in nxt.wagers] == [1, 2] and all(w.carried for w in nxt.wagers)
    refused(nxt, ChangeCarried(1, "bob", TieOption.WITHDRAW), "BAC-12")  # not bob's
    nxt, _ = nxt.apply(ChangeCarried(1, "alice", TieOption.REDUCE, 400))
    nxt, _ = nxt.apply(ChangeCarried(2, "bob", TieOption.SWITCH))
    assert [(w.kind, w.amount) for w in nxt.wagers] == [
        (WagerKind.BANKER, 400),
        (WagerKind.BANKER, 600),
    ]
    refused(nxt, ChangeCarried(1, "alice", TieOption.REDUCE, 500), "BAC-12")  # not a reduction
    nxt = deal(nxt, "9s 5h Kd 2c")  # player wins
    nxt, _ = nxt.apply(Settle())
    s2 = nxt.settlement
    assert s2 is not None and s2.balance == 0
    # carried-in stakes (1600) came from the carry account: 600 returned + 1000 lost
    assert s2.carried == -1600 and s2.players == 600 and s2.house == 1000
    assert BaccaratRound.replay(nxt.events) == nxt


def test_tie_options_are_a_table_setting_BAC_12() -> None:
    leave_only = BaccaratRules()
    r = _tied_round(leave_only)
    nxt, _ = BaccaratRound.new(leave_only, "r2", DAY, seated=SEATED, carried=r.carried_out())
    refused(nxt, ChangeCarried(1, "alice", TieOption.WITHDRAW), "BAC-12")
    refused(nxt, ChangeCarried(1, "alice", TieOption.SWITCH), "BAC-12")
    nxt, _ = nxt.apply(ChangeCarried(1, "alice", TieOption.LEAVE))
    withdraw_only = approved(BaccaratRules(tie_options=frozenset({TieOption.WITHDRAW})))
    nxt, _ = BaccaratRound.new(withdraw_only, "r3", DAY, seated=SEATED, carried=r.carried_out())
    nxt, _ev = nxt.apply(CloseBetting())  # not allowed to stay: handed back at close
    assert nxt.wagers == () and len(nxt.returned) == 2
    nxt = deal(nxt, "9s 5h Kd 2c")
    nxt, _ = nxt.apply(Settle())
    assert nxt.settlement is not None and nxt.settlement.players == 1600


def test_difference_limit_counts_only_wagers_still_in_play_at_close_BAC_12_BAC_14() -> None:
    """Where "left" is not allowed, a carried wager nobody acts on goes back at close (BAC-12),
    so it cannot balance a new wager against the BAC-14 limit."""
    rules = approved(
        BaccaratRules(
            tie_options=frozenset({TieOption.WITHDRAW, TieOption.SWITCH}), max_difference=1000
        )
    )
    carried = _tied_round(rules).carried_out()  # alice banker 1000, bob player 600
    nxt, _ = BaccaratRound.new(rules, "r2", DAY, seated=SEATED, carried=carried)
    # With both carried wagers counted this was banker 1000 vs player 2000, within the limit;
    # but they go back at close, leaving player 1400 alone.
    refused(nxt, PlaceWager("carol", seat(3), WagerKind.PLAYER, 1400), "BAC-14")
    nxt, _ = nxt.apply(PlaceWager("carol", seat(3), WagerKind.PLAYER, 1000))
    refused(nxt, ChangeCarried(1, "alice", TieOption.SWITCH), "BAC-14")  # player 2000 vs 0
    nxt, _ = nxt.apply(ChangeCarried(1, "alice", TieOption.WITHDRAW))
    nxt, _ = nxt.apply(CloseBetting())
    assert [(w.player, w.amount) for w in nxt.wagers] == [("carol", 1000)]


def test_card_holding_reveals_BAC_16() -> None:
    rules = replace(RULES, card_holding=True)
    r = open_round(rules)
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 500))
    r, _ = r.apply(PlaceWager("carol", seat(3), WagerKind.PLAYER, 500))
    assert r.holder(Side.BANKER) == "alice" and r.holder(Side.PLAYER) == "bob"  # lowest seat
    r = deal(r, "2s 3h Ac Kd")
    assert r.expected_next() is None
    refused(r, Reveal(Side.BANKER, RevealPart.FIRST_TWO, "alice"), "BAC-16.2")  # player first
    refused(r, Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "carol"), "BAC-16.2")
    refused(r, Reveal(Side.PLAYER, RevealPart.FIRST_TWO, DEALER), "BAC-16.2")
    r, _ = r.apply(Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "bob"))
    r, _ = r.apply(RevealTimeout(Side.BANKER, RevealPart.FIRST_TWO))
    r, _ = r.apply(Reveal(Side.BANKER, RevealPart.FIRST_TWO, DEALER))
    assert r.expected_next() is CardSlot.PLAYER_3
    r = deal(r, "5c")
    assert r.expected_next() is None  # the drawn card is revealed on its own first
    r, _ = r.apply(Reveal(Side.PLAYER, RevealPart.THIRD, "bob"))
    r = deal(r, "9c")
    r, _ = r.apply(Reveal(Side.BANKER, RevealPart.THIRD, "alice"))
    assert r.phase is RoundPhase.COMPLETE
    r, _ = r.apply(Settle())
    assert BaccaratRound.replay(r.events) == r
    refused(open_round(), Reveal(Side.PLAYER, RevealPart.FIRST_TWO, DEALER), "BAC-16.1")


def test_after_the_time_out_only_the_dealer_reveals_BAC_16() -> None:
    rules = replace(RULES, card_holding=True)
    r = open_round(rules)
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 500))
    r = deal(r, "2s 3h Ac Kd")  # P 3 draws, B 3
    r, _ = r.apply(RevealTimeout(Side.PLAYER, RevealPart.FIRST_TWO))
    refused(r, Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "bob"), "BAC-16.2")  # too late
    refused(r, RevealTimeout(Side.PLAYER, RevealPart.FIRST_TWO), "BAC-16.2")  # runs out once
    r, _ = r.apply(Reveal(Side.PLAYER, RevealPart.FIRST_TWO, DEALER))
    r, _ = r.apply(Reveal(Side.BANKER, RevealPart.FIRST_TWO, "alice"))
    r = deal(r, "5c")
    # The drawn card is held separately, with its own time: the holder may reveal it.
    r, _ = r.apply(Reveal(Side.PLAYER, RevealPart.THIRD, "bob"))
    assert BaccaratRound.replay(r.events) == r


def test_jackpot_settlement_and_meter_BAC_17() -> None:
    r = open_round()
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.JACKPOT, 100))
    r, _ = r.apply(PlaceWager("dave", standing(1), WagerKind.JACKPOT, 100))
    r = deal(r, "3s 2h 3c 5d")  # P 3-3 pair = 6 stands, B 7 stands: single pair
    with pytest.raises(ValueError):
        r.apply(Settle())  # the meter is needed
    meter = Meter(10_000, 1_000)
    r, _ = r.apply(Settle(meter))
    s = r.settlement
    assert s is not None and s.combination is Combination.SINGLE_PAIR
    fixed = RULES.jackpot_fixed_awards[Combination.SINGLE_PAIR]
    assert [x.paid for x in s.lines] == [fixed, fixed]
    assert s.meter_after is not None and s.meter_after.amount == 10_000 + 100  # contributions
    assert s.meter_after.amount - meter.amount == s.meter
    assert s.balance == 0
