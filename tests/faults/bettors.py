"""Concurrent bettors at virtual baccarat tables, for the crash tests of the group commit (no
tests here).

:func:`prepare` makes the casino: tables ``g1`` and ``g2`` (virtual baccarat), the players p1..p7
seated, p7's wallet short. :func:`play` runs ``threads`` bettors at its services — each
places wagers one after the other under keys of its own (every other bettor through
``submit_later``, the table socket's path, its answer told by the committing thread), a
seeded mix of amounts, some too large for p7's wallet — and a cycler that runs the tables'
round cycles (open, close, settle) after every few answers, so that bets are also refused by
the rules between rounds. Every answer is reported as it comes: ``report(key, "ok" |
"refused" | "error", detail)``; a bettor stops at its first error (a crash). :func:`check`
then checks what a restart finds against the answers: every request answered "ok" is in its
table's log with its events where its answer says; no request answered "refused" left
anything; the ledger sums to zero and the database verifies.

``python -m tests.faults.bettors URL THREADS`` plays on the database at URL in a process of its
own (its casino prepared by the caller) and prints each answer as a line ``<verdict> <key>``
(``ok`` lines with the answer's ``first_seq last_seq head``) until it is killed (SIGKILL)."""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from macau_tables import codec
from macau_tables.baccarat import commands as bac
from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.rules import ShoeSettings, WagerKind
from macau_tables.errors import MacauTablesError
from macau_tables.store import Store
from macau_tables.tables import MemoryVault, Submitted, TableService
from macau_tables.tables.audit import verify_database
from tests.tables.support import (
    BANKROLL,
    PLAYERS,
    baccarat_rules,
    casino,
    ledger_total,
    open_round,
    service,
)

TABLES = ("g1", "g2")
SHORT = 700
Report = Callable[[str, str, Any], None]


def prepare(store: Store) -> None:
    """The casino of the bettors (module docstring)."""
    rules = baccarat_rules(shoe=ShoeSettings(decks=8, demo_rounds=0), card_holding=False)
    casino(store, {t: ("baccarat", rules, False) for t in TABLES})
    store.run(lambda tx: tx.withdraw("p7", BANKROLL - SHORT, actor="cashier", reason="test"))


def open_tables(store: Store) -> list[TableService]:
    """A service for each table (a restart recovers what a crash left), its round open."""
    services = [service(store, t, vault=MemoryVault()) for t in TABLES]
    seated = tuple((n, p) for n, p in enumerate(PLAYERS, 1))
    for svc in services:
        if svc.round is None or svc.round.is_over:
            open_round(svc, seated)
    return services


def play(
    services: Sequence[TableService], threads: int, report: Report, *, seed: int = 1
) -> list[threading.Thread]:
    """Start the bettors and the cycler (module docstring); returns their threads (they end
    when a request fails otherwise than by a refusal)."""
    answered = threading.Condition()
    count = [0]
    stopped = threading.Event()

    def answer(key: str, verdict: str, detail: Any) -> None:
        report(key, verdict, detail)
        with answered:
            count[0] += 1
            answered.notify_all()

    def bettor(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        i = 0
        while not stopped.is_set():
            i += 1
            svc = rng.choice(services)
            player = PLAYERS[(n + i) % len(PLAYERS)]
            amount = rng.choice((100, 300, 900)) if player == "p7" else rng.choice((100, 500))
            area = seat(PLAYERS.index(player) + 1)
            wager = bac.PlaceWager(player, area, WagerKind.PLAYER, amount)
            key = f"b{seed}-{n}-{i}"
            try:
                if n % 2:
                    result = _later(svc, wager, key, player)
                else:
                    result = svc.submit(wager, idempotency_key=key, actor=player)
            except MacauTablesError as exc:
                answer(key, "refused", exc.key)
                continue
            except BaseException as exc:  # a crash: this bettor is gone
                stopped.set()
                answer(key, "error", repr(exc))
                return
            answer(key, "ok", result)

    def cycler() -> None:
        seen = 0
        while not stopped.is_set():
            with answered:
                answered.wait_for(lambda s=seen: count[0] >= s + 12 or stopped.is_set())
                seen = count[0]
            for svc in services:
                try:
                    svc.cycle_step()
                except MacauTablesError:
                    continue
                except BaseException:
                    stopped.set()
                    return

    started = [threading.Thread(target=bettor, args=(n,), daemon=True) for n in range(threads)]
    started.append(threading.Thread(target=cycler, daemon=True))
    for t in started:
        t.start()
    return started


def _later(svc: TableService, wager: object, key: str, player: str) -> Submitted:
    """``wager`` through ``submit_later`` (the table socket's path: no thread waits in the
    group commit), its answer awaited here: it comes from the committing thread once durable."""
    told = threading.Event()
    box: list[Submitted | BaseException] = []

    def answered(outcome: Submitted | BaseException) -> None:
        box.append(outcome)
        told.set()

    if not svc.submit_later([wager], idempotency_key=key, actor=player, answered=answered):
        return svc.submit(wager, idempotency_key=key, actor=player)
    told.wait()
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]


def check(store: Store, answers: dict[str, tuple[str, Any]]) -> set[str]:
    """What a restart finds, against the answers (module docstring); returns the keys of the
    requests that committed (answered or not)."""
    ok = {k: d for k, (v, d) in answers.items() if v == "ok"}
    refused = {k for k, (v, _) in answers.items() if v == "refused"}
    records = store.read(lambda tx: {k: tx.idempotency_get(k) for k in answers})
    committed = {k for k, r in records.items() if r is not None}
    assert set(ok) <= committed, sorted(set(ok) - committed)  # nothing acknowledged is lost
    assert not refused & committed, sorted(refused & committed)  # nothing refused is there
    logs = {t: {r.seq: r for r in store.read(lambda tx, t=t: tx.read_events(t))} for t in TABLES}
    for key, given in ok.items():
        stored = codec.decode(records[key].response, expect=Submitted)  # type: ignore[union-attr]
        assert (stored.first_seq, stored.last_seq, stored.head) == given
        assert logs[stored.table_id][stored.last_seq].hash == stored.head
    assert ledger_total(store) == 0
    found = verify_database(store)
    assert found.ok, found.finding
    return committed


def _main(url: str, threads: int) -> None:
    store = Store.open(url)
    services = open_tables(store)
    lock = threading.Lock()

    def report(key: str, verdict: str, detail: Any) -> None:
        if isinstance(detail, Submitted):
            detail = f"{detail.first_seq} {detail.last_seq} {detail.head}"
        with lock:
            sys.stdout.write(f"{verdict} {key} {detail}\n")
            sys.stdout.flush()

    print("ready", flush=True)
    for t in play(services, threads, report):
        t.join()


if __name__ == "__main__":
    _main(sys.argv[1], int(sys.argv[2]))
