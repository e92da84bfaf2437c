"""The Caribbean Stud round state machine: betting, dealing, decisions, refusals, views,
replay (CSP-2, CSP-6, CSP-7, CSP-12, CSP-13)."""

from __future__ import annotations

from datetime import date

import pytest

from macau_tables.cards import parse_cards
from macau_tables.caribbean.commands import (
    CloseBetting,
    DealCard,
    DealtToEmptyBox,
    DecisionTimeout,
    Fold,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
    Showdown,
)
from macau_tables.caribbean.events import AntePlaced, CardDealt, RoundOpened
from macau_tables.caribbean.round import CaribbeanRound, Phase, deal_order
from macau_tables.caribbean.rules import DealingProcedure
from macau_tables.errors import RuleViolation
from macau_tables.jackpot import Meter
from macau_tables.rounds import DEALER, Audience, DueKind

from .support import (
    HANDS3,
    OPENING,
    UNIT,
    approval_for,
    bet,
    cards_for,
    deal,
    make_rules,
    new_round,
    player,
    refused,
)

# 20 distinct cards, in the order they leave the shoe / shuffler.
SEQUENCE = parse_cards("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc 2d 3d 4d 5d 6d 7d 8d 9d Td Jd")


def dealing_round(procedure: DealingProcedure, boxes: tuple[int, ...]) -> CaribbeanRound:
    r = new_round(make_rules(dealing_procedure=procedure))
    return bet(r, dict.fromkeys(boxes, UNIT))


def decided_round() -> CaribbeanRound:
    """Boxes 1 and 4 in play, all cards dealt, no decision yet."""
    r = bet(new_round(), {1: UNIT, 4: 2 * UNIT}, jackpots=(1,))
    return deal(r, HANDS3)


# -- dealing order (CSP-7) ---------------------------------------------------------------------


def test_shoe_deals_one_card_at_a_time_dealer_last_CSP_7_1() -> None:
    r = dealing_round(DealingProcedure.SHOE, (5, 2, 3))
    assert r.deal_order == (2, 3, 5, DEALER) * 5
    for card in SEQUENCE:
        assert r.expected_next().due[0].position == r.deal_order[r.dealt]
        r, (event,) = r.apply(DealCard(card))
        assert isinstance(event, CardDealt)
    hands = {b: " ".join(str(c) for c in r.box(b).cards) for b in (2, 3, 5)}  # type: ignore[union-attr]
    assert hands == {2: "2c 6c Tc 4d 8d", 3: "3c 7c Jc 5d 9d", 5: "4c 8c 2d 6d Td"}
    assert " ".join(str(c) for c in r.dealer_cards) == "5c 9c 3d 7d Jd"
    assert r.dealer_face_up == (False, False, False, False, True)
    assert r.phase is Phase.DECIDING


def test_shuffler_deals_five_at_a_time_dealer_last_CSP_7_2() -> None:
    r = dealing_round(DealingProcedure.SHUFFLER, (6, 1, 3))
    assert r.deal_order == (1,) * 5 + (3,) * 5 + (6,) * 5 + (DEALER,) * 5
    for card in SEQUENCE:
        r, _ = r.apply(DealCard(card))
    assert r.box(1).cards == tuple(SEQUENCE[0:5])  # type: ignore[union-attr]
    assert r.box(3).cards == tuple(SEQUENCE[5:10])  # type: ignore[union-attr]
    assert r.box(6).cards == tuple(SEQUENCE[10:15])  # type: ignore[union-attr]
    assert r.dealer_cards == tuple(SEQUENCE[15:20])
    assert r.dealer_face_up == (False, False, False, False, True)


def test_same_sequence_same_hands_CSP_7() -> None:
    for procedure in DealingProcedure:
        a = dealing_round(procedure, (2, 7))
        b = dealing_round(procedure, (2, 7))
        for card in SEQUENCE[:15]:
            a, _ = a.apply(DealCard(card))
            b, _ = b.apply(DealCard(card))
        assert a == b
    assert deal_order(DealingProcedure.SHOE, [3]) == (3, DEALER) * 5


def test_deal_to_wrong_position_refused_CSP_7() -> None:
    r = dealing_round(DealingProcedure.SHOE, (1, 2))
    e = refused(r, DealCard("As", to=2), "CSP-7.1")
    assert "due to box 1" in e.message and "misdeal, CSP-11.1" in e.message
    r2, _ = r.apply(DealCard("As", to=1))
    assert r2.box(1).cards == tuple(parse_cards("As"))  # type: ignore[union-attr]
    r = dealing_round(DealingProcedure.SHUFFLER, (1, 2))
    refused(r, DealCard("As", to=DEALER), "CSP-7.2")


# -- bad inputs of the issue ------------------------------------------------------------------


@pytest.mark.parametrize("text", ["Zz", "1s", "Ax", "", "10", 52])
def test_unknown_card_refused_CSP_1(text: object) -> None:
    r = dealing_round(DealingProcedure.SHUFFLER, (1,))
    refused(r, DealCard(text), "CSP-1")  # type: ignore[arg-type]


def test_duplicate_card_in_round_refused_CSP_1() -> None:
    r = dealing_round(DealingProcedure.SHUFFLER, (1, 2))
    r, _ = r.apply(DealCard("As"))
    refused(r, DealCard("As"), "CSP-1")  # same hand
    for card in ("Ks", "Qs", "Js", "Ts"):
        r, _ = r.apply(DealCard(card))
    refused(r, DealCard("Ks"), "CSP-1")  # another hand, same round


def test_sixth_card_refused_CSP_7() -> None:
    r = dealing_round(DealingProcedure.SHUFFLER, (1, 2))
    for card in parse_cards("As Ks Qs Js Ts"):
        r, _ = r.apply(DealCard(card))
    e = refused(r, DealCard("9s", to=1), "CSP-7.2")
    assert "sixth" in e.message and "misdeal, CSP-11.1" in e.message
    r = deal(
        dealing_round(DealingProcedure.SHOE, (1,)), {1: "As Ks Qs Js Ts", DEALER: "2c 3c 4c 5c 7d"}
    )
    assert r.phase is Phase.DECIDING
    e = refused(r, DealCard("9s"), "CSP-7.1")
    assert "sixth" in e.message and "misdeal, CSP-11.1" in e.message


@pytest.mark.parametrize("amount", [0, UNIT, 3 * UNIT, 5 * UNIT - 1, -2 * UNIT, 2.0 * UNIT])
def test_raise_must_be_twice_ante_CSP_6_6(amount: object) -> None:
    r = decided_round()
    refused(r, Raise(1, player(1), amount), "CSP-6.6")  # type: ignore[arg-type]
    r2, _ = r.apply(Raise(1, player(1), 2 * UNIT))
    assert r2.box(1).raise_amount == 2 * UNIT  # type: ignore[union-attr]
    refused(r, Raise(4, player(4), 2 * UNIT), "CSP-6.6")  # box 4's ante is 2 units
    r3, _ = r.apply(Raise(4, player(4), 4 * UNIT))
    assert r3.box(4).raised  # type: ignore[union-attr]


def test_bets_after_betting_closed_refused_CSP_6_2_CSP_6_3() -> None:
    r = bet(new_round(), {1: UNIT})
    refused(r, PlaceAnte(2, player(2), UNIT), "CSP-6.2")
    refused(r, PlaceJackpotWager(1, player(1)), "CSP-6.3")
    refused(r, CloseBetting(), "CSP-6.2")
    r, _ = r.apply(DealCard("2c"))
    refused(r, PlaceJackpotWager(1, player(1)), "CSP-6.3")


def test_decision_for_box_without_hand_refused_CSP_6_5() -> None:
    r = decided_round()
    refused(r, Raise(2, player(2), 2 * UNIT), "CSP-6.5")
    refused(r, Fold(3, player(3)), "CSP-6.5")
    refused(r, DecisionTimeout(5), "CSP-6.5")


@pytest.mark.parametrize(
    "amount",
    [0, -UNIT, UNIT + 1, UNIT // 2, 101 * UNIT, 1.0 * UNIT, "100", True],
)
def test_ante_not_positive_multiple_within_limits_refused_CSP_6_2(amount: object) -> None:
    refused(new_round(), PlaceAnte(1, "alice", amount), "CSP-6.2")  # type: ignore[arg-type]


def test_ante_limits_accept_bounds_CSP_6_2() -> None:
    r, (event,) = new_round().apply(PlaceAnte(1, "alice", 100 * UNIT))
    assert event == AntePlaced(1, "alice", 100 * UNIT)
    r, _ = r.apply(PlaceAnte(2, "bob", UNIT))
    assert [b.ante for b in r.in_play] == [100 * UNIT, UNIT]


def test_option_without_approval_refuses_to_open_CSP_13() -> None:
    with pytest.raises(RuleViolation) as exc:
        CaribbeanRound.new(make_rules(approvals=()), "r1", OPENING)
    assert exc.value.rule == "CSP-13" and "royal_flush_odds" in exc.value.message
    rules = make_rules(royal_flush_odds=90, approvals=(approval_for(100),))
    with pytest.raises(RuleViolation, match="royal_flush_odds"):
        CaribbeanRound.new(rules, "r1", OPENING)
    with pytest.raises(RuleViolation, match="not yet effective"):
        CaribbeanRound.new(make_rules(), "r1", date(2026, 12, 4))
    # a public holiday inside the notice period makes the same approval too late
    with pytest.raises(RuleViolation, match="working days"):
        CaribbeanRound.new(
            make_rules(), "r1", OPENING, holidays={date(2026, 12, 2), date(2026, 12, 3)}
        )
    opened = CaribbeanRound.new(make_rules(), "r1", OPENING)
    assert isinstance(opened.events[0], RoundOpened)
    assert opened.events[0].approval_references == ("DICJ/CSP/100",)


# -- more refusals (CSP-2, CSP-6) -------------------------------------------------------------


def test_one_box_per_player_no_sharing_CSP_6_1() -> None:
    r, _ = new_round().apply(PlaceAnte(3, "alice", UNIT))
    refused(r, PlaceAnte(4, "alice", UNIT), "CSP-6.1")
    refused(r, PlaceAnte(3, "bob", UNIT), "CSP-6.1")
    refused(r, PlaceJackpotWager(3, "bob"), "CSP-6.1")
    refused(r, PlaceAnte(3, "alice", UNIT), "CSP-6.2")  # a second ante
    refused(r, PlaceAnte(1, "", UNIT), "CSP-6.1")


@pytest.mark.parametrize("box", [0, 8, -1, True, "1"])
def test_box_numbers_CSP_2(box: object) -> None:
    refused(new_round(), PlaceAnte(box, "alice", UNIT), "CSP-2")  # type: ignore[arg-type]


def test_jackpot_wager_needs_ante_and_exact_amount_CSP_6_3_CSP_10_1() -> None:
    r = new_round()
    refused(r, PlaceJackpotWager(1, "alice"), "CSP-6.3")
    r, _ = r.apply(PlaceAnte(1, "alice", UNIT))
    refused(r, PlaceJackpotWager(1, "alice", 2 * UNIT), "CSP-6.3")
    r, _ = r.apply(PlaceJackpotWager(1, "alice", UNIT))
    assert r.box(1).jackpot == UNIT  # type: ignore[union-attr]
    refused(r, PlaceJackpotWager(1, "alice"), "CSP-10.1")


def test_close_betting_needs_an_ante_CSP_6_2() -> None:
    refused(new_round(), CloseBetting(), "CSP-6.2")


def test_no_card_before_betting_closes_CSP_7() -> None:
    r, _ = new_round().apply(PlaceAnte(1, "alice", UNIT))
    refused(r, DealCard("As"), "CSP-7.2")


def test_decisions_only_after_all_cards_by_own_player_once_CSP_6_5() -> None:
    r = bet(new_round(), {1: UNIT})
    r, _ = r.apply(DealCard("As"))
    refused(r, Fold(1, player(1)), "CSP-6.5")
    r = decided_round()
    refused(r, Fold(1, "mallory"), "CSP-6.1")
    refused(r, Raise(1, "mallory", 2 * UNIT), "CSP-6.1")
    r, _ = r.apply(Fold(1, player(1)))
    refused(r, Fold(1, player(1)), "CSP-6.5")
    refused(r, Raise(1, player(1), 2 * UNIT), "CSP-6.5")
    refused(r, DecisionTimeout(1), "CSP-6.5")


def test_timeout_folds_absent_player_CSP_6_4() -> None:
    r, (event,) = decided_round().apply(DecisionTimeout(4))
    assert r.box(4).decided and not r.box(4).raised and r.box(4).timed_out  # type: ignore[union-attr]
    assert event.timed_out  # type: ignore[union-attr]


def test_showdown_only_when_every_decision_made_CSP_6_8() -> None:
    r = decided_round()
    meter = r.rules.new_meter()
    refused(r, Showdown(meter), "CSP-6.8")
    r, _ = r.apply(Raise(1, player(1), 2 * UNIT))
    e = refused(r, Showdown(meter), "CSP-6.8")
    assert "4" in e.message
    r, _ = r.apply(Fold(4, player(4)))
    refused(r, Showdown(Meter(5, 5)), "CSP-10.8")  # another meter's seed
    r, _ = r.apply(Showdown(meter))
    assert r.phase is Phase.SETTLED
    refused(r, Showdown(meter), "CSP-6.8")
    refused(r, PlaceAnte(1, "x", UNIT), "CSP-6.8")


def test_dealt_to_empty_box_dead_hand_round_goes_on_CSP_11_3() -> None:
    r = dealing_round(DealingProcedure.SHOE, (1, 2))
    r, _ = r.apply(DealCard("As"))
    refused(r, DealtToEmptyBox(1, ("2c",)), "CSP-11.3")  # box 1 has a bet
    refused(r, DealtToEmptyBox(5, ("As",)), "CSP-1")  # already dealt
    refused(r, DealtToEmptyBox(5, ("2c", "2c")), "CSP-1")
    refused(r, DealtToEmptyBox(5, ()), "CSP-11.3")
    r, _ = r.apply(DealtToEmptyBox(5, ("2c", "3c")))
    assert r.dead_hands[0].cards == tuple(parse_cards("2c 3c"))
    assert r.expected_next().due[0].position == 2  # the deal goes on where it was
    refused(r, DealCard("2c"), "CSP-1")
    refused(r, DealtToEmptyBox(5, ("4c",)), "CSP-11.3")


# -- expected_next, views, replay ------------------------------------------------------------


def test_expected_next() -> None:
    """CSP-6, CSP-7: what a round expects next (betting, dealing, decisions)."""
    r = new_round()
    exp = r.expected_next()
    assert exp.phase == Phase.BETTING and CloseBetting not in exp.commands
    assert [d.kind for d in exp.due] == [DueKind.WAGERS]
    r, _ = r.apply(PlaceAnte(2, "a", UNIT))
    assert CloseBetting in r.expected_next().commands
    r = decided_round()
    exp = r.expected_next()
    assert [(d.kind, d.position, d.player) for d in exp.due] == [
        (DueKind.DECISION, 1, player(1)),
        (DueKind.DECISION, 4, player(4)),
    ]
    assert Raise in exp.commands and Showdown not in exp.commands
    r, _ = r.apply(Raise(1, player(1), 2 * UNIT))
    r, _ = r.apply(Fold(4, player(4)))
    exp = r.expected_next()
    assert [d.kind for d in exp.due] == [DueKind.SETTLEMENT] and Showdown in exp.commands
    r, _ = r.apply(Showdown(r.rules.new_meter()))
    assert r.expected_next().due == () and r.expected_next().commands == ()


def test_player_view_shows_only_own_cards_and_up_card_CSP_6_5_CSP_12() -> None:
    r = decided_round()
    view = r.view(Audience.of_player(player(1)))
    assert view.box == 1 and view.cards == tuple(parse_cards(HANDS3[1]))
    dealer = parse_cards(HANDS3[DEALER])
    assert view.dealer_cards == (None, None, None, None, dealer[4])
    other = set(parse_cards(HANDS3[4]))
    assert not other & set(view.cards)
    empty = r.view(Audience.of_player(player(2)))
    assert empty.cards == () and empty.box is None
    r, _ = r.apply(Raise(1, player(1), 2 * UNIT))
    r, _ = r.apply(Fold(4, player(4)))
    r, _ = r.apply(Showdown(r.rules.new_meter()))
    four = r.view(Audience.of_player(player(4)))
    assert four.dealer_cards == tuple(dealer)  # revealed at showdown
    assert four.cards == tuple(parse_cards(HANDS3[4]))
    assert {w.spot for w in four.results} == {"box 4"}


def test_replay_rebuilds_identical_round() -> None:
    """CSP-7 ("replaying the same card sequence must give the same hands"): replay == live."""
    r = decided_round()
    r, _ = r.apply(Raise(1, player(1), 2 * UNIT))
    r, _ = r.apply(DecisionTimeout(4))
    r, _ = r.apply(Showdown(r.rules.new_meter()))
    assert CaribbeanRound.replay(r.events) == r
    # The log alone carries the rules: nothing outside it is needed to rebuild the round.
    assert r.events[0].rules is r.rules
    with pytest.raises(ValueError):
        CaribbeanRound.replay(r.events[1:])


def test_cards_for_helper_matches_order() -> None:
    """CSP-7.1: the shoe order used by the test helper (box 1, box 4, dealer)."""
    r = dealing_round(DealingProcedure.SHOE, (1, 4))
    seq = cards_for(r, HANDS3)
    assert seq[:3] == parse_cards("As 9h Ac")


def test_shoe_commitment_is_logged_before_the_first_card_CSP_3() -> None:
    """Common rules "Randomness": a virtual shoe's commitment is recorded when betting closes,
    before any card; it survives replay and verifies against the revealed shoe. A malformed
    commitment is refused (CSP-3) and the round is unchanged."""
    from macau_tables.cards import DECK
    from macau_tables.rng import SystemRandom, VirtualShoe, verify_commitment

    r, _ = new_round().apply(PlaceAnte(2, player(2), UNIT))
    for bad in ("xyz", "A" * 64, 5, "0" * 63):
        refused(r, CloseBetting(bad), "CSP-3")  # type: ignore[arg-type]
    shoe = VirtualShoe(DECK, SystemRandom())
    # The ShoeCommitment itself or its digest: the log holds the digest either way.
    by_digest, _ = r.apply(CloseBetting(shoe.commitment.digest))
    r, events = r.apply(CloseBetting(shoe.commitment))
    assert r == by_digest
    assert r.shoe_commitment == shoe.commitment.digest and r.dealt == 0
    assert events[0].shoe_commitment == shoe.commitment.digest  # type: ignore[union-attr]
    while r.phase is Phase.DEALING:
        r, _ = r.apply(DealCard(shoe.draw()))
    assert CaribbeanRound.replay(r.events).shoe_commitment == shoe.commitment.digest
    shoe.close()
    reveal = shoe.reveal()
    assert verify_commitment(r.shoe_commitment or "", reveal.order, reveal.salt)
    dealt = [e.card for e in r.events if isinstance(e, CardDealt)]
    assert tuple(dealt) == reveal.order[: len(dealt)]
