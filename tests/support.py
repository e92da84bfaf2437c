"""Shared helpers of the tests (a support module: never a test file).

The hidden-information oracle, written from the law independently of the games' view code
(docs/rules.md: CSP-6.5, CSP-7, CSP-12, BAC-4, BAC-10, BAC-16): :data:`VISIBLE` — for each game,
the cards an audience may see of a round — and :func:`cards_in`, every card text in an encoded
payload. The contract suite (``tests/test_round_contract.py``), the stream tests and the leak
session (``tests/server/test_leaks.py``) check every view and every surface against it.

Also :func:`require_module` (an optional dependency, skipped or failed) and
:func:`build_cli_commands_once` (typer's test runner without a command tree built per call).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from macau_tables.baccarat.round import BaccaratRound
from macau_tables.baccarat.sides import Side
from macau_tables.baccarat.tableau import CardSlot
from macau_tables.cards import Card
from macau_tables.caribbean.round import CaribbeanRound
from macau_tables.errors import MacauTablesError
from macau_tables.rounds import Audience, Role

__all__ = [
    "REQUIRE_ALL",
    "VISIBLE",
    "bac_visible",
    "build_cli_commands_once",
    "cards_in",
    "csp_visible",
    "require_module",
]

REQUIRE_ALL = os.environ.get("MACAU_TABLES_REQUIRE_ALL") == "1"
"""``MACAU_TABLES_REQUIRE_ALL=1`` (set by CI) turns every optional-dependency skip into a
failure: in CI nothing may be skipped."""


def require_module(name: str) -> ModuleType:
    """Import ``name`` or skip the test (fail under MACAU_TABLES_REQUIRE_ALL=1)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if REQUIRE_ALL:
            pytest.fail(f"{name} is required in CI (MACAU_TABLES_REQUIRE_ALL=1): {exc}")
        pytest.skip(f"{name} is not installed")


def build_cli_commands_once() -> None:
    """Make typer's test runner (``typer.testing.CliRunner.invoke``) build an app's command
    tree once per process, not at every invocation: the build reads the signature of every
    option of every command (tens of ms; hundreds of invocations a run). The tree built is
    the one a process of the command line runs, and holds the functions the commands were
    declared with, as a new build would: what a test replaces in a module they call is
    still seen."""
    import typer.main
    import typer.testing

    built: dict[int, tuple[Any, Any]] = {}

    def command_of(app: Any) -> Any:
        found = built.get(id(app))
        if found is None or found[0] is not app:  # (the app is kept: its id is not reused)
            found = built[id(app)] = (app, typer.main.get_command(app))
        return found[1]

    typer.testing._get_command = command_of  # type: ignore[attr-defined]


def csp_visible(r: CaribbeanRound, audience: Audience) -> set[Card]:
    # CSP-6.5 / CSP-12: a player sees their own five cards and the dealer's face-up cards; at the
    # showdown the dealer's hand and the raised hands are turned over (a folded box's cards are
    # collected unseen, CSP-6.7). Nobody is shown a face-down card before that.
    seen = {c for c, up in zip(r.dealer_cards, r.dealer_face_up, strict=True) if up}
    seen |= {e.card for e in r.exposed}
    if r.settlement is not None and not r.settlement.voided:
        seen |= set(r.dealer_cards)
        for b in r.boxes:
            if b.raised:
                seen |= set(b.cards)
    if audience.player is not None:
        for b in r.boxes:
            if b.player == audience.player:
                seen |= set(b.cards)
    return seen


def bac_visible(r: BaccaratRound, audience: Audience) -> set[Card]:
    # BAC-16: without card holding every card is turned as it is dealt; with it, a side's cards
    # are face down to everyone but their holder until the holder (or the dealer) reveals them.
    # A card exposed in error is face up for everyone (BAC-4). BAC-10: the dealer and the
    # supervisor see the cards withdrawn from the shoe, and a refused card's face when no card
    # is held at the table or once the round is settled (otherwise it may go to a held slot).
    staff = audience.role in (Role.DEALER, Role.SUPERVISOR)
    extra: set[Card] = set()
    if staff:
        extra = set(r.discarded)
        if not r.rules.card_holding or (r.settlement is not None and not r.void):
            extra |= {f.card for f in r.flags}
    if not r.rules.card_holding:
        return {c for _, c in r.cards} | extra
    revealed = {x.step for x in r.revealed}
    seen: set[Card] = set()
    for slot, card in r.cards:
        side_is_player = slot.value.startswith("P")
        third = slot in (CardSlot.PLAYER_3, CardSlot.BANKER_3)
        step = next(
            (
                s
                for s in revealed
                if (s.side.value == "player") == side_is_player
                and (s.part.value == "third") == third
            ),
            None,
        )
        holder = r.holder(Side.PLAYER if side_is_player else Side.BANKER)
        if (
            step is not None
            or slot in r.exposed
            or (audience.player is not None and audience.player == holder)
        ):
            seen.add(card)
    return seen | extra


def cards_in(payload: object) -> Iterator[Card]:
    """Every string in an encoded payload that is a card's text."""
    if isinstance(payload, dict):
        for value in payload.values():
            yield from cards_in(value)
    elif isinstance(payload, list):
        for value in payload:
            yield from cards_in(value)
    elif isinstance(payload, str) and 2 <= len(payload) <= 3:
        try:
            yield Card.parse(payload)
        except MacauTablesError:
            return


VISIBLE: dict[str, Callable[[Any, Audience], set[Card]]] = {
    "caribbean": csp_visible,
    "baccarat": bac_visible,
}
"""The oracle per game: the cards ``audience`` may see of a round now."""
