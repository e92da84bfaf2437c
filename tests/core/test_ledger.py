"""Ledger postings (issue 8, "Ledger postings"): every builder balances, and a settlement moves
exactly what its wager results say between the named accounts."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macau_tables import ledger
from macau_tables.ledger import Account, AccountKind, Posting, Reason
from macau_tables.rounds import Outcome, WagerResult

from .support import wager_results

WALLET = Account.wallet


def balances(postings: tuple[Posting, ...]) -> Counter[Account]:
    out: Counter[Account] = Counter()
    for p in postings:
        out[p.account] += p.amount
    return out


def test_stake_moves_the_wallet_onto_the_layout() -> None:
    p = ledger.stake("p1", 100)
    assert balances(p) == {WALLET("p1"): -100, ledger.IN_PLAY: 100}
    assert ledger.is_balanced(p) and {x.reason for x in p} == {Reason.STAKE}


def test_carried_back_and_meter_seed_balance() -> None:
    assert balances(ledger.carried_back("p2", 50)) == {ledger.CARRIED: -50, WALLET("p2"): 50}
    assert balances(ledger.meter_seed(1_000)) == {
        ledger.HOUSE_FUNDING: -1_000,
        ledger.JACKPOT_METER: 1_000,
    }
    assert ledger.carried_back("p2", 0) == ()  # nothing moved, nothing posted


def test_settlement_of_a_won_ante_and_a_lost_raise() -> None:
    won = WagerResult("p1", "box 1", "ante", 100, Outcome.WON, paid=200, house=-100)
    lost = WagerResult("p1", "box 1", "raise", 200, Outcome.LOST, house=200)
    p = ledger.settlement([won, lost])
    assert ledger.is_balanced(p)
    assert balances(p) == {ledger.IN_PLAY: -300, WALLET("p1"): 200, ledger.TABLE_BANK: 100}


def test_settlement_keeps_commission_meter_awards_and_carries_apart() -> None:
    banker = WagerResult("p1", "seat 1", "banker", 100, Outcome.WON, paid=195, commission=5,
                         house=-100)  # fmt: skip
    jackpot = WagerResult(
        "p2", "box 2", "jackpot", 50, Outcome.WON, paid=10_000, house=15, meter=35,
        award_from_meter=9_000, award_from_house=1_000,
    )  # fmt: skip
    tie = WagerResult("p3", "seat 3", "player", 100, Outcome.CARRIED_OVER, carried=100)
    carried = WagerResult("p4", "seat 4", "banker", 100, Outcome.RETURNED, paid=100,
                          carried_in=True)  # fmt: skip
    p = ledger.settlement([banker, jackpot, tie, carried], seed_funding=500)
    assert ledger.is_balanced(p)
    assert balances(p) == {
        ledger.IN_PLAY: -250,
        ledger.CARRIED: 100 - 100,
        WALLET("p1"): 195,
        WALLET("p2"): 10_000,
        WALLET("p4"): 100,
        ledger.COMMISSION: 5,
        ledger.TABLE_BANK: -100 + 15,
        ledger.JACKPOT_METER: 35 - 9_000 + 500,
        ledger.HOUSE_FUNDING: -1_000 - 500,
    }
    by_reason = {(x.account, x.reason): x.amount for x in p}
    assert by_reason[(WALLET("p2"), Reason.AWARD)] == 10_000
    assert by_reason[(ledger.JACKPOT_METER, Reason.CONTRIBUTION)] == 35
    assert by_reason[(ledger.JACKPOT_METER, Reason.AWARD)] == -9_000
    assert by_reason[(ledger.JACKPOT_METER, Reason.SEED)] == 500
    assert by_reason[(ledger.CARRIED, Reason.CARRY)] == 100
    assert all(x.amount for x in p), "zero postings are dropped"


@given(st.lists(wager_results(), max_size=8), st.integers(0, 10_000))
def test_settlement_is_balanced_and_moves_what_the_results_say(
    results: list[WagerResult], seed: int
) -> None:
    p = ledger.settlement(results, seed_funding=seed)
    assert ledger.total(p) == 0
    b = balances(p)
    for player in {w.player for w in results}:
        assert b[WALLET(player)] == sum(w.paid for w in results if w.player == player)
    assert b[ledger.IN_PLAY] == -sum(w.stake for w in results if not w.carried_in)
    assert b[ledger.CARRIED] == sum(w.carried for w in results) - sum(
        w.stake for w in results if w.carried_in
    )
    assert b[ledger.COMMISSION] == sum(w.commission for w in results)
    assert b[ledger.TABLE_BANK] == sum(w.house for w in results)
    assert b[ledger.JACKPOT_METER] == sum(w.meter - w.award_from_meter for w in results) + seed
    assert b[ledger.HOUSE_FUNDING] == -sum(w.award_from_house for w in results) - seed


def test_postings_refuse_amounts_that_are_not_whole_minor_units() -> None:
    for bad in (1.5, True, "1", None):
        with pytest.raises(ValueError, match="minor units"):
            Posting(ledger.IN_PLAY, bad, Reason.STAKE)  # type: ignore[arg-type]


def test_accounts_print_and_order() -> None:
    assert str(WALLET("p1")) == "wallet:p1" and str(ledger.IN_PLAY) == "in_play"
    assert WALLET("p1") == Account(AccountKind.WALLET, "p1")
    assert sorted([ledger.TABLE_BANK, WALLET("a")])[0].kind in set(AccountKind)
    assert ledger.total(()) == 0 and ledger.is_balanced(())
