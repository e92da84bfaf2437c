"""The hands named at the showdown (CSP-8, CSP-9.1, CSP-6.4): :func:`named_hand` at every
category, and what a player's view names — the dealer's hand with whether it qualifies, the
player's own hand when it was turned over, nothing before the showdown (CSP-12), and the box
the decision timer folded."""

from __future__ import annotations

import pytest

from macau_tables import codec
from macau_tables.cards import parse_cards
from macau_tables.caribbean.commands import DecisionTimeout, Fold, Raise, ReportMisdeal, Showdown
from macau_tables.caribbean.hands import HandCategory, evaluate
from macau_tables.caribbean.round import Phase
from macau_tables.caribbean.view import NamedHand, PlayerView, named_hand
from macau_tables.rounds import DEALER, Audience

from .support import UNIT, bet, deal, new_round, play, player

# One hand of each category of CSP-8 and the ranks that name it.
NAMED = [
    ("As Ks Qs Js 10s", HandCategory.ROYAL_FLUSH, ()),
    ("9h 8h 7h 6h 5h", HandCategory.STRAIGHT_FLUSH, ("9",)),
    ("5d 4d 3d 2d Ad", HandCategory.STRAIGHT_FLUSH, ("5",)),  # CSP-4: the ace plays low
    ("Jc Jd Jh Js 2c", HandCategory.FOUR_OF_A_KIND, ("J",)),
    ("5c 5d Kh Ks Kc", HandCategory.FULL_HOUSE, ("K", "5")),
    ("2h 9h Jh Kh 4h", HandCategory.FLUSH, ("K",)),
    ("5c 4d 3h 2s Ad", HandCategory.STRAIGHT, ("5",)),
    ("Ac Kd Qh Js 10c", HandCategory.STRAIGHT, ("A",)),
    ("7c 7d 7h Ks 2c", HandCategory.THREE_OF_A_KIND, ("7",)),
    ("5h 5s Kc Kd 2c", HandCategory.TWO_PAIR, ("K", "5")),
    ("Qc Qd 5h 4s 2c", HandCategory.ONE_PAIR, ("Q",)),
    ("2c Kd 5h Ah 4c", HandCategory.HIGH_CARD, ("A", "K")),
    ("10c 9d 7h 4s 2c", HandCategory.HIGH_CARD, ("T", "9")),
]


@pytest.mark.parametrize(("cards", "category", "ranks"), NAMED)
def test_a_hand_is_named_by_its_category_and_ranks_CSP_8(
    cards: str, category: HandCategory, ranks: tuple[str, ...]
) -> None:
    named = named_hand(parse_cards(cards))
    assert named == NamedHand(category, ranks)
    assert named.category is evaluate(cards, "macau").category  # the law's category


def test_every_category_is_named() -> None:
    assert {category for _, category, _ in NAMED} == set(HandCategory)


def test_a_named_hand_refuses_what_evaluate_refuses() -> None:
    with pytest.raises(ValueError, match="exactly 5 cards"):
        named_hand(parse_cards("As Ks Qs Js"))


def test_a_named_hand_is_a_codec_value() -> None:
    named = named_hand(parse_cards("Qc Qd 5h 4s 2c"))
    assert codec.decode(codec.encode(named)) == named


@pytest.mark.parametrize(
    ("dealer", "qualifies", "ranks"),
    [
        ("Ac Kh 4d 3c 2h", True, ("A", "K")),  # the lowest qualifying hand (CSP-9.1)
        ("Ac Qh Jd 9c 8h", False, ("A", "Q")),
        ("3c 3h Qd 9c 8h", True, ("3",)),  # any pair qualifies
    ],
)
def test_the_player_sees_the_dealer_s_hand_named_and_judged_at_the_showdown_CSP_9_1(
    dealer: str, qualifies: bool, ranks: tuple[str, ...]
) -> None:
    r = play({2: "9h 9d 7s 7c 5d"}, dealer)
    view = r.view(Audience.of_player(player(2)))
    assert isinstance(view, PlayerView) and view.phase is Phase.SETTLED
    assert view.dealer_qualifies is qualifies
    assert view.dealer_hand is not None and view.dealer_hand.ranks == ranks
    assert view.hand == NamedHand(HandCategory.TWO_PAIR, ("9", "7"))
    # a player without a box sees the dealer's hand named as well (all of it is face up)
    other = r.view(Audience.of_player("nobody"))
    assert isinstance(other, PlayerView) and other.box is None
    assert (other.dealer_hand, other.dealer_qualifies) == (view.dealer_hand, qualifies)


def test_nothing_is_named_before_the_showdown_CSP_12() -> None:
    r = deal(bet(new_round(), {2: UNIT}), {2: "9h 9d 7s 7c 5d", DEALER: "Ac Kh 4d 3c 2h"})
    view = r.view(Audience.of_player(player(2)))
    assert isinstance(view, PlayerView) and view.phase is Phase.DECIDING
    assert (view.hand, view.dealer_hand, view.dealer_qualifies) == (None, None, None)
    r, _ = r.apply(Raise(2, player(2), 2 * UNIT))
    view = r.view(Audience.of_player(player(2)))
    assert isinstance(view, PlayerView) and view.decided and view.hand is None


def test_a_folded_hand_is_not_named_CSP_6_7() -> None:
    r = play({2: "9h 9d 7s 7c 5d"}, "Ac Kh 4d 3c 2h", folds=(2,))
    view = r.view(Audience.of_player(player(2)))
    assert isinstance(view, PlayerView)
    assert view.hand is None and view.dealer_hand is not None and not view.timed_out


def test_the_box_the_timer_folded_is_told_so_CSP_6_4() -> None:
    r = deal(bet(new_round(), {2: UNIT}), {2: "9h 9d 7s 7c 5d", DEALER: "Ac Kh 4d 3c 2h"})
    r, _ = r.apply(DecisionTimeout(2))
    view = r.view(Audience.of_player(player(2)))
    assert isinstance(view, PlayerView) and view.decided and view.timed_out
    r, _ = r.apply(Showdown(r.rules.new_meter()))
    view = r.view(Audience.of_player(player(2)))
    assert isinstance(view, PlayerView) and view.timed_out and view.hand is None


def test_a_player_who_decided_is_not_told_the_timer_folded_them() -> None:
    r = deal(bet(new_round(), {2: UNIT}), {2: "9h 9d 7s 7c 5d", DEALER: "Ac Kh 4d 3c 2h"})
    r, _ = r.apply(Fold(2, player(2)))
    view = r.view(Audience.of_player(player(2)))
    assert isinstance(view, PlayerView) and view.decided and not view.timed_out


def test_a_round_held_for_a_supervisor_says_so_to_the_player_CSP_11_1() -> None:
    """A misdeal reported after the players saw their cards holds the round until a supervisor
    decides (CSP-11.1): the player's view says it waits for one (a page must not say "dealing")."""
    r = deal(bet(new_round(), {2: UNIT}), {2: "9h 9d 7s 7c 5d", DEALER: "Ac Kh 4d 3c 2h"})
    view = r.view(Audience.of_player(player(2)))
    assert isinstance(view, PlayerView) and not view.awaiting_supervisor
    r, _ = r.apply(ReportMisdeal("wrong number of cards"))
    view = r.view(Audience.of_player(player(2)))
    assert isinstance(view, PlayerView) and view.awaiting_supervisor
    other = r.view(Audience.of_player("nobody"))
    assert isinstance(other, PlayerView) and other.awaiting_supervisor
