"""The casino in this process: the store, the tables it serves, the clock's ticks.

``Runtime(settings, store, clock=…)`` is what every router reaches through
:func:`get_runtime` (the dependency :func:`runtime_dependency`):

* :meth:`Runtime.start` opens a :class:`~macau_tables.tables.service.TableService` for every
  table this process is configured to serve (``settings.tables``, default all) whose lease it
  can take — the service's constructor resolves a round left open by the law (CSP-11.4,
  BAC-10). A table another process holds is *elsewhere*: it is tried again at every tick and
  taken over once its holder's lease ran out (or at once when the holder was a process of this
  host that no longer exists), recovered by the law as at any start.
* :meth:`Runtime.service` ``(table_id)`` is the table's service, or a refusal: an unknown table
  (``server.table_unknown``, 404), a table served by another process
  (``server.table_elsewhere``, 409).
* The tick thread (every ``settings.tick_seconds``; bounded, it stops on :meth:`stop`) calls
  :meth:`Runtime.tick`: each service's ``tick()`` — the decision time-out (CSP-6.4), the card
  holding time-out (BAC-16), a settlement that waited for the meter, the lease's renewal — and
  the take-over of tables whose holder is gone. The thread reads the tables and their leases
  again at every tick only while a table this process is configured to serve is not served
  here (its take-over waits for them); otherwise every :data:`REFRESH_EVERY_SECONDS` (a new
  table). A
  table whose lease was lost (another process took it) is closed here and becomes *elsewhere*.
  About once an hour the tick also prunes the idempotency records older than
  ``settings.idempotency_days`` (:meth:`Runtime.prune_idempotency`).
* :meth:`Runtime.subscribe_meters` ``(callback(meter_id, amount))``: every committed change of
  a meter's amount, from this process or (PostgreSQL ``LISTEN/NOTIFY``) any other; the runtime
  keeps the latest amount of every meter (:meth:`Runtime.meters`, the ``/metrics`` gauge).
* :meth:`Runtime.stop` stops the ticks, closes every service (its lease released) and the
  meters' listener. Open rounds stay as they are in the store — every request commits on its
  own, so nothing is half-written — and the next holder of the table resolves them by the law.

The runtime counts what the tables did (:class:`Counters`: commands accepted, refused by key,
rounds settled) for ``/metrics``: its services are :class:`CountedService`, a
:class:`TableService` whose ``submit`` counts.
"""

from __future__ import annotations

import logging
import secrets
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, Final, Protocol

from fastapi import Depends
from starlette.requests import HTTPConnection

from ..errors import MacauTablesError
from ..store import SCHEMA_VERSION, Store, TableRecord, users_ops
from ..tables import cycle
from ..tables.clock import Clock, SystemClock
from ..tables.group import Guard, Request, committer
from ..tables.links import dead_on_this_host, default_owner, renew_together
from ..tables.model import OpenRound, Submitted
from ..tables.service import CycleMoved, TableService
from ..tables.signing import ArchiveKey, load_key
from .principal import UserRole
from .settings import Settings

__all__ = [
    "CountedService",
    "Counters",
    "FirstStart",
    "MeterListener",
    "Runtime",
    "RuntimeDep",
    "demo_users",
    "get_runtime",
    "prepare",
    "runtime_dependency",
]

log = logging.getLogger("macau_tables.server")

PRUNE_EVERY_SECONDS: Final = 3600.0
"""How often the tick prunes old idempotency records (:meth:`Runtime.prune_idempotency`)."""
PRUNE_BATCH: Final = 10_000
"""The most idempotency records deleted by one transaction."""
REFRESH_EVERY_SECONDS: Final = 2.0
"""How often the tick thread reads the casino's tables and their leases again while this
process serves every table it is configured to (a table created since is served within this;
a lease lost is found at its next renewal): :meth:`Runtime._tick_loop`."""


class MeterListener(Protocol):
    """A subscription to meter changes; ``close()`` ends it."""

    def close(self) -> None: ...


class Counters:
    """What this process's tables did, for ``/metrics`` (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.accepted: Counter[tuple[str, str]] = Counter()  # (table, command)
        self.refused: Counter[tuple[str, str]] = Counter()  # (table, key)
        self.settled: Counter[str] = Counter()  # table
        self.events: Counter[tuple[str, str]] = Counter()  # (table, event)

    def accept(self, table_id: str, commands: Sequence[object], result: Submitted) -> None:
        with self._lock:
            for command in commands:
                self.accepted[(table_id, type(command).__name__)] += 1
            for event in result.events:
                self.events[(table_id, event)] += 1
            if result.phase == "settled" and result.first_seq <= result.last_seq:
                self.settled[table_id] += 1

    def refuse(self, table_id: str, key: str) -> None:
        with self._lock:
            self.refused[(table_id, key)] += 1

    def snapshot(self) -> dict[str, dict[Any, int]]:
        """A copy of every counter."""
        with self._lock:
            return {
                "accepted": dict(self.accepted),
                "refused": dict(self.refused),
                "settled": dict(self.settled),
                "events": dict(self.events),
            }


class CountedService(TableService):
    """A :class:`TableService` that counts its accepted and refused commands (a request
    replayed with its idempotency key is counted once: it records nothing)."""

    def __init__(self, *args: Any, counters: Counters | None = None, **kwargs: Any) -> None:
        self.counters = counters if counters is not None else Counters()
        super().__init__(*args, **kwargs)

    def submit(
        self, command: object, *, idempotency_key: str, actor: str, guard: Guard | None = None
    ) -> Submitted:
        return self._counted(
            (command,),
            lambda: super(CountedService, self).submit(
                command, idempotency_key=idempotency_key, actor=actor, guard=guard
            ),
        )

    def submit_all(
        self,
        commands: Sequence[object],
        *,
        idempotency_key: str,
        actor: str,
        guard: Guard | None = None,
    ) -> Submitted:
        commands = tuple(commands)
        return self._counted(
            commands,
            lambda: super(CountedService, self).submit_all(
                commands, idempotency_key=idempotency_key, actor=actor, guard=guard
            ),
        )

    def submit_later(
        self,
        commands: Sequence[object],
        *,
        answered: Callable[[Submitted | BaseException], None],
        **options: Any,
    ) -> bool:
        def counted(outcome: Submitted | BaseException) -> None:
            if isinstance(outcome, MacauTablesError):
                self.counters.refuse(self.table_id, outcome.key)
            answered(outcome)

        try:
            return super().submit_later(commands, answered=counted, **options)
        except MacauTablesError as exc:
            self.counters.refuse(self.table_id, exc.key)
            raise

    def _cycle_done(
        self, action: cycle.Action, close: object | None, result: Submitted, fresh: bool
    ) -> None:
        """The round cycle's step, counted as the command it issued (``OpenRound``, the game's
        ``CloseBetting``; a countdown started again issues none)."""
        issued: tuple[object, ...] = ()
        if action is cycle.Action.OPEN:
            issued = (OpenRound(),)
        elif action is cycle.Action.CLOSE and close is not None and result.phase != "betting":
            issued = (close,)
        if fresh:
            self.counters.accept(self.table_id, issued, result)

    def _counted(self, commands: Sequence[object], run: Callable[[], Submitted]) -> Submitted:
        # Not under the table's lock: concurrent requests are committed together (.group).
        try:
            return run()
        except MacauTablesError as exc:
            self.counters.refuse(self.table_id, exc.key)
            raise

    def _accepted(self, commands: Sequence[object], result: Submitted) -> None:
        self.counters.accept(self.table_id, commands, result)


class Runtime:
    """The casino in this process (module docstring).

    ``owner`` names the lease holder: by default the process (``"<host>:<pid>:serve"``), so
    two runtimes of one process are the same holder; a test simulating another process gives
    another owner. ``service_factory(store, table_id, clock=, owner=, lease_seconds=,
    hold_awards_from=)`` makes the services (default :class:`CountedService`). With
    ``settings.workers`` > 1 the process is worker number ``worker`` of ``serve --workers``:
    it takes its share of the tables (:meth:`_within_share`)."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        *,
        clock: Clock | None = None,
        owner: str | None = None,
        service_factory: Callable[..., TableService] | None = None,
        worker: int = 0,
    ) -> None:
        self.settings = settings
        self.worker = worker
        """This process's number among ``settings.workers`` (``serve --workers``), from 0."""
        self.store = store
        self.clock: Clock = clock or SystemClock()
        self.owner = owner or default_owner("serve")
        self.counters = Counters()
        self.archive_key: ArchiveKey | None = (
            None if settings.audit_sign_key is None else load_key(Path(settings.audit_sign_key))
        )
        """The key that signs the audit archives handed out (``settings.audit_sign_key``)."""
        self._factory = service_factory
        self._lock = threading.RLock()
        self._services: dict[str, TableService] = {}
        # table -> why it is not served here: the refusal's key and params
        self._elsewhere: dict[str, tuple[str, dict[str, Any]]] = {}
        self._known: set[str] = set()
        self._held: set[str] = set()  # tables whose lease another process holds now
        self._holders: dict[str, str] = {}  # table -> its lease's owner (another process's)
        self._unserved_since: dict[str, float] = {}  # table -> first seen served by none
        self._refreshed = 0.0  # when the tables were last read (monotonic)
        self._pruned: float | None = None  # when idempotency records were last pruned (monotonic)
        self._meters: dict[str, int] = {}
        self._meter_callbacks: list[Callable[[str, int], None]] = []
        self._meter_listener: MeterListener | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._switch_before: float | None = None
        self.started = False

    # -- life --------------------------------------------------------------------------------

    def start(self) -> None:
        """Serve the configured tables (those whose lease this process gets), listen to the
        meters and start the tick thread (unless ``settings.tick_seconds`` is 0)."""
        with self._lock:
            if self.started:
                return
            self._stop.clear()
            if self.settings.switch_interval_ms > 0:  # process-wide: given back at stop
                self._switch_before = sys.getswitchinterval()
                sys.setswitchinterval(self.settings.switch_interval_ms / 1000)
            self._meters = {m.meter_id: m.amount for m in self.store.read(lambda tx: tx.meters())}
            self._meter_listener = self.store.listen_meters(self._on_meter)
            self._refresh_tables()
            for missing in sorted(set(self.settings.tables or ()) - self._known):
                log.warning("table %s is configured but the casino has no such table", missing)
            self._take_tables()
            self.started = True
            if self.settings.tick_seconds > 0:
                self._thread = threading.Thread(
                    target=self._tick_loop, name="macau-tables-tick", daemon=True
                )
                self._thread.start()

    def stop(self) -> None:
        """Stop the ticks, close every service (leases released) and the meter listener.
        Idempotent. Open rounds are left to recovery by the law (module docstring)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=max(5.0, 4 * self.settings.tick_seconds))
        self._thread = None
        with self._lock:
            for table_id, service in sorted(self._services.items()):
                try:
                    service.close()
                except Exception:  # a failing close must not keep the others open
                    log.exception("table %s: close failed", table_id)
            self._services.clear()
            if self._meter_listener is not None:
                self._meter_listener.close()
                self._meter_listener = None
            if self._switch_before is not None:
                sys.setswitchinterval(self._switch_before)
                self._switch_before = None
            self.started = False

    def __enter__(self) -> Runtime:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- tables --------------------------------------------------------------------------------

    def service(self, table_id: str) -> TableService:
        """The service of ``table_id``; refuses an unknown table (``server.table_unknown``)
        and one served by another process (``server.table_elsewhere``)."""
        with self._lock:
            found = self._services.get(table_id)
            if found is not None:
                return found
            known = table_id in self._known
        if not known:  # a table created since the last look
            self._refresh_if_stale()
        with self._lock:
            if table_id not in self._known:
                raise MacauTablesError("server.table_unknown", table=table_id)
            raise MacauTablesError("server.table_elsewhere", table=table_id)

    def served(self, table_id: str) -> TableService | None:
        """The service of ``table_id`` when this process serves it (never reads the store:
        ``None`` otherwise — :meth:`service` says why)."""
        with self._lock:
            return self._services.get(table_id)

    def table_ids(self) -> list[str]:
        """The tables this process serves now, sorted."""
        with self._lock:
            return sorted(self._services)

    def known_table_ids(self) -> list[str]:
        """Every table of the casino (served here or elsewhere), sorted."""
        with self._lock:
            return sorted(self._known)

    def elsewhere(self) -> dict[str, str]:
        """The configured tables not served here now, with why (``tables.leased``: another
        process holds the lease)."""
        with self._lock:
            return {t: key for t, (key, _) in self._elsewhere.items()}

    def not_served(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """:meth:`elsewhere` with each refusal's parameters: ``{table: (key, params)}`` (what a
        page needs to say why, e.g. ``tables.program_changed`` and the files changed)."""
        with self._lock:
            return {t: (key, dict(params)) for t, (key, params) in self._elsewhere.items()}

    def _not_served(self, table_id: str, key: str, params: dict[str, Any] | None = None) -> None:
        """Record why ``table_id`` is not served here (the runtime's lock is held)."""
        self._elsewhere[table_id] = (key, dict(params or {}))

    def _refresh_tables(self) -> None:
        records = self.store.read(lambda tx: tx.tables())  # outside the lock: requests go on
        with self._lock:
            self._known = {t.table_id for t in records}
            self._held = {t.table_id for t in records if self._held_elsewhere(t)}
            self._holders = {
                t.table_id: t.lease_owner
                for t in records
                if t.table_id in self._held and t.lease_owner is not None
            }
            self._refreshed = time.monotonic()

    def _held_elsewhere(self, record: TableRecord) -> bool:
        """Whether another owner's lease of the table still runs (and that owner is not a dead
        process of this host): trying to open the table would only load it to be refused."""
        owner, until = record.lease_owner, record.lease_until
        if owner is None or owner == self.owner or until is None or dead_on_this_host(owner):
            return False
        if until.tzinfo is None:
            until = until.replace(tzinfo=UTC)
        return until > self.store.clock()

    def _take_tables(self) -> None:
        """Open a service for every configured table not served yet whose lease is free. A
        table is loaded (and a round it left open resolved by the law) outside the runtime's
        lock: the other tables' requests go on meanwhile."""
        with self._lock:
            wanted = [
                t
                for t in sorted(self._known)
                if t not in self._services and self.settings.serves(t)
            ]
            for table_id in (t for t in wanted if t in self._held):
                self._not_served(table_id, "tables.leased")
            wanted = self._within_share([t for t in wanted if t not in self._held])
        served: list[TableService] = []
        for table_id in wanted:
            try:
                service = self._open(table_id)
            except MacauTablesError as exc:
                with self._lock:
                    before = self._elsewhere.get(table_id)
                    if before is None or before[0] != exc.key:
                        log.info("table %s not served here: %s", table_id, exc.message)
                    self._not_served(table_id, exc.key, exc.params)
                continue
            with self._lock:
                if self._stop.is_set():  # stopping: give it back at once
                    service.close()
                    continue
                self._services[table_id] = service
                taken = self._elsewhere.pop(table_id, None) is not None
            served.append(service)
            log.info("table %s %s", table_id, "taken over" if taken else "served")
        if self.settings.spread_openings:
            self._spread(served)

    def _spread(self, served: list[TableService]) -> None:
        """Of the tables just ``served``, those whose next round is due at once (virtual tables
        never opened, or whose result pause ran out while nobody served them) open one after
        another, evenly over a round's cycle in table order (``settings.spread_openings``): the
        first at once, the k-th of n ``k/n`` of its cycle later
        (:meth:`~.tables.TableService.hold_openings`)."""
        due = [s for s in served if s.opening_due()]
        if len(due) < 2:
            return
        now = self.clock.now()
        for k, service in enumerate(due[1:], start=1):
            later = timedelta(seconds=k * service.cycle_seconds() / len(due))
            service.hold_openings(now + later)

    def _within_share(self, free: list[str]) -> list[str]:
        """Of the ``free`` tables (configured, not served here, no other lease running), those
        to try now (the runtime's lock is held). One process (``settings.workers`` 1): all of
        them. One of several workers: while it serves fewer than its share (the configured
        tables divided by ``workers``, rounded up), starting at its own place in the sorted
        list (``worker``: the workers do not all reach for the same tables first); beyond its
        share, only a table no process has taken for ``lease_seconds`` (its holder died, or a
        worker never started) — so that the tables spread evenly when the workers start, and
        none stays unserved when one of them is gone."""
        workers = self.settings.workers
        if workers <= 1:
            return free
        now = time.monotonic()
        for table_id in list(self._unserved_since):
            if table_id not in free:
                del self._unserved_since[table_id]
        for table_id in free:
            self._unserved_since.setdefault(table_id, now)
        configured = sorted(t for t in self._known if self.settings.serves(t))
        share = -(-len(configured) // workers)
        start = (self.worker * share) % max(1, len(configured))
        order = {t: (i - start) % len(configured) for i, t in enumerate(configured)}
        room = share - len(self._services)
        chosen: list[str] = []
        for table_id in sorted(free, key=lambda t: order.get(t, 0)):
            if room > 0:
                chosen.append(table_id)
                room -= 1
            elif now - self._unserved_since[table_id] >= self.settings.lease_seconds:
                chosen.append(table_id)
        return chosen

    def holder(self, table_id: str) -> str | None:
        """The owner of the lease another process holds on ``table_id`` (as last read from the
        store, at most a tick ago), ``None`` when this process serves it or none does."""
        with self._lock:
            if table_id in self._services:
                return None
            return self._holders.get(table_id)

    def holder_now(self, table_id: str) -> str | None:
        """:meth:`holder`, and when no holder is known (this process has not read the leases
        since another took the table: a worker just started, its tick busy loading its own
        share), the leases read again first (:meth:`_refresh_if_stale`) — so that a request
        reaching the wrong worker is forwarded, not refused. Blocking (a store read at most
        once a second): not on the event loop."""
        if self.holder(table_id) is None and not self.serves_now(table_id):
            self._refresh_if_stale()
        return self.holder(table_id)

    def _refresh_if_stale(self) -> None:
        """Read the tables and their leases again when the last read is over a second old
        (what a request for a table this process does not know asks: at most once a second,
        whatever the number of such requests)."""
        with self._lock:
            stale = time.monotonic() - self._refreshed > 1.0
        if stale:
            self._refresh_tables()

    def serves_now(self, table_id: str) -> bool:
        """Whether this process serves ``table_id`` now (no store read)."""
        with self._lock:
            return table_id in self._services

    def _open(self, table_id: str) -> TableService:
        common: dict[str, Any] = {
            "clock": self.clock,
            "owner": self.owner,
            "lease_seconds": self.settings.lease_seconds,
            "hold_awards_from": self.settings.jackpot_supervisor_threshold,
        }
        if self._factory is not None:
            return self._factory(self.store, table_id, **common)
        return CountedService(self.store, table_id, counters=self.counters, **common)

    # -- the clock -------------------------------------------------------------------------

    def tick(self, now: datetime | None = None, *, refresh: bool = True) -> list[Submitted]:
        """The clock's work once: every service's ``tick`` (time-outs CSP-6.4, BAC-16; the
        lease), then (``refresh``) the tables and leases read again and the take-over of
        configured tables not served here. Returns what the services issued. A service that
        fails its tick is logged; one that lost its lease is closed and becomes *elsewhere*.
        The tick thread refreshes only when :meth:`_refresh_due`."""
        done: list[Submitted] = []
        with self._lock:
            services = list(self._services.items())
        now = now or self.clock.now()  # one time for the tick: steps taken together stay so
        try:  # the leases of every table served here renewed together (one write), when due
            renew_together([service.lease for _, service in services], now)
        except MacauTablesError as exc:  # each table's own renewal, in its tick, tries again
            log.warning("leases not renewed together: %s", exc.message)
        steps: list[Request] = []
        defer = steps if self.settings.group_cycle_steps else None
        for table_id, service in services:
            self._ticked(table_id, service, lambda s: done.extend(s.tick(now, defer=defer)))
        if steps:
            # (group_cycle_steps) The round cycle's steps due now at every table, in one
            # transaction (a group of the group commit: one COMMIT for the openings of many
            # tables, whose players then bet at once); then each table stepped is ticked again
            # (a step due after it).
            committer(self.store, None).submit_many(steps)
            for req in steps:
                service = req.service
                table_id = service.table_id

                def answered(s: TableService, req: Request = req) -> None:
                    try:
                        done.append(s.cycle_answered(req))
                    except CycleMoved:
                        return
                    done.extend(s.tick(now))

                self._ticked(table_id, service, answered)
        if not self._stop.is_set():
            try:
                if refresh:
                    self._refresh_tables()
                    self._take_tables()
            except MacauTablesError as exc:
                log.warning("tables not refreshed: %s", exc.message)
            if self._pruned is None or time.monotonic() - self._pruned >= PRUNE_EVERY_SECONDS:
                self._pruned = time.monotonic()
                try:
                    self.prune_idempotency()
                except MacauTablesError as exc:
                    log.warning("idempotency records not pruned: %s", exc.message)
        return done

    def _ticked(
        self, table_id: str, service: TableService, work: Callable[[TableService], None]
    ) -> None:
        """Run ``work`` (a part of :meth:`tick`) on ``service``: a refusal is logged; a lease
        lost closes the service (it becomes *elsewhere*)."""
        try:
            work(service)
        except MacauTablesError as exc:
            if exc.key == "tables.leased":
                self._lost(table_id, service)
            else:
                log.warning("table %s: tick refused: %s", table_id, exc.message)
        except Exception:
            log.exception("table %s: tick failed", table_id)

    def _refresh_due(self) -> bool:
        """Whether the tick thread's next tick reads the tables and their leases again: while
        a known table this process is configured to serve is not served here (a take-over
        waits for it: every tick, as ever), else once :data:`REFRESH_EVERY_SECONDS` passed
        since the last read — not the whole catalogue at every tick for nothing."""
        with self._lock:
            waiting = any(t not in self._services and self.settings.serves(t) for t in self._known)
            return waiting or time.monotonic() - self._refreshed >= REFRESH_EVERY_SECONDS

    def prune_idempotency(self) -> int:
        """Delete the idempotency records older than ``settings.idempotency_days`` by the
        store's clock (``0``: none), in transactions of at most :data:`PRUNE_BATCH` records;
        returns how many. Every server process on the database may do it: the same records go.
        A retry of a pruned key runs as a new command (the retention is days; clients retry
        within seconds)."""
        days = self.settings.idempotency_days
        if days <= 0:
            return 0
        age = timedelta(days=days)
        total = 0
        while True:
            gone = self.store.run(
                lambda tx: tx.idempotency_prune(tx.now() - age, limit=PRUNE_BATCH)
            )
            total += gone
            if gone < PRUNE_BATCH or self._stop.is_set():
                break
        if total:
            log.info("pruned %d idempotency records older than %d days", total, days)
        return total

    def _lost(self, table_id: str, service: TableService) -> None:
        log.warning("table %s: lease lost to another process", table_id)
        with self._lock:
            if self._services.get(table_id) is service:
                del self._services[table_id]
            self._not_served(table_id, "tables.leased")
        try:
            service.close()
        except Exception:
            log.exception("table %s: close failed", table_id)

    def _tick_loop(self) -> None:
        while not self._stop.wait(self.settings.tick_seconds):
            try:
                self.tick(refresh=self._refresh_due())
            except Exception:  # the loop must survive anything one tick does
                log.exception("tick failed")

    # -- meters --------------------------------------------------------------------------------

    def subscribe_meters(self, callback: Callable[[str, int], None]) -> MeterListener:
        """Call ``callback(meter_id, amount)`` after every committed change of a meter (this
        process or another); ``close()`` on the returned listener ends it."""
        with self._lock:
            self._meter_callbacks.append(callback)
        return _Unsubscribe(self, callback)

    def meters(self) -> dict[str, int]:
        """The latest known amount of every meter (minor units)."""
        with self._lock:
            return dict(self._meters)

    def _on_meter(self, meter_id: str, amount: int) -> None:
        with self._lock:
            self._meters[meter_id] = amount
            callbacks = list(self._meter_callbacks)
        for callback in callbacks:
            try:
                callback(meter_id, amount)
            except Exception:
                log.exception("meter callback failed")

    def _unsubscribe(self, callback: Callable[[str, int], None]) -> None:
        with self._lock:
            if callback in self._meter_callbacks:
                self._meter_callbacks.remove(callback)

    def ready(self) -> list[str]:
        """Why this process is not ready (empty: ready), as message keys: the store cannot be
        reached or its schema is not this code's (``store.unavailable``, ``store.not_migrated``,
        ``store.schema_older``, ``store.schema_newer``), the runtime not started, no table
        served (``server.not_started``, ``server.no_tables``). Cheap: no integrity check."""
        problems: list[str] = []
        try:
            version = self.store.schema_version()
        except MacauTablesError as exc:
            problems.append(exc.key)
        except Exception:  # the database cannot be reached: the driver's error, logged
            log.warning("readiness: the store cannot be reached", exc_info=True)
            problems.append("store.unavailable")
        else:
            if version is None:
                problems.append("store.not_migrated")
            elif version < SCHEMA_VERSION:
                problems.append("store.schema_older")
            elif version > SCHEMA_VERSION:
                problems.append("store.schema_newer")
        if not self.started:
            problems.append("server.not_started")
        elif not self.table_ids():
            problems.append("server.no_tables")
        return problems

    def __repr__(self) -> str:
        return f"Runtime({self.store.url!r}, serving {self.table_ids()})"


class _Unsubscribe:
    def __init__(self, runtime: Runtime, callback: Callable[[str, int], None]) -> None:
        self._runtime = runtime
        self._callback = callback

    def close(self) -> None:
        self._runtime._unsubscribe(self._callback)


def get_runtime(connection: HTTPConnection) -> Runtime:
    """The runtime of the app serving ``connection`` (a ``Request`` or ``WebSocket``)."""
    runtime = connection.app.state.runtime
    assert isinstance(runtime, Runtime)
    return runtime


async def runtime_dependency(connection: HTTPConnection) -> Runtime:
    """:func:`get_runtime` as a FastAPI dependency (``Depends(runtime_dependency)``, or
    :data:`RuntimeDep`). A coroutine, so FastAPI calls it on the event loop: a plain function
    dependency is run in a worker thread — a round trip between threads per request for an
    attribute read."""
    return get_runtime(connection)


# -- first start ---------------------------------------------------------------------------------

DEMO_STAFF: Final[tuple[tuple[str, str], ...]] = (
    ("admin", "admin"),
    ("supervisor", "supervisor"),
    ("dealer", "dealer"),
)
"""The one-time staff users of a first start: ``(name, role)``; the two players that follow
are the demonstration casino's first two players (their wallets are theirs)."""


@dataclass(frozen=True, slots=True)
class FirstStart:
    """What :func:`prepare` did: the schema version, whether it created the demonstration
    casino, and the users it created ``(name, role, password)`` (empty: they existed)."""

    schema_version: int
    created_casino: bool
    users: tuple[tuple[str, str, str], ...]


def demo_users() -> tuple[tuple[str, str], ...]:
    """``(name, role)`` of the one-time users: admin, supervisor, dealer and two players named
    as the demonstration casino's first two players."""
    from ..tables.casino import DEMO_PLAYERS

    return (*DEMO_STAFF, *((pid, "player") for pid, _ in DEMO_PLAYERS[:2]))


def prepare(
    store: Store,
    *,
    users: bool = True,
    password: Callable[[str], str] | None = None,
    upgrade: bool = True,
) -> FirstStart:
    """Make ``store`` ready to serve: create or migrate its schema (``store.upgrade``), create
    the demonstration casino when it holds none (``casino init``), and — when ``users`` and
    no user exists yet — the one-time users of :func:`demo_users`, each with
    ``password(name)`` (default: a random one, printed once by ``serve``). ``upgrade=False``:
    the store is known to be migrated already (a test's)."""
    from ..tables.casino import create_demo_casino, existing_casino
    from . import auth

    version = store.upgrade() if upgrade else SCHEMA_VERSION
    created = False
    if not any(store.read(existing_casino)):
        create_demo_casino(store)
        created = True
    made: list[tuple[str, str, str]] = []
    if users and not store.read(users_ops.users):
        make = password or (lambda _name: secrets.token_urlsafe(12))
        for name, role in demo_users():
            secret = make(name)
            auth.create_user(
                store, name, UserRole(role), secret, actor="serve", reason="first start"
            )
            made.append((name, role, secret))
    return FirstStart(version, created, tuple(made))


RuntimeDep = Annotated[Runtime, Depends(runtime_dependency)]
"""An endpoint's parameter ``runtime: RuntimeDep`` is the app's runtime."""
