"""BAC-3.1 at a live baccarat table, through the table service on SQLite and PostgreSQL: the
round during which the cut card comes out is the last (or one more, by the approved option),
then no round opens until the shoe is changed; the count of cards out of the shoe brings the
cut card out when the dealer never reports it (the rule virtual shoes follow); a dealer's
report far from where the count puts the cut card needs a supervisor's confirmation."""

from __future__ import annotations

import random
from typing import Any

import pytest

from macau_tables.baccarat import shoe as S
from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.commands import DealCard, PlaceWager
from macau_tables.baccarat.rules import LastRoundRule, ShoeSettings, WagerKind
from macau_tables.cards import Card, new_shoe
from macau_tables.errors import RuleViolation
from macau_tables.store import Store
from macau_tables.store.verify import verify
from macau_tables.tables import OpenRound, OpenShoe

from .support import PureTable, baccarat_rules, casino, ledger_total, send, service

BEHIND = 356  # the cut card this far from the end of an 8-deck shoe: out at card 60 (BAC-2.1)


def _order(seed: int) -> list[Card]:
    """The physical shoe's cards in the order they come out (positions 0-7 burned face down)."""
    cards = list(new_shoe(8))
    random.Random(seed).shuffle(cards)
    return cards


def _open(svc: Any, behind: int | None) -> None:
    send(svc, OpenShoe())
    send(svc, S.Cut(S.Cutter.DEALER, "dealer", 200, behind))
    send(svc, S.Burn((None,) * 8))


def _shoe(svc: Any) -> S.ShoeState:
    shoe = svc.state.deal.shoe
    assert shoe is not None
    return shoe


def _round(svc: Any, order: list[Card], *, report: bool = False) -> None:
    """One live round with a wager; with ``report`` the dealer sends ``CutCardOut`` when the
    next card is the one the cut card lies in front of."""
    send(svc, OpenRound(((1, "p1"),)))
    send(svc, PlaceWager("p1", seat(1), WagerKind.BANKER, 1_000), "p1")
    while not svc.round.is_over:
        r, shoe = svc.round, _shoe(svc)
        position = shoe.out + len(r.cards) + len(r.discarded)
        if report and position == shoe.cut_card_at and not shoe.cut_card_out:
            send(svc, S.CutCardOut())
        send(svc, DealCard(order[position]))


def _refused_open(store: Store, svc: Any) -> None:
    """``OpenRound`` refused with BAC-3.1 and a message saying to change the shoe; nothing
    written."""
    head = store.read(lambda tx: tx.chain_head("l1"))
    with pytest.raises(RuleViolation) as exc:
        send(svc, OpenRound(((1, "p1"),)))
    assert (exc.value.rule, exc.value.key) == ("BAC-3.1", "shoe.finished")
    assert "open a new shoe" in exc.value.message and "更換牌靴" in exc.value.text("zh-Hant")
    assert store.read(lambda tx: tx.chain_head("l1")) == head


def _check(store: Store, svc: Any) -> None:
    assert ledger_total(store) == 0
    found = verify(store)
    assert found.ok, found.failure


@pytest.mark.parametrize("report", [True, False], ids=["reported", "by-the-count"])
@pytest.mark.parametrize("rule", list(LastRoundRule))
def test_the_cut_cards_round_is_the_last_then_no_round_until_the_shoe_is_changed_BAC_3_1(
    store: Store, rule: LastRoundRule, report: bool
) -> None:
    """The round in progress when the cut card comes out finishes (and one more with the
    option), then ``OpenRound`` is refused (BAC-3.1) until a new shoe is opened, cut and
    burned. Reported by the dealer at its place, or never reported: the count brings it out
    the same way. Old behaviour: a live shoe never reported dealt on to its last cards, and a
    finished one refused ``OpenRound`` with no rule."""
    rules = baccarat_rules(shoe=ShoeSettings(decks=8, last_round=rule), card_holding=False)
    casino(store, {"l1": ("baccarat", rules, True)})
    svc = service(store, "l1")
    _open(svc, BEHIND)
    order = _order(3)
    came_out_in = None
    while _shoe(svc).phase is not S.ShoePhase.FINISHED:
        _round(svc, order, report=report)
        shoe = _shoe(svc)
        if came_out_in is None and shoe.cut_card_out:
            came_out_in = shoe.rounds
            assert shoe.out > shoe.cut_card_at  # the cut card came out in this round
    shoe = _shoe(svc)
    extra = 1 if rule is LastRoundRule.ONE_MORE else 0
    assert came_out_in is not None and shoe.rounds == came_out_in + extra == shoe.last_round
    assert shoe.out <= 60 + 6 * (1 + extra)
    _refused_open(store, svc)
    _open(svc, BEHIND)  # the shoe changed: rounds open again
    _round(svc, _order(4))
    assert svc.state.deal.shoes == 2
    _check(store, svc)


def test_a_cut_card_report_at_card_36_needs_a_supervisors_confirmation_BAC_3_1(
    store: Store,
) -> None:
    """An 8-deck shoe whose cut card is 14 from the end: the dealer's ``CutCardOut`` at card 36
    is refused (BAC-3.1), nothing written; the supervisor's ``ConfirmCutCardOut`` with a reason
    makes it take effect (recorded: who, why, where), and that round is the last. Old
    behaviour: the dealer's report at card 36 ended the shoe at once."""
    rules = baccarat_rules(shoe=ShoeSettings(decks=8), card_holding=False)
    casino(store, {"l1": ("baccarat", rules, True)})
    svc = service(store, "l1")
    _open(svc, None)
    order = _order(5)
    while _shoe(svc).out < 30:
        _round(svc, order)
    send(svc, OpenRound(((1, "p1"),)))
    send(svc, PlaceWager("p1", seat(1), WagerKind.BANKER, 1_000), "p1")
    shoe = _shoe(svc)
    send(svc, DealCard(order[shoe.out]))
    at = shoe.out + 1
    head = store.read(lambda tx: tx.chain_head("l1"))
    with pytest.raises(RuleViolation) as exc:
        send(svc, S.CutCardOut())
    assert (exc.value.rule, exc.value.key) == ("BAC-3.1", "shoe.cut_card_out_of_place")
    assert exc.value.params["out"] == at and exc.value.params["counted"] == 416 - 14
    assert store.read(lambda tx: tx.chain_head("l1")) == head
    assert not _shoe(svc).cut_card_out
    with pytest.raises(RuleViolation) as bad:
        send(svc, S.ConfirmCutCardOut("sup", " "), "sup")
    assert (bad.value.rule, bad.value.key) == ("BAC-3.1", "shoe.confirm_reason_missing")
    assert store.read(lambda tx: tx.chain_head("l1")) == head
    done = send(svc, S.ConfirmCutCardOut("sup", "cut card placed short"), "sup")
    assert list(done.events) == ["baccarat.CutCardConfirmed", "baccarat.CutCardCameOut"]
    confirmed = next(e for e in svc.state.deal.events if isinstance(e, S.CutCardConfirmed))
    assert confirmed == S.CutCardConfirmed("sup", "cut card placed short", at, 402)
    while not svc.round.is_over:
        r = svc.round
        send(svc, DealCard(order[_shoe(svc).out + len(r.cards) + len(r.discarded)]))
    assert _shoe(svc).phase is S.ShoePhase.FINISHED and _shoe(svc).out < 50
    _refused_open(store, svc)
    _check(store, svc)


def test_a_plausible_cut_card_report_is_taken_at_once_BAC_3_1(store: Store) -> None:
    """Within one round's cards (6) of the count's place, the dealer's ``CutCardOut`` takes
    effect at once, nothing to confirm."""
    rules = baccarat_rules(shoe=ShoeSettings(decks=8), card_holding=False)
    casino(store, {"l1": ("baccarat", rules, True)})
    svc = service(store, "l1")
    _open(svc, BEHIND)
    order = _order(6)
    while _shoe(svc).out < 54:
        _round(svc, order)
    assert not _shoe(svc).cut_card_out and abs(_shoe(svc).out - 60) <= 6
    done = send(svc, S.CutCardOut())
    assert list(done.events) == ["baccarat.CutCardCameOut"]
    assert _shoe(svc).last_round == _shoe(svc).rounds + 1  # between rounds: the next is last
    _round(svc, order)
    _refused_open(store, svc)
    _check(store, svc)


def test_a_live_table_never_deals_past_the_cut_card_of_a_full_shoe_BAC_3_1() -> None:
    """Without a database: an 8-deck live shoe with the cut card 14 from the end, dealt round
    after round with no report, finishes with the round that passes card 402 (old behaviour:
    rounds opened to card 413 of 416)."""
    rules = baccarat_rules(shoe=ShoeSettings(decks=8), card_holding=False)
    t = PureTable("baccarat", rules, live=True)
    t.run(OpenShoe())
    t.run(S.Cut(S.Cutter.DEALER, "test", 200))
    t.run(S.Burn((None,) * 8))
    order = _order(7)
    while t.state.deal.shoe.phase is not S.ShoePhase.FINISHED:
        t.run(OpenRound(((1, "p1"),)))
        while not t.state.round.is_over:
            r, shoe = t.state.round, t.state.deal.shoe
            t.run(DealCard(order[shoe.out + len(r.cards) + len(r.discarded)]))
    assert 402 < t.state.deal.shoe.out <= 408
    with pytest.raises(RuleViolation) as exc:
        t.run(OpenRound(((1, "p1"),)))
    assert exc.value.rule == "BAC-3.1"
    with pytest.raises(RuleViolation) as burn:
        t.run(S.Burn((None,)))  # nothing more from this shoe (a change of shoe comes first)
    assert burn.value.key == "shoe.finished"
    assert t.reloaded() == t.state
