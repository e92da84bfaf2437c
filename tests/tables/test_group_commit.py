"""Group commit (macau_tables.tables.group), on SQLite and PostgreSQL: the requests that arrive
while a commit is in flight are committed together, each with its own answer, idempotency
record and events; a refused one refuses only itself; a bet slip stays all-or-nothing; the
same key twice in flight is run once; a group whose table moved on under it is applied again
from what was committed. Wagers at virtual baccarat tables (BAC-13, BAC-15: a seated player
bets on their own seat; a wallet too short refuses the wager)."""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from macau_tables.baccarat import commands as bac
from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.rules import ShoeSettings, WagerKind
from macau_tables.errors import MacauTablesError, StoreError
from macau_tables.store import Store
from macau_tables.tables import Submitted, TableService
from macau_tables.tables.audit import verify_database
from macau_tables.tables.group import SCOPE_ENV, Guard
from macau_tables.tables.storage import read_table
from tests.store.support import RoundTrips
from tests.tables.support import (
    BANKROLL,
    PLAYERS,
    CountingStore,
    baccarat_rules,
    casino,
    grouped,
    ledger_total,
    open_round,
    service,
)

SHORT = 700  # p7's wallet: a wager above it is refused by the ledger
SEATED = tuple((n, p) for n, p in enumerate(PLAYERS, 1))


@pytest.fixture
def one_group(monkeypatch: pytest.MonkeyPatch) -> None:
    """One group commit for every table of the store on PostgreSQL too (as on SQLite; there
    each table has its own by default): the tests of a group that spans tables."""
    monkeypatch.setenv(SCOPE_ENV, "process")


@pytest.fixture
def counted(store: Store) -> Iterator[CountingStore]:
    """The test's store, counting its write transactions (its listeners closed after)."""
    opened = CountingStore(store)
    yield opened
    opened.close()


def _casino(counted: CountingStore, tables: tuple[str, ...]) -> list[TableService]:
    rules = baccarat_rules(shoe=ShoeSettings(decks=8, demo_rounds=0))
    casino(counted, {t: ("baccarat", rules, False) for t in tables})
    counted.run(lambda tx: tx.withdraw("p7", BANKROLL - SHORT, actor="cashier", reason="test"))
    services = [service(counted, t) for t in tables]
    for svc in services:
        open_round(svc, SEATED)
    return services


def _bet(svc: TableService, player: str, amount: int, key: str) -> Callable[[], Submitted]:
    n = PLAYERS.index(player) + 1
    wager = bac.PlaceWager(player, seat(n), WagerKind.PLAYER, amount)
    return lambda: svc.submit(wager, idempotency_key=key, actor=player)


def _wallet(store: Store, player: str) -> int:
    return store.read(lambda tx: tx.wallet_balance(player))


def _check_log(store: Store, services: list[TableService], answers: list[Any]) -> None:
    """Each accepted request's events are in its table's log where its answer says (its own
    seq range, the chain's hash at its end; one answer given twice, to one key, counts once);
    the services' states are the log's; the ledger sums to zero; the database verifies."""
    for svc in services:
        log = {r.seq: r for r in store.read(lambda tx, t=svc.table_id: tx.read_events(t))}
        mine = {a for a in answers if isinstance(a, Submitted) and a.table_id == svc.table_id}
        ranges = sorted((a.first_seq, a.last_seq) for a in mine)
        for (_, last), (first, _) in itertools.pairwise(ranges):
            assert first > last  # no two answers share an event
        for a in mine:
            assert [log[q].type for q in range(a.first_seq, a.last_seq + 1)] == list(a.events)
            assert log[a.last_seq].hash == a.head
        loaded = store.read(lambda tx, t=svc.table_id: read_table(tx, t))
        assert loaded.state == svc.state and loaded.head.seq == max(log)
    assert ledger_total(store) == 0
    found = verify_database(store)
    assert found.ok, found.finding


@pytest.mark.usefixtures("one_group")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_concurrent_bets_at_several_tables_each_get_their_own_answer_in_one_transaction_BAC_13(
    counted: CountingStore, seed: int
) -> None:
    """A seeded mix of wagers at two tables, all arriving while a commit is in flight: one
    transaction commits them all; each caller gets its own answer; p7's wagers that its short
    wallet cannot cover are refused (``ledger.insufficient_funds``) and refuse only
    themselves — the wagers after them, at the same table, are accepted; money is conserved."""
    services = _casino(counted, ("t1", "t2"))
    rng = random.Random(seed)
    plan = []
    for i in range(24):
        svc = rng.choice(services)
        player = rng.choice(PLAYERS)
        amount = rng.choice((100, 300, 500, 900)) if player == "p7" else rng.choice((100, 2000))
        plan.append((svc, player, amount, f"bet-{seed}-{i}"))
    plan.append((services[0], "p7", 5000, f"bet-{seed}-short"))  # surely refused
    plan.append((services[0], "p1", 100, f"bet-{seed}-after"))  # after it, same table
    before = {p: _wallet(counted, p) for p in PLAYERS}
    writes = counted.writes

    answers = grouped(counted, "t1", [_bet(*p) for p in plan])

    assert counted.writes - writes == 2  # the first request alone, then all the others
    spent = dict.fromkeys(PLAYERS, 0)
    for (svc, player, amount, _), answer in zip(plan, answers, strict=True):
        if isinstance(answer, Submitted):
            assert answer.table_id == svc.table_id and answer.events
            spent[player] += amount
        else:
            assert isinstance(answer, MacauTablesError), answer
            assert answer.key == "ledger.insufficient_funds" and player == "p7"
    assert isinstance(answers[-2], MacauTablesError)
    assert isinstance(answers[-1], Submitted)
    assert spent["p7"] <= SHORT
    for p in PLAYERS:
        assert _wallet(counted, p) == before[p] - spent[p]
    _check_log(counted, services, answers)


def test_a_slip_refused_inside_a_group_is_refused_whole_the_others_accepted(
    counted: CountingStore,
) -> None:
    """A bet slip (``submit_all``) whose second wager the wallet cannot cover is refused whole
    inside a group — its first wager is not kept — while the requests around it commit."""
    (svc,) = _casino(counted, ("t1",))
    slip = [
        bac.PlaceWager("p7", seat(7), WagerKind.PLAYER, 500),
        bac.PlaceWager("p7", seat(7), WagerKind.BANKER, 500),  # 1,000 > 700 in all
    ]
    answers = grouped(
        counted,
        "t1",
        [
            _bet(svc, "p1", 100, "g-1"),
            _bet(svc, "p2", 100, "g-2"),
            lambda: svc.submit_all(slip, idempotency_key="g-slip", actor="p7"),
            _bet(svc, "p3", 100, "g-3"),
        ],
    )
    assert [type(a) for a in answers] == [Submitted, Submitted, type(answers[2]), Submitted]
    assert isinstance(answers[2], MacauTablesError)
    assert answers[2].key == "ledger.insufficient_funds"
    assert _wallet(counted, "p7") == SHORT
    assert counted.read(lambda tx: tx.idempotency_get("g-slip")) is None
    _check_log(counted, [svc], answers)


class _Refused(Exception):
    """What the test's guard refuses a request with."""


def test_a_group_checks_its_guards_in_one_call_in_its_transaction_a_refused_one_writes_nothing(
    counted: CountingStore,
) -> None:
    """Requests carrying a guard (a socket's session, ``group.Guard``): the guards of the group
    are checked by ONE call, inside the group's write transaction; the request its guard
    refuses is refused alone, with nothing written (no key, no wager), while those around it —
    one with no guard — commit; a request not through a group (its table's lock held) is
    checked by a read of its own."""
    (svc,) = _casino(counted, ("t1",))
    calls: list[tuple[list[str], bool]] = []

    def check(tx: Any, players: Any) -> list[BaseException | None]:
        calls.append((list(players), not tx.readonly))
        return [_Refused(p) if p == "p2" else None for p in players]

    def guarded(player: str, key: str) -> Callable[[], Submitted]:
        wager = bac.PlaceWager(player, seat(PLAYERS.index(player) + 1), WagerKind.PLAYER, 100)
        return lambda: svc.submit(
            wager, idempotency_key=key, actor=player, guard=Guard(check, player)
        )

    before = _wallet(counted, "p2")
    answers = grouped(
        counted,
        "t1",
        [
            guarded("p1", "k-1"),
            guarded("p2", "k-2"),
            _bet(svc, "p3", 100, "k-3"),
            guarded("p4", "k-4"),
        ],
    )
    assert [type(a) for a in answers] == [Submitted, _Refused, Submitted, Submitted]
    assert calls == [(["p1"], True), (["p2", "p4"], True)]  # the lone first, then the group
    assert _wallet(counted, "p2") == before
    assert counted.read(lambda tx: tx.idempotency_get("k-2")) is None
    _check_log(counted, [svc], answers)
    calls.clear()
    with svc._lock, pytest.raises(_Refused):
        guarded("p2", "k-5")()
    assert calls == [(["p2"], False)]


def test_requests_no_thread_waits_for_are_answered_once_durable_and_refused_alone(
    counted: CountingStore,
) -> None:
    """``submit_later`` (the table socket's commands): requests queued without a thread
    waiting, among callers that wait, are committed in the same group and each answered by a
    call from the committing thread — a committer thread leads the group whose first request
    no thread waits for — only once durable (its key is stored when it is told); the wager
    the wallet cannot cover is refused alone (BAC-13); the single request's path (the table's
    lock held) is declined, with nothing done."""
    (svc,) = _casino(counted, ("t1",))

    def later(player: str, amount: int, key: str) -> Callable[[], Submitted]:
        wager = bac.PlaceWager(player, seat(PLAYERS.index(player) + 1), WagerKind.PLAYER, amount)

        def call() -> Submitted:
            told = threading.Event()
            box: list[tuple[object, bool, str]] = []

            def answered(outcome: object) -> None:
                stored = counted.read(lambda tx: tx.idempotency_get(key)) is not None
                box.append((outcome, stored, threading.current_thread().name))
                told.set()

            queued = svc.submit_later([wager], idempotency_key=key, actor=player, answered=answered)
            assert queued and told.wait(60)
            outcome, stored, thread = box[0]
            assert thread.startswith("macau-tables-commit"), thread
            if isinstance(outcome, BaseException):
                assert not stored
                raise outcome
            assert stored and isinstance(outcome, Submitted)
            return outcome

        return call

    writes = counted.writes
    answers = grouped(
        counted,
        "t1",
        [
            _bet(svc, "p1", 100, "l-0"),
            later("p2", 100, "l-1"),
            later("p7", 5000, "l-2"),
            later("p3", 100, "l-3"),
            _bet(svc, "p4", 100, "l-4"),
        ],
    )
    assert counted.writes - writes == 2  # the first alone, then the four together
    kinds = [type(a) for a in answers]
    assert kinds == [Submitted, Submitted, type(answers[2]), Submitted, Submitted]
    assert isinstance(answers[2], MacauTablesError)
    assert answers[2].key == "ledger.insufficient_funds"
    assert _wallet(counted, "p7") == SHORT
    _check_log(counted, [svc], answers)
    wager = bac.PlaceWager("p5", seat(5), WagerKind.PLAYER, 100)
    with svc._lock:
        taken = svc.submit_later([wager], idempotency_key="l-5", actor="p5", answered=print)
    assert not taken and counted.read(lambda tx: tx.idempotency_get("l-5")) is None


def test_the_same_key_twice_in_flight_is_run_once_and_both_get_its_answer(
    counted: CountingStore,
) -> None:
    """Two requests under one key in the same group: one execution, the same answer twice; a
    third under that key with another request is refused (``tables.idempotency_mismatch``)."""
    (svc,) = _casino(counted, ("t1",))
    wager = _bet(svc, "p1", 300, "same")
    other = _bet(svc, "p1", 400, "same")
    answers = grouped(counted, "t1", [_bet(svc, "p2", 100, "x-1"), wager, wager, other])
    assert isinstance(answers[1], Submitted) and answers[1] == answers[2]
    assert isinstance(answers[3], MacauTablesError)
    assert answers[3].key == "tables.idempotency_mismatch"
    assert _wallet(counted, "p1") == BANKROLL - 300
    assert wager() == answers[1]  # and once more, after the commit
    _check_log(counted, [svc], answers)


def test_a_group_whose_table_moved_on_is_applied_again_from_what_was_committed(
    counted: CountingStore,
) -> None:
    """While a request's transaction waits, another writer (a second service of the table, as
    another process would) commits a wager: the transaction finds the log moved on, the table
    is read again from what was committed and the request applied again after that wager;
    the group queued behind it goes on from there."""
    (svc,) = _casino(counted, ("t1",))
    other = service(counted, "t1")  # the same owner: it takes over the lease
    moved: list[Submitted] = []

    def meanwhile() -> None:
        with other._lock:  # the other writer's own transaction, not through this group
            wager = bac.PlaceWager("p3", seat(3), WagerKind.BANKER, 200)
            moved.append(other.submit(wager, idempotency_key="m-other", actor="p3"))

    calls = [_bet(svc, p, 100, f"m-{p}") for p in ("p1", "p2", "p4")]
    answers = grouped(counted, "t1", calls, meanwhile)
    assert all(isinstance(a, Submitted) for a in answers), answers
    assert min(a.first_seq for a in answers) > moved[0].last_seq
    assert _wallet(counted, "p3") == BANKROLL - 200
    _check_log(counted, [svc], [*answers, *moved])


@pytest.mark.usefixtures("one_group")
def test_a_group_whose_transaction_fails_with_a_chain_race_is_run_again(
    counted: CountingStore,
) -> None:
    """A chain race injected into a group's transaction (after all its work, two tables):
    nothing of it committed, the tables are read again and the group run again — every caller
    answered once, each wager taken once."""
    services = _casino(counted, ("t1", "t2"))

    def race() -> None:
        raise StoreError("store.chain_race")

    counted.fail, counted.fail_skip = race, 1  # the held first request passes, the group fails
    calls = [_bet(services[i % 2], p, 100, f"r-{p}") for i, p in enumerate(PLAYERS[:6])]
    writes = counted.writes
    answers = grouped(counted, "t1", calls)
    assert all(isinstance(a, Submitted) for a in answers), answers
    assert counted.writes - writes == 2 and counted.fail is None
    for p in PLAYERS[:6]:
        assert _wallet(counted, p) == BANKROLL - 100
    _check_log(counted, services, answers)


def test_a_group_on_postgresql_reads_with_its_begin_and_writes_with_its_commit(
    pg_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL: six wagers in one group take two round trips — the heads and keys read
    with the ``BEGIN``, every request's events, idempotency record and ledger batch sent with
    the ``COMMIT`` (one ``macau_post``) — and each gets its own answer (BAC-13)."""
    counted = CountingStore(pg_store)  # PostgreSQL only: SQLite has no round trips
    try:
        (svc,) = _casino(counted, ("t1",))
        trips = RoundTrips(monkeypatch)
        answers = grouped(counted, "t1", [_bet(svc, p, 100, f"rt-{p}") for p in PLAYERS[:6]])
        assert all(isinstance(a, Submitted) for a in answers), answers
        writes = [q for q in trips.sent if b"INSERT INTO events" in _bytes(q)]
        reads = [q for q in trips.sent if b"FROM idempotency" in _bytes(q)]
        assert len(writes) == len(reads) == 2  # the first request alone, then the group
        assert all(_bytes(q).endswith(b"COMMIT") for q in writes)
        assert all(_bytes(q).startswith(b"BEGIN") for q in reads)
        assert sum(_bytes(q).count(b"macau_post(") for q in trips.sent) == 2
        _check_log(counted, [svc], answers)
    finally:
        counted.close()


def test_a_wager_refused_by_the_rules_inside_a_group_refuses_only_itself_in_one_commit_BAC_13(
    counted: CountingStore,
) -> None:
    """A wager below the table's minimum inside a group is refused by the rules before its
    writes: the others commit in the same one transaction (no second run of the group)."""
    (svc,) = _casino(counted, ("t1",))
    writes = counted.writes
    calls = [_bet(svc, "p1", 100, "v-1"), _bet(svc, "p2", 50, "v-2"), _bet(svc, "p3", 100, "v-3")]
    answers = grouped(counted, "t1", [_bet(svc, "p4", 100, "v-0"), *calls])
    assert counted.writes - writes == 2  # the first request alone, then the group
    assert [type(a) for a in answers] == [Submitted, Submitted, type(answers[2]), Submitted]
    assert isinstance(answers[2], MacauTablesError)
    assert _wallet(counted, "p2") == BANKROLL
    assert counted.read(lambda tx: tx.idempotency_get("v-2")) is None
    _check_log(counted, [svc], answers)


def _bytes(query: bytes | str) -> bytes:
    return query if isinstance(query, bytes) else query.encode()
