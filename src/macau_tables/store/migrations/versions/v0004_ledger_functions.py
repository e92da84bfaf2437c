"""Schema v4: on PostgreSQL, the ledger's write and a meter's credit are server functions.

``macau_post(batch jsonb)`` checks and writes a batch of ledger transactions (what
``LedgerOps.post_many`` used to send as one large statement, planned by the server): the table
and house accounts it names that do not exist yet are opened at zero; the accounts debited
that may not go negative are locked in id order and checked; every account must exist. When a
check fails it raises SQLSTATE ``MT001`` with the accounts it read (``[id, balance,
may_go_negative]``, JSON) in the error's detail, and writes nothing: the client turns that into
its refusal (``ledger.insufficient_funds``, ``store.unknown_player``, ...). Otherwise it inserts
the transactions (ids from their sequence, in the batch's order) and their postings, moves the
balances (in account id order), notifies the meters moved, and returns ``('tx', o, tx_id)`` per
transaction and ``('moved', account, balance)`` per meter moved.

``macau_move_meter(account, meter, delta)`` adds ``delta`` to a meter's balance, notifies it and
returns the new balance; SQLSTATE ``MT002`` when there is no such meter.

Why: a function's statements are planned once per session, and because a refused check now
raises (instead of returning the rows it read), the ledger's write can travel in the same round
trip as the meters' credits and the ``COMMIT`` (``Store``'s commit): a transaction that only
posts is one round trip, a table's request one fewer. Nothing stored changes; SQLite has no
functions and is untouched (its version is recorded).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from macau_tables.store._base import METER_CHANNEL

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

SCHEMA_VERSION = 4

POST = """
CREATE OR REPLACE FUNCTION macau_post(j jsonb)
RETURNS TABLE (what text, o bigint, tx_id bigint, account_id varchar, balance bigint)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  ids varchar[] := ARRAY(SELECT jsonb_array_elements_text(j -> 'all'));
  lows jsonb := j -> 'lock';
  notify jsonb := j -> 'n';
  r record;
  moved bigint;
  short boolean := false;
  known integer;
BEGIN
  SELECT count(*) INTO known FROM accounts a WHERE a.account_id = ANY(ids);
  IF known < cardinality(ids) AND j -> 'open' <> '{}'::jsonb THEN
    -- a table's or the house's account used for the first time: opened at zero (two writers
    -- may open it at once: the second finds it there)
    INSERT INTO accounts (account_id, kind, owner, balance, may_go_negative)
    SELECT e.key, e.value ->> 0, NULL, 0, CAST(e.value ->> 1 AS boolean)
    FROM jsonb_each(j -> 'open') AS e
    ORDER BY e.key
    ON CONFLICT (account_id) DO NOTHING;
    SELECT count(*) INTO known FROM accounts a WHERE a.account_id = ANY(ids);
  END IF;
  IF lows <> '{}'::jsonb THEN
    -- the accounts debited that may not go negative: locked in id order, then checked
    FOR r IN
      SELECT a.account_id, a.balance, a.may_go_negative FROM accounts a
      WHERE a.account_id = ANY(ARRAY(SELECT jsonb_object_keys(lows)))
      ORDER BY a.account_id FOR UPDATE
    LOOP
      IF r.balance + CAST(lows ->> r.account_id AS bigint) < 0 AND NOT r.may_go_negative THEN
        short := true;
      END IF;
    END LOOP;
  END IF;
  IF short OR known < cardinality(ids) THEN
    RAISE EXCEPTION 'the ledger refused the batch' USING ERRCODE = 'MT001', DETAIL = (
      SELECT coalesce(jsonb_agg(jsonb_build_array(a.account_id, a.balance, a.may_go_negative)
        ORDER BY a.account_id), '[]'::jsonb)::text
      FROM accounts a WHERE a.account_id = ANY(ids));
  END IF;
  RETURN QUERY
  WITH src AS MATERIALIZED (
    SELECT nextval('transactions_tx_id_seq'::regclass) AS id, s.*
    FROM jsonb_to_recordset(j -> 'tx') AS s(
      o bigint, table_id varchar, event_seq integer, kind varchar, actor varchar, reason text,
      corrects bigint, digest varchar)
    ORDER BY s.o
  ), t AS (
    INSERT INTO transactions
      (tx_id, table_id, event_seq, kind, actor, reason, corrects, digest, created_at)
    SELECT src.id, src.table_id, src.event_seq, src.kind, src.actor, src.reason, src.corrects,
      src.digest, CAST(j ->> 'at' AS timestamptz)
    FROM src ORDER BY src.o
  ), p AS (
    INSERT INTO postings (tx_id, line, account_id, amount, reason)
    SELECT src.id, q.line, q.account_id, q.amount, q.reason
    FROM jsonb_to_recordset(j -> 'p')
      AS q(o bigint, line integer, account_id varchar, amount bigint, reason varchar)
    JOIN src ON src.o = q.o
  )
  SELECT CAST('tx' AS text), src.o, src.id, CAST(NULL AS varchar), CAST(NULL AS bigint)
  FROM src ORDER BY src.o;
  FOR r IN SELECT e.key, CAST(e.value AS bigint) AS delta FROM jsonb_each_text(j -> 'm') AS e
    ORDER BY e.key
  LOOP
    UPDATE accounts AS a SET balance = a.balance + r.delta WHERE a.account_id = r.key
      RETURNING a.balance INTO moved;
    IF notify ? r.key THEN
      PERFORM pg_notify('@CHANNEL@', (notify ->> r.key) || ':' || moved);
      what := 'moved'; o := NULL; tx_id := NULL; account_id := r.key; balance := moved;
      RETURN NEXT;
    END IF;
  END LOOP;
END
$fn$
""".replace("@CHANNEL@", METER_CHANNEL)

MOVE_METER = """
CREATE OR REPLACE FUNCTION macau_move_meter(account varchar, meter varchar, delta bigint)
RETURNS bigint LANGUAGE plpgsql AS $fn$
DECLARE
  moved bigint;
BEGIN
  UPDATE accounts SET balance = balance + delta WHERE account_id = account
    RETURNING balance INTO moved;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no meter %', meter USING ERRCODE = 'MT002', DETAIL = meter;
  END IF;
  PERFORM pg_notify('@CHANNEL@', meter || ':' || moved);
  RETURN moved;
END
$fn$
""".replace("@CHANNEL@", METER_CHANNEL)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(sa.text(POST))
        op.execute(sa.text(MOVE_METER))
    op.execute(
        sa.text("UPDATE schema_info SET version = :v WHERE id = 1").bindparams(v=SCHEMA_VERSION)
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(sa.text("DROP FUNCTION IF EXISTS macau_move_meter(varchar, varchar, bigint)"))
        op.execute(sa.text("DROP FUNCTION IF EXISTS macau_post(jsonb)"))
    op.execute(sa.text("UPDATE schema_info SET version = 3 WHERE id = 1"))
