"""Schema v6: the audit log hash-chained, like the tables' logs and the meters'.

Every audit entry (a privileged action or a fault: who, what, why, when — among them the
approvals of the program, ``macau_tables.tables.program``) gets ``prev_hash`` and ``hash``:
``hash = SHA-256(prev_hash + audit_payload(entry))`` in id order, the first entry's
``prev_hash`` 64 zeros (``macau_tables.store.chain``). ``verify`` walks the chain, so an entry
changed, removed or reordered behind the service's back is found at that entry (STANDARDS
"Logs and access": privileged actions logged in storage the actor cannot alter).

The existing entries are chained here, in id order, as they are; then both columns become
NOT NULL (SQLite rebuilds the table, in time proportional to its size).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from macau_tables.store.chain import GENESIS, audit_payload, chain_hash
from macau_tables.store.schema import UtcDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

SCHEMA_VERSION = 6

_HASH = sa.String(64)


def upgrade() -> None:
    op.add_column("audit_log", sa.Column("prev_hash", _HASH, nullable=True))
    op.add_column("audit_log", sa.Column("hash", _HASH, nullable=True))
    bind = op.get_bind()
    entries = sa.table(
        "audit_log",
        sa.column("id", sa.BigInteger),
        sa.column("at", UtcDateTime()),
        sa.column("actor", sa.String),
        sa.column("action", sa.String),
        sa.column("table_id", sa.String),
        sa.column("reason", sa.Text),
        sa.column("detail", sa.Text),
        sa.column("prev_hash", _HASH),
        sa.column("hash", _HASH),
    )
    rows = bind.execute(sa.select(entries).order_by(entries.c.id)).all()
    prev = GENESIS
    for row in rows:
        payload = audit_payload(row.at, row.actor, row.action, row.table_id, row.reason, row.detail)
        digest = chain_hash(prev, payload)
        bind.execute(
            sa.update(entries).where(entries.c.id == row.id).values(prev_hash=prev, hash=digest)
        )
        prev = digest
    with op.batch_alter_table("audit_log") as batch:
        batch.alter_column("prev_hash", existing_type=_HASH, nullable=False)
        batch.alter_column("hash", existing_type=_HASH, nullable=False)
    op.execute(
        sa.text("UPDATE schema_info SET version = :v WHERE id = 1").bindparams(v=SCHEMA_VERSION)
    )


def downgrade() -> None:
    with op.batch_alter_table("audit_log") as batch:
        batch.drop_column("hash")
        batch.drop_column("prev_hash")
    op.execute(sa.text("UPDATE schema_info SET version = 5 WHERE id = 1"))
