"""Ledger postings of Caribbean Stud rounds (CSP-9, CSP-10, CSP-11; Common rules "Faults":
every money movement is a balanced ledger entry).

Every event's postings sum to zero; the final event posts exactly its settlement (built with
``ledger.settlement``); over a whole round each account moves as the settlement says: a
player's wallet by their net less what stays carried plus what came in carried (a carried wager
handed back reaches the wallet that way), the table bank and house funding by the house's net,
the meter by the meter's net, and nothing stays in play.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from macau_tables import ledger
from macau_tables.caribbean.commands import (
    Fold,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
    Showdown,
    ShufflerFailure,
    Void,
)
from macau_tables.caribbean.events import (
    AntePlaced,
    DecisionMade,
    JackpotWagerPlaced,
)
from macau_tables.caribbean.round import CaribbeanRound
from macau_tables.caribbean.settlement import CarriedWager
from macau_tables.errors import ParseError
from macau_tables.jackpot import Meter
from macau_tables.ledger import Account, AccountKind, Reason
from macau_tables.rounds import DEALER

from .support import (
    FAULTS,
    RULES,
    SEED,
    UNIT,
    Script,
    balances,
    bet,
    check_round,
    commands,
    deal,
    fault_commands,
    new_round,
    play,
    player,
    scripts,
)


def test_stakes_are_posted_when_placed_CSP_6() -> None:
    r = play(
        {1: "As Ks Qs Js Ts", 3: "9h 9d 7s 7c 5d"}, "Ac Kh 4d 3c 2h", jackpots=(1,), folds=(3,)
    )
    placed = [e for e in r.events if isinstance(e, AntePlaced | JackpotWagerPlaced | DecisionMade)]
    for e in placed:
        amount = e.raise_amount if isinstance(e, DecisionMade) else e.amount
        assert r.postings(e) == (ledger.stake(e.player, amount) if amount else ())
    assert r.postings(r.events[0]) == ()  # RoundOpened moves no money
    check_round(r)


def test_a_royal_flush_posts_the_award_from_the_meter_and_the_seed_CSP_10_8() -> None:
    meter = Meter(8_000_000, SEED)
    r = play({1: "As Ks Qs Js Ts"}, "Qh Jh 9d 4c 2h", jackpots=(1,), meter=meter)
    posted = {(p.account.kind, p.reason): p.amount for p in r.postings(r.events[-1])}
    assert posted[(AccountKind.JACKPOT_METER, Reason.CONTRIBUTION)] == 70
    assert posted[(AccountKind.JACKPOT_METER, Reason.AWARD)] == -8_000_070
    assert posted[(AccountKind.HOUSE_FUNDING, Reason.SEED)] == -SEED
    assert posted[(AccountKind.JACKPOT_METER, Reason.SEED)] == SEED
    check_round(r)


def test_postings_refuse_what_is_not_an_event() -> None:
    r = new_round()
    for junk in ("zz", None, Raise(1, "p1", 200), PlaceJackpotWager(1, "p1")):
        with pytest.raises(ParseError):
            r.postings(junk)


def test_a_carried_wager_moves_through_the_carried_account_CSP_11_1() -> None:
    """Voided: the jackpot stake moves from in play to carried; settled in the next round, it
    leaves the carried account (the wallet paid it once, in the first round)."""
    r, _ = new_round().apply(PlaceAnte(1, player(1), UNIT))
    r, _ = r.apply(PlaceJackpotWager(1, player(1)))
    r, _ = r.apply(ShufflerFailure())
    check_round(r)
    assert balances(r)[Account(AccountKind.CARRIED)] == UNIT
    assert balances(r)[Account.wallet(player(1))] == -UNIT  # the ante came back
    nxt = CaribbeanRound.new(r.rules, "r2", r.opening_date, carried=r.carried_out())
    nxt = bet(nxt, {1: UNIT})
    nxt = deal(nxt, {1: "9h 9d 7s 5c 3d", DEALER: "Ac Kh 4d 3c 2h"})
    nxt, _ = nxt.apply(Fold(1, player(1)))
    nxt, _ = nxt.apply(Showdown(Meter(SEED, SEED)))
    check_round(nxt)
    assert balances(nxt)[Account(AccountKind.CARRIED)] == -UNIT
    assert balances(nxt)[Account.wallet(player(1))] == -UNIT  # the second ante only


@pytest.mark.parametrize("fault", FAULTS)
@settings(max_examples=30, deadline=None)
@given(scripts())
def test_random_rounds_post_balanced_entries_equal_to_the_settlement(fault: str, s: Script) -> None:
    """CSP-9, CSP-10, CSP-11 on random rounds (carried wagers, exposures, dead hands, faults at
    every stage): every posting set sums to zero and the round's postings equal its settlement."""
    r = new_round(RULES[s.procedure], carried=[CarriedWager(b, player(b), UNIT) for b in s.carried])
    for i, cmd in enumerate(commands(s, Meter(s.meter, SEED))):
        if i in s.fault_at.values():
            for fc in fault_commands(r, fault, s):
                if r.can_apply(fc):
                    r, _ = r.apply(fc)
                if r.held is not None:  # a dealer's report held the round: confirmed
                    r, _ = r.apply(Void("confirmed", r.held.ground, "sup-1"))
        if r.is_over:
            break
        r, _ = r.apply(cmd)
    check_round(r)
