"""``macau-tables verify``: the whole database checked, in one consistent snapshot.

:func:`verify_database` runs, in order, stopping at the first record that does not hold:

1. the store's verification (:func:`macau_tables.store.verify.verify_tx`): configurations'
   hashes, every table's hash chain, every meter's log, every revealed shoe against its
   commitment, every transaction's digest and sum, every balance against its postings, the
   ledger summing to zero;
2. every table's rounds re-derived through the rules (:mod:`.rederive`): the postings of each
   event, each settlement computed again, the meter each jackpot settlement was given against
   the ledger, every reveal against its published commitment;
3. every settlement's facts (what the per-position report reads: :mod:`.facts`) derived again
   from its settlement by the game's plug-in, against the facts event and the stored rows.

It returns a :class:`Verified` with the counts and the first :class:`~.findings.Finding`
(naming the check, the table and the record). Each table is checked in one pass over its log
(:func:`check_table`: the chain walk and the re-derivation of its rounds); with ``jobs`` > 1
each table's log is split at round openings into parts (:func:`plan`) checked by that many
processes (:func:`check_part`, :func:`verify_parallel`), the parts joined per table as one
pass finds them (:func:`join`) and the tables merged in the order above (:func:`merge`), so the
report is the one a single process gives.
Reads only: it works while a table is stopped by a fault and while other processes play.
"""

from __future__ import annotations

import bisect
import json
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Final

from sqlalchemy import func, select, text

from ..codec import decode, type_name
from ..errors import MacauTablesError
from ..games import GAMES
from ..store import ChainHead, Store, TableRecord, Tx
from ..store import schema as s
from ..store.chain import GENESIS
from ..store.history import meter_postings
from ..store.verify import (
    BATCH,
    LAST_SEQ,
    ChainWalk,
    Failure,
    recent_rounds,
    stored_configs,
    table_records,
    verify_configs,
    verify_rest,
)
from .facts import FactsPicker, FactsStored, Picked, check_table_facts, facts_stored
from .findings import Finding, from_store
from .model import ShoeCommitted
from .rederive import (
    END,
    BadStart,
    Counts,
    Deferred,
    LoggedEvent,
    MeterBalance,
    Part,
    StoredTx,
    leaf_holds,
    rederive_table,
)

__all__ = [
    "PART_EVENTS",
    "PartCheck",
    "RestCheck",
    "Span",
    "TableCheck",
    "Verified",
    "check_part",
    "check_table",
    "default_jobs",
    "join",
    "merge",
    "meter_balances",
    "plan",
    "running_balances",
    "table_events",
    "table_transactions",
    "verify_database",
    "verify_in",
    "verify_parallel",
]


@dataclass(frozen=True, slots=True)
class Verified:
    """What :func:`verify_database` read and the first failure (``None``: all holds)."""

    finding: Finding | None
    tables: int = 0
    events: int = 0
    rounds: int = 0
    settlements: int = 0
    transactions: int = 0
    shoes: int = 0
    accounts: int = 0
    meters: int = 0
    audit: int = 0
    voids: int = 0
    legacy_voids: int = 0
    heads: dict[str, ChainHead] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether everything holds."""
        return self.finding is None

    def counts(self) -> dict[str, int]:
        """What was read, by kind (what ``verify`` prints and ``GET /api/verify`` answers)."""
        return {
            "tables": self.tables,
            "events": self.events,
            "rounds": self.rounds,
            "settlements": self.settlements,
            "transactions": self.transactions,
            "accounts": self.accounts,
            "meters": self.meters,
            "shoes": self.shoes,
            "audit entries": self.audit,
            "voids": self.voids,
            "voids before grounds": self.legacy_voids,
        }


def verify_database(
    store: Store,
    *,
    jobs: int = 1,
    progress: Callable[[str], None] | None = None,
    part_events: int | None = None,
) -> Verified:
    """Verify ``store`` (see the module docstring); ``progress`` is told each table's id as
    its check starts. ``jobs``: how many processes check the tables' logs (see
    :func:`verify_parallel`; ``part_events``: the fewest events of a part of a log, default
    :data:`PART_EVENTS`); 1 checks everything in this process. The report is the same
    whatever ``jobs`` is."""
    if jobs > 1:
        least = PART_EVENTS if part_events is None else part_events
        return store.read(
            lambda tx: verify_parallel(store, tx, jobs, progress=progress, least=least)
        )
    return store.read(lambda tx: verify_in(tx, progress=progress))


@dataclass(frozen=True, slots=True)
class TableCheck:
    """What :func:`check_table` found at one table: the store's chain check (its failure,
    the events read, the voids counted) and the re-derivation of its rounds (its finding and
    counts, as far as it read)."""

    table_id: str
    chain: Failure | None
    events: int
    voids: int
    legacy_voids: int
    rederived: Finding | None
    counts: Counts
    facts: Finding | None = None


@dataclass(frozen=True, slots=True)
class RestCheck:
    """What the store's checks after the chains found (:func:`~macau_tables.store.verify.
    verify_rest`): the first failure and the counts read."""

    failure: Failure | None
    counts: dict[str, int]


@dataclass(frozen=True, slots=True)
class Span:
    """A part of a table's log checked on its own (:func:`check_part`): its events ``first``
    to ``last``, the stored hash of the event before it (``prev``), and its transactions — the
    ids ``after`` < id < ``before`` (what one process consumes while it checks these events)."""

    first: int
    last: int
    prev: str = GENESIS
    after: int = 0
    before: int | None = None
    end: bool = True
    """Whether it ends the table's log (read as far as the snapshot goes)."""


@dataclass(frozen=True, slots=True)
class PartCheck:
    """What :func:`check_part` found in one :class:`Span`: the chain walk (its failure, the
    events read, the voids, where it ended: ``expected``/``prev``), the re-derivation (its
    finding, where in the order of one process it was — ``key`` — its counts and the part's
    own state and deferred checks, :class:`~.rederive.Part`) and the facts the facts check
    needs (``picked``)."""

    span: Span
    chain: Failure | None
    events: int
    voids: int
    legacy_voids: int
    expected: int
    prev: str
    rederived: Finding | None
    key: tuple[int, int, int]
    counts: Counts
    part: Part
    picked: list[Picked]


def check_part(
    tx: Tx,
    table: TableRecord,
    span: Span,
    *,
    configs: Mapping[str, str],
    meter_balance: MeterBalance,
    until_tx: int | None = None,
) -> PartCheck:
    """The per-table check of ``verify`` over one part of ``table``'s log: each stored event
    of ``span`` read once, checked by the store's chain walk
    (:class:`~macau_tables.store.verify.ChainWalk`: seq, hashes, type, rules references,
    voids), then decoded from the payload the walk parsed and given to the re-derivation of its
    rounds (:func:`.rederive.rederive_table`) with its transactions, and its settling and facts
    events picked for the facts check. A finding of the re-derivation stops it, not the chain
    walk (the chain's failures come first in the report); a chain failure stops both.

    A part after the first starts at a round's opening (:func:`plan`): the walk starts from
    the stored hash before it and the rounds a walk from the start would keep
    (:func:`~macau_tables.store.verify.recent_rounds`); a check that needs the log before it
    is deferred (:class:`~.rederive.Deferred`): a dealt card's leaf is checked here against
    the shoe committed last before the part, the others when the parts are joined
    (:func:`join`).

    A new check of each event goes in the chain walk (the stored record and its JSON) or in
    the re-derivation (the decoded events, round by round)."""
    table_id = table.table_id
    voids = {"voids": 0, "legacy_voids": 0}
    first = span.first == 1
    recent = None if first else recent_rounds(tx, table_id, span.first)
    walk = ChainWalk(table_id, configs, voids, start=span.first, prev=span.prev, recent=recent)
    until = None if span.last >= END else span.last  # (END: the whole log)
    records = table_records(tx, table_id, after=span.first - 1, until=until)
    resolver = tx.config_resolver()
    picker = FactsPicker(table.game)
    check = walk.check

    def logged() -> Iterator[LoggedEvent]:
        for record in records:
            if check(record) is not None:
                return
            event = decode(walk.data, rules=resolver)
            picker(record.seq, record.round_id, event)
            yield LoggedEvent(record.seq, record.round_id, event)

    counts = Counts()
    part = Part(first=first, last=span.end, end=span.last + 1)
    found = rederive_table(
        table_id,
        table.game,
        table.meter_id,
        logged(),
        table_transactions(tx, table_id, after=span.after, before=span.before, until=until_tx),
        meter_balance=meter_balance,
        counts=counts,
        part=part,
    )
    key = part.place()
    for record in records:  # the rest of the chain after a finding of the re-derivation
        if check(record) is not None:
            break
    deferred = _leaves_before(tx, table_id, span.first, part.deferred, resolver)
    part.deferred[:] = deferred
    return PartCheck(
        span,
        walk.failure,
        walk.count,
        voids["voids"],
        voids["legacy_voids"],
        walk.expected,
        walk.prev,
        found,
        key,
        counts,
        part,
        picker.picked if walk.failure is None and found is None else [],
    )


SHOE_COMMITTED: Final = type_name(ShoeCommitted)


def _leaves_before(
    tx: Tx,
    table_id: str,
    first: int,
    deferred: Sequence[Deferred],
    resolver: Callable[[str], Any],
) -> list[Deferred]:
    """``deferred`` without the dealt cards' leaves that hold: each checked against the leaves
    of the shoe committed last before event ``first`` (what the walk from the start has
    then)."""
    wanted = {d.what[0] for d in deferred if d.kind == "leaf"}
    if not wanted:
        return list(deferred)
    c = s.events.c
    rows = tx.connection.execute(
        select(c.payload)
        .where(c.table_id == table_id, c.type == SHOE_COMMITTED, c.seq < first)
        .order_by(c.seq.desc())
    )
    leaves: dict[int, tuple[str, ...]] = {}
    for (payload,) in rows:
        e = decode(json.loads(payload), rules=resolver)
        if isinstance(e, ShoeCommitted) and e.shoe_no in wanted and e.shoe_no not in leaves:
            leaves[e.shoe_no] = e.leaves
            if len(leaves) == len(wanted):
                break
    return [
        d
        for d in deferred
        if d.kind != "leaf"
        or not leaf_holds(leaves.get(d.what[0]), d.what[2], d.what[1], d.what[3])
    ]


def join(table: TableRecord, parts: Sequence[PartCheck]) -> tuple[TableCheck, list[Picked]]:
    """The check of ``table`` from the checks of its parts (in log order), as one process
    walking the whole log finds it: the first chain failure; else the first finding of the
    re-derivation in the order of one process's checks — the parts' own and their deferred
    checks, resolved here against what the parts before logged — with the counts there; and
    the facts picked (when all holds). Raises :class:`~.rederive.BadStart` when a part does
    not start where the one before ended (then the table is checked whole)."""
    events = voids = legacy = 0
    for i, p in enumerate(parts):
        events += p.events
        voids += p.voids
        legacy += p.legacy_voids
        if p.chain is not None:
            return TableCheck(table.table_id, p.chain, events, voids, legacy, None, Counts()), []
        if i + 1 < len(parts) and (p.expected, p.prev) != (
            parts[i + 1].span.first,
            parts[i + 1].span.prev,
        ):
            raise BadStart(parts[i + 1].span.first)
    published: set[str] = set()
    holds: dict[str, tuple[str, str, int]] = {}
    released: set[str] = set()
    best: tuple[tuple[int, int, int], Finding, int, Counts] | None = None
    for i, p in enumerate(parts):
        if best is not None and i > best[2] + 1:
            break  # (every check of a later part comes after it)
        here = [(p.key, p.rederived, p.counts)] if p.rederived is not None else []
        for d in p.part.deferred:
            if not _holds_before(d, published, holds, released):
                here.append((d.key, d.finding, d.counts))
                break
        for key, found, counts in here:
            if best is None or key < best[0]:
                best = (key, found, i, counts)
        published |= p.part.published
        holds.update(p.part.holds)
        released |= p.part.released
    total = Counts()
    upto = len(parts) if best is None else best[2]
    for i in range(upto):
        p = parts[i]
        # the part before, when the finding is among the first event's own checks of the
        # next: one process had not checked that part's last round yet
        counts = (
            p.part.before_end
            if best is not None
            and i == upto - 1
            and best[0][:2]
            == (
                p.span.last + 1,
                0,
            )
            else p.counts
        )
        total = _add(total, counts)
    if best is not None:
        total = _add(total, best[3])
        return TableCheck(table.table_id, None, events, voids, legacy, best[1], total), []
    picked = [x for p in parts for x in p.picked]
    return TableCheck(table.table_id, None, events, voids, legacy, None, total), picked


def _holds_before(
    d: Deferred, published: set[str], holds: dict[str, tuple[str, str, int]], released: set[str]
) -> bool:
    """Whether deferred check ``d`` holds, given what was logged before its part."""
    if d.kind == "published":
        return d.what[0] in published
    if d.kind == "held":
        return d.what[0] not in holds
    if d.kind == "released":
        hold_id, round_id, player, amount, held_here = d.what
        return hold_id not in released and (
            held_here or holds.get(hold_id) == (round_id, player, amount)
        )
    return False  # a dealt card's leaf left deferred did not hold (_leaves_before)


def _add(a: Counts, b: Counts) -> Counts:
    return Counts(
        a.events + b.events,
        a.rounds + b.rounds,
        a.settlements + b.settlements,
        a.transactions + b.transactions,
        a.shoes + b.shoes,
    )


def check_table(
    tx: Tx,
    table: TableRecord,
    *,
    configs: Mapping[str, str],
    meter_balance: MeterBalance,
    until_seq: int | None = None,
    until_tx: int | None = None,
) -> TableCheck:
    """The per-table check of ``verify`` in one part (:func:`check_part` over the whole log,
    up to event ``until_seq`` and transaction ``until_tx`` if given), then the settlement
    facts the reports read (:mod:`.facts`) from the events it decoded, when the rounds
    themselves hold."""
    span = Span(1, END if until_seq is None else until_seq)
    part = check_part(
        tx, table, span, configs=configs, meter_balance=meter_balance, until_tx=until_tx
    )
    checked, picked = join(table, [part])
    return _with_facts(tx, table, checked, picked, until_seq)


def _with_facts(
    tx: Tx,
    table: TableRecord,
    checked: TableCheck,
    picked: list[Picked],
    until_seq: int | None,
    stored: FactsStored | None = None,
) -> TableCheck:
    if checked.chain is not None or checked.rederived is not None:
        return checked
    found = check_table_facts(tx, table, until_seq=until_seq, picked=picked, stored=stored)
    return replace(checked, facts=found)


def _begin(
    tx: Tx,
) -> tuple[dict[str, str], list[TableRecord], dict[str, ChainHead], Verified | None]:
    """What every verification reads first, in its snapshot ``tx``: the configurations (their
    hashes checked: a failure there is the report, the last item), the tables, the chain
    heads."""
    tx.flush_meters()
    configs = stored_configs(tx)
    failure = verify_configs(tx)
    heads = tx.chain_heads()
    failed = None if failure is None else Verified(from_store(failure), heads=heads)
    return configs, tx.tables(), heads, failed


def verify_in(tx: Tx, *, progress: Callable[[str], None] | None = None) -> Verified:
    """:func:`verify_database` inside an open (read-only) transaction, in this process."""
    configs, tables, heads, failed = _begin(tx)
    if failed is not None:
        return failed
    balance = meter_balances(tx)
    checked: list[TableCheck] = []
    for table in tables:
        if progress is not None:
            progress(table.table_id)
        checked.append(check_table(tx, table, configs=configs, meter_balance=balance))
        if checked[-1].chain is not None:
            return merge(tables, checked, None, heads)
    counts: dict[str, int] = {}
    rest = RestCheck(verify_rest(tx, counts), counts)
    return merge(tables, checked, rest, heads)


def merge(
    tables: Sequence[TableRecord],
    checked: Iterable[TableCheck],
    rest: RestCheck | None,
    heads: dict[str, ChainHead],
) -> Verified:
    """The report of ``verify`` from its parts, whichever process checked them: in the order
    of the module docstring, the first failure winning — the tables' chains in table order,
    then the store's other checks (``rest``; ``None``: not run, a chain failed), then the
    tables' re-derivations in table order — with the counts read up to it (what a check in
    one process, stopping there, would have read)."""
    by_table = {c.table_id: c for c in checked}
    start = Verified(None, tables=len(tables), heads=heads)
    for table in tables:
        c = by_table[table.table_id]
        start = replace(
            start,
            events=start.events + c.events,
            voids=start.voids + c.voids,
            legacy_voids=start.legacy_voids + c.legacy_voids,
        )
        if c.chain is not None:
            return replace(start, finding=from_store(c.chain))
    if rest is None:  # pragma: no cover - only when a chain failed (returned above)
        raise ValueError("the store's checks after the chains were not run")
    n = rest.counts
    start = replace(
        start,
        meters=n.get("meters", 0),
        shoes=n.get("shoes", 0),
        transactions=n.get("transactions", 0),
        accounts=n.get("accounts", 0),
        audit=n.get("audit", 0),
    )
    if rest.failure is not None:
        return replace(start, finding=from_store(rest.failure))
    rounds = settlements = shoes = 0
    found: Finding | None = None
    for table in tables:
        c = by_table[table.table_id]
        rounds += c.counts.rounds
        settlements += c.counts.settlements
        shoes += c.counts.shoes
        if c.rederived is not None:
            found = c.rederived
            break
    if found is None:  # then the settlement facts the reports read (.facts), table by table
        found = next((c.facts for t in tables if (c := by_table[t.table_id]).facts), None)
    return replace(
        start,
        finding=found,
        rounds=rounds,
        settlements=settlements,
        shoes=max(start.shoes, shoes),
    )


def default_jobs() -> int:
    """``verify``'s default number of processes: the cores this process may run on (1 when
    that is not known)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - a platform without affinity
        return max(1, os.cpu_count() or 1)


PART_EVENTS: Final = 4_000
"""The fewest events a part of a table's log gets when ``verify`` splits it (:func:`plan`)."""


def plan(
    tx: Tx,
    table: TableRecord,
    last: int,
    pieces: int,
    until_tx: int,
    *,
    least: int = PART_EVENTS,
) -> list[Span]:
    """``table``'s log up to event ``last`` in at most ``pieces`` parts of about equal size
    (each at least ``least`` events), split where one process closes a round: at a round's
    opening (its plug-in's ``opens_round`` of the decoded event), the event before it stored;
    each part with the transactions one process consumes while checking it — from the first
    (in id order) naming an event of the part or later."""
    pieces = max(1, min(pieces, last // max(1, least)))
    if pieces <= 1:
        return [Span(1, last)]
    c = s.events.c
    t = s.transactions.c
    dealing = GAMES[table.game].dealing(live=False)
    resolver = tx.config_resolver()
    starts: list[tuple[int, str]] = []
    for i in range(1, pieces):
        target = max(2, 1 + i * last // pieces, starts[-1][0] + 1 if starts else 2)
        rows = tx.connection.execute(
            select(c.seq, c.payload)
            .where(c.table_id == table.table_id, c.seq >= target, c.seq <= last)
            .order_by(c.seq)
            .limit(256)
        )
        opening = None
        for seq, payload in rows:
            try:
                event = decode(json.loads(payload), rules=resolver)
            except (MacauTablesError, ValueError):
                continue
            if dealing.opens_round(event):
                opening = int(seq)
                break
        if opening is None:
            continue
        prev = tx.connection.execute(
            select(c.hash).where(c.table_id == table.table_id, c.seq == opening - 1)
        ).scalar()
        if prev is not None:
            starts.append((opening, str(prev)))
    if not starts:
        return [Span(1, last)]
    firsts = [1] + [seq for seq, _ in starts]
    prevs = [GENESIS] + [h for _, h in starts]
    bounds = [0]  # transaction ids: part i takes bounds[i] < id <= bounds[i + 1]
    for seq in firsts[1:]:
        lowest = tx.connection.execute(
            select(func.min(t.tx_id)).where(
                t.table_id == table.table_id, t.event_seq >= seq, t.tx_id <= until_tx
            )
        ).scalar()
        bounds.append(max(bounds[-1], until_tx + 1 if lowest is None else int(lowest) - 1))
    spans = []
    for i, first in enumerate(firsts):
        end = i + 1 == len(firsts)
        spans.append(
            Span(
                first,
                last if end else firsts[i + 1] - 1,
                prevs[i],
                after=bounds[i],
                before=None if end else bounds[i + 1] + 1,
                end=end,
            )
        )
    return spans


def verify_parallel(
    store: Store,
    tx: Tx,
    jobs: int,
    *,
    progress: Callable[[str], None] | None = None,
    least: int = PART_EVENTS,
) -> Verified:
    """:func:`verify_database` with ``jobs`` processes: this process reads the
    configurations (checking their hashes), the tables, the chain heads and the last
    transaction id in its snapshot ``tx`` and splits each table's log into parts of about
    equal size (:func:`plan`: about ``4 × jobs`` tasks in all, the store's other checks
    counted as one by their weight, each part at least ``least`` events); each part
    (:func:`check_part`) and the store's other checks
    (:func:`~macau_tables.store.verify.verify_rest`) are a task of a pool of ``jobs`` new
    processes (:func:`_pool_context`: forks of this one or of a fork server), the largest first;
    meanwhile this process reads the stored facts. The parts are joined per table
    (:func:`join`: a table whose parts do not join is checked whole here), the facts checked
    from what the parts picked, and the report merged as one process would have found it
    (:func:`merge`).

    The snapshot: on PostgreSQL every task reads this transaction's snapshot
    (``pg_export_snapshot``/``SET TRANSACTION SNAPSHOT``: exactly what one process reads). On
    SQLite each task reads its own, bounded by this one's chain heads and last transaction
    (the log and the ledger only grow: what was committed before stays as it was); the store's
    other checks then count what was committed by the time they run."""
    configs, tables, heads, failed = _begin(tx)
    if failed is not None:
        return failed
    snapshot = None
    if tx.postgres:
        snapshot = str(tx.connection.execute(text("SELECT pg_export_snapshot()")).scalar_one())
    last_tx = tx.connection.execute(select(func.max(s.transactions.c.tx_id))).scalar()
    until_tx = int(last_tx or 0)
    url = store.raw_url.render_as_string(hide_password=False)
    sizes = {t.table_id: heads.get(t.table_id, ChainHead()).seq for t in tables}
    # the store's other checks take about as long as a part of a fifth as many events as
    # there are postings: one task of that weight among about 4 × jobs of about equal weight
    # (so that the last tasks leave no process working alone for long)
    postings = tx.connection.execute(select(func.count()).select_from(s.postings)).scalar_one()
    rest_weight = int(postings) // 5
    target = max(1, sum(sizes.values()) + rest_weight) / (4 * jobs)
    spans = {
        t.table_id: plan(
            tx,
            t,
            sizes[t.table_id],
            round(sizes[t.table_id] / target),
            until_tx,
            least=least,
        )
        for t in tables
    }
    tasks = sorted(
        ((t, span) for t in tables for span in spans[t.table_id]),
        key=lambda x: -(x[1].last - x[1].first),
    )
    context, forked = _pool_context()
    _PARENT.clear()
    if forked:
        _PARENT.append(store)
        # built once here, not in each fork (a table of a game not run here: its finding)
        for game in sorted({t.game for t in tables} & set(GAMES)):
            GAMES[game].prepare()
    with ProcessPoolExecutor(
        max_workers=max(1, min(jobs, len(tasks) + 1)),
        mp_context=context,
        initializer=_open_worker,
        initargs=(url, snapshot, forked),
    ) as pool:
        futures = {}
        rest_future = None
        for table, span in tasks:
            if rest_future is None and span.last - span.first < rest_weight:
                rest_future = pool.submit(_rest_task)
            futures[table.table_id, span.first] = pool.submit(
                _part_task, table, span, configs, until_tx
            )
        if rest_future is None:
            rest_future = pool.submit(_rest_task)
        stored = {t.table_id: facts_stored(tx, t) for t in tables}
        checked = []
        balance: MeterBalance | None = None
        for table in tables:
            if progress is not None:
                progress(table.table_id)
            try:
                parts = [futures[table.table_id, x.first].result() for x in spans[table.table_id]]
                one, picked = join(table, parts)
            except BadStart:  # pragma: no cover - a part not where plan() split: whole here
                if balance is None:
                    balance = meter_balances(tx)
                one = check_table(tx, table, configs=configs, meter_balance=balance)
                checked.append(one)
                continue
            checked.append(
                _with_facts(tx, table, one, picked, sizes[table.table_id], stored[table.table_id])
            )
        rest = rest_future.result()
    _PARENT.clear()
    return merge(tables, checked, rest, heads)


# -- the worker processes of verify_parallel -------------------------------------------------


def _pool_context() -> tuple[Any, bool]:
    """How :func:`verify_parallel` starts its processes, and whether they are forks of this one.
    A process running one thread forks them (nothing to import, the store's engine let go of in
    the child). One running threads (the table server, a test run) must not fork: a lock
    another thread held would stay held in the child. It asks multiprocessing's fork server
    instead — one process started once, with this module imported and every game loaded and
    prepared (:mod:`.audit_preload`) — which forks each worker from itself: a fresh
    interpreter's imports and a game's first-use tables (about a second of CPU per worker,
    every check) are paid once per process, not per worker. Where there is no fork server, each
    worker is a new interpreter (``spawn``)."""
    methods = multiprocessing.get_all_start_methods()
    if threading.active_count() == 1 and "fork" in methods:
        return multiprocessing.get_context("fork"), True
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        # (read when the server starts, once)
        context.set_forkserver_preload([f"{__package__}.audit_preload"])
        return context, False
    return multiprocessing.get_context("spawn"), False


_WORKER: dict[str, Any] = {}
_PARENT: list[Store] = []
"""The caller's store, while a pool of forked workers runs: a worker lets go of its
connections without closing them (they are the caller's)."""


def _open_worker(url: str, snapshot: str | None, forked: bool) -> None:
    if forked:
        for store in _PARENT:
            store.engine.dispose(close=False)
    _WORKER["store"] = Store.open(url)
    _WORKER["snapshot"] = snapshot
    _WORKER["balance"] = None


def _read(fn: Callable[[Tx], Any]) -> Any:
    store: Store = _WORKER["store"]
    snapshot: str | None = _WORKER["snapshot"]

    def run(tx: Tx) -> Any:
        if snapshot is not None:
            tx.connection.execute(text(f"SET TRANSACTION SNAPSHOT '{snapshot}'"))
        return fn(tx)

    return store.read(run)


def _part_task(table: TableRecord, span: Span, configs: dict[str, str], until_tx: int) -> PartCheck:
    def run(tx: Tx) -> PartCheck:
        return check_part(
            tx,
            table,
            span,
            configs=configs,
            meter_balance=_worker_balance(tx),
            until_tx=until_tx,
        )

    result: PartCheck = _read(run)
    return result


def _worker_balance(tx: Tx) -> MeterBalance:
    """The meters' balances, read once per worker when every task reads one snapshot
    (PostgreSQL), else in each task's own."""
    if _WORKER["snapshot"] is None:
        return meter_balances(tx)
    if _WORKER["balance"] is None:
        _WORKER["balance"] = meter_balances(tx)
    balance: MeterBalance = _WORKER["balance"]
    return balance


def _rest_task() -> RestCheck:
    def run(tx: Tx) -> RestCheck:
        counts: dict[str, int] = {}
        return RestCheck(verify_rest(tx, counts), counts)

    result: RestCheck = _read(run)
    return result


def table_events(tx: Tx, table_id: str, *, after: int = 0) -> Iterator[LoggedEvent]:
    """``table_id``'s events after ``after``, decoded (configurations by reference), read a
    batch at a time."""
    resolver = tx.config_resolver()
    while True:
        batch = tx.read_events(table_id, after=after, limit=BATCH)
        if not batch:
            return
        for record in batch:
            yield LoggedEvent(record.seq, record.round_id, record.decode(resolver))
        after = batch[-1].seq


_TABLE_TXS: Final = (
    "SELECT tx_id, event_seq, kind FROM transactions"
    " WHERE table_id = ? AND tx_id > ? AND tx_id <= ? ORDER BY tx_id LIMIT ?"
)
_TABLE_POSTINGS: Final = (
    "SELECT p.tx_id, p.account_id, p.amount, p.reason"
    " FROM postings p JOIN transactions t ON p.tx_id = t.tx_id"
    " WHERE t.table_id = ? AND p.tx_id >= ? AND p.tx_id <= ? ORDER BY p.tx_id, p.line"
)
"""A batch of :func:`table_transactions` and its postings, read through the driver
(:meth:`Tx.driver_rows`: plain values, no SQLAlchemy row built)."""


def table_transactions(
    tx: Tx,
    table_id: str,
    *,
    until: int | None = None,
    after: int = 0,
    before: int | None = None,
) -> Iterator[StoredTx]:
    """Every transaction naming ``table_id``, in id order (``after`` < id < ``before``, up to
    ``until`` if given), with its postings in line order, read a batch at a time as plain
    rows."""
    last = min(LAST_SEQ if until is None else until, LAST_SEQ if before is None else before - 1)
    while True:
        rows = tx.driver_rows(_TABLE_TXS, (table_id, after, last, BATCH))
        if not rows:
            return
        lines: dict[int, list[tuple[str, int, str]]] = {int(r[0]): [] for r in rows}
        postings = tx.driver_rows(_TABLE_POSTINGS, (table_id, int(rows[0][0]), int(rows[-1][0])))
        for tx_id, account, amount, reason in postings:
            found = lines.get(int(tx_id))
            if found is not None:
                found.append((account, int(amount), reason))
        for tx_id, event_seq, kind in rows:
            yield StoredTx(int(tx_id), event_seq, kind, tuple(lines[int(tx_id)]))
        if len(rows) < BATCH:
            return
        after = int(rows[-1][0])


def meter_balances(tx: Tx) -> MeterBalance:
    """A meter account's balance just before a transaction, from every meter posting."""
    return running_balances(meter_postings(tx))


def running_balances(postings: dict[str, list[tuple[int, int]]]) -> MeterBalance:
    """``(account, tx_id)`` → the account's balance before ``tx_id``, from its postings
    ``[(tx_id, amount), …]`` in transaction order (plus an opening balance at ``tx_id`` 0)."""
    ids: dict[str, list[int]] = {}
    sums: dict[str, list[int]] = {}
    for account, rows in postings.items():
        total, id_list, sum_list = 0, [], []
        for tx_id, amount in rows:
            total += amount
            id_list.append(tx_id)
            sum_list.append(total)
        ids[account], sums[account] = id_list, sum_list

    def before(account: str, tx_id: int) -> int | None:
        if account not in ids:
            return None
        i = bisect.bisect_left(ids[account], tx_id)
        return sums[account][i - 1] if i else 0

    return before
