"""Schema v9: a meter hit records the winning place (``meter_hits.place``: ``"box 3"``,
``"seat 2"``; CSP-10.4, BAC-17) as its round's settlement names it — the ``box`` column keeps
the award's key in the settlement, which at baccarat is a wager id. Hits recorded before have no
place (``NULL``): they show none, never a guessed one.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

SCHEMA_VERSION = 9


def upgrade() -> None:
    op.add_column("meter_hits", sa.Column("place", sa.String(40), nullable=True))
    op.execute(
        sa.text("UPDATE schema_info SET version = :v WHERE id = 1").bindparams(v=SCHEMA_VERSION)
    )


def downgrade() -> None:
    with op.batch_alter_table("meter_hits") as batch:
        batch.drop_column("place")
    op.execute(sa.text("UPDATE schema_info SET version = 8 WHERE id = 1"))
