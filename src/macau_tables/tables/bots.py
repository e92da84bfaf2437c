"""Bots: simulated players of a virtual table, playing through the table service itself.

For ``macau-tables autoplay``, the tests and the benchmarks. A bot is a client like any other:
it asks the round what is due (``expected_next()``) and submits commands with idempotency keys
through :meth:`TableService.submit`; the service deals from its CSPRNG shoe, settles, persists
and publishes as for real players. The table's round cycle opens each round and closes its
betting (:mod:`.cycle`); the driver runs the cycle's next step at once
(:meth:`TableService.cycle_step`) instead of waiting for its countdown. The ``seed`` drives
only the bots' choices (boxes, amounts, raise or fold, side wagers), never the cards.

The choices are a random rule, not advice (CSP-12): a Caribbean Stud bot antes 1 to 10 units
and adds the jackpot wager half the time, then raises or folds at random; a baccarat bot bets
banker or player, sometimes the tie, a pair, Lucky 6 or the jackpot, and reveals the cards it
holds (BAC-16). A wager the table or the wallet refuses is skipped.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..baccarat.bets import seat
from ..baccarat.commands import CloseBetting as BaccaratClose
from ..baccarat.commands import PlaceWager, Reveal
from ..baccarat.rules import WagerKind
from ..caribbean.actions import CloseBetting as CaribbeanClose
from ..caribbean.actions import Fold, PlaceAnte, PlaceJackpotWager, Raise
from ..errors import MacauTablesError
from ..rounds import DueKind
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
        close: object
        if self.service.setup.game == "caribbean":
            opening, close = self._caribbean(), CaribbeanClose()
        else:
            opening, close = self._baccarat(), BaccaratClose()
        r = self.service.round
        if r is None or r.is_over:
            self._run(opening, close)
        elif betting(r):
            self._close(close)  # resumed while taking wagers: close its betting
        for _ in range(64):
            r = self.service.round
            if r.is_over:
                return r
            due = r.expected_next().due
            if not due or not self._act(r, due):
                break
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
        """Have the round cycle close the betting of the open round now (a Caribbean round
        with no box in play gets the first player's minimum first)."""
        del close  # the cycle issues the game's own close (.cycle.close_command)
        if self.service.setup.game == "caribbean" and not self.service.round.in_play:
            first = self.players[0]
            self.submit(self._minimum(first), actor=first)
        self.commands += 1
        self.service.cycle_step()

    def _seating(self) -> tuple[tuple[int, str], ...] | None:
        if self.service.setup.game == "caribbean":
            return None
        return tuple(enumerate(self.players, start=1))

    # -- Caribbean Stud ----------------------------------------------------------------------

    def _caribbean(self) -> list[tuple[object, str]]:
        rnd = self.random
        rules = self.service.state.rules
        carried = {w.box for w in self.service.state.carried()}
        plan: list[tuple[object, str]] = []
        for box, player in enumerate(self.players, start=1):
            ante = rules.bet_unit * rnd.randint(1, 10)
            ante = max(rules.ante_minimum, min(rules.ante_maximum, ante))
            plan.append((PlaceAnte(box, player, ante), player))
            if box not in carried and rnd.random() < 0.5:
                plan.append((PlaceJackpotWager(box, player), player))
        return plan

    # -- baccarat ----------------------------------------------------------------------------

    def _baccarat(self) -> list[tuple[object, str]]:
        rnd = self.random
        rules = self.service.state.rules
        carried = {w.player for w in self.service.state.carried()}
        plan: list[tuple[object, str]] = []
        for number, player in enumerate(self.players, start=1):
            area = seat(number)
            if player not in carried:
                side = WagerKind.BANKER if rnd.random() < 0.5 else WagerKind.PLAYER
                plan.append((self._wager(rules, player, area, side, rnd.randint(1, 10)), player))
            extra = rnd.choice(list(WagerKind))
            main = extra in (WagerKind.BANKER, WagerKind.PLAYER)
            if not main and rnd.random() < 0.3 and rules.offers(extra):
                amount = rules.jackpot_wager if extra is WagerKind.JACKPOT else None
                plan.append((self._wager(rules, player, area, extra, 1, amount), player))
        return plan

    @staticmethod
    def _wager(
        rules: Any, player: str, area: Any, kind: WagerKind, units: int, amount: int | None = None
    ) -> PlaceWager:
        limit = rules.limits[kind]
        stake = amount if amount is not None else rules.bet_unit * units
        return PlaceWager(player, area, kind, max(limit.minimum, min(limit.maximum, stake)))

    def _minimum(self, player: str) -> object:
        """The smallest wager that puts ``player`` in the round (nobody else got in)."""
        rules = self.service.state.rules
        if self.service.setup.game == "caribbean":
            return PlaceAnte(1, player, rules.ante_minimum)
        return self._wager(rules, player, seat(1), WagerKind.BANKER, 1)

    # -- what the round waits for ------------------------------------------------------------

    def _act(self, r: Any, due: Any) -> bool:
        """Answer what ``r`` waits for (decisions, a reveal); ``False`` when it is not the
        players' to answer."""
        first = due[0]
        if first.kind is DueKind.DECISION:
            choices: list[tuple[object, Any]] = []
            for d in due:
                box = r.box(d.position)
                if self.random.random() < 0.7:
                    choices.append((Raise(d.position, d.player, 2 * box.ante), d))
                else:
                    choices.append((Fold(d.position, d.player), d))
            if self.batched:
                try:
                    self.commands += 1
                    self.service.submit_all(
                        [c for c, _ in choices],
                        idempotency_key=f"bot:{uuid.uuid4().hex}",
                        actor=self.actor,
                    )
                    return True
                except MacauTablesError:
                    self.refused += 1
            for command, d in choices:
                if not self.attempt(command, actor=d.player):
                    self.submit(Fold(d.position, d.player), actor=d.player)
            return True
        if first.kind is DueKind.REVEAL and first.player is not None:
            step = r.pending_reveal()
            self.submit(Reveal(step.side, step.part, first.player), actor=first.player)
            return True
        return False
