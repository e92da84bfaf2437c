"""Bad input: ``check`` and ``can_apply`` never raise, whatever they are given; ``apply`` refuses
with a MacauTablesError (never a TypeError or a crash) and the round is unchanged (CSP-5)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables.cards import Card
from macau_tables.caribbean import COMMANDS
from macau_tables.caribbean.commands import (
    DealCard,
    PlaceAnte,
    Raise,
    ReturnCarriedWager,
    Showdown,
    ShufflerFailure,
    Void,
)
from macau_tables.caribbean.round import CaribbeanRound
from macau_tables.caribbean.settlement import CarriedWager
from macau_tables.errors import MacauTablesError, RuleViolation
from macau_tables.jackpot import Meter
from macau_tables.rounds import DEALER, Audience
from macau_tables.voids import Ground

from .support import HANDS3, SEED, UNIT, bet, deal, new_round, player


class Boom(Exception):
    """Raised by the hostile objects below."""


class Hostile:
    """Every operation a round might try on a value raises."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # the test tools probe for _repr_pretty_ and the like
            raise AttributeError(name)
        raise Boom(name)

    def __eq__(self, other: object) -> bool:
        raise Boom("eq")

    def __hash__(self) -> int:
        raise Boom("hash")

    def __repr__(self) -> str:
        raise Boom("repr")

    def __bool__(self) -> bool:
        raise Boom("bool")

    def __iter__(self) -> Any:
        raise Boom("iter")

    def __len__(self) -> int:
        raise Boom("len")


class Masked(Hostile):
    """Even ``isinstance()`` fails on it (it asks for ``__class__``). Built inside the tests
    only: the test tools themselves cannot handle it."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        raise Boom("class")


class BadInt(int):
    """An int whose comparisons and hash raise."""

    def __eq__(self, other: object) -> bool:
        raise Boom("eq")

    def __lt__(self, other: object) -> bool:
        raise Boom("lt")

    def __le__(self, other: object) -> bool:
        raise Boom("le")

    def __ge__(self, other: object) -> bool:
        raise Boom("ge")

    def __gt__(self, other: object) -> bool:
        raise Boom("gt")

    def __hash__(self) -> int:
        raise Boom("hash")


class BadStr(str):
    """A str whose methods raise."""

    def strip(self, chars: str | None = None) -> str:
        raise Boom("strip")

    def __eq__(self, other: object) -> bool:
        raise Boom("eq")

    def __hash__(self) -> int:
        raise Boom("hash")


class BadMeter(Meter):
    """A meter that cannot be credited (the showdown credits this round's contributions)."""

    def credit(self, amount: int) -> Meter:
        raise Boom("credit")


@dataclass(frozen=True)
class OtherGameBet:
    """A command of another game (same field names as an ante)."""

    box: int
    player: str
    amount: int


def rounds() -> list[CaribbeanRound]:
    """A round in every phase, with a carried jackpot wager (box 6) in the first ones."""
    carried = (CarriedWager(6, "p6", UNIT),)
    opened = new_round(carried=carried)
    antes, _ = opened.apply(PlaceAnte(1, player(1), UNIT))
    dealing = bet(new_round(carried=carried), {1: UNIT, 4: 2 * UNIT}, jackpots=(1,))
    dealing, _ = dealing.apply(DealCard("As"))
    deciding = deal(bet(new_round(), {1: UNIT, 4: 2 * UNIT}, jackpots=(1,)), HANDS3)
    decided, _ = deciding.apply(Raise(1, player(1), 2 * UNIT))
    settled, _ = decided.apply(Raise(4, player(4), 4 * UNIT))
    settled, _ = settled.apply(Showdown(Meter(SEED, SEED)))
    void, _ = dealing.apply(ShufflerFailure())  # held: box 1's player saw a card
    void, _ = void.apply(Void("confirmed", Ground.SHUFFLER_FAILURE, "sup-1"))
    return [opened, antes, dealing, deciding, decided, settled, void]


ROUNDS = rounds()

plain = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.sampled_from(["zz", "As", "", " ", "10s", "dealer", "p1", "p4", "box 1"]),
    st.binary(max_size=4),
    st.just(DEALER),
    st.just(Card.parse("2c")),
    st.just(Meter(SEED, SEED)),
)
# Built on draw (the strategies' own repr must not meet a hostile value).
hostile = st.sampled_from(
    [
        Hostile,
        lambda: BadInt(1),
        lambda: BadInt(4),
        lambda: BadStr("p1"),
        lambda: BadStr("As"),
        lambda: BadMeter(SEED, SEED),
    ]
).map(lambda make: make())
junk = st.recursive(
    st.one_of(plain, hostile),
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.tuples(inner, inner)),
    max_leaves=8,
)
commands = st.one_of(
    junk,
    st.builds(OtherGameBet, junk, junk, junk),
    *(st.builds(cls, *(junk for _ in fields(cls))) for cls in COMMANDS),
)


def assert_never_raises(r: CaribbeanRound, command: object) -> None:
    snapshot = CaribbeanRound.replay(r.events)
    error = r.check(command)
    assert error is None or isinstance(error, MacauTablesError)
    assert r.can_apply(command) is (error is None)
    if error is None:
        r.apply(command)
    else:
        with pytest.raises(MacauTablesError):
            r.apply(command)
        assert error.message and error.text("zh-Hant")
    assert r == snapshot


# Junk is also checked by test_named_junk_is_refused_with_a_rule_CSP_5 below (every phase) and
# tests/test_round_contract.py (seeded rounds walking every phase, arbitrary values).
@settings(max_examples=150, deadline=None)
@given(st.sampled_from(range(len(ROUNDS))), commands)
def test_check_and_can_apply_never_raise_on_junk_CSP_5(index: int, command: object) -> None:
    """Any value — a string, None, another game's command, a command with junk fields, an
    object whose every operation raises — is checked without raising, and refused with a
    MacauTablesError by apply (the round unchanged)."""
    assert_never_raises(ROUNDS[index], command)


@pytest.mark.parametrize("r", ROUNDS, ids=lambda r: str(r.phase))
@pytest.mark.parametrize(
    "command",
    [
        "zz",
        None,
        42,
        Hostile(),
        OtherGameBet(1, "p1", UNIT),
        PlaceAnte(BadInt(1), "p7", UNIT),  # type: ignore[arg-type]
        PlaceAnte(7, BadStr("p7"), UNIT),  # type: ignore[arg-type]
        DealCard(Hostile()),  # type: ignore[arg-type]
        DealCard("zz"),
        DealCard("As", to=Hostile()),  # type: ignore[arg-type]
        Showdown(BadMeter(SEED, SEED)),
        Showdown(Hostile()),  # type: ignore[arg-type]
        ReturnCarriedWager(6, Hostile(), "left"),  # type: ignore[arg-type]
        ReturnCarriedWager(Hostile(), "sup", "left"),  # type: ignore[arg-type]
    ],
    ids=lambda c: type(c).__name__,
)
def test_named_junk_is_refused_with_a_rule_CSP_5(r: CaribbeanRound, command: object) -> None:
    """The cases of the issue, named: each is refused with a rule id, never a traceback."""
    error = r.check(command)
    assert isinstance(error, RuleViolation) and error.rule.startswith("CSP-")
    assert_never_raises(r, command)


def test_a_non_command_names_csp_5_and_its_key() -> None:
    """A value that is not a Caribbean Stud command: CSP-5 (the three wagers) and a key."""
    error = ROUNDS[0].check("zz")
    assert isinstance(error, RuleViolation)
    assert (error.rule, error.key) == ("CSP-5", "caribbean.not_a_command")
    assert "not a Caribbean Stud command" in error.message
    assert "不是聯獎撲克的指令" in error.text("zh-Hant")
    error = ROUNDS[0].check(PlaceAnte(BadInt(1), "p7", UNIT))  # type: ignore[arg-type]
    assert isinstance(error, RuleViolation)
    assert (error.rule, error.key) == ("CSP-5", "caribbean.unreadable_command")


def test_an_object_that_even_isinstance_cannot_read_is_refused_CSP_5() -> None:
    for r in ROUNDS:
        for command in (Masked(), PlaceAnte(Masked(), "p7", UNIT), DealCard(Masked())):  # type: ignore[arg-type]
            error = r.check(command)
            assert isinstance(error, RuleViolation) and error.rule.startswith("CSP-")
            assert not r.can_apply(command)
            with pytest.raises(RuleViolation):
                r.apply(command)


@pytest.mark.parametrize(
    "audience", ["dealer", None, 3, Hostile(), Audience, "masked"], ids=lambda a: type(a).__name__
)
def test_view_refuses_what_is_not_an_audience(audience: object) -> None:
    """A view is given only to an Audience; anything else is a clear refusal."""
    if type(audience) is str and audience == "masked":
        audience = Masked()
    with pytest.raises(RuleViolation) as exc:
        ROUNDS[3].view(audience)  # type: ignore[arg-type]
    assert exc.value.key == "core.bad_audience"
