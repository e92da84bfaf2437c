"""Schema v3: a posting's reference to its account (``postings.account_id`` ->
``accounts.account_id``) is checked at the commit (``DEFERRABLE INITIALLY DEFERRED``) instead
of at the end of the statement that inserts the posting.

Why: on PostgreSQL the check takes ``FOR KEY SHARE`` on the account's row. A meter's row is
updated by every table contributing to it (``UPDATE accounts SET balance = balance + x`` with
the commit, :func:`macau_tables.store.store._commit_pg`); a contribution's posting line
checked while another writer holds the row for its update made PostgreSQL record both in a
MultiXact — one per contribution, which every later look at the row's versions then reads.
Checked at the commit, the check finds the row already held by this transaction's own update:
no new lock, no MultiXact. The reference is checked exactly as before (a posting naming no
account fails the commit, and nothing of the transaction is kept); the ledger reads every
account of a transaction before writing it anyway.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

SCHEMA_VERSION = 3


def _postings(*, deferred: bool) -> sa.Table:
    """The ``postings`` table as SQLite rebuilds it (only the account reference changes)."""
    return sa.Table(
        "postings",
        sa.MetaData(),
        sa.Column("tx_id", sa.BigInteger, sa.ForeignKey("transactions.tx_id"), primary_key=True),
        sa.Column("line", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column(
            "account_id",
            sa.String(200),
            sa.ForeignKey(
                "accounts.account_id",
                deferrable=True if deferred else None,
                initially="DEFERRED" if deferred else None,
            ),
            nullable=False,
        ),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("reason", sa.String(40), nullable=False),
        sa.Index("ix_postings_account", "account_id"),
    )


def _set(*, deferred: bool) -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":  # a catalog change: the rows are not touched
        (name,) = (
            fk["name"]
            for fk in sa.inspect(bind).get_foreign_keys("postings")
            if fk["constrained_columns"] == ["account_id"]
        )
        timing = "DEFERRABLE INITIALLY DEFERRED" if deferred else "NOT DEFERRABLE"
        op.execute(sa.text(f'ALTER TABLE postings ALTER CONSTRAINT "{name}" {timing}'))
    else:  # SQLite cannot alter a constraint: the table is rebuilt with its rows
        with op.batch_alter_table(
            "postings", recreate="always", copy_from=_postings(deferred=deferred)
        ):
            pass


def upgrade() -> None:
    _set(deferred=True)
    op.execute(
        sa.text("UPDATE schema_info SET version = :v WHERE id = 1").bindparams(v=SCHEMA_VERSION)
    )


def downgrade() -> None:
    _set(deferred=False)
    op.execute(sa.text("UPDATE schema_info SET version = 2 WHERE id = 1"))
