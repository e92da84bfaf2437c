"""Schema v8: two indexes of the shoes by reveal time (of every table, and of one table), so
that the public list of revealed shoes is read a page at a time, newest first, without reading
the table (:meth:`macau_tables.store.Tx.revealed_shoes_page`). Nothing stored changes.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

SCHEMA_VERSION = 8


def upgrade() -> None:
    op.create_index("ix_shoes_revealed", "shoes", ["revealed_at", "table_id", "shoe_no"])
    op.create_index("ix_shoes_table_revealed", "shoes", ["table_id", "revealed_at", "shoe_no"])
    op.execute(
        sa.text("UPDATE schema_info SET version = :v WHERE id = 1").bindparams(v=SCHEMA_VERSION)
    )


def downgrade() -> None:
    op.drop_index("ix_shoes_table_revealed", table_name="shoes")
    op.drop_index("ix_shoes_revealed", table_name="shoes")
    op.execute(sa.text("UPDATE schema_info SET version = 7 WHERE id = 1"))
