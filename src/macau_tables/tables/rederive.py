"""Every round re-derived from its events through the rules (``macau-tables verify``).

The store's verifier proves that nothing recorded was changed after the fact (hash chains,
transaction digests, balances). This module proves that what was recorded is what the law
says: for each table, in the order of its log,

* every round's events replay through its game's rules (its plug-in in
  :data:`macau_tables.games.GAMES`);
* every event's ledger transaction holds exactly the postings the round derives from it
  (``round.postings(event)``, mapped to the table's accounts; a held jackpot award's hold and
  release, :func:`.holds.hold_postings`): no money moved that the rules did not move, none
  missing, none twice; a transaction naming no such event is refused;
* a held award (:class:`~.model.AwardHeld`) holds what its round's settlement paid at its place
  (player, spot, award), once; a release (:class:`~.model.AwardReleased`) releases a hold of the
  table, once, to the hold's own player, its round and amount (:mod:`.holds`);
* every round's settlement is computed again: the round as it stood before its closing event
  is given the closing command (a settlement with the meter it was settled on, or the void)
  and must produce the recorded settlement (a void: the recorded money result);
* a settlement that paid or took jackpot money was settled on the meter the ledger held just
  before it (CSP-10, BAC-17: the meter read under lock in the settling transaction);
* every revealed virtual shoe (:class:`~.model.ShoeRevealed`) hashes to its commitment, that
  commitment was published in the log before the reveal (common rules "Randomness"), and the
  cards dealt were the committed order (the service's own check, recorded in the event).

Pure: it reads decoded events and stored transactions from its caller (the database, or an
audit archive offline), so both checks are the same code. The closing command is the only
game-specific part: the game's plug-in's ``closer`` (:mod:`macau_tables.plugin`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from operator import getitem
from typing import Any, Final

from ..cards import Card
from ..errors import MacauTablesError
from ..games import GAMES
from ..ledger import Account, AccountKind
from ..plugin import Closer, Closing
from ..rng import CardLeaf, leaf_of, verify_leaves, verify_order
from ..store import account_id
from .findings import Finding, finding
from .holds import HOLD_EVENTS, hold_postings, settled_results
from .model import (
    TABLE_EVENTS,
    AwardHeld,
    AwardReleased,
    CardsPublished,
    ShoeCommitted,
    ShoeRevealed,
)

__all__ = [
    "Closer",
    "Closing",
    "Counts",
    "Deferred",
    "LoggedEvent",
    "MeterBalance",
    "Part",
    "StoredTx",
    "rederive_table",
]

Lines = tuple[tuple[str, int, str], ...]
"""A transaction's postings as ``(account_id, amount, reason)``, in order."""

MeterBalance = Callable[[str, int], int | None]
"""``(account_id, tx_id)`` → that account's balance just before transaction ``tx_id``
(``None``: not known, e.g. before the start of an archive)."""


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """One record of a table's log: its ``seq``, ``round_id`` column and decoded ``event``."""

    seq: int
    round_id: str | None
    event: object


@dataclass(frozen=True, slots=True)
class StoredTx:
    """One stored ledger transaction of a table: its id, the event it records, its kind and
    postings."""

    tx_id: int
    event_seq: int | None
    kind: str
    lines: Lines


@dataclass(slots=True)
class Counts:
    """What :func:`rederive_table` read: events, rounds replayed, settlements re-derived and
    transactions compared."""

    events: int = 0
    rounds: int = 0
    settlements: int = 0
    transactions: int = 0
    shoes: int = 0


END: Final = 1 << 62
"""The position of what is checked after a table's last event (its last round, its
transactions left over)."""


@dataclass(frozen=True, slots=True)
class Deferred:
    """A check of an event of a :class:`Part` that needs what was logged before the part:
    ``kind`` (``"published"``: the reveal's ``what[0]`` commitment was published before;
    ``"leaf"``: ``what`` = ``(shoe_no, position, card, salt)`` is a leaf of the shoe committed
    last before; ``"held"``: hold ``what[0]`` was not held before; ``"released"``: ``what`` =
    ``(hold_id, round_id, player, amount, held here)``, a hold held before as released, or
    held here, and not released before), the ``finding`` if it does not hold, where it was in
    the order of the checks (``key``) and the counts there."""

    key: tuple[int, int, int]
    kind: str
    what: tuple[Any, ...]
    finding: Finding
    counts: Counts


@dataclass(slots=True)
class Part:
    """A contiguous part of a table's log checked on its own (``verify`` splits a table's log
    between processes at round openings): ``first`` — it starts at the log's first event;
    ``last`` — it ends at its last (the transactions left over are looked for);
    ``end`` — the ``seq`` of the next part's first event (its last round is checked as one
    process checks it when that event arrives).

    Filled in by :func:`rederive_table`: where the check is in the order of one process
    (``key``: ``(seq, 0)`` for an event's own checks, ``(seq, 1)`` for the round closed by the
    opening at ``seq``; the counter orders what happened at one place), the checks that need
    the log before the part (:class:`Deferred`, as the part goes on as if they held), what
    later parts need (the commitments published, the holds held and released) and the counts
    before the part's last round was checked (``before_end``)."""

    first: bool
    last: bool
    end: int = END
    key: tuple[int, int] = (0, 0)
    counter: int = 0
    deferred: list[Deferred] = field(default_factory=list)
    published: set[str] = field(default_factory=set)
    holds: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    released: set[str] = field(default_factory=set)
    before_end: Counts = field(default_factory=Counts)

    def at(self, seq: int, phase: int) -> None:
        """The check has reached ``(seq, phase)``."""
        self.key = (seq, phase)

    def place(self) -> tuple[int, int, int]:
        """The current position, after everything recorded here before."""
        self.counter += 1
        return (*self.key, self.counter)

    def defer(self, kind: str, what: tuple[Any, ...], found: Finding, counts: Counts) -> None:
        """Note a check that needs the log before the part."""
        self.deferred.append(Deferred(self.place(), kind, what, found, replace(counts)))


class BadStart(Exception):
    """A :class:`Part` that does not start at a round's opening (not split where one process
    closes a round): checked whole instead."""


# -- the check ------------------------------------------------------------------------------------


def rederive_table(
    table_id: str,
    game: str,
    meter_id: str | None,
    events: Iterable[LoggedEvent],
    transactions: Iterable[StoredTx],
    *,
    meter_balance: MeterBalance | None = None,
    counts: Counts | None = None,
    from_start: bool = True,
    part: Part | None = None,
) -> Finding | None:
    """Re-derive table ``table_id``'s rounds (see the module docstring) from its ``events``
    (in ``seq`` order) and its ``transactions`` (every transaction naming the table, in id
    order); returns the first :class:`Finding` (``None``: everything holds). ``counts`` is
    filled in as it goes. ``from_start``: the events start at the log's first record (else,
    e.g. an archive of one day, a commitment published before them is not looked for).

    ``part``: the events are one :class:`Part` of the log (``transactions``: those one
    process consumes while checking it); what needs the log before it is deferred, not
    assumed. A part after the first must start at a round's opening (else :class:`BadStart`)."""
    counts = counts if counts is not None else Counts()
    check = _TableCheck(
        table_id, game, meter_id, transactions, meter_balance, counts, from_start, part
    )
    published: set[str] = set() if part is None else part.published
    committed: dict[int, tuple[str, ...]] = {}
    buffered: list[LoggedEvent] = []
    opens_round = check.dealing.opens_round
    for logged in events:
        counts.events += 1
        if part is not None:
            part.key = (logged.seq, 0)
            if not part.first and not buffered and not opens_round(logged.event):
                raise BadStart(logged.seq)
        kind = type(logged.event)
        if kind not in _PLAIN and not _is_plain(kind):
            found = _shoe(table_id, logged, published, from_start, counts, part) or _leaf(
                table_id, logged, committed, from_start, part, counts
            )
            if found is not None:
                return found
        if opens_round(logged.event) and buffered:
            if part is not None:
                part.key = (logged.seq, 1)
            found = check.flush(buffered)
            if found is not None:
                return found
            buffered = []
        buffered.append(logged)
    if part is not None:
        part.before_end = replace(counts)
        part.key = (part.end, 1)
    found = check.flush(buffered) if buffered else None
    if found is not None or (part is not None and not part.last):
        return found
    if part is not None:
        part.key = (END, 2)
    return check.leftover()


class _TableCheck:
    def __init__(
        self,
        table_id: str,
        game: str,
        meter_id: str | None,
        transactions: Iterable[StoredTx],
        meter_balance: MeterBalance | None,
        counts: Counts,
        from_start: bool = True,
        part: Part | None = None,
    ) -> None:
        self.table_id = table_id
        self.part = part
        self.game = game
        self.meter_id = meter_id
        plugin = GAMES[game]
        self.round_class = plugin.round_class
        self.fold = plugin.fold
        self.closer = plugin.closer
        self.dealing = plugin.dealing(live=False)
        self.meter_balance = meter_balance
        self.counts = counts
        self.from_start = from_start
        self.holds: dict[str, AwardHeld] = {}  # hold id -> the hold, as logged
        self.released: set[str] = set()
        self._txs: Iterator[StoredTx] = iter(transactions)
        self._next: StoredTx | None = None
        self._advance()

    def _advance(self) -> None:
        self._next = next(self._txs, None)

    def _is_round_event(self, event: object) -> bool:
        return not isinstance(event, TABLE_EVENTS) and not self.dealing.is_dealing_event(event)

    def _record(self, seq: int) -> str:
        return f"{self.table_id}#{seq}"

    def _fail(
        self, check: str, relation: str, record: str, key: str, /, **params: object
    ) -> Finding:
        return finding(check, relation, record, self.table_id, key, **params)

    def flush(self, buffered: Sequence[LoggedEvent]) -> Finding | None:
        """Check one round (the events from its opening to the next one's, table and dealing
        events among them) — or the events before the first round."""
        of_round = [self._is_round_event(x.event) for x in buffered]
        mine = [x for x, is_round in zip(buffered, of_round, strict=True) if is_round]
        opened = bool(mine) and self.dealing.opens_round(mine[0].event)
        round_: Any = None
        states: list[Any] | None = None  # the round after each of its events (with a fold)
        if opened:
            self.counts.rounds += 1
            round_id = _round_id(mine[0])
            try:
                round_, states = self._replay([x.event for x in mine])
            except (MacauTablesError, ValueError, TypeError, AttributeError) as exc:
                return self._fail(
                    "settlement",
                    "events",
                    self._record(mine[0].seq),
                    "operations.verify_replay",
                    round_id=round_id,
                    reason=_reason(exc),
                )
        index = -1  # x's place among mine
        for x, is_round in zip(buffered, of_round, strict=True):
            index += is_round
            derived: Lines = ()
            if round_ is not None and is_round:
                derived = self._lines(round_.postings(x.event))
            elif isinstance(x.event, HOLD_EVENTS):  # a large award held, released (.holds)
                found = self._hold(x, mine)
                if found is not None:
                    return found
                derived = self._lines(hold_postings(x.event))
            stored, found = self._stored(x)
            if found is not None:
                return found
            if derived != _stored_lines(stored):
                return self._fail(
                    "settlement",
                    "transactions",
                    f"tx {stored[0].tx_id}" if stored else self._record(x.seq),
                    "operations.verify_postings",
                    record=self._record(x.seq),
                    event=type(x.event).__name__,
                )
            if round_ is not None and is_round:
                found = self._closing(mine, index, stored, states)
                if found is not None:
                    return found
        return None

    def _replay(self, events: list[Any]) -> tuple[Any, list[Any] | None]:
        """The round ``events`` make and, when the game gives a ``fold``, the round after each
        of them (the same fold as one ``replay``: the same round, the same refusal)."""
        fold = self.fold
        if fold is None:
            return self.round_class.replay(events), None
        state = self.round_class.replay(events[:1])
        states = [state]
        for event in events[1:]:
            state = fold(state, event)
            states.append(state)
        return state, states

    def _hold(self, x: LoggedEvent, mine: Sequence[LoggedEvent]) -> Finding | None:
        """A hold holds what its round's settlement (among ``mine``, the round's events) paid
        at the hold's place — ``hold_id`` is ``"<round id>:<place>"`` — and is logged once; a
        release releases a hold of this table not released yet, to its player, as held. A
        release of a hold before the events read (an archive of a later day) is not known here."""
        e = x.event
        record = self._record(x.seq)
        part = self.part
        if isinstance(e, AwardHeld):
            round_id, _, place = e.hold_id.rpartition(":")
            results = next((r for y in reversed(mine) if (r := settled_results(y.event))), ())
            n = int(place) if place.isdigit() else 0
            paid = results[n - 1] if 0 < n <= len(results) else None
            bad_hold = self._fail(
                "settlement",
                "events",
                record,
                "operations.verify_hold",
                hold_id=e.hold_id,
                round_id=e.round_id,
            )
            if (
                e.hold_id in self.holds
                or not mine
                or round_id != e.round_id
                or round_id != _round_id(mine[0])
                or paid is None
                or (paid.player, paid.spot, paid.award) != (e.player, e.spot, e.amount)
            ):
                return bad_hold
            self.holds[e.hold_id] = e
            if part is not None:
                part.holds[e.hold_id] = (e.round_id, e.player, e.amount)
                if not part.first:  # (nor held before the part)
                    part.defer("held", (e.hold_id,), bad_hold, self.counts)
        elif isinstance(e, AwardReleased):
            held = self.holds.get(e.hold_id)
            before = part is not None and not part.first  # (held or released before the part)
            unknown = held is None and self.from_start and not before
            bad_release = self._fail(
                "settlement", "events", record, "operations.verify_release", hold_id=e.hold_id
            )
            if (
                unknown
                or e.hold_id in self.released
                or (held is not None and (held.round_id, held.player, held.amount))
                != (e.round_id, e.player, e.amount)
            ):
                return bad_release
            self.released.add(e.hold_id)
            if part is not None:
                part.released.add(e.hold_id)
                if before:
                    what = (e.hold_id, e.round_id, e.player, e.amount, held is not None)
                    part.defer("released", what, bad_release, self.counts)
        return None

    def _lines(self, postings: Iterable[Any]) -> Lines:
        if not postings:  # (most events move no money)
            return ()
        return tuple(
            (
                account_id(p.account, table_id=self.table_id, meter_id=self.meter_id),
                p.amount,
                str(p.reason),
            )
            for p in postings
            if p.amount
        )

    def _stored(self, x: LoggedEvent) -> tuple[list[StoredTx], Finding | None]:
        """The stored transactions recording event ``x`` (the ones before it must have been
        consumed by earlier events; a correction names no event and is skipped)."""
        out: list[StoredTx] = []
        while self._next is not None:
            t = self._next
            if t.event_seq is None and t.kind == "correction":
                self._advance()
                continue
            if t.event_seq is None or t.event_seq < x.seq:
                return out, self._orphan(t)
            if t.event_seq > x.seq:
                break
            out.append(t)
            self.counts.transactions += 1
            self._advance()
        return out, None

    def _orphan(self, t: StoredTx) -> Finding:
        return self._fail(
            "settlement",
            "transactions",
            f"tx {t.tx_id}",
            "operations.verify_tx_orphan",
            tx_id=t.tx_id,
            record="-" if t.event_seq is None else self._record(t.event_seq),
        )

    def leftover(self) -> Finding | None:
        """A transaction naming an event after the end of the log."""
        while self._next is not None:
            t = self._next
            self._advance()
            if t.event_seq is None and t.kind == "correction":
                continue
            return self._orphan(t)
        return None

    def _closing(
        self,
        mine: Sequence[LoggedEvent],
        index: int,
        stored: Sequence[StoredTx],
        states: Sequence[Any] | None = None,
    ) -> Finding | None:
        """The round event ``mine[index]``, if it closes the round, closes it the same way
        again (see the module docstring); ``states``: the round after each of ``mine`` (else
        the round before ``mine[index]`` is replayed again)."""
        if index == 0:
            return None
        x = mine[index]
        before: Callable[[], Any]
        if states is not None:
            before = partial(getitem, states, index - 1)
        else:
            replayed: list[Any] = []

            def before() -> Any:
                if not replayed:
                    replayed.append(self.round_class.replay([y.event for y in mine[:index]]))
                return replayed[0]

        refused: Exception | None = None
        closing: Closing | None = None
        try:
            closing = self.closer(x.event, before)
        except (MacauTablesError, ValueError, TypeError) as exc:
            refused = exc
        if refused is None and closing is None:
            return None
        round_id = _round_id(mine[0])
        record = self._record(x.seq)
        if refused is not None:
            return self._fail(
                "settlement",
                "events",
                record,
                "operations.verify_settlement_refused",
                round_id=round_id,
                reason=_reason(refused),
            )
        if closing is None:
            return None
        pre: Any = before()
        try:
            if closing.derive is not None:
                derived = closing.derive(pre)
            else:
                _, derived = pre.apply(closing.command)
        except (MacauTablesError, ValueError, TypeError) as exc:
            return self._fail(
                "settlement",
                "events",
                record,
                "operations.verify_settlement_refused",
                round_id=round_id,
                reason=_reason(exc),
            )
        recorded = tuple(y.event for y in mine[index : index + len(derived)])
        same = (
            tuple(derived) == recorded
            if closing.whole
            else bool(derived) and _money(derived[0]) == _money(x.event)
        )
        if not same:
            return self._fail(
                "settlement", "events", record, "operations.verify_settlement", round_id=round_id
            )
        self.counts.settlements += 1
        if closing.meter is None or self.meter_id is None or self.meter_balance is None:
            return None
        if not stored:
            return None
        account = account_id(
            Account(AccountKind.JACKPOT_METER), table_id=self.table_id, meter_id=self.meter_id
        )
        held = self.meter_balance(account, stored[0].tx_id)
        if held is not None and held != closing.meter.amount:
            return self._fail(
                "settlement",
                "events",
                record,
                "operations.verify_meter_read",
                round_id=round_id,
                used=closing.meter.amount,
                ledger=held,
                account=account,
            )
        return None


def _stored_lines(stored: Sequence[StoredTx]) -> Lines:
    """The postings of ``stored``, in order, as one tuple."""
    if not stored:
        return ()
    if len(stored) == 1 and type(stored[0].lines) is tuple:
        return stored[0].lines
    return tuple(line for t in stored for line in t.lines)


def _shoe(
    table_id: str,
    logged: LoggedEvent,
    published: set[str],
    from_start: bool,
    counts: Counts,
    part: Part | None = None,
) -> Finding | None:
    """Note a published commitment; check a reveal against it (common rules "Randomness")."""
    e = logged.event
    if not isinstance(e, ShoeRevealed):
        for name in _may_have(type(e), _PUBLISHING):
            value = getattr(e, name, None)
            value = getattr(value, "digest", value)
            if isinstance(value, str):
                published.add(value)
        return None
    counts.shoes += 1
    record = f"{table_id}#{logged.seq}"
    if not verify_order(e.commitment, e.order, e.salt_of):
        return finding(
            "shoe", "events", record, table_id, "operations.verify_reveal", shoe=e.shoe_id
        )
    if from_start and e.commitment not in published:
        unpublished = finding(
            "shoe", "events", record, table_id, "operations.verify_unpublished", shoe=e.shoe_id
        )
        if part is None or part.first:
            return unpublished
        part.defer("published", (e.commitment,), unpublished, counts)
    if not e.dealt_ok:
        return finding(
            "shoe",
            "events",
            record,
            table_id,
            "operations.verify_dealt",
            shoe=e.shoe_id,
            position=e.mismatch_at if e.mismatch_at is not None else "?",
        )
    return None


def _leaf(
    table_id: str,
    logged: LoggedEvent,
    committed: dict[int, tuple[str, ...]],
    from_start: bool,
    part: Part | None = None,
    counts: Counts | None = None,
) -> Finding | None:
    """Note a shoe's leaves (their root must be its commitment); check every dealt or published
    card's leaf — its card and salt hash to its position's leaf (Common rules "Randomness")."""
    e = logged.event

    def bad_leaf(shoe_no: int, position: object) -> Finding:
        return finding(
            "shoe",
            "events",
            f"{table_id}#{logged.seq}",
            table_id,
            "operations.verify_leaf",
            shoe=shoe_no,
            position=position,
        )

    if isinstance(e, ShoeCommitted):
        if not verify_leaves(e.commitment, e.leaves):
            return bad_leaf(e.shoe_no, "-")
        committed[e.shoe_no] = e.leaves
        return None
    if isinstance(e, CardsPublished):
        cards: list[tuple[object, CardLeaf]] = [
            (c.card, CardLeaf(e.shoe_no, c.position, c.salt)) for c in e.cards
        ]
    elif _may_have(type(e), _LEAF):
        card, leaf = getattr(e, "card", None), getattr(e, "leaf", None)
        cards = [(card, leaf)] if isinstance(leaf, CardLeaf) else []
    else:
        return None
    for card, leaf in cards:
        leaves = committed.get(leaf.shoe_no)
        if leaves is None and not from_start:
            continue  # (an archive of one day: the shoe was committed before it)
        if leaves is None and part is not None and not part.first:
            what = (leaf.shoe_no, leaf.position, card, leaf.salt)
            part.defer("leaf", what, bad_leaf(leaf.shoe_no, leaf.position), counts or Counts())
            continue
        if not leaf_holds(leaves, card, leaf.position, leaf.salt):
            return bad_leaf(leaf.shoe_no, leaf.position)
    return None


def leaf_holds(leaves: Sequence[str] | None, card: object, position: int, salt: str) -> bool:
    """Whether ``card`` with ``salt`` is the leaf at ``position`` among a shoe's ``leaves``
    (``None``: no shoe committed)."""
    try:
        return (
            leaves is not None
            and isinstance(card, Card)
            and 0 <= position < len(leaves)
            and leaf_of(position, card, salt) == leaves[position]
        )
    except (ValueError, TypeError):
        return False


_PUBLISHING: Final = ("commitment", "shoe_commitment")
_LEAF: Final = ("leaf",)
_HAS: dict[tuple[type, tuple[str, ...]], tuple[str, ...]] = {}


def _may_have(cls: type, names: tuple[str, ...]) -> tuple[str, ...]:
    """Those of ``names`` an instance of ``cls`` may have as attributes: all of them when its
    instances have a ``__dict__``, else those its class defines (its slots, properties, class
    attributes) — looked up once per class."""
    key = (cls, names)
    found = _HAS.get(key)
    if found is None:
        open_ = getattr(cls, "__dictoffset__", 1) != 0
        found = _HAS[key] = tuple(n for n in names if open_ or hasattr(cls, n))
    return found


_PLAIN: set[type] = set()
"""The event classes :func:`_shoe` and :func:`_leaf` have nothing to do with (:func:`_is_plain`)."""


def _is_plain(cls: type) -> bool:
    """Whether an event of ``cls`` is no shoe's reveal or commitment, no cards published, and
    can carry no commitment and no card's leaf (:func:`_may_have`): then :func:`_shoe` and
    :func:`_leaf` do nothing with it (noted in :data:`_PLAIN`, once per class)."""
    plain = (
        not issubclass(cls, ShoeRevealed | ShoeCommitted | CardsPublished)
        and not _may_have(cls, _PUBLISHING)
        and not _may_have(cls, _LEAF)
    )
    if plain:
        _PLAIN.add(cls)
    return plain


def _money(event: object) -> object:
    return getattr(event, "settlement", None)


def _round_id(x: LoggedEvent) -> str:
    return x.round_id or str(getattr(x.event, "round_id", "?"))


def _reason(exc: BaseException) -> str:
    text = exc.message if isinstance(exc, MacauTablesError) else str(exc)
    return text[:200]
