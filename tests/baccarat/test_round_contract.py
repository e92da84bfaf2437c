"""The baccarat round on the shared round contract (macau_tables.rounds): check/can_apply never
raise, expected_next, the audience views and their BAC-16 hidden information, postings, the
codec types (BAC-10, BAC-14, BAC-16)."""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from datetime import date
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables.approvals import Approval
from macau_tables.baccarat import CODEC_TYPES
from macau_tables.baccarat.bets import Area, seat, standing
from macau_tables.baccarat.commands import (
    COMMAND_TYPES,
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
from macau_tables.baccarat.events import EVENT_TYPES, CardRefused
from macau_tables.baccarat.round import BaccaratRound, CardSlot
from macau_tables.baccarat.rules import ALL_WAGERS, BaccaratRules, TieOption, WagerKind
from macau_tables.baccarat.rules import default_limits as limits
from macau_tables.baccarat.sides import Side
from macau_tables.baccarat.view import ANOTHER_PLAYER, RefusalView, RoundView
from macau_tables.cards import Card, parse_cards
from macau_tables.caribbean import commands as caribbean
from macau_tables.errors import MacauTablesError, RuleViolation
from macau_tables.jackpot import Meter
from macau_tables.ledger import AccountKind
from macau_tables.rounds import DEALER, Audience, Dealer, DueKind, Expected, Role, Round
from macau_tables.voids import Ground

DAY = date(2026, 12, 2)
SEATED = {1: "alice", 2: "bob", 3: "carol"}


def approved(rules: BaccaratRules) -> BaccaratRules:
    records = tuple(
        Approval(q.option, q.value, f"R{i}", date(2026, 11, 2), date(2026, 11, 5))
        for i, q in enumerate(rules.options_requiring_approval())
    )
    return replace(rules, approvals=records)


RULES = approved(
    BaccaratRules(
        limits=limits(100, ALL_WAGERS), tie_options=frozenset(TieOption), card_holding=True
    )
)


def deal(r: BaccaratRound, text: str) -> BaccaratRound:
    for card in parse_cards(text):
        r, _ = r.apply(DealCard(card))
    return r


def squeeze_round(live: bool = False) -> BaccaratRound:
    """Alice holds the banker's cards, bob the player's; carol bets on the tie; dave stands."""
    r = BaccaratRound.new(RULES, "r1", DAY, seated=SEATED, live=live)
    r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 800))
    r, _ = r.apply(PlaceWager("carol", seat(3), WagerKind.TIE, 100))
    r, _ = r.apply(PlaceWager("dave", standing(1), WagerKind.PLAYER, 300))
    return r


def states() -> list[BaccaratRound]:
    """Rounds in every phase, live and virtual, with and without a refused card."""
    betting = squeeze_round(live=True)
    dealt = deal(betting, "2s 3h Ac Kd")  # P 3, B 3: reveals due
    refused, _ = deal(betting, "2s 3h").apply(DealCard("Ac", CardSlot.BANKER_3))
    revealed, _ = dealt.apply(Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "bob"))
    revealed, _ = revealed.apply(RevealTimeout(Side.BANKER, RevealPart.FIRST_TWO))
    face_up = replace(RULES, card_holding=False)
    plain = deal(BaccaratRound.new(face_up, "r2", DAY), "2s 3h")
    complete = deal(BaccaratRound.new(face_up, "r3", DAY), "9s 5h Kd 2c")
    settled, _ = complete.apply(Settle())
    demo = BaccaratRound.new(RULES, "r4", DAY, demo=True)
    # live: a card drawn before the player's reveal is flagged (BAC-16); a live hand complete
    live_early, _ = dealt.apply(DealCard("5c"))
    live_complete = deal(BaccaratRound.new(face_up, "r5", DAY, live=True), "9s 5h Kd 2c")
    return [
        *(betting, dealt, refused, revealed, plain, complete, settled, demo),
        *(live_early, live_complete),
    ]


STATES = states()


class Hostile:
    """An object every operation of which raises."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(name)

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        raise RuntimeError("hash")

    def __repr__(self) -> str:
        raise RuntimeError("repr")

    def __bool__(self) -> bool:
        raise RuntimeError("bool")


class SubPlaceWager(PlaceWager):
    """A subclass is not the command."""


junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.sampled_from(["zz", "As", "10c", "P3", "dealer", "", " "]),
    st.builds(Hostile),
    st.builds(Area, st.booleans(), st.integers(-2, 12)),
    st.sampled_from(list(WagerKind) + list(Side) + list(TieOption) + list(CardSlot)),
    st.just(DEALER),
    st.just(Meter(1_000_000, 1_000_000)),
)
commands = st.one_of(
    junk,
    st.builds(PlaceWager, junk, junk, junk, junk),
    st.builds(WithdrawWager, junk, junk),
    st.builds(ChangeCarried, junk, junk, junk, junk),
    st.builds(DealCard, junk, junk, junk),
    st.builds(Reveal, junk, junk, junk),
    st.builds(RevealTimeout, junk, junk),
    st.builds(Correct, junk, junk, junk),
    st.builds(Void, junk, junk),
    st.builds(Settle, junk),
    st.just(CloseBetting()),
    st.builds(SubPlaceWager, junk, junk, junk, junk),
    st.builds(caribbean.PlaceAnte, junk, junk, junk),
    st.builds(caribbean.DealCard, junk),
    st.just(caribbean.Showdown(Meter(0, 0))),
)


# Junk is also checked by tests/test_round_contract.py (seeded rounds walking every phase,
# arbitrary values) and test_foreign_objects_are_refused_naming_the_command below.
@settings(max_examples=200, deadline=None)
@given(st.sampled_from(range(len(STATES))), commands)
def test_check_and_can_apply_never_raise_and_refuse_with_a_rule(i: int, command: object) -> None:
    r = STATES[i]
    err = r.check(command)
    assert err is None or isinstance(err, RuleViolation)
    if err is not None:
        assert err.rule and err.key.startswith(("baccarat.", "voids.")) and err.message
    assert r.can_apply(command) is (err is None)
    if err is None:  # accepted: apply agrees, and expected_next() offered its type
        assert type(command) in r.expected_next().commands, (command, r.expected_next())
        r2, events = r.apply(command)  # type: ignore[arg-type]
        assert events and BaccaratRound.replay(r2.events) == r2
    else:
        with pytest.raises(MacauTablesError):
            r.apply(command)  # type: ignore[arg-type]


def test_foreign_objects_are_refused_naming_the_command() -> None:
    r = STATES[0]
    for thing in ("PlaceWager", None, 3, Hostile(), caribbean.CloseBetting(), SubPlaceWager):
        err = r.check(thing)
        assert isinstance(err, RuleViolation) and err.rule == "COMMAND"
        assert err.key == "baccarat.not_a_command"


def test_the_round_satisfies_the_contract() -> None:
    r: Round = STATES[0]
    assert isinstance(r, Round)
    assert r.round_id == "r1" and r.opening_date == DAY and not r.is_over
    assert isinstance(r.expected_next(), Expected)


def test_expected_next_says_who_is_due_BAC_7_BAC_10_BAC_16() -> None:
    betting, dealt, refused, revealed, plain, complete, settled, demo, *_ = STATES
    e = betting.expected_next()
    assert e.phase == "betting" and [d.kind for d in e.due] == [DueKind.WAGERS, DueKind.CARD]
    assert e.due[1].slot == "P1"
    assert {PlaceWager, WithdrawWager, CloseBetting, DealCard, Void} <= set(e.commands)
    assert ChangeCarried not in e.commands  # nothing carried
    e = dealt.expected_next()  # the player's first two: bob holds them (BAC-16)
    assert e.due[0].kind is DueKind.REVEAL and e.due[0].player == "bob"
    assert Reveal in e.commands and RevealTimeout in e.commands and Correct in e.commands
    e = revealed.expected_next()  # alice's time ran out: the dealer reveals
    assert e.due[0].kind is DueKind.REVEAL and e.due[0].position is DEALER
    assert RevealTimeout not in e.commands
    e = refused.expected_next()
    assert [d.kind for d in e.due] == [DueKind.SUPERVISOR] and set(e.commands) == {Correct, Void}
    e = plain.expected_next()
    assert e.due[0].kind is DueKind.CARD and e.due[0].slot == "P2" and Correct not in e.commands
    e = complete.expected_next()
    assert [d.kind for d in e.due] == [DueKind.SETTLEMENT] and Settle in e.commands
    assert settled.expected_next() == Expected("settled", (), ())
    e = demo.expected_next()
    assert PlaceWager not in e.commands and e.due[0].kind is DueKind.CARD
    carried = BaccaratRound.new(
        RULES, "r5", DAY, seated=SEATED, carried=(betting.wagers[0],)
    ).expected_next()
    assert ChangeCarried in carried.commands
    for r in STATES:  # every command type offered is a baccarat command
        assert set(r.expected_next().commands) <= set(COMMAND_TYPES)


def _faces(view: RoundView) -> dict[str, Card | None]:
    return {c.slot.value: c.card for c in view.cards}


def test_squeezed_cards_are_seen_by_their_holder_only_BAC_16() -> None:
    r = deal(squeeze_round(), "2s 3h Ac Kd")
    views = {
        "alice": r.view(Audience.of_player("alice")),
        "bob": r.view(Audience.of_player("bob")),
        "carol": r.view(Audience.of_player("carol")),
        "dealer": r.view(Audience.dealer()),
        "supervisor": r.view(Audience.supervisor()),
        "public": r.view(Audience.public()),
    }
    p = parse_cards("2s 3h Ac Kd")
    assert _faces(views["bob"]) == {"P1": p[0], "B1": None, "P2": p[2], "B2": None}
    assert _faces(views["alice"]) == {"P1": None, "B1": p[1], "P2": None, "B2": p[3]}
    for who in ("carol", "dealer", "supervisor", "public"):
        assert set(_faces(views[who]).values()) == {None}, who
    assert views["bob"].result is None and views["public"].result is None
    r, _ = r.apply(Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "bob"))
    for audience in (Audience.of_player("carol"), Audience.public(), Audience.dealer()):
        faces = _faces(r.view(audience))
        assert (faces["P1"], faces["P2"], faces["B1"]) == (p[0], p[2], None)
    r, _ = r.apply(Reveal(Side.BANKER, RevealPart.FIRST_TWO, "alice"))
    r = deal(r, "5c")  # the player's third card: bob holds it until he reveals it
    assert _faces(r.view(Audience.of_player("bob")))["P3"] == Card.parse("5c")
    assert _faces(r.view(Audience.of_player("alice")))["P3"] is None
    assert r.view(Audience.public()).reveal_due is not None
    r, _ = r.apply(Reveal(Side.PLAYER, RevealPart.THIRD, "bob"))
    r = deal(r, "9c")
    r, _ = r.apply(Reveal(Side.BANKER, RevealPart.THIRD, "alice"))
    public = r.view(Audience.public())
    assert all(c.revealed and c.card is not None for c in public.cards)
    assert public.result is not None and public.result.winner is Side.PLAYER


def test_exposed_card_is_seen_by_everyone_BAC_4_BAC_16() -> None:
    r = deal(squeeze_round(), "2s")
    r, _ = r.apply(DealCard("3h", exposed=True))
    for audience in (Audience.of_player("bob"), Audience.public(), Audience.dealer()):
        faces = _faces(r.view(audience))
        assert faces["B1"] == Card.parse("3h")
        assert faces["P1"] == (Card.parse("2s") if audience.player == "bob" else None)


def test_views_redact_wagers_and_the_supervisor_sees_the_refused_card_BAC_10_BAC_16() -> None:
    r = squeeze_round(live=True)
    r = deal(r, "2s 3h")
    r, _ = r.apply(DealCard("Ac", CardSlot.BANKER_3))  # refused: awaits the supervisor
    bob = r.view(Audience.of_player("bob"))
    assert [w.player for w in bob.wagers] == ["bob"]
    assert {(s.area, s.kind, s.amount) for s in bob.layout} == {
        (seat(1), WagerKind.BANKER, 1000),
        (seat(2), WagerKind.PLAYER, 800),
        (seat(3), WagerKind.TIE, 100),
        (standing(1), WagerKind.PLAYER, 300),
    }
    assert bob.awaiting_supervisor and bob.refused is None and bob.flags == ()
    # a player sees that a side is held, by them or by another player, never by whom (BAC-16)
    assert dict(bob.holders) == {Side.PLAYER: "bob", Side.BANKER: ANOTHER_PLAYER}
    assert dict(r.view(Audience.of_player("alice")).holders)[Side.PLAYER] == ANOTHER_PLAYER
    assert dict(r.view(Audience.dealer()).holders) == {Side.PLAYER: "bob", Side.BANKER: "alice"}
    sup = r.view(Audience.supervisor())
    assert isinstance(sup.refused, RefusalView) and sup.refused.rule == "BAC-9"
    assert sup.refused.card is None  # it may go to a held slot: face down (BAC-16)
    assert len(sup.wagers) == 4 and sup.flags == (sup.refused,)
    plain = deal(BaccaratRound.new(replace(RULES, card_holding=False), "p", DAY, live=True), "2s")
    plain, _ = plain.apply(DealCard("Ac", CardSlot.BANKER_3))  # no card holding: face up
    refusal = plain.view(Audience.supervisor()).refused
    assert refusal is not None and refusal.card == Card.parse("Ac")
    public = r.view(Audience.public())
    assert public.wagers == () and public.layout == () and public.holders == ()
    assert public.refused is None and public.cards_left == 416 - 2
    dave = r.view(Audience.of_player("dave"))  # a standing player
    assert [w.amount for w in dave.wagers] == [300] and dave.cards[0].card is None
    r, _ = r.apply(Void("sup", "cannot be corrected", Ground.UNCORRECTABLE))
    assert [x.player for x in r.view(Audience.of_player("carol")).results] == ["carol"]
    assert len(r.view(Audience.dealer()).results) == 4
    assert r.view(Audience.public()).results == ()
    assert r.view(Audience.supervisor()).discarded == (Card.parse("Ac"),)
    assert r.view(Audience.of_player("carol")).discarded == ()


def test_no_view_carries_the_shoe_composition() -> None:
    names = {f.name for f in dataclasses.fields(RoundView)}
    assert not names & {"available", "order", "burned", "seated", "shoe"}
    with pytest.raises(RuleViolation) as exc:
        STATES[0].view("alice")  # type: ignore[arg-type]
    assert exc.value.rule == "VIEW"


def test_every_event_that_moves_money_posts_through_the_ledger_builders() -> None:
    r = BaccaratRound.new(RULES, "r", DAY, seated=SEATED)
    r, ev = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
    assert {(p.account.kind, p.amount) for p in r.postings(ev[0])} == {
        (AccountKind.WALLET, -1000),
        (AccountKind.IN_PLAY, 1000),
    }
    r = deal(r, "7s 7h Kc Kd")
    for e in r.events[2:]:
        assert r.postings(e) == ()  # cards move no money
    with pytest.raises(MacauTablesError):  # not an event: refused (the contract suite)
        r.postings("not an event")
    for side in (Side.PLAYER, Side.BANKER):
        step = r.pending_reveal()
        assert step is not None and step.side is side
        r, _ = r.apply(Reveal(side, step.part, DEALER if side is Side.PLAYER else "alice"))
    r, ev = r.apply(Settle())
    assert {(p.account.kind, p.amount) for p in r.postings(ev[0])} == {
        (AccountKind.IN_PLAY, -1000),
        (AccountKind.CARRIED, 1000),  # a tie: carried over (BAC-12)
    }
    nxt = BaccaratRound.new(RULES, "r2", DAY, seated=SEATED, carried=r.carried_out())
    nxt, ev = nxt.apply(ChangeCarried(1, "alice", TieOption.REDUCE, 400))
    assert {(p.account.kind, p.amount) for p in nxt.postings(ev[0])} == {
        (AccountKind.CARRIED, -600),
        (AccountKind.WALLET, 600),
    }


def test_codec_types_list_every_command_event_value_and_view() -> None:
    for cls in (*COMMAND_TYPES, *EVENT_TYPES, RoundView):
        assert cls in CODEC_TYPES
    names = [c.__name__ for c in CODEC_TYPES]
    assert len(names) == len(set(names))  # the codec names them "baccarat.<Name>"
    assert BaccaratRules in CODEC_TYPES
    assert isinstance(DEALER, Dealer) and Role.PLAYER.value == "player"


def test_correction_needs_a_live_round_and_the_right_action_BAC_10() -> None:
    r = STATES[2]  # a refused card awaits
    assert not r.can_apply(Correct("sup", "x", CorrectionAction.MISTYPED))
    assert r.can_apply(Correct("sup", "x", CorrectionAction.WITHDRAW))


def test_expected_next_offers_what_a_live_round_accepts_BAC_10_BAC_16() -> None:
    """Old behaviour: a live round accepted commands ``expected_next()`` did not offer — a card
    entered while a reveal is due or after the hand is complete (recorded as refused for the
    supervisor, BAC-10), and the holder's reveal while a refused card awaits the supervisor
    (the reveal must come first for that card to be reassigned, BAC-16)."""
    *_, live_early, live_complete = STATES
    assert live_early.pending is not None and live_early.pending_reveal() is not None
    e = live_early.expected_next()
    assert [(d.kind, d.player) for d in e.due] == [
        (DueKind.SUPERVISOR, None),
        (DueKind.REVEAL, "bob"),
    ]
    assert {Correct, Void, Reveal, RevealTimeout} == set(e.commands)
    r, _ = live_early.apply(Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "bob"))
    assert r.pending is not None and Reveal in r.expected_next().commands
    e = live_complete.expected_next()
    assert [d.kind for d in e.due] == [DueKind.SETTLEMENT]
    assert set(e.commands) == {Settle, DealCard, Void}
    flagged, events = live_complete.apply(DealCard("4c"))
    assert isinstance(events[0], CardRefused) and flagged.pending is not None
    dealt = STATES[1]
    assert DealCard in dealt.expected_next().commands  # live: a card entered now is flagged
    virtual = STATES[5]
    assert DealCard not in virtual.expected_next().commands  # virtual: refused outright
    for r in STATES:
        for cmd in (DealCard("4d"), Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "bob")):
            if r.can_apply(cmd):
                assert type(cmd) in r.expected_next().commands, (r.phase, cmd)


def test_a_refused_card_that_may_be_held_is_face_down_to_the_staff_BAC_10_BAC_16() -> None:
    """With card holding, a card refused in live mode may be reassigned to a held slot (a third
    card drawn before the reveal, BAC-16; a card put to the wrong slot, BAC-7): the dealer and
    the supervisor see the refusal — its rule, slot and message — face down, as they see the
    held cards (BAC-16), in ``refused`` and in ``flags``, until the round is settled. Old
    behaviour: the player's third card, held by bob and not yet revealed, was shown to the
    dealer and the supervisor through the refusal. A card the shoe cannot hold (BAC-1), an
    exposed one (BAC-4) and any refusal at a table without card holding keep their face."""
    from macau_tables import codec
    from tests.support import cards_in

    five = Card.parse("5c")
    r = deal(squeeze_round(live=True), "2s 3h Ac Kd")  # P 3, B 3: reveals due
    r, _ = r.apply(DealCard("5c"))  # drawn before the player's reveal: refused (BAC-16)
    staff = (Audience.dealer(), Audience.supervisor())

    def seen(r: BaccaratRound, audience: Audience) -> set[Card]:
        return set(cards_in(codec.encode(r.view(audience))))

    for audience in staff:
        view = r.view(audience)
        assert view.refused is not None and view.refused.card is None
        assert view.refused.rule == "BAC-16" and view.refused.message
        assert five not in seen(r, audience)
    r, _ = r.apply(Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "bob"))
    r, _ = r.apply(Reveal(Side.BANKER, RevealPart.FIRST_TWO, "alice"))
    r, _ = r.apply(Correct("sup", "drawn early", CorrectionAction.REASSIGN))
    assert r.cards[-1] == (CardSlot.PLAYER_3, five) and r.holder(Side.PLAYER) == "bob"
    assert five in seen(r, Audience.of_player("bob"))
    for audience in staff:  # bob holds it: face down to the staff, flags included
        assert five not in seen(r, audience)
        assert [f.card for f in r.view(audience).flags] == [None]
    r, _ = r.apply(Reveal(Side.PLAYER, RevealPart.THIRD, "bob"))
    for audience in staff:  # revealed: everyone sees it
        assert five in seen(r, audience)
    # a card the shoe cannot hold keeps its face: it can only be withdrawn (BAC-1)
    one_deck = approved(replace(RULES, shoe=replace(RULES.shoe, decks=6)))
    r = BaccaratRound.new(one_deck, "r9", DAY, seated=SEATED, live=True, available=(0,) * 52)
    r, _ = r.apply(DealCard("9d"))
    assert r.view(Audience.supervisor()).refused is not None
    assert r.view(Audience.supervisor()).refused.card == Card.parse("9d")  # type: ignore[union-attr]
