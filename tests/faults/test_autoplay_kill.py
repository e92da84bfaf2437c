"""kill -9 of the real ``macau-tables autoplay`` (issue 9, items 7 and 8), on SQLite and
PostgreSQL: a demonstration casino (``casino init``), ``autoplay`` killed at a random moment,
then ``autoplay`` run again — another process, another owner: it takes the dead process's
table over, its start-up recovery resolves the round left open (CSP-11.4 / BAC-10), it plays on
— and every invariant of :mod:`tests.faults.invariants` holds, ``verify`` included.

In ``make test-slow`` only (each ``macau-tables`` process spends two seconds importing; the
many kills of ``make test`` are those of :mod:`tests.faults.test_kill`, whose drivers fork
from a warm interpreter): one kill per database (Caribbean Stud on SQLite, baccarat on
PostgreSQL), then five per table and database.
"""

from __future__ import annotations

import os
import random
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from macau_tables.store import Store

from .invariants import check_database

CLI = str(Path(sys.executable).with_name("macau-tables"))
DEMO_TABLES = ("csp-1", "bac-1")  # the virtual tables of `casino init`
KILL_WINDOW = (0.3, 2.0)  # seconds after the first round was played


def _cli(*args: str, url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, *args, "--database", url], capture_output=True, text=True, timeout=300
    )


def _kill_autoplay(url: str, table: str, rng: random.Random) -> None:
    """Start ``autoplay`` on ``table`` and SIGKILL it at a random moment of its play."""
    proc = subprocess.Popen(
        [
            CLI,
            "autoplay",
            "--table",
            table,
            "--rounds",
            "1000000",
            "--players",
            "4",
            "--seed",
            str(rng.randrange(2**31)),
            "--database",
            url,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, COLUMNS="80"),
    )
    store = Store.open(url)
    try:  # wait until it plays (its log grows), then give it a random while more
        deadline = time.monotonic() + 60
        start = store.read(lambda tx: tx.chain_head(table)).seq
        while store.read(lambda tx: tx.chain_head(table)).seq == start:
            assert proc.poll() is None, f"autoplay ended: {proc.returncode}"
            assert time.monotonic() < deadline, "autoplay did not start playing"
            time.sleep(0.05)
    finally:
        store.close()
    time.sleep(rng.uniform(*KILL_WINDOW))
    assert proc.poll() is None, f"autoplay ended: {proc.returncode}"
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL


def kill_autoplay(url: str, kills: int, seed: int, tables: tuple[str, ...] = DEMO_TABLES) -> None:
    """``casino init``, then ``kills`` cycles on each of ``tables``: autoplay killed, autoplay
    again (recovery, two rounds), every invariant."""
    init = _cli("casino", "init", url=url)
    assert init.returncode == 0, init.stderr
    rng = random.Random(seed)
    try:
        for _ in range(kills):
            for table in tables:
                _kill_autoplay(url, table, rng)
                again = _cli("autoplay", "--table", table, "--rounds", "2", url=url)
                assert again.returncode == 0, again.stdout + again.stderr
                assert "2 rounds played" in again.stdout
                store = Store.open(url)
                try:
                    summary = check_database(store)
                finally:
                    store.close()
                assert summary.tables[table].open_round is None
    except BaseException as exc:
        exc.add_note(f"fault seed {seed} (MACAU_TABLES_FAULT_SEED={seed} replays it)")
        raise


def _seed() -> int:
    return int(os.environ.get("MACAU_TABLES_FAULT_SEED") or secrets.randbits(32))


@pytest.mark.slow
def test_a_killed_autoplay_is_taken_over_and_recovered_by_the_next_CSP_11_4_BAC_10(
    store: Store,
) -> None:
    table = "csp-1" if store.dialect == "sqlite" else "bac-1"  # one game per backend: quick
    kill_autoplay(store.raw_url.render_as_string(hide_password=False), 1, _seed(), (table,))


@pytest.mark.slow
def test_killed_autoplays_on_every_table_recover_CSP_11_4_BAC_10(store: Store) -> None:
    kill_autoplay(store.raw_url.render_as_string(hide_password=False), 5, _seed())
