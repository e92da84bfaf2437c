"""Bots: simulated players of a virtual table, playing through the table service itself.

For ``macau-tables autoplay``, the tests and the benchmarks. A bot is a client like any other:
it asks the round what is due (``expected_next()``) and submits commands with idempotency keys
through :meth:`TableService.submit`; the service deals from its CSPRNG shoe, settles, persists
and publishes as for real players. The table's round cycle opens each round and closes its
betting (:mod:`.cycle`); the driver runs the cycle's next step at once
(:meth:`TableService.cycle_step`) instead of waiting for its countdown. The ``seed`` drives
only the bots' choices (boxes, amounts, raise or fold, side wagers), never the cards.

The choices are each game's (its plug-in's :class:`~macau_tables.plugin.BotPolicy`: a random
rule, not advice, CSP-12); this module only drives them: open the round with the policy's
seating, place its wagers, close the betting, answer what the round waits for. A wager the
table or the wallet refuses is skipped.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import MacauTablesError
from ..games import GAMES
from ..plugin import Answer
from .cycle import betting
from .model import Submitted, TableError
from .service import TableService

__all__ = ["Bots", "Played"]


@dataclass(frozen=True, slots=True)
class Played:
    """What :meth:`Bots.play` did: rounds played, of them ``voided``, commands submitted
    and wagers refused (by the table or a wallet)."""

    rounds: int
    voided: int
    commands: int
    refused: int


class Bots:
    """``players`` (ids with wallets, at most seven) playing ``service``'s table; ``seed``
    drives their choices; ``batched``: each round's opening, wagers and close in one request
    (:meth:`TableService.submit_all`), and the decisions in one. Refuses (``TableError``) a live
    table: its cards come from a dealer."""

    def __init__(
        self,
        service: TableService,
        players: Sequence[str],
        *,
        seed: int | None = None,
        actor: str = "autoplay",
        batched: bool = False,
    ) -> None:
        if service.setup.live:
            raise TableError("tables.bots_virtual_only", table=service.table_id)
        if not 1 <= len(players) <= 7:
            raise TableError("tables.bots_players", count=len(players))
        self.service = service
        self.players = tuple(players)
        self.random = random.Random(seed)
        self.actor = actor
        self.batched = batched
        self.commands = 0
        self.refused = 0
        self.policy = GAMES[service.setup.game].bots

    def submit(self, command: object, *, actor: str | None = None) -> Submitted:
        """Submit ``command`` with a fresh idempotency key."""
        self.commands += 1
        return self.service.submit(
            command, idempotency_key=f"bot:{uuid.uuid4().hex}", actor=actor or self.actor
        )

    def attempt(self, command: object, *, actor: str | None = None) -> bool:
        """Submit a wager; ``False`` when the table or the wallet refuses it (skipped)."""
        try:
            self.submit(command, actor=actor)
        except MacauTablesError:
            self.refused += 1
            return False
        return True

    def play(self, rounds: int, progress: Callable[[Any], None] | None = None) -> Played:
        """Play ``rounds`` rounds (each opened, bet, played and settled through the service);
        ``progress`` is called with each finished round."""
        voided = 0
        for _ in range(rounds):
            r = self.play_round()
            voided += r.expected_next().phase == "void"
            if progress is not None:
                progress(r)
        return Played(rounds, voided, self.commands, self.refused)

    def play_round(self) -> Any:
        """One whole round; returns it (over). A round left open (resumed at start-up: CSP-11.4,
        BAC-10) is played to its end first, from where it stood."""
        opening = self.policy.wagers(self.random, self.service.state, self.players)
        close = self.policy.close()
        r = self.service.round
        if r is None or r.is_over:
            self._run(opening, close)
        elif betting(r):
            self._close(close)  # resumed while taking wagers: close its betting
        for _ in range(64):
            r = self.service.round
            if r.is_over:
                return r
            answers = self.policy.answers(self.random, r, r.expected_next().due)
            if not answers:
                break
            self._answer(answers)
        r = self.service.round
        if not r.is_over:
            raise TableError("tables.bots_stuck", round_id=r.round_id, phase=str(r.phase))
        return r

    def _run(self, wagers: list[tuple[object, str]], close: object) -> None:
        """Have the cycle open the round, place ``wagers`` (command, player), and have the
        cycle close the betting: the wagers in one request when batched (falling back to one
        by one when the table or a wallet refuses one of them), else one request each, a
        refused wager skipped."""
        self._open()
        if self.batched:
            try:
                self.commands += 1
                self.service.submit_all(
                    [c for c, _ in wagers],
                    idempotency_key=f"bot:{uuid.uuid4().hex}",
                    actor=self.actor,
                )
                self._close(close)
                return
            except MacauTablesError:
                self.refused += 1
        for command, player in wagers:
            self.attempt(command, actor=player)
        self._close(close)

    def _open(self) -> None:
        """Run the round cycle until it has opened the next round (its result pause not
        waited for), with the players seated (baccarat BAC-15)."""
        opened = self.service.state.rounds
        for _ in range(4):
            self.commands += 1
            if self.service.cycle_step(seated=self._seating()) is None:
                break
            if self.service.state.rounds > opened and betting(self.service.round):
                return
        r = self.service.round
        raise TableError(
            "tables.bots_stuck",
            round_id="-" if r is None else r.round_id,
            phase="-" if r is None else str(r.expected_next().phase),
        )

    def _close(self, close: object) -> None:
        """Have the round cycle close the betting of the open round now (given first the first
        player's smallest wager when the round cannot close without one: the policy's
        ``filler``). ``close``: the game's own close, which the cycle issues itself."""
        del close
        first = self.players[0]
        filler = self.policy.filler(self.service.state, first)
        if filler is not None:
            self.submit(filler, actor=first)
        self.commands += 1
        self.service.cycle_step()

    def _seating(self) -> tuple[tuple[int, str], ...] | None:
        """The seating of the round the cycle opens (the policy's; ``None``: the last round's)."""
        return self.policy.seating(self.players) or None

    def _answer(self, answers: list[Answer]) -> None:
        """Submit the players' ``answers`` to what the round waits for: those with a fallback
        (decisions) in one request when batched, else one by one, the fallback submitted for
        an answer refused; the others one by one."""
        if self.batched and all(a.fallback is not None for a in answers):
            try:
                self.commands += 1
                self.service.submit_all(
                    [a.command for a in answers],
                    idempotency_key=f"bot:{uuid.uuid4().hex}",
                    actor=self.actor,
                )
                return
            except MacauTablesError:
                self.refused += 1
        for a in answers:
            if a.fallback is None:
                self.submit(a.command, actor=a.actor)
            elif not self.attempt(a.command, actor=a.actor):
                self.submit(a.fallback, actor=a.actor)
