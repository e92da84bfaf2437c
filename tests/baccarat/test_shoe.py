"""The shoe procedure (BAC-1, BAC-2, BAC-3, BAC-7.2, BAC-8)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables.approvals import Approval
from macau_tables.baccarat import shoe as S
from macau_tables.baccarat.rules import BaccaratRules, BurnRule, LastRoundRule, ShoeSettings
from macau_tables.baccarat.tableau import deal_round
from macau_tables.cards import Card, new_shoe, parse_cards
from macau_tables.errors import ConfigError, RuleViolation
from macau_tables.rng import SeededRandom, SystemRandom, require_production, verify_commitment

SETTINGS = ShoeSettings()


def virtual(settings: ShoeSettings = SETTINGS, seed: int = 1, cut: int = 100):
    order = S.shuffle_shoe(settings, SeededRandom(seed))
    state, events = S.open_shoe("shoe-1", settings, commitment=order.commitment)
    if settings.machine:
        return state, events, order
    state, ev = S.apply(state, S.Cut(S.Cutter.PLAYER, "alice", cut))
    events += ev
    return state, events, order.after_cut(cut)


def burn_start(state: S.ShoeState, order: S.VirtualOrder) -> tuple[S.ShoeState, list[object]]:
    s = state.settings
    if s.burn_rule is BurnRule.DECKS:
        n = s.decks
    elif s.burn_rule is BurnRule.FIXED:
        n = s.fixed_burn
    else:
        n = 1 + S.burn_value(order.card_at(0))
    state, ev = S.apply(state, S.Burn(tuple(order.card_at(i) for i in range(n))))
    return state, list(ev)


def play_round(
    state: S.ShoeState, order: S.CardSource, round_id: str, demo: bool = False
) -> tuple[S.ShoeState, list[object]]:
    state, ev1 = S.apply(state, S.StartRound(round_id, demo))
    start = state.out
    result = deal_round(order.card_at(start + i) for i in range(6))
    state, ev2 = S.apply(state, S.EndRound(result.cards_in_order))
    return state, [*ev1, *ev2]


def test_shuffle_is_committed_and_verifiable_BAC_2_1() -> None:
    order = S.shuffle_shoe(SETTINGS, SeededRandom(7))
    assert sorted(order.order) == sorted(new_shoe(8))
    assert verify_commitment(order.commitment, order.order, order.reveal.salt)
    _state, events = S.open_shoe("x", SETTINGS, commitment=order.commitment)
    assert events[0].commitment == order.commitment.digest
    with pytest.raises(RuleViolation) as exc:
        S.open_shoe("x", SETTINGS)  # virtual shoe without a commitment
    assert exc.value.rule == "BAC-2.1"


def test_virtual_order_hides_its_cards_and_knows_its_source_BAC_2_1() -> None:
    seeded = S.shuffle_shoe(SETTINGS, SeededRandom(7))
    text = repr(seeded.after_cut(10))
    assert seeded.reveal.salt not in text
    assert "Card" not in text and "order" not in text  # no card of the order
    assert not seeded.production
    with pytest.raises(ConfigError):
        require_production(seeded)  # a live table never deals a seeded shoe
    real = S.shuffle_shoe(SETTINGS, SystemRandom())
    assert real.production and require_production(real) is real
    assert real.after_cut(5).production


def test_cut_records_who_and_where_BAC_2_1() -> None:
    state, events, order = virtual(cut=123)
    cut = events[-1]
    assert isinstance(cut, S.ShoeCut)
    assert (cut.cutter, cut.cutter_id, cut.position, cut.cut_card_behind) == (
        S.Cutter.PLAYER,
        "alice",
        123,
        14,
    )
    assert state.cut_card_at == 416 - 14
    assert order.card_at(0) == order.order[123]
    fresh, _ = S.open_shoe("y", SETTINGS, commitment=order.commitment)
    for bad in (
        S.Cut(S.Cutter.DEALER, "", 5),
        S.Cut(S.Cutter.DEALER, "d1", 0),
        S.Cut(S.Cutter.DEALER, "d1", 416),
        S.Cut(S.Cutter.DEALER, "d1", 5, cut_card_behind=11),
        S.Cut(S.Cutter.DEALER, "d1", 5, cut_card_behind=357),  # leaves fewer than 60 to play
        S.Cut("croupier", "d1", 5),  # type: ignore[arg-type]
        S.Cut(S.Cutter.DEALER, "d1", "5"),  # type: ignore[arg-type]
        S.Cut(S.Cutter.DEALER, "d1", 5, cut_card_behind=12.5),  # type: ignore[arg-type]
    ):
        with pytest.raises(RuleViolation) as exc:
            S.apply(fresh, bad)
        assert exc.value.rule == "BAC-2.1"
    with pytest.raises(RuleViolation):
        S.apply(fresh, S.StartRound("r1"))  # no round before the cut and burn
    with pytest.raises(RuleViolation) as exc:
        S.apply(fresh, S.Burn((None,) * 8))  # the start-of-shoe burn comes after the cut
    assert exc.value.rule == "BAC-2.1"


def test_burn_as_many_as_decks_BAC_2_1() -> None:
    state, _, order = virtual()
    with pytest.raises(RuleViolation) as exc:
        S.apply(state, S.Burn(tuple(order.card_at(i) for i in range(7))))
    assert exc.value.rule == "BAC-2.1"
    state, ev = burn_start(state, order)
    assert state.out == 8 and state.phase is S.ShoePhase.READY
    assert isinstance(ev[0], S.CardsBurned) and ev[0].start_of_shoe


def test_burn_by_first_card_value_BAC_2_1() -> None:
    assert [S.burn_value(c) for c in parse_cards("As 2s 9s Ts Js Qs Ks")] == [
        1,
        2,
        9,
        10,
        10,
        10,
        10,
    ]
    settings_ = ShoeSettings(burn_rule=BurnRule.FIRST_CARD)
    state, _, _ = virtual(settings_)
    seven = parse_cards("7s 2c 2c 2c 2c 2c 2c 2c")
    state2, _ = S.apply(state, S.Burn(tuple(seven)))  # the 7 and seven more
    assert state2.out == 8
    with pytest.raises(RuleViolation):
        S.apply(state, S.Burn(tuple(seven[:7])))
    with pytest.raises(RuleViolation, match="first card"):
        S.apply(state, S.Burn((None,) * 8))


def test_fixed_burn_83_2011() -> None:
    settings_ = ShoeSettings(burn_rule=BurnRule.FIXED, fixed_burn=3)
    state, _, order = virtual(settings_)
    state, _ = burn_start(state, order)
    assert state.out == 3


def test_demo_rounds_at_start_only_BAC_2_2() -> None:
    settings_ = ShoeSettings(demo_rounds=2)
    state, _, order = virtual(settings_)
    state, _ = burn_start(state, order)
    state, ev = play_round(state, order, "d1", demo=True)
    assert ev[0] == S.RoundStarted("d1", 1, True)
    state, _ = play_round(state, order, "d2", demo=True)
    with pytest.raises(RuleViolation) as exc:
        S.apply(state, S.StartRound("d3", demo=True))  # a third is more than allowed
    assert exc.value.rule == "BAC-2.2"
    state, _ = play_round(state, order, "r1")
    assert (state.rounds, state.demo_rounds) == (3, 2)
    one = ShoeSettings(demo_rounds=3)
    s1, _, o1 = virtual(one)
    s1, _ = burn_start(s1, o1)
    s1, _ = play_round(s1, o1, "r1")
    with pytest.raises(RuleViolation, match="start of a shoe"):
        S.apply(s1, S.StartRound("d", demo=True))


def _play_to_end(settings_: ShoeSettings) -> tuple[S.ShoeState, list[object]]:
    state, events, order = virtual(settings_)
    state, ev = burn_start(state, order)
    events += ev
    k = 0
    while state.phase is not S.ShoePhase.FINISHED:
        k += 1
        state, ev = play_round(state, order, f"r{k}")
        events += ev
    return state, events


def test_cut_card_round_is_last_BAC_3_1() -> None:
    state, events = _play_to_end(SETTINGS)
    came_out = [e for e in events if isinstance(e, S.CutCardCameOut)]
    assert len(came_out) == 1
    assert came_out[0].in_round == came_out[0].last_round == state.rounds
    ends = [e for e in events if isinstance(e, S.RoundEnded)]
    before_last = 8 + sum(len(e.cards) for e in ends[:-1])
    assert before_last <= state.cut_card_at < before_last + len(ends[-1].cards)
    assert S.replay(events) == state


def test_one_more_round_after_cut_card_BAC_3_1() -> None:
    state, events = _play_to_end(ShoeSettings(last_round=LastRoundRule.ONE_MORE))
    came_out = next(e for e in events if isinstance(e, S.CutCardCameOut))
    assert came_out.last_round == came_out.in_round + 1 == state.rounds
    with pytest.raises(RuleViolation) as exc:
        S.apply(state, S.StartRound("again"))
    assert exc.value.rule == "BAC-3.1"


def _live(settings: ShoeSettings = SETTINGS) -> S.ShoeState:
    """A live 8-deck shoe cut (cut card 14 from the end: out at card 402) and burned face down."""
    state, _ = S.open_shoe("live", settings, live=True)
    state, _ = S.apply(state, S.Cut(S.Cutter.DEALER, "dealer-7", 200))
    state, _ = S.apply(state, S.Burn((None,) * 8))  # face-down burn, not identified
    return state


_DECK = [Card.parse(f"{r}{s}") for s in "shdc" for r in "A23456789TJQK"]


def _cards(start: int, n: int) -> tuple[Card, ...]:
    """``n`` live cards from position ``start``: the 52 faces in turn, never a copy too many."""
    return tuple(_DECK[(start + i) % 52] for i in range(n))


def _live_rounds(state: S.ShoeState, upto: int) -> S.ShoeState:
    """Live rounds of six identified cards each until at least ``upto`` cards are out."""
    k = state.rounds
    while state.out < upto and state.phase is S.ShoePhase.READY:
        k += 1
        state, _ = S.apply(state, S.StartRound(f"r{k}"))
        state, _ = S.apply(state, S.EndRound(_cards(state.out, 6)))
    return state


def test_live_cut_card_out_command_BAC_3_1() -> None:
    state = _live_rounds(_live(), 396)  # 8 + 65 rounds of 6 = 398 cards out
    assert state.out == 398 and state.cut_card_at == 402 and not state.cut_card_out
    state, _ = S.apply(state, S.StartRound("r66"))
    state, ev = S.apply(state, S.CutCardOut(), taken=3)  # after card 401: 1 card from 402
    assert ev == [S.CutCardCameOut(66, 66)]
    state, ev = S.apply(state, S.EndRound(_cards(state.out, 4)))
    assert state.phase is S.ShoePhase.FINISHED
    # between rounds (4 cards before the count's place): the next round is the cut card's
    s2 = _live_rounds(_live(), 396)
    s2, ev = S.apply(s2, S.CutCardOut())
    assert ev == [S.CutCardCameOut(66, 66)]
    virtual_state, _, _ = virtual()
    with pytest.raises(RuleViolation):
        S.apply(virtual_state, S.CutCardOut())


def test_live_shoe_ends_by_the_count_when_the_cut_card_is_never_reported_BAC_3_1() -> None:
    """The count reaching the cut card's place brings it out at a live shoe as at a virtual one
    (one rule): that round is the last, then no round starts until the shoe is changed. Old
    behaviour: a live shoe dealt on past the cut card to its last cards (413 of 416)."""
    for rule, extra in ((LastRoundRule.THIS_ROUND, 0), (LastRoundRule.ONE_MORE, 1)):
        state = _live_rounds(_live(ShoeSettings(last_round=rule)), 500)
        assert state.phase is S.ShoePhase.FINISHED, rule
        assert 402 < state.out <= 402 + 6 * (1 + extra)
        assert state.last_round == state.rounds
        err = S.check(state, S.StartRound("again"))
        assert isinstance(err, RuleViolation) and (err.rule, err.key) == (
            "BAC-3.1",
            "shoe.finished",
        )
        assert "open a new shoe" in err.message and "更換牌靴" in err.text("zh-Hant")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 70), st.integers(0, 6), st.booleans())
def test_a_cut_card_report_far_from_the_count_needs_a_supervisor_BAC_3_1(
    rounds: int, taken: int, in_round: bool
) -> None:
    """A live ``CutCardOut`` more than one round's cards (6) from where the count puts the cut
    card is refused with BAC-3.1, nothing changed, the message naming the supervisor's
    ``ConfirmCutCardOut``; within 6 it is taken at once. A supervisor's confirmation with a
    reason is taken anywhere, and records who and why. Old behaviour: a report at card 36 of
    an 8-deck shoe ended the shoe."""
    state = _live_rounds(_live(), 8 + 6 * rounds)
    if state.phase is not S.ShoePhase.READY:
        return
    if in_round:
        state, _ = S.apply(state, S.StartRound("now"))
    else:
        taken = 0
    out = state.out + taken
    assert state.cut_card_at is not None
    gap = abs(state.cut_card_at - out)
    err = S.check(state, S.CutCardOut(), taken=taken)
    if gap <= S.CUT_CARD_TOLERANCE:
        assert err is None
    else:
        assert isinstance(err, RuleViolation) and err.rule == "BAC-3.1", err
        assert err.key == "shoe.cut_card_out_of_place"
        assert err.params == {"out": out, "counted": 402, "gap": gap, "tolerance": 6}
        assert "confirms the cut card out" in err.message and "主管" in err.text("zh-Hant")
    number = state.rounds if in_round else state.rounds + 1
    confirm = S.ConfirmCutCardOut("sam", "cut card placed short")
    after, ev = S.apply(state, confirm, taken=taken)
    confirmed = S.CutCardConfirmed("sam", "cut card placed short", out, 402)
    assert ev == [confirmed, S.CutCardCameOut(number, number)]
    assert after.last_round == number
    assert S.replay([*_opened_log(state), *ev]).last_round == number


def _opened_log(state: S.ShoeState) -> list[object]:
    """A log that replays into ``state``'s cut-card facts (opened, cut)."""
    assert state.cut is not None
    return [S.ShoeOpened(state.shoe_id, state.settings, True, None), state.cut]


def test_a_cut_card_report_at_card_36_is_not_applied_without_a_supervisor_BAC_3_1() -> None:
    state = _live_rounds(_live(), 36)  # 8 burned + rounds of 6: 38 cards out
    state, _ = S.apply(state, S.StartRound("r6"))
    err = S.check(state, S.CutCardOut(), taken=2)
    assert isinstance(err, RuleViolation) and err.rule == "BAC-3.1"
    assert err.params["out"] == 40 and err.params["counted"] == 402
    with pytest.raises(RuleViolation):
        S.apply(state, S.CutCardOut(), taken=2)
    assert not state.cut_card_out  # nothing changed
    for bad, key in (
        (S.ConfirmCutCardOut("", "placed short"), "shoe.confirm_supervisor_missing"),
        (S.ConfirmCutCardOut("sam", " "), "shoe.confirm_reason_missing"),
        (S.ConfirmCutCardOut("sam", None), "shoe.confirm_reason_missing"),  # type: ignore[arg-type]
    ):
        refused = S.check(state, bad, taken=2)
        assert isinstance(refused, RuleViolation) and (refused.rule, refused.key) == (
            "BAC-3.1",
            key,
        )
        assert refused.text("zh-Hant")
    taken_err = S.check(state, S.CutCardOut(), taken=-1)
    assert isinstance(taken_err, RuleViolation) and taken_err.key == "shoe.bad_taken"
    state, ev = S.apply(state, S.ConfirmCutCardOut("sam", "placed short"), taken=2)
    assert ev[-1] == S.CutCardCameOut(6, 6)
    state, ev = S.apply(state, S.EndRound(tuple(parse_cards("9s 5h Kd 2c"))))
    assert state.phase is S.ShoePhase.FINISHED
    again = S.check(state, S.CutCardOut())
    assert isinstance(again, RuleViolation) and again.rule == "BAC-3.1"


def test_change_shoe_after_any_round_BAC_3_2() -> None:
    state, _, order = virtual()
    state, _ = burn_start(state, order)
    state, _ = S.apply(state, S.StartRound("r1"))
    with pytest.raises(RuleViolation) as exc:
        S.apply(state, S.ChangeShoe("new decks"))
    assert exc.value.rule == "BAC-3.2"
    state, _ = S.apply(state, S.EndRound(tuple(parse_cards("9s 5h Kd 2c"))))
    with pytest.raises(RuleViolation):
        S.apply(state, S.ChangeShoe(""))
    state, _ev = S.apply(state, S.ChangeShoe("damaged cards", damaged=True))
    assert state.phase is S.ShoePhase.FINISHED and state.finished == S.ShoeFinished(
        "damaged cards", True
    )


def test_per_round_burn_only_when_allowed_BAC_8() -> None:
    state, _, order = virtual()
    state, _ = burn_start(state, order)
    with pytest.raises(RuleViolation) as exc:
        S.apply(state, S.Burn((order.card_at(8),)))
    assert exc.value.rule == "BAC-8"
    allowing = ShoeSettings(per_round_burn=True)
    state, _, order = virtual(allowing)
    state, _ = burn_start(state, order)
    state, ev = S.apply(state, S.Burn((order.card_at(8), None)))
    assert state.out == 10 and not ev[0].start_of_shoe
    state, _ = S.apply(state, S.StartRound("r1"))
    with pytest.raises(RuleViolation) as exc:
        S.apply(state, S.Burn((None,)))  # not during a round
    assert exc.value.rule == "BAC-8"


def test_machine_mode_full_set_every_round_BAC_2_3_BAC_7_2() -> None:
    machine = ShoeSettings(machine=True)
    state, _, order = virtual(machine)
    assert state.phase is S.ShoePhase.READY  # no cut, no burn
    for no_procedure in (S.Cut(S.Cutter.DEALER, "d", 10), S.Burn((None,) * 8)):
        with pytest.raises(RuleViolation) as exc:
            S.apply(state, no_procedure)
        assert exc.value.rule == "BAC-2.3"
    with pytest.raises(RuleViolation) as exc:
        S.apply(state, S.StartRound("r1"))  # each round needs its own committed shuffle
    assert exc.value.rule == "BAC-7.2"
    for k in range(3):
        order = S.shuffle_shoe(machine, SeededRandom(k))
        state, ev = S.apply(state, S.StartRound(f"r{k}", commitment=order.commitment))
        assert ev[0].commitment == order.commitment.digest
        cards = deal_round(order.card_at(i) for i in range(6)).cards_in_order
        state, _ = S.apply(state, S.EndRound(cards))
        assert state.out == 0 and state.available() == (8,) * 52  # cards back in the machine


def test_refuses_more_copies_than_the_decks_hold_BAC_1() -> None:
    state, _ = S.open_shoe("live", ShoeSettings(decks=6), live=True)
    state, _ = S.apply(state, S.Cut(S.Cutter.DEALER, "d", 10))
    ace = Card.parse("As")
    state, _ = S.apply(state, S.Burn((ace,) * 6))
    assert state.available()[ace.index] == 0
    state, _ = S.apply(state, S.StartRound("r1"))
    with pytest.raises(RuleViolation) as exc:
        S.apply(state, S.EndRound((ace, *parse_cards("2c 3c 4c 5c"))))
    assert exc.value.rule == "BAC-1"
    assert state.phase is S.ShoePhase.IN_ROUND  # nothing changed


@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 2**32),
    st.integers(6, 12),
    st.sampled_from(list(LastRoundRule)),
    st.integers(1, 300),
)
def test_never_more_copies_than_decks_and_replay_BAC_1(
    seed: int, decks: int, last: LastRoundRule, cut: int
) -> None:
    settings_ = ShoeSettings(decks=decks, last_round=last, per_round_burn=True)
    state, events, order = virtual(settings_, seed=seed, cut=cut)
    state, ev = burn_start(state, order)
    events += ev
    k = 0
    while state.phase is not S.ShoePhase.FINISHED:
        k += 1
        if k % 7 == 0:
            state, ev = S.apply(state, S.Burn((order.card_at(state.out),)))
            events += ev
        state, ev = play_round(state, order, f"r{k}")
        events += ev
        assert max(state.seen) <= decks
        assert all(0 <= a <= decks for a in state.available())
    assert state.out <= state.size
    assert S.replay(events) == state
    assert state.remaining >= 0
    assert replace(state) == state


def test_shoe_options_need_approval_at_opening_BAC_19() -> None:
    rules = BaccaratRules(shoe=ShoeSettings(burn_rule=BurnRule.FIRST_CARD))
    order = S.shuffle_shoe(rules.shoe, SeededRandom(3))
    with pytest.raises(RuleViolation) as exc:
        S.open_table_shoe(rules, "s", date(2026, 12, 2), commitment=order.commitment)
    assert exc.value.rule == "BAC-19"
    ok = Approval("bac.burn_rule", "first_card", "DICJ-1", date(2026, 11, 2), date(2026, 11, 5))
    rules = replace(rules, approvals=(ok,))
    state, events = S.open_table_shoe(rules, "s", date(2026, 12, 2), commitment=order.commitment)
    assert events[0].approval_references == ("DICJ-1",)
    assert state.phase is S.ShoePhase.AWAITING_CUT


# -- bad input: refused with a rule id, never a TypeError (BAC-1, BAC-2) ----------------------


class _Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


BAD_CARDS = ["zz", "", "1x", None, 7, b"As", _Unprintable()]


def _id(value: object) -> str:
    return type(value).__name__ if isinstance(value, _Unprintable) else repr(value)


@pytest.mark.parametrize("bad", BAD_CARDS, ids=_id)
def test_unreadable_burn_card_is_refused_BAC_1(bad: object) -> None:
    state, _events, order = virtual()
    cards = [order.card_at(i) for i in range(SETTINGS.decks)]
    cards[1] = bad  # type: ignore[call-overload]
    cmd = S.Burn(tuple(cards))
    if bad is None:  # a face-down burned card may be unidentified (live mode)
        assert S.can_apply(state, cmd)
        return
    err = S.check(state, cmd)
    assert isinstance(err, RuleViolation) and err.rule == "BAC-1"
    assert err.key == "shoe.unknown_card"
    assert not S.can_apply(state, cmd)
    with pytest.raises(RuleViolation) as exc:
        S.apply(state, cmd)
    assert exc.value.rule == "BAC-1" and "unknown card" in exc.value.message
    assert "無法辨認" in exc.value.text("zh-Hant")


@pytest.mark.parametrize("bad", BAD_CARDS, ids=_id)
def test_unreadable_round_card_is_refused_BAC_1(bad: object) -> None:
    state, _events, order = virtual()
    state, _ = burn_start(state, order)
    state, _ = S.apply(state, S.StartRound("r1"))
    for cmd in (
        S.EndRound(("As", "Kd", bad, "2c")),  # type: ignore[arg-type]
        S.EndRound(tuple(parse_cards("As Kd 2c 3c")), discarded=("Qh", bad)),  # type: ignore[arg-type]
    ):
        if bad is None and cmd.discarded:
            assert S.can_apply(state, cmd)  # a withdrawn card may be unidentified
            continue
        err = S.check(state, cmd)
        assert isinstance(err, RuleViolation) and err.rule == "BAC-1", err
        assert err.key == "shoe.unknown_card"


def test_card_text_is_read_into_cards_BAC_1() -> None:
    state, _events, order = virtual()
    texts = tuple(str(order.card_at(i)) for i in range(SETTINGS.decks))
    _state, events = S.apply(state, S.Burn(texts))  # type: ignore[arg-type]
    assert events[0] == S.CardsBurned(tuple(order.card_at(i) for i in range(8)), True)


@pytest.mark.parametrize("bad", ["As Kd", None, 3, {"As"}])
def test_cards_that_are_not_a_list_are_refused_BAC_1(bad: object) -> None:
    state, _events, _order = virtual()
    err = S.check(state, S.Burn(bad))  # type: ignore[arg-type]
    assert isinstance(err, RuleViolation) and err.rule == "BAC-1"
    assert err.key == "shoe.cards_not_a_list" and err.params["field"] == "cards"


@pytest.mark.parametrize(
    ("cmd", "rule", "key"),
    [
        (S.Cut("sideways", "alice", 100), "BAC-2.1", "shoe.bad_cutter"),  # type: ignore[arg-type]
        (S.Cut(None, "alice", 100), "BAC-2.1", "shoe.bad_cutter"),  # type: ignore[arg-type]
        (S.Cut([], "alice", 100), "BAC-2.1", "shoe.bad_cutter"),  # type: ignore[arg-type]
        (S.Cut(S.Cutter.DEALER, None, 100), "BAC-2.1", "shoe.cutter_id_missing"),  # type: ignore[arg-type]
        (S.Cut(S.Cutter.DEALER, "d", "100"), "BAC-2.1", "shoe.cut_position_not_number"),  # type: ignore[arg-type]
        (S.Cut(S.Cutter.DEALER, "d", True), "BAC-2.1", "shoe.cut_position_not_number"),
        (S.Cut(S.Cutter.DEALER, "d", 10, 1.5), "BAC-2.1", "shoe.cut_card_behind_not_number"),  # type: ignore[arg-type]
        ("cut", "BAC-2", "shoe.not_a_command"),
        (None, "BAC-2", "shoe.not_a_command"),
        (_Unprintable(), "BAC-2", "shoe.not_a_command"),
        (S.ChangeShoe(None), "BAC-3.2", "shoe.change_reason_missing"),  # type: ignore[arg-type]
        (S.ChangeShoe("worn", damaged="yes"), "BAC-3.1", "shoe.damaged_not_bool"),  # type: ignore[arg-type]
    ],
    ids=_id,
)
def test_bad_command_values_are_refused_with_a_rule_BAC_2(cmd: object, rule: str, key: str) -> None:
    settings = ShoeSettings()
    order = S.shuffle_shoe(settings, SeededRandom(1))
    state, _ = S.open_shoe("shoe-1", settings, commitment=order.commitment)
    err = S.check(state, cmd)
    assert isinstance(err, RuleViolation), err
    assert (err.rule, err.key) == (rule, key)
    assert err.message and err.text("zh-Hant")
    with pytest.raises(RuleViolation):
        S.apply(state, cmd)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("cmd", "rule", "key"),
    [
        (S.StartRound(None), "BAC-7", "shoe.bad_round_id"),  # type: ignore[arg-type]
        (S.StartRound(""), "BAC-7", "shoe.bad_round_id"),
        (S.StartRound("r1", demo="no"), "BAC-2.2", "shoe.demo_not_bool"),  # type: ignore[arg-type]
        (S.StartRound("r1", commitment="abc"), "BAC-7.2", "shoe.bad_commitment"),  # type: ignore[arg-type]
    ],
    ids=_id,
)
def test_bad_round_start_values_are_refused_BAC_2_2_BAC_7(
    cmd: S.StartRound, rule: str, key: str
) -> None:
    state, _events, order = virtual()
    state, _ = burn_start(state, order)
    err = S.check(state, cmd)
    assert isinstance(err, RuleViolation) and (err.rule, err.key) == (rule, key)


def test_bad_opening_values_are_refused_BAC_2() -> None:
    order = S.shuffle_shoe(SETTINGS, SeededRandom(1))
    for kwargs, rule, key in [
        ({"shoe_id": ""}, "BAC-2", "shoe.bad_shoe_id"),
        ({"settings": "eight decks"}, "BAC-2", "shoe.bad_settings"),
        ({"live": "no"}, "BAC-2", "shoe.live_not_bool"),
        ({"commitment": "digest"}, "BAC-2.1", "shoe.bad_commitment"),
    ]:
        args = {"shoe_id": "s", "settings": SETTINGS, "commitment": order.commitment, **kwargs}
        with pytest.raises(RuleViolation) as exc:
            S.open_shoe(**args)  # type: ignore[arg-type]
        assert (exc.value.rule, exc.value.key) == (rule, key)
    with pytest.raises(RuleViolation) as exc:
        S.open_table_shoe("rules", "s", date(2024, 1, 1))  # type: ignore[arg-type]
    assert exc.value.rule == "BAC-2"


def test_replay_refuses_what_is_not_a_shoe_log_BAC_2() -> None:
    state, events, _order = virtual()
    assert S.replay(events) == state
    for bad in ([], [events[1]], ["ShoeOpened"]):
        with pytest.raises(RuleViolation) as exc:
            S.replay(bad)  # type: ignore[arg-type]
        assert exc.value.key == "shoe.replay_needs_opened"
    with pytest.raises(RuleViolation) as exc:
        S.replay([events[0], "cut"])  # type: ignore[list-item]
    assert (exc.value.rule, exc.value.key) == ("BAC-2", "shoe.not_an_event")


def test_refusals_carry_keys_and_chinese_BAC_2_1_BAC_3_2() -> None:
    state, _events, order = virtual()
    with pytest.raises(RuleViolation) as exc:
        S.apply(state, S.Burn(tuple(order.card_at(i) for i in range(3))))
    err = exc.value
    assert (err.rule, err.key) == ("BAC-2.1", "shoe.burn_decks_count")
    assert err.params == {"decks": 8, "got": 3}
    assert "burn as many cards as decks (8)" in err.message
    assert "銷牌" in err.text("zh-Hant")
    state, _ = burn_start(state, order)
    state, _ = S.apply(state, S.StartRound("r1"))
    err2 = S.check(state, S.ChangeShoe("worn"))
    assert err2 is not None and err2.key == "shoe.change_during_round"
    assert "換靴" in err2.text("zh-Hant")


# -- storable shoe procedure ------------------------------------------------------------------


def test_shoe_codec_types_resolve_and_cover_every_command_and_event_BAC_2() -> None:
    import typing
    from dataclasses import fields, is_dataclass

    from macau_tables.baccarat.shoe_commands import ShoeCommand
    from macau_tables.baccarat.shoe_events import ShoeEvent

    types = set(S.SHOE_CODEC_TYPES)
    assert set(typing.get_args(ShoeCommand)) <= types
    assert set(typing.get_args(ShoeEvent)) <= types
    assert S.ShoeState in types
    assert {S.Cutter, S.ShoePhase} <= types
    for cls in S.SHOE_CODEC_TYPES:
        if not is_dataclass(cls):
            continue
        hints = typing.get_type_hints(cls)
        for f in fields(cls):
            assert hints[f.name] not in (typing.Any, object), (cls, f.name)
    assert len({cls.__name__ for cls in S.SHOE_CODEC_TYPES}) == len(S.SHOE_CODEC_TYPES)


class _Hostile(str):
    """A text whose every use raises (hash, comparison, strip): a payload built to break."""

    def __hash__(self) -> int:
        raise RuntimeError("no hash")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no eq")

    def strip(self, chars: str | None = None) -> str:
        raise RuntimeError("no strip")


class _BadList(list[object]):
    def __iter__(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("no iteration")


def test_check_never_raises_on_hostile_field_values_BAC_2() -> None:
    """``check``/``can_apply`` refuse a command whose fields raise when read (a text whose
    ``strip`` or hash raises, a list that cannot be iterated) and a state that is not a shoe,
    with a rule id (BAC-2) — never the field's own exception; ``apply`` refuses them the same
    way and nothing changes."""
    state, _events, order = virtual()
    burned, _ = burn_start(state, order)
    uncut, _ = S.open_shoe("shoe-2", SETTINGS, commitment=order.commitment)
    cases = [
        (uncut, S.Cut(S.Cutter.PLAYER, _Hostile("alice"), 100)),
        (uncut, S.Cut(_Hostile("player"), "alice", 100)),  # type: ignore[arg-type]
        (state, S.ChangeShoe(_Hostile("worn"))),
        (state, S.Burn(_BadList(["As"]))),  # type: ignore[arg-type]
        (burned, S.StartRound(_Hostile("r1"))),
        (None, S.CutCardOut()),
        ("shoe", S.ChangeShoe("worn")),
    ]
    for st_, cmd in cases:
        err = S.check(st_, cmd)  # type: ignore[arg-type]
        assert isinstance(err, RuleViolation) and err.rule == "BAC-2", (cmd, err)
        assert err.key in ("shoe.unreadable_command", "shoe.not_a_shoe")
        assert err.message and err.text("zh-Hant")
        assert S.can_apply(st_, cmd) is False  # type: ignore[arg-type]
        with pytest.raises(RuleViolation):
            S.apply(st_, cmd)  # type: ignore[arg-type]
    assert S.replay(_events) == state


def test_a_round_deals_at_most_six_cards_BAC_9() -> None:
    """Each side draws at most one card (BAC-9): a round takes at most six cards in play.
    Old behaviour: ``EndRound`` accepted any number (eight "dealt" cards, e.g. withdrawn ones
    passed as dealt), so the shoe's record could not be a round's."""
    state, _events, order = virtual()
    state, _ = burn_start(state, order)
    state, _ = S.apply(state, S.StartRound("r1"))
    eight = tuple(parse_cards("As Kd 2c 3c 4c 5c 6c 7c"))
    err = S.check(state, S.EndRound(eight))
    assert isinstance(err, RuleViolation) and (err.rule, err.key) == (
        "BAC-9",
        "shoe.round_too_many",
    )
    assert err.params == {"count": 8} and err.text("zh-Hant")
    assert S.can_apply(state, S.EndRound(eight[:6], discarded=eight[6:]))  # withdrawn apart
    assert S.can_apply(state, S.EndRound(eight[:1]))  # a round voided after one card
