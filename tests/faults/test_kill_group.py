"""A crash during a group commit, with concurrent bettors, on SQLite and PostgreSQL: after the
restart every request whose caller got an answer is in the log, and none in the log was
refused to its caller (issue 21: group commit; SPEC "Faults").

In ``make test`` the crash is made in process: the group's transaction is stopped while the
bettors queue behind it, then the store "dies" — inside the next group's transaction, after
all its work and before its COMMIT, or right after its COMMIT, before any caller is answered
— and every later write of the process fails; the services are abandoned unclosed, as a
SIGKILL leaves them, and the tables opened again by new services. In ``make test-slow`` the
bettors run in a process of their own, killed with SIGKILL while they bet."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import Any

import pytest

from macau_tables.store import Store
from macau_tables.tables import Submitted
from macau_tables.tables.group import SCOPE_ENV, committer
from tests.tables.support import CountingStore

from .bettors import TABLES, check, open_tables, play, prepare
from .harness import ROOT

THREADS = 8


class Crash(BaseException):
    """The process dies here (nothing after it runs)."""


class Dying(CountingStore):
    """A store whose process dies at a chosen point of a write transaction (``die_in``:
    inside it, after its work, before its COMMIT; ``die_after``: right after its COMMIT);
    after that every write fails."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self.dead = False
        self.die_after = False

    def run(self, fn: Any, **kw: Any) -> Any:
        if self.dead and not kw.get("readonly"):
            raise Crash
        result = super().run(fn, **kw)
        if self.die_after and not kw.get("readonly"):
            self.die_after, self.dead = False, True
            raise Crash
        return result

    def die(self) -> None:
        self.dead = True
        raise Crash


@pytest.mark.parametrize("point", ["before-commit", "after-commit"])
def test_a_crash_during_a_group_commit_loses_no_answered_request_and_keeps_no_refused_one(
    store: Store, point: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SCOPE_ENV, "process")  # one group for both tables (PostgreSQL too)
    prepare(store)
    dying = Dying(store)
    try:
        _crash(store, dying, point)
    finally:
        dying.dead = False
        dying.close()  # (after the checks: its meter listeners)


def _crash(store: Store, dying: Dying, point: str) -> None:
    services = open_tables(dying)
    answers: dict[str, tuple[str, Any]] = {}

    def report(key: str, verdict: str, detail: Any) -> None:
        if isinstance(detail, Submitted):
            detail = (detail.first_seq, detail.last_seq, detail.head)
        answers[key] = (verdict, detail)

    entered = dying.hold()
    threads = play(services, THREADS, report)
    assert entered.wait(60)
    # the bettors queue behind the held transaction (the held group may hold more than the
    # first when a committer thread leads it): the next group is theirs, and dies
    assert committer(dying, TABLES[0]).wait_waiting(THREADS, 60)
    if point == "before-commit":
        dying.fail, dying.fail_skip = dying.die, 1
    else:
        dying.fail_skip = 1
        dying.fail = lambda: setattr(dying, "die_after", True)
    dying.release()
    for t in threads:
        t.join(120)
        assert not t.is_alive()
    errors = {k for k, (v, _) in answers.items() if v == "error"}
    assert len(errors) >= THREADS - 1  # the group's callers: none was answered
    del services  # abandoned, never closed: a SIGKILL
    open_tables(store)  # the restart: recovery of the rounds left open
    committed = check(store, answers)
    if point == "before-commit":
        assert not errors & committed
    else:
        assert errors & committed  # committed, never acknowledged: allowed, not lost


@pytest.mark.slow
def test_a_process_killed_while_bettors_bet_loses_no_answered_request(store: Store) -> None:
    """The same with a real SIGKILL: the bettors' process is killed while its group commits
    go on (after 60 answers, with 8 bettors always queued behind the commit in flight)."""
    prepare(store)
    url = store.raw_url.render_as_string(hide_password=False)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join((str(ROOT / "src"), str(ROOT))))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.faults.bettors", url, str(THREADS)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    answers: dict[str, tuple[str, Any]] = {}
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        while len(answers) < 60:
            line = proc.stdout.readline()
            assert line.endswith("\n"), "the bettors stopped"
            verdict, key, *detail = line.split()
            if verdict == "ok":
                answers[key] = (verdict, (int(detail[0]), int(detail[1]), detail[2]))
            else:
                answers[key] = (verdict, detail)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    open_tables(store)  # the restart
    check(store, answers)
