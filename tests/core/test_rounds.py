"""The round contract's shared pieces (issue 8, "One round contract"): the dealer marker, one
Outcome, the wager-result identity, audiences and Expected."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError
from typing import Any

import pytest

from macau_tables.errors import RuleViolation
from macau_tables.rounds import (
    DEALER,
    Audience,
    Dealer,
    Due,
    DueKind,
    Expected,
    Outcome,
    Role,
    Round,
    WagerResult,
    require_audience,
)


def test_one_dealer_marker_prints_and_pickles_as_itself() -> None:
    assert DEALER is Dealer.DEALER and DEALER.value == "dealer" and str(DEALER) == "dealer"
    assert pickle.loads(pickle.dumps(DEALER)) is DEALER
    assert DEALER != 0 and DEALER != "dealer"  # neither game's old marker


def test_outcome_values_are_stable() -> None:
    assert [o.value for o in Outcome] == ["won", "lost", "returned", "carried_over"]


def test_wager_result_balances_and_says_its_net_and_award() -> None:
    w = WagerResult(
        "p1", "box 2", "jackpot", 50, Outcome.WON, paid=10_000, house=15, meter=35,
        award_from_meter=9_000, award_from_house=1_000,
    )  # fmt: skip
    assert w.award == 10_000 and w.net == 9_950
    tie = WagerResult("p1", "seat 1", "banker", 100, Outcome.CARRIED_OVER, carried=100)
    assert tie.net == 0 and tie.award == 0
    with pytest.raises(FrozenInstanceError):
        w.paid = 0  # type: ignore[misc]


@pytest.mark.parametrize(
    "changes",
    [
        {"paid": 201},  # one minor unit made from nothing
        {"house": -99},
        {"commission": 5},  # commission not taken from the payout
        {"meter": 1},
        {"carried": 100},
        {"award_from_meter": 1},
    ],
)
def test_wager_result_refuses_an_unbalanced_identity(changes: dict[str, int]) -> None:
    values: dict[str, Any] = {"paid": 200, "house": -100} | changes
    with pytest.raises(ValueError, match="does not balance"):
        WagerResult("p1", "box 1", "ante", 100, Outcome.WON, **values)


@pytest.mark.parametrize("bad", [1.5, True, "100", None])
def test_wager_result_refuses_money_that_is_not_int_minor_units(bad: object) -> None:
    with pytest.raises(ValueError, match="stake must be an int of minor units"):
        WagerResult("p1", "box 1", "ante", bad, Outcome.LOST, house=100)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="paid must be an int"):
        WagerResult("p1", "box 1", "ante", 100, Outcome.WON, paid=bad, house=0)  # type: ignore[arg-type]


def test_audiences() -> None:
    assert Audience.of_player("p1") == Audience(Role.PLAYER, "p1")
    assert Audience.dealer().role is Role.DEALER and Audience.dealer().player is None
    assert Audience.supervisor().role is Role.SUPERVISOR
    assert Audience.public() == Audience(Role.PUBLIC)
    assert require_audience(Audience.public()) == Audience.public()


@pytest.mark.parametrize(
    ("role", "player"),
    [
        (Role.PLAYER, None),  # a player view needs the player
        (Role.PLAYER, ""),
        (Role.PLAYER, 7),
        (Role.DEALER, "p1"),  # only a player audience names a player
        (Role.PUBLIC, "p1"),
        ("player", "p1"),  # the role is a Role
        ("god", None),
        (None, None),
    ],
)
def test_audience_refuses_what_is_not_one(role: object, player: object) -> None:
    with pytest.raises(RuleViolation) as info:
        Audience(role, player)  # type: ignore[arg-type]
    assert info.value.rule == "VIEW" and info.value.key == "core.bad_audience"
    assert "not an audience" in info.value.message and "觀看對象" in info.value.text("zh-Hant")


@pytest.mark.parametrize("bad", [None, "p1", Role.PLAYER, 1, object()])
def test_require_audience_refuses_anything_else(bad: object) -> None:
    with pytest.raises(RuleViolation, match="not an audience"):
        require_audience(bad)


def test_expected_names_its_commands_and_what_is_due() -> None:
    class PlaceAnte: ...

    class CloseBetting: ...

    e = Expected(
        "dealing",
        (Due(DueKind.CARD, position=DEALER), Due(DueKind.DECISION, position=3, player="p1")),
        (PlaceAnte, CloseBetting),
    )
    assert e.command_names == ("PlaceAnte", "CloseBetting")
    assert e.due[0].position is DEALER and e.due[1].player == "p1" and e.due[0].slot is None
    over = Expected("settled", (), ())
    assert over.command_names == () and not over.due
    assert {k.value for k in DueKind} == {
        "wagers", "card", "decision", "reveal", "supervisor", "settlement",
    }  # fmt: skip


def test_round_protocol_is_checkable_at_run_time() -> None:
    assert not isinstance(object(), Round)
