"""The electronic table's round cycle: opening, countdown, close, result pause, idle.

A virtual table runs by itself, as electronic tables in Macau do: it opens a round, counts
down the betting time (``betting_seconds`` of its rules), closes the betting, deals and
settles (the dealing's automatic steps), shows the result for ``result_seconds`` and opens the
next round. A countdown that ends with no wager leaves the round open and starts again (no
empty round is dealt); after ``idle_after_rounds`` such countdowns in a row the table idles
(no countdown) until a player opens its page or bets. A live table keeps the dealer's
opening and close; its countdown closes the betting at zero unless ``countdown_closes`` is
off. The settings are part of the table's configuration (:mod:`macau_tables.timings`).

Every deadline is an event of the table's log (:class:`~.model.CycleDeadline`), written in
the transaction of the step that set it, so a restart resumes the recorded deadline rather
than starting the timer again; idling, waking, a supervisor's pause and resume are events too.
:class:`CycleState` is what the log says of the cycle (folded by :func:`~.engine.load`, kept in
snapshots). The steps themselves are ordinary batches run by the service
(:meth:`~.service.TableService.tick`): :func:`due` says which step is due at a time,
:func:`perform` does it, :func:`bookkeep` records the deadlines a batch's outcome calls for.

Which command opens a round and which closes the betting is read from the commands
(``CYCLE``: :func:`macau_tables.rounds.cycle_step_of`), never from the game. While a fault
is in force or a supervisor paused the cycle, no step is taken; a round in play still has
its own time-outs (CSP-6.4 decisions, BAC-16 card holding).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .. import codec
from ..rounds import (
    CycleStep,
    DueKind,
    Expected,
    Issuer,
    TableMode,
    cycle_step_of,
    issuer_of,
)
from .model import (
    CycleDeadline,
    CycleIdle,
    CyclePaused,
    CycleResumed,
    CycleWoken,
    FaultCleared,
    OpenRound,
    TableFaulted,
)

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Batch, TableState

__all__ = [
    "Action",
    "CycleState",
    "CycleView",
    "betting",
    "bookkeep",
    "close_command",
    "due",
    "fold",
    "offered",
    "pending",
    "perform",
    "view",
    "wake",
]


@dataclass(frozen=True, slots=True)
class CycleState:
    """What the log says of the table's cycle: the ``deadline`` in force (``None``: none is
    recorded), the countdowns in a row that ended with no wager (``quiet``), whether the table
    idles, the supervisor's pause in force (``None``: not paused) and the round that took over
    wagers from the last one (``carried``: it is played even with no new wager)."""

    deadline: CycleDeadline | None = None
    quiet: int = 0
    idle: bool = False
    paused: CyclePaused | None = None
    carried: str | None = None

    def at(self) -> datetime | None:
        """When the recorded deadline falls due (``None``: none)."""
        return None if self.deadline is None else datetime.fromisoformat(self.deadline.at)

    def snapshot(self) -> dict[str, Any]:
        """JSON-ready (a snapshot's ``"cycle"``)."""
        return {
            "deadline": None if self.deadline is None else codec.encode(self.deadline),
            "quiet": self.quiet,
            "idle": self.idle,
            "paused": None if self.paused is None else codec.encode(self.paused),
            "carried": self.carried,
        }

    @classmethod
    def restore(cls, data: Mapping[str, Any] | None) -> CycleState:
        """What :meth:`snapshot` wrote (a snapshot written before the cycle: none)."""
        if not data:
            return cls()
        deadline, paused = data.get("deadline"), data.get("paused")
        return cls(
            None if deadline is None else codec.decode(deadline, expect=CycleDeadline),
            int(data.get("quiet", 0)),
            bool(data.get("idle", False)),
            None if paused is None else codec.decode(paused, expect=CyclePaused),
            data.get("carried"),
        )


def fold(state: CycleState, event: object) -> CycleState:
    """``state`` after ``event`` (any event of the log; the cycle's own and the faults count:
    a fault or its clearance drops the deadline, so the cycle starts afresh after it)."""
    if isinstance(event, CycleDeadline):
        carried = event.round_id if event.carried else state.carried
        return CycleState(event, event.quiet, False, state.paused, carried)
    if isinstance(event, CycleIdle):
        return CycleState(None, event.rounds_without_wager, True, state.paused, state.carried)
    if isinstance(event, CycleWoken):
        return CycleState(None, 0, False, state.paused, state.carried)
    if isinstance(event, CyclePaused):
        return CycleState(None, state.quiet, state.idle, event, state.carried)
    if isinstance(event, CycleResumed):
        return CycleState(None, state.quiet, state.idle, None, state.carried)
    if isinstance(event, TableFaulted | FaultCleared):
        return replace(state, deadline=None)
    return state


class Action(StrEnum):
    """A step of the cycle (what :func:`due` finds and :func:`perform` does)."""

    OPEN = "open"
    """Open the next round (virtual)."""
    CLOSE = "close"
    """The countdown ended: close the betting (or, with no wager, count down again / idle)."""
    RECORD = "record"
    """A deadline is missing (a table from before the cycle, after a pause or a fault):
    record it from now."""


def pending(state: TableState) -> CycleDeadline | None:
    """The recorded deadline still ahead of the cycle (a countdown of the round taking bets,
    or the result pause after the round that ended); ``None`` when none is (none recorded, it
    was passed, the table idles, the cycle is paused or a fault is in force)."""
    c, r, d = state.cycle, state.round, state.cycle.deadline
    if d is None or c.paused is not None or state.fault is not None or r is None:
        return None
    if d.round_id != str(r.round_id):
        return None
    if d.step is CycleStep.CLOSE and betting(r) and not c.idle:
        return d
    if d.step is CycleStep.OPEN and r.is_over:
        return d
    return None


def close_command(round_: Any) -> object | None:
    """The command that closes ``round_``'s betting now (the round's accepted command whose
    ``CYCLE`` is :attr:`~macau_tables.rounds.CycleStep.CLOSE`), ``None`` when it is not taking
    bets."""
    if round_ is None or round_.is_over:
        return None
    for c in round_.expected_next().commands:
        if cycle_step_of(c) is CycleStep.CLOSE:
            command: object = c()
            return command
    return None


def betting(round_: Any) -> bool:
    """Whether ``round_`` is taking bets (it waits for wagers, then the close:
    :attr:`~macau_tables.rounds.DueKind.WAGERS`)."""
    if round_ is None or round_.is_over:
        return False
    return any(d.kind is DueKind.WAGERS for d in round_.expected_next().due)


def _takes_wagers(round_: Any) -> bool:
    """Whether ``round_`` accepts a player's command now (a demonstration round takes none)."""
    return any(issuer_of(c) is Issuer.PLAYER for c in round_.expected_next().commands)


def has_wager(round_: Any, cycle: CycleState) -> bool:
    """Whether ``round_`` has a wager: one was placed in it (an event of it moved money) or it
    took over wagers from the last round (``cycle.carried``)."""
    if cycle.carried == str(round_.round_id):
        return True
    return any(round_.postings(e) for e in round_.events)


def due(state: TableState, now: datetime, *, open_for_rounds: bool) -> Action | None:
    """The cycle's step due at ``now`` on ``state`` (``None``: none yet). ``open_for_rounds``:
    the table's status lets a new round open. Nothing is due while a fault is in force or the
    cycle is paused; a live table's only step is closing at the countdown's end (when its
    ``countdown_closes``)."""
    if state.fault is not None or state.cycle.paused is not None:
        return None
    live = state.setup.mode is TableMode.LIVE
    c, r = state.cycle, state.round
    at = c.at()
    if r is None or r.is_over:
        if live or not open_for_rounds or c.idle:
            return None
        ours = c.deadline is not None and c.deadline.step is CycleStep.OPEN
        if r is not None and not (
            ours and c.deadline is not None and c.deadline.round_id == r.round_id
        ):
            return Action.RECORD
        return Action.OPEN if at is None or now >= at else None
    if c.idle or not betting(r):
        return None
    d = c.deadline
    if d is None or d.step is not CycleStep.CLOSE or d.round_id != r.round_id:
        return Action.RECORD
    if at is not None and now >= at:
        if live and not (state.rules.countdown_closes and _closable(r, c)):
            return None
        return Action.CLOSE
    return None


def _closable(round_: Any, cycle: CycleState) -> bool:
    """A live table's countdown closes only a round with a wager (or one taking none) whose
    close the law accepts now; otherwise the dealer decides."""
    close = close_command(round_)
    if close is None or round_.check(close) is not None:
        return False
    return has_wager(round_, cycle) or not _takes_wagers(round_)


def perform(batch: Batch, action: Action, seated: tuple[tuple[int, str], ...] | None) -> None:
    """Do ``action`` (from :func:`due`) in ``batch``: open the next round (with ``seated`` when
    given; else the seating the players took at the table, BAC-15, when any was recorded;
    else the last round's seating), close the betting, or count down again; then
    :func:`bookkeep`."""
    from .engine import execute

    state = batch.state
    if action is Action.OPEN:
        execute(batch, OpenRound(state.seated_now() if seated is None else seated))
    elif action is Action.CLOSE:
        r = state.round
        if r is None:  # nothing to close (due() gives CLOSE only for a round taking bets)
            return
        close = close_command(r)
        wagered = has_wager(r, state.cycle)
        if close is not None and r.check(close) is None and (wagered or not _takes_wagers(r)):
            execute(batch, close)
            bookkeep(batch)
            return
        # No wager (no empty round is dealt), or the law refuses the close now (e.g. BAC-14's
        # difference limit): the countdown starts again; with no wager it counts as quiet.
        quiet = state.cycle.quiet + (0 if wagered else 1)
        if not wagered and quiet >= state.rules.idle_after_rounds:
            batch.table_event(CycleIdle(quiet))
            return
        _deadline(
            batch,
            CycleStep.CLOSE,
            str(r.round_id),
            state.rules.betting_seconds,
            quiet,
            carried=state.cycle.carried == str(r.round_id),
        )
        return
    bookkeep(batch)


def _deadline(
    batch: Batch,
    step: CycleStep,
    round_id: str | None,
    seconds: int,
    quiet: int,
    *,
    carried: bool = False,
) -> None:
    at = batch.now + timedelta(seconds=seconds)
    batch.table_event(CycleDeadline(step, at.isoformat(), round_id, quiet, carried))


def bookkeep(batch: Batch) -> None:
    """Record what the outcome of ``batch`` calls for (run at the end of every batch of the
    table's service, in its transaction): a wager at an idle table wakes it
    (:class:`~.model.CycleWoken`, by the batch's actor); a round newly taking bets gets its
    countdown (``"close"`` at now + ``betting_seconds``); at a virtual table a round newly over
    gets its result pause (``"open"`` at now + ``result_seconds``). Nothing while a fault is in
    force or the cycle is paused."""
    state = batch.state
    c, r = state.cycle, state.round
    if state.fault is not None or c.paused is not None or r is None:
        return
    if c.idle and any(rec.postings for rec in batch.records):
        batch.table_event(CycleWoken(batch.actor))
        c = batch.state.cycle
    rules = state.rules
    if r.is_over:
        # (an idle table whose open round ended — voided by a restart's recovery — stays idle)
        if state.setup.mode is TableMode.VIRTUAL and not c.idle:
            d = c.deadline
            if d is None or d.step is not CycleStep.OPEN or d.round_id != r.round_id:
                _deadline(batch, CycleStep.OPEN, str(r.round_id), rules.result_seconds, c.quiet)
        return
    if c.idle or not betting(r):
        return
    d = c.deadline
    if d is None or d.step is not CycleStep.CLOSE or d.round_id != r.round_id:
        rid = str(r.round_id)
        carried = batch.carried_in == rid or c.carried == rid
        _deadline(batch, CycleStep.CLOSE, rid, rules.betting_seconds, c.quiet, carried=carried)


def wake(batch: Batch, by: str) -> bool:
    """Wake the idle table (a player ``by`` opened its page): recorded, and its countdown
    starts; ``False`` (nothing recorded) when it does not idle."""
    c = batch.state.cycle
    if not c.idle or c.paused is not None or batch.state.fault is not None:
        return False
    batch.table_event(CycleWoken(by))
    r = batch.state.round
    if r is not None and r.is_over and batch.state.setup.mode is TableMode.VIRTUAL:
        _deadline(batch, CycleStep.OPEN, str(r.round_id), 0, 0)  # the next round opens now
    bookkeep(batch)
    return True


@dataclass(frozen=True, slots=True)
class CycleView:
    """What anyone may know of the table's cycle (the same for every audience: no card, no
    player): the pending step (``"close"``: the betting closes ``at``; ``"open"``: the next
    round opens ``at``; ``None``: none runs), whether the table idles (waiting for players)
    and whether a supervisor paused the cycle."""

    step: str | None
    at: str | None
    idle: bool
    paused: bool

    def to_json(self) -> dict[str, Any]:
        """JSON-ready (the ``cycle`` of a table's view and of its stream's messages)."""
        return {"step": self.step, "at": self.at, "idle": self.idle, "paused": self.paused}


def view(state: TableState) -> CycleView:
    """The public view of ``state``'s cycle (its pending deadline: :func:`pending`)."""
    d = pending(state)
    return CycleView(
        None if d is None else d.step.value,
        None if d is None else d.at,
        state.cycle.idle and state.cycle.paused is None,
        state.cycle.paused is not None,
    )


def offered(expected: Expected, mode: TableMode) -> Expected:
    """``expected`` with only the commands a table of ``mode`` offers its clients: those its
    mode accepts (``MODES``) and, at a virtual table, not the steps its cycle takes itself
    (``CYCLE``: opening, closing the betting)."""
    shown = expected.in_mode(mode)
    if mode is not TableMode.VIRTUAL:
        return shown
    kept = tuple(c for c in shown.commands if cycle_step_of(c) is None)
    return shown if len(kept) == len(shown.commands) else Expected(shown.phase, shown.due, kept)
