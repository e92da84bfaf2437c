"""The double-entry ledger: balanced transactions of postings, balances kept beside them.

Every money movement is a transaction whose postings sum to zero, checked here before anything
is written; each account's balance moves in the same database transaction by
``UPDATE accounts SET balance = balance + :x`` (row-locked deltas: many writers commute). A
wallet never goes below zero; neither do the accounts that hold money for someone (in play,
carried, commission, a meter). The table bank, house funding and the cashier may. Transactions
are never changed: a correction is a new transaction naming the one it corrects.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import BigInteger, bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError

from ..errors import StoreError
from ..ledger import Account, AccountKind, Posting, Reason
from . import pgwire
from . import schema as s
from ._base import require_int, require_text
from .catalog_ops import FENCE_CLASS
from .chain import iso, transaction_digest
from .events_ops import EventOps
from .pgwire import abandon, begin_statement, escaping, render_row, text_rows
from .records import AccountRecord, PostingRecord, TransactionRecord, TxKind

__all__ = [
    "MAY_GO_NEGATIVE",
    "NO_METER",
    "PG_CALL",
    "LedgerEntry",
    "LedgerOps",
    "PgBatch",
    "account_id",
]

_NEVER_OPENED: Final = frozenset({AccountKind.WALLET, AccountKind.JACKPOT_METER})
"""The accounts the ledger never opens by itself (a player's and a meter's are created with
them; any other is opened at zero when first used)."""
TABLE_KINDS: Final = frozenset(
    {AccountKind.IN_PLAY, AccountKind.CARRIED, AccountKind.TABLE_BANK, AccountKind.COMMISSION}
)
MAY_GO_NEGATIVE: Final = frozenset(
    {AccountKind.TABLE_BANK, AccountKind.HOUSE_FUNDING, AccountKind.CASHIER}
)
"""The accounts whose balance may be negative (the house's and the cashier's side)."""

AUDITED_KINDS: Final = frozenset(
    {TxKind.DEPOSIT, TxKind.WITHDRAWAL, TxKind.CORRECTION, TxKind.METER_ADJUSTMENT}
)
"""Transactions that must say who made them and why."""


def account_id(account: Account, *, table_id: str | None, meter_id: str | None) -> str:
    """The ledger account id of ``account`` at ``table_id`` / on ``meter_id``:
    ``wallet:<player>``; ``in_play|carried|table_bank|commission:<table_id>``;
    ``jackpot_meter:<meter_id>``; ``house_funding``; ``cashier``; ``held_award:<hold_id>``.

    Refuses (``store.account_unmapped``) a wallet without owner, a table account without a
    table id, a meter account without a meter id.
    """
    kind = account.kind if type(account.kind) is AccountKind else AccountKind(account.kind)
    if kind is AccountKind.WALLET and account.owner:
        return f"wallet:{account.owner}"
    if kind in TABLE_KINDS and table_id:
        return f"{kind.value}:{table_id}"
    if kind is AccountKind.JACKPOT_METER and meter_id:
        return f"{kind.value}:{meter_id}"
    if kind in (AccountKind.HOUSE_FUNDING, AccountKind.CASHIER):
        return kind.value
    if kind is AccountKind.HELD_AWARD and account.owner:  # award-hold: held_award:<hold id>
        return f"{kind.value}:{account.owner}"
    raise StoreError("store.account_unmapped", account=str(account))


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One ledger transaction to post (the arguments of :meth:`LedgerOps.post`), for
    :meth:`LedgerOps.post_many`."""

    postings: tuple[Posting, ...]
    kind: TxKind
    table_id: str | None = None
    meter_id: str | None = None
    actor: str | None = None
    reason: str | None = None
    event_seq: int | None = None
    corrects: int | None = None


@dataclass(slots=True)
class _Prepared:
    """An entry checked and ready to write: its place in the batch, its digest fields and
    posting rows ``(line, account_id, amount, reason)``."""

    index: int
    entry: LedgerEntry
    kind: TxKind
    rows: list[tuple[int, str, int, str]]
    accounts: list[Account]
    digest: str


# Statements built once (SQLAlchemy caches their compiled form): a request's ledger entries are
# written with a handful of statements whatever their number.
_A = s.accounts.c


def _sqlite_accounts_and_top(n: int) -> str:
    """SQLite, through the driver: the ``n`` accounts of a batch (``?`` each) with their
    balances and, account id NULL, the highest tx id: this transaction holds the write lock,
    so the ids it inserts next are the ones after it."""
    text = _SQLITE_ACCOUNTS_AND_TOP.get(n)
    if text is None:
        text = (
            "SELECT account_id, balance, may_go_negative FROM accounts WHERE account_id IN ("
            + ", ".join("?" * n)
            + ") UNION ALL SELECT NULL, coalesce(max(tx_id), 0), 0 FROM transactions"
        )
        _SQLITE_ACCOUNTS_AND_TOP[n] = text
    return text


_SQLITE_ACCOUNTS_AND_TOP: dict[int, str] = {}
# SQLite, through the driver (TxBase.driver_many: a request's few ledger statements cost no
# SQLAlchemy work per call).
_SQLITE_INSERT_TX: Final = (
    "INSERT INTO transactions (tx_id, table_id, event_seq, kind, actor, reason, corrects, "
    "digest, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_SQLITE_INSERT_POSTINGS: Final = (
    "INSERT INTO postings (tx_id, line, account_id, amount, reason) VALUES (?, ?, ?, ?, ?)"
)
_SQLITE_MOVE: Final = "UPDATE accounts SET balance = balance + ? WHERE account_id = ?"
PG_CALL: Final = "SELECT what, o, tx_id, account_id, balance FROM macau_post("
"""The call of ``macau_post`` up to its argument (the batch: a parameter here, a literal in
the commit's round trip, ``store._commit_pg``)."""
_PG_POST: Final = PG_CALL + "CAST(? AS jsonb))"
"""PostgreSQL: a batch of ledger entries checked and written by the server function
``macau_post`` (schema v4, ``migrations/versions/v0004_ledger_functions.py``; see
:meth:`LedgerOps._pg_batch` for its one parameter, the batch as JSON). Only the accounts debited
that may not go negative are locked before the check (in id order); an account only credited
cannot go negative, and a meter row locked early would be held through the whole transaction by
every table contributing to it. A failed check raises SQLSTATE ``MT001`` with the accounts read
(nothing written): :meth:`LedgerOps._pg_refusal` turns it into the refusal. The postings'
reference to their accounts is checked at the commit (schema v3): a meter's posting line
inserted here while other writers hold the meter's row for their update then takes no lock of
its own beside theirs; at the commit the row is held by this transaction's own update."""
_PG_CALL_BYTES: Final = PG_CALL.encode()
_PG_FENCE: Final = b"SELECT pg_advisory_xact_lock_shared(%d, hashtext(%%b))" % FENCE_CLASS
"""A table's fence, shared, before its events are written (as ``events_ops``' own insert)."""
_PG_INSERT_EVENTS: Final = (
    b"INSERT INTO events (table_id, seq, round_id, type, payload, prev_hash, hash, recorded_at) "
    b"VALUES "
)
_PG_INSERT_KEYS: Final = (
    b'INSERT INTO idempotency ("key", scope, request_sha256, response, created_at) VALUES '
)
"""The idempotency records left for the commit: a key stored meanwhile by another transaction
fails the statement (``idempotency_pkey``), and with it the transaction."""
_UNIQUE: Final = "23505"
REFUSED: Final = "MT001"
"""The SQLSTATE ``macau_post`` raises when its check fails (detail: the accounts it read)."""
NO_METER: Final = "MT002"
"""The SQLSTATE ``macau_move_meter`` raises for a meter that does not exist (detail: its id)."""


@dataclass(slots=True)
class PgBatch:
    """PostgreSQL: a checked batch of ledger entries for ``macau_post`` — its JSON parameter,
    and what turns the function's answer into results (the meters it moves) or its refusal into
    the ledger's (the lowest net of each account, the accounts, the meters)."""

    json: str
    count: int
    lowest: dict[str, int]
    kinds: dict[str, Account]
    meters: dict[str, str]
    deferred: dict[str, int]
    """Meter id -> the credit moved with the commit (:data:`TxBase.meter_pending`)."""


_MOVE = (
    update(s.accounts)
    .where(_A.account_id == bindparam("acc"))
    .values(balance=_A.balance + bindparam("delta", type_=BigInteger()))
)
_MOVE_RETURNING = _MOVE.returning(_A.balance)


class LedgerOps(EventOps):
    """The ledger (part of :class:`~macau_tables.store.Tx`)."""

    def post(
        self,
        postings: Iterable[Posting],
        *,
        kind: TxKind,
        table_id: str | None = None,
        meter_id: str | None = None,
        actor: str | None = None,
        reason: str | None = None,
        event_seq: int | None = None,
        corrects: int | None = None,
    ) -> int | None:
        """Write ``postings`` as one transaction and move the balances; returns its id, or
        ``None`` when every amount is zero (nothing to post).

        Refused, with nothing written: postings that do not sum to zero
        (``store.unbalanced``); an account that cannot be mapped (``store.account_unmapped``);
        a wallet of an unknown player (``store.unknown_player``) or an unknown meter
        (``store.unknown_meter``); a wallet going below zero (``ledger.insufficient_funds``
        naming the player) or another account that may not go negative doing so
        (``store.account_negative``); a meter decreased other than by an award, an audited
        adjustment or a correction (``store.meter_decrease``); a deposit, withdrawal,
        adjustment or correction without actor and reason (``store.bad_value``); a correction
        naming no existing transaction (``store.unknown_transaction``).
        """
        entry = LedgerEntry(
            tuple(postings), kind, table_id, meter_id, actor, reason, event_seq, corrects
        )
        return self.post_many((entry,))[0]

    def post_many(self, entries: Sequence[LedgerEntry]) -> list[int | None]:
        """Post ``entries`` in order, as :meth:`post` would one after the other (each its own
        balanced ledger transaction; ``None`` for one with nothing to post), with a few
        statements for all of them: one read of the accounts (on PostgreSQL the debited ones
        that may not go negative locked, in id order), one insert of the transactions, one of
        their postings, the balances moved by their net amounts, the meters' last.

        Every balance is checked after each entry in turn, so a batch that would take a
        wallet below zero at any point is refused whole (``ledger.insufficient_funds``), as
        are all of :meth:`post`'s refusals: nothing is written then.
        """
        self.writable()
        results: list[int | None] = [None] * len(entries)
        plan = self._plan(entries)
        if plan is None:
            return results
        ready, at, running, lowest, kinds, meters = plan
        if self.postgres:
            batch = self._pg_batch(ready, at, running, lowest, kinds, meters)
            tx_ids = self._pg_done(batch, self._pg_rows(batch))
            self._pend_meters(batch)
        else:  # SQLite: this transaction already holds the database's write lock
            ids = sorted(running)
            rows = self.driver_rows(_sqlite_accounts_and_top(len(ids)), ids)
            found: dict[str, tuple[int, bool]] = {}
            top = 0
            for acc_id, balance, may in rows:
                if acc_id is None:
                    top = int(balance)
                else:
                    found[acc_id] = (int(balance), bool(may))
            self._check(found, lowest, kinds)
            missing = sorted(a for a in running if a not in found)
            if missing:
                self._open_accounts(missing, kinds)
            tx_ids = self._write(ready, at, running, meters, found, top)
        for prepared, tx_id in zip(ready, tx_ids, strict=True):
            results[prepared.index] = tx_id
        return results

    def post_deferred(self, entries: Sequence[LedgerEntry]) -> None:
        """Post ``entries`` as :meth:`post_many` does, without returning their ids: what a table's
        request posts. Everything is checked here that needs no database; on PostgreSQL the
        batch is then written with the transaction's commit, in the same round trip (a
        transaction that only posts is one round trip), or before the next statement of this
        transaction if one comes first (every read sees it); the batches left so are written
        together, as ONE batch (one ``macau_post``: the accounts it locks, in id order, and
        every balance checked after each entry in turn, as if posted one after the other). A
        refusal (:meth:`post`'s) is then raised by that statement or by :meth:`Store.run`, and
        nothing of the transaction is kept. On SQLite (one writer at a time, no round trips)
        it is :meth:`post_many`."""
        if not self.postgres:
            self.post_many(entries)
            return
        self.writable()
        plans = self.pending.plans
        plan = self._plan(entries, at=plans[0][1] if plans else None)  # one time for all
        if plan is None:
            return
        self.pending.plans.append(plan)
        self.note_pending()

    def flush_writes(self) -> None:
        """Send the writes left for the commit (:class:`~._base.Pending`), now, in one round
        trip (PostgreSQL): the tables' fences, the events, the idempotency records, the
        ledger's batch."""
        if not self.pending:
            return
        raw = self.driver_connection()
        begin = begin_statement(raw)  # (nothing of the transaction sent yet)
        parts, batch = self.pending_statements(raw)
        query = b"; ".join(parts if begin is None else [begin, *parts])
        self.flushes += 1
        try:
            results = pgwire.simple_query(raw, query)
        except self._driver_error as exc:
            if begin is not None:
                abandon(raw)
            failure = self.pending_failure(batch, exc, query)
            self.flush_failed = failure
            raise failure from exc
        if batch is not None:
            self._pg_done(batch, text_rows(results[-1]))

    def pending_statements(self, raw: Any) -> tuple[list[bytes], PgBatch | None]:
        """The writes left for the commit, taken (no longer left), as statements for ONE simple
        query on the driver connection ``raw``: the fences of the tables this transaction does
        not hold yet, one ``INSERT`` of the events, one of the idempotency records (by key:
        two transactions never wait for each other's keys in opposite orders), then the
        ledger's batches merged into one ``macau_post`` call (the last statement, when there is
        one: its result is the batch's, returned with it)."""
        pending = self.take_pending()
        escape = escaping(raw)
        parts: list[bytes] = []
        for table_id in pending.fences:
            if table_id not in self.fenced:
                self.fenced.add(table_id)
                parts.append(_PG_FENCE % escape(table_id.encode()))
        if pending.events:
            parts.append(
                _PG_INSERT_EVENTS + b", ".join(render_row(escape, r) for r in pending.events)
            )
        if pending.keys:
            rows = sorted(pending.keys, key=lambda r: r[0])
            parts.append(_PG_INSERT_KEYS + b", ".join(render_row(escape, r) for r in rows))
        batch = None
        if pending.plans:
            batch = self._pg_batch(*_merge(pending.plans))
            self._pend_meters(batch)
            parts.append(b"%b%b)" % (_PG_CALL_BYTES, escape(batch.json.encode())))
        return parts, batch

    def pending_failure(self, batch: PgBatch | None, error: Exception, query: bytes) -> Exception:
        """What a failure of the writes left for the commit (driver's ``error``) is: the
        ledger's refusal of ``batch``, a meter unknown (``store.unknown_meter``), a key stored
        meanwhile by another transaction (``store.idempotency_exists``), else the database's
        error as SQLAlchemy raises it (a race for a log's seq among them)."""
        sqlstate = getattr(error, "sqlstate", None)
        diag = getattr(error, "diag", None)
        if sqlstate == NO_METER:
            detail = getattr(diag, "message_detail", None)
            return StoreError("store.unknown_meter", meter_id=detail)
        if sqlstate == _UNIQUE and getattr(diag, "constraint_name", None) == "idempotency_pkey":
            return StoreError("store.idempotency_exists", key=getattr(diag, "message_detail", ""))
        refusal = None if batch is None else self._pg_refusal(batch, error)
        if refusal is not None:
            return refusal
        return self.driver_failure(query.decode(), None, error)

    def _plan(self, entries: Sequence[LedgerEntry], *, at: datetime | None = None) -> _Plan | None:
        """Check ``entries`` on their own (nothing read); ``None`` when none has anything to
        post. Else the entries ready to write, their time (``at``, else now), each account's
        net (``running``) and lowest net after any entry (``lowest``, <= 0), the accounts and
        the meters'."""
        at = self.now() if at is None else at
        at_text = iso(at)
        ready: list[_Prepared] = []
        running: dict[str, int] = {}  # account -> net so far
        lowest: dict[str, int] = {}  # account -> lowest net after any entry (<= 0)
        kinds: dict[str, Account] = {}
        meters: dict[str, str] = {}  # meter account -> meter id
        for index, entry in enumerate(entries):
            prepared = self._prepare(index, entry, at_text)
            if prepared is None:
                continue
            ready.append(prepared)
            net: dict[str, int] = {}
            for (_, acc_id, amount, _), account in zip(
                prepared.rows, prepared.accounts, strict=True
            ):
                net[acc_id] = net.get(acc_id, 0) + amount
                if acc_id not in kinds:
                    kinds[acc_id] = account
                    if account.kind is AccountKind.JACKPOT_METER and entry.meter_id:
                        meters[acc_id] = entry.meter_id
            for acc_id, x in net.items():
                total = running.get(acc_id, 0) + x
                running[acc_id] = total
                if total < lowest.get(acc_id, 0):
                    lowest[acc_id] = total
        if not ready:
            return None
        if self.meter_pending and any(m in self.meter_pending for m in meters.values()):
            self.flush_meters()  # the meter's balance is read (checked) by the write
        return ready, at, running, lowest, kinds, meters

    def move_meter(self, meter_id: str, amount: int) -> int:
        """Add ``amount`` to ``meter_id``'s balance now; returns the new balance."""
        balance = self.connection.execute(
            _MOVE_RETURNING, {"acc": f"jackpot_meter:{meter_id}", "delta": amount}
        ).scalar_one()
        return int(balance)

    def deposit(self, player_id: str, amount: int, *, actor: str, reason: str) -> int:
        """The cashier credits ``player_id``'s wallet with ``amount`` (> 0); returns the tx id.
        Refuses a non-positive amount, an unknown player, a missing actor or reason."""
        require_int(amount, "amount", minimum=1)
        postings = (
            Posting(Account(AccountKind.CASHIER), -amount, Reason.CASH),
            Posting(Account.wallet(player_id), amount, Reason.CASH),
        )
        tx_id = self.post(postings, kind=TxKind.DEPOSIT, actor=actor, reason=reason)
        assert tx_id is not None
        return tx_id

    def withdraw(self, player_id: str, amount: int, *, actor: str, reason: str) -> int:
        """The cashier pays ``amount`` (> 0) out of ``player_id``'s wallet; returns the tx id.
        Refuses more than the wallet holds (``ledger.insufficient_funds``), a non-positive
        amount, an unknown player, a missing actor or reason."""
        require_int(amount, "amount", minimum=1)
        postings = (
            Posting(Account.wallet(player_id), -amount, Reason.CASH),
            Posting(Account(AccountKind.CASHIER), amount, Reason.CASH),
        )
        tx_id = self.post(postings, kind=TxKind.WITHDRAWAL, actor=actor, reason=reason)
        assert tx_id is not None
        return tx_id

    def balance(self, account: str) -> int:
        """The balance of the account ``account`` (an account id); 0 for one never used."""
        self.flush_meters()
        value = self.connection.execute(
            select(s.accounts.c.balance).where(s.accounts.c.account_id == account)
        ).scalar_one_or_none()
        return int(value or 0)

    def wallet_balance(self, player_id: str) -> int:
        """What ``player_id``'s wallet holds; refuses an unknown player
        (``store.unknown_player``)."""
        value = self.connection.execute(
            select(s.accounts.c.balance).where(s.accounts.c.account_id == f"wallet:{player_id}")
        ).scalar_one_or_none()
        if value is None:
            raise StoreError("store.unknown_player", player=player_id)
        return int(value)

    def accounts(self) -> list[AccountRecord]:
        """Every account with its balance, by id."""
        self.flush_meters()
        rows = self.connection.execute(select(s.accounts).order_by(s.accounts.c.account_id))
        return [
            AccountRecord(r.account_id, r.kind, r.owner, int(r.balance), bool(r.may_go_negative))
            for r in rows
        ]

    def ledger_total(self) -> int:
        """The sum of every account's balance (0 in a sound ledger)."""
        self.flush_meters()
        rows = self.connection.execute(select(s.accounts.c.balance)).scalars()
        return sum(int(b) for b in rows)

    def transaction(self, tx_id: int) -> TransactionRecord:
        """The transaction ``tx_id`` with its postings; refuses an unknown id
        (``store.unknown_transaction``)."""
        found = self.transactions(tx_ids=[tx_id])
        if not found:
            raise StoreError("store.unknown_transaction", tx_id=tx_id)
        return found[0]

    def transactions(
        self,
        *,
        table_id: str | None = None,
        after: int = 0,
        limit: int | None = None,
        tx_ids: Iterable[int] | None = None,
    ) -> list[TransactionRecord]:
        """Transactions with ``tx_id > after`` in order (of ``table_id`` / among ``tx_ids`` if
        given; at most ``limit``), each with its postings."""
        c = s.transactions.c
        query = select(s.transactions).where(c.tx_id > after)
        if table_id is not None:
            query = query.where(c.table_id == table_id)
        if tx_ids is not None:
            query = query.where(c.tx_id.in_(list(tx_ids)))
        query = query.order_by(c.tx_id)
        if limit is not None:
            query = query.limit(limit)
        txs = list(self.connection.execute(query))
        lines: dict[int, list[PostingRecord]] = {int(t.tx_id): [] for t in txs}
        if txs:
            p = s.postings.c
            posting_rows = self.connection.execute(
                select(s.postings)
                .where(p.tx_id >= int(txs[0].tx_id), p.tx_id <= int(txs[-1].tx_id))
                .order_by(p.tx_id, p.line)
            )
            for r in posting_rows:
                if int(r.tx_id) in lines:
                    lines[int(r.tx_id)].append(
                        PostingRecord(int(r.line), r.account_id, int(r.amount), r.reason)
                    )
        return [
            TransactionRecord(
                tx_id=int(t.tx_id),
                table_id=t.table_id,
                event_seq=t.event_seq,
                kind=t.kind,
                actor=t.actor,
                reason=t.reason,
                corrects=t.corrects,
                digest=t.digest,
                created_at=t.created_at,
                postings=tuple(lines[int(t.tx_id)]),
            )
            for t in txs
        ]

    # -- helpers ------------------------------------------------------------------------------

    def _prepare(self, index: int, entry: LedgerEntry, at_text: str) -> _Prepared | None:
        """Check ``entry`` on its own (nothing read but a corrected transaction); ``None``
        when it has nothing to post."""
        # (the enum itself when it already is one: no look-up per entry and per posting, and
        # its value read as the attribute .value reads, without the descriptor's call)
        kind = entry.kind if type(entry.kind) is TxKind else TxKind(entry.kind)
        rows: list[tuple[int, str, int, str]] = []
        accounts: list[Account] = []
        total = 0
        for p in entry.postings:
            if not isinstance(p, Posting):
                raise StoreError("store.bad_value", field="posting", value=repr(p))
            if p.amount:
                acc_id = account_id(p.account, table_id=entry.table_id, meter_id=entry.meter_id)
                reason = p.reason if type(p.reason) is Reason else Reason(p.reason)
                rows.append((len(rows), acc_id, p.amount, reason._value_))
                accounts.append(p.account)
                total += p.amount
        if total:
            raise StoreError("store.unbalanced", total=total)
        if not rows:
            return None
        if kind in AUDITED_KINDS:
            require_text(entry.actor, "actor")
            require_text(entry.reason, "reason")
        if kind is TxKind.CORRECTION:
            self._require_transaction(entry.corrects)
        elif entry.corrects is not None:
            raise StoreError("store.bad_value", field="corrects", value=repr(entry.corrects))
        for p in entry.postings:
            if (
                p.amount < 0
                and p.account.kind is AccountKind.JACKPOT_METER
                and p.reason != Reason.AWARD
                and kind not in (TxKind.METER_ADJUSTMENT, TxKind.CORRECTION)
            ):
                raise StoreError("store.meter_decrease", meter_id=entry.meter_id, amount=-p.amount)
        fields = {
            "table_id": entry.table_id,
            "event_seq": entry.event_seq,
            "kind": kind.value,
            "actor": entry.actor,
            "reason": entry.reason,
            "corrects": entry.corrects,
            "created_at": at_text,
        }
        return _Prepared(index, entry, kind, rows, accounts, transaction_digest(fields, rows))

    def _check(
        self,
        found: dict[str, tuple[int, bool]],
        lowest: dict[str, int],
        kinds: dict[str, Account],
    ) -> None:
        """Refuse unknown wallets and meters, and any account that may not go negative going
        below zero after any entry of the batch. Nothing is written."""
        for acc_id in sorted(kinds):
            account = kinds[acc_id]
            row = found.get(acc_id)
            if row is None:
                if account.kind is AccountKind.WALLET:
                    raise StoreError("store.unknown_player", player=account.owner)
                if account.kind is AccountKind.JACKPOT_METER:
                    raise StoreError("store.unknown_meter", meter_id=acc_id.partition(":")[2])
            low = lowest.get(acc_id, 0)
            if not low:
                continue
            balance, may_go_negative = (0, account.kind in MAY_GO_NEGATIVE) if row is None else row
            if balance + low < 0 and not may_go_negative:
                if account.kind is AccountKind.WALLET:
                    raise StoreError(
                        "ledger.insufficient_funds",
                        player=account.owner,
                        balance=balance,
                        amount=-low,
                    )
                raise StoreError(
                    "store.account_negative", account=acc_id, balance=balance, amount=-low
                )

    def _write(
        self,
        ready: list[_Prepared],
        at: datetime,
        running: dict[str, int],
        meters: dict[str, str],
        found: dict[str, tuple[int, bool]],
        top: int,
    ) -> list[int]:
        """Write the checked batch (SQLite, whose writers are serial: this transaction holds
        the write lock): the transactions with the ids after ``top``, their postings, every
        balance moved by its net amount (the meters' new amounts known from ``found``).
        Returns the tx ids in order."""
        tx_ids = list(range(top + 1, top + 1 + len(ready)))
        when = self.bind_time(at)
        rows = [
            (
                tx_id,
                p.entry.table_id,
                p.entry.event_seq,
                p.kind.value,
                p.entry.actor,
                p.entry.reason,
                p.entry.corrects,
                p.digest,
                when,
            )
            for p, tx_id in zip(ready, tx_ids, strict=True)
        ]
        self.driver_many(_SQLITE_INSERT_TX, rows)
        self.driver_many(
            _SQLITE_INSERT_POSTINGS,
            [
                (tx_id, *row)
                for prepared, tx_id in zip(ready, tx_ids, strict=True)
                for row in prepared.rows
            ],
        )
        moves = [(x, a) for a, x in sorted(running.items()) if x]
        if moves:
            self.driver_many(_SQLITE_MOVE, moves)
        for acc_id, meter_id in meters.items():
            if running[acc_id]:
                self.meter_changes[meter_id] = found.get(acc_id, (0, False))[0] + running[acc_id]
        return tx_ids

    def _pg_batch(
        self,
        ready: list[_Prepared],
        at: datetime,
        running: dict[str, int],
        lowest: dict[str, int],
        kinds: dict[str, Account],
        meters: dict[str, str],
    ) -> PgBatch:
        """The batch as ``macau_post``'s one parameter (PostgreSQL): ``all``, every account;
        ``open``, the table's and the house's accounts with their kind and whether they may go
        negative (opened at zero when used for the first time); ``lock``, the accounts debited
        that may not go negative with their lowest net (locked in id order and checked);
        ``tx``/``p``, the transactions (``o``: their order) and their postings; ``at``, their
        time; ``m``, the balances to move; ``n``, the meter accounts moved there, to notify.

        A meter only credited is not moved there but with the commit (``deferred``, for
        :data:`TxBase.meter_pending`): its row is held only for that, so contributions from
        many tables and processes commute. One ``json.dumps`` is the client's work for the
        whole batch (instead of a driver's adaptation of many array parameters)."""
        locked = sorted(a for a in lowest if kinds[a].kind not in MAY_GO_NEGATIVE)
        deferred = {
            meters[a]: running[a] for a in sorted(meters) if running[a] > 0 and a not in lowest
        }
        accounts = sorted(running)
        batch = json.dumps(
            {
                "all": accounts,
                "open": {
                    a: [kinds[a].kind.value, kinds[a].kind in MAY_GO_NEGATIVE]
                    for a in accounts
                    if kinds[a].kind not in _NEVER_OPENED
                },
                "lock": {a: lowest[a] for a in locked},
                "tx": [
                    {
                        "o": n,
                        "table_id": p.entry.table_id,
                        "event_seq": p.entry.event_seq,
                        "kind": p.kind.value,
                        "actor": p.entry.actor,
                        "reason": p.entry.reason,
                        "corrects": p.entry.corrects,
                        "digest": p.digest,
                    }
                    for n, p in enumerate(ready, 1)
                ],
                "at": iso(at),
                "p": [
                    {"o": n, "line": i, "account_id": a, "amount": x, "reason": r}
                    for n, p in enumerate(ready, 1)
                    for i, a, x, r in p.rows
                ],
                "m": {
                    a: x
                    for a, x in running.items()
                    if x and not (a in meters and meters[a] in deferred)
                },
                "n": {a: m for a, m in meters.items() if running[a] and m not in deferred},
            },
            separators=(",", ":"),
        )
        return PgBatch(batch, len(ready), lowest, kinds, meters, deferred)

    def _pg_rows(self, batch: PgBatch) -> list[Any]:
        """Run ``macau_post`` on ``batch`` now; its rows, or the ledger's refusal."""
        try:
            return self.driver_rows(_PG_POST, (batch.json,))
        except DBAPIError as exc:
            refusal = self._pg_refusal(batch, exc.orig)
            if refusal is None:
                raise
            raise refusal from None

    def _pg_done(self, batch: PgBatch, rows: Sequence[Any]) -> list[int]:
        """What ``macau_post`` answered for ``batch``: the meters it moved (their new amounts,
        notified by it). Returns the tx ids in order."""
        tx_ids: dict[int, int] = {}
        for what, o, tx_id, acc_id, balance in rows:
            if what == "tx":
                tx_ids[int(o)] = int(tx_id)
            elif acc_id in batch.meters:
                self.meter_changes[batch.meters[acc_id]] = int(balance)
                self.meter_notified[batch.meters[acc_id]] = int(balance)
        return [tx_ids[n] for n in range(1, batch.count + 1)]

    def _pend_meters(self, batch: PgBatch) -> None:
        """The batch's meter credits left for the commit (:data:`TxBase.meter_pending`)."""
        for meter_id, amount in batch.deferred.items():
            self.meter_pending[meter_id] = self.meter_pending.get(meter_id, 0) + amount

    def _pg_refusal(self, batch: PgBatch, error: object) -> StoreError | None:
        """The ledger's refusal of ``batch`` when the driver's ``error`` is ``macau_post``'s
        (``MT001``, the accounts it read in its detail): what :meth:`post` refuses (an unknown
        wallet or meter, an account below zero, ...). ``None`` for any other error."""
        if getattr(error, "sqlstate", None) != REFUSED:
            return None
        detail = getattr(getattr(error, "diag", None), "message_detail", None) or "[]"
        found = {str(a): (int(b), bool(may)) for a, b, may in json.loads(detail)}
        try:
            self._check(found, batch.lowest, batch.kinds)
        except StoreError as refusal:
            return refusal
        return StoreError("store.bad_value", field="ledger", value="check")  # pragma: no cover

    def _open_accounts(self, missing: list[str], kinds: dict[str, Account]) -> None:
        """Create the table and house accounts of ``missing`` at zero (their amounts are then
        moved like any other's). Two processes may open the same account at once: the second
        finds it there."""
        for acc_id in missing:
            row = {
                "account_id": acc_id,
                "kind": kinds[acc_id].kind.value,
                "owner": None,
                "balance": 0,
                "may_go_negative": kinds[acc_id].kind in MAY_GO_NEGATIVE,
            }
            stmt = (postgresql.insert if self.postgres else sqlite.insert)(s.accounts).values(row)
            self.connection.execute(
                stmt.on_conflict_do_nothing(index_elements=[s.accounts.c.account_id])
            )

    def _require_transaction(self, tx_id: int | None) -> None:
        if (
            tx_id is None
            or self.connection.execute(
                select(s.transactions.c.tx_id).where(s.transactions.c.tx_id == tx_id)
            ).first()
            is None
        ):
            raise StoreError("store.unknown_transaction", tx_id=tx_id)


_Plan = tuple[
    list[_Prepared], datetime, dict[str, int], dict[str, int], dict[str, Account], dict[str, str]
]


def _merge(plans: list[_Plan]) -> _Plan:
    """Several checked batches (of one time) as one, in order: their entries one after the
    other, each account's net summed and its lowest net after any entry taken over the whole
    sequence (so the merged batch is refused exactly when one of them would be, posted one
    after the other)."""
    if len(plans) == 1:
        return plans[0]
    ready: list[_Prepared] = []
    running: dict[str, int] = {}
    lowest: dict[str, int] = {}
    kinds: dict[str, Account] = {}
    meters: dict[str, str] = {}
    for plan_ready, _, plan_running, plan_lowest, plan_kinds, plan_meters in plans:
        ready += plan_ready
        for acc_id, low in plan_lowest.items():
            total = running.get(acc_id, 0) + low
            if total < lowest.get(acc_id, 0):
                lowest[acc_id] = total
        for acc_id, x in plan_running.items():
            total = running.get(acc_id, 0) + x
            running[acc_id] = total
        kinds.update(plan_kinds)
        meters.update(plan_meters)
    return ready, plans[0][1], running, lowest, kinds, meters
