"""Schema v2: the server's users (argon2 password hashes, roles), their sessions and bearer
tokens (SHA-256 of the secret, expiry) and failed logins (throttling across processes).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

SCHEMA_VERSION = 2

_NAME = sa.String(100)
_HASH = sa.String(64)
_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _at(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("name", _NAME, primary_key=True),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("disabled", sa.Boolean, nullable=False),
        sa.Column("created_by", sa.String(200), nullable=False),
        _at("created_at"),
    )
    op.create_table(
        "auth_sessions",
        sa.Column("token_sha256", _HASH, primary_key=True),
        sa.Column("user_name", _NAME, sa.ForeignKey("users.name"), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        _at("created_at"),
        _at("expires_at"),
    )
    op.create_index("ix_auth_sessions_user", "auth_sessions", ["user_name"])
    op.create_table(
        "login_failures",
        sa.Column("id", _SERIAL, primary_key=True, autoincrement=True),
        _at("at"),
        sa.Column("user_name", sa.String(200), nullable=False),
        sa.Column("address", sa.String(100), nullable=False),
    )
    op.create_index("ix_login_failures_user", "login_failures", ["user_name", "at"])
    op.create_index("ix_login_failures_address", "login_failures", ["address", "at"])
    op.execute(
        sa.text("UPDATE schema_info SET version = :v WHERE id = 1").bindparams(v=SCHEMA_VERSION)
    )


def downgrade() -> None:
    op.drop_index("ix_login_failures_address", table_name="login_failures")
    op.drop_index("ix_login_failures_user", table_name="login_failures")
    op.drop_table("login_failures")
    op.drop_index("ix_auth_sessions_user", table_name="auth_sessions")
    op.drop_table("auth_sessions")
    op.drop_table("users")
    op.execute(sa.text("UPDATE schema_info SET version = 1 WHERE id = 1"))
