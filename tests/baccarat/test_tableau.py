"""Tableau tests: BAC-5 values, BAC-7 dealing order, BAC-9 third-card rules, BAC-11 winner,
BAC-12 tie, BAC-13 pairs.

The exhaustive test compares :func:`deal_round` over all 10**6 sequences of six card values
with an independent statement of BAC-9 written here as literal tables, transcribed from the
law (Article 9 of the 2004 regulation), not from the code.
"""

from __future__ import annotations

import itertools
from array import array
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macau_tables.baccarat.sides import Side
from macau_tables.baccarat.tableau import (
    CardSlot,
    NotEnoughCards,
    banker_draws,
    card_value,
    deal_round,
    hand_total,
    is_natural,
    next_slot,
    player_draws,
)
from macau_tables.cards import DECK, Card, Rank, Suit, parse_cards

# --- BAC-9 as the law writes it -------------------------------------------------------------
# Article 9(1)/(2): the player draws on 1, 2, 3, 4, 5 and 10 (= 0); stands on 6, 7 (8, 9 are
# naturals).
LAW_PLAYER_DRAWS = {0: "D", 1: "D", 2: "D", 3: "D", 4: "D", 5: "D", 6: "S", 7: "S"}

# Article 9(3)/(4): banker's two-card total (rows) x value of the player's third card
# (columns 0..9, then "-" = the player stood). D = draw, S = stand.
#                    player's third card:  0 1 2 3 4 5 6 7 8 9  -
LAW_BANKER_TABLE_TEXT = """
                                      0:   D D D D D D D D D D  D
                                      1:   D D D D D D D D D D  D
                                      2:   D D D D D D D D D D  D
                                      3:   D D D D D D D D S D  D
                                      4:   S S D D D D D D S S  D
                                      5:   S S S S D D D D S S  D
                                      6:   S S S S S S D D S S  S
                                      7:   S S S S S S S S S S  S
"""


def _law_banker_table() -> dict[tuple[int, int | None], bool]:
    table: dict[tuple[int, int | None], bool] = {}
    for line in LAW_BANKER_TABLE_TEXT.strip().splitlines():
        total_text, marks_text = line.split(":")
        total = int(total_text)
        marks = marks_text.split()
        assert len(marks) == 11
        for col, mark in enumerate(marks):
            table[(total, None if col == 10 else col)] = mark == "D"
    return table


LAW_BANKER = _law_banker_table()

# A card of each value 0..9 (10♠ stands for value 0, A♠ for 1).
CARD_OF_VALUE = [Card(Rank.TEN, Suit.SPADES), Card(Rank.ACE, Suit.SPADES)] + [
    Card(r, Suit.SPADES) for r in range(2, 10)
]


def law_outcome(v: tuple[int, ...]) -> tuple[int, int, int, str]:
    """Independent BAC-9 / BAC-11 reference: (player total, banker total, cards used, winner)."""
    pt = (v[0] + v[2]) % 10
    bt = (v[1] + v[3]) % 10
    used = 4
    if pt < 8 and bt < 8:  # BAC-9.2 / 9.4: a natural on either side stops all drawing
        third: int | None = None
        if LAW_PLAYER_DRAWS[pt] == "D":
            third = v[4]
            pt = (pt + third) % 10
            used = 5
        if LAW_BANKER[(bt, third)]:
            bt = (bt + v[used]) % 10
            used += 1
    winner = "P" if pt > bt else "B" if bt > pt else "T"
    return pt, bt, used, winner


def test_law_tables_cover_every_case_BAC_9() -> None:
    assert len(LAW_BANKER) == 8 * 11
    assert set(LAW_PLAYER_DRAWS) == set(range(8))


@cache
def _dealt() -> array[int]:
    """``deal_round`` over all 10**6 six-card value sequences (in ``itertools.product``
    order), each result packed into an int: player total, banker total << 4, cards used << 8,
    winner (0 player, 1 banker, 2 tie) << 12, the player's third card << 14, the banker's
    << 15. Dealt once for the two exhaustive tests below."""
    winner = {Side.PLAYER: 0, Side.BANKER: 1, Side.TIE: 2}
    cov = CARD_OF_VALUE
    out = array("i")
    for v in itertools.product(range(10), repeat=6):
        r = deal_round([cov[v[0]], cov[v[1]], cov[v[2]], cov[v[3]], cov[v[4]], cov[v[5]]])
        out.append(
            r.player_total
            | r.banker_total << 4
            | r.cards_used << 8
            | winner[r.winner] << 12
            | (len(r.player_cards) == 3) << 14
            | (len(r.banker_cards) == 3) << 15
        )
    return out


def test_exhaustive_all_value_sequences_BAC_9_BAC_11() -> None:
    """All 10**6 six-card value sequences: deal_round equals the law's tables (BAC-9, BAC-11)."""
    letters = "PBT"
    mismatches = 0
    counts = {4: 0, 5: 0, 6: 0}
    dealt = _dealt()
    assert len(dealt) == 10**6
    for v, packed in zip(itertools.product(range(10), repeat=6), dealt, strict=True):
        used = packed >> 8 & 15
        got = (packed & 15, packed >> 4 & 15, used, letters[packed >> 12 & 3])
        if got != law_outcome(v):
            mismatches += 1
        counts[used] += 1
    assert mismatches == 0
    # Cards used, counted over value sequences: 4 when a natural (or both stand).
    assert sum(counts.values()) == 10**6
    assert all(n > 0 for n in counts.values())


def _slots_of(packed: int) -> tuple[CardSlot | None, ...]:
    """The slots a dealt round (packed as in :func:`_dealt`) filled, in dealing order, then
    ``None`` up to seven entries."""
    slots: list[CardSlot | None] = [
        CardSlot.PLAYER_1,
        CardSlot.BANKER_1,
        CardSlot.PLAYER_2,
        CardSlot.BANKER_2,
    ]
    if packed >> 14 & 1:
        slots.append(CardSlot.PLAYER_3)
    if packed >> 15 & 1:
        slots.append(CardSlot.BANKER_3)
    return (*slots, *([None] * (7 - len(slots))))


def test_next_slot_exhaustive_against_deal_round_BAC_9() -> None:
    """All 10**6 six-card value sequences: after each prefix (0..6 cards) next_slot names the
    slot deal_round fills next, and None once the hand is complete (BAC-7.1, BAC-9.1..9.4).

    Each prefix is asked once (the loops walk the prefix tree); each full sequence is dealt.
    """
    cov = CARD_OF_VALUE
    dealt = iter(_dealt())  # deal_round of each full sequence, in the loops' order
    mismatches: list[tuple[int, ...]] = []
    s0 = next_slot([])
    for v0 in range(10):
        c0 = [cov[v0]]
        s1 = next_slot(c0)
        for v1 in range(10):
            c1 = [*c0, cov[v1]]
            s2 = next_slot(c1)
            for v2 in range(10):
                c2 = [*c1, cov[v2]]
                s3 = next_slot(c2)
                for v3 in range(10):
                    c3 = [*c2, cov[v3]]
                    s4 = next_slot(c3)
                    for v4 in range(10):
                        c4 = [*c3, cov[v4]]
                        s5 = next_slot(c4)
                        for v5 in range(10):
                            c5 = [*c4, cov[v5]]
                            got = (s0, s1, s2, s3, s4, s5, next_slot(c5))
                            if got != _slots_of(next(dealt)):
                                mismatches.append((v0, v1, v2, v3, v4, v5))
    assert next(dealt, None) is None  # every dealt sequence was compared
    assert mismatches == []


def test_next_slot_naturals_and_draws_BAC_9() -> None:
    assert next_slot(parse_cards("9s 5h")) is CardSlot.PLAYER_2  # BAC-7.1: P1 B1 P2 B2 first
    assert next_slot(parse_cards("9s 5h Kd 2c")) is None  # BAC-9.2: player natural
    assert next_slot(parse_cards("As 8h 2c Kd")) is None  # BAC-9.4: banker natural
    assert next_slot(parse_cards("2s 3h Ac Kd")) is CardSlot.PLAYER_3  # BAC-9.1: P 3 draws
    assert next_slot(parse_cards("2s 3h Ac Kd 8d")) is None  # BAC-9.3: B 3 stands on an 8
    assert next_slot(parse_cards("2s 3h Ac Kd 5d")) is CardSlot.BANKER_3  # B 3 draws on a 5
    assert next_slot(parse_cards("6s 2h Kc 3d")) is CardSlot.BANKER_3  # P 6 stood, B 5 draws
    assert next_slot(parse_cards("6s 6h Kc Kd")) is None  # BAC-9.4: both stand on 6
    assert next_slot(parse_cards("2s 3h Ac Kd 5d 5c 5h")) is None  # more than the hand takes


def test_card_slot_values_BAC_7_1() -> None:
    assert [s.value for s in CardSlot] == ["P1", "B1", "P2", "B2", "P3", "B3"]


def test_card_values_BAC_5() -> None:
    for card in DECK:
        expected = {14: 1, 10: 0, 11: 0, 12: 0, 13: 0}.get(card.rank, int(card.rank))
        assert card_value(card) == expected
    assert hand_total(parse_cards("9s 9h")) == 8  # sum modulo 10
    assert hand_total(parse_cards("Ks Qh Jd")) == 0
    assert hand_total(parse_cards("As 9h Tc")) == 0
    assert hand_total([]) == 0


def test_naturals_BAC_9_2() -> None:
    assert is_natural(parse_cards("9s Kh"))
    assert is_natural(parse_cards("4s 4h"))
    assert not is_natural(parse_cards("4s 3h As"))  # a three-card 8 is not a natural
    assert not is_natural(parse_cards("4s 3h"))


def test_player_draws_BAC_9_1() -> None:
    assert [player_draws(t) for t in range(10)] == [True] * 6 + [False] * 4
    with pytest.raises(ValueError):
        player_draws(10)


def test_banker_draws_matches_law_table_BAC_9_3_BAC_9_4() -> None:
    for (total, third), draw in LAW_BANKER.items():
        assert banker_draws(total, third) is draw, (total, third)
    for third in [*range(10), None]:
        assert banker_draws(8, third) is False
        assert banker_draws(9, third) is False
    with pytest.raises(ValueError):
        banker_draws(3, 10)
    with pytest.raises(ValueError):
        banker_draws(-1, None)


def test_dealing_order_and_result_BAC_7_1() -> None:
    # P1=2s B1=3h P2=Ac B2=Kd: P=3 draws; B=3; P3=8d -> banker stands on 3 (BAC-9.3)
    r = deal_round(parse_cards("2s 3h Ac Kd 8d 9c"))
    assert r.player_cards == tuple(parse_cards("2s Ac 8d"))
    assert r.banker_cards == tuple(parse_cards("3h Kd"))
    assert (r.player_total, r.banker_total, r.cards_used) == (1, 3, 5)
    assert r.winner is Side.BANKER
    assert r.cards_in_order == tuple(parse_cards("2s 3h Ac Kd 8d"))
    assert not r.natural


def test_player_stands_banker_draws_on_0_to_5_BAC_9_3() -> None:
    r = deal_round(parse_cards("6s 2h Kc 3d 4c"))  # P 6 stands, B 5 draws the 5th card
    assert r.player_cards == tuple(parse_cards("6s Kc"))
    assert r.banker_cards == tuple(parse_cards("2h 3d 4c"))
    assert r.cards_used == 5
    assert r.banker_total == 9 and r.winner is Side.BANKER


def test_six_cards_and_tie_BAC_12() -> None:
    r = deal_round(parse_cards("As 2h Tc 2d 5c 3s"))  # P 1 + 5 = 6; B 4, third 5 -> draw, +3 = 7
    assert r.cards_used == 6
    assert (r.player_total, r.banker_total) == (6, 7)
    r = deal_round(parse_cards("7s 7h Kc Kd"))
    assert r.winner is Side.TIE and r.cards_used == 4


def test_natural_stops_drawing_BAC_9_2() -> None:
    r = deal_round(parse_cards("As 8h 2c Kd"))  # P 3, B 8 natural: nobody draws
    assert r.natural and r.cards_used == 4 and r.winner is Side.BANKER


def test_pairs_by_rank_BAC_13() -> None:
    r = deal_round(parse_cards("Js Qh Jh Qd 2c 3c"))  # J-J pair, Q-Q pair; J-Q is not
    assert r.player_pair and r.banker_pair
    r = deal_round(parse_cards("Js Qh Qc Kd 2s 3s"))
    assert not r.player_pair and not r.banker_pair


def test_consumes_only_what_it_needs_from_an_iterator_BAC_7() -> None:
    it = iter(parse_cards("9s 5h Kd 2c 7h 7d"))
    r = deal_round(it)
    assert r.cards_used == 4
    assert [str(c) for c in it] == ["7h", "7d"]


def test_refuses_too_few_cards_BAC_7_1() -> None:
    with pytest.raises(NotEnoughCards):
        deal_round(parse_cards("9s 5h Kd"))
    with pytest.raises(NotEnoughCards):
        deal_round(iter(parse_cards("9s 5h Kd")))
    with pytest.raises(NotEnoughCards, match="player draws"):
        deal_round(parse_cards("2s 3h Ac Kd"))
    with pytest.raises(NotEnoughCards, match="banker draws"):
        deal_round(parse_cards("2s 3h Ac Kd 5c"))
    with pytest.raises(NotEnoughCards):
        deal_round(iter(parse_cards("2s 3h Ac Kd 5c")))
    with pytest.raises(NotEnoughCards) as info:
        deal_round(iter(parse_cards("2s 3h Ac Kd 5c")))
    assert info.value.key == "shoe.banker_draws_short" and info.value.params == {"given": 5}
    assert "莊家" in info.value.text("zh-Hant")


@given(st.lists(st.sampled_from(DECK), min_size=6, max_size=8))
def test_sequence_and_iterator_agree_BAC_7(cards: list[Card]) -> None:
    assert deal_round(cards) == deal_round(iter(cards)) == deal_round(tuple(cards))


@given(st.lists(st.sampled_from(DECK), min_size=6, max_size=6))
def test_two_hands_higher_total_wins_BAC_6_BAC_11(cards: list[Card]) -> None:
    r = deal_round(cards)
    assert len(r.player_cards) + len(r.banker_cards) == r.cards_used
    assert r.player_total == hand_total(r.player_cards)
    assert r.banker_total == hand_total(r.banker_cards)
    expected = (
        Side.PLAYER
        if r.player_total > r.banker_total
        else Side.BANKER
        if r.banker_total > r.player_total
        else Side.TIE
    )
    assert r.winner is expected
    assert r.natural == (is_natural(r.player_cards[:2]) or is_natural(r.banker_cards[:2]))
