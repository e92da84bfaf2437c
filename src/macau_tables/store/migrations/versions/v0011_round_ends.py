"""Schema v11: a partial index of the events that end a round (``….RoundSettled``,
``….RoundVoided``) by table and time, with their type (``ix_events_round_end``), so that the
daily report counts a day's rounds from about one index entry a round instead of reading every
event of the day (:func:`macau_tables.store.history.round_end_counts`). Nothing stored changes;
building the index reads the events once.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

SCHEMA_VERSION = 11

_ROUND_END = sa.text("type LIKE '%.RoundSettled' OR type LIKE '%.RoundVoided'")


def upgrade() -> None:
    op.create_index(
        "ix_events_round_end",
        "events",
        ["table_id", "recorded_at", "type"],
        sqlite_where=_ROUND_END,
        postgresql_where=_ROUND_END,
    )
    op.execute(
        sa.text("UPDATE schema_info SET version = :v WHERE id = 1").bindparams(v=SCHEMA_VERSION)
    )


def downgrade() -> None:
    op.drop_index("ix_events_round_end", table_name="events")
    op.execute(sa.text("UPDATE schema_info SET version = 10 WHERE id = 1"))
