"""Schema v7: user names unique under case folding with punctuation removed.

``users.name_key`` holds a user's name case folded, punctuation removed
(``macau_tables.store.users_ops.name_key``: ``Alice``, ``alice.`` and ``a-lice`` are all
``alice``), under a unique index: no one can be created with a name that passes for another
user's, and two server processes creating look-alikes at the same moment cannot both succeed.
Sign-in finds a user by their exact name, else by this key (it ignores case).

Users that already collide are left alone, never renamed nor refused: of each group of
existing look-alikes the oldest (by creation time, then name) gets the key, the others keep
``NULL`` (a unique index allows any number of NULLs, on SQLite and PostgreSQL alike), so the
upgrade never fails on them. They still sign in with their exact names, and
``macau-tables user list --collisions`` lists them.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from macau_tables.store.users_ops import name_key

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

SCHEMA_VERSION = 7

_NAME = sa.String(100)


def upgrade() -> None:
    op.add_column("users", sa.Column("name_key", _NAME, nullable=True))
    bind = op.get_bind()
    users = sa.table(
        "users",
        sa.column("name", _NAME),
        sa.column("created_at", sa.DateTime),
        sa.column("name_key", _NAME),
    )
    taken: set[str] = set()
    for row in bind.execute(sa.select(users.c.name).order_by(users.c.created_at, users.c.name)):
        key = name_key(row.name)
        if key in taken:
            continue  # a look-alike of an older user: left alone, its key NULL
        taken.add(key)
        bind.execute(sa.update(users).where(users.c.name == row.name).values(name_key=key))
    op.create_index("ux_users_name_key", "users", ["name_key"], unique=True)
    op.execute(
        sa.text("UPDATE schema_info SET version = :v WHERE id = 1").bindparams(v=SCHEMA_VERSION)
    )


def downgrade() -> None:
    op.drop_index("ux_users_name_key", table_name="users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("name_key")
    op.execute(sa.text("UPDATE schema_info SET version = 6 WHERE id = 1"))
