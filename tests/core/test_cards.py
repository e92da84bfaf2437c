"""Cards, suits and ranks (CSP-4 card order)."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macau_tables.cards import (
    DECK,
    Card,
    Rank,
    Suit,
    find_duplicate,
    format_cards,
    new_deck,
    new_shoe,
    parse_cards,
)
from macau_tables.errors import ParseError


def test_suit_order_spades_hearts_clubs_diamonds_CSP_4() -> None:
    assert Suit.SPADES > Suit.HEARTS > Suit.CLUBS > Suit.DIAMONDS
    assert [s.symbol for s in sorted(Suit, reverse=True)] == ["♠", "♥", "♣", "♦"]


def test_rank_order_ace_high_CSP_4() -> None:
    assert sorted(Rank, reverse=True)[:5] == [Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.TEN]
    assert min(Rank) == Rank.TWO


def test_cards_ordered_by_rank_then_suit_CSP_4() -> None:
    assert Card.parse("2s") < Card.parse("3d")
    assert Card.parse("Ad") < Card.parse("Ac") < Card.parse("Ah") < Card.parse("As")
    assert max(parse_cards("Kd Ks Ah Ac")) == Card.parse("Ah")
    assert list(DECK) == sorted(DECK)


def test_deck_has_52_distinct_cards_CSP_1() -> None:
    assert len(DECK) == 52
    assert len(set(DECK)) == 52
    assert [c.index for c in DECK] == list(range(52))
    assert new_deck() == list(DECK)
    assert new_deck() is not new_deck()


def test_parse_accepts_t_or_10_any_case_and_symbols() -> None:
    assert parse_cards("As Kd 10c 9h 2s") == parse_cards("AS KD TC 9H 2S")
    assert parse_cards("as,kd, 10c 9h 2s") == parse_cards("A♠ K♦ 10♣ 9♥ 2♠")
    assert Card.parse("t♠") is Card(Rank.TEN, Suit.SPADES)
    assert parse_cards(["Qh", "jc"]) == [Card(12, Suit.HEARTS), Card(11, Suit.CLUBS)]


@pytest.mark.parametrize("token", ["1s", "Ax", "11h", "", "A", "s", "AAs", "10", "Kss", "0h"])
def test_bad_token_is_refused_and_quoted(token: str) -> None:
    with pytest.raises(ParseError) as info:
        Card.parse(token)
    assert repr(token) in str(info.value)


def test_parse_cards_quotes_the_bad_token() -> None:
    with pytest.raises(ParseError, match="'Zz'"):
        parse_cards("As Kd Zz")


@given(st.sampled_from(DECK))
def test_str_parse_round_trip(card: Card) -> None:
    assert Card.parse(str(card)) is card
    assert Card.parse(card.pretty) is card
    assert Card.from_index(card.index) is card
    assert pickle.loads(pickle.dumps(card)) is card
    assert copy.deepcopy(card) is card


@given(st.lists(st.sampled_from(DECK), max_size=12))
def test_format_parse_round_trip(cards: list[Card]) -> None:
    assert parse_cards(format_cards(cards)) == cards


def test_cards_are_immutable_and_hashable() -> None:
    card = Card.parse("As")
    with pytest.raises(AttributeError):
        card.rank = Rank.KING  # type: ignore[misc]
    assert {card: 1}[Card(14, 3)] == 1


def test_from_index_refuses_out_of_range() -> None:
    for bad in (-1, 52, 3.0, True):
        with pytest.raises(ParseError):
            Card.from_index(bad)  # type: ignore[arg-type]
    with pytest.raises(ParseError):
        Card(15, 0)


def test_multi_deck_shoe_has_each_card_once_per_deck_BAC_1() -> None:
    shoe = new_shoe(8)
    assert len(shoe) == 416
    assert all(shoe.count(c) == 8 for c in DECK)
    assert find_duplicate(shoe) is DECK[0]
    assert find_duplicate(DECK) is None
    with pytest.raises(ValueError):
        new_shoe(0)


def test_emoji_suit_symbols_and_non_text_input_CSP_4() -> None:
    """The emoji form of a suit (♠ followed by U+FE0F) reads like the plain symbol; input that
    is neither text nor an iterable of texts is a ParseError, not a TypeError."""
    assert parse_cards("A\u2660\ufe0f 10\u2665\ufe0f") == parse_cards("As 10h")
    with pytest.raises(ParseError, match="None"):
        parse_cards(None)  # type: ignore[arg-type]
