"""Linked progressive meters: the amount is the balance of the meter's ledger account.

Contributions are ordinary postings to ``jackpot_meter:<meter_id>`` (commuting deltas); an
award is read under a lock (:meth:`MeterOps.meter_amount` with ``lock=True``) and paid by the
settling transaction's postings, then recorded with :meth:`MeterOps.record_hit` (the hit order
is the meter's ``seq``). Parameter changes wait in ``params_pending``/``seed_pending`` until the
next hit. Every change of a meter's row is also an entry of its hash-chained ``meter_log``, from
which :mod:`~macau_tables.store.verify` re-derives the row (a row changed behind the store's
back is found).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import bindparam, insert, select, update

from ..errors import StoreError
from ..ledger import Account, AccountKind, Posting, Reason, meter_seed
from . import schema as s
from ._base import require_int, require_text
from .chain import canonical_json, chain_hash, iso
from .ledger_ops import LedgerOps
from .records import MeterHit, MeterRecord, TxKind, dumps, loads_object

__all__ = ["MeterOps", "meter_account"]


def meter_account(meter_id: str) -> str:
    """The ledger account id holding ``meter_id``'s amount."""
    return f"jackpot_meter:{meter_id}"


_METER_STATE = (
    select(s.accounts.c.balance, s.meters.c.seed)
    .select_from(s.meters.join(s.accounts, s.accounts.c.account_id == bindparam("account")))
    .where(s.meters.c.meter_id == bindparam("meter_id"))
)
_METER_STATE_LOCKED = _METER_STATE.with_for_update(of=s.accounts)


class MeterOps(LedgerOps):
    """Linked meters (part of :class:`~macau_tables.store.Tx`)."""

    def create_meter(
        self, meter_id: str, *, game: str, seed: int, params: Mapping[str, Any], actor: str
    ) -> MeterRecord:
        """Create a meter for ``game`` and fund its ``seed`` from house funding (a
        ``meter_seed`` transaction); ``params`` are the game's meter settings (JSON). Refuses
        an id already used (``store.meter_exists``) and a negative seed."""
        self.writable()
        require_text(meter_id, "meter_id")
        require_text(game, "game")
        require_text(actor, "actor")
        require_int(seed, "seed", minimum=0)
        if self._meter_row(meter_id) is not None:
            raise StoreError("store.meter_exists", meter_id=meter_id)
        at = self.now()
        params_text = dumps(dict(params))
        self.connection.execute(
            insert(s.meters).values(
                meter_id=meter_id,
                game=game,
                seed=seed,
                params=params_text,
                hits=0,
                version=0,
                created_at=at,
            )
        )
        self.connection.execute(
            insert(s.accounts).values(
                account_id=meter_account(meter_id),
                kind=AccountKind.JACKPOT_METER.value,
                owner=meter_id,
                balance=0,
                may_go_negative=False,
            )
        )
        self._log(
            meter_id,
            "create",
            {"game": game, "seed": seed, "params": json.loads(params_text or "{}")},
        )
        self.post(meter_seed(seed), kind=TxKind.METER_SEED, meter_id=meter_id, actor=actor)
        self.audit("meter_create", actor=actor, detail={"meter_id": meter_id, "seed": seed})
        return self.meter(meter_id)

    def meter(self, meter_id: str) -> MeterRecord:
        """The meter ``meter_id`` with its amount; refuses an unknown one
        (``store.unknown_meter``)."""
        row = self._meter_row(meter_id)
        if row is None:
            raise StoreError("store.unknown_meter", meter_id=meter_id)
        return self._record(row)

    def meters(self) -> list[MeterRecord]:
        """Every meter, by id."""
        rows = self.connection.execute(select(s.meters).order_by(s.meters.c.meter_id))
        return [self._record(r) for r in rows]

    def meter_amount(self, meter_id: str, *, lock: bool = False) -> int:
        """The meter's amount (its account balance). ``lock=True`` holds the meter until the
        transaction ends (``SELECT … FOR UPDATE`` on PostgreSQL), so two tables' awards are
        computed and paid one after the other. Refuses an unknown meter."""
        self.flush_meters()
        query = select(s.accounts.c.balance).where(
            s.accounts.c.account_id == meter_account(meter_id)
        )
        value = self.connection.execute(self.locked(query) if lock else query).scalar_one_or_none()
        if value is None:
            raise StoreError("store.unknown_meter", meter_id=meter_id)
        return int(value)

    def meter_state(self, meter_id: str, *, lock: bool = False) -> tuple[int, int]:
        """``(amount, seed)`` of ``meter_id`` in one read (``lock`` as :meth:`meter_amount`:
        the amount's row held until the transaction ends). Refuses an unknown meter."""
        statement = (
            _METER_STATE_LOCKED if lock and self.postgres and not self.readonly else (_METER_STATE)
        )
        self.flush_meters()
        row = self.connection.execute(
            statement, {"meter_id": meter_id, "account": meter_account(meter_id)}
        ).first()
        if row is None:
            raise StoreError("store.unknown_meter", meter_id=meter_id)
        return int(row.balance), int(row.seed)

    def record_hit(
        self,
        meter_id: str,
        *,
        table_id: str,
        round_id: str,
        box: int,
        combination: str,
        amount: int,
        place: str | None = None,
    ) -> MeterHit:
        """Record an award of ``amount`` taken from ``meter_id`` (the money moved by the
        settling postings); returns the hit with its order ``seq``. ``box`` is the award's key
        in the settlement, ``place`` the winning box or seat (``"box 3"``, ``"seat 2"``;
        CSP-10.4, BAC-17) when the settlement names it. Parameters pending take effect now.
        Refuses an unknown meter and bad values."""
        self.writable()
        require_text(table_id, "table_id")
        require_text(round_id, "round_id")
        require_text(combination, "combination")
        require_int(box, "box")
        require_int(amount, "amount", minimum=0)
        if place is not None:
            require_text(place, "place")
        row = self._meter_row(meter_id, lock=True)
        if row is None:
            raise StoreError("store.unknown_meter", meter_id=meter_id)
        at = self.now()
        seq = int(row.hits) + 1
        hit = MeterHit(meter_id, seq, table_id, round_id, box, combination, amount, at, place)
        self.connection.execute(
            insert(s.meter_hits).values(
                meter_id=meter_id,
                seq=seq,
                table_id=table_id,
                round_id=round_id,
                box=box,
                combination=combination,
                amount=amount,
                at=at,
                place=place,
            )
        )
        changes: dict[str, Any] = {"hits": seq, "params_pending": None, "seed_pending": None}
        if row.params_pending is not None:
            changes["params"] = row.params_pending
        if row.seed_pending is not None:
            changes["seed"] = row.seed_pending
        logged: dict[str, Any] = {
            "seq": seq,
            "table_id": table_id,
            "round_id": round_id,
            "box": box,
            "combination": combination,
            "amount": amount,
            "at": iso(at),
        }
        if place is not None:  # a hit without a place logs as it did before schema v9
            logged["place"] = place
        self._log(meter_id, "hit", logged, changes)
        return hit

    def hits(self, meter_id: str, *, last: int = 25) -> list[MeterHit]:
        """The last ``last`` hits of ``meter_id``, newest first."""
        c = s.meter_hits.c
        rows = self.connection.execute(
            select(s.meter_hits).where(c.meter_id == meter_id).order_by(c.seq.desc()).limit(last)
        )
        return [
            MeterHit(
                r.meter_id,
                int(r.seq),
                r.table_id,
                r.round_id,
                int(r.box),
                r.combination,
                int(r.amount),
                r.at,
                r.place,
            )
            for r in rows
        ]

    def set_meter_params(
        self,
        meter_id: str,
        *,
        seed: int | None = None,
        params: Mapping[str, Any] | None = None,
        actor: str,
        reason: str,
    ) -> MeterRecord:
        """Change ``meter_id``'s seed and/or parameters from its next hit on (they wait as
        pending until then); audited. Refuses an unknown meter, a negative seed, nothing to
        change, a missing actor or reason."""
        self.writable()
        require_text(actor, "actor")
        require_text(reason, "reason")
        if seed is None and params is None:
            raise StoreError("store.bad_value", field="params", value="None")
        if seed is not None:
            require_int(seed, "seed", minimum=0)
        row = self._meter_row(meter_id, lock=True)
        if row is None:
            raise StoreError("store.unknown_meter", meter_id=meter_id)
        pending_params = dumps(dict(params)) if params is not None else row.params_pending
        pending_seed = seed if seed is not None else row.seed_pending
        changes = {"params_pending": pending_params, "seed_pending": pending_seed}
        self._log(
            meter_id,
            "params",
            {
                "seed_pending": pending_seed,
                "params_pending": loads_object(pending_params),
                "actor": actor,
                "reason": reason,
            },
            changes,
        )
        self.audit(
            "meter_params",
            actor=actor,
            reason=reason,
            detail={
                "meter_id": meter_id,
                "seed": seed,
                "params": dict(params) if params is not None else None,
            },
        )
        return self.meter(meter_id)

    def adjust_meter(self, meter_id: str, amount: int, *, actor: str, reason: str) -> int:
        """An audited adjustment of ``meter_id``'s amount by ``amount`` (either sign) against
        house funding; returns the tx id. Refuses a zero amount, an unknown meter, a meter going
        below zero, a missing actor or reason."""
        self.writable()
        require_int(amount, "amount")
        if amount == 0:
            raise StoreError("store.bad_value", field="amount", value="0")
        if self._meter_row(meter_id, lock=True) is None:
            raise StoreError("store.unknown_meter", meter_id=meter_id)
        postings = (
            Posting(Account(AccountKind.HOUSE_FUNDING), -amount, Reason.SEED),
            Posting(Account(AccountKind.JACKPOT_METER), amount, Reason.SEED),
        )
        tx_id = self.post(
            postings, kind=TxKind.METER_ADJUSTMENT, meter_id=meter_id, actor=actor, reason=reason
        )
        assert tx_id is not None
        self._log(
            meter_id, "adjust", {"amount": amount, "tx_id": tx_id, "actor": actor, "reason": reason}
        )
        self.audit(
            "meter_adjust",
            actor=actor,
            reason=reason,
            detail={"meter_id": meter_id, "amount": amount, "tx_id": tx_id},
        )
        return tx_id

    # -- helpers ------------------------------------------------------------------------------

    def _meter_row(self, meter_id: str, *, lock: bool = False) -> Any:
        query = select(s.meters).where(s.meters.c.meter_id == meter_id)
        return self.connection.execute(self.locked(query) if lock else query).first()

    def _record(self, row: Any) -> MeterRecord:
        return MeterRecord(
            meter_id=row.meter_id,
            game=row.game,
            seed=int(row.seed),
            amount=self.meter_amount(row.meter_id),
            params=loads_object(row.params) or {},
            params_pending=loads_object(row.params_pending),
            seed_pending=None if row.seed_pending is None else int(row.seed_pending),
            hits=int(row.hits),
            version=int(row.version),
            created_at=row.created_at,
        )

    def _log(
        self,
        meter_id: str,
        kind: str,
        data: Mapping[str, Any],
        changes: Mapping[str, Any] | None = None,
    ) -> None:
        """Append to the meter's log and bump its version (with ``changes`` to its row)."""
        c = s.meter_log.c
        last = self.connection.execute(
            select(c.seq, c.hash).where(c.meter_id == meter_id).order_by(c.seq.desc()).limit(1)
        ).first()
        seq, prev = (1, "0" * 64) if last is None else (int(last.seq) + 1, last.hash)
        payload = canonical_json({"kind": kind, "meter_id": meter_id, **data})
        self.connection.execute(
            insert(s.meter_log).values(
                meter_id=meter_id,
                seq=seq,
                kind=kind,
                payload=payload.decode("utf-8"),
                prev_hash=prev,
                hash=chain_hash(prev, payload),
            )
        )
        self.connection.execute(
            update(s.meters)
            .where(s.meters.c.meter_id == meter_id)
            .values(version=seq, **dict(changes or {}))
        )
