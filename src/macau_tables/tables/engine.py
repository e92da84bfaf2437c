"""The table as a pure value and what one command does to it (no database here).

:class:`TableState` is everything the service knows about a table between commands: its setup
and rules, the current (or last) round, the dealing state of its game (:mod:`.dealing`), how
many rounds it opened and the fault in force. :func:`execute` runs one command on it in a
:class:`Batch` — the command itself, then everything automatic that follows (virtual cards,
the virtual dealer's reveals, the settlement with the meter, ending the round in the shoe,
revealing a finished shoe) — and the batch holds what to persist, in order: the records
(event + ledger postings), the sealed orders, the jackpot hits. The service (:mod:`.service`)
writes a batch in one database transaction or not at all.

:func:`load` rebuilds the state from a snapshot and the events recorded after it; it must equal
the state the live commands produced (tests check it). :func:`recover` is start-up recovery:
every round left open is resolved by the law (CSP-11.4, BAC-10) through the adapter, by the
phase it stood in.

Dealers report, supervisors decide (BAC-10, CSP-11.1, CSP-11.4): a :class:`ReportFault` stops
the table and *holds* the open round — it voids nothing and moves no money. While the fault is
in force the table accepts only a supervisor: :class:`ClearFault` (the round goes on from where
it stood) or the game's supervisor command on the held round (its ``Void``, on a ground).

Voids need a legal ground (:mod:`macau_tables.voids`): every void that reaches a round — a
supervisor's ``Void``, a recovery's void of a round whose virtual shoe was lost mid-deal, a
dealer's report that voids at once — names its ground, and its evidence: the sequence number and
hash of the event of the same round, earlier in the table's chain, that shows the ground (the
fault that held the round, the dealer's report of a misdeal, a second exposure or a
shuffler's failure, the recovery). The batch finds it (:meth:`Batch.evidence`) among the
round's stored events (``lookup``, given by the service) and the records it is about to write
(their hashes follow from the chain head, ``head``); a void whose evidence is not there, or
that names an event that does not show its ground, is refused.

CSP-11.4, second sentence: after a shuffling machine failed, no round opens at a table that
deals from a shuffler until a supervisor records it replaced (:class:`ShufflerReplaced`) or the
table's dealing procedure is changed to the dealing shoe (a new configuration version).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Final

from .. import codec
from ..errors import MacauTablesError, RuleViolation
from ..games import GAMES
from ..jackpot import Meter
from ..ledger import Posting
from ..rng import RandomSource
from ..rounds import Issuer, Round, accepts, is_command, issuer_of
from ..store.chain import chain_hash
from ..voids import Evidence, Ground, is_void_command, shows, shuffler_failed, void_since
from .cycle import CycleState, betting, fold, has_wager
from .dealing import Dealing
from .model import (
    SEATING_EVENTS,
    TABLE_EVENTS,
    ClearFault,
    CyclePaused,
    CycleResumed,
    FaultCleared,
    Hit,
    LeaveSeat,
    OpenRound,
    OpenShoe,
    PauseCycle,
    ReportFault,
    ResumeCycle,
    RoundRecovered,
    Sealed,
    SeatLeft,
    SeatTaken,
    ShoeRevealed,
    ShufflerReplaced,
    ShufflerReplacement,
    TableError,
    TableFaulted,
    TableSetup,
    TakeSeat,
    text_field,
)

__all__ = [
    "AUTOMATIC_LIMIT",
    "Batch",
    "Record",
    "TableState",
    "execute",
    "load",
    "recover",
    "restore",
    "snapshot",
]

AUTOMATIC_LIMIT: Final = 10_000
"""A bound on the automatic steps after one command (a whole virtual baccarat round with its
demonstration rounds takes a few dozen): reaching it is a bug, refused, never a hang."""

MeterReader = Callable[[bool], Meter]
"""Reads the table's jackpot meter (``True``: under lock, for an award)."""

RoundLookup = Callable[[str], Sequence[tuple[int, str, object]]]
"""A round's stored events, by round id: ``(seq, hash, event)`` in chain order."""


@dataclass(frozen=True, slots=True)
class TableState:
    """A table between commands. ``round``: the current round, or the last one once it is over
    (``None`` before the first); ``rounds``: rounds opened so far (round ids are
    ``"<table_id>-<n>"``); ``deal``: the game's dealing state; ``fault``: the fault in force;
    ``shuffler_out``: a shuffling machine failed and was not yet recorded replaced (CSP-11.4);
    ``cycle``: the round cycle's state (:mod:`.cycle`); ``seating``: the seating players took at
    a virtual table (seat → player id, by seat: :class:`TakeSeat` / :class:`LeaveSeat`, BAC-15),
    ``None`` while none was recorded (the cycle then opens with the last round's)."""

    setup: TableSetup
    rules: Any
    deal: Any
    round: Round | None = None
    rounds: int = 0
    fault: TableFaulted | None = None
    shuffler_out: bool = False
    cycle: CycleState = field(default_factory=CycleState)
    seating: tuple[tuple[int, str], ...] | None = None

    def seated_now(self) -> tuple[tuple[int, str], ...]:
        """Who sits where for the next round: the seating recorded at the table, else the last
        round's (``()``: nobody)."""
        if self.seating is not None:
            return self.seating
        return () if self.round is None else tuple(getattr(self.round, "seated", ()) or ())

    @property
    def round_open(self) -> bool:
        """A round is in progress."""
        return self.round is not None and not self.round.is_over

    @property
    def round_at_stake(self) -> bool:
        """A round is in progress with something at stake: past its betting, or taking bets
        with a wager in it (placed, or taken over from the last round). An empty round taking
        bets — the one a virtual table's cycle keeps open while nobody bets — is not: the
        table's configuration and its meter's parameters may change under it (they apply
        from the next round; the round in play keeps the rules it opened with)."""
        r = self.round
        if r is None or r.is_over:
            return False
        return not betting(r) or has_wager(r, self.cycle)

    def carried(self) -> tuple[Any, ...]:
        """What the next round takes over from the last one (its ``carried_out()``)."""
        if self.round is None or not self.round.is_over:
            return ()
        return tuple(self.round.carried_out())

    def next_round_id(self) -> str:
        """The id of the round to open next."""
        return f"{self.setup.table_id}-{self.rounds + 1}"


@dataclass(frozen=True, slots=True)
class Record:
    """One event to append to the table's log, with its round (``None`` for a table-level
    event) and the ledger postings it moves (``()`` for none)."""

    round_id: str | None
    event: object
    postings: tuple[Posting, ...] = ()


@dataclass(slots=True)
class Batch:
    """What one command does to a table, built up step by step (then persisted at once).

    ``state`` is the table after the steps so far; ``records`` the events to append, in
    order; ``sealed`` the virtual orders shuffled and committed; ``hits`` the jackpot awards
    ``(round_id, hit)`` in the order they were paid. ``source`` shuffles, ``meter`` reads the
    meter (``None``: the table has no meter), ``meter_up`` says whether it can be reached.
    """

    state: TableState
    dealing: Dealing
    source: RandomSource
    actor: str
    now: datetime
    meter_reader: MeterReader | None = None
    meter_up: bool = True
    meter_reason: str | None = None
    last_meter: Meter | None = None
    head: tuple[int, str] | None = None
    lookup: RoundLookup | None = None
    records: list[Record] = field(default_factory=list)
    sealed: list[Sealed] = field(default_factory=list)
    hits: list[tuple[str, Hit]] = field(default_factory=list)
    snapshotted: bool = False
    waiting: str | None = None
    carried_in: str | None = None

    # -- the steps ---------------------------------------------------------------------------

    def meter(self, *, lock: bool) -> Meter:
        """The table's jackpot meter as it stands (``lock``: for an award, read under lock).
        Refuses (``TableError``) when the table has none or it cannot be reached."""
        if self.meter_reader is None:
            raise TableError("tables.no_meter", table=self.state.setup.table_id)
        if not self.meter_up:
            raise TableError(
                "tables.meter_link_down",
                meter=self.state.setup.meter_id,
                reason=self.meter_reason or "-",
            )
        return self.meter_reader(lock)

    def usable_meter(self, meter: Meter, seed: int) -> bool:
        """Whether ``meter`` restarts from ``seed``, the table's (CSP-10.8, BAC-17); if not,
        the settlement waits and the service says why (``waiting``)."""
        if meter.seed == seed:
            return True
        self.waiting = (
            f"the meter restarts from {meter.seed}, the table's configuration from {seed}: "
            "give the table the meter's seed"
        )
        return False

    def open(self, round_: Any) -> None:
        """A round was opened: it becomes the table's round; its first events are recorded
        (``carried_in`` notes whether it took over wagers from the last round)."""
        s = self.state
        self.carried_in = str(round_.round_id) if s.carried() else None
        self.state = TableState(
            s.setup,
            s.rules,
            s.deal,
            round_,
            s.rounds + 1,
            s.fault,
            s.shuffler_out,
            s.cycle,
            s.seating,
        )
        self._record_round(round_, tuple(round_.events))

    def apply_round(self, command: object) -> tuple[object, ...]:
        """Apply ``command`` to the round (the round contract refuses it, naming the rule, or
        returns the events recorded here with their postings and hits)."""
        s = self.state
        current = s.round
        if current is None:
            raise TableError("tables.no_round", table=s.setup.table_id)
        if is_void_command(command):
            refused = current.check(command)  # the ground and its fit to the phase first
            if refused is not None:
                raise refused
            ground = command.ground  # type: ignore[attr-defined]
            found = self.evidence(current.round_id, ground, command.evidence)  # type: ignore[attr-defined]
            if found is not None:
                command = replace(command, evidence=found)  # type: ignore[type-var]
        new, applied = current.apply(command)
        events: tuple[object, ...] = tuple(applied)
        if any(_lacks_evidence(e) for e in events):
            events = self._with_evidence(new.round_id, events)
            new = type(new).replay((*current.events, *events))
        # (the fields given directly: dataclasses.replace costs more than the rules here)
        self.state = TableState(
            s.setup, s.rules, s.deal, new, s.rounds, s.fault, s.shuffler_out, s.cycle, s.seating
        )
        self._record_round(new, events)
        return events

    # -- the evidence of a void (CSP-11.1, CSP-11.4, BAC-10) ----------------------------------

    def _pending(
        self, extra: Sequence[tuple[str | None, object]] = ()
    ) -> list[tuple[int, str, str | None, object]]:
        """The records this batch is about to write (then ``extra``), each with the seq and
        hash it will have in the chain: ``(seq, hash, round_id, event)``."""
        if self.head is None:
            return []
        seq, prev = self.head
        out = []
        for round_id, event in [*((r.round_id, r.event) for r in self.records), *extra]:
            seq += 1
            prev = chain_hash(prev, codec.canonical_bytes(event))
            out.append((seq, prev, round_id, event))
        return out

    def evidence(self, round_id: str, ground: Ground, given: Evidence | None) -> Evidence | None:
        """The evidence of a void of round ``round_id`` on ``ground``: ``given`` checked (an
        event of that round, stored or about to be, with that seq and hash, showing the ground),
        or else the latest such event. ``None`` when the batch has no log to look in (a table
        state driven without a store). Refuses (``RuleViolation``) a given evidence that does
        not hold and a void no event of the round shows."""
        if self.head is None and self.lookup is None:
            return given
        stored = list(self.lookup(round_id)) if self.lookup is not None else []
        pending = [(q, h, e) for q, h, rid, e in self._pending() if rid == round_id]
        candidates = [*stored, *pending]
        if given is not None:
            for seq, digest, event in candidates:
                if seq == given.seq and digest == given.hash and ground in shows(event):
                    return given
            raise RuleViolation(
                ground.rule, "tables.void_bad_evidence", seq=given.seq, round_id=round_id
            )
        for seq, digest, event in reversed(candidates):
            if ground in shows(event):
                return Evidence(seq, digest)
        raise RuleViolation(
            ground.rule, "tables.void_no_evidence", ground=ground.value, round_id=round_id
        )

    def _with_evidence(self, round_id: str, events: Sequence[object]) -> tuple[object, ...]:
        """``events`` (of one round command) with each void that names no evidence given the
        latest event before it in this batch that shows its ground (a dealer's report that
        voids at once: the report)."""
        if self.head is None:
            return tuple(events)
        out: list[object] = []
        for e in events:
            if _lacks_evidence(e):
                basis = e.ground  # type: ignore[attr-defined]
                pending = self._pending([(round_id, x) for x in out])
                for seq, digest, rid, event in reversed(pending):
                    if rid == round_id and basis.ground in shows(event):
                        e = replace(e, ground=replace(basis, evidence=Evidence(seq, digest)))  # type: ignore[type-var]
                        break
            out.append(e)
        return tuple(out)

    def _record_round(self, round_: Round, events: Sequence[object]) -> None:
        round_id, hits_of = round_.round_id, self.dealing.hits
        facts_of = GAMES[self.state.setup.game].facts
        for e in events:
            if shuffler_failed(e) and not self.state.shuffler_out:
                self.state = replace(self.state, shuffler_out=True)
            self.records.append(Record(round_id, e, tuple(round_.postings(e))))
            facts = facts_of(e)
            if facts is not None and facts.lines:  # a settlement's facts, after it (reports')
                self.records.append(Record(round_id, facts))
            hits = hits_of(e)
            if hits:
                self.hits.extend((round_id, h) for h in hits)

    def dealt(self, deal: Any, events: Sequence[object], round_id: str | None = None) -> None:
        """The dealing state became ``deal`` by ``events`` (recorded, moving no money)."""
        s = self.state
        self.state = TableState(
            s.setup, s.rules, deal, s.round, s.rounds, s.fault, s.shuffler_out, s.cycle, s.seating
        )
        self.records.extend(Record(round_id, e) for e in events)
        for e in events:
            if isinstance(e, ShoeRevealed) and not e.verified:
                # The shoe dealt is not the shoe committed: nothing more is dealt until a
                # supervisor has looked into it (Common rules "Randomness").
                self.table_event(TableFaulted(f"shoe {e.shoe_id} failed its check", "service"))

    def table_event(self, event: object, round_id: str | None = None) -> None:
        """Record a table event (:mod:`.model`); a fault goes into force or is cleared; the
        round cycle's state follows (:func:`.cycle.fold`)."""
        s = self.state
        if isinstance(event, TableFaulted):
            s = replace(s, fault=event)
        elif isinstance(event, FaultCleared):
            s = replace(s, fault=None)
        elif isinstance(event, ShufflerReplacement):
            s = replace(s, shuffler_out=False)
        elif isinstance(event, SEATING_EVENTS):
            s = replace(s, seating=event.seating)  # type: ignore[attr-defined]
        cycle = fold(s.cycle, event)
        self.state = s if cycle is s.cycle else replace(s, cycle=cycle)
        self.records.append(Record(round_id, event))

    def seal(self, sealed: Sealed, round_id: str | None = None) -> None:
        """A virtual order was shuffled and committed (kept to be stored sealed); its leaf
        hashes are recorded now, before its first card (:class:`~.model.ShoeCommitted`), with
        ``round_id`` when the order is one round's (a Caribbean deck, a machine's shuffle)."""
        self.sealed.append(sealed)
        self.records.append(Record(round_id, sealed.committed()))

    def advance(self) -> None:
        """Every automatic step now due (see :func:`advance`)."""
        advance(self)

    @property
    def round_id(self) -> str | None:
        """The round concerned: the table's current or last round."""
        r = self.state.round
        return None if r is None else str(r.round_id)


def execute(batch: Batch, command: object) -> Batch:
    """Run ``command`` on ``batch.state``, then every automatic step after it; returns
    ``batch`` (holding what to persist).

    Refuses (``TableError``): first, a command the table's mode does not accept (its
    ``MODES``: ``tables.mode_refuses``, whatever the cards); anything but :class:`ClearFault`
    (or the cycle's :class:`PauseCycle` / :class:`ResumeCycle`) while a fault is in force; a
    new round while one is open; a jackpot wager while the meter cannot be reached; a fault
    report or clearance without its reason (or supervisor); clearing a fault not in force;
    pausing a paused round cycle (``tables.cycle_paused_already``) or
    resuming one that is not paused (``tables.cycle_not_paused``); a seat that cannot be
    taken or left (:func:`_seat`, BAC-15). The round contract and the
    shoe procedure refuse the rest (``RuleViolation`` naming the rule).

    A :class:`ReportFault` holds the open round (no void, no money moved: BAC-10, CSP-11.4,
    "dealers report, supervisors decide"); while the fault is in force the only commands taken
    are :class:`ClearFault` and a supervisor's command to the held round (:func:`_decides`).
    """
    state = batch.state
    mode = state.setup.mode
    if is_command(type(command)) and not accepts(mode, type(command)):
        # CSP-11, BAC-4, BAC-10, Common rules "Hidden information": a physical act (a card
        # entered, exposed or dealt to an empty box, a misdeal, a shuffler's failure, a shoe
        # opened, cut or burned by hand, a correction of a physical card) exists only at a live
        # table. Refused here, for both games, before the round sees it: the refusal depends on
        # the command's type and the table's mode alone, never on a card.
        raise TableError("tables.mode_refuses", command=type(command).__name__, mode=mode.value)
    if state.fault is not None and not (
        isinstance(command, ClearFault | PauseCycle | ResumeCycle) or _decides(state, command)
    ):
        raise TableError("tables.in_fault", table=state.setup.table_id, reason=state.fault.reason)
    if isinstance(command, OpenRound):
        if state.round_open:
            raise TableError("tables.round_open", round_id=batch.round_id)
        if state.shuffler_out and getattr(state.rules, "uses_shuffler", False):
            # CSP-11.4, second sentence: no round until the shuffler is replaced.
            raise RuleViolation("CSP-11.4", "tables.shuffler_out", table=state.setup.table_id)
        batch.dealing.open_round(batch, command, batch.now)
    elif isinstance(command, ShufflerReplaced):
        if not state.shuffler_out:
            raise TableError("tables.shuffler_not_out", table=state.setup.table_id)
        supervisor = text_field(command.supervisor, "supervisor")
        batch.table_event(ShufflerReplacement(supervisor, text_field(command.reason, "reason")))
    elif isinstance(command, OpenShoe):
        if state.round_open:
            raise TableError("tables.round_open", round_id=batch.round_id)
        batch.dealing.open_shoe(batch)
    elif isinstance(command, ReportFault):
        # The round is held, never voided by a report (BAC-10, CSP-11.4): a supervisor decides.
        # Recorded with the held round's id: the evidence a void of that round stands on.
        held = batch.round_id if state.round_open else None
        batch.table_event(TableFaulted(text_field(command.reason, "reason"), batch.actor), held)
    elif isinstance(command, PauseCycle):
        if state.cycle.paused is not None:
            raise TableError("tables.cycle_paused_already", table=state.setup.table_id)
        supervisor = text_field(command.supervisor, "supervisor")
        batch.table_event(CyclePaused(supervisor, text_field(command.reason, "reason")))
    elif isinstance(command, ResumeCycle):
        if state.cycle.paused is None:
            raise TableError("tables.cycle_not_paused", table=state.setup.table_id)
        supervisor = text_field(command.supervisor, "supervisor")
        batch.table_event(CycleResumed(supervisor, text_field(command.reason, "reason")))
    elif isinstance(command, TakeSeat | LeaveSeat):
        _seat(batch, command)
    elif isinstance(command, ClearFault):
        if state.fault is None:
            raise TableError("tables.no_fault", table=state.setup.table_id)
        supervisor = text_field(command.supervisor, "supervisor")
        batch.table_event(FaultCleared(supervisor, text_field(command.reason, "reason")))
    else:
        jackpot = batch.dealing.is_jackpot_wager(command)
        if jackpot and state.setup.meter_id is None:
            raise TableError("tables.no_meter", table=state.setup.table_id)
        if jackpot and not batch.meter_up:
            raise TableError(
                "tables.meter_link_down",
                meter=state.setup.meter_id,
                reason=batch.meter_reason or "-",
            )
        batch.dealing.admit(batch, command)
    advance(batch)
    return batch


def _seat(batch: Batch, command: TakeSeat | LeaveSeat) -> None:
    """A player takes a free seat or leaves theirs at a virtual table (BAC-15): recorded with
    the table's seating after it, which the round cycle opens the next round with (a round in
    play keeps the seating it was opened with). Refused (``RuleViolation`` BAC-15): a game whose
    rules declare no seats (its boxes are taken by the wagers), a seat outside ``1 … seats``,
    a seat another player holds, a player already seated (leave first), leaving without a
    seat."""
    state = batch.state
    table = state.setup.table_id
    seats = getattr(state.rules, "seats", None)
    if not isinstance(seats, int) or isinstance(seats, bool) or seats < 1:
        raise RuleViolation("BAC-15", "tables.no_seats", table=table)
    player = text_field(command.player, "player")
    seating = dict(state.seated_now())
    mine = next((n for n, p in seating.items() if p == player), None)
    if isinstance(command, TakeSeat):
        seat = command.seat
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= seats:
            raise RuleViolation("BAC-15", "tables.seat_out_of_range", seat=repr(seat), seats=seats)
        if mine is not None:
            raise RuleViolation("BAC-15", "tables.already_seated", seat=mine)
        if seat in seating:
            raise RuleViolation("BAC-15", "tables.seat_taken", seat=seat)
        seating[seat] = player
        batch.table_event(SeatTaken(player, seat, tuple(sorted(seating.items()))))
        return
    if mine is None:
        raise RuleViolation("BAC-15", "tables.not_seated", table=table)
    del seating[mine]
    batch.table_event(SeatLeft(player, mine, tuple(sorted(seating.items()))))


def _decides(state: TableState, command: object) -> bool:
    """Whether ``command`` is a supervisor's decision on the round a fault holds (BAC-10,
    CSP-11.1, CSP-11.4: the game's ``Void``, or a correction): the one thing besides
    :class:`ClearFault` a table in fault takes. The fault stays in force until cleared."""
    return (
        state.round_open
        and is_command(type(command))
        and issuer_of(type(command)) is Issuer.SUPERVISOR
    )


def _lacks_evidence(event: object) -> bool:
    """A void event (of a version that carries a basis) whose basis names no evidence."""
    if void_since(type(event)) is None:
        return False
    basis = getattr(event, "ground", None)
    return basis is not None and getattr(basis, "evidence", 1) is None


def advance(batch: Batch) -> None:
    """Every automatic step, until none is due (play stops while a fault is in force; the
    bookkeeping of a round that ended goes on)."""
    for _ in range(AUTOMATIC_LIMIT):
        if not batch.dealing.automatic(batch, play=batch.state.fault is None):
            return
    raise TableError("tables.automatic_loop", table=batch.state.setup.table_id)


def automatic_due(
    state: TableState, dealing: Dealing, source: RandomSource, *, meter_up: bool
) -> bool:
    """Whether an automatic step waits on ``state`` (e.g. a settlement that waited for the
    meter): tried on a throw-away batch whose meter reads as empty."""
    probe = Batch(state, dealing, source, "probe", datetime.now(UTC), lambda lock: Meter(0, 0))
    probe.meter_up = meter_up
    try:
        return dealing.automatic(probe, play=state.fault is None)
    except MacauTablesError:  # it would have done something (with the real meter)
        return True


def _resolve_open_round(batch: Batch, reason: str, *, order_lost: bool) -> None:
    r = batch.state.round
    if r is None or r.is_over:
        return
    command, rule, why = batch.dealing.recovery(r, order_lost=order_lost)
    action = "resume" if command is None else "void"
    batch.table_event(RoundRecovered(r.round_id, action, rule, f"{reason}: {why}"), r.round_id)
    if command is not None:
        batch.apply_round(command)


def recover(batch: Batch, reason: str, *, seal_lost: bool = False) -> Batch:
    """Start-up recovery: the round left open is resolved by the law through the adapter, by
    its phase and whether the sealed order in play was lost (``seal_lost``): it resumes where
    the law lets it go on (CSP-11.4: a Caribbean round whose cards are all dealt, or whose deal
    can be completed; BAC-10: a baccarat round whose cards are all recorded), else it is void on
    its ground (a virtual deck lost mid-deal); a lost sealed order is recorded, then the
    automatic steps run (a resumed round whose cards are all dealt and decided is settled).
    A fault in force stays in force: a resumed round is then held for the supervisor."""
    _resolve_open_round(batch, reason, order_lost=seal_lost)
    if seal_lost:
        batch.dealing.lose_seal(batch, reason)
    advance(batch)
    return batch


# -- the state from the log -------------------------------------------------------------------


def load(base: TableState, events: Sequence[object], dealing: Dealing) -> TableState:
    """``base`` (the state a snapshot or a fresh table stands for) after ``events`` (the log
    after it, in order)."""
    current = [] if base.round is None else list(base.round.events)
    rounds, fault, out, cycle = base.rounds, base.fault, base.shuffler_out, base.cycle
    seating = base.seating
    for e in events:
        cycle = fold(cycle, e)
        if isinstance(e, SEATING_EVENTS):
            seating = e.seating  # type: ignore[attr-defined]
        elif dealing.opens_round(e):
            current, rounds = [e], rounds + 1
        elif isinstance(e, TableFaulted):
            fault = e
        elif isinstance(e, FaultCleared):
            fault = None
        elif isinstance(e, ShufflerReplacement):
            out = False
        elif isinstance(e, TABLE_EVENTS) or dealing.is_dealing_event(e):
            continue
        elif current:
            current.append(e)
            out = out or shuffler_failed(e)
    game = GAMES[base.setup.game]
    r = game.replay(current) if current else None
    deal = dealing.load(base.deal, events)
    return replace(
        base,
        round=r,
        rounds=rounds,
        fault=fault,
        deal=deal,
        shuffler_out=out,
        cycle=cycle,
        seating=seating,
    )


SNAPSHOT_VERSION: Final = 1


def snapshot(state: TableState, dealing: Dealing) -> dict[str, Any]:
    """``state`` as JSON-ready data (no sealed order): its round's events, the dealing state,
    the rounds counter, the fault, the round cycle and the seating (``None``: none recorded)."""
    r = state.round
    return {
        "v": SNAPSHOT_VERSION,
        "rounds": state.rounds,
        "fault": None if state.fault is None else codec.encode(state.fault),
        "shuffler_out": state.shuffler_out,
        "round": [] if r is None else [codec.encode(e) for e in r.events],
        "deal": dict(dealing.snapshot(state.deal)),
        "cycle": state.cycle.snapshot(),
        "seating": None if state.seating is None else [[n, p] for n, p in state.seating],
    }


def restore(
    setup: TableSetup,
    rules: Any,
    data: Mapping[str, Any],
    dealing: Dealing,
    resolver: Callable[[str], Any],
) -> TableState:
    """The state :func:`snapshot` wrote (``resolver``: config id → rules, for the events).
    Refuses (``TableError``) a snapshot of another version."""
    if data.get("v") != SNAPSHOT_VERSION:
        raise TableError("tables.snapshot_version", version=repr(data.get("v")))
    fault = data.get("fault")
    events = [codec.decode(e, rules=resolver) for e in data.get("round", [])]
    return TableState(
        setup,
        rules,
        dealing.restore(data.get("deal", {}), rules),
        round=GAMES[setup.game].replay(events) if events else None,
        rounds=int(data["rounds"]),
        fault=None if fault is None else codec.decode(fault, expect=TableFaulted),
        shuffler_out=bool(data.get("shuffler_out", False)),
        cycle=CycleState.restore(data.get("cycle")),
        seating=_seating(data.get("seating")),
    )


def _seating(data: Any) -> tuple[tuple[int, str], ...] | None:
    """A snapshot's ``"seating"`` (one written before seats were taken at the table: ``None``)."""
    if data is None:
        return None
    return tuple((int(n), str(p)) for n, p in data)
