"""The revealed shoes a page at a time (``Tx.revealed_shoes_page``), on SQLite and PostgreSQL:
newest first, a cursor that is stable under ties, and a page whose cost does not grow with the
history (10,000 Caribbean decks recorded: the database reads one page, not the table)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy import event

from macau_tables.store import ShoeCursor, ShoeRecord, ShoesPage, Store, TableMode, Tx
from tests.store.support import GAME, setup

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TABLES = ("t1", "t2", "t3")
REVEALED = json.dumps({"order": ["As"] * 52, "salt": "00" * 32})  # a Caribbean deck's size


def _tables(tx: Tx) -> None:
    for table_id in TABLES[1:]:
        tx.create_table(
            table_id,
            name=table_id,
            game=GAME,
            mode=TableMode.VIRTUAL,
            demo=True,
            config_id="cfg-1",
            meter_id="m-1",
        )


def _insert(store: Store, rows: list[tuple[str, int, datetime | None]]) -> None:
    """Shoe rows ``(table, number, revealed at)`` written directly (quickly, in one statement
    sent many times); ``None``: not revealed yet."""

    def write(tx: Tx) -> None:
        params = [
            (
                table_id,
                shoe_no,
                "c" * 64,
                None if at is None else REVEALED,
                None if at is None else True,
                tx.bind_time(T0),
                None if at is None else tx.bind_time(at),
            )
            for table_id, shoe_no, at in rows
        ]
        sql = (
            "INSERT INTO shoes (table_id, shoe_no, commitment, revealed, verified, created_at, "
            "revealed_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
        )
        if tx.postgres:
            sql = sql.replace("?", "%s")
        tx.connection.exec_driver_sql(sql, params)

    store.run(write)


def _key(shoe: ShoeRecord) -> tuple[datetime, str, int]:
    assert shoe.revealed_at is not None
    return (shoe.revealed_at, shoe.table_id, shoe.shoe_no)


def _page(tx: Tx, table_id: str | None, before: ShoeCursor | None, limit: int) -> ShoesPage:
    return tx.revealed_shoes_page(table_id, before=before, limit=limit)


def _walk(store: Store, table_id: str | None, limit: int) -> list[tuple[datetime, str, int]]:
    """Every page from the newest, following ``next``."""
    seen: list[tuple[datetime, str, int]] = []
    before: ShoeCursor | None = None
    for _ in range(1_000):
        page = store.read(partial(_page, table_id=table_id, before=before, limit=limit))
        assert len(page.shoes) <= limit
        seen += [_key(s) for s in page.shoes]
        if page.next is None:
            return seen
        assert len(page.shoes) == limit
        assert page.next == ShoeCursor(*_key(page.shoes[-1]))
        before = page.next
    raise AssertionError("the pages never ended")


def test_pages_walk_every_revealed_shoe_once_newest_first_ties_included(store: Store) -> None:
    setup(store)
    store.run(_tables)
    rows: list[tuple[str, int, datetime | None]] = []
    for n in range(1, 13):
        for i, table_id in enumerate(TABLES):
            # ties: shoes of several tables revealed at the same instant, every third one
            at = T0 + timedelta(seconds=n * 10 + (0 if n % 3 == 0 else i))
            rows.append((table_id, n, at))
    rows += [(t, 13, None) for t in TABLES]  # the shoes in play: never listed
    _insert(store, rows)
    revealed = sorted(((at, t, n) for t, n, at in rows if at is not None), reverse=True)
    for limit in (1, 2, 3, 5, 7, 36, 100):
        assert _walk(store, None, limit) == revealed
        assert _walk(store, "t2", limit) == [r for r in revealed if r[1] == "t2"]
    assert _walk(store, "nowhere", 5) == []
    # a cursor from the list of every table continues one table's list too
    first = store.read(lambda tx: tx.revealed_shoes_page(None, limit=4))
    assert first.next is not None
    rest = store.read(lambda tx: tx.revealed_shoes_page("t1", before=first.next, limit=100))
    assert [_key(s) for s in rest.shoes] == [r for r in revealed[4:] if r[1] == "t1"]
    assert rest.next is None


@contextmanager
def _cost(store: Store, *, indexed: bool = True) -> Iterator[list[int]]:
    """What the database does for the statements run inside: SQLite, the virtual machine's
    steps (a progress handler counting every 100 instructions); PostgreSQL, the rows its plan's
    nodes read (each statement explained with ``ANALYZE``: rows out and rows filtered away) —
    ``indexed``: each plan read along an index, in its order (no sequential scan, no sort; a
    dozen rows may be planned either way, what the planner knows of the table decides)."""
    spent = [0]
    statements: list[tuple[str, Any]] = []
    counted: list[Any] = []  # the SQLite connections whose steps are counted

    def count() -> int:
        spent[0] += 1
        return 0

    def seen(conn: Any, cursor: Any, statement: str, params: Any, *args: Any) -> None:
        if store.dialect == "sqlite":
            raw = conn.connection.dbapi_connection
            if raw not in counted:
                raw.set_progress_handler(count, 100)
                counted.append(raw)
        elif statement.lstrip().upper().startswith("SELECT") and "shoes" in statement:
            statements.append((statement, params))

    event.listen(store.engine, "before_cursor_execute", seen)
    try:
        yield spent
    finally:
        event.remove(store.engine, "before_cursor_execute", seen)
        for raw in counted:
            raw.set_progress_handler(None, 100)
    if store.dialect == "postgresql":
        with store.engine.connect() as conn:
            for statement, params in statements:
                (plan,) = conn.exec_driver_sql(
                    "EXPLAIN (ANALYZE, FORMAT JSON) " + statement, params
                ).scalar_one()
                spent[0] += _rows_read(plan["Plan"], indexed)


def _rows_read(node: dict[str, Any], indexed: bool) -> int:
    if indexed:
        assert node["Node Type"] not in ("Seq Scan", "Sort"), node  # along an index, in order
    own = int(node.get("Rows Removed by Filter", 0))
    if "Scan" in node["Node Type"]:
        own += int(node["Actual Rows"]) * int(node.get("Actual Loops", 1))
    return own + sum(_rows_read(child, indexed) for child in node.get("Plans", ()))


def test_a_page_costs_the_same_whatever_the_history(store: Store) -> None:
    setup(store)
    store.run(_tables)
    # the newest: four instants, three tables revealing a shoe at each (ties)
    newest: list[tuple[str, int, datetime | None]] = [
        (t, 100_000 + n, T0 + timedelta(days=400, seconds=n)) for t in TABLES for n in range(4)
    ]
    _insert(store, newest)
    limit = 5

    def pages() -> tuple[list[ShoeRecord], list[ShoeRecord]]:
        every = store.read(lambda tx: tx.revealed_shoes_page(None, limit=limit))
        assert every.next is not None
        after = store.read(lambda tx: tx.revealed_shoes_page(None, before=every.next, limit=2))
        one = store.read(lambda tx: tx.revealed_shoes_page("t2", before=after.next, limit=2))
        return list(every.shoes + after.shoes), list(one.shoes)

    with _cost(store, indexed=False) as small:  # (the plan of a dozen rows: either way)
        shown = pages()
    # 10,000 older shoes (and some never revealed) recorded behind the newest ones
    history: list[tuple[str, int, datetime | None]] = [
        (TABLES[n % 3], n, T0 + timedelta(minutes=n)) for n in range(1, 10_001)
    ]
    history += [("t2", n, None) for n in range(10_001, 10_101)]
    _insert(store, history)
    if store.dialect == "postgresql":
        with store.engine.connect() as conn:  # the planner knows the table's size
            conn.exec_driver_sql("ANALYZE shoes")
            conn.commit()
    with _cost(store) as large:
        assert pages() == shown  # the same pages: the newest shoes
    if store.dialect == "postgresql":
        # rows read: at most each page's rows and the one after it, as with no history
        assert large[0] <= (limit + 1) + (2 + 1) + (2 + 1) + 3, large
    # the same work with 10,006 shoes recorded as with 6 (a whole read would be ~2,000 times
    # more on SQLite, where the count is the machine's steps)
    assert large[0] <= 2 * small[0] + 5, (small, large)
