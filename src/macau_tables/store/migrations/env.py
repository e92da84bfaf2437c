"""Alembic environment: run by :meth:`macau_tables.store.Store.upgrade` with the connection in
``config.attributes["connection"]`` (never from an ``alembic.ini``)."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection


def _run() -> None:
    connection = context.config.attributes.get("connection")
    if not isinstance(connection, Connection):
        raise RuntimeError("run migrations with `macau-tables db upgrade` (Store.upgrade)")
    context.configure(connection=connection, target_metadata=None, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


_run()
