"""The schema (SQLAlchemy Core metadata) the code reads and writes; the migrations in
``migrations/versions`` create exactly this (a test compares them).

:data:`SCHEMA_VERSION` is the version this code needs; each migration records its version in
``schema_info`` beside Alembic's own revision.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    literal_column,
    or_,
)
from sqlalchemy.types import TypeDecorator

__all__ = [
    "ROUND_END",
    "SCHEMA_VERSION",
    "UtcDateTime",
    "accounts",
    "audit_log",
    "auth_sessions",
    "casino_tables",
    "configs",
    "events",
    "idempotency",
    "login_failures",
    "metadata",
    "meter_hits",
    "meter_log",
    "meters",
    "players",
    "postings",
    "schema_info",
    "settlement_facts",
    "shoes",
    "snapshots",
    "transactions",
    "users",
]

SCHEMA_VERSION: Final = 11
"""The schema version this code reads and writes (``schema_info.version``)."""

HASH = String(64)
ID = String(100)


class UtcDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back timezone-aware (SQLite keeps no zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("the store keeps aware datetimes only")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


# An auto-increment key: BIGINT on PostgreSQL, INTEGER PRIMARY KEY (the rowid) on SQLite.
SERIAL = BigInteger().with_variant(Integer(), "sqlite")

metadata = MetaData()

schema_info = Table(
    "schema_info",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("version", Integer, nullable=False),
)

configs = Table(
    "configs",
    metadata,
    Column("config_id", ID, primary_key=True),
    Column("game", String(40), nullable=False),
    Column("sha256", HASH, nullable=False),
    Column("payload", Text, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
)

players = Table(
    "players",
    metadata,
    Column("player_id", ID, primary_key=True),
    Column("name", String(200), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
)

meters = Table(
    "meters",
    metadata,
    Column("meter_id", ID, primary_key=True),
    Column("game", String(40), nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("params", Text, nullable=False),
    Column("params_pending", Text, nullable=True),
    Column("seed_pending", BigInteger, nullable=True),
    Column("hits", Integer, nullable=False),
    Column("version", Integer, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
)

casino_tables = Table(
    "casino_tables",
    metadata,
    Column("table_id", ID, primary_key=True),
    Column("name", String(200), nullable=False),
    Column("game", String(40), nullable=False),
    Column("mode", String(10), nullable=False),
    Column("demo", Boolean, nullable=False),
    Column("config_id", ID, ForeignKey("configs.config_id"), nullable=False),
    Column("meter_id", ID, ForeignKey("meters.meter_id"), nullable=True),
    Column("status", String(10), nullable=False),
    Column("fault", Text, nullable=True),
    Column("lease_owner", String(200), nullable=True),
    Column("lease_until", UtcDateTime, nullable=True),
    Column("created_at", UtcDateTime, nullable=False),
)

events = Table(
    "events",
    metadata,
    Column("table_id", ID, ForeignKey("casino_tables.table_id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("round_id", ID, nullable=True),
    Column("type", String(120), nullable=False),
    Column("payload", Text, nullable=False),
    Column("prev_hash", HASH, nullable=False),
    Column("hash", HASH, nullable=False),
    Column("recorded_at", UtcDateTime, nullable=False),
    Index("ix_events_round", "table_id", "round_id"),
)

# -- schema v11: the rounds' ends by time (migration v0011_round_ends) -------------------------
# The events that end a round (a settlement or a void, of any game: ``….RoundSettled``,
# ``….RoundVoided``), what the daily report counts. A partial index holds only them, by table
# and time, with their type: the report counts a day's rounds without reading the day's events
# (one round in about sixteen events). A query uses it by repeating ROUND_END word for word
# (the patterns are literals, not parameters: a planner matches a partial index's condition
# only against the same condition).

ROUND_END: Final = or_(
    events.c.type.like(literal_column("'%.RoundSettled'")),
    events.c.type.like(literal_column("'%.RoundVoided'")),
)
"""The condition of an event that ends a round (settled or voided), as ``ix_events_round_end``
states it."""

Index(
    "ix_events_round_end",
    events.c.table_id,
    events.c.recorded_at,
    events.c.type,
    sqlite_where=ROUND_END,
    postgresql_where=ROUND_END,
)

accounts = Table(
    "accounts",
    metadata,
    Column("account_id", String(200), primary_key=True),
    Column("kind", String(40), nullable=False),
    Column("owner", ID, nullable=True),
    Column("balance", BigInteger, nullable=False),
    Column("may_go_negative", Boolean, nullable=False),
)

transactions = Table(
    "transactions",
    metadata,
    Column("tx_id", SERIAL, primary_key=True, autoincrement=True),
    Column("table_id", ID, ForeignKey("casino_tables.table_id"), nullable=True),
    Column("event_seq", Integer, nullable=True),
    Column("kind", String(40), nullable=False),
    Column("actor", String(200), nullable=True),
    Column("reason", Text, nullable=True),
    Column("corrects", BigInteger, ForeignKey("transactions.tx_id"), nullable=True),
    Column("digest", HASH, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Index("ix_transactions_table", "table_id", "event_seq"),
)

postings = Table(
    "postings",
    metadata,
    Column("tx_id", BigInteger, ForeignKey("transactions.tx_id"), primary_key=True),
    Column("line", Integer, primary_key=True, autoincrement=False),
    # Checked at the commit (schema v3): a meter's posting line is then checked after the
    # transaction's own update of the meter's row, so the check needs no lock of its own
    # beside the other writers' (see migrations/versions/v0003_posting_account_fk_deferred.py).
    Column(
        "account_id",
        String(200),
        ForeignKey("accounts.account_id", deferrable=True, initially="DEFERRED"),
        nullable=False,
    ),
    Column("amount", BigInteger, nullable=False),
    Column("reason", String(40), nullable=False),
    Index("ix_postings_account", "account_id"),
)

meter_log = Table(
    "meter_log",
    metadata,
    Column("meter_id", ID, ForeignKey("meters.meter_id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(20), nullable=False),
    Column("payload", Text, nullable=False),
    Column("prev_hash", HASH, nullable=False),
    Column("hash", HASH, nullable=False),
)

meter_hits = Table(
    "meter_hits",
    metadata,
    Column("meter_id", ID, ForeignKey("meters.meter_id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("table_id", ID, nullable=False),
    Column("round_id", ID, nullable=False),
    Column("box", Integer, nullable=False),
    Column("combination", String(60), nullable=False),
    Column("amount", BigInteger, nullable=False),
    Column("at", UtcDateTime, nullable=False),
    Column("place", String(40), nullable=True),  # schema v9: "box 3", "seat 2"; NULL before
)

idempotency = Table(
    "idempotency",
    metadata,
    Column("key", String(200), primary_key=True),
    Column("scope", String(200), nullable=False),
    Column("request_sha256", HASH, nullable=False),
    Column("response", Text, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Index("ix_idempotency_created", "created_at"),  # schema v5: pruned by age
)

snapshots = Table(
    "snapshots",
    metadata,
    Column("table_id", ID, ForeignKey("casino_tables.table_id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("payload", Text, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
)

shoes = Table(
    "shoes",
    metadata,
    Column("table_id", ID, ForeignKey("casino_tables.table_id"), primary_key=True),
    Column("shoe_no", Integer, primary_key=True, autoincrement=False),
    Column("commitment", String(200), nullable=False),
    Column("revealed", Text, nullable=True),
    Column("verified", Boolean, nullable=True),
    Column("created_at", UtcDateTime, nullable=False),
    Column("revealed_at", UtcDateTime, nullable=True),
    # schema v8: the revealed shoes newest first, of every table and of one, read a page at a
    # time along these (Tx.revealed_shoes_page), whatever the history
    Index("ix_shoes_revealed", "revealed_at", "table_id", "shoe_no"),
    Index("ix_shoes_table_revealed", "table_id", "revealed_at", "shoe_no"),
)

audit_log = Table(
    "audit_log",
    metadata,
    Column("id", SERIAL, primary_key=True, autoincrement=True),
    Column("at", UtcDateTime, nullable=False),
    Column("actor", String(200), nullable=False),
    Column("action", String(80), nullable=False),
    Column("table_id", ID, nullable=True),
    Column("reason", Text, nullable=True),
    Column("detail", Text, nullable=True),
    # schema v6: the entries hash-chained in id order (store.chain.audit_payload)
    Column("prev_hash", HASH, nullable=False),
    Column("hash", HASH, nullable=False),
    Index("ix_audit_table", "table_id"),
)

# -- schema v2: the server's users, sessions and failed logins (migration v0002_users) ----------
# users: name unique (also a player's id), role (server.principal.UserRole), an argon2 hash;
# auth_sessions: a session ("cookie") or bearer token ("token") by the SHA-256 of its secret;
# login_failures: failed logins by name and client address (throttling across processes).
# Read and written by store/users_ops.py only.

USER_NAME = String(100)

users = Table(
    "users",
    metadata,
    Column("name", USER_NAME, primary_key=True),
    Column("role", String(20), nullable=False),
    Column("password_hash", Text, nullable=False),
    Column("disabled", Boolean, nullable=False),
    Column("created_by", String(200), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    # schema v7: the name case folded, punctuation removed (users_ops.name_key), unique. NULL
    # only for a user created before v7 whose name an older user's already had that way.
    Column("name_key", USER_NAME, nullable=True),
    Index("ux_users_name_key", "name_key", unique=True),
)

auth_sessions = Table(
    "auth_sessions",
    metadata,
    Column("token_sha256", HASH, primary_key=True),
    Column("user_name", USER_NAME, ForeignKey("users.name"), nullable=False),
    Column("kind", String(10), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("expires_at", UtcDateTime, nullable=False),
    Index("ix_auth_sessions_user", "user_name"),
)

login_failures = Table(
    "login_failures",
    metadata,
    Column("id", SERIAL, primary_key=True, autoincrement=True),
    Column("at", UtcDateTime, nullable=False),
    Column("user_name", String(200), nullable=False),
    Column("address", String(100), nullable=False),
    Index("ix_login_failures_user", "user_name", "at"),
    Index("ix_login_failures_address", "address", "at"),
)

# -- schema v10: settlement facts (migration v0010_settlement_facts) ----------------------------
# A settled round's money per betting position and wager kind (macau_tables.facts), what
# ``report --by-position`` sums. Each row is either the projection of the tables.SettlementFacts
# event recorded after the settlement (``seq`` that event's, ``derived`` false) or, for a
# round settled before v10, derived once by the upgrade from its settlement event (``seq`` the
# settlement's, ``derived`` true: the old chain is never rewritten). ``at``: when the settlement
# was recorded (the report's gaming day). ``verify`` derives every row again.

settlement_facts = Table(
    "settlement_facts",
    metadata,
    Column("table_id", ID, ForeignKey("casino_tables.table_id"), primary_key=True),
    Column("round_id", ID, primary_key=True),
    Column("spot", String(60), primary_key=True),
    Column("kind", String(60), primary_key=True),
    Column("seq", Integer, nullable=False),
    Column("derived", Boolean, nullable=False),
    Column("at", UtcDateTime, nullable=False),
    Column("wagers", Integer, nullable=False),
    Column("staked", BigInteger, nullable=False),
    Column("dropped", BigInteger, nullable=False),
    Column("paid", BigInteger, nullable=False),
    Column("commission", BigInteger, nullable=False),
    Column("contributions", BigInteger, nullable=False),
    Column("carried", BigInteger, nullable=False),
    Column("award_from_meter", BigInteger, nullable=False),
    Column("award_from_house", BigInteger, nullable=False),
    Column("house", BigInteger, nullable=False),
    Index("ix_settlement_facts_at", "at", "table_id"),
)
