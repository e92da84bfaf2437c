"""Bringing a table to one phase of its round, for the crash tests (no tests here).

:func:`bring_to` opens a table on a store and plays its round to ``phase`` — cut short by a
stop predicate where a crash would cut it (the automatic step stops there) — and returns the
service, never closed. ``python -m tests.faults.phases URL GAME LIVE PHASE`` does it in a
process of its own, prints ``at <phase>`` and waits to be killed (SIGKILL)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

from macau_tables.baccarat import commands as bac
from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.dealing import BaccaratDealing
from macau_tables.baccarat.rules import ShoeSettings, WagerKind
from macau_tables.cards import DECK
from macau_tables.caribbean import commands as csp
from macau_tables.caribbean.dealing import CaribbeanDealing
from macau_tables.rounds import DEALER, DueKind
from macau_tables.store import Store
from tests.tables.support import (
    baccarat_rules,
    caribbean_rules,
    casino,
    close_betting,
    open_live_shoe,
    open_round,
    service,
)

_n = 0


def send(svc: Any, command: object, actor: str = "dealer") -> Any:
    global _n
    _n += 1
    return svc.submit(command, idempotency_key=f"k{os.getpid()}-{_n}", actor=actor)


def _due(r: Any) -> DueKind | None:
    due = r.expected_next().due
    return due[0].kind if due else None


# -- where each case stops: (game, live, phase) -> (stop predicate on the round, cut short) -----
# ``stop(r)``: the automatic step stops once it holds (a crash at that point); ``None``: the
# phase is reached between two commands.

Stop = Callable[[Any], bool] | None


def _cards(r: Any) -> int:
    return int(r.dealt) if hasattr(r, "dealt") else len(r.cards)


CASES: list[tuple[str, bool, str, Stop, str]] = [
    # Caribbean Stud (CSP-11.4): only a virtual deck lost mid-deal voids
    ("caribbean", False, "betting", None, "resume"),
    ("caribbean", False, "mid-deal", lambda r: _cards(r) >= 4, "void"),
    ("caribbean", False, "mid-deal kept", lambda r: _cards(r) >= 4, "resume"),
    ("caribbean", False, "decisions", None, "resume"),
    ("caribbean", False, "before showdown", lambda r: _due(r) is DueKind.SETTLEMENT, "resume"),
    ("caribbean", True, "betting", None, "resume"),
    ("caribbean", True, "mid-deal", None, "resume"),
    ("caribbean", True, "decisions", None, "resume"),
    # baccarat (BAC-10): a live deal resumes; only a virtual shoe lost before the last card voids
    ("baccarat", False, "betting", None, "void"),  # its shoe's order died with the process
    ("baccarat", False, "betting kept", None, "resume"),
    ("baccarat", False, "mid-deal", lambda r: 0 < _cards(r) < 4, "void"),
    ("baccarat", False, "mid-deal kept", lambda r: 0 < _cards(r) < 4, "resume"),
    # the holders' reveals due: resumes when the hand's cards are all out, else (a third card
    # still to come from the lost shoe) void
    ("baccarat", False, "reveals", None, "by the cards"),
    ("baccarat", False, "reveals kept", None, "resume"),
    ("baccarat", False, "before settlement", lambda r: _due(r) is DueKind.SETTLEMENT, "resume"),
    ("baccarat", True, "betting", None, "resume"),
    ("baccarat", True, "mid-deal", None, "resume"),
    ("baccarat", True, "reveals", None, "resume"),
]


def _table(store: Store, game: str, live: bool, phase: str) -> Any:
    if game == "caribbean":
        rules: Any = caribbean_rules()
    else:
        holding = phase.startswith(("reveals", "mid-deal"))
        shoe = ShoeSettings(decks=8, demo_rounds=0)
        rules = baccarat_rules(shoe=shoe, card_holding=holding)
    casino(store, {"t1": (game, rules, live)})
    svc = service(store, "t1")
    if game == "baccarat" and live:
        open_live_shoe(svc)
    return svc


def _bet(svc: Any, game: str) -> None:
    if game == "caribbean":
        open_round(svc)
        send(svc, csp.PlaceAnte(1, "p1", 500), "p1")
        box = svc.round.box(1)
        if not box.jackpot:  # (a jackpot wager a void round carried over is in place)
            send(svc, csp.PlaceJackpotWager(1, "p1"), "p1")
        send(svc, csp.PlaceAnte(3, "p2", 300), "p2")
    else:
        open_round(svc, ((1, "p1"), (2, "p2")))
        send(svc, bac.PlaceWager("p1", seat(1), WagerKind.BANKER, 2000), "p1")
        send(svc, bac.PlaceWager("p2", seat(2), WagerKind.PLAYER, 1000), "p2")
        send(svc, bac.PlaceWager("p2", seat(2), WagerKind.JACKPOT, 100), "p2")


def _unused(r: Any) -> Any:
    """A card not yet in the round (a live Caribbean deck has each card once); at baccarat a
    card still possible in the shoe (each of the 52 in turn)."""
    if hasattr(r, "cards_in_round"):
        return next(c for c in DECK if c not in r.cards_in_round)
    global _n
    _n += 1
    return next(c for c in (DECK[(_n + i) % 52] for i in range(52)) if r.is_possible(c))


def step(svc: Any, game: str) -> bool:
    """One act of whoever the round waits for (the dealer's card, a decision, a reveal, the
    close of betting); ``False`` when nothing is due from a client."""
    r = svc.round
    if r is None or r.is_over:
        return False
    due = r.expected_next().due[0]
    if due.kind is DueKind.WAGERS:
        close_betting(svc, csp.CloseBetting() if game == "caribbean" else bac.CloseBetting())
    elif due.kind is DueKind.CARD and r.expected_next().phase == "betting":
        if svc.setup.live:
            send(svc, bac.DealCard(_unused(r)))
        else:
            close_betting(svc, bac.CloseBetting())
    elif due.kind is DueKind.CARD:
        send(svc, (csp.DealCard if game == "caribbean" else bac.DealCard)(_unused(r)))
    elif due.kind is DueKind.DECISION:
        send(svc, csp.Fold(due.position, due.player), due.player)
    elif due.kind is DueKind.REVEAL:
        s = r.pending_reveal()
        by = due.player if due.player is not None else DEALER
        send(svc, bac.Reveal(s.side, s.part, by), due.player or "dealer")
    else:
        return False
    return True


def reach(svc: Any, game: str, phase: str) -> None:
    """Play the open round until it stands in ``phase`` (or is cut short there)."""
    for _ in range(40):
        r = svc.round
        kind = _due(r)
        name = r.expected_next().phase
        if phase.startswith("betting") and kind is DueKind.WAGERS:
            return
        if phase == "mid-deal" and svc.setup.live and name != "betting" and _cards(r) >= 2:
            return
        if phase == "decisions" and kind is DueKind.DECISION:
            return
        if phase.startswith("reveals") and kind is DueKind.REVEAL:
            return
        if not step(svc, game):
            return


def bring_to(store: Store, game: str, live: bool, phase: str) -> Any:
    """A new casino on ``store`` with table ``t1`` (``game``, live or virtual), its round
    played to ``phase`` (one of :data:`CASES`); the service, left open."""
    stop = next(c[3] for c in CASES if c[:3] == (game, live, phase))
    svc = _table(store, game, live, phase)
    _bet(svc, game)
    if stop is None:
        reach(svc, game, phase)
        return svc
    dealing: Any = CaribbeanDealing if game == "caribbean" else BaccaratDealing
    automatic = dealing.automatic

    def cut_short(self: Any, batch: Any, *, play: bool) -> bool:
        r = batch.state.round
        if r is not None and not r.is_over and stop(r):
            return False  # the process dies here: what was committed is what it leaves
        return bool(automatic(self, batch, play=play))

    dealing.automatic = cut_short
    try:
        for _ in range(40):  # the close of betting, the deal, the decisions or reveals
            if stop(svc.round) or not step(svc, game):
                break
    finally:
        dealing.automatic = automatic
    assert not svc.round.is_over and stop(svc.round), "the cut did not happen"
    return svc


def main(url: str, game: str, live: str, phase: str) -> None:
    """In a process of its own: bring the table to ``phase``, say so, wait to be killed."""
    store = Store.open(url)
    bring_to(store, game, live == "live", phase)
    print(f"at {phase}", flush=True)
    time.sleep(600)


if __name__ == "__main__":
    main(*sys.argv[1:5])
