"""The double-entry ledger: balanced transactions of postings, balances kept beside them.

Every money movement is a transaction whose postings sum to zero, checked here before anything
is written; each account's balance moves in the same database transaction by
``UPDATE accounts SET balance = balance + :x`` (row-locked deltas: many writers commute). A
wallet never goes below zero; neither do the accounts that hold money for someone (in play,
carried, commission, a meter). The table bank, house funding and the cashier may. Transactions
are never changed: a correction is a new transaction naming the one it corrects.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from sqlalchemy import case, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from ..errors import StoreError
from ..ledger import Account, AccountKind, Posting, Reason
from . import schema as s
from ._base import require_int, require_text
from .chain import iso, transaction_digest
from .events_ops import EventOps
from .records import AccountRecord, PostingRecord, TransactionRecord, TxKind

__all__ = ["MAY_GO_NEGATIVE", "LedgerOps", "account_id"]

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
    ``jackpot_meter:<meter_id>``; ``house_funding``; ``cashier``.

    Refuses (``store.account_unmapped``) a wallet without owner, a table account without a
    table id, a meter account without a meter id.
    """
    kind = AccountKind(account.kind)
    if kind is AccountKind.WALLET and account.owner:
        return f"wallet:{account.owner}"
    if kind in TABLE_KINDS and table_id:
        return f"{kind.value}:{table_id}"
    if kind is AccountKind.JACKPOT_METER and meter_id:
        return f"{kind.value}:{meter_id}"
    if kind in (AccountKind.HOUSE_FUNDING, AccountKind.CASHIER):
        return kind.value
    raise StoreError("store.account_unmapped", account=str(account))


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
        self.writable()
        kind = TxKind(kind)
        lines: list[tuple[str, Posting]] = []
        for p in postings:
            if not isinstance(p, Posting):
                raise StoreError("store.bad_value", field="posting", value=repr(p))
            if p.amount:
                lines.append((account_id(p.account, table_id=table_id, meter_id=meter_id), p))
        balance_sum = sum(p.amount for _, p in lines)
        if balance_sum:
            raise StoreError("store.unbalanced", total=balance_sum)
        if not lines:
            return None
        if kind in AUDITED_KINDS:
            require_text(actor, "actor")
            require_text(reason, "reason")
        if kind is TxKind.CORRECTION:
            self._require_transaction(corrects)
        elif corrects is not None:
            raise StoreError("store.bad_value", field="corrects", value=repr(corrects))
        for _, p in lines:
            if (
                p.account.kind is AccountKind.JACKPOT_METER
                and p.amount < 0
                and p.reason != Reason.AWARD
                and kind not in (TxKind.METER_ADJUSTMENT, TxKind.CORRECTION)
            ):
                raise StoreError("store.meter_decrease", meter_id=meter_id, amount=-p.amount)
        net: dict[str, int] = {}
        kinds: dict[str, Account] = {}
        for acc_id, p in lines:
            net[acc_id] = net.get(acc_id, 0) + p.amount
            kinds[acc_id] = p.account
        existing = self._lock_and_check(net, kinds)
        new_balances = self._open_accounts(
            {a: x for a, x in net.items() if a not in existing}, kinds
        )
        at = self.now()
        rows = [
            (i, acc_id, p.amount, Reason(p.reason).value) for i, (acc_id, p) in enumerate(lines)
        ]
        fields = {
            "table_id": table_id,
            "event_seq": event_seq,
            "kind": kind.value,
            "actor": actor,
            "reason": reason,
            "corrects": corrects,
            "created_at": iso(at),
        }
        tx_id = int(
            self.connection.execute(
                insert(s.transactions)
                .values(
                    table_id=table_id,
                    event_seq=event_seq,
                    kind=kind.value,
                    actor=actor,
                    reason=reason,
                    corrects=corrects,
                    digest=transaction_digest(fields, rows),
                    created_at=at,
                )
                .returning(s.transactions.c.tx_id)
            ).scalar_one()
        )
        self.connection.execute(
            insert(s.postings),
            [
                {"tx_id": tx_id, "line": i, "account_id": a, "amount": x, "reason": r}
                for i, a, x, r in rows
            ],
        )
        moved = {a: x for a, x in net.items() if a in existing and x}
        if moved:
            # One statement for every account (rows already locked in order on PostgreSQL).
            delta = case(moved, value=s.accounts.c.account_id, else_=0)
            result = self.connection.execute(
                update(s.accounts)
                .where(s.accounts.c.account_id.in_(sorted(moved)))
                .values(balance=s.accounts.c.balance + delta)
                .returning(s.accounts.c.account_id, s.accounts.c.balance)
            )
            new_balances.update({r.account_id: int(r.balance) for r in result})
        for acc_id, balance in new_balances.items():
            if kinds[acc_id].kind is AccountKind.JACKPOT_METER and meter_id is not None:
                self.meter_changes[meter_id] = balance
        return tx_id

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
        rows = self.connection.execute(select(s.accounts).order_by(s.accounts.c.account_id))
        return [
            AccountRecord(r.account_id, r.kind, r.owner, int(r.balance), bool(r.may_go_negative))
            for r in rows
        ]

    def ledger_total(self) -> int:
        """The sum of every account's balance (0 in a sound ledger)."""
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

    def _lock_and_check(self, net: dict[str, int], kinds: dict[str, Account]) -> set[str]:
        """Lock the accounts of ``net`` that exist (in id order, PostgreSQL) and refuse unknown
        wallets and meters and any balance that would go below zero where it may not; returns
        the ids that exist. Nothing is written."""
        a = s.accounts.c
        query = (
            select(a.account_id, a.balance, a.may_go_negative)
            .where(a.account_id.in_(sorted(net)))
            .order_by(a.account_id)
        )
        found = {r.account_id: r for r in self.connection.execute(self.locked(query))}
        for acc_id in sorted(net):
            account = kinds[acc_id]
            row = found.get(acc_id)
            if row is None:
                if account.kind is AccountKind.WALLET:
                    raise StoreError("store.unknown_player", player=account.owner)
                if account.kind is AccountKind.JACKPOT_METER:
                    raise StoreError("store.unknown_meter", meter_id=acc_id.partition(":")[2])
            balance = 0 if row is None else int(row.balance)
            may_go_negative = (
                account.kind in MAY_GO_NEGATIVE if row is None else bool(row.may_go_negative)
            )
            if balance + net[acc_id] < 0 and not may_go_negative:
                if account.kind is AccountKind.WALLET:
                    raise StoreError(
                        "ledger.insufficient_funds",
                        player=account.owner,
                        balance=balance,
                        amount=-net[acc_id],
                    )
                raise StoreError(
                    "store.account_negative", account=acc_id, balance=balance, amount=-net[acc_id]
                )
        return set(found)

    def _open_accounts(self, net: dict[str, int], kinds: dict[str, Account]) -> dict[str, int]:
        """Create the table and house accounts of ``net`` holding their first amount; returns
        their balances. Two processes may open the same account at once: the second adds to
        what the first created."""
        if not net:
            return {}
        rows = [
            {
                "account_id": acc_id,
                "kind": kinds[acc_id].kind.value,
                "owner": None,
                "balance": net[acc_id],
                "may_go_negative": kinds[acc_id].kind in MAY_GO_NEGATIVE,
            }
            for acc_id in sorted(net)
        ]
        balances: dict[str, int] = {}
        for row in rows:
            stmt = (postgresql.insert if self.postgres else sqlite.insert)(s.accounts).values(row)
            upsert = stmt.on_conflict_do_update(
                index_elements=[s.accounts.c.account_id],
                set_={"balance": s.accounts.c.balance + stmt.excluded.balance},
            ).returning(s.accounts.c.account_id, s.accounts.c.balance)
            for r in self.connection.execute(upsert):
                balances[r.account_id] = int(r.balance)
        return balances

    def _require_transaction(self, tx_id: int | None) -> None:
        if (
            tx_id is None
            or self.connection.execute(
                select(s.transactions.c.tx_id).where(s.transactions.c.tx_id == tx_id)
            ).first()
            is None
        ):
            raise StoreError("store.unknown_transaction", tx_id=tx_id)
