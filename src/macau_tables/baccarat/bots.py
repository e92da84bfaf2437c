"""The simulated baccarat players' choices (:class:`macau_tables.plugin.BotPolicy`).

A random rule, not advice: each player, seated in their own seat, bets banker or player (unless
a wager of theirs was carried into the round), sometimes the tie, a pair, Lucky 6 or the
jackpot (those the table offers, within its limits), and reveals the cards they hold (BAC-16).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from ..plugin import Answer
from ..rounds import Due, DueKind
from .bets import Area, seat
from .commands import CloseBetting, PlaceWager, Reveal
from .rules import WagerKind

__all__ = ["POLICY", "BaccaratBots"]


class BaccaratBots:
    """Baccarat's :class:`~macau_tables.plugin.BotPolicy`."""

    def seating(self, players: Sequence[str]) -> tuple[tuple[int, str], ...]:
        return tuple(enumerate(players, start=1))

    def wagers(
        self, rnd: random.Random, state: Any, players: Sequence[str]
    ) -> list[tuple[object, str]]:
        rules = state.rules
        carried = {w.player for w in state.carried()}
        plan: list[tuple[object, str]] = []
        for number, player in enumerate(players, start=1):
            area = seat(number)
            if player not in carried:
                side = WagerKind.BANKER if rnd.random() < 0.5 else WagerKind.PLAYER
                plan.append((_wager(rules, player, area, side, rnd.randint(1, 10)), player))
            extra = rnd.choice(list(WagerKind))
            main = extra in (WagerKind.BANKER, WagerKind.PLAYER)
            if not main and rnd.random() < 0.3 and rules.offers(extra):
                amount = rules.jackpot_wager if extra is WagerKind.JACKPOT else None
                plan.append((_wager(rules, player, area, extra, 1, amount), player))
        return plan

    def close(self) -> object:
        return CloseBetting()

    def filler(self, state: Any, player: str) -> object | None:
        return None  # a baccarat round closes its betting with no wager in it

    def answers(self, rnd: random.Random, round_: Any, due: Sequence[Due]) -> list[Answer]:
        first = due[0] if due else None
        if first is None or first.kind is not DueKind.REVEAL or first.player is None:
            return []
        step = round_.pending_reveal()
        return [Answer(Reveal(step.side, step.part, first.player), first.player)]


def _wager(
    rules: Any, player: str, area: Area, kind: WagerKind, units: int, amount: int | None = None
) -> PlaceWager:
    limit = rules.limits[kind]
    stake = amount if amount is not None else rules.bet_unit * units
    return PlaceWager(player, area, kind, max(limit.minimum, min(limit.maximum, stake)))


POLICY: Final = BaccaratBots()
"""The policy the plug-in carries."""
