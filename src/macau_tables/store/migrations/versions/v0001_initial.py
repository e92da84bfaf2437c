"""Schema v1: configurations, players, meters and their log and hits, casino tables, the
hash-chained event log, the double-entry ledger (accounts, transactions, postings),
idempotency records, snapshots, shoes and the audit log.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

SCHEMA_VERSION = 1

_ID = sa.String(100)
_HASH = sa.String(64)
_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _at(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "schema_info",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.create_table(
        "configs",
        sa.Column("config_id", _ID, primary_key=True),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("sha256", _HASH, nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        _at("created_at"),
    )
    op.create_table(
        "players",
        sa.Column("player_id", _ID, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        _at("created_at"),
    )
    op.create_table(
        "meters",
        sa.Column("meter_id", _ID, primary_key=True),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("params_pending", sa.Text, nullable=True),
        sa.Column("seed_pending", sa.BigInteger, nullable=True),
        sa.Column("hits", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        _at("created_at"),
    )
    op.create_table(
        "casino_tables",
        sa.Column("table_id", _ID, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("mode", sa.String(10), nullable=False),
        sa.Column("demo", sa.Boolean, nullable=False),
        sa.Column("config_id", _ID, sa.ForeignKey("configs.config_id"), nullable=False),
        sa.Column("meter_id", _ID, sa.ForeignKey("meters.meter_id"), nullable=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("fault", sa.Text, nullable=True),
        sa.Column("lease_owner", sa.String(200), nullable=True),
        _at("lease_until", nullable=True),
        _at("created_at"),
    )
    op.create_table(
        "events",
        sa.Column("table_id", _ID, sa.ForeignKey("casino_tables.table_id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("round_id", _ID, nullable=True),
        sa.Column("type", sa.String(120), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("prev_hash", _HASH, nullable=False),
        sa.Column("hash", _HASH, nullable=False),
        _at("recorded_at"),
    )
    op.create_index("ix_events_round", "events", ["table_id", "round_id"])
    op.create_table(
        "accounts",
        sa.Column("account_id", sa.String(200), primary_key=True),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("owner", _ID, nullable=True),
        sa.Column("balance", sa.BigInteger, nullable=False),
        sa.Column("may_go_negative", sa.Boolean, nullable=False),
    )
    op.create_table(
        "transactions",
        sa.Column("tx_id", _SERIAL, primary_key=True, autoincrement=True),
        sa.Column("table_id", _ID, sa.ForeignKey("casino_tables.table_id"), nullable=True),
        sa.Column("event_seq", sa.Integer, nullable=True),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("actor", sa.String(200), nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("corrects", sa.BigInteger, sa.ForeignKey("transactions.tx_id"), nullable=True),
        sa.Column("digest", _HASH, nullable=False),
        _at("created_at"),
    )
    op.create_index("ix_transactions_table", "transactions", ["table_id", "event_seq"])
    op.create_table(
        "postings",
        sa.Column("tx_id", sa.BigInteger, sa.ForeignKey("transactions.tx_id"), primary_key=True),
        sa.Column("line", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column(
            "account_id", sa.String(200), sa.ForeignKey("accounts.account_id"), nullable=False
        ),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("reason", sa.String(40), nullable=False),
    )
    op.create_index("ix_postings_account", "postings", ["account_id"])
    op.create_table(
        "meter_log",
        sa.Column("meter_id", _ID, sa.ForeignKey("meters.meter_id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("prev_hash", _HASH, nullable=False),
        sa.Column("hash", _HASH, nullable=False),
    )
    op.create_table(
        "meter_hits",
        sa.Column("meter_id", _ID, sa.ForeignKey("meters.meter_id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("table_id", _ID, nullable=False),
        sa.Column("round_id", _ID, nullable=False),
        sa.Column("box", sa.Integer, nullable=False),
        sa.Column("combination", sa.String(60), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        _at("at"),
    )
    op.create_table(
        "idempotency",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("scope", sa.String(200), nullable=False),
        sa.Column("request_sha256", _HASH, nullable=False),
        sa.Column("response", sa.Text, nullable=False),
        _at("created_at"),
    )
    op.create_table(
        "snapshots",
        sa.Column("table_id", _ID, sa.ForeignKey("casino_tables.table_id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("payload", sa.Text, nullable=False),
        _at("created_at"),
    )
    op.create_table(
        "shoes",
        sa.Column("table_id", _ID, sa.ForeignKey("casino_tables.table_id"), primary_key=True),
        sa.Column("shoe_no", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("commitment", sa.String(200), nullable=False),
        sa.Column("revealed", sa.Text, nullable=True),
        sa.Column("verified", sa.Boolean, nullable=True),
        _at("created_at"),
        _at("revealed_at", nullable=True),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", _SERIAL, primary_key=True, autoincrement=True),
        _at("at"),
        sa.Column("actor", sa.String(200), nullable=False),
        sa.Column("action", sa.String(80), nullable=False),
        sa.Column("table_id", _ID, nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("detail", sa.Text, nullable=True),
    )
    op.create_index("ix_audit_table", "audit_log", ["table_id"])
    op.execute(
        sa.text("INSERT INTO schema_info (id, version) VALUES (1, :v)").bindparams(v=SCHEMA_VERSION)
    )


def downgrade() -> None:
    for index, table in (
        ("ix_audit_table", "audit_log"),
        ("ix_postings_account", "postings"),
        ("ix_transactions_table", "transactions"),
        ("ix_events_round", "events"),
    ):
        op.drop_index(index, table_name=table)
    for table in (
        "audit_log",
        "shoes",
        "snapshots",
        "idempotency",
        "meter_hits",
        "meter_log",
        "postings",
        "transactions",
        "accounts",
        "events",
        "casino_tables",
        "meters",
        "players",
        "configs",
        "schema_info",
    ):
        op.drop_table(table)
