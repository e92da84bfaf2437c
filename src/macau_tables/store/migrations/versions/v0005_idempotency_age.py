"""Schema v5: an index of the idempotency records by age, so that the records older than their
retention (the server's ``idempotency_days``) are found and pruned without reading the table
(:meth:`macau_tables.store.Tx.idempotency_prune`). Nothing stored changes.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

SCHEMA_VERSION = 5


def upgrade() -> None:
    op.create_index("ix_idempotency_created", "idempotency", ["created_at"])
    op.execute(
        sa.text("UPDATE schema_info SET version = :v WHERE id = 1").bindparams(v=SCHEMA_VERSION)
    )


def downgrade() -> None:
    op.drop_index("ix_idempotency_created", table_name="idempotency")
    op.execute(sa.text("UPDATE schema_info SET version = 4 WHERE id = 1"))
