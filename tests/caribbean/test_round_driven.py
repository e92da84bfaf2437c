"""Rounds driven by ``expected_next()`` alone (:mod:`.driver`): the contract holds at every step
(CSP-5 … CSP-12). Each command applied was among the commands the round said it expected;
replay rebuilds every state; events survive the codec; every posting set balances; no view
shows a card its audience may not see."""

from __future__ import annotations

import itertools

import pytest

from macau_tables import codec, ledger
from macau_tables.caribbean.round import CaribbeanRound
from macau_tables.rounds import Round

from .driver import drive, opened, sample_commands
from .support import check_round, check_views


# 60 seeds: every command type the driver sends (a misdeal, a shuffler's failure, a dead hand,
# an exposed card, a report rejected, a carried wager handed back among them) and both ends,
# settled and void, several times each.
@pytest.mark.parametrize("seed", range(60))
def test_driven_rounds_keep_the_round_contract_CSP_5(seed: int) -> None:
    steps = drive(seed)
    for (_, before), (command, after) in itertools.pairwise(steps):
        assert type(command) in before.expected_next().commands
        assert before.check(command) is None and before.can_apply(command)
        assert CaribbeanRound.replay(after.events) == after
        new = after.events[len(before.events) :]
        assert all(ledger.is_balanced(after.postings(e)) for e in new)
        check_views(after)
    final = steps[-1][1]
    assert final.is_over and final.expected_next().due == ()
    check_round(final)
    rules = {"default": final.rules}
    decoded = [codec.decode(codec.encode(e), rules=rules) for e in final.events]
    assert tuple(decoded) == final.events
    assert CaribbeanRound.replay(decoded) == final


def test_a_round_satisfies_the_shared_protocol() -> None:
    """``CaribbeanRound`` is a :class:`macau_tables.rounds.Round` (checked by mypy too)."""
    r = opened()
    assert isinstance(r, Round)
    for command in sample_commands():
        assert isinstance(r.can_apply(command), bool)
