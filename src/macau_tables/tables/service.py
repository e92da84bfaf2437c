"""The table service: one actor per table, on the store.

``TableService(store, table_id, clock=…, rng=…)`` loads the table — its latest snapshot and
the events recorded after it (so start-up does not grow with history) — resolves a round left
open by the law (CSP-11.4, BAC-10; a fault recorded before is still in force), and then runs
the table's commands one at a time:

* :meth:`~TableService.submit` ``(command, idempotency_key=…, actor=…)``: the command runs on
  the table's state (:func:`~.engine.execute`), then ONE store transaction writes all it did
  (:func:`~.storage.persist`: events, postings, the meter's hits, shoes, snapshot) with the
  idempotency record; an award is computed on the meter read under lock in that transaction.
  Only after the commit are the views published. The same key again returns the first result
  (a :class:`~.model.Submitted`), nothing re-applied; with another request it is refused.
  Requests that arrive while a commit is in flight are committed together in the next
  transaction, each in a savepoint of its own, each answered once durable (:mod:`.group`).
* :meth:`~TableService.tick` ``(now)``: the clock's work — decision time-outs (CSP-6.4), card
  holding time-outs (BAC-16), a settlement that waited for the meter, the lease. While a fault
  holds the round no time-out is issued; once it is cleared the time-outs start afresh.
* :meth:`~TableService.subscribe` ``(audience, callback)``: views per audience.

The table's round cycle (:mod:`.cycle`) runs on the same tick: a virtual table opens its
rounds, counts down, closes the betting, shows the result and opens the next by itself (a
client's ``OpenRound`` or the game's ``CloseBetting`` is refused there: ``tables.cycle_owns``);
it idles after rounds with no wager and :meth:`~TableService.wake` wakes it; a supervisor
pauses and resumes it (``PauseCycle``, ``ResumeCycle``). Every deadline is recorded in the log.
:meth:`~TableService.cycle_step` runs the cycle's next step at once, without waiting for its
deadline: for in-process drivers only (autoplay, tests, benchmarks); no server route calls it.

A table that is not a demonstration table refuses a seeded random source
(:func:`~macau_tables.rng.require_production`). A table whose meter cannot be reached refuses
jackpot wagers and says so (``tables.meter_link_down``) until the link is back.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import zlib
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, Final, TypeVar

from .. import codec
from ..errors import StoreError
from ..rng import RandomSource, SystemRandom, require_production
from ..rounds import Audience, Expected, TableMode, cycle_step_of
from ..store import Store, TableStatus, Tx, TxKind
from . import cycle
from .clock import Clock, SystemClock, opening_date
from .dealing import Dealing
from .engine import Batch, TableState, advance, automatic_due, execute, recover
from .group import GroupCommit, Guard, Request, Work, committer, guard_refusals
from .holds import hold_awards, release_awards
from .links import (
    LEASE_SECONDS,
    Lease,
    MeterLink,
    MeterUnreachable,
    default_owner,
    meter_reader,
)
from .model import (
    FaultCleared,
    OpenRound,
    ReleaseAward,
    ShoeLost,
    ShoeRevealed,
    Submitted,
    TableError,
    TableFaulted,
    TableSetup,
    request_digest,
    text_field,
)
from .program import require_approved_program
from .publish import (
    Hub,
    MeterUpdate,
    Subscription,
    TableUpdate,
    shared_publisher,
    table_update,
)
from .storage import persist, read_table
from .timers import DueTimers
from .vault import DEFAULT_VAULT, SealedVault

__all__ = ["SNAPSHOT_EVERY", "CycleMoved", "TableService", "request_digest"]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

SNAPSHOT_EVERY: Final = 500
"""A snapshot is written between rounds once this many events were recorded since the last."""


class TableService:
    """One casino table on the store (see the module docstring).

    Refuses (at construction): an unknown table (``store.unknown_table``); a seeded random
    source at a table that is not a demonstration table (``core.rng_not_production``), or such
    a table when the running program is not the one approved last
    (``tables.program_not_approved``, ``tables.program_changed``: :mod:`.program`); a table
    whose meter's seed is not its configuration's (``tables.meter_seed_mismatch``); a table
    another process holds (``tables.leased``). Its lease of the table runs ``lease_seconds``
    after each renewal (:data:`~.links.LEASE_SECONDS` by default). A jackpot award of at
    least ``hold_awards_from`` is held for a supervisor (:mod:`.holds`; ``None``: none is).
    """

    def __init__(
        self,
        store: Store,
        table_id: str,
        *,
        clock: Clock | None = None,
        rng: RandomSource | None = None,
        vault: SealedVault | None = None,
        owner: str | None = None,
        snapshot_every: int = SNAPSHOT_EVERY,
        lease_seconds: float = LEASE_SECONDS,
        hold_awards_from: int | None = None,
    ) -> None:
        self.store = store
        self.hold_awards_from = hold_awards_from
        self.table_id = table_id
        self.clock: Clock = clock or SystemClock()
        self.vault: SealedVault = vault or DEFAULT_VAULT
        self.owner = owner or default_owner(f"{id(self):x}")
        self.snapshot_every = snapshot_every
        self._lock = TableLock()
        self._hub = Hub()
        self._timers = DueTimers()
        self._quiet: _Quiet | None = None  # what the last tick found: nothing due until …
        # the tick opens no round before this while no round opened since (hold_openings)
        self._opens_from: tuple[datetime, int] | None = None
        self._load()
        source: RandomSource = rng if rng is not None else SystemRandom()
        if not self.setup.demo:
            require_production(source)
            require_approved_program(store)  # a changed program keeps the table closed
        self.rng = source
        self._lease = Lease(store, table_id, self.owner, seconds=lease_seconds)
        self._lease.renew(self.clock.now(), force=True)
        # Taking the lease waited for any request still writing the table's log (the store's
        # fence, PostgreSQL): one a killed process had already sent its COMMIT for may have
        # landed since the table was read, and the recovery must see it (CSP-11.4, BAC-10).
        if self.store.read(lambda tx: tx.chain_head(table_id)).seq != self._seq:
            self._load()
        self._stagger_lease()
        self._listener = (
            store.listen_meters(self._on_meter) if self.setup.meter_id is not None else None
        )
        self._recover()

    @property
    def lease(self) -> Lease:
        """The table's lease, held by this service's owner while it serves the table."""
        return self._lease

    def _stagger_lease(self) -> None:
        """Bring the lease's first renewal forward by this table's own share (from its id) of
        the half-lease a renewal waits for. A process takes its tables' leases together at
        start: unstaggered, they would all come due at the same tick, a durable write each,
        one after the other, and every request arriving meanwhile would wait behind them —
        every ``lease_seconds / 2``, since each renewal keeps the phase of the one before.
        Renewing earlier than needed is safe: the lease runs its full term from each renewal,
        as the store records it. (A server's clock renews all its tables' leases together, in
        one transaction, once any is due: :func:`.links.renew_together`.)"""
        if self._lease.until is not None:
            share = zlib.crc32(self.table_id.encode()) / 2**32
            self._lease.until -= timedelta(seconds=self._lease.seconds / 2 * share)

    # -- loading ---------------------------------------------------------------------------

    def _load(self) -> None:
        loaded = self.store.read(lambda tx: read_table(tx, self.table_id))
        self.status: TableStatus = loaded.status
        self.dealing: Dealing = loaded.dealing
        self.state: TableState = loaded.state
        self.setup: TableSetup = loaded.state.setup
        self._seq: int = loaded.head.seq
        self._head: str = loaded.head.hash
        self._snap_seq: int = loaded.snapshot_seq
        seed = getattr(self.state.rules, "jackpot_seed", None)
        before: MeterLink | None = getattr(self, "_link", None)
        self._link = MeterLink(self.setup.meter_id, None, seed)
        if before is not None and not before.up:  # a reload keeps what is known of the link
            self._link.lost(before.reason or "-", manual=before.manual)
        if loaded.meter is not None:
            self._link.seen(loaded.meter.amount, loaded.meter.seed)
        self._timers.track(self.state.round, self.dealing, self.clock.now())

    def reload(self) -> None:
        """Read the table again from the store (after a change made elsewhere, e.g. a new
        configuration between rounds); the sealed order in play comes back from the vault."""
        with self._lock:
            self._load()
            self._reseal()

    def reconfigure(self, write: Callable[[], _T]) -> _T:
        """Run ``write`` (a change of the table in the store made between rounds, e.g. a new
        configuration: :func:`.reconfigure.change_table_config`) under the table's lock, so
        no round opens meanwhile, then :meth:`reload` and publish; returns what it returned."""
        with self._lock:
            result = write()
            self.reload()
            self._publish()
            return result

    def _reseal(self) -> bool:
        """Put the sealed order in play back from the vault; ``False`` when it is lost."""
        missing = self.dealing.awaiting_seal(self.state.deal)
        if missing is None:
            return True
        sealed = self.vault.get(self.table_id, missing[0])
        if sealed is None or sealed.commitment != missing[2]:
            return False
        self.state = replace(self.state, deal=self.dealing.with_sealed(self.state.deal, sealed))
        return True

    def _recover(self) -> None:
        """Start-up recovery (SPEC "Faults"): the sealed order in play comes back from the
        vault or is recorded as lost; a round left open is resolved by the law."""
        lost = not self._reseal()
        if self.state.round_open or lost:
            self._run(
                lambda b: recover(b, "restart after an interruption", seal_lost=lost),
                key=f"{self.table_id}:recovery:{self._seq}",
                request=codec.sha256({"recovery": self._seq}),
                actor="recovery",
                kind=TxKind.RECOVERY,
            )

    # -- commands --------------------------------------------------------------------------

    def submit(
        self, command: object, *, idempotency_key: str, actor: str, guard: Guard | None = None
    ) -> Submitted:
        """Run a client's ``command`` (a game command or a table command of :mod:`.model`)
        and persist it with everything it set off, in one transaction; returns what it did.

        Refuses, with nothing written: an empty key or actor (``tables.text_required``);
        something that is no command (``tables.not_a_command``); a key already used for
        another request (``tables.idempotency_mismatch``); a new round at a table that is not
        open (``tables.table_closed``); at a virtual table, a step its round cycle takes itself
        — ``OpenRound``, the game's ``CloseBetting`` (``tables.cycle_owns``); whatever the law
        refuses (``RuleViolation`` naming the rule) and the service refuses (``TableError``); a
        wallet too short for a wager (``ledger.insufficient_funds``); what ``guard`` refuses
        (:class:`.group.Guard`: checked in the transaction that would commit the command — a
        table socket's session)."""
        return self._submit((command,), request_digest(command), idempotency_key, actor, guard)

    def submit_all(
        self,
        commands: Sequence[object],
        *,
        idempotency_key: str,
        actor: str,
        guard: Guard | None = None,
    ) -> Submitted:
        """Run ``commands`` in order as ONE request (a bet slip: a player's wagers at once; a
        round's opening, wagers and close): all of them and what they set off are persisted in
        one transaction, or none if any is refused (refusals as :meth:`submit`). The key is
        bound to the whole sequence."""
        commands = tuple(commands)
        if not commands:
            raise TableError("tables.not_a_command", command="()")
        return self._submit(commands, _slip_digest(commands), idempotency_key, actor, guard)

    def _submit(
        self,
        commands: tuple[object, ...],
        request: str,
        idempotency_key: str,
        actor: str,
        guard: Guard | None = None,
    ) -> Submitted:
        group = committer(self.store, self.table_id)
        award = any(isinstance(c, ReleaseAward) for c in commands)
        alone = award or self._lock.held() or group.leads()
        if guard is not None and alone:  # not through a group: checked in a read of its own
            refusal = self.store.read(lambda tx: guard_refusals(tx, [guard]))[0]
            if refusal is not None:
                raise refusal
        if award:  # a held award (.holds)
            with self._lock:
                before = self._seq
                result = release_awards(self, commands, request, idempotency_key, actor)
                if self._seq != before:
                    self._accepted(commands, result)
                return result
        step, key, who = self._prepared(commands, idempotency_key, actor)
        if alone:
            # The table's own work under its lock (a time-out of tick), or a callback of a
            # group's commit: the single request's path.
            result, fresh = self._run_fresh(
                step, key=key, request=request, actor=who, kind=TxKind.ROUND
            )
        else:
            result, fresh = self._grouped(group, step, key, request, who, guard)
        if fresh:
            self._accepted(commands, result)
        return result

    def submit_later(
        self,
        commands: Sequence[object],
        *,
        idempotency_key: str,
        actor: str,
        answered: Callable[[Submitted | BaseException], None],
        guard: Guard | None = None,
        slip: bool = False,
    ) -> bool:
        """:meth:`submit` (``slip``: :meth:`submit_all`) with no thread waiting for the commit:
        the request joins its table's group commit at once and ``answered`` is called with its
        result or refusal once its transaction is durable (never before; from the thread that
        committed it — keep it short, never blocking). The table socket's commands
        (:mod:`macau_tables.server.socket_commands`): a burst of bets costs no thread a bet.
        Returns ``False``, with nothing done, for a request that takes the single request's
        path (a held award's release, a caller holding the table's lock or running a group's
        commit): :meth:`submit` it then. A refusal found before the request is queued (no
        command, no key, a step the cycle owns) is raised here."""
        commands = tuple(commands)
        if not commands:
            raise TableError("tables.not_a_command", command="()")
        group = committer(self.store, self.table_id)
        if any(isinstance(c, ReleaseAward) for c in commands):
            return False
        if self._lock.held() or group.leads():
            return False
        request = _slip_digest(commands) if slip else request_digest(commands[0])
        step, key, who = self._prepared(commands, idempotency_key, actor)
        tries = 0

        def done(req: Request) -> None:
            nonlocal tries
            outcome: Submitted | BaseException
            try:
                result, fresh = req.answer()
            except MeterUnreachable as exc:
                outcome = self._meter_unreachable(exc)
            except StoreError as exc:
                if exc.key == "store.idempotency_exists" and tries < 2:
                    # A request under the same key (at another table, or by another process)
                    # committed first: run again, it finds that record (as :meth:`_grouped`).
                    tries += 1
                    group.submit_later(again(), done)
                    return
                outcome = exc
                if exc.key == "store.idempotency_exists":
                    outcome = TableError("tables.stale", table=self.table_id)
            except BaseException as exc:
                outcome = exc
            else:
                if fresh:
                    self._accepted(commands, result)
                outcome = result
            answered(outcome)

        def again() -> Request:
            return Request(self, step, key, request, who, TxKind.ROUND, guard=guard)

        group.submit_later(again(), done)
        return True

    def _prepared(
        self, commands: tuple[object, ...], idempotency_key: str, actor: str
    ) -> tuple[Callable[[Batch], None], str, str]:
        """A client's request checked before it is run — its key and actor (texts), at a
        virtual table no step the cycle owns — and its step: the commands executed in order."""
        key = text_field(idempotency_key, "idempotency_key")
        who = text_field(actor, "actor")

        if self.setup.mode is TableMode.VIRTUAL:
            for command in commands:
                if cycle_step_of(type(command)) is not None:
                    # The electronic table's cycle owns opening and closing (.cycle).
                    raise TableError("tables.cycle_owns", command=type(command).__name__)

        def step(batch: Batch) -> None:
            for command in commands:
                closed = self.status is not TableStatus.OPEN and batch.state.fault is None
                if isinstance(command, OpenRound) and closed:
                    raise TableError(
                        "tables.table_closed", table=self.table_id, status=self.status.value
                    )
                execute(batch, command)

        return step, key, who

    def _grouped(
        self,
        group: GroupCommit,
        step: Callable[[Batch], object],
        key: str,
        request: str,
        actor: str,
        guard: Guard | None = None,
    ) -> tuple[Submitted, bool]:
        """The request through the group commit (:mod:`.group`): committed with the requests
        that came while a commit was in flight, answered once durable."""
        for _ in range(3):
            try:
                return group.submit(
                    Request(self, step, key, request, actor, TxKind.ROUND, guard=guard)
                )
            except MeterUnreachable as exc:
                raise self._meter_unreachable(exc) from exc
            except StoreError as exc:
                if exc.key != "store.idempotency_exists":
                    raise
                # A request under the same key (at another table, or by another process)
                # committed first: run again, it finds that record.
        raise TableError("tables.stale", table=self.table_id)

    def _meter_unreachable(self, exc: MeterUnreachable) -> TableError:
        """A request found the table's meter unreachable: the link goes down (recorded; the
        tick probes it again) and the refusal to raise is returned."""
        with self._lock:
            self._link_down(exc.reason, manual=False)
        return TableError("tables.meter_unreachable", meter=self.setup.meter_id, reason=exc.reason)

    def _accepted(self, commands: Sequence[object], result: Submitted) -> None:
        """A client's request committed what it did (not a replay of its key): a hook for
        counting (the server's ``CountedService``); nothing here."""

    def _run(
        self,
        step: Callable[[Batch], object],
        *,
        key: str,
        request: str,
        actor: str,
        kind: TxKind,
    ) -> Submitted:
        return self._run_fresh(step, key=key, request=request, actor=actor, kind=kind)[0]

    def _run_fresh(
        self,
        step: Callable[[Batch], object],
        *,
        key: str,
        request: str,
        actor: str,
        kind: TxKind,
    ) -> tuple[Submitted, bool]:
        """One request in its own transaction, under the table's lock: its result, and
        whether it committed it (``False``: its key's first answer, replayed)."""
        with self._lock:
            for _ in range(3):
                try:
                    outcome = self.store.run(
                        lambda tx: self._transact(tx, step, key, request, actor, kind)
                    )
                except MeterUnreachable as exc:
                    raise self._meter_unreachable(exc) from exc
                except StoreError as exc:
                    if exc.key == "store.idempotency_exists":
                        # A request under the same key (at another table, or by another process)
                        # committed first, this one wrote nothing: run again, it finds that
                        # record — the first answer for the same request, else a mismatch.
                        continue
                    if exc.key not in ("store.chain_conflict", "store.chain_race"):
                        raise
                    outcome = None
                if outcome is None:  # another writer moved the log on: read it again
                    self.reload()
                    continue
                if outcome.batch is not None:
                    self._committed(outcome.batch, outcome.result)
                self._lease.renew(self.clock.now())
                fresh = outcome.batch is not None and bool(outcome.batch.records)
                return outcome.result, fresh
            raise TableError("tables.stale", table=self.table_id)

    def _transact(
        self,
        tx: Tx,
        step: Callable[[Batch], object],
        key: str,
        request: str,
        actor: str,
        kind: TxKind,
        base: Work | None = None,
        writes: Callable[[], AbstractContextManager[None]] | None = None,
        *,
        now: datetime | None = None,
    ) -> _Done | None:
        """The request in ``tx``, on the table's committed state (``base``: its state in a
        group transaction, after the group's requests before it; ``writes``: the context its
        writes run in there — a refusal before them, by the rules, wrote nothing; ``now``: the
        batch's time, else the clock's); ``None`` when the log moved on under it (another
        writer)."""
        work = base or Work(self.state, self._seq, self._snap_seq)
        tx.defer_writes()  # PostgreSQL: its events, key and ledger batch go with the COMMIT
        head, found = tx.request_start(self.table_id, key)
        if found is not None:
            if found.scope != self.table_id or found.request_sha256 != request:
                raise TableError("tables.idempotency_mismatch", key=key)
            return _Done(codec.decode(found.response, expect=Submitted), None)
        if head.seq != work.seq:
            return None
        batch = Batch(
            work.state,
            self.dealing,
            self.rng,
            actor,
            now or self.clock.now(),
            meter_reader=meter_reader(tx, self.setup.meter_id),
            meter_up=self._link.up,
            meter_reason=self._link.reason,
            last_meter=self._link.last,
            head=(head.seq, head.hash),
            lookup=_round_lookup(tx, self.table_id),
        )
        step(batch)
        cycle.bookkeep(batch)  # the deadlines this batch's outcome calls for, in its transaction
        with writes() if writes is not None else contextlib.nullcontext():
            hold_awards(tx, batch, self.hold_awards_from)  # large jackpot awards held (.holds)
            result, snapped = persist(
                tx,
                batch,
                actor=actor,
                kind=kind,
                seq=head.seq,
                head=head.hash,
                snapshot_after=work.snap_seq + self.snapshot_every,
                respond=lambda result: tx.idempotency_put(
                    key,
                    scope=self.table_id,
                    request_sha256=request,
                    response=codec.encode(result),
                ),
            )
        batch.snapshotted = snapped
        return _Done(result, batch)

    def _committed(self, batch: Batch, result: Submitted, *, publish: bool = True) -> bool:
        """The transaction committed: the service's state moves on, then the views go out
        (``publish=False``: the caller publishes; returns whether they are to go out)."""
        self.state = batch.state
        self._seq, self._head = result.last_seq, result.head
        if batch.snapshotted:
            self._snap_seq = self._seq
        for sealed in batch.sealed:
            self.vault.put(self.table_id, sealed)
        for rec in batch.records:
            e = rec.event
            if isinstance(e, ShoeRevealed | ShoeLost):
                self.vault.discard(self.table_id, e.shoe_no)
            elif isinstance(e, TableFaulted):
                self.status = TableStatus.FAULT
            elif isinstance(e, FaultCleared):
                self.status = TableStatus.OPEN
                # CSP-6.4: the round held by the fault goes on with a fresh decision time (as
                # after a restart): the time the table stood still is not held against a player.
                self._timers = DueTimers()
        self._timers.track(self.state.round, self.dealing, self.clock.now())
        if batch.waiting is not None:  # a settlement waits for a meter the table can use
            self._link_down(batch.waiting, manual=False)
        elif batch.records:
            if not publish:
                return True
            self._publish()
        return False

    # -- the clock -------------------------------------------------------------------------

    def tick(
        self, now: datetime | None = None, *, defer: list[Request] | None = None
    ) -> list[Submitted]:
        """The clock's work at ``now`` (default: the service's clock): renew the lease; probe a
        meter that could not be reached (and settle what waited for it); issue every time-out
        now ripe — the decision time-out (CSP-6.4, ``decision_timeout_seconds``) and the card
        holding time-out (BAC-16, ``holding_timeout_seconds``). Each issued command is an
        ordinary idempotent submission (key ``"<table>:timeout:<seq>"``). Then the round cycle's
        steps now due (:mod:`.cycle`: opening, closing at the countdown's end, the next
        countdown, idling; key ``"<table>:cycle:<seq>"``). Returns what was submitted.

        A tick that found nothing due remembers until when nothing can be (:class:`_Quiet`): the
        next ticks before then, on the same state, only renew the lease and probe the meter —
        the rounds are not asked again what they wait for (twice a second, for every table).

        ``defer`` (the server's clock with its ``group_cycle_steps`` setting): the round
        cycle's first step due is not run here but appended to ``defer`` as a request of the
        group commit (:meth:`cycle_request`); the caller commits the steps of every table in
        one transaction (:meth:`.group.GroupCommit.submit_many`), then ticks again the tables
        stepped (a second step due at once runs then)."""
        when = now or self.clock.now()
        done: list[Submitted] = []
        with self._lock:
            self._lease.renew(when)
            if not self._link.up and self._link.probe(self.store):
                self._audit("meter_link_up", None)
            quiet = self._quiet
            if quiet is not None and quiet.holds(self, when):
                return done
            self._quiet = None
            if self._link.up and self._automatic_due():
                done.append(self._advance("meter"))
            if self.state.fault is not None:
                return done
            for _ in range(64):
                ripe = self._timers.ripe(self.state.round, self.dealing, when)
                if not ripe:
                    break
                command = ripe[0]
                done.append(
                    self.submit(
                        command,
                        idempotency_key=f"{self.table_id}:timeout:{self._seq}",
                        actor="clock",
                    )
                )
            for _ in range(8):
                action = self._cycle_due(when)
                if action is None:
                    break
                if action is cycle.Action.OPEN and self._opens_from is not None:
                    held = self._held_until()
                    if held is not None and when < held:
                        break  # its place in the spread of openings (hold_openings)
                    self._opens_from = None
                if defer is not None:
                    defer.append(self.cycle_request(action, when))
                    return done
                done.append(self._cycle_run(action, None))
            if not done:
                self._quiet = _Quiet.of(self, when)
        return done

    # -- the round cycle -------------------------------------------------------------------

    def hold_openings(self, until: datetime) -> None:
        """The clock's :meth:`tick` opens no round of this virtual table before ``until`` (once:
        the hold ends with the first opening at or after it). A server that begins to serve
        many tables whose next round is due at once spreads their openings with it (the
        server's ``spread_openings``); nothing else is held — a round taking bets closes at its
        countdown's end, and :meth:`cycle_step` and :meth:`wake` open at once."""
        with self._lock:
            self._opens_from = (until, self.state.rounds)
            self._quiet = None

    def _held_until(self) -> datetime | None:
        """Until when :meth:`hold_openings` holds the next opening: ``None`` once a round opened
        since (by the tick, :meth:`cycle_step` or a wake)."""
        held = self._opens_from
        if held is None or self.state.rounds != held[1]:
            return None
        return held[0]

    def opening_due(self) -> bool:
        """Whether the round cycle would open this virtual table's next round now (none was
        ever opened, or its result pause ran out)."""
        with self._lock:
            return self._cycle_due(self.clock.now()) is cycle.Action.OPEN

    def cycle_seconds(self) -> int:
        """A round's cycle at this table, without its dealing: ``betting_seconds`` +
        ``result_seconds`` of its rules."""
        rules = self.state.rules
        return int(rules.betting_seconds) + int(rules.result_seconds)

    def _cycle_due(self, when: datetime) -> cycle.Action | None:
        return cycle.due(self.state, when, open_for_rounds=self.status is TableStatus.OPEN)

    def _cycle_run(
        self, action: cycle.Action, seated: tuple[tuple[int, str], ...] | None
    ) -> Submitted:
        close = cycle.close_command(self.state.round)
        before = self._seq
        result = self._run(
            lambda b: cycle.perform(b, action, seated),
            key=f"{self.table_id}:cycle:{self._seq}",
            request=codec.sha256({"cycle": action.value, "seq": self._seq}),
            actor="cycle",
            kind=TxKind.ROUND,
        )
        self._cycle_done(action, close, result, self._seq != before)
        return result

    def cycle_request(self, action: cycle.Action, when: datetime) -> Request:
        """The round cycle's step ``action``, due at ``when``, as a request of the group commit
        (:meth:`tick`'s ``defer``): the same key, digest and actor as the step run at once. It
        is run only if still due when its group reaches it, on the state the group left (a
        pause, a close or a round opened meanwhile: :class:`CycleMoved`, nothing written), at
        ``when`` (the tick's time: the deadlines it sets are the same at every table stepped
        at that tick, whose next steps then fall due together again); :meth:`cycle_answered`
        takes its answer."""
        seen: list[object | None] = []

        def step(batch: Batch) -> None:
            due = cycle.due(batch.state, when, open_for_rounds=self.status is TableStatus.OPEN)
            if due is not action:
                raise CycleMoved(self.table_id, action.value)
            seen.append(cycle.close_command(batch.state.round))
            cycle.perform(batch, action, None)

        req = Request(
            self,
            step,
            f"{self.table_id}:cycle:{self._seq}",
            codec.sha256({"cycle": action.value, "seq": self._seq}),
            "cycle",
            TxKind.ROUND,
        )
        req.note = (action, seen)
        req.now = when
        return req

    def cycle_answered(self, req: Request) -> Submitted:
        """The answer of a :meth:`cycle_request` once its group ran (its refusal raised: a
        meter found unreachable takes the table's link down, as a step run at once does)."""
        try:
            result, fresh = req.answer()
        except MeterUnreachable as exc:
            raise self._meter_unreachable(exc) from exc
        action, seen = req.note
        self._cycle_done(action, seen[0] if seen else None, result, fresh)
        return result

    def _cycle_done(
        self, action: cycle.Action, close: object | None, result: Submitted, fresh: bool
    ) -> None:
        """A round cycle's step answered (``close``: the game's close command of the round
        before it; ``fresh``: it wrote, not a replay of its key): a hook for counting (the
        server's ``CountedService``); nothing here."""

    def cycle_step(self, *, seated: tuple[tuple[int, str], ...] | None = None) -> Submitted | None:
        """Run the round cycle's next step now, as :meth:`tick` would at its recorded deadline
        (the same code, without waiting): open the next round (``seated``: its seating, else
        the seating the players took at the table, BAC-15, else the last round's), close the
        betting, or record a missing deadline. For in-process drivers that must not wait
        (autoplay, tests, benchmarks); no server route calls it.
        Returns what was submitted, ``None`` when no step is pending (a round in play that
        waits for players or the dealer, a fault, a pause, an idle table, a closed table)."""
        with self._lock:
            ahead = cycle.pending(self.state)
            now = self.clock.now()
            when = now if ahead is None else max(datetime.fromisoformat(ahead.at), now)
            action = self._cycle_due(when)
            if action is None:
                return None
            return self._cycle_run(action, seated)

    def wake(self, by: str) -> bool:
        """A player (``by``) opened the table's page: an idle table wakes (recorded) and its
        countdown starts. ``False`` (nothing written) when the table does not idle."""
        who = text_field(by, "by")
        with self._lock:
            if not self.state.cycle.idle:
                return False
            woken: list[bool] = []
            self._run(
                lambda b: woken.append(cycle.wake(b, who)),
                key=f"{self.table_id}:wake:{self._seq}",
                request=codec.sha256({"wake": self._seq}),
                actor=who,
                kind=TxKind.ROUND,
            )
            return bool(woken and woken[0])

    def next_deadline(self) -> datetime | None:
        """When the next time-out or the round cycle's next step falls due (``None``: none is
        running — nor while a fault holds the round: no time-out is issued then, CSP-6.4,
        BAC-16, and the cycle stands still)."""
        with self._lock:
            if self.state.fault is not None:
                return None
            timeout = self._timers.next_deadline(self.state.round, self.dealing)
            ahead = cycle.pending(self.state)
            step = None if ahead is None else datetime.fromisoformat(ahead.at)
            return min((d for d in (timeout, step) if d is not None), default=None)

    def _automatic_due(self) -> bool:
        """Whether an automatic step waits (e.g. a settlement that waited for the meter)."""
        return automatic_due(self.state, self.dealing, self.rng, meter_up=self._link.up)

    def _advance(self, why: str) -> Submitted:
        key = f"{self.table_id}:{why}:{self._seq}"
        return self._run(
            advance,
            key=key,
            request=codec.sha256({why: self._seq}),
            actor="service",
            kind=TxKind.ROUND,
        )

    # -- the meter link --------------------------------------------------------------------

    @property
    def meter_link(self) -> tuple[bool, str | None]:
        """``(up, reason it is down)``: whether the table can reach its meter."""
        return self._link.up, self._link.reason

    def meter_link_lost(self, reason: str) -> None:
        """The link to the meter is down (reported by whoever watches it): jackpot wagers are
        refused, saying so, until :meth:`meter_link_restored`."""
        with self._lock:
            self._link_down(text_field(reason, "reason"), manual=True)

    def meter_link_restored(self) -> None:
        """The link to the meter is back: jackpot wagers are taken again, and a settlement
        that waited for the meter is made."""
        with self._lock:
            self._link.restored()
            self._audit("meter_link_up", None)
            if self._automatic_due():
                self._advance("meter")
            self._publish()

    def _link_down(self, reason: str, *, manual: bool) -> None:
        self._link.lost(reason, manual=manual)
        self._audit("meter_link_down", reason)
        self._publish()

    def _on_meter(self, meter_id: str, amount: int) -> None:
        if meter_id == self.setup.meter_id:
            self._link.seen(amount)
            self._hub.publish_public(MeterUpdate(meter_id, amount))

    def _audit(self, action: str, reason: str | None) -> None:
        detail = {"meter_id": self.setup.meter_id}
        try:
            self.store.run(
                lambda tx: tx.audit(
                    action, actor=self.owner, table_id=self.table_id, reason=reason, detail=detail
                )
            )
        except StoreError:  # the database itself is out of reach: the log says so
            log.warning("table %s: %s (%s), not audited", self.table_id, action, reason)

    # -- the table's status ------------------------------------------------------------------

    def open_table(self, *, actor: str, reason: str) -> None:
        """Open the table for rounds (audited). Refuses (``RuleViolation`` CSP-13 / BAC-19) a
        configuration with an option lacking a valid, effective approval today, and a table
        with a fault in force (``tables.in_fault``)."""
        who, why = text_field(actor, "actor"), text_field(reason, "reason")
        with self._lock:
            if self.state.fault is not None:
                raise TableError(
                    "tables.in_fault", table=self.table_id, reason=self.state.fault.reason
                )
            self.state.rules.check_approvals(opening_date(self.clock.now()))
            self._set_status(TableStatus.OPEN, who, why)

    def close_table(self, *, actor: str, reason: str) -> None:
        """Close the table (audited): no new round opens; a round in progress goes on."""
        who, why = text_field(actor, "actor"), text_field(reason, "reason")
        with self._lock:
            self._set_status(TableStatus.CLOSED, who, why)

    def _set_status(self, status: TableStatus, actor: str, reason: str) -> None:
        self.store.run(
            lambda tx: tx.set_table_status(self.table_id, status, actor=actor, reason=reason)
        )
        self.status = status
        self._publish()

    # -- views -----------------------------------------------------------------------------

    @property
    def round(self) -> Any:
        """The current round, or the last one once it is over (``None`` before the first)."""
        return self.state.round

    def expected(self) -> Expected | None:
        """What the current round waits for (``None`` before the first round), with only the
        commands the table's mode accepts (``MODES``: a virtual table offers no physical act,
        nor the steps its round cycle takes itself)."""
        r = self.state.round
        if r is None:
            return None
        return cycle.offered(r.expected_next(), self.setup.mode)

    def view(self, audience: Audience) -> TableUpdate:
        """What ``audience`` may see of the table now (the round's ``view``)."""
        with self._lock:
            return self._update(audience)

    def subscribe(self, audience: Audience, callback: Callable[[Any], None]) -> Subscription:
        """Send ``callback`` a :class:`~.publish.TableUpdate` for ``audience`` now and after
        every commit, and the meter's :class:`~.publish.MeterUpdate` when it changes."""
        with self._lock:
            sub = self._hub.add(audience, callback)
            self._hub.publish(self._updates(), only=sub)
            return sub

    def _update(self, audience: Audience) -> TableUpdate:
        return table_update(self.state, self._seq, audience, meter_link=self._link.up)

    def _updates(self) -> Callable[[Audience], TableUpdate]:
        """Each audience's update now, sharing one public view (the shared part)."""
        return shared_publisher(self.state, self._seq, meter_link=self._link.up)

    def _publish(self) -> None:
        self._hub.publish(self._updates())

    # -- life --------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop listening to the meter and give up the table's lease."""
        with self._lock:
            if self._listener is not None:
                self._listener.close()
                self._listener = None
            try:
                self._lease.release()
            except StoreError:
                log.warning("table %s: lease not released", self.table_id)

    def __enter__(self) -> TableService:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"TableService({self.table_id!r}, {self.setup.game}, seq {self._seq})"


class TableLock:
    """The table's lock: re-entrant, and it knows whether the calling thread holds it."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._owner: int | None = None
        self._depth = 0

    def acquire(self) -> None:
        self._lock.acquire()
        self._owner = threading.get_ident()
        self._depth += 1

    def release(self) -> None:
        self._depth -= 1
        if not self._depth:
            self._owner = None
        self._lock.release()

    def held(self) -> bool:
        """Whether the calling thread holds the lock."""
        return self._owner == threading.get_ident()

    def __enter__(self) -> TableLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


@dataclass(frozen=True, slots=True)
class _Quiet:
    """A tick found nothing due on ``state`` (with that dealing, timers, status and meter
    link) at its time: no time-out ripe, no step of the cycle, no automatic step. On the same
    objects nothing becomes due before ``until`` (``None``: never) — the time-outs' and the
    cycle's checks depend on the time only through these deadlines, the automatic step not
    at all; the state is replaced (never changed in place) by every commit and reload."""

    state: TableState
    dealing: Dealing
    timers: DueTimers
    status: TableStatus
    link_up: bool
    until: datetime | None

    @classmethod
    def of(cls, service: TableService, when: datetime) -> _Quiet:
        timeout = service._timers.next_deadline(service.state.round, service.dealing)
        step = service.state.cycle.at()
        held = service._held_until()  # an opening held for its place in a spread
        # a cycle deadline already passed with no step due: the state, not the time, holds it
        ahead = [d for d in (timeout, step, held) if d is not None and d > when]
        return cls(
            service.state,
            service.dealing,
            service._timers,
            service.status,
            service._link.up,
            min(ahead, default=None),
        )

    def holds(self, service: TableService, when: datetime) -> bool:
        """Whether nothing can be due at ``when`` (the same objects, before ``until``)."""
        return (
            self.state is service.state
            and self.dealing is service.dealing
            and self.timers is service._timers
            and self.status is service.status
            and self.link_up == service._link.up
            and (self.until is None or when < self.until)
        )


class CycleMoved(Exception):
    """A round cycle's step taken by the clock in a group (:meth:`TableService.cycle_request`)
    found no longer due when its group reached it: nothing was written, nothing is refused."""

    def __init__(self, table_id: str, action: str) -> None:
        super().__init__(f"{table_id}: the cycle's {action} is no longer due")


@dataclass(frozen=True, slots=True)
class _Done:
    """A transaction's outcome: the result, and the batch committed (``None``: a retry that
    found its first result)."""

    result: Submitted
    batch: Batch | None


def _round_lookup(tx: Tx, table_id: str) -> Callable[[str], list[tuple[int, str, object]]]:
    """A round's stored events ``(seq, hash, event)`` in chain order, read when a void needs
    its evidence (:meth:`.engine.Batch.evidence`)."""

    def lookup(round_id: str) -> list[tuple[int, str, object]]:
        resolver = tx.config_resolver()
        return [
            (r.seq, r.hash, r.decode(resolver)) for r in tx.read_events(table_id, round_id=round_id)
        ]

    return lookup


def _slip_digest(commands: Sequence[object]) -> str:
    """The request digest of a bet slip (``submit_all``): its key is bound to the whole
    sequence."""
    return codec.sha256([request_digest(c) for c in commands])
