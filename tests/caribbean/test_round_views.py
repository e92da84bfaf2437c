"""Who sees what (CSP-6.5, CSP-6.7, CSP-11.2, CSP-12): the player's, the dealer's and a
supervisor's, and the public's views of a round, on fixed rounds and on random ones."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings

from macau_tables.cards import parse_cards
from macau_tables.caribbean import CODEC_TYPES
from macau_tables.caribbean.commands import (
    DealCard,
    Fold,
    Raise,
    ReportExposedCard,
    ReportMisdeal,
    Showdown,
    Void,
)
from macau_tables.caribbean.hands import HandCategory
from macau_tables.caribbean.round import CaribbeanRound, Phase
from macau_tables.caribbean.settlement import BoxOutcome, CarriedWager
from macau_tables.caribbean.view import PlayerView, PublicView, TableView
from macau_tables.rounds import DEALER, Audience
from macau_tables.voids import Ground

from .support import (
    AUDIENCES,
    HANDS3,
    RULES,
    SEED,
    UNIT,
    Script,
    bet,
    cards_in,
    check_views,
    commands,
    deal,
    fault_commands,
    new_round,
    player,
    scripts,
)


def decided() -> CaribbeanRound:
    """Boxes 1 (jackpot wager) and 4 in play, every card dealt, nobody decided yet."""
    return deal(bet(new_round(), {1: UNIT, 4: 2 * UNIT}, jackpots=(1,)), HANDS3)


def showdown(r: CaribbeanRound) -> CaribbeanRound:
    r, _ = r.apply(Raise(1, player(1), 2 * UNIT))
    r, _ = r.apply(Fold(4, player(4)))
    r, _ = r.apply(Showdown(r.rules.new_meter()))
    return r


def test_views_are_frozen_codec_types() -> None:
    """Views are values the table service can send: frozen dataclasses listed in CODEC_TYPES."""
    r = decided()
    for audience in (Audience.of_player(player(1)), *AUDIENCES):
        view = r.view(audience)
        assert type(view) in CODEC_TYPES
        assert dataclasses.is_dataclass(view)
        with pytest.raises(dataclasses.FrozenInstanceError):
            view.phase = Phase.VOID  # type: ignore[misc]


def test_dealer_and_supervisor_see_wagers_and_counts_not_face_down_cards_CSP_6_5() -> None:
    r = decided()
    dealer = parse_cards(HANDS3[DEALER])
    for audience in (Audience.dealer(), Audience.supervisor()):
        view = r.view(audience)
        assert isinstance(view, TableView) and view.role is audience.role
        assert [(b.box, b.player, b.ante, b.jackpot, b.decided) for b in view.boxes] == [
            (1, player(1), UNIT, UNIT, False),
            (4, player(4), 2 * UNIT, 0, False),
        ]
        assert [b.cards for b in view.boxes] == [(None,) * 5, (None,) * 5]
        assert view.dealer_cards == (None, None, None, None, dealer[4])
        assert cards_in(view) == {dealer[4]}


def test_a_box_card_exposed_in_error_is_seen_by_the_table_not_by_other_players_CSP_11_2() -> None:
    """Documented reading: a box card exposed in error is shown on the dealer's and the
    supervisor's views (it was seen face up); the law keeps only an exposed *dealer* card face
    up, so another player's view never carries it (CSP-12)."""
    r, _ = decided().apply(ReportExposedCard("9h"))  # box 4's first card
    table = r.view(Audience.dealer())
    assert isinstance(table, TableView)
    assert table.boxes[1].cards == (parse_cards("9h")[0], None, None, None, None)
    assert parse_cards("9h")[0] not in cards_in(r.view(Audience.of_player(player(1))))
    assert cards_in(r.view(Audience.public())) == set()


def test_after_the_showdown_raised_hands_and_the_dealer_are_shown_folded_ones_not_CSP_6_7() -> None:
    r = showdown(decided())
    table = r.view(Audience.supervisor())
    assert isinstance(table, TableView)
    one, four = table.boxes
    assert one.cards == tuple(parse_cards(HANDS3[1])) and one.category is HandCategory.ROYAL_FLUSH
    assert four.cards == (None,) * 5 and four.category is None  # collected unseen (CSP-6.7)
    assert (one.outcome, four.outcome) == (BoxOutcome.WON, BoxOutcome.FOLDED)
    assert table.dealer_cards == tuple(parse_cards(HANDS3[DEALER]))
    assert table.dealer_category is HandCategory.HIGH_CARD and table.dealer_qualifies
    assert table.results == r.settlement.wagers  # type: ignore[union-attr]
    assert table.jackpot is not None and table.jackpot.awards[0].box == 1
    # a player sees the dealer's whole hand and their own, never another box's (CSP-12)
    mine = r.view(Audience.of_player(player(4)))
    assert isinstance(mine, PlayerView) and mine.outcome is BoxOutcome.FOLDED
    assert cards_in(mine) == set(parse_cards(HANDS3[4])) | set(parse_cards(HANDS3[DEALER]))


def test_the_public_sees_boxes_taken_and_the_jackpot_never_a_card_CSP_12() -> None:
    r = new_round(carried=(CarriedWager(6, "p6", UNIT),))
    view = r.view(Audience.public())
    assert isinstance(view, PublicView)
    assert (view.boxes_taken, view.jackpot_wagers, view.jackpot) == ((6,), 1, None)
    r = decided()
    assert r.view(Audience.public()) == PublicView("r1", Phase.DECIDING, (1, 4), 1, None)
    r = showdown(r)
    view = r.view(Audience.public())
    assert isinstance(view, PublicView) and cards_in(view) == set()
    assert view.jackpot == r.settlement.jackpot  # type: ignore[union-attr]
    assert "p1" not in repr(view) and "p4" not in repr(view)


def test_a_void_round_turns_nothing_over_CSP_11_1() -> None:
    r, _ = decided().apply(ReportMisdeal("wrong number of cards"))  # held: cards were seen
    r, _ = r.apply(Void("confirmed", Ground.WRONG_PROCEDURE, "sup-1"))
    assert r.phase is Phase.VOID
    up = {parse_cards(HANDS3[DEALER])[4]}
    table = r.view(Audience.dealer())
    assert isinstance(table, TableView) and table.void_rule == "CSP-11.1"
    assert cards_in(table) == up
    assert cards_in(r.view(Audience.of_player(player(1)))) == up | set(parse_cards(HANDS3[1]))


# Views are also checked at every step of test_round_properties.py's random rounds (every fault
# and stage) and test_round_driven.py's driven ones.
@settings(max_examples=30, deadline=None)
@given(scripts())
def test_random_rounds_redact_every_view_CSP_6_5_CSP_12(s: Script) -> None:
    """At every step of random rounds (with carried wagers, exposures, faults), each audience's
    view holds only the cards it may see."""
    from macau_tables.jackpot import Meter

    r = new_round(RULES[s.procedure], carried=[CarriedWager(b, player(b), UNIT) for b in s.carried])
    check_views(r)
    for i, cmd in enumerate(commands(s, Meter(s.meter, SEED))):
        if i == s.fault_at["dealing"]:
            for fc in fault_commands(r, "expose1", s):
                if r.can_apply(fc):
                    r, _ = r.apply(fc)
                    check_views(r)
        if r.is_over:
            break
        r, _ = r.apply(cmd)
        check_views(r)
    assert r.is_over


def test_a_stated_dealer_position_is_the_shared_marker_CSP_7() -> None:
    """``DealCard.to`` names the dealer with the shared DEALER marker (not 0)."""
    r = bet(new_round(), {1: UNIT})
    for card in parse_cards("2c 3c 4c 5c 6c"):
        r, _ = r.apply(DealCard(card, to=1))
    r, (event,) = r.apply(DealCard("7c", to=DEALER))
    assert event.to is DEALER  # type: ignore[union-attr]
    assert r.check(DealCard("8c", to=0)).rule == "CSP-2"  # type: ignore[union-attr]
