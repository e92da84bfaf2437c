"""The baccarat round state machine (BAC-2.2, BAC-4, BAC-7, BAC-9, BAC-10, BAC-12 … BAC-19)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from macau_tables.baccarat.bets import seat, standing
from macau_tables.baccarat.commands import (
    ChangeCarried,
    CloseBetting,
    Correct,
    CorrectionAction,
    DealCard,
    PlaceWager,
    Reveal,
    RevealPart,
    RevealTimeout,
    Settle,
    Void,
    WithdrawWager,
)
from macau_tables.baccarat.events import CardDealt, CardRefused, RoundOpened, RoundPhase
from macau_tables.baccarat.round import BaccaratRound, CardSlot
from macau_tables.baccarat.rules import (
    BaccaratRules,
    TieOption,
    WagerKind,
)
from macau_tables.baccarat.sides import Side
from macau_tables.cards import Card, parse_cards
from macau_tables.errors import RuleViolation
from macau_tables.jackpot import Combination, Meter
from macau_tables.rounds import DEALER, Outcome
from macau_tables.voids import Ground

from .support import DAY, RULES, SEATED, approved, open_round

SEED = RULES.jackpot_seed


def deal(r: BaccaratRound, text: str) -> BaccaratRound:
    for card in parse_cards(text):
        r, _ = r.apply(DealCard(card))
    return r


def refused(r: BaccaratRound, cmd: object, rule: str) -> RuleViolation:
    with pytest.raises(RuleViolation) as exc:
        r.apply(cmd)  # type: ignore[arg-type]
    assert exc.value.rule == rule, exc.value
    assert not r.can_apply(cmd)
    err = r.check(cmd)
    assert isinstance(err, RuleViolation) and err.rule == rule and err.key == exc.value.key
    return exc.value


def test_card_due_walks_the_tableau_BAC_7_BAC_9() -> None:
    r = open_round()
    seen = []
    for card in parse_cards("2s 3h Ac Kd 5c 9c"):  # P 3 draws 5 -> 8; B 3 draws on 5 (BAC-9.3)
        seen.append(r.card_due())
        r, _ = r.apply(DealCard(card))
    assert seen == [
        CardSlot.PLAYER_1,
        CardSlot.BANKER_1,
        CardSlot.PLAYER_2,
        CardSlot.BANKER_2,
        CardSlot.PLAYER_3,
        CardSlot.BANKER_3,
    ]
    assert r.card_due() is None and r.phase is RoundPhase.COMPLETE
    r = deal(open_round(), "9s 5h Kd 2c")  # natural: nothing more is due
    assert r.card_due() is None and r.phase is RoundPhase.COMPLETE


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
    paid = {x.player: (x.outcome, x.paid, x.commission) for x in s.lines}
    assert paid == {
        "alice": (Outcome.WON, 1950, 50),
        "bob": (Outcome.LOST, 0, 0),
        "dave": (Outcome.LOST, 0, 0),
    }
    assert s.wager_ids == (1, 2, 3) and s.line(1) == s.lines[0]
    assert (s.players, s.commission, s.house) == (1950 - 2100, 50, 2100 - 2000)
    assert BaccaratRound.replay(r.events) == r
    refused(r, Settle(), "BAC-11")


def test_bad_wagers_refused_nothing_changed_BAC_13_BAC_14_BAC_15_BAC_18() -> None:
    r = open_round()
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 15_000))
    refused(r, PlaceWager("alice", seat(1), WagerKind.BANKER, 150), "BAC-18")  # off the unit
    refused(r, PlaceWager("alice", seat(1), WagerKind.TIE, 10_100), "BAC-14")  # above limit
    refused(r, PlaceWager("alice", seat(1), WagerKind.BANKER, 85_100), "BAC-14")  # area total
    refused(r, PlaceWager("dave", seat(3), WagerKind.PLAYER, 100), "BAC-15")  # standing
    refused(r, PlaceWager("dave", standing(1), WagerKind.JACKPOT, 200), "BAC-13")
    refused(r, PlaceWager("alice", seat(1), "dragon", 100), "BAC-13")  # type: ignore[arg-type]
    no_side = open_round(BaccaratRules())
    refused(no_side, PlaceWager("alice", seat(1), WagerKind.LUCKY_6, 100), "BAC-13")
    before = r
    r2, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 15_000))
    r2, _ = r2.apply(CloseBetting())
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
    r = BaccaratRound.new(RULES, "r", DAY, config_id="table-7/v3")
    opened = r.events[0]
    assert isinstance(opened, RoundOpened) and opened.approval_references  # relied on
    assert opened.config_id == "table-7/v3" == r.config_id


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
    assert (
        ev[0].message == "card to player card 3 but banker card 2 is due"
        and ev[0].text("zh-Hant") != ev[0].message
    )
    assert r2.cards == r.cards and r2.wagers == r.wagers and r2.pending == ev[0]
    assert r2.flags == (ev[0],) and r2.card_due() is None
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
    r, _ = r.apply(Void("sup", "dealer error", Ground.UNCORRECTABLE))
    assert r.pending is None and r.discarded == (Card.parse("3c"),)
    assert BaccaratRound.replay(r.events) == r


def test_supervisor_strikes_a_mistyped_card_BAC_10() -> None:
    r = deal(open_round(live=True), "2s 3h Ac")
    r, ev = r.apply(Correct("sup", "typed the wrong card", CorrectionAction.MISTYPED))
    assert ev[0].slot is CardSlot.PLAYER_2 and not ev[0].discarded
    # the card on the table is entered again: the typed one never left the shoe
    assert len(r.cards) == 2 and r.discarded == () and r.card_due() is CardSlot.PLAYER_2
    r = deal(r, "Ad")
    assert r.cards[-1] == (CardSlot.PLAYER_2, Card.parse("Ad"))
    assert BaccaratRound.replay(r.events) == r


def test_only_a_wrongly_dealt_card_can_be_withdrawn_BAC_4_BAC_10() -> None:
    """Old behaviour: ``Correct(WITHDRAW)`` removed any last card, even the one that completed
    the round, changing the winner. Now a correction removes only a refused card or a card the
    dealer reports as mistyped before it is revealed, exposed or completes the hand."""
    done = deal(open_round(live=True), "9s 5h Kd 2c")  # complete: player natural 9
    assert done.phase is RoundPhase.COMPLETE
    err = refused(done, Correct("sup", "take it back", CorrectionAction.WITHDRAW), "BAC-10")
    assert err.key == "baccarat.no_refused_card"
    refused(done, Correct("sup", "mistyped", CorrectionAction.MISTYPED), "BAC-10")
    # a validly dealt card that did not complete the hand is not "withdrawn" either
    mid = deal(open_round(live=True), "2s 3h Ac")
    refused(mid, Correct("sup", "take it back", CorrectionAction.WITHDRAW), "BAC-10")
    # BAC-4: a card exposed in error stays valid
    exposed, _ = deal(open_round(live=True), "2s 3h").apply(DealCard("Ac", exposed=True))
    refused(exposed, Correct("sup", "mistyped", CorrectionAction.MISTYPED), "BAC-4")
    # BAC-16: a revealed card has been seen by everyone
    holding = replace(RULES, card_holding=True)
    r = open_round(holding, live=True)
    r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 500))
    r = deal(r, "2s 3h Ac Kd")  # P 3 draws, B 3
    r, _ = r.apply(Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "bob"))
    r, _ = r.apply(Reveal(Side.BANKER, RevealPart.FIRST_TWO, DEALER))
    r = deal(r, "5c")  # P3: the banker still draws on 3 (BAC-9.3)
    r, _ = r.apply(Reveal(Side.PLAYER, RevealPart.THIRD, "bob"))
    refused(r, Correct("sup", "mistyped", CorrectionAction.MISTYPED), "BAC-10")
    assert r.card_due() is CardSlot.BANKER_3
    # nothing entered: nothing mistyped
    refused(open_round(live=True), Correct("s", "r", CorrectionAction.MISTYPED), "BAC-10")


def test_a_held_card_struck_as_mistyped_tells_nothing_of_the_hidden_cards_BAC_10_BAC_16() -> None:
    """Old behaviour: with the four first cards held face down (BAC-16), striking the fourth
    as mistyped was refused ``completing_card_stays`` when they made a natural and accepted
    otherwise — the supervisor, to whom they are face down, learned whether the hand was a
    natural. Now a held card from the fourth on stays, whatever the cards, with one refusal."""
    holding = replace(RULES, card_holding=True)
    answers = []
    for cards in ("9s 2h Kd 3c", "2s 4h 3d 2c"):  # a player natural 9; player 5, banker 6
        r = open_round(holding, live=True)
        r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 500))
        r = deal(r, cards)
        err = refused(r, Correct("sup", "mistyped", CorrectionAction.MISTYPED), "BAC-10")
        answers.append((err.key, err.params, err.text("en"), err.text("zh-Hant")))
    assert answers[0] == answers[1]
    assert answers[0][0] == "baccarat.held_card_may_complete"
    # the first three held cards can never complete a hand: they can still be struck
    r = open_round(holding, live=True)
    r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 500))
    r, ev = deal(r, "9s 2h Kd").apply(Correct("sup", "typo", CorrectionAction.MISTYPED))
    assert ev[0].slot is CardSlot.PLAYER_2


def test_virtual_round_has_nothing_to_correct_BAC_10() -> None:
    r = deal(open_round(), "9s 5h Kd 2c")  # dealt from the committed shoe
    refused(r, Correct("sup", "take the natural back", CorrectionAction.WITHDRAW), "BAC-10")
    refused(r, Correct("sup", "move it", CorrectionAction.REASSIGN), "BAC-10")
    r, _ = r.apply(Void("sup", "fault", Ground.UNCORRECTABLE))  # voiding stays possible
    assert r.phase is RoundPhase.VOID


def test_unreadable_commands_are_refused_with_the_field_s_rule_BAC_1_BAC_7_BAC_10_BAC_16() -> None:
    r = deal(open_round(live=True, rules=replace(RULES, card_holding=True)), "2s 3h")
    for bad, rule in (
        (DealCard("Zz"), "BAC-1"),
        (DealCard(None), "BAC-1"),  # type: ignore[arg-type]
        (DealCard("Ac", "Q9"), "BAC-7"),  # type: ignore[arg-type]
        (DealCard("Ac", exposed="yes"), "BAC-4"),  # type: ignore[arg-type]
        (Correct("sup", "why", "undo"), "BAC-10"),  # type: ignore[arg-type]
        (Reveal("dragon", RevealPart.FIRST_TWO, DEALER), "BAC-16"),  # type: ignore[arg-type]
        (Reveal(Side.TIE, RevealPart.FIRST_TWO, DEALER), "BAC-16"),
        (RevealTimeout(Side.PLAYER, "all"), "BAC-16"),  # type: ignore[arg-type]
        ("DealCard Ac", "COMMAND"),
        (None, "COMMAND"),
    ):
        err = refused(r, bad, rule)
        assert err.key.startswith(("baccarat.", "voids.")) and err.text("zh-Hant")
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
    refused(r, Void("", "cannot correct", Ground.UNCORRECTABLE), "BAC-10")
    r, _ = r.apply(Void("sup-2", "cards out of order, cannot be corrected", Ground.UNCORRECTABLE))
    assert r.phase is RoundPhase.VOID
    s = r.settlement
    assert s is not None and all(x.outcome is Outcome.RETURNED for x in s.lines)
    assert sum(x.paid for x in s.lines) == 1100 and s.players == 0 and s.balance == 0
    refused(r, DealCard("4c"), "BAC-9")
    refused(r, Void("sup-2", "again", Ground.UNCORRECTABLE), "BAC-10")


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
    assert [x.outcome for x in s.lines] == [Outcome.CARRIED_OVER, Outcome.CARRIED_OVER, Outcome.WON]
    carried = r.carried_out()
    assert [(w.player, w.kind, w.amount) for w in carried] == [
        ("alice", WagerKind.BANKER, 1000),
        ("bob", WagerKind.PLAYER, 600),
    ]
    assert s.carried == 1600
    nxt = BaccaratRound.new(RULES, "r2", DAY, seated=SEATED, carried=carried)
    assert [w.wager_id for w in nxt.wagers] == [1, 2] and all(w.carried for w in nxt.wagers)
    refused(nxt, ChangeCarried(1, "bob", TieOption.WITHDRAW), "BAC-12")  # not bob's
    refused(nxt, ChangeCarried(1, "alice", "keep"), "BAC-12")  # type: ignore[arg-type]
    refused(nxt, ChangeCarried("1", "alice", TieOption.LEAVE), "BAC-12")  # type: ignore[arg-type]
    refused(nxt, ChangeCarried(1, "alice", TieOption.REDUCE, 1.5), "BAC-12")  # type: ignore[arg-type]
    nxt, _ = nxt.apply(ChangeCarried(1, "alice", TieOption.REDUCE, 400))
    nxt, _ = nxt.apply(ChangeCarried(2, "bob", TieOption.SWITCH))
    assert [(w.kind, w.amount) for w in nxt.wagers] == [
        (WagerKind.BANKER, 400),
        (WagerKind.BANKER, 600),
    ]
    assert [(x.player, x.outcome, x.paid) for x in nxt.returned] == [
        ("alice", Outcome.RETURNED, 600)
    ]
    refused(nxt, ChangeCarried(1, "alice", TieOption.REDUCE, 500), "BAC-12")  # not a reduction
    nxt, _ = nxt.apply(PlaceWager("carol", seat(3), WagerKind.PLAYER, 1000))  # BAC-14 balance
    nxt = deal(nxt, "9s 5h Kd 2c")  # player wins
    nxt, _ = nxt.apply(Settle())
    s2 = nxt.settlement
    assert s2 is not None and s2.balance == 0
    # carried-in stakes (1000) came from the carry account and were lost; carol won 1000
    assert s2.carried == -1000 and s2.players == 1000 and s2.house == 0
    assert BaccaratRound.replay(nxt.events) == nxt


def test_tie_options_are_a_table_setting_BAC_12() -> None:
    leave_only = BaccaratRules()
    r = _tied_round(leave_only)
    nxt = BaccaratRound.new(leave_only, "r2", DAY, seated=SEATED, carried=r.carried_out())
    refused(nxt, ChangeCarried(1, "alice", TieOption.WITHDRAW), "BAC-12")
    refused(nxt, ChangeCarried(1, "alice", TieOption.SWITCH), "BAC-12")
    nxt, _ = nxt.apply(ChangeCarried(1, "alice", TieOption.LEAVE))
    withdraw_only = approved(BaccaratRules(tie_options=frozenset({TieOption.WITHDRAW})))
    nxt = BaccaratRound.new(withdraw_only, "r3", DAY, seated=SEATED, carried=r.carried_out())
    nxt, _ev = nxt.apply(CloseBetting())  # not allowed to stay: handed back at close
    assert nxt.wagers == () and len(nxt.returned) == 2
    nxt = deal(nxt, "9s 5h Kd 2c")
    nxt, _ = nxt.apply(Settle())
    assert nxt.settlement is not None and nxt.settlement.lines == ()


def test_difference_limit_counts_only_wagers_still_in_play_at_close_BAC_12_BAC_14() -> None:
    """Where "left" is not allowed, a carried wager nobody acts on goes back at close (BAC-12),
    so it cannot balance a new wager against the BAC-14 limit."""
    rules = approved(
        BaccaratRules(
            tie_options=frozenset({TieOption.WITHDRAW, TieOption.SWITCH}), max_difference=1000
        )
    )
    carried = _tied_round(rules).carried_out()  # alice banker 1000, bob player 600
    nxt = BaccaratRound.new(rules, "r2", DAY, seated=SEATED, carried=carried)
    # With both carried wagers counted this is banker 1000 vs player 2000, within the limit;
    # but they go back at close, leaving player 1400 alone.
    nxt, _ = nxt.apply(PlaceWager("carol", seat(3), WagerKind.PLAYER, 1400))
    refused(nxt, CloseBetting(), "BAC-14")
    nxt, _ = nxt.apply(ChangeCarried(1, "alice", TieOption.SWITCH))  # player 2400 vs 0 (for now)
    refused(nxt, CloseBetting(), "BAC-14")
    nxt = BaccaratRound.new(rules, "r2", DAY, seated=SEATED, carried=carried)
    nxt, _ = nxt.apply(PlaceWager("carol", seat(3), WagerKind.PLAYER, 1000))
    nxt, _ = nxt.apply(ChangeCarried(1, "alice", TieOption.WITHDRAW))
    nxt, _ = nxt.apply(CloseBetting())
    assert [(w.player, w.amount) for w in nxt.wagers] == [("carol", 1000)]


def test_difference_is_checked_when_betting_closes_BAC_14() -> None:
    """Old behaviour: every placement was checked, so a first wager above the difference limit
    was refused even when the other side would balance it. Now the totals are checked when
    betting closes (the close, or the first card, is refused naming both totals) and the wager
    that unbalances them can be taken back."""
    rules = approved(BaccaratRules(max_difference=1000))
    r = open_round(rules)
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 5000))  # accepted for now
    err = refused(r, CloseBetting(), "BAC-14")
    assert (err.params["banker"], err.params["player"], err.params["limit"]) == (5000, 0, 1000)
    refused(r, DealCard("2s"), "BAC-14")  # the first card closes betting: refused the same way
    balanced, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 4000))
    balanced, _ = balanced.apply(CloseBetting())
    assert balanced.phase is RoundPhase.DEALING
    refused(r, WithdrawWager(1, "bob"), "BAC-13")  # not bob's
    back, ev = r.apply(WithdrawWager(1, "alice"))
    assert back.wagers == () and back.returned[0].paid == 5000
    assert [p.amount for p in back.postings(ev[0])] == [-5000, 5000]
    back, _ = back.apply(CloseBetting())
    assert back.phase is RoundPhase.DEALING


def test_switched_carried_wager_respects_the_other_side_s_limits_BAC_12_BAC_14() -> None:
    """Old behaviour: a player at the maximum on banker could switch a carried maximum player
    wager onto banker and hold twice the limit in one area."""
    rules = approved(BaccaratRules(tie_options=frozenset(TieOption)))  # no difference limit
    top = rules.limits[WagerKind.BANKER].maximum
    r = open_round(rules)
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.PLAYER, top))
    r = deal(r, "7s 7h Kc Kd")  # tie: carried
    r, _ = r.apply(Settle())
    nxt = BaccaratRound.new(rules, "r2", DAY, seated=SEATED, carried=r.carried_out())
    nxt, _ = nxt.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, top))
    err = refused(nxt, ChangeCarried(1, "alice", TieOption.SWITCH), "BAC-14")
    assert err.params["total"] == 2 * top
    # switching part of it, within the banker limit of the area, is fine
    half = rules.limits[WagerKind.BANKER].minimum
    small, _ = nxt.apply(PlaceWager("alice", seat(1), WagerKind.TIE, 100))
    refused(small, ChangeCarried(1, "alice", TieOption.SWITCH, half), "BAC-14")  # still over
    lower = BaccaratRound.new(rules, "r3", DAY, seated=SEATED, carried=r.carried_out())
    lower, _ = lower.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, top - half))
    lower, _ = lower.apply(ChangeCarried(1, "alice", TieOption.SWITCH, half))
    assert sorted(w.amount for w in lower.wagers if w.kind is WagerKind.BANKER) == [
        half,
        top - half,
    ]
    # a reduced carried wager stays on the bet unit (BAC-18)
    tiny = BaccaratRound.new(rules, "r4", DAY, seated=SEATED, carried=r.carried_out())
    refused(tiny, ChangeCarried(1, "alice", TieOption.REDUCE, 20), "BAC-18")


def test_card_holding_reveals_BAC_16() -> None:
    rules = replace(RULES, card_holding=True)
    r = open_round(rules)
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 500))
    r, _ = r.apply(PlaceWager("carol", seat(3), WagerKind.PLAYER, 500))
    assert r.holder(Side.BANKER) == "alice" and r.holder(Side.PLAYER) == "bob"  # lowest seat
    r = deal(r, "2s 3h Ac Kd")
    assert r.card_due() is None
    refused(r, Reveal(Side.BANKER, RevealPart.FIRST_TWO, "alice"), "BAC-16.2")  # player first
    refused(r, Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "carol"), "BAC-16.2")
    refused(r, Reveal(Side.PLAYER, RevealPart.FIRST_TWO, DEALER), "BAC-16.2")
    r, _ = r.apply(Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "bob"))
    r, _ = r.apply(RevealTimeout(Side.BANKER, RevealPart.FIRST_TWO))
    r, _ = r.apply(Reveal(Side.BANKER, RevealPart.FIRST_TWO, DEALER))
    assert r.card_due() is CardSlot.PLAYER_3
    r = deal(r, "5c")
    assert r.card_due() is None  # the drawn card is revealed on its own first
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
    r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 1000))
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
    meter = Meter(SEED + 10_000, SEED)
    r, _ = r.apply(Settle(meter))
    s = r.settlement
    assert s is not None and s.combination is Combination.SINGLE_PAIR
    fixed = RULES.jackpot_fixed_awards[Combination.SINGLE_PAIR]
    assert [x.paid for x in s.lines] == [fixed, fixed]
    assert [x.award_from_house for x in s.lines] == [fixed, fixed]  # fixed: house-paid
    assert [x.meter for x in s.lines] == [50, 50]  # gross contributions
    assert s.meter_after is not None and s.meter_after.amount == meter.amount + 100
    assert s.meter_after.amount - meter.amount == s.meter
    assert s.balance == 0


def test_settlement_needs_this_table_s_meter_BAC_17() -> None:
    """Old behaviour: a missing meter was a ValueError that ``check`` and ``can_apply`` raised,
    and a meter of another table (another seed) was accepted."""
    r = open_round()
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.JACKPOT, 100))
    r = deal(r, "3s 2h 3c 5d")
    err = refused(r, Settle(), "BAC-17")
    assert err.key == "baccarat.meter_needed"
    err = refused(r, Settle(Meter(10_000, SEED + 1)), "BAC-17")
    assert (err.params["seed"], err.params["table_seed"]) == (SEED + 1, SEED)
    refused(r, Settle(10_000), "BAC-17")  # type: ignore[arg-type]
    assert r.can_apply(Settle(Meter(SEED, SEED)))
    # without jackpot wagers no meter is needed, but a wrong one is still refused
    plain = deal(open_round(), "3s 2h 3c 5d")
    assert plain.can_apply(Settle())
    refused(plain, Settle(Meter(10_000, 1)), "BAC-17")


def test_tied_wagers_wait_through_demonstration_rounds_BAC_2_2_BAC_12() -> None:
    """Old behaviour: a demonstration round refused carried wagers, so the wagers of a tie in a
    shoe's last round had no way into the next shoe, whose first rounds may be demonstrations.
    Now they wait untouched (no postings) and the first round with wagers takes them."""
    tied = _tied_round()
    carried = tied.carried_out()
    demo = open_round(demo=True, carried=carried)
    assert demo.wagers == () and [w.amount for w in demo.waiting] == [1000, 600]
    refused(demo, ChangeCarried(1, "alice", TieOption.WITHDRAW), "BAC-2.2")
    assert demo.carried_out() == ()  # not over yet
    demo = deal(demo, "7s 7h Kc Kd")  # a tie in the demonstration round changes nothing
    demo, _ = demo.apply(Settle())
    assert all(demo.postings(e) == () for e in demo.events)
    assert demo.carried_out() == demo.waiting
    voided = deal(open_round(demo=True, carried=carried), "2s")
    voided, _ = voided.apply(Void("sup", "shoe fault", Ground.UNCORRECTABLE))
    assert voided.carried_out() == voided.waiting  # they were never in play: they wait on
    nxt = BaccaratRound.new(RULES, "r3", DAY, seated=SEATED, carried=demo.carried_out())
    assert [(w.wager_id, w.player, w.amount, w.carried) for w in nxt.wagers] == [
        (1, "alice", 1000, True),
        (2, "bob", 600, True),
    ]
    nxt, _ = nxt.apply(ChangeCarried(1, "alice", TieOption.WITHDRAW))
    assert nxt.returned[0].carried_in and nxt.returned[0].paid == 1000


def test_carried_wagers_must_be_banker_or_player_BAC_12() -> None:
    r = _tied_round()
    tie_wager = next(w for w in r.wagers if w.kind is WagerKind.TIE)
    with pytest.raises(RuleViolation) as exc:
        BaccaratRound.new(RULES, "r2", DAY, carried=(tie_wager,))
    assert exc.value.rule == "BAC-12"


def test_a_carried_wager_takes_one_choice_BAC_12() -> None:
    """BAC-12: before the next round each carried wager is withdrawn, left *or* changed — one
    choice. Old behaviour: ``expected_next()`` stopped offering ``ChangeCarried`` once every
    carried wager was decided, yet a second change was still accepted (a wager left, then
    switched; switched, then switched back), so the round accepted a command type it said it
    could not accept."""
    r = _tied_round()
    nxt = BaccaratRound.new(RULES, "r2", DAY, seated=SEATED, carried=r.carried_out())
    nxt, _ = nxt.apply(ChangeCarried(1, "alice", TieOption.LEAVE))
    nxt, _ = nxt.apply(ChangeCarried(2, "bob", TieOption.SWITCH))
    assert ChangeCarried not in nxt.expected_next().commands
    for again in (
        ChangeCarried(1, "alice", TieOption.REDUCE, 200),
        ChangeCarried(1, "alice", TieOption.WITHDRAW),
        ChangeCarried(2, "bob", TieOption.SWITCH),
        ChangeCarried(2, "bob", TieOption.LEAVE),
    ):
        err = refused(nxt, again, "BAC-12")
        assert err.key == "baccarat.carried_already_decided"
        assert str(err.params["wager_id"]) in err.message and err.text("zh-Hant")
    assert [(w.kind, w.amount) for w in nxt.wagers] == [
        (WagerKind.BANKER, 1000),
        (WagerKind.BANKER, 600),
    ]


def test_the_holder_is_the_seated_player_with_the_largest_wager_of_their_own_BAC_16() -> None:
    """A wager carried from a tie (BAC-12) stays in the area where it was placed, even when its
    owner no longer sits there. Old behaviour: the holder was found per seat *area*, adding the
    carried wager of a player who left to the stake of the player now seated there (and naming
    whoever placed the last wager in it): carol, with 100 on banker beside alice's carried
    5000, held the banker's cards over bob's 1000."""
    rules = replace(RULES, card_holding=True)
    r = open_round(rules)
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 5000))
    r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 5000))
    r = deal(r, "7s 7h Kc Kd")
    r, _ = r.apply(Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "bob"))
    r, _ = r.apply(Reveal(Side.BANKER, RevealPart.FIRST_TWO, "alice"))
    r, _ = r.apply(Settle())
    assert r.result is not None and r.result.winner is Side.TIE
    # alice left the table; carol sits in seat 1
    nxt = BaccaratRound.new(
        rules, "r2", DAY, seated={1: "carol", 2: "bob"}, carried=r.carried_out()
    )
    nxt, _ = nxt.apply(PlaceWager("carol", seat(1), WagerKind.BANKER, 100))
    assert nxt.holder(Side.BANKER) == "carol"  # the only seated player on banker
    nxt, _ = nxt.apply(PlaceWager("bob", seat(2), WagerKind.BANKER, 1000))
    assert nxt.holder(Side.BANKER) == "bob"
    nxt = deal(nxt, "2s 3h Ac Kd")
    assert nxt.expected_next().due[0].player == "bob"  # bob holds both sides now
    nxt, _ = nxt.apply(Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "bob"))
    refused(nxt, Reveal(Side.BANKER, RevealPart.FIRST_TWO, "carol"), "BAC-16.2")
    nxt, _ = nxt.apply(Reveal(Side.BANKER, RevealPart.FIRST_TWO, "bob"))
