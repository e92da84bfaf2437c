"""Configurations, players, casino tables and their leases."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import insert, or_, select, text, update

from .. import codec
from ..errors import StoreError
from . import schema as s
from ._base import require_text
from .records import (
    ConfigRecord,
    PlayerRecord,
    TableMode,
    TableRecord,
    TableStatus,
    dumps,
    loads_object,
)
from .records_ops import RecordOps

__all__ = ["FENCE_CLASS", "CatalogOps", "wallet_account"]

FENCE_CLASS = 1296127059
"""PostgreSQL: the first key of a table's fence, an advisory lock keyed ``(FENCE_CLASS,
hashtext(table_id))`` — held shared by every append to the table's log until its transaction
ends, taken exclusive by :meth:`CatalogOps.acquire_lease`. Two tables whose ids hash alike
share a fence: they only wait for each other a moment more."""
_FENCE = text(f"SELECT pg_advisory_xact_lock({FENCE_CLASS}, hashtext(CAST(:table_id AS text)))")


@lru_cache(maxsize=256)
def _checked_rules(payload: str, sha256: str) -> Any:
    """The rules a stored configuration's ``payload`` holds, if the payload's bytes and the
    rules decoded from them (the codec's digest) both hash to ``sha256``; else ``None``. A
    function of its arguments alone, so kept for the process: a server loads the
    configuration of each table it takes at every start and takeover — the same few, decoded
    and hashed once (the rules are immutable; a payload that does not decode raises, and is
    not kept)."""
    if hashlib.sha256(payload.encode("utf-8")).hexdigest() != sha256:
        return None
    rules = codec.decode(json.loads(payload))
    return rules if codec.sha256(rules) == sha256 else None


def wallet_account(player_id: str) -> str:
    """The ledger account id of ``player_id``'s wallet."""
    return f"wallet:{player_id}"


class CatalogOps(RecordOps):
    """Configurations, players, tables (part of :class:`~macau_tables.store.Tx`)."""

    # -- configurations -----------------------------------------------------------------------

    def put_config(self, game: str, config_id: str, rules: object) -> str:
        """Store ``rules`` (a registered rules dataclass) as ``config_id`` of ``game``, once;
        returns their codec SHA-256. The same id with the same rules is a no-op; with other
        rules, or of another game, it is refused (``store.config_conflict``): a changed
        configuration is a new id."""
        self.writable()
        require_text(game, "game")
        require_text(config_id, "config_id")
        payload = codec.canonical_bytes(rules)
        digest = hashlib.sha256(payload).hexdigest()
        row = self.connection.execute(
            select(s.configs.c.sha256, s.configs.c.game).where(s.configs.c.config_id == config_id)
        ).first()
        if row is not None:
            if row.sha256 != digest or row.game != game:
                raise StoreError("store.config_conflict", config_id=config_id)
            return digest
        self.connection.execute(
            insert(s.configs).values(
                config_id=config_id,
                game=game,
                sha256=digest,
                payload=payload.decode("utf-8"),
                created_at=self.now(),
            )
        )
        return digest

    def config(self, config_id: str) -> ConfigRecord:
        """The stored configuration ``config_id``; refuses an unknown id
        (``store.unknown_config``)."""
        row = self.connection.execute(
            select(s.configs).where(s.configs.c.config_id == config_id)
        ).first()
        if row is None:
            raise StoreError("store.unknown_config", config_id=config_id)
        return ConfigRecord(row.config_id, row.game, row.sha256, row.payload, row.created_at)

    def get_config(self, config_id: str) -> Any:
        """The rules stored as ``config_id``, decoded. Refuses an unknown id, and rules whose
        bytes no longer hash to the stored digest (``store.config_tampered``)."""
        record = self.config(config_id)
        rules = _checked_rules(record.payload, record.sha256)
        if rules is None:
            raise StoreError("store.config_tampered", config_id=config_id)
        return rules

    def config_resolver(self) -> Callable[[str], Any]:
        """A resolver for ``codec.decode(..., rules=...)``: config id -> rules (cached)."""
        cache: dict[str, Any] = {}

        def resolve(config_id: str) -> Any:
            if config_id not in cache:
                cache[config_id] = self.get_config(config_id)
            return cache[config_id]

        return resolve

    # -- players ------------------------------------------------------------------------------

    def add_player(self, player_id: str, name: str) -> None:
        """Register a player and open their wallet (balance 0). Refuses an id already used
        (``store.player_exists``)."""
        self.writable()
        require_text(player_id, "player_id")
        require_text(name, "name")
        if self.player(player_id) is not None:
            raise StoreError("store.player_exists", player=player_id)
        self.connection.execute(
            insert(s.players).values(player_id=player_id, name=name, created_at=self.now())
        )
        self.connection.execute(
            insert(s.accounts).values(
                account_id=wallet_account(player_id),
                kind="wallet",
                owner=player_id,
                balance=0,
                may_go_negative=False,
            )
        )

    def player(self, player_id: str) -> PlayerRecord | None:
        """The player ``player_id`` with their wallet balance, or ``None``."""
        found = [p for p in self._players(player_id) if p.player_id == player_id]
        return found[0] if found else None

    def players(self) -> list[PlayerRecord]:
        """Every player, by id."""
        return self._players(None)

    def _players(self, player_id: str | None) -> list[PlayerRecord]:
        query = select(
            s.players.c.player_id, s.players.c.name, s.players.c.created_at, s.accounts.c.balance
        ).join(s.accounts, s.accounts.c.account_id == "wallet:" + s.players.c.player_id)
        if player_id is not None:
            query = query.where(s.players.c.player_id == player_id)
        rows = self.connection.execute(query.order_by(s.players.c.player_id))
        return [PlayerRecord(r.player_id, r.name, int(r.balance), r.created_at) for r in rows]

    # -- casino tables ------------------------------------------------------------------------

    def create_table(
        self,
        table_id: str,
        *,
        name: str,
        game: str,
        mode: TableMode,
        demo: bool,
        config_id: str,
        meter_id: str | None = None,
    ) -> TableRecord:
        """Create a casino table (status closed) running ``config_id``. Refuses an id already
        used (``store.table_exists``), an unknown configuration or one of another game
        (``store.unknown_config``, ``store.wrong_game``), an unknown meter
        (``store.unknown_meter``)."""
        self.writable()
        require_text(table_id, "table_id")
        require_text(name, "name")
        mode = TableMode(mode)
        if self._table_row(table_id) is not None:
            raise StoreError("store.table_exists", table_id=table_id)
        self._require_config_of(config_id, game)
        if meter_id is not None:
            found = self.connection.execute(
                select(s.meters.c.game).where(s.meters.c.meter_id == meter_id)
            ).scalar_one_or_none()
            if found is None:
                raise StoreError("store.unknown_meter", meter_id=meter_id)
        self.connection.execute(
            insert(s.casino_tables).values(
                table_id=table_id,
                name=name,
                game=game,
                mode=mode.value,
                demo=bool(demo),
                config_id=config_id,
                meter_id=meter_id,
                status=TableStatus.CLOSED.value,
                created_at=self.now(),
            )
        )
        return self.table(table_id)

    def table(self, table_id: str) -> TableRecord:
        """The table ``table_id``; refuses an unknown one (``store.unknown_table``)."""
        row = self._table_row(table_id)
        if row is None:
            raise StoreError("store.unknown_table", table_id=table_id)
        return _table_record(row)

    def tables(self) -> list[TableRecord]:
        """Every casino table, by id."""
        rows = self.connection.execute(select(s.casino_tables).order_by(s.casino_tables.c.table_id))
        return [_table_record(r) for r in rows]

    def set_table_status(
        self,
        table_id: str,
        status: TableStatus,
        *,
        actor: str,
        reason: str,
        fault: Mapping[str, Any] | None = None,
    ) -> None:
        """Open, close or fault a table (a fault keeps its ``fault`` detail; any other status
        clears it); audited. Refuses an unknown table."""
        self.writable()
        status = TableStatus(status)
        self.table(table_id)
        detail = dumps(dict(fault)) if fault is not None else None
        self.connection.execute(
            update(s.casino_tables)
            .where(s.casino_tables.c.table_id == table_id)
            .values(status=status.value, fault=detail if status is TableStatus.FAULT else None)
        )
        self.audit(
            f"table_{status.value}",
            actor=actor,
            table_id=table_id,
            reason=reason,
            detail=dict(fault) if fault is not None else None,
        )

    def set_table_config(self, table_id: str, config_id: str, *, actor: str, reason: str) -> None:
        """Run ``table_id`` under another stored configuration of its game from now on;
        audited. Refuses an unknown table or configuration, or one of another game."""
        self.writable()
        table = self.table(table_id)
        self._require_config_of(config_id, table.game)
        self.connection.execute(
            update(s.casino_tables)
            .where(s.casino_tables.c.table_id == table_id)
            .values(config_id=config_id)
        )
        self.audit(
            "table_config",
            actor=actor,
            table_id=table_id,
            reason=reason,
            detail={"from": table.config_id, "to": config_id},
        )

    def acquire_lease(self, table_id: str, owner: str, *, until: datetime) -> bool:
        """Make ``owner`` the one process running ``table_id`` until ``until`` (renewing its
        own lease); ``False`` while another owner's lease has not expired.

        PostgreSQL: first waits for every transaction still writing ``table_id``'s log (the
        table's fence, :data:`FENCE_CLASS`, which an append holds shared until it ends). A
        process killed with its ``COMMIT`` already sent leaves a backend that may still commit
        that request; the process taking the table next reads the table after that commit,
        never before it (SQLite: a writer's transaction ends with its process)."""
        self.writable()
        require_text(owner, "owner")
        self.table(table_id)
        if self.postgres:
            self.connection.execute(_FENCE, {"table_id": table_id})
        c = s.casino_tables.c
        result = self.connection.execute(
            update(s.casino_tables)
            .where(
                c.table_id == table_id,
                or_(c.lease_owner.is_(None), c.lease_owner == owner, c.lease_until < self.now()),
            )
            .values(lease_owner=owner, lease_until=until)
        )
        return result.rowcount == 1

    def release_lease(self, table_id: str, owner: str) -> None:
        """Give up ``owner``'s lease of ``table_id`` (nothing if it holds none)."""
        self.writable()
        c = s.casino_tables.c
        self.connection.execute(
            update(s.casino_tables)
            .where(c.table_id == table_id, c.lease_owner == owner)
            .values(lease_owner=None, lease_until=None)
        )

    def _require_config_of(self, config_id: str, game: str) -> None:
        record = self.config(config_id)
        if record.game != game:
            raise StoreError(
                "store.wrong_game", config_id=config_id, game=record.game, expected=game
            )

    def _table_row(self, table_id: str, *, lock: bool = False) -> Any:
        query = select(s.casino_tables).where(s.casino_tables.c.table_id == table_id)
        return self.connection.execute(self.locked(query) if lock else query).first()


def _table_record(row: Any) -> TableRecord:
    return TableRecord(
        table_id=row.table_id,
        name=row.name,
        game=row.game,
        mode=TableMode(row.mode),
        demo=bool(row.demo),
        config_id=row.config_id,
        meter_id=row.meter_id,
        status=TableStatus(row.status),
        fault=loads_object(row.fault),
        lease_owner=row.lease_owner,
        lease_until=row.lease_until,
        created_at=row.created_at,
    )
