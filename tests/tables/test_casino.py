"""The demonstration casino's tables keep the law they are configured with, through the table
service, on SQLite and PostgreSQL: the baccarat tables' banker/player difference limit of
5,000.00 (BAC-14)."""

from __future__ import annotations

from macau_tables.baccarat.bets import standing
from macau_tables.baccarat.commands import CloseBetting, PlaceWager
from macau_tables.baccarat.demo import MAX_DIFFERENCE
from macau_tables.baccarat.rules import WagerKind
from macau_tables.errors import RuleViolation
from macau_tables.rng import SeededRandom
from macau_tables.store import Store
from macau_tables.tables.casino import create_demo_casino

from .support import close_betting, open_round, service


def test_the_demo_baccarat_tables_limit_the_banker_player_difference_BAC_14(
    store: Store,
) -> None:
    """At ``bac-1``, a banker total more than 5,000.00 above the player total does not close
    betting (BAC-14: the close is refused naming both totals and the limit, nothing written);
    a player wager that brings the difference back to 5,000.00 lets it close. ``bac-live`` has
    the same configuration."""
    casino = create_demo_casino(store)
    assert MAX_DIFFERENCE == 500_000  # 5,000.00
    configs = {t.table_id: t.config_id for t in casino.tables}
    assert configs["bac-live"] == configs["bac-1"]
    svc = service(store, "bac-1", rng=SeededRandom(3))
    open_round(svc)  # the round cycle opens: shoe, demo round, round
    svc.submit(
        PlaceWager("alice", standing(1), WagerKind.BANKER, 600_000),
        idempotency_key="a",
        actor="alice",
    )
    svc.submit(
        PlaceWager("bruno", standing(2), WagerKind.PLAYER, 90_000),
        idempotency_key="b",
        actor="bruno",
    )
    before = store.read(lambda tx: len(tx.read_events("bac-1")))
    refused = svc.round.check(CloseBetting())  # what the cycle finds at the countdown's end
    assert isinstance(refused, RuleViolation) and refused.rule == "BAC-14"
    assert (refused.params["banker"], refused.params["player"]) == (600_000, 90_000)
    assert refused.params["limit"] == MAX_DIFFERENCE
    svc.cycle_step()  # the close is refused: the round keeps betting on a new countdown
    log = store.read(lambda tx: tx.read_events("bac-1"))
    assert [r.type for r in log[before:]] == ["tables.CycleDeadline"]  # no card, no money
    svc.submit(
        PlaceWager("carmen", standing(3), WagerKind.PLAYER, 10_000),
        idempotency_key="c",
        actor="carmen",
    )
    done = close_betting(svc, CloseBetting())
    assert "baccarat.BettingClosed" in done.events
