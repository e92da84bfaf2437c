"""Settlement facts (macau_tables.facts, tables.facts): recorded with each settlement of both
games in the hash-chained log and in ``settlement_facts``, equal to what replaying the round
gives; the per-position report from them equals the report from replaying every round (STANDARDS
"meters for drop, wagers and payouts per betting position"; CSP-9, CSP-10, BAC-11, BAC-17,
BAC-18: the settlement's own figures); ``db upgrade`` derives them once for rounds settled
before; ``verify`` finds a fact that is not what the settlement gives."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from macau_tables import codec
from macau_tables.facts import FactLine, SettlementFacts, settlement_facts
from macau_tables.games import GAMES
from macau_tables.rng import SeededRandom
from macau_tables.rounds import Outcome, WagerResult
from macau_tables.store import SCHEMA_VERSION, Store
from macau_tables.store.facts_rows import fact_rows
from macau_tables.store.store import MIGRATIONS
from macau_tables.tables.audit import verify_database
from macau_tables.tables.bots import Bots
from macau_tables.tables.clock import MACAU
from macau_tables.tables.facts import FACTS_TYPE, backfill
from macau_tables.tables.recall import settled_wagers
from macau_tables.tables.reports import day_positions, position_csv

from .support import (
    PLAYERS,
    baccarat_rules,
    caribbean_rules,
    casino,
    replayed_positions,
    service,
)

TABLES = {
    "c1": ("caribbean", caribbean_rules(), False),
    "b1": ("baccarat", baccarat_rules(), False),
}


def play(store: Store, rounds: int, seed: int) -> None:
    """``rounds`` rounds at each table, the players' choices and the cards from ``seed``."""
    for table_id in sorted(TABLES):
        svc = service(store, table_id, rng=SeededRandom(seed))
        Bots(svc, PLAYERS[:5], seed=seed, batched=True).play(rounds)


def days(store: Store) -> list[date]:
    """The gaming days (Macau) on which rounds were recorded."""
    rows = store.read(lambda tx: tx.connection.execute(text("SELECT recorded_at FROM events")))
    return sorted({_aware(r[0]).astimezone(MACAU).date() for r in rows})


def _aware(value: Any) -> datetime:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def facts_by_round(store: Store) -> dict[tuple[str, str], tuple[SettlementFacts, int]]:
    """Every recorded facts event: (table, round) → (the facts, their seq)."""

    def read(tx: Any) -> dict[tuple[str, str], tuple[SettlementFacts, int]]:
        out = {}
        for table in tx.tables():
            for r in tx.read_events(table.table_id):
                if r.type == FACTS_TYPE:
                    out[table.table_id, r.round_id] = (r.decode(), r.seq)
        return out

    return store.read(read)


def replayed_facts(store: Store) -> dict[tuple[str, str], SettlementFacts]:
    """Every settled round's facts from its replay (its settlement closed again)."""

    def read(tx: Any) -> dict[tuple[str, str], SettlementFacts]:
        out = {}
        for table in tx.tables():
            for rid in tx.round_ids(table.table_id):
                wagers = settled_wagers(tx, table, rid)
                if wagers:
                    out[table.table_id, rid] = settlement_facts(wagers)
        return out

    return store.read(read)


def assert_reports_match(store: Store) -> None:
    """The report from facts equals the report from replay, every day (and is not empty)."""
    seen = 0
    for day in days(store):
        from_facts = store.read(lambda tx, d=day: day_positions(tx, d))
        oracle = store.read(lambda tx, d=day: replayed_positions(tx, d))
        assert from_facts == oracle
        assert position_csv(from_facts) == position_csv(oracle)  # the same words and units
        seen += len(from_facts)
    assert seen > 0


# -- the facts themselves ---------------------------------------------------------------------


def test_facts_sum_a_settlement_s_lines_per_position_and_kind() -> None:
    """CSP-9, BAC-18: each line's money goes to its spot and kind; a stake carried in from an
    earlier round is staked but not dropped again (BAC-12, CSP-11.1)."""
    lines = [
        WagerResult("a", "box 2", "ante", 100, Outcome.WON, paid=200, house=-100),
        WagerResult("b", "box 10", "ante", 50, Outcome.LOST, house=50),
        WagerResult("a", "box 2", "ante", 30, Outcome.LOST, house=30),
        WagerResult("a", "box 2", "jackpot", 10, Outcome.RETURNED, paid=10, carried_in=True),
        WagerResult("c", "seat 1", "banker", 100, Outcome.WON, paid=195, commission=5, house=-100),
    ]
    facts = settlement_facts(lines)
    assert [
        (x.spot, x.kind, x.wagers, x.staked, x.dropped, x.paid, x.win) for x in facts.lines
    ] == [
        ("box 2", "ante", 2, 130, 130, 200, -70),
        ("box 2", "jackpot", 1, 10, 0, 10, 0),
        ("box 10", "ante", 1, 50, 50, 0, 50),
        ("seat 1", "banker", 1, 100, 100, 195, -95),
    ]
    assert facts.lines[3].commission == 5


def test_a_facts_event_is_stored_by_the_codec_without_changing_older_digests() -> None:
    """A new type (tables.SettlementFacts, version 1): the events recorded before keep their
    bytes and digests (nothing else changed)."""
    facts = SettlementFacts((FactLine("box 1", "ante", 1, 5, 5, 10, 0, 0, 0, 0, 0, -5),))
    data = codec.encode(facts)
    assert data["type"] == FACTS_TYPE and data["v"] == 1
    assert codec.decode(data) == facts
    assert codec.decode(json.loads(codec.canonical_bytes(facts))) == facts


@settings(
    max_examples=3,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # (no shrinking: each example plays rounds)
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**31), rounds=st.integers(1, 3))
def test_every_settlement_of_both_games_records_the_facts_its_replay_gives(
    store: Store, seed: int, rounds: int
) -> None:
    """CSP-9, CSP-10, BAC-11, BAC-17, BAC-18: random rounds of both games; each settled round
    with a wager has one facts event in its chain, equal to the facts of its settlement as
    replaying the round closes it again (a round settled without a wager records none); the
    rows stored with it are its lines; verify holds."""
    if not store.read(lambda tx: tx.tables()):
        casino(store, TABLES)
    play(store, rounds, seed)
    recorded = facts_by_round(store)
    replayed = replayed_facts(store)
    assert {k: v for k, (v, _) in recorded.items()} == replayed
    assert {t for t, _ in replayed} == set(TABLES)  # both games settled rounds

    def rows(tx: Any) -> dict[tuple[str, str], list[Any]]:
        out: dict[tuple[str, str], list[Any]] = {}
        for table_id in TABLES:
            for row in fact_rows(tx, table_id):
                out.setdefault((table_id, row.round_id), []).append(row)
        return out

    stored = store.read(rows)
    for key, (facts, seq) in recorded.items():
        mine = stored.get(key, [])
        assert sorted(mine_lines := [r.line for r in mine], key=repr) == sorted(
            facts.lines, key=repr
        )
        assert mine_lines
        assert all(r.seq == seq and not r.derived for r in mine)
    found = verify_database(store)
    assert found.ok, found.finding


def test_the_report_from_facts_equals_the_report_from_replay(store: Store) -> None:
    """STANDARDS "meters per betting position": the same figures, words and units as when the
    report replayed every round (BAC-15 seats, CSP boxes)."""
    casino(store, TABLES)
    play(store, 6, 5)
    assert_reports_match(store)


# -- verify ------------------------------------------------------------------------------------


def test_verify_finds_a_tampered_fact(store: Store) -> None:
    """A stored fact changed behind the service's back (a position's payout) is a finding at
    its round; so is a fact stored for a round that did not settle."""
    casino(store, TABLES)
    play(store, 2, 9)
    assert verify_database(store).ok
    with store.engine.begin() as conn:
        conn.execute(
            text(
                "UPDATE settlement_facts SET paid = paid + 1 WHERE table_id = 'b1' AND round_id = "
                "(SELECT MIN(round_id) FROM settlement_facts WHERE table_id = 'b1')"
            )
        )
    found = verify_database(store)
    assert not found.ok and found.finding is not None
    assert found.finding.check == "facts" and found.finding.table_id == "b1"
    assert found.finding.key == "operations.verify_facts"
    with store.engine.begin() as conn:
        conn.execute(
            text("UPDATE settlement_facts SET paid = paid - 1 WHERE table_id = 'b1'")
        )  # (every row of b1 shifted: none equals its settlement any more)
    found = verify_database(store)
    assert found.finding is not None and found.finding.check == "facts"


def test_verify_finds_a_fact_of_a_round_that_did_not_settle(store: Store) -> None:
    casino(store, TABLES)
    play(store, 1, 3)
    with store.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO settlement_facts SELECT table_id, 'c1-999', spot, kind, seq, derived, "
                "at, wagers, staked, dropped, paid, commission, contributions, carried, "
                "award_from_meter, award_from_house, house FROM settlement_facts "
                "WHERE table_id = 'c1' AND round_id = "
                "(SELECT MIN(round_id) FROM settlement_facts WHERE table_id = 'c1')"
            )
        )
    found = verify_database(store)
    assert found.finding is not None and found.finding.check == "facts"
    assert found.finding.params["round_id"] == "c1-999"


# -- db upgrade ------------------------------------------------------------------------------


@contextmanager
def no_facts_recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The table service as before schema v10: no game derives facts (nothing recorded)."""
    with monkeypatch.context() as m:
        loaded = GAMES._loaded()
        for name, plugin in list(loaded.items()):
            m.setitem(loaded, name, replace(plugin, facts=lambda event: None))
        yield


def test_db_upgrade_derives_the_facts_of_rounds_settled_before(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A schema-9 database with rounds of both games: the upgrade to 10 stores their facts,
    derived (the old chains untouched, no facts event added), and the report reads the same
    figures as replaying the rounds; rounds played after record their facts in the chain;
    verify holds, and finds a derived fact tampered."""
    with Store.open(database_url) as store:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with store.engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0009")
        casino(store, TABLES)
        with no_facts_recorded(monkeypatch):
            play(store, 4, 21)
        heads = store.read(lambda tx: tx.chain_heads())
        before = {d: store.read(lambda tx, d=d: replayed_positions(tx, d)) for d in days(store)}
        assert store.upgrade() == SCHEMA_VERSION
        assert store.read(lambda tx: tx.chain_heads()) == heads  # no chain rewritten
        assert not facts_by_round(store)
        rows = store.read(lambda tx: [r for t in TABLES for r in fact_rows(tx, t)])
        assert rows and all(r.derived for r in rows)
        for d, figures in before.items():
            assert store.read(lambda tx, d=d: day_positions(tx, d)) == figures
        assert store.run(backfill) == 0  # once only
        found = verify_database(store)
        assert found.ok, found.finding
        play(store, 2, 22)  # after the upgrade: recorded with each settlement
        assert facts_by_round(store)
        assert_reports_match(store)
        assert verify_database(store).ok
        with store.engine.begin() as conn:
            conn.execute(
                text("UPDATE settlement_facts SET house = house + 7 WHERE derived = :yes"),
                {"yes": True},
            )
        found = verify_database(store)
        assert found.finding is not None and found.finding.check == "facts"


def test_a_database_downgraded_and_upgraded_again_keeps_its_facts(database_url: str) -> None:
    """Schema 10 → 9 drops the facts table; upgrading again stores the recorded facts events
    as recorded (not derived) and derives nothing else."""
    with Store.open(database_url) as store:
        store.upgrade()
        casino(store, TABLES)
        play(store, 2, 33)
        first = store.read(lambda tx: [r for t in TABLES for r in fact_rows(tx, t)])
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with store.engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "0009")
        store.upgrade()
        again = store.read(lambda tx: [r for t in TABLES for r in fact_rows(tx, t)])
        assert again == first and not any(r.derived for r in again)
        assert verify_database(store).ok
