"""Group commit: the table commands that arrive while a commit is in flight are committed
together, in the next transaction (one ``COMMIT``, one ``fsync``, for the group).

A caller (:meth:`.service.TableService.submit`, ``submit_all``) hands its request to the
:class:`GroupCommit` of its table's scope and waits. When no commit is in flight it becomes the
*leader*: it takes every request queued (its own among them), takes the lock of every table
concerned (in table-id order), and runs ONE store transaction in which each request, in the
order they came, is applied to its table's state as the request before it left it. A request
refused refuses only itself, and the next one of its table goes on from the last request
accepted: refused by the rules (``RuleViolation``, ``TableError``), it has written nothing
yet; refused once its writes began — by the ledger (``ledger.insufficient_funds``: its ledger
batch is written at the end of its writes), its key found used meanwhile — its writes are
rolled back alone: on SQLite they run in a savepoint of their own (:meth:`Tx.savepoint`).
On PostgreSQL a group is two round trips whatever its size: the heads of its tables' logs and
its keys are read with the ``BEGIN`` (:meth:`Tx.prefetch_requests`), and every request's
writes — events, idempotency record, ledger batch (one ``macau_post`` for the group: the
balances checked after each entry in turn) — wait for the commit and go with the ``COMMIT``
(:meth:`Tx.defer_writes`). A request refused before any of that was sent drops its unsent
writes and refuses itself alone; a refusal by the commit (a wallet too short, a key stored
meanwhile by another process) is not known to be one request's: the transaction is rolled
back and the group run again *carefully*, each request's writes sent at its end (one round
trip each), so that a refusal there is its own — the transaction is then rolled back and the
group run again without it (a ``SAVEPOINT`` and its ``RELEASE`` would cost two round trips a
request; such refusals are rare). Each request writes its own events (its own seq range in
its table's hash chain), postings and idempotency record. After the ``COMMIT`` the tables' states
move on (request by request, in order: vault, timers, status), the views are published once
per table, and every caller is woken with its own result or refusal: none before its
transaction is durable, none for a transaction that did not commit. Requests that arrive
meanwhile queue for the next group; the first of them leads it.

A caller that cannot wait (an event loop: the table socket's commands) queues its request
with :meth:`GroupCommit.submit_later` and is called back once it is answered; when no group is
in flight, one of the process's committer threads leads the next, and a group led by such a
thread hands the lead on to a waiting caller, or to a committer thread when none waits.

A request may carry a :class:`Guard`: what it needs to stand, checked in the transaction that
commits it, before it runs (a table socket's command: its session). The guards of a group are
checked together, one call per kind of guard (one statement for all the group's sessions); a
request its guard refuses writes nothing and refuses only itself.

A group of one request is the single request's transaction, without a savepoint (exactly as
the table's lock-holding path runs it). A second request under a key already in the group
finds the first's idempotency record in the same transaction: the first's answer, or
``tables.idempotency_mismatch``; one queued behind a group in flight finds it committed.

A transaction that fails as a whole commits nothing and every request of it is answered with
the failure — except a table's log found moved on (another writer: the chain's head not the
state's, a conflict or race for a seq): the tables are read again from what was committed
(:meth:`~.service.TableService.reload`) and the whole group applied again (three attempts,
then ``tables.stale``). A serialization failure or a lost connection is run again by the store
itself, from the same committed states.

Scope (:func:`committer`): SQLite has one writer, so one group commit per store spans every
table of the process; on PostgreSQL each table has its own (tables commit in parallel on their
own connections, each table's bets grouped) — ``MACAU_TABLES_GROUP_SCOPE=process`` makes it
one per store there too (measured in ``docs/benchmarks.md``: with two round trips a group,
one group per process takes less CPU a bet but commits fewer bets a second, its tables no
longer in parallel; per table stays the default).

With its ``group_cycle_steps`` setting, the server's clock gives the round cycle's steps due
at all its tables to one group at once
(:meth:`GroupCommit.submit_many` on the process's group commit, ``committer(store, None)``):
the openings of many virtual tables due at one tick commit in one transaction, each a request
of its own (its key, events, answer), re-checked when its group reaches it (a step no longer
due — the cycle paused meanwhile — writes nothing). The table's other work — ``tick`` called
on one service, its time-outs, ``cycle_step``, ``wake``, recovery, ``reconfigure``, the meter
link, a held award's release — runs under the table's lock on the single-request path, as
before: a group that needs the table waits for it, and a request made by a thread that holds
the table's lock (a time-out issued by ``tick``) takes that path too.
A thread must not submit to one table while it holds another table's lock (the leader takes
the locks of a group's tables).
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from sqlalchemy.exc import DBAPIError

from ..errors import StoreError
from ..store import Store, Tx, TxKind
from .model import Submitted, TableError

if TYPE_CHECKING:
    from .engine import Batch, TableState
    from .service import TableService, _Done

__all__ = ["MAX_GROUP", "SCOPE_ENV", "GroupCommit", "Guard", "committer"]

MAX_GROUP: Final = 256
"""At most this many requests in one transaction (the rest lead the next group)."""

SCOPE_ENV: Final = "MACAU_TABLES_GROUP_SCOPE"
"""PostgreSQL: ``table`` (default) — a group commit per table; ``process`` — one per store."""

_RETRIED: Final = ("store.chain_conflict", "store.chain_race")

_log = logging.getLogger("macau_tables.tables")


@dataclass(frozen=True, slots=True)
class Guard:
    """What a caller's request needs to stand, checked in the very transaction that commits it
    (a table socket's command: its session, signed out or disabled meanwhile, refuses it). The
    guards of a group that share one ``check`` are checked by ONE call, ``check(tx, values)``:
    for each value, in order, the exception that refuses its request, or ``None``. A request
    refused so writes nothing and refuses only itself."""

    check: Callable[[Tx, Sequence[Any]], Sequence[BaseException | None]]
    value: Any


def guard_refusals(tx: Tx, guards: Sequence[Guard | None]) -> list[BaseException | None]:
    """What refuses each of ``guards`` (``None``: no guard, or it stands), one ``check`` call
    per distinct check."""
    refusals: list[BaseException | None] = [None] * len(guards)
    by_check: dict[Callable[..., Sequence[BaseException | None]], list[tuple[int, Any]]] = {}
    for i, guard in enumerate(guards):
        if guard is not None:
            by_check.setdefault(guard.check, []).append((i, guard.value))
    for check, asked in by_check.items():
        found = check(tx, [value for _, value in asked])
        for (i, _), refusal in zip(asked, found, strict=True):
            refusals[i] = refusal
    return refusals


@dataclass(eq=False)
class Request:
    """One caller's request, queued for a group: the table, what to run on its batch, its
    key, request digest, actor and kind; then its answer."""

    service: TableService
    step: Callable[[Batch], object]
    key: str
    request: str
    actor: str
    kind: TxKind
    wake: threading.Event = field(default_factory=threading.Event)
    lead: bool = False
    result: Submitted | None = None
    fresh: bool = False
    error: BaseException | None = None
    note: Any = None
    """What the caller keeps with the request for its answer (a cycle step: its action)."""
    now: datetime | None = None
    """The time the request's batch runs at (``None``: the table's clock when it runs). The
    clock's steps of one tick run at the tick's time: tables stepped together get the same
    deadlines, so that their next steps fall due at one tick again."""
    guard: Guard | None = None
    """Checked in the group's transaction before the request runs (:class:`Guard`)."""
    done: Callable[[Request], None] | None = None
    """A request no thread waits for (:meth:`GroupCommit.submit_later`): called once it is
    answered, by the thread that committed its group."""

    def answer(self) -> tuple[Submitted, bool]:
        """The result and whether this request committed it (``False``: a replay)."""
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result, self.fresh


class _Restart(Exception):
    """A request of the group refused once its writes began, without a savepoint to roll
    back to (PostgreSQL): the transaction is rolled back, the request answered with
    ``error``, the rest of the group run again without it."""

    def __init__(self, index: int, error: Exception) -> None:
        super().__init__(str(error))
        self.index = index
        self.error = error


def _optimistic(tx: Tx, index: int) -> Callable[[], AbstractContextManager[None]]:
    """The writes of request ``index`` of a group without savepoints, run *carefully*: they
    are sent at their end (one round trip: :meth:`Tx.flush_writes`), so a refusal raised there
    (the ledger's, a key stored meanwhile) or before is this request's; it restarts the group
    without it (:class:`_Restart`)."""

    @contextmanager
    def writes() -> Iterator[None]:
        try:
            yield
            tx.flush_writes()
        except (DBAPIError, _Stale):
            raise
        except StoreError as exc:
            if exc.key in _RETRIED:
                raise
            raise _Restart(index, exc) from exc
        except Exception as exc:
            raise _Restart(index, exc) from exc

    return writes


def _deferred(tx: Tx, index: int) -> Callable[[], AbstractContextManager[None]]:
    """The writes of request ``index`` of a group left for the commit (PostgreSQL: the whole
    group's writes go with its ``COMMIT``, in one round trip): a refusal raised before any of
    them was sent (by the rules, the service, the ledger's own checks) drops this request's
    unsent writes and refuses it alone; one raised once something was sent — by a statement
    that had to send the writes before it — is not known to be this request's: the group is
    run again carefully (:class:`_Careful`), or without this request when the sending itself
    went through (:class:`_Restart`)."""

    @contextmanager
    def writes() -> Iterator[None]:
        mark = tx.mark()
        try:
            yield
        except (DBAPIError, _Stale):
            raise
        except Exception as exc:
            if isinstance(exc, StoreError) and exc.key in _RETRIED:
                raise
            if tx.flush_failed is not None:
                raise _Careful from exc
            if tx.flushes != mark.flushes:
                raise _Restart(index, exc) from exc
            tx.rewind(mark)
            raise

    return writes


class _Careful(Exception):
    """A group's writes left for the commit were refused (by the ledger, a key stored
    meanwhile) and which request's is not known: the transaction is rolled back and the
    group run again with each request's writes sent at its end (:func:`_optimistic`)."""


class _Stale(Exception):
    """A table's log moved on under the group (another writer): read it again, run again."""

    def __init__(self, service: TableService) -> None:
        super().__init__(service.table_id)
        self.service = service


@dataclass(slots=True)
class Work:
    """A table's state inside a group transaction: after its last accepted request."""

    state: TableState
    seq: int
    snap_seq: int


class GroupCommit:
    """The group commit of one scope (module docstring): a queue and its leader."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.savepoints = store.dialect == "sqlite"
        """Whether a request's writes run in a savepoint (SQLite: cheap, no round trip) or,
        without one, a refusal after its writes began runs the group again without it
        (PostgreSQL: a ``SAVEPOINT`` and its ``RELEASE`` are two round trips a request, and
        refusals after the writes began — a wallet too short — are rare)."""
        self._mutex = threading.Lock()
        self._queue: list[Request] = []
        self._leading = False
        self._leader: int | None = None  # the thread running a group's transaction
        self._flying = 0  # requests in the group in flight
        self._arrived = threading.Condition(self._mutex)

    def leads(self) -> bool:
        """Whether the calling thread is running a group (a callback of its commit)."""
        return self._leader == threading.get_ident()

    def wait_queued(self, n: int, timeout: float) -> bool:
        """Wait until at least ``n`` requests are queued for the next group (``False``: not
        within ``timeout`` seconds). For tests and diagnostics."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self._queue) >= n, timeout)

    def wait_waiting(self, n: int, timeout: float) -> bool:
        """Wait until at least ``n`` requests are queued or in the group in flight (``False``:
        not within ``timeout`` seconds). For tests and diagnostics: a request queued while a
        committer thread was on its way to lead may join the first group rather than the
        next."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self._queue) + self._flying >= n, timeout)

    def submit(self, req: Request) -> tuple[Submitted, bool]:
        """Queue ``req``, lead a group or wait for the one that takes it; its answer."""
        self._wait(self._queued([req]), req)
        return req.answer()

    def submit_later(self, req: Request, done: Callable[[Request], None]) -> None:
        """Queue ``req`` without waiting: ``done(req)`` is called once it is answered (its
        :meth:`Request.answer`), from the thread that committed its group. When no group is in
        flight, one of the process's committer threads leads the next (:func:`_committers`):
        a request costs no thread of its own, a group one hand-over."""
        req.done = done
        if self._queued([req]):
            _committers().submit(self._lead_later)

    def _lead_later(self) -> None:
        try:
            self._lead()
        except BaseException:  # _lead answers every request of its group before it raises
            _log.exception("a group commit failed")

    def submit_many(self, reqs: Sequence[Request]) -> None:
        """Queue every request of ``reqs`` at once, in order (one group when they fit in
        :data:`MAX_GROUP` with what was queued before them), lead or wait; returns once each
        is answered (its :meth:`Request.answer`). The clock's steps of many tables, taken in
        one transaction (the server's ``Runtime.tick``)."""
        lead = self._queued(reqs)
        for req in reqs:
            self._wait(lead, req)
            lead = False

    def _queued(self, reqs: Sequence[Request]) -> bool:
        """Queue ``reqs``; whether the caller leads the next group (no group was in flight)."""
        with self._mutex:
            self._queue.extend(reqs)
            lead = not self._leading
            self._leading = True
            self._arrived.notify_all()
        return lead

    def _wait(self, lead: bool, req: Request) -> None:
        """Until ``req`` is answered: lead the next group when the caller leads (``lead``) or
        is handed the lead (``req`` the first queued when a group ended)."""
        while req.result is None and req.error is None:
            if not lead:
                req.wake.wait()
                if not req.lead:
                    continue
                req.lead = False
            lead = False
            self._lead()

    def _lead(self) -> None:
        """Run the next group (the first :data:`MAX_GROUP` queued), then hand the lead on."""
        with self._mutex:
            group, self._queue = self._queue[:MAX_GROUP], self._queue[MAX_GROUP:]
            self._flying = len(group)
        try:
            self._leader = threading.get_ident()
            self._run(group)
        finally:
            self._leader = None
            with self._mutex:
                self._flying = 0
                if self._queue:  # the first queued meanwhile leads the next group
                    nxt = self._queue[0]
                    if nxt.done is None:
                        nxt.lead = True
                        nxt.wake.set()
                    else:  # no thread waits for it: a committer thread leads
                        _committers().submit(self._lead_later)
                else:
                    self._leading = False
            for other in group:
                if other.done is None:
                    other.wake.set()
                    continue
                try:
                    other.done(other)
                except Exception:  # one caller's failure must not leave the others unanswered
                    _log.exception("answering a request failed")

    def _run(self, group: list[Request]) -> None:
        services = sorted({r.service for r in group}, key=lambda s: s.table_id)
        locks = [s._lock for s in services]
        taken = 0
        try:
            for lock in locks:
                lock.acquire()
                taken += 1
            self._attempts(group, services)
        except BaseException as exc:  # whatever is unanswered learns why
            for r in group:
                if r.result is None and r.error is None:
                    r.error = exc
        finally:
            for lock in reversed(locks[:taken]):
                lock.release()

    def _attempts(self, group: list[Request], services: list[TableService]) -> None:
        pending = list(group)
        attempts = 0
        careful = False  # PostgreSQL: the group's writes go with its commit until refused
        while pending and attempts < 3:
            try:
                outcomes = self.store.run(
                    functools.partial(self._transact, group=pending, careful=careful)
                )
            except _Careful:
                careful = True
                continue
            except _Restart as restart:  # refused after its writes began: run the rest again
                refused = pending.pop(restart.index)
                refused.error = restart.error
                continue
            except _Stale as stale:
                attempts += 1
                stale.service.reload()
                continue
            except StoreError as exc:
                if exc.key not in _RETRIED:
                    if not careful and not self.savepoints and len(pending) > 1:
                        careful = True  # refused by the commit: whose refusal, not known
                        continue
                    raise
                attempts += 1
                for s in services:  # which table raced is not known: all read again
                    s.reload()
                continue
            self._committed(pending, services, outcomes)
            return
        for r in pending:
            r.error = TableError("tables.stale", table=r.service.table_id)

    def _transact(
        self, tx: Tx, group: list[Request], careful: bool = False
    ) -> list[_Done | BaseException]:
        work: dict[TableService, Work] = {}
        outcomes: list[_Done | BaseException] = []
        alone = len(group) == 1
        if not self.savepoints:  # PostgreSQL: the heads and keys in one round trip, with BEGIN
            tx.defer_writes()
            tx.prefetch_requests(
                sorted({r.service.table_id for r in group}), [r.key for r in group]
            )
        refusals = guard_refusals(tx, [r.guard for r in group])
        for i, r in enumerate(group):
            refused = refusals[i]
            if refused is not None:  # its guard refuses it: nothing of it is written
                outcomes.append(refused)
                continue
            svc = r.service
            base = work.get(svc) or Work(svc.state, svc._seq, svc._snap_seq)
            if alone:  # the single request's transaction, as the lock-holding path runs it
                done = svc._transact(tx, r.step, r.key, r.request, r.actor, r.kind, base, now=r.now)
            else:
                writes: Callable[[], AbstractContextManager[None]]
                if self.savepoints:
                    writes = tx.savepoint
                else:
                    writes = _optimistic(tx, i) if careful else _deferred(tx, i)
                try:
                    done = svc._transact(
                        tx, r.step, r.key, r.request, r.actor, r.kind, base, writes, now=r.now
                    )
                except (DBAPIError, _Stale, _Restart, _Careful):
                    raise
                except Exception as exc:
                    if isinstance(exc, StoreError) and exc.key in _RETRIED:
                        raise
                    if tx.flush_failed is not None:  # an earlier request's writes, refused
                        raise _Careful from exc
                    outcomes.append(exc)  # refused: this request alone
                    continue
            if done is None:
                raise _Stale(svc)
            if done.batch is not None:
                snapped = done.result.last_seq if done.batch.snapshotted else base.snap_seq
                work[svc] = Work(done.batch.state, done.result.last_seq, snapped)
            outcomes.append(done)
        return outcomes

    def _committed(
        self,
        group: list[Request],
        services: list[TableService],
        outcomes: list[_Done | BaseException],
    ) -> None:
        """The group committed: each table's state moves on request by request; the views of
        each table changed go out once; then the answers."""
        changed: set[TableService] = set()
        for r, outcome in zip(group, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                r.error = outcome
                continue
            batch = outcome.batch
            if batch is not None and r.service._committed(batch, outcome.result, publish=False):
                changed.add(r.service)
            r.result, r.fresh = outcome.result, bool(outcome.batch and outcome.batch.records)
        for s in services:
            s._lease.renew(s.clock.now())
            if s in changed:
                s._publish()


_COMMITTERS: Final = 16
"""The process's committer threads (:meth:`GroupCommit.submit_later`): groups led at once."""
_pool: ThreadPoolExecutor | None = None


def _committers() -> ThreadPoolExecutor:
    """The threads that lead the groups of requests no caller waits for."""
    global _pool
    with _registry_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(_COMMITTERS, thread_name_prefix="macau-tables-commit")
        return _pool


def _forget_committers() -> None:
    """In a forked child: the parent's committer threads are not there (a pool of its own)."""
    global _pool
    _pool = None


os.register_at_fork(after_in_child=_forget_committers)


_registry: weakref.WeakKeyDictionary[Store, dict[str | None, GroupCommit]] = (
    weakref.WeakKeyDictionary()
)
_registry_lock = threading.Lock()


def committer(store: Store, table_id: str | None) -> GroupCommit:
    """The group commit ``table_id``'s requests go through on ``store`` (module docstring);
    ``None``: the process's, for requests to many tables at once (the clock's steps)."""
    per_table = store.dialect != "sqlite" and os.environ.get(SCOPE_ENV, "table") != "process"
    scope = table_id if per_table else None
    with _registry_lock:
        scopes = _registry.setdefault(store, {})
        found = scopes.get(scope)
        if found is None:
            found = scopes[scope] = GroupCommit(store)
        return found
