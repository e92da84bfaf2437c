"""kill -9 at random moments (issue 9, item 8; SPEC "Faults", CSP-11.4, BAC-10).

Two driver processes (:mod:`tests.faults.driver`) play a virtual Caribbean Stud table and a
virtual baccarat table, each on its game's linked meter, through the table service; each is
killed with SIGKILL at its own random moment (while it starts and recovers, between two
commands, or inside a store transaction), then the tables are opened again — the service's
start-up recovery — and every invariant of :mod:`tests.faults.invariants` is checked: the
ledger sums to zero, every round settled exactly once or voided per CSP-11.4 / BAC-10, the
balances a replay of the log, no jackpot wager lost, the store's verification passes, and the
state loaded from the database equals the recovered service's.

10 kills per database in ``make test``; 100 per database in ``make test-slow``. When every
kill of a run but the last cycle's has landed while its driver started (a busy machine), the
last cycle's moment counts from the end of its driver's first round (an event it writes), not
from its start: each run plays rounds and kills a table at play, whatever the machine's load.
The random choices come from one seed, printed on failure (``MACAU_TABLES_FAULT_SEED`` replays
it).
"""

from __future__ import annotations

import os
import random
import secrets
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from macau_tables.store import Store
from macau_tables.tables.storage import read_table
from tests.tables.support import baccarat_rules, caribbean_rules, casino

from .harness import Driver, Zygote, restart
from .invariants import Summary, check_database

TABLES = {
    "c1": ("caribbean", caribbean_rules(), False),
    "b1": ("baccarat", baccarat_rules(), False),
}
KILL_WINDOW = (0.0, 1.2)  # seconds after "go": start-up and recovery take the first ~0.2 s


def _seed() -> int:
    return int(os.environ.get("MACAU_TABLES_FAULT_SEED") or secrets.randbits(32))


def _check_restarted(store: Store, services: dict[str, Any], full: bool) -> Summary | None:
    """Every invariant after a restart (``full``: also the replay of the whole log)."""
    summary = check_database(store) if full else None
    for table_id, svc in services.items():
        loaded = store.read(lambda tx, t=table_id: read_table(tx, t))
        assert loaded.state == svc.state, f"{table_id}: the state loaded is not the service's"
        if svc.state.round_open:  # resumed at start-up (CSP-11.4, BAC-10), never left as is
            assert summary is None or summary.tables[table_id].open_round is not None
        if summary is not None:
            waiting = Counter(
                (w.player, w.amount)
                for w in svc.state.carried()
                if str(getattr(w, "kind", "jackpot")) == "jackpot"
            )
            if not svc.state.round_open:
                assert summary.tables[table_id].jackpot_waiting == waiting, table_id
    return summary


@pytest.fixture(scope="module")
def zygote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Zygote]:
    """One warm interpreter forking the drivers of every test here (each database's): an
    interpreter's start and imports are the larger part of a new zygote's cost."""
    with Zygote(tmp_path_factory.mktemp("drivers")) as started:
        yield started


def kill_and_restart(
    store: Store, zygote: Zygote, kills: int, *, seed: int, full_every: int = 1
) -> Summary:
    """Play the tables of :data:`TABLES` in driver processes forked by ``zygote`` and kill
    them ``kills`` times in all (two per cycle), restarting and checking after each cycle;
    returns the last summary."""
    casino(store, TABLES)
    rng = random.Random(seed)
    url = store.raw_url.render_as_string(hide_password=False)
    landed: Counter[str] = Counter()
    done = cycle = 0
    summary: Summary | None = None
    drivers: list[Driver] = []
    try:
        while done < kills:
            cycle += 1
            drivers = [zygote.fork(url, t, rng.randrange(2**31)) for t in TABLES]
            moments = sorted((rng.uniform(*KILL_WINDOW), i) for i in range(len(drivers)))
            last = done + len(drivers) >= kills
            for delay, i in moments:
                d = drivers[i]
                went = d.went
                if last and landed["startup"] == landed.total():
                    # Every kill so far landed while its driver started (a busy machine
                    # starts slowly): this one's moment counts from the end of its
                    # driver's first round (the "round 1" it writes), so that a run has
                    # rounds and kills a table at play too.
                    went = d.reached("round 1")
                time.sleep(max(0.0, went + delay - time.monotonic()))
                landed["startup" if d.kill() == "startup" else "playing"] += 1
            done += len(drivers)
            services = {t: restart(store, t) for t in TABLES}
            try:
                full = cycle % full_every == 0 or done >= kills
                summary = _check_restarted(store, services, full) or summary
            finally:
                for svc in services.values():
                    svc.close()
    except BaseException as exc:
        exc.add_note(f"fault seed {seed} (MACAU_TABLES_FAULT_SEED={seed} replays it)")
        raise
    finally:
        for d in drivers:
            if d.alive():
                d.kill()
    assert summary is not None
    print(
        f"\n{kills} kills ({dict(landed)}), {summary.total('rounds')} rounds: "
        f"{summary.total('recovered_void')} voided at start-up, "
        f"{summary.total('recovered_resume')} resumed, "
        f"{summary.total('jackpot_placed')} jackpot wagers, "
        f"{summary.total('jackpot_carried_in')} carried in; {summary.events} events"
    )
    return summary


def test_ten_kills_at_random_moments_leave_every_invariant_CSP_11_4_BAC_10(
    store: Store, zygote: Zygote
) -> None:
    summary = kill_and_restart(store, zygote, 10, seed=_seed())
    assert summary.total("rounds") > 0


@pytest.mark.slow
def test_a_hundred_kills_at_random_moments_leave_every_invariant_CSP_11_4_BAC_10(
    store: Store, zygote: Zygote
) -> None:
    summary = kill_and_restart(store, zygote, 100, seed=_seed(), full_every=5)
    assert summary.total("recovered_void") > 0
