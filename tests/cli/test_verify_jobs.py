"""``macau-tables verify --jobs N`` (issue 21, item 5): the tables are checked by N processes
and the report is the one a single process gives — the same findings, the same counts, the
same exit code — on a sound database, on one whose log was rewritten consistently (found by
the rules, at the re-derivation) and on one with a changed event (found by the hash chain,
which comes first), on both databases."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
from typing import Any

import sqlalchemy

from macau_tables.store import Store, Tx
from macau_tables.tables.audit import Span, _pool_context, plan, verify_database

from .tables_support import played, rewrite_events, run, session, sql

__all__ = ["played", "session"]  # the fixtures, imported for the tests below


def report(url: str, jobs: int) -> tuple[int, dict[str, Any]]:
    result = run("verify", "--database", url, "--format", "json", "--jobs", str(jobs))
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1), (result.output, result.exception)
    return result.exit_code, json.loads(result.stdout)


def same_report(url: str) -> tuple[int, dict[str, Any]]:
    one, two = report(url, 1), report(url, 2)
    assert two == one
    # and with each table's log split into parts of a few events, as a long log is
    store = Store.open(url)
    try:
        split = verify_database(store, jobs=2, part_events=5)
    finally:
        store.close()
    assert split.counts() == one[1]["counts"]
    assert (split.finding and split.finding.to_dict()) == one[1]["failure"]
    return one


def test_a_log_is_split_at_round_openings(played: str) -> None:
    store = Store.open(played)
    try:

        def spans(tx: Tx) -> dict[str, list[Span]]:
            last_tx = int(
                tx.connection.execute(
                    sqlalchemy.text("SELECT max(tx_id) FROM transactions")
                ).scalar_one()
            )
            heads = tx.chain_heads()
            return {
                t.table_id: plan(tx, t, heads[t.table_id].seq, 3, last_tx, least=5)
                for t in tx.tables()
                if t.table_id in ("bac-1", "csp-1")
            }

        planned = store.read(spans)
        for table_id, parts in planned.items():
            assert len(parts) >= 2, (table_id, parts)
            assert parts[0].first == 1 and parts[-1].end and not parts[0].end
            for before, after in itertools.pairwise(parts):
                assert after.first == before.last + 1 and after.after == before.before - 1
                event = store.read(
                    lambda tx, a=after, t=table_id: tx.read_events(t, after=a.first - 1, limit=1)
                )[0]
                assert event.type.endswith(".RoundOpened")
                assert (
                    after.prev
                    == store.read(
                        lambda tx, a=after, t=table_id: tx.read_events(
                            t, after=a.first - 2, limit=1
                        )
                    )[0].hash
                )
    finally:
        store.close()


def test_two_processes_report_what_one_reports(played: str) -> None:
    code, body = same_report(played)
    assert code == 0 and body["ok"] and body["counts"]["tables"] >= 2
    assert body["counts"]["rounds"] > 0

    def pay_more(seq: int, data: dict[str, Any]) -> bool:
        lines = (data.get("settlement") or {}).get("lines") or []
        paid = [x for x in lines if x.get("paid", 0) > 0]
        if not paid or pay_more.done:  # type: ignore[attr-defined]
            return False
        paid[0]["paid"] += 10_000
        paid[0]["house"] -= 10_000
        pay_more.done = True  # type: ignore[attr-defined]
        return True

    pay_more.done = False  # type: ignore[attr-defined]
    seq = rewrite_events(played, "bac-1", pay_more)
    code, body = same_report(played)
    assert code == 1 and body["failure"]["table_id"] == "bac-1"
    assert body["failure"]["check"] == "settlement" and body["counts"]["rounds"] > 0
    assert str(seq) in body["failure"]["record"] or body["failure"]["record"].startswith("tx ")

    last = sql(
        played,
        lambda c: c.execute(
            sqlalchemy.text("SELECT max(seq) FROM events WHERE table_id = 'csp-1'")
        ).scalar_one(),
    )
    sql(
        played,
        lambda c: c.execute(
            sqlalchemy.text(
                "UPDATE events SET payload = replace(payload, :a, :b) "
                "WHERE table_id = 'csp-1' AND seq = :s"
            ),
            {"s": last, "a": '"v":1', "b": '"v": 1'},
        ),
    )
    code, body = same_report(played)
    assert code == 1 and body["failure"]["check"] == "chain"
    assert body["failure"]["record"] == f"csp-1#{last}" and body["counts"]["rounds"] == 0


def test_a_process_running_threads_checks_through_a_fork_server(played: str) -> None:
    """A process running one thread forks its workers; one running threads (the table server,
    which answers ``GET /api/verify``) must not, and asks multiprocessing's fork server, which
    forks them from itself: the same report either way, every check after the first without a
    new interpreter's imports."""
    with Store.open(played) as store:
        one = verify_database(store, jobs=1)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, name="a server's thread")
    other.start()
    try:
        context, forked = _pool_context()
        assert (context.get_start_method(), forked) == ("forkserver", False)
        with Store.open(played) as store:
            for _ in range(2):  # the second check reuses the server started by the first
                split = verify_database(store, jobs=2, part_events=5)
                assert split.counts() == one.counts() and split.finding == one.finding
    finally:
        stop.set()
        other.join()


def test_the_fork_server_has_every_game_loaded_and_prepared_before_it_forks_a_worker() -> None:
    """What the fork server imports (``tables/audit_preload.py``) loads every game's plug-in
    and builds what a game builds on first use (Caribbean Stud's hand tables): a worker forked
    from it starts with them, instead of each worker building them again (~0.3 s of CPU)."""
    code = (
        "import sys\n"
        "from macau_tables import games\n"
        "from macau_tables.caribbean import hands\n"
        "assert not hands._TABLES and games.GAMES._by_name is None\n"
        "import macau_tables.tables.audit_preload\n"
        "sys.exit(0 if hands._TABLES and games.GAMES._by_name is not None else 3)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
