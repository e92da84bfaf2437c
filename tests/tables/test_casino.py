"""The demonstration casino's tables keep the law they are configured with, through the table
service, on SQLite and PostgreSQL: the baccarat tables' banker/player difference limit of
5,000.00 (BAC-14)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from macau_tables.baccarat.bets import seat, standing
from macau_tables.baccarat.commands import CloseBetting, PlaceWager
from macau_tables.baccarat.demo import MAX_DIFFERENCE, SQUEEZE_TABLE
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


def test_one_demo_table_squeezes_out_of_the_box_BAC_16(store: Store) -> None:
    """``bac-squeeze``: the demonstration's baccarat table with card holding on (BAC-16.1: the
    house's decision), its configuration approved as the others are (BAC-19: card holding is
    not one of its options); the seated player with the largest wager on a side holds that
    side's cards, and the round waits for their reveal (BAC-16.2). The other tables keep card
    holding off."""
    casino = create_demo_casino(store)
    configs = {t.table_id: t.config_id for t in casino.tables}
    assert configs[SQUEEZE_TABLE] not in (configs["bac-1"], configs["bac-live"])
    rules = store.read(lambda tx: {t: tx.get_config(c) for t, c in configs.items()})
    assert rules[SQUEEZE_TABLE].card_holding is True
    assert not rules["bac-1"].card_holding and not rules["bac-live"].card_holding
    assert replace(rules[SQUEEZE_TABLE], card_holding=False) == rules["bac-1"]  # else the same
    assert rules[SQUEEZE_TABLE].approvals == rules["bac-1"].approvals
    rules[SQUEEZE_TABLE].check_approvals(date(2026, 1, 5))  # in force (BAC-19)
    svc = service(store, SQUEEZE_TABLE, rng=SeededRandom(3))
    open_round(svc, seated=((1, "alice"),))
    svc.submit(
        PlaceWager("alice", seat(1), WagerKind.PLAYER, 10_000), idempotency_key="a", actor="alice"
    )
    close_betting(svc, CloseBetting())
    due = svc.expected().due  # type: ignore[union-attr]
    assert [(d.kind, d.player) for d in due] == [("reveal", "alice")], due
