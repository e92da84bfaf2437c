"""Who issues each command (rounds.Issuer): declared on every command class of both games, of
the baccarat shoe procedure and of the table service, and decided by the law (docs/rules.md).
The server authorises commands from these declarations alone."""

from __future__ import annotations

import dataclasses
from typing import get_args

import pytest

from macau_tables import baccarat, caribbean, codec
from macau_tables.baccarat import commands as bac
from macau_tables.baccarat import shoe_commands as shoe
from macau_tables.caribbean import commands as csp
from macau_tables.caribbean.procedure import ShuffleAndCut
from macau_tables.errors import MacauTablesError
from macau_tables.jackpot import Meter
from macau_tables.rounds import DEALER, Issuer, acting, actor_field_of, is_command, issuer_of
from macau_tables.tables import model

# The law's answer for every command (rule ids in the comments).
EXPECTED: dict[type, tuple[Issuer, str | None]] = {
    # Baccarat: players bet (BAC-13 … BAC-15) and change their carried wager (BAC-12)
    bac.PlaceWager: (Issuer.PLAYER, "player"),
    bac.WithdrawWager: (Issuer.PLAYER, "player"),
    bac.ChangeCarried: (Issuer.PLAYER, "player"),
    bac.CloseBetting: (Issuer.DEALER, None),
    bac.DealCard: (Issuer.DEALER, None),  # BAC-7, BAC-10: the live console
    bac.Reveal: (Issuer.PLAYER, "by"),  # BAC-16: the holder (or the dealer, by=DEALER)
    bac.RevealTimeout: (Issuer.SERVICE, None),  # BAC-16: the service's clock
    bac.Correct: (Issuer.SUPERVISOR, "supervisor"),  # BAC-10
    bac.Void: (Issuer.SUPERVISOR, "supervisor"),  # BAC-10
    bac.Settle: (Issuer.SERVICE, None),  # BAC-17: the meter read by the service
    # The baccarat shoe procedure
    shoe.Cut: (Issuer.DEALER, None),  # BAC-2.1 (cutter_id: who cut, entered at the console)
    shoe.Burn: (Issuer.DEALER, None),  # BAC-2.1, BAC-8
    shoe.StartRound: (Issuer.SERVICE, None),  # BAC-2.2: the service opens rounds in the shoe
    shoe.EndRound: (Issuer.SERVICE, None),
    shoe.CutCardOut: (Issuer.DEALER, None),  # BAC-3.1
    shoe.ConfirmCutCardOut: (Issuer.SUPERVISOR, "supervisor"),  # BAC-3.1: far from the count
    shoe.ChangeShoe: (Issuer.SUPERVISOR, None),  # BAC-3.2: the house's decision
    # Caribbean Stud
    csp.PlaceAnte: (Issuer.PLAYER, "player"),  # CSP-6.1/6.2
    csp.PlaceJackpotWager: (Issuer.PLAYER, "player"),  # CSP-6.3
    csp.ReturnCarriedWager: (Issuer.SUPERVISOR, "supervisor"),  # CSP-11.1
    csp.CloseBetting: (Issuer.DEALER, None),
    csp.DealCard: (Issuer.DEALER, None),  # CSP-7
    csp.Raise: (Issuer.PLAYER, "player"),  # CSP-6.5/6.6
    csp.Fold: (Issuer.PLAYER, "player"),  # CSP-6.7
    csp.DecisionTimeout: (Issuer.SERVICE, None),  # CSP-6.4
    csp.Showdown: (Issuer.SERVICE, None),  # CSP-6.8, CSP-10: the meter read by the service
    csp.ReportExposedCard: (Issuer.DEALER, None),  # CSP-11.1/11.2
    csp.ReportMisdeal: (Issuer.DEALER, None),  # CSP-11.1
    csp.DealtToEmptyBox: (Issuer.DEALER, None),  # CSP-11.3
    csp.ShufflerFailure: (Issuer.DEALER, None),  # CSP-11.4
    csp.Void: (Issuer.SUPERVISOR, "supervisor"),  # CSP-11.1, CSP-11.4: on a legal ground
    csp.RejectReport: (Issuer.SUPERVISOR, "supervisor"),  # CSP-11.1, CSP-11.4
    # The table service's commands
    model.OpenRound: (Issuer.DEALER, None),
    model.OpenShoe: (Issuer.DEALER, None),
    model.ReportFault: (Issuer.DEALER, None),  # CSP-11.4, BAC-10
    model.ClearFault: (Issuer.SUPERVISOR, "supervisor"),
    model.ShufflerReplaced: (Issuer.SUPERVISOR, "supervisor"),  # CSP-11.4, second sentence
    model.ReleaseAward: (Issuer.SUPERVISOR, "supervisor"),  # a held jackpot award (CSP-10, BAC-17)
    ShuffleAndCut: (Issuer.DEALER, None),  # CSP-3(1), a live hand-shuffled deck
    model.PauseCycle: (Issuer.SUPERVISOR, "supervisor"),  # the round cycle (tables/cycle.py)
    model.ResumeCycle: (Issuer.SUPERVISOR, "supervisor"),
    model.TakeSeat: (Issuer.PLAYER, "player"),  # BAC-15: a player, for themselves only
    model.LeaveSeat: (Issuer.PLAYER, "player"),  # BAC-15
}

COMMAND_UNIONS = (bac.Command, shoe.ShoeCommand, csp.Command, model.TableCommand)


def _commands() -> set[type]:
    return {c for union in COMMAND_UNIONS for c in get_args(union)} | {ShuffleAndCut}


def test_every_command_of_every_game_declares_its_issuer() -> None:
    commands = _commands()
    assert commands == set(EXPECTED)
    for cls in commands:
        assert is_command(cls), cls
        assert (issuer_of(cls), actor_field_of(cls)) == EXPECTED[cls], cls
        field = actor_field_of(cls)
        if field is not None:
            assert field in {f.name for f in dataclasses.fields(cls)}, (cls, field)


def test_the_codec_types_that_are_commands_are_exactly_the_commands() -> None:
    registered = codec.default_registry()
    stored = (*baccarat.CODEC_TYPES, *caribbean.CODEC_TYPES, *model.CODEC_TYPES)
    declared = {cls for cls in stored if is_command(cls)}
    assert declared == _commands()
    for cls in declared:
        assert registered.type_name(cls)  # every command can be sent by its codec name


def test_no_event_or_value_is_a_command() -> None:
    for cls in (*baccarat.EVENT_TYPES, *caribbean.EVENTS, *model.TABLE_EVENTS, Meter):
        assert not is_command(cls), cls
    with pytest.raises(MacauTablesError) as info:
        issuer_of(Meter)
    assert info.value.key == "core.not_a_command"
    with pytest.raises(MacauTablesError):
        issuer_of("PlaceWager")  # type: ignore[arg-type]


def test_acting_names_the_person_and_the_dealer_reveals_as_dealer() -> None:
    from macau_tables.baccarat.commands import RevealPart
    from macau_tables.baccarat.sides import Side

    assert acting(csp.Fold(3, "alice")) == (Issuer.PLAYER, "alice")
    assert acting(bac.Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "bruno")) == (
        Issuer.PLAYER,
        "bruno",
    )
    # BAC-16: when nobody holds the cards (or the holder's time ran out) the dealer reveals
    assert acting(bac.Reveal(Side.BANKER, RevealPart.THIRD, DEALER)) == (Issuer.DEALER, None)
    assert acting(bac.Void("sam", "wrong card")) == (Issuer.SUPERVISOR, "sam")
    assert acting(csp.Void("power cut", supervisor="sue")) == (Issuer.SUPERVISOR, "sue")
    assert acting(model.OpenRound()) == (Issuer.DEALER, None)


def test_modes_say_which_tables_take_a_command_and_expected_keeps_only_those() -> None:
    """CSP-11, BAC-10: ``modes_of`` reads a command class's ``MODES`` (``core.not_a_command``
    for anything else); ``accepts`` never raises; ``Expected.in_mode`` keeps only the commands
    a table of that mode accepts (the same object when it keeps them all)."""
    from macau_tables.rounds import (
        EVERY_MODE,
        LIVE_ONLY,
        Due,
        DueKind,
        Expected,
        TableMode,
        accepts,
        modes_of,
    )

    assert modes_of(csp.ReportExposedCard) == LIVE_ONLY
    assert modes_of(csp.Raise) == EVERY_MODE
    assert modes_of(model.OpenShoe) == LIVE_ONLY
    with pytest.raises(MacauTablesError) as info:
        modes_of(Meter)
    assert info.value.key == "core.not_a_command"
    assert not accepts(TableMode.LIVE, Meter) and not accepts(TableMode.VIRTUAL, "x")  # type: ignore[arg-type]
    expected = Expected(
        "deciding",
        (Due(DueKind.DECISION, position=1, player="alice"),),
        (csp.Raise, csp.Fold, csp.ReportExposedCard, csp.ReportMisdeal, csp.Void),
    )
    virtual = expected.in_mode(TableMode.VIRTUAL)
    assert virtual.commands == (csp.Raise, csp.Fold, csp.Void)
    assert (virtual.phase, virtual.due) == (expected.phase, expected.due)
    assert expected.in_mode(TableMode.LIVE) is expected
