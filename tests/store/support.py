"""Builders shared by the store tests (no tests here): toy codec types, a small casino, and SQL
run behind the store's back (to tamper)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
from sqlalchemy import text

from macau_tables import codec
from macau_tables.jackpot import Meter
from macau_tables.ledger import Posting
from macau_tables.store import LedgerEntry, Store, TableMode, Tx, TxKind, pgwire
from tests.db_fixtures import empty, filled
from tests.store.workers import contribute, contribution


@dataclass(frozen=True, slots=True)
class ToyRules:
    """A configuration (a rules type: stored whole, referenced from events)."""

    name: str
    limit: int


@dataclass(frozen=True, slots=True)
class ToyOpened:
    """An event naming the rules it runs under (stored as {config_id, sha256})."""

    round_id: str
    config_id: str
    rules: ToyRules


@dataclass(frozen=True, slots=True)
class ToyDealt:
    """An ordinary event."""

    round_id: str
    card: str
    n: int


codec.register("storetest", (ToyRules, ToyOpened, ToyDealt))

RULES = ToyRules("standard", 1_000)
GAME = "caribbean"


def casino(tx: Tx, *, players: dict[str, int] | None = None, seed: int = 10_000) -> None:
    """Config ``cfg-1``, meter ``m-1`` (seeded), table ``t1`` on it, players with deposits."""
    tx.put_config(GAME, "cfg-1", RULES)
    tx.create_meter("m-1", game=GAME, seed=seed, params={"share": "7/10"}, actor="admin")
    tx.create_table(
        "t1",
        name="Table 1",
        game=GAME,
        mode=TableMode.VIRTUAL,
        demo=True,
        config_id="cfg-1",
        meter_id="m-1",
    )
    for player, amount in (players if players is not None else {"alice": 1_000}).items():
        tx.add_player(player, player.title())
        if amount:
            tx.deposit(player, amount, actor="cashier-1", reason="opening balance")


def setup(store: Store, **kwargs: Any) -> None:
    """:func:`casino` in its own transaction; on an empty store, a copy of the first one this
    process wrote with the same arguments (:func:`tests.db_fixtures.filled`)."""
    if empty(store):
        filled(store, f"store casino {sorted(kwargs.items())}", lambda s: setup_in(s, **kwargs))
    else:
        setup_in(store, **kwargs)


def setup_in(store: Store, **kwargs: Any) -> None:
    """:func:`casino` in its own transaction, written as it is."""
    store.run(lambda tx: casino(tx, **kwargs))


def entry(postings: tuple[Posting, ...], seq: int | None = None) -> LedgerEntry:
    """A round's ledger batch at table ``t1`` (meter ``m-1``), after event ``seq``."""
    return LedgerEntry(postings, TxKind.ROUND, table_id="t1", meter_id="m-1", event_seq=seq)


def snapshot(store: Store) -> tuple[int, int, int, list[tuple[str, int]]]:
    """What a refused transaction must leave as it was: the counts of transactions, postings
    and events, and every account's balance."""
    balances = store.read(lambda tx: [(a.account_id, a.balance) for a in tx.accounts()])
    return (
        count(store, "transactions"),
        count(store, "postings"),
        count(store, "events"),
        balances,
    )


def events(n: int, round_id: str = "r1") -> list[object]:
    """``n`` toy events of one round (the first opens it under ``cfg-1``)."""
    out: list[object] = [ToyOpened(round_id, "cfg-1", RULES)]
    out += [ToyDealt(round_id, f"c{i}", i) for i in range(1, n)]
    return out[:n]


def behind_the_back(store: Store, sql: str, **params: Any) -> int:
    """Run ``sql`` directly (no store checks): how a tamperer would; returns the row count."""
    with store.engine.begin() as conn:
        return conn.execute(text(sql), params).rowcount


def count(store: Store, relation: str) -> int:
    """Rows in ``relation``."""
    with store.engine.connect() as conn:
        return int(conn.execute(text(f"SELECT COUNT(*) FROM {relation}")).scalar_one())


__all__ = [
    "GAME",
    "RULES",
    "Meter",
    "RoundTrips",
    "ToyDealt",
    "ToyOpened",
    "ToyRules",
    "behind_the_back",
    "casino",
    "contribute",
    "contribution",
    "count",
    "events",
    "setup",
]


class RoundTrips:
    """Counts the queries sent through psycopg's cursors and the store's simple queries sent
    on the driver's libpq connection (``pgwire.simple_query``: the commit's, a group's first
    read, the writes sent before a statement): each a round trip."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sent: list[bytes | str] = []
        original = psycopg.Cursor.execute
        simple = pgwire.simple_query

        def execute(cursor: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            self.sent.append(query if isinstance(query, bytes | str) else str(query))
            return original(cursor, query, *args, **kwargs)

        def simple_query(raw: Any, query: bytes) -> list[Any]:
            self.sent.append(query)
            return simple(raw, query)

        monkeypatch.setattr(psycopg.Cursor, "execute", execute)
        monkeypatch.setattr(pgwire, "simple_query", simple_query)
