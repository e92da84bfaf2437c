"""Hand ranking of Caribbean Stud Poker: hand-written examples for every clause of CSP-4/CSP-8,
dealer qualification (CSP-9.1), the standard ranking, and refusals of bad input."""

from __future__ import annotations

import pickle

import pytest

from macau_tables.cards import Card, Rank, Suit, parse_cards
from macau_tables.caribbean.hands import (
    QUALIFYING_STRENGTH,
    HandCategory,
    HandValue,
    Ranking,
    compare,
    dealer_qualifies,
    evaluate,
    qualifies,
    strength_category,
)
from macau_tables.errors import ConfigError, ParseError


def cat(text: str, ranking: str = "macau") -> HandCategory:
    return evaluate(text, ranking).category  # type: ignore[arg-type]


# --- categories and names (CSP-8) -------------------------------------------------------------


def test_category_names_CSP_8() -> None:
    assert [c.chinese for c in HandCategory] == [
        "五張散牌",
        "一對",
        "兩對",
        "三條",
        "順",
        "同花",
        "夫盧",
        "四條",
        "同花順",
        "黃袍麒",
    ]
    assert HandCategory.HIGH_CARD.english == "high card"
    assert HandCategory.FULL_HOUSE.english == "full house"
    assert HandCategory.ROYAL_FLUSH.english == "royal flush"
    assert [int(c) for c in HandCategory] == list(range(10))


@pytest.mark.parametrize("ranking", ["macau", "standard"])
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("As Ks Qs Js 10s", HandCategory.ROYAL_FLUSH),
        ("Kh Qh Jh 10h 9h", HandCategory.STRAIGHT_FLUSH),
        ("5d 4d 3d 2d Ad", HandCategory.STRAIGHT_FLUSH),
        ("9c 9d 9h 9s 2c", HandCategory.FOUR_OF_A_KIND),
        ("9c 9d 9h 2s 2c", HandCategory.FULL_HOUSE),
        ("10s 9s 7s 5s 2s", HandCategory.FLUSH),
        ("6c 7d 8h 9s 10s", HandCategory.STRAIGHT),
        ("As Kd Qc Jh 10s", HandCategory.STRAIGHT),
        ("5h 4c 3d 2s Ad", HandCategory.STRAIGHT),
        ("Kc Kd Kh 6s 5s", HandCategory.THREE_OF_A_KIND),
        ("10c 10d 6h 6s 5s", HandCategory.TWO_PAIR),
        ("10c 10d 9h 7s 6s", HandCategory.ONE_PAIR),
        ("Ac Kd 9h 7s 6s", HandCategory.HIGH_CARD),
        ("Ac 2d 3h 4s 6s", HandCategory.HIGH_CARD),  # not a straight
        ("Qc Kd Ah 2s 3s", HandCategory.HIGH_CARD),  # no wrap-around straight (CSP-4)
    ],
)
def test_categories_CSP_8(text: str, expected: HandCategory, ranking: str) -> None:
    assert cat(text, ranking) == expected


def test_category_order_CSP_8() -> None:
    ladder = [
        "Ac Kd 9h 7s 6s",
        "2c 2d 3h 4s 6s",
        "2c 2d 3h 3s 4s",
        "2c 2d 2h 3s 4s",
        "5h 4c 3d 2s Ad",
        "7s 5s 4s 3s 2s",
        "2c 2d 2h 3s 3c",
        "2c 2d 2h 2s 3c",
        "5d 4d 3d 2d Ad",
        "As Ks Qs Js 10s",
    ]
    rankings: tuple[Ranking, ...] = ("macau", "standard")
    for ranking in rankings:
        values = [evaluate(h, ranking) for h in ladder]
        assert values == sorted(values)
        assert [v.category for v in values] == list(HandCategory)
        assert len(set(values)) == len(values)


# --- CSP-4: card order, ace low in the wheel --------------------------------------------------


def test_wheel_is_lowest_straight_CSP_4() -> None:
    assert compare("5s 4s 3h 2h As", "6d 5c 4c 3c 2d") < 0
    assert evaluate("5s 4s 3h 2h Ad").ranks == (Rank.FIVE,)
    assert compare("5d 4d 3d 2d Ad", "6c 5c 4c 3c 2c") < 0  # lowest straight flush


def test_ace_high_straight_beats_king_high_CSP_4() -> None:
    assert compare("As Kd Qc Jh 10s", "Ks Qd Jc 10h 9s") > 0


def test_suit_order_CSP_4() -> None:
    # High cards equal in rank: the suit of the highest card decides (♠ > ♥ > ♣ > ♦).
    hands = ["Ad Kc 9h 7s 6s", "Ac Kd 9h 7s 6s", "Ah Kd 9c 7s 6s", "As Kd 9h 7c 6c"]
    values = [evaluate(h) for h in hands]
    assert values == sorted(values) and len(set(values)) == 4
    assert [v.suit for v in values] == [Suit.DIAMONDS, Suit.CLUBS, Suit.HEARTS, Suit.SPADES]


# --- CSP-8 tie-breaks, clause by clause -------------------------------------------------------


def test_royal_flush_tie_higher_suit_CSP_8_1() -> None:
    assert compare("As Ks Qs Js 10s", "Ah Kh Qh Jh 10h") > 0
    assert compare("Ad Kd Qd Jd 10d", "Ac Kc Qc Jc 10c") < 0
    assert compare("As Ks Qs Js 10s", "As Ks Qs Js 10s") == 0
    assert compare("As Ks Qs Js 10s", "Ah Kh Qh Jh 10h", "standard") == 0


def test_ace_king_queen_jack_ten_unsuited_is_not_royal_CSP_8_1() -> None:
    assert cat("As Ks Qs Js 10h") == HandCategory.STRAIGHT
    assert cat("As Ks Qs Js 9s") == HandCategory.FLUSH


def test_straight_flush_ranks_then_suit_CSP_8_2() -> None:
    # K-high straight flush is the highest, 5-4-3-2-A the lowest.
    assert compare("Kd Qd Jd 10d 9d", "Qs Js 10s 9s 8s") > 0
    assert compare("6d 5d 4d 3d 2d", "5s 4s 3s 2s As") > 0
    # Equal ranks: the higher suit.
    assert compare("9h 8h 7h 6h 5h", "9c 8c 7c 6c 5c") > 0
    assert compare("5d 4d 3d 2d Ad", "5c 4c 3c 2c Ac") < 0
    assert compare("9h 8h 7h 6h 5h", "9c 8c 7c 6c 5c", "standard") == 0


def test_four_of_a_kind_fifth_card_never_counts_CSP_8_3() -> None:
    assert compare("Ah Ad Ac As Kd", "Ah Ad Ac As Qd") == 0
    assert evaluate("Ah Ad Ac As Kd") == evaluate("Ah Ad Ac As 2d")
    assert compare("Ah Ad Ac As 2d", "Kh Kd Kc Ks Qd") > 0
    # Standard ranking: the kicker counts.
    assert compare("Ah Ad Ac As Kd", "Ah Ad Ac As Qd", "standard") > 0


def test_full_house_rank_of_three_CSP_8_4() -> None:
    assert compare("3c 3d 3h 2s 2c", "2h 2d 2s As Ac") > 0
    assert compare("Kc Kd Kh As Ac", "Kc Kd Kh 2s 2c") == 0  # the pair never counts
    assert compare("Kc Kd Kh As Ac", "Kc Kd Kh 2s 2c", "standard") > 0


def test_flush_ranks_before_suit_CSP_8_5() -> None:
    # Ranks high to low first, even against a higher suit.
    assert compare("Kd 9d 7d 5d 3d", "Ks 9s 7s 5s 2s") > 0
    assert compare("Ad 3d 4d 5d 7d", "Ks Qs Js 9s 8s") > 0
    # Equal ranks: the flush's suit.
    assert compare("Ks 9s 7s 5s 2s", "Kh 9h 7h 5h 2h") > 0
    assert evaluate("Ks 9s 7s 5s 2s").suit == Suit.SPADES
    assert compare("Ks 9s 7s 5s 2s", "Kh 9h 7h 5h 2h", "standard") == 0


def test_straight_ranks_then_suit_of_highest_card_CSP_8_6() -> None:
    assert compare("10d 9d 8c 7c 6c", "9s 8s 7s 6h 5s") > 0
    # Equal ranks: the suit of the highest card only, whatever the other suits.
    assert compare("10s 9d 8d 7d 6d", "10h 9s 8s 7s 6s") > 0
    assert compare("10c 9s 8s 7s 6h", "10h 9d 8d 7d 6c") < 0
    assert compare("10s 9d 8d 7d 6d", "10h 9s 8s 7s 6s", "standard") == 0


def test_wheel_decided_by_suit_of_the_five_CSP_8_6() -> None:
    # In 5-4-3-2-A the ace is low, so the highest card is the 5 (CSP-4, CSP-8).
    assert compare("5s 4d 3d 2d Ad", "5h 4s 3s 2s As") > 0
    assert compare("5c 4s 3s 2s As", "5h 4d 3d 2d Ad") < 0
    assert evaluate("5s 4d 3d 2d Ad").suit == Suit.SPADES


def test_three_of_a_kind_rank_of_three_only_CSP_8_7() -> None:
    assert compare("3c 3d 3h 2s 4c", "2h 2d 2s As Kc") > 0
    assert compare("Kc Kd Kh 6s 5s", "Kc Kd Kh As Qs") == 0
    assert compare("Kc Kd Kh 6s 5s", "Kc Kd Kh As Qs", "standard") < 0


def test_two_pair_order_CSP_8_8() -> None:
    # Higher pair, then lower pair, then kicker.
    assert compare("Jc Jd 3h 3s 2s", "10c 10d 9h 9s As") > 0
    assert compare("Jc Jd 5h 5s 2s", "Jh Js 4h 4s As") > 0
    assert compare("Jc Jd 5h 5s 3s", "Jh Js 5c 5d 2c") > 0


def test_two_pair_suit_of_higher_pair_CSP_8_8() -> None:
    # Pairs and kicker equal: the holder of the higher suit within the higher pair wins,
    # whatever the suits of the lower pair and the kicker.
    spade = "10s 10d 6h 6c 5d"
    heart = "10h 10c 6s 6d 5s"
    assert compare(spade, heart) > 0
    assert evaluate(spade).suit == Suit.SPADES
    assert evaluate(heart).suit == Suit.HEARTS
    assert compare(spade, heart, "standard") == 0


def test_one_pair_order_and_suit_CSP_8_9() -> None:
    assert compare("10c 10d 3h 4s 2s", "9c 9d Ah Ks Qs") > 0
    assert compare("10c 10d Ah 7s 6s", "10h 10s Kh Qs Js") > 0
    assert compare("10c 10d Ah Ks 3s", "10h 10s Ad Kc 2c") > 0  # third kicker
    # Equal ranks: the higher suit held in the pair (♠ beats ♥ even though ♥+♣ "sum" more).
    assert compare("10s 10d Ah Ks 3s", "10h 10c Ad Kc 3c") > 0
    assert evaluate("10h 10c Ad Kc 3c").suit == Suit.HEARTS
    assert compare("10s 10d Ah Ks 3s", "10h 10c Ad Kc 3c", "standard") == 0


def test_high_card_ranks_then_suit_of_highest_CSP_8_10() -> None:
    assert compare("Ac Qd 9h 7s 6s", "Ad Jh 10c 9d 8d") > 0
    assert compare("Ac Kd 9h 7s 6s", "Ad Kh 9c 7d 5d") > 0  # fifth card
    # All ranks equal: the suit of the highest card, not of the others.
    assert compare("As Kd 9d 7d 6d", "Ah Ks 9s 7s 6c") > 0
    assert compare("As Kd 9d 7d 6d", "Ah Ks 9s 7s 6c", "standard") == 0


# --- CSP-9.1 dealer qualification -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ad Kc 4h 3s 2d", True),  # the lowest qualifying hand
        ("As Kd Qd Jd 9d", True),
        ("Ad Qc Jh 10s 9d", False),  # A-Q high unsuited: no king
        ("Kd Qc Jh 10s 8d", False),  # K high: no ace
        ("2c 2d 5h 7s 9s", True),  # the lowest pair qualifies
        ("As Ks Qs Js 10s", True),
        ("5h 4c 3d 2s Ad", True),  # straight: better than A-K high
        ("Ad Qd Jd 9d 7d", True),  # flush without a king
        ("7c 5d 4h 3s 2c", False),  # the lowest hand
    ],
)
def test_dealer_qualification_CSP_9_1(text: str, expected: bool) -> None:
    assert dealer_qualifies(text) is expected
    assert qualifies(evaluate(text)) is expected
    assert qualifies(evaluate(text, "standard")) is expected
    assert (evaluate(text).strength >= QUALIFYING_STRENGTH) is expected


def test_qualifies_refuses_non_value_CSP_9_1() -> None:
    with pytest.raises(TypeError):
        qualifies("Ad Kc 4h 3s 2d")  # type: ignore[arg-type]


# --- HandValue and the API surface ------------------------------------------------------------


def test_hand_value_is_ordered_hashable_immutable() -> None:
    a, b = evaluate("Ac Kd 9h 7s 6s"), evaluate("2c 2d 3h 4s 6s")
    assert a < b and a <= b and b > a and b >= a and a != b
    assert {a, b, evaluate("Ac Kd 9h 7s 6s")} == {a, b}
    with pytest.raises(AttributeError):
        a.strength = 0  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(a)) == a
    assert a.ranking == "macau" and a.category == HandCategory.HIGH_CARD
    assert strength_category(a.strength) == HandCategory.HIGH_CARD
    assert HandValue(a.strength, "macau") == a


def test_hand_values_of_different_rankings_do_not_compare() -> None:
    m, s = evaluate("Ac Kd 9h 7s 6s"), evaluate("Ac Kd 9h 7s 6s", "standard")
    assert m != s
    for op in ("__lt__", "__le__", "__gt__", "__ge__"):
        with pytest.raises(TypeError):
            getattr(m, op)(s)
    with pytest.raises(TypeError):
        _ = m < s


def test_ranks_and_str_describe_the_tiebreak() -> None:
    assert evaluate("10s 10d 9h 7s 6c").ranks == (Rank.TEN, Rank.NINE, Rank.SEVEN, Rank.SIX)
    assert evaluate("Kc Kd Kh 6s 5s").ranks == (Rank.KING,)
    assert evaluate("Kc Kd Kh 6s 5s").suit is None
    assert evaluate("Kc Kd Kh 6s 5s", "standard").ranks == (Rank.KING, Rank.SIX, Rank.FIVE)
    assert evaluate("Kc Kd Kh 6s 6h", "standard").ranks == (Rank.KING, Rank.SIX)
    assert evaluate("2c 2d 2h 2s 3h", "standard").ranks == (Rank.TWO, Rank.THREE)
    assert evaluate("10s 10d 9h 7s 6c", "standard").suit is None
    assert str(evaluate("10s 10d 9h 7s 6c")) == "one pair 10-9-7-6♠"


def test_input_forms_agree() -> None:
    text = "As Kd 10c 9h 2s"
    cards = parse_cards(text)
    v = evaluate(cards)
    assert evaluate(text) is v
    assert evaluate(tuple(cards)) is v
    assert evaluate(iter(cards)) is v
    assert evaluate(["As", "Kd", "10c", "9h", "2s"]) is v
    assert evaluate("as,kd,tc,9h,2s") is v
    assert evaluate(reversed(cards)) is v
    assert evaluate([Card.parse("As"), "Kd", "10c", "9h", "2s"]) is v


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("As Kd 10c 9h", "exactly 5 cards, got 4"),
        ("As Kd 10c 9h 2s 3s", "exactly 5 cards, got 6"),
        ("", "exactly 5 cards, got 0"),
        ("As Kd 10c 9h As", "duplicate card As"),
        ("As Kd 10c 9h 1s", "not a card"),
        (["As", "Kd", "10c", "9h", 51], "not a card"),
        (12345, "a hand is five cards"),
    ],
)
def test_bad_hands_are_refused(bad: object, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        evaluate(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        dealer_qualifies(bad)  # type: ignore[arg-type]


def test_bad_hands_are_refused_on_the_fast_path_too() -> None:
    cards = parse_cards("As Kd 10c 9h 2s")
    with pytest.raises(ParseError, match="exactly 5 cards, got 4"):
        evaluate(cards[:4])
    with pytest.raises(ParseError, match="duplicate card Kd"):
        evaluate([*cards[:4], cards[1]])
    with pytest.raises(ParseError, match="duplicate card As"):
        evaluate((cards[0],) * 5)
    with pytest.raises(ParseError, match="exactly 5 cards, got 6"):
        evaluate(iter([*cards, Card.parse("3s")]))


def test_unknown_ranking_is_refused() -> None:
    for ranking in ("Macau", "poker", None):
        with pytest.raises(ConfigError, match="unknown ranking"):
            evaluate("As Kd 10c 9h 2s", ranking)  # type: ignore[arg-type]
        with pytest.raises(ConfigError, match="unknown ranking"):
            compare("As Kd 10c 9h 2s", "Ks Kd 10c 9h 2s", ranking)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown ranking"):
        HandValue(0, "poker")  # type: ignore[arg-type]


def test_compare_accepts_hand_values_of_its_ranking() -> None:
    a, b = evaluate("As Kd 10c 9h 2s"), evaluate("Ks Kd 10c 9h 2s")
    assert compare(a, b) == -1 and compare(b, a) == 1 and compare(a, a) == 0
    assert compare(a, "Ks Kd 10c 9h 2s") == -1
    with pytest.raises(ConfigError, match="evaluated under 'macau'"):
        compare(a, b, "standard")


def test_strength_category_refuses_out_of_range() -> None:
    with pytest.raises(ParseError):
        strength_category(-1)
    with pytest.raises(ParseError):
        strength_category(10 << 22)
    with pytest.raises(ParseError):
        HandValue(10 << 22, "macau")
