"""Bots: simulated players of a virtual table, playing through the table service itself.

For ``macau-tables autoplay``, the tests and the benchmarks. A bot is a client like any other:
it asks the round what is due (``expected_next()``) and submits commands with idempotency keys
through :meth:`TableService.submit`; the service deals from its CSPRNG shoe, settles, persists
and publishes as for real players. The ``seed`` drives only the bots' choices (boxes, amounts,
raise or fold, side wagers), never the cards.

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
from .model import OpenRound, Submitted, TableError
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
    drives their choices. Refuses (``TableError``) a live table: its cards come from a
    dealer."""

    def __init__(
        self,
        service: TableService,
        players: Sequence[str],
        *,
        seed: int | None = None,
        actor: str = "autoplay",
    ) -> None:
        if service.setup.live:
            raise TableError("tables.bots_virtual_only", table=service.table_id)
        if not 1 <= len(players) <= 7:
            raise TableError("tables.bots_players", count=len(players))
        self.service = service
        self.players = tuple(players)
        self.random = random.Random(seed)
        self.actor = actor
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
        """One whole round; returns it (over)."""
        if self.service.setup.game == "caribbean":
            self._caribbean()
        else:
            self._baccarat()
        for _ in range(64):
            r = self.service.round
            if r.is_over:
                return r
            due = r.expected_next().due
            if not due or not self._act(r, due[0]):
                break
        r = self.service.round
        if not r.is_over:
            raise TableError("tables.bots_stuck", round_id=r.round_id, phase=str(r.phase))
        return r

    # -- Caribbean Stud ----------------------------------------------------------------------

    def _caribbean(self) -> None:
        rnd = self.random
        self.submit(OpenRound())
        rules = self.service.state.rules
        for box, player in enumerate(self.players, start=1):
            ante = rules.bet_unit * rnd.randint(1, 10)
            ante = max(rules.ante_minimum, min(rules.ante_maximum, ante))
            if not self.attempt(PlaceAnte(box, player, ante), actor=player):
                continue
            state = self.service.round.box(box)
            if state is not None and not state.jackpot and rnd.random() < 0.5:
                self.attempt(PlaceJackpotWager(box, player), actor=player)
        if not self.service.round.in_play:
            self.submit(PlaceAnte(1, self.players[0], rules.ante_minimum), actor=self.players[0])
        self.submit(CaribbeanClose())

    # -- baccarat ----------------------------------------------------------------------------

    def _baccarat(self) -> None:
        rnd = self.random
        seated = tuple(enumerate(self.players, start=1))
        self.submit(OpenRound(seated))
        r = self.service.round
        rules = r.rules
        carried = {w.player for w in r.wagers if w.carried}
        for number, player in seated:
            area = seat(number)
            if player not in carried:
                side = WagerKind.BANKER if rnd.random() < 0.5 else WagerKind.PLAYER
                self._wager(player, area, side, rnd.randint(1, 10))
            extra = rnd.choice(list(WagerKind))
            main = extra in (WagerKind.BANKER, WagerKind.PLAYER)
            if not main and rnd.random() < 0.3 and rules.offers(extra):
                amount = rules.jackpot_wager if extra is WagerKind.JACKPOT else None
                self._wager(player, area, extra, 1, amount)
        self.submit(BaccaratClose())

    def _wager(
        self, player: str, area: Any, kind: WagerKind, units: int, amount: int | None = None
    ) -> None:
        rules = self.service.round.rules
        limit = rules.limits[kind]
        stake = amount if amount is not None else rules.bet_unit * units
        stake = max(limit.minimum, min(limit.maximum, stake))
        self.attempt(PlaceWager(player, area, kind, stake), actor=player)

    # -- what the round waits for ------------------------------------------------------------

    def _act(self, r: Any, due: Any) -> bool:
        """Answer what ``r`` waits for (a decision, a reveal); ``False`` when it is not a
        player's to answer."""
        if due.kind is DueKind.DECISION and due.player is not None:
            box = r.box(due.position)
            if self.random.random() < 0.7 and self.attempt(
                Raise(due.position, due.player, 2 * box.ante), actor=due.player
            ):
                return True
            self.submit(Fold(due.position, due.player), actor=due.player)
            return True
        if due.kind is DueKind.REVEAL and due.player is not None:
            step = r.pending_reveal()
            self.submit(Reveal(step.side, step.part, due.player), actor=due.player)
            return True
        return False
