"""Cards exposed in error, misdeals, faults and carried-over jackpot wagers (CSP-11)."""

from __future__ import annotations

import pytest

from macau_tables import ledger
from macau_tables.cards import parse_cards
from macau_tables.caribbean.commands import (
    DealCard,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
    RejectReport,
    ReportExposedCard,
    ReportMisdeal,
    ReturnCarriedWager,
    Showdown,
    ShufflerFailure,
    Void,
)
from macau_tables.caribbean.events import (
    CardExposed,
    CarriedWagerReturned,
    FaultReported,
    ReportRejected,
    RoundVoided,
)
from macau_tables.caribbean.round import CaribbeanRound, Phase
from macau_tables.caribbean.rules import DealingProcedure
from macau_tables.caribbean.settlement import CarriedWager, Settlement, WagerKind
from macau_tables.errors import RuleViolation
from macau_tables.jackpot import Meter
from macau_tables.rounds import DEALER, Audience, Outcome
from macau_tables.voids import Ground

from .support import (
    OPENING,
    SEED,
    UNIT,
    bet,
    deal,
    make_rules,
    new_round,
    player,
    refused,
)

HANDS = {1: "As Ks Qs Js Ts", 3: "9h 9d 7s 7c 5d", DEALER: "Ac Kh 4d 3c 2h"}


def shoe_round() -> CaribbeanRound:
    r = new_round(make_rules(dealing_procedure=DealingProcedure.SHOE))
    return bet(r, {1: UNIT, 3: 2 * UNIT, 5: UNIT}, jackpots=(1, 3))


def assert_void_returns_everything(r: CaribbeanRound, rule: str) -> Settlement:
    assert r.phase is Phase.VOID and r.void_rule == rule
    s = r.settlement
    assert s is not None and s.voided and s.jackpot is None
    for w in s.wagers:
        if w.kind == WagerKind.JACKPOT:
            assert w.outcome is Outcome.CARRIED_OVER and w.paid == 0
        else:
            assert w.outcome is Outcome.RETURNED and w.paid == w.stake
    assert s.players_net == s.house_net == s.meter_net == 0
    assert set(r.carried_out()) == {
        CarriedWager(b.box, b.player, b.jackpot) for b in r.boxes if b.jackpot
    }
    assert CaribbeanRound.replay(r.events) == r
    return s


def test_one_box_card_exposed_round_stands_CSP_11_2() -> None:
    r = shoe_round()
    r, _ = r.apply(DealCard("As"))
    r, events = r.apply(ReportExposedCard("As"))
    assert events == (CardExposed(parse_cards("As")[0], 1),)
    assert r.phase is Phase.DEALING
    # another player's view never shows it (CSP-12)
    assert r.view(Audience.of_player(player(3))).cards == ()


def test_dealer_card_exposed_stays_up_rest_face_down_CSP_11_2() -> None:
    r = shoe_round()
    for card in parse_cards("2c 3c 4c 5c"):  # one round: boxes 1, 3, 5, dealer
        r, _ = r.apply(DealCard(card))
    r, _ = r.apply(ReportExposedCard("5c"))
    assert r.dealer_face_up == (True,)
    r = deal_rest(r)
    # the dealer's fifth card is dealt face down after a dealer card was exposed
    assert r.dealer_face_up == (True, False, False, False, False)
    view = r.view(Audience.of_player(player(1)))
    assert view.dealer_cards == (parse_cards("5c")[0], None, None, None, None)


def deal_rest(r: CaribbeanRound) -> CaribbeanRound:
    fresh = (c for c in parse_cards("6s 7s 8s 9s Ts Js Qs Ks As 6h 7h 8h 9h Th Jh Qh Kh Ah"))
    while r.phase is Phase.DEALING:
        r, _ = r.apply(DealCard(next(fresh)))
    return r


def test_dealer_up_card_cannot_be_exposed_in_error_CSP_11_2() -> None:
    r = deal(shoe_round(), {1: HANDS[1], 3: HANDS[3], 5: "2s 3s 4s 5s 6d", DEALER: HANDS[DEALER]})
    refused(r, ReportExposedCard("2h"), "CSP-11.2")  # the dealer's up card
    refused(r, ReportExposedCard("Ad"), "CSP-11.2")  # not dealt
    refused(r, ReportExposedCard("Zz"), "CSP-1")
    refused(new_round(), ReportExposedCard("As"), "CSP-11.2")


def test_exposure_after_the_last_card_is_handled_as_while_dealing_CSP_11_2() -> None:
    """Documented interpretation: reported after the deal and before the showdown, one exposed
    dealer card stays face up for every player and the round stands; a second exposure voids
    the round (CSP-11.1)."""
    r = deal(shoe_round(), {1: HANDS[1], 3: HANDS[3], 5: "2s 3s 4s 5s 6d", DEALER: HANDS[DEALER]})
    assert r.phase is Phase.DECIDING
    r, _ = r.apply(ReportExposedCard("Ac"))  # the dealer's first, face-down card
    assert r.phase is Phase.DECIDING and r.dealer_face_up == (True, False, False, False, True)
    for box in (1, 3, 5):
        assert r.view(Audience.of_player(player(box))).dealer_cards[0] == parse_cards("Ac")[0]
    r2, _ = r.apply(Raise(1, player(1), 2 * UNIT))
    assert r2.phase is Phase.DECIDING
    r3, events = r2.apply(ReportExposedCard("9h"))
    # the players have seen their cards: the report holds the round for a supervisor
    assert events[-1] == FaultReported(Ground.EXPOSURES, "two or more cards exposed in error", True)
    r3, _ = r3.apply(Void("two exposures confirmed", Ground.EXPOSURES, "sup-1"))
    s = assert_void_returns_everything(r3, "CSP-11.1")
    assert s.wager(1, WagerKind.RAISE) is not None  # the raise is returned too


def test_two_exposed_cards_void_the_round_CSP_11_1() -> None:
    r = shoe_round()
    for card in parse_cards("2c 3c 4c 5c 6c"):
        r, _ = r.apply(DealCard(card))
    r, _ = r.apply(ReportExposedCard("3c"))
    refused(r, ReportExposedCard("3c"), "CSP-11.2")  # the same card twice is one exposure
    r, events = r.apply(ReportExposedCard("6c"))
    assert isinstance(events[-1], FaultReported) and r.held is not None
    assert r.expected_next().commands == (Void, RejectReport)
    refused(r, DealCard("7c"), "CSP-11.1")  # held: nothing but the supervisor's decision
    r, _ = r.apply(Void("confirmed", Ground.EXPOSURES, "sup-1"))
    assert_void_returns_everything(r, "CSP-11.1")
    refused(r, DealCard("7c"), "CSP-11.1")


def test_misdeal_voids_at_once_before_any_player_saw_a_card_CSP_11_1() -> None:
    refused(new_round(), ReportMisdeal("too many cards"), "CSP-11.1")  # betting: no deal yet
    r, events = shoe_round().apply(ReportMisdeal("cards fell before the first was dealt"))
    assert isinstance(events[0], FaultReported) and not events[0].holds
    assert isinstance(events[-1], RoundVoided) and events[-1].ground is not None
    assert events[-1].ground.supervisor is None  # the dealer's report, at once
    s = assert_void_returns_everything(r, "CSP-11.1")
    assert len(s.carried_over) == 2


def test_misdeal_after_a_card_seen_holds_for_the_supervisor_CSP_11_1() -> None:
    r = shoe_round()
    r, _ = r.apply(DealCard("2c"))  # box 1's player sees it
    refused(r, ReportMisdeal(""), "CSP-11.1")
    refused(r, ReportMisdeal("x", Ground.SHUFFLER_FAILURE), "CSP-11.1")
    held, events = r.apply(
        ReportMisdeal("dealer dealt two cards to box 1", Ground.WRONG_CARD_COUNT)
    )
    assert events == (
        FaultReported(Ground.WRONG_CARD_COUNT, "dealer dealt two cards to box 1", True),
    )
    assert held.phase is Phase.DEALING and held.expected_next().due[0].kind.value == "supervisor"
    # rejected: the round goes on, the rejection in its log
    on, events = held.apply(RejectReport("sup-1", "counted again: five cards"))
    assert events == (ReportRejected("sup-1", "counted again: five cards"),)
    assert on.held is None and on.can_apply(DealCard("3c"))
    refused(on, RejectReport("sup-1", "again"), "CSP-11.1")  # nothing held any more
    # confirmed: void on the ground
    void, _ = held.apply(Void("confirmed", Ground.WRONG_CARD_COUNT, "sup-1"))
    s = assert_void_returns_everything(void, "CSP-11.1")
    assert len(s.carried_over) == 2


def test_shuffler_failure_voids_only_during_the_deal_CSP_11_4() -> None:
    r, _ = shoe_round().apply(ShufflerFailure())  # no card seen yet: void at once
    assert_void_returns_everything(r, "CSP-11.4")
    r, _ = new_round().apply(PlaceAnte(2, "a", UNIT))
    refused(r, Void("power loss"), "CSP-11.4")  # no ground: refused
    refused(r, Void("power loss", Ground.SHUFFLER_FAILURE), "CSP-11.4")  # no supervisor
    refused(r, Void("power loss", Ground.WRONG_PROCEDURE, "sup-1"), "CSP-11.1")  # no card yet
    refused(r, Void("power loss", Ground.SHOE_LOST, "sup-1"), "CSP-11.4")  # the system's
    refused(r, Void("power loss", Ground.UNCORRECTABLE, "sup-1"), "CSP-11.4")  # baccarat's
    r, _ = r.apply(Void("shuffler jammed", Ground.SHUFFLER_FAILURE, "sup-1"))
    assert_void_returns_everything(r, "CSP-11.4")
    refused(new_round(), Void(" ", Ground.SHUFFLER_FAILURE, "sup-1"), "CSP-11.4")
    # after the last card a shuffler's failure voids nothing: the round goes on
    r = deal(shoe_round(), {1: HANDS[1], 3: HANDS[3], 5: "2s 3s 4s 5s 6d", DEALER: HANDS[DEALER]})
    refused(r, Void("shuffler jammed", Ground.SHUFFLER_FAILURE, "sup-1"), "CSP-11.4")
    on, events = r.apply(ShufflerFailure())
    assert events == (FaultReported(Ground.SHUFFLER_FAILURE, "shuffling machine failure", False),)
    assert on.phase is Phase.DECIDING and on.held is None


def test_void_after_raise_returns_the_raise_CSP_11_1() -> None:
    r = deal(shoe_round(), {1: HANDS[1], 3: HANDS[3], 5: "2s 3s 4s 5s 6d", DEALER: HANDS[DEALER]})
    r, _ = r.apply(Raise(3, player(3), 4 * UNIT))
    r, _ = r.apply(Void("box 5 had six cards", Ground.WRONG_CARD_COUNT, "sup-1"))
    s = assert_void_returns_everything(r, "CSP-11.1")
    raise_ = s.wager(3, WagerKind.RAISE)
    assert raise_ is not None and raise_.paid == 4 * UNIT


def test_carried_jackpot_wager_counts_as_placed_next_round_CSP_11_1() -> None:
    r, _ = shoe_round().apply(ShufflerFailure())
    carried = r.carried_out()
    nxt = CaribbeanRound.new(r.rules, "r2", OPENING, carried=carried)
    assert nxt.box(1).jackpot == UNIT and nxt.box(1).jackpot_carried  # type: ignore[union-attr]
    # the box is reserved for its player, who still places an ante (CSP-10.1)
    refused(nxt, PlaceAnte(1, "stranger", UNIT), "CSP-6.1")
    refused(nxt, PlaceAnte(2, player(1), UNIT), "CSP-6.1")
    refused(nxt, PlaceJackpotWager(1, player(1)), "CSP-6.3")
    nxt, _ = nxt.apply(PlaceAnte(1, player(1), UNIT))
    refused(nxt, PlaceJackpotWager(1, player(1)), "CSP-10.1")  # already placed
    # box 3's player does not come back: the wager is carried again
    nxt = bet(nxt, {})
    nxt = deal(nxt, {1: HANDS[1], DEALER: HANDS[DEALER]})
    nxt, _ = nxt.apply(Raise(1, player(1), 2 * UNIT))
    nxt, _ = nxt.apply(Showdown(Meter(2_000_000, SEED)))
    s = nxt.settlement
    assert s is not None and s.players_net + s.house_net + s.meter_net == 0
    assert s.wager(1, WagerKind.JACKPOT).outcome is Outcome.WON  # type: ignore[union-attr]
    assert s.wager(3, WagerKind.JACKPOT).outcome is Outcome.CARRIED_OVER  # type: ignore[union-attr]
    assert nxt.carried_out() == (CarriedWager(3, player(3), UNIT),)


@pytest.mark.parametrize(
    "carried",
    [
        (CarriedWager(0, "a", UNIT),),
        (CarriedWager(1, "a", 0),),
        (CarriedWager(1, "a", UNIT), CarriedWager(1, "b", UNIT)),
        (CarriedWager(1, "a", UNIT), CarriedWager(2, "a", UNIT)),
    ],
)
def test_bad_carried_wagers_refused_CSP_11_1(carried: tuple[CarriedWager, ...]) -> None:
    with pytest.raises(RuleViolation):
        CaribbeanRound.new(make_rules(), "r", OPENING, carried=carried)


def test_carried_wager_returned_to_a_player_who_left_CSP_11_1() -> None:
    """Documented reading of CSP-11.1: a jackpot wager carried over to a round whose player has
    left the table is handed back, before the cards, with a supervisor's id and a reason; the
    stake goes from the carried account to the player's wallet and the box is free again."""
    r, _ = shoe_round().apply(ShufflerFailure())
    nxt = CaribbeanRound.new(r.rules, "r2", OPENING, carried=r.carried_out())
    assert ReturnCarriedWager in nxt.expected_next().commands
    refused(nxt, ReturnCarriedWager(3, "", "player left"), "CSP-11.1")
    refused(nxt, ReturnCarriedWager(3, "sup-7", " "), "CSP-11.1")
    refused(nxt, ReturnCarriedWager(5, "sup-7", "player left"), "CSP-11.1")  # nothing carried
    refused(nxt, ReturnCarriedWager(9, "sup-7", "player left"), "CSP-2")
    nxt, _ = nxt.apply(PlaceAnte(1, player(1), UNIT))
    refused(nxt, ReturnCarriedWager(1, "sup-7", "player left"), "CSP-11.1")  # in play now
    nxt, events = nxt.apply(ReturnCarriedWager(3, "sup-7", "player left the table"))
    assert events == (CarriedWagerReturned(3, player(3), UNIT, "sup-7", "player left the table"),)
    assert nxt.postings(events[0]) == ledger.carried_back(player(3), UNIT)
    assert nxt.box(3) is None and ReturnCarriedWager not in nxt.expected_next().commands
    refused(nxt, ReturnCarriedWager(3, "sup-7", "again"), "CSP-11.1")
    nxt, _ = nxt.apply(PlaceAnte(3, "newcomer", UNIT))  # the box is free again
    assert CaribbeanRound.replay(nxt.events) == nxt
    # only while betting: once the cards are out the wager waits for the round's end
    later = bet(CaribbeanRound.new(r.rules, "r3", OPENING, carried=r.carried_out()), {1: UNIT})
    refused(later, ReturnCarriedWager(3, "sup-7", "player left"), "CSP-11.1")
    # gone from the round: the wager is not carried out again
    nxt = bet(nxt, {})
    nxt = deal(nxt, {1: HANDS[1], 3: HANDS[3], DEALER: HANDS[DEALER]})
    nxt, _ = nxt.apply(Raise(1, player(1), 2 * UNIT))
    nxt, _ = nxt.apply(Raise(3, "newcomer", 2 * UNIT))
    nxt, _ = nxt.apply(Showdown(Meter(SEED, SEED)))
    assert nxt.carried_out() == ()
    assert {w.player for w in nxt.settlement.wagers} == {player(1), "newcomer"}  # type: ignore[union-attr]
