"""PostgreSQL on the wire: statements sent as ONE simple query (several statements, their
values as literals quoted by libpq), so that what a transaction leaves for later costs one
round trip whatever its size — its ``BEGIN`` with its first read, its writes with its
``COMMIT`` (:meth:`~._base.TxBase.prefetch_requests`, :func:`~.store._commit_pg`).

Only the store's own statement text is sent this way; every value in it goes through
:func:`literal` (libpq's ``PQescapeLiteral``) or is an ``int`` written as digits.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "abandon",
    "begin_statement",
    "escaping",
    "render_row",
    "simple_query",
    "text_array",
    "text_rows",
]

Escape = Callable[[bytes], bytes]


def simple_query(raw: Any, query: bytes) -> list[Any]:
    """Send ``query`` (no parameters: the simple protocol) on ``raw``'s libpq connection and
    wait for all its results, as psycopg's cursor does but without a cursor, adaptation or
    psycopg's own transaction handling (the query may carry its ``BEGIN`` and ``COMMIT``;
    psycopg reads the connection's transaction status from libpq when it next needs it).
    The first failed statement's error is raised as psycopg raises it (SQLSTATE, diagnostics);
    a lost connection raises psycopg's ``OperationalError``."""
    from psycopg import errors, generators, pq

    pgconn = raw.pgconn
    pgconn.send_query(query)
    results: list[Any] = raw.wait(generators.execute(pgconn))
    for result in results:
        if result.status == pq.ExecStatus.FATAL_ERROR:
            raise errors.error_from_result(result, encoding=raw.info.encoding)
    return results


def text_rows(result: Any) -> list[tuple[str | None, ...]]:
    """The rows of a simple query's ``result`` (text format), each value as text."""
    get = result.get_value
    columns = range(result.nfields)
    return [
        tuple(None if (v := get(r, c)) is None else v.decode() for c in columns)
        for r in range(result.ntuples)
    ]


def escaping(raw: Any) -> Escape:
    """The driver's quoting of a string literal for the connection ``raw``."""
    from psycopg import pq

    escape: Escape = pq.Escaping(raw.pgconn).escape_literal
    return escape


def render_row(escape: Escape, values: Sequence[object]) -> bytes:
    """``(v1, v2, …)``: a row of a ``VALUES`` list, each value a literal — text quoted by
    ``escape``, an ``int`` as digits, a ``bool`` as ``true``/``false``, an aware time as its
    UTC ISO text (quoted: the column's type reads it), ``None`` as ``NULL``. Refuses
    (``TypeError``) anything else (a float never reaches a money column this way)."""
    return b"(%b)" % b", ".join(_literal(escape, v) for v in values)


def _literal(escape: Escape, value: object) -> bytes:
    if isinstance(value, str):
        return escape(value.encode())
    if value is None:
        return b"NULL"
    if isinstance(value, bool):
        return b"true" if value else b"false"
    if isinstance(value, int):
        return b"%d" % value
    if isinstance(value, datetime) and value.tzinfo is not None:
        return b"'%b'" % value.astimezone(UTC).isoformat().encode()
    raise TypeError(f"no literal for {value!r}")


def text_array(escape: Escape, values: Iterable[str]) -> bytes:
    """``ARRAY[…]::text[]`` of ``values`` (quoted by ``escape``; an empty array too)."""
    return b"CAST(ARRAY[%b] AS text[])" % b", ".join(escape(v.encode()) for v in values)


def begin_statement(raw: Any) -> bytes | None:
    """The ``BEGIN`` the driver would send for ``raw``'s next transaction when none is open
    yet (nothing of it sent), with the connection's isolation level, access mode and
    deferrability, so that it goes in the round trip of the transaction's first statements;
    ``None`` when a transaction is open."""
    from psycopg import IsolationLevel, pq

    if raw.pgconn.transaction_status != pq.TransactionStatus.IDLE:
        return None
    begin = b"BEGIN"
    level = raw.isolation_level
    if level is not None:
        begin += b" ISOLATION LEVEL " + IsolationLevel(level).name.replace("_", " ").encode()
    if raw.read_only is not None:
        begin += b" READ ONLY" if raw.read_only else b" READ WRITE"
    if raw.deferrable is not None:
        begin += b" DEFERRABLE" if raw.deferrable else b" NOT DEFERRABLE"
    return begin


def abandon(raw: Any) -> None:
    """Roll back the transaction a simple query began and could not end (its refusal or error
    is raised next). A lost connection is left to the error's handling."""
    with contextlib.suppress(Exception):
        raw.rollback()
