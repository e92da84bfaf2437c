"""A process playing one table through the table service, to be killed (SIGKILL) at a random
moment.

``python -m tests.faults.driver`` is a *zygote*: it imports everything once, prints ``ready``,
then reads requests ``URL TABLE_ID SEED PLAYERS OUTFILE`` from its standard input, one a line;
for each it forks a driver and answers the driver's pid. A driver (:func:`drive`) writes its
progress to ``OUTFILE``, opens the table — the service's start-up recovery runs here, so a kill
may land in it — writes ``started`` and lets the bots (:class:`macau_tables.tables.Bots`) play
until it is killed, writing ``round <n>`` after each round. Forking a warm interpreter makes a
driver start in milliseconds instead of the second and a half an import takes, so many kills
fit in ``make test``; each driver is still a whole process of its own, killed with SIGKILL.

Drivers run as a fixed owner (:func:`owner`), so a restart takes the table over at once, as an
operator restarting the same service would.
"""

from __future__ import annotations

import os
import signal
import sys
import traceback

from macau_tables.store import Store
from macau_tables.tables import Bots, TableService

PLAYERS = tuple(f"p{n}" for n in range(1, 8))


def owner(table_id: str) -> str:
    """The lease owner of every process driving ``table_id`` in these tests."""
    return f"faults:{table_id}"


def finish_open_round(bots: Bots) -> None:
    """A round resumed at start-up waits for its players: a Caribbean round's decisions
    (CSP-11.4, CSP-6), a baccarat round's card holders' reveals (BAC-10, BAC-16): the bots give
    them before the next round (``Bots.play_round`` then plays a round still betting through)."""
    for _ in range(16):
        r = bots.service.round
        if r is None or r.is_over:
            return
        answers = bots.policy.answers(bots.random, r, r.expected_next().due)
        if not answers:
            return
        bots._answer(answers)


def drive(url: str, table_id: str, seed: int, players: int, rounds: int | None = None) -> None:
    """Open ``table_id`` on ``url`` and play ``rounds`` rounds (``None``: until killed),
    printing ``started`` and ``round <n>``."""
    store = Store.open(url)
    service = TableService(store, table_id, owner=owner(table_id))
    print("started", flush=True)
    bots = Bots(service, PLAYERS[:players], seed=seed)
    finish_open_round(bots)
    n = 0
    while rounds is None or n < rounds:
        bots.play_round()
        n += 1
        print(f"round {n}", flush=True)
    service.close()
    store.close()
    print("done", flush=True)


def _child(url: str, table_id: str, seed: int, players: int, outfile: str) -> None:
    fd = os.open(outfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stdout = os.fdopen(1, "w", buffering=1)
    sys.stderr = sys.stdout
    code = 0
    try:
        drive(url, table_id, seed, players)
    except BaseException:
        traceback.print_exc()
        print("error", flush=True)
        code = 1
    os._exit(code)


def zygote() -> int:
    """Serve fork requests on standard input until it closes (see the module docstring)."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the killed drivers
    print("ready", flush=True)
    for line in sys.stdin:
        url, table_id, seed, players, outfile = line.split()
        pid = os.fork()
        if pid == 0:
            _child(url, table_id, int(seed), int(players), outfile)
        print(pid, flush=True)
    return 0


if __name__ == "__main__":
    done = zygote()
    sys.stdout.flush()
    os._exit(done)  # nothing to tear down: the interpreter's finalisation took 0.6 s
