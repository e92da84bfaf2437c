"""The simulated Caribbean Stud players' choices (:class:`macau_tables.plugin.BotPolicy`).

A random rule, not advice (CSP-12): each player antes 1 to 10 units in their own box (within
the table's limits) and adds the jackpot wager half the time (not on a box already carrying
one, CSP-11.1), then raises (70 %) or folds; a raise the table or the wallet refuses is a
fold."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from ..plugin import Answer
from ..rounds import Due, DueKind
from .commands import CloseBetting, Fold, PlaceAnte, PlaceJackpotWager, Raise

__all__ = ["POLICY", "CaribbeanBots"]


class CaribbeanBots:
    """Caribbean Stud's :class:`~macau_tables.plugin.BotPolicy`."""

    def seating(self, players: Sequence[str]) -> tuple[tuple[int, str], ...]:
        return ()  # a player takes a box by placing its ante

    def wagers(
        self, rnd: random.Random, state: Any, players: Sequence[str]
    ) -> list[tuple[object, str]]:
        rules = state.rules
        carried = {w.box for w in state.carried()}
        plan: list[tuple[object, str]] = []
        for box, player in enumerate(players, start=1):
            ante = rules.bet_unit * rnd.randint(1, 10)
            ante = max(rules.ante_minimum, min(rules.ante_maximum, ante))
            plan.append((PlaceAnte(box, player, ante), player))
            if box not in carried and rnd.random() < 0.5:
                plan.append((PlaceJackpotWager(box, player), player))
        return plan

    def close(self) -> object:
        return CloseBetting()

    def filler(self, state: Any, player: str) -> object | None:
        if state.round.in_play:
            return None
        return PlaceAnte(1, player, state.rules.ante_minimum)

    def answers(self, rnd: random.Random, round_: Any, due: Sequence[Due]) -> list[Answer]:
        if not due or due[0].kind is not DueKind.DECISION:
            return []
        answers: list[Answer] = []
        for d in due:
            box: Any = d.position
            player = str(d.player)
            fold = Fold(box, player)
            if rnd.random() < 0.7:
                raise_ = Raise(box, player, 2 * round_.box(box).ante)
                answers.append(Answer(raise_, player, fold))
            else:
                answers.append(Answer(fold, player, fold))
        return answers


POLICY: Final = CaribbeanBots()
"""The policy the plug-in carries."""
