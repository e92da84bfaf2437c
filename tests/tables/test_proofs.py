"""Which cards an audience is proved (:func:`macau_tables.tables.proofs.shown`): exactly the
cards its view shows, never a card face down to it — also when a shoe of several decks dealt
the same card twice in one round (BAC-1: 6 to 12 decks; BAC-16: a held card is face down)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from macau_tables.cards import Card, parse_cards
from macau_tables.rng import CardLeaf
from macau_tables.rounds import Audience
from macau_tables.tables.proofs import shown


@dataclass(frozen=True)
class _Dealt:
    card: Card
    leaf: CardLeaf


@dataclass(frozen=True)
class _Round:
    """The two things :func:`shown` asks of a round: its events and its view."""

    events: tuple[_Dealt, ...]
    face_up: tuple[Card | None, ...]

    def view(self, audience: Audience) -> Any:
        return self.face_up


def _round(dealt: str, face_up: list[bool]) -> _Round:
    cards = parse_cards(dealt)
    events = tuple(_Dealt(c, CardLeaf(1, i, f"{i:064x}")) for i, c in enumerate(cards))
    return _Round(events, tuple(c if up else None for c, up in zip(cards, face_up, strict=True)))


def test_an_audience_is_proved_the_cards_its_view_shows_in_deal_order() -> None:
    r = _round("7s 9h Kd 2c", [True, False, True, False])
    proved = shown(r, Audience.public())
    assert [(str(c), leaf.position) for c, leaf in proved] == [("7s", 0), ("Kd", 2)]


def test_a_card_dealt_twice_with_one_copy_face_down_is_proved_to_no_one_BAC_16() -> None:
    # P1 7♠ held face down, B1 7♠ face up (two decks): a proof of position 0 with 7♠ would
    # tell the held card. Neither copy is proved; the other face-up card still is.
    r = _round("7s 7s Kd", [False, True, True])
    proved = shown(r, Audience.public())
    assert [(str(c), leaf.position) for c, leaf in proved] == [("Kd", 2)]
    both = _round("7s 7s Kd", [True, True, True])
    assert [leaf.position for _, leaf in shown(both, Audience.public())] == [0, 1, 2]
