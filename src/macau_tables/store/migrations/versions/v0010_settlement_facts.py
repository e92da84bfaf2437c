"""Schema v10: settlement facts (``settlement_facts``) — each settled round's money per betting
position and wager kind (:mod:`macau_tables.facts`), what ``report --by-position`` sums instead
of replaying every round.

From v10 the table service records a round's facts in its hash-chained log after its
settlement (a ``tables.SettlementFacts`` event) and stores them here in the same transaction.
For the rounds settled before, this upgrade derives them once, through each game's plug-in, from
the settlement event in the log, and stores them marked ``derived`` (``seq`` the settlement's):
the chains of old rounds are not rewritten. ``verify`` derives every fact again. The time it
takes grows with the number of settled rounds (each settlement event is read and decoded once).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from macau_tables.store.schema import UtcDateTime

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

SCHEMA_VERSION = 10

_ID = sa.String(100)


def upgrade() -> None:
    op.create_table(
        "settlement_facts",
        sa.Column("table_id", _ID, sa.ForeignKey("casino_tables.table_id"), primary_key=True),
        sa.Column("round_id", _ID, primary_key=True),
        sa.Column("spot", sa.String(60), primary_key=True),
        sa.Column("kind", sa.String(60), primary_key=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("derived", sa.Boolean, nullable=False),
        sa.Column("at", UtcDateTime, nullable=False),
        sa.Column("wagers", sa.Integer, nullable=False),
        sa.Column("staked", sa.BigInteger, nullable=False),
        sa.Column("dropped", sa.BigInteger, nullable=False),
        sa.Column("paid", sa.BigInteger, nullable=False),
        sa.Column("commission", sa.BigInteger, nullable=False),
        sa.Column("contributions", sa.BigInteger, nullable=False),
        sa.Column("carried", sa.BigInteger, nullable=False),
        sa.Column("award_from_meter", sa.BigInteger, nullable=False),
        sa.Column("award_from_house", sa.BigInteger, nullable=False),
        sa.Column("house", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_settlement_facts_at", "settlement_facts", ["at", "table_id"])
    # The rounds settled before: their facts derived once, through the games' plug-ins.
    import macau_tables.tables  # noqa: F401  (registers the table service's codec types)
    from macau_tables.store import Tx
    from macau_tables.tables.facts import backfill

    backfill(Tx(op.get_bind()))
    op.execute(
        sa.text("UPDATE schema_info SET version = :v WHERE id = 1").bindparams(v=SCHEMA_VERSION)
    )


def downgrade() -> None:
    op.drop_index("ix_settlement_facts_at", table_name="settlement_facts")
    op.drop_table("settlement_facts")
    op.execute(sa.text("UPDATE schema_info SET version = 9 WHERE id = 1"))
