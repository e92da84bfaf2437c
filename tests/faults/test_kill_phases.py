"""A crash in every phase of both games, recovered as the law says (SPEC "Faults", CSP-11.4,
BAC-10), on SQLite and PostgreSQL.

Deterministic, unlike :mod:`tests.faults.test_kill`: the table is brought to one phase
(:mod:`tests.faults.phases`) — a virtual deal or a settlement is cut short where a crash would
cut it (the automatic step stops there, so what is committed is exactly what a killed process
leaves) — then the process is gone: in ``make test`` its service is abandoned without being
closed, as a SIGKILL leaves it, and the table is opened again by a new service with an empty
vault (the killed process's memory, the virtual orders sealed in it, is gone; a case marked
``kept`` keeps it, as a same-process restart would); in ``make test-slow`` a process of its
own is brought to the phase and killed with SIGKILL. The restart must:

* resume the round where the law lets it go on — betting, a deal the dealer goes on entering
  (live) or that can be completed from a surviving order, decisions or reveals due, a
  settlement due — and play it to its end;
* void it only on its ground when a virtual order was lost before the round's last card, the
  void naming the ground (a lost shoe), no supervisor, and the recovery record as evidence;
* leave the money whole (the ledger sums to zero, every wager returned or settled once) and
  the database verifying (chains, evidence, re-derived settlements), the state loaded from the
  database equal to the recovered service's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import Any

import pytest

from macau_tables.store import Store
from macau_tables.tables import MemoryVault
from macau_tables.tables.audit import verify_database
from macau_tables.tables.storage import read_table
from macau_tables.voids import Ground
from tests.tables.support import ledger_total, service

from .harness import ROOT
from .phases import CASES, Stop, _bet, _cards, bring_to, step


@pytest.mark.parametrize(
    ("game", "live", "phase", "stop", "action"),
    CASES,
    ids=[f"{g}-{'live' if lv else 'virtual'}-{p}" for g, lv, p, _, _ in CASES],
)
def test_a_crash_in_every_phase_is_recovered_as_the_law_says_CSP_11_4_BAC_10(
    store: Store,
    game: str,
    live: bool,
    phase: str,
    stop: Stop,
    action: str,
) -> None:
    svc = bring_to(store, game, live, phase)
    before = svc.round
    assert not before.is_over
    head = store.read(lambda tx: tx.chain_head("t1")).seq
    vault = svc.vault if phase.endswith("kept") else MemoryVault()
    del svc  # abandoned, never closed: a SIGKILL
    check_recovery(store, game, before, head, service(store, "t1", vault=vault), action)


KILLED = [c for c in CASES if not c[2].endswith("kept")]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "live", "phase", "stop", "action"),
    KILLED,
    ids=[f"{g}-{'live' if lv else 'virtual'}-{p}" for g, lv, p, _, _ in KILLED],
)
def test_a_process_killed_in_every_phase_is_recovered_as_the_law_says_CSP_11_4_BAC_10(
    store: Store, game: str, live: bool, phase: str, stop: Any, action: str
) -> None:
    """The same, the table brought to the phase by a process of its own killed with SIGKILL."""
    url = store.raw_url.render_as_string(hide_password=False)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join((str(ROOT / "src"), str(ROOT))))
    mode = "live" if live else "virtual"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.faults.phases", url, game, mode, phase],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == f"at {phase}"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    head = store.read(lambda tx: tx.chain_head("t1")).seq
    loaded = store.read(lambda tx: read_table(tx, "t1"))
    before = loaded.state.round
    assert before is not None and not before.is_over
    check_recovery(store, game, before, head, service(store, "t1", vault=MemoryVault()), action)


def check_recovery(
    store: Store, game: str, before: Any, head: int, again: Any, action: str
) -> None:
    """What the law says of the round ``before`` found open, after the restart ``again``."""
    if action == "by the cards":
        action = "resume" if len(before.cards) >= 4 and before.due_slot() is None else "void"
    tail = store.read(lambda tx: tx.read_events("t1", after=head))
    assert tail and tail[0].type == "tables.RoundRecovered", [r.type for r in tail]
    recovered = tail[0].decode(lambda _: again.state.rules)
    assert recovered.action == action and recovered.rule == (
        "CSP-11.4" if game == "caribbean" else "BAC-10"
    )
    r = again.round
    if action == "void":
        assert r.is_over
        void = next(x for x in tail if x.type.endswith("RoundVoided"))
        basis = void.decode(lambda _: again.state.rules).ground
        assert basis.ground is Ground.SHOE_LOST and basis.supervisor is None
        assert (basis.evidence.seq, basis.evidence.hash) == (tail[0].seq, tail[0].hash)
    else:
        assert _cards(r) >= _cards(before) and r.round_id == before.round_id
        for _ in range(40):  # the round goes on to its end, from where it stood
            if not step(again, game):
                break
        assert again.round.is_over and again.round.settlement is not None
        assert not getattr(again.round.settlement, "voided", False)
    assert ledger_total(store) == 0
    loaded = store.read(lambda tx: read_table(tx, "t1"))
    assert loaded.state == again.state
    found = verify_database(store)
    assert found.ok, found.finding
    # and the table plays on
    _bet(again, game)
    for _ in range(40):
        if not step(again, game):
            break
    assert again.round.is_over, again.round.expected_next()
    assert ledger_total(store) == 0
