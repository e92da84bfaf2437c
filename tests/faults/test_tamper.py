"""Tampering found end to end (issue 9, item 8): after a session of play through the table
service, one stored event, transaction, posting or meter row is changed in SQL behind the
service's back, and ``macau-tables verify`` fails at that record (exit 1, naming the table
and the record); put back, it passes again. On SQLite and PostgreSQL.

The store's own unit tests tamper with rows they wrote themselves; here the rows are a real
session's (both games, a linked meter, carried wagers), the check is the command a regulator
runs, and one case rewrites history *consistently* — a dealt card changed and the hash chain
recomputed after it — which only the re-derivation of the rounds through the rules can find.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import text
from typer.testing import CliRunner

from macau_tables.caribbean.commands import PlaceAnte, PlaceJackpotWager, Void
from macau_tables.cli.app import app
from macau_tables.store import Store
from macau_tables.store.chain import chain_hash
from macau_tables.tables import Bots, ClearFault, ReportFault
from macau_tables.tables.audit import verify_database
from macau_tables.voids import Ground
from tests.tables.support import PLAYERS, baccarat_rules, caribbean_rules, casino

from .harness import restart

TABLES = {
    "c1": ("caribbean", caribbean_rules(), False),
    "b1": ("baccarat", baccarat_rules(), False),
}


def cli_verify(url: str, *, split: bool = True) -> tuple[int, dict[str, Any]]:
    """``macau-tables verify --database URL --format json --jobs 1``: exit code and the JSON
    it printed (checked in this process: the parallel check reports the same, as
    tests/cli/test_verify_jobs.py shows; the real command line below runs with its default).
    ``split``: the parallel check of the logs split into parts reports the same too (checked
    on the session as played and on the first change of each kind, :attr:`Tamper.split`; a
    change put back is the session as played again, which the command alone checks then)."""
    result = CliRunner().invoke(
        app, ["verify", "--database", url, "--format", "json", "--jobs", "1"]
    )
    assert result.stdout, (result.output, result.exception)
    body = json.loads(result.stdout)
    if not split:
        return result.exit_code, body
    # two processes, each table's log split into parts of a few events (as a long log is):
    # the same report
    store = Store.open(url)
    try:
        split = verify_database(store, jobs=2, part_events=7)
    finally:
        store.close()
    assert split.counts() == body["counts"], (split.counts(), body["counts"])
    assert (split.finding and split.finding.to_dict()) == body.get("failure"), split.finding
    return result.exit_code, body


def sql(store: Store, statement: str, **params: Any) -> list[Any]:
    """Run ``statement`` directly on the database (no store checks); rows it returned."""
    with store.engine.begin() as conn:
        result = conn.execute(text(statement), params)
        return list(result) if result.returns_rows else []


@dataclass(frozen=True)
class Tamper:
    """One change behind the service's back: ``change`` does it and returns how to undo it;
    verify must then fail at ``record`` (a regular expression) of ``table``."""

    name: str
    change: Callable[[Store], Callable[[Store], None]]
    record: str
    table: str | None
    split: bool = True
    """Also checked by the parallel check of the logs split into parts (``cli_verify``): the
    first change of each kind the checks find (the chain, the ledger, the meters, the shoe's
    commitment); a second change of a kind is found by the same check of the same task."""


def _event_at(store: Store, table_id: str, type_name: str, nth: int = 0) -> Any:
    rows = sql(
        store,
        "SELECT seq, payload, hash FROM events WHERE table_id = :t AND type = :ty ORDER BY seq",
        t=table_id,
        ty=type_name,
    )
    return rows[nth]


def _set_payload(table_id: str, seq: int, payload: str) -> Callable[[Store], None]:
    def put(store: Store) -> None:
        sql(
            store,
            "UPDATE events SET payload = :p WHERE table_id = :t AND seq = :s",
            p=payload,
            t=table_id,
            s=seq,
        )

    return put


def raise_an_ante(store: Store) -> Callable[[Store], None]:
    """An ante's amount changed in the event log (c1)."""
    seq, payload, _ = _event_at(store, "c1", "caribbean.AntePlaced", 2)
    _set_payload("c1", seq, payload.replace('"amount":', '"amount":9', 1))(store)
    TAMPERS_AT["event"] = f"c1#{seq}"
    return _set_payload("c1", seq, payload)


def a_baccarat_win(store: Store) -> Callable[[Store], None]:
    """A settled baccarat round's winner changed in the log (b1)."""
    seq, payload, _ = _event_at(store, "b1", "baccarat.RoundSettled", 1)
    winner = re.search(r'"winner":"(banker|player|tie)"', payload)
    assert winner is not None
    other = "player" if winner.group(1) != "player" else "banker"
    _set_payload("b1", seq, payload.replace(winner.group(0), f'"winner":"{other}"'))(store)
    TAMPERS_AT["settled"] = f"b1#{seq}"
    return _set_payload("b1", seq, payload)


def _settlement_tx(store: Store) -> int:
    rows = sql(
        store,
        "SELECT tx_id FROM transactions WHERE table_id = 'c1' AND reason = "
        "'caribbean.RoundSettled' ORDER BY tx_id",
    )
    return int(rows[1][0])


def a_transaction_actor(store: Store) -> Callable[[Store], None]:
    """Who made a settlement transaction changed (c1)."""
    tx_id = _settlement_tx(store)
    (actor,) = sql(store, "SELECT actor FROM transactions WHERE tx_id = :x", x=tx_id)[0]
    sql(store, "UPDATE transactions SET actor = 'mallory' WHERE tx_id = :x", x=tx_id)
    TAMPERS_AT["transaction"] = f"tx {tx_id}"

    def undo(s: Store) -> None:
        sql(s, "UPDATE transactions SET actor = :a WHERE tx_id = :x", a=actor, x=tx_id)

    return undo


def money_moved_between_postings(store: Store) -> Callable[[Store], None]:
    """100 moved from one posting of a settlement to another, balances adjusted to match and
    the sum still zero (the careful tamperer)."""
    tx_id = _settlement_tx(store)
    rows = sql(
        store, "SELECT line, account_id FROM postings WHERE tx_id = :x ORDER BY line", x=tx_id
    )
    (a_line, a_acc), (b_line, b_acc) = rows[0], rows[1]

    def move(s: Store, amount: int) -> None:
        for line, acc, delta in ((a_line, a_acc, amount), (b_line, b_acc, -amount)):
            sql(
                s,
                "UPDATE postings SET amount = amount + :d WHERE tx_id = :x AND line = :l",
                d=delta,
                x=tx_id,
                l=line,
            )
            sql(
                s,
                "UPDATE accounts SET balance = balance + :d WHERE account_id = :a",
                d=delta,
                a=acc,
            )

    move(store, 100)
    TAMPERS_AT["posting"] = f"tx {tx_id}"
    return lambda s: move(s, -100)


def the_meter_row(store: Store) -> Callable[[Store], None]:
    """The linked meter's row: one more hit recorded."""
    sql(store, "UPDATE meters SET hits = hits + 1 WHERE meter_id = 'm-car'")
    return lambda s: sql(s, "UPDATE meters SET hits = hits - 1 WHERE meter_id = 'm-car'")


def the_meter_amount(store: Store) -> Callable[[Store], None]:
    """The meter's amount (its ledger account) raised, a wallet lowered to match (the ledger
    still sums to zero)."""

    def move(s: Store, amount: int) -> None:
        sql(
            s,
            "UPDATE accounts SET balance = balance + :d WHERE account_id = 'jackpot_meter:m-car'",
            d=amount,
        )
        sql(
            s,
            "UPDATE accounts SET balance = balance - :d WHERE account_id = 'wallet:p1'",
            d=amount,
        )

    move(store, 5_000)
    return lambda s: move(s, -5_000)


def a_card_rewritten_with_its_chain(store: Store) -> Callable[[Store], None]:
    """A dealt Caribbean card changed and every later hash of c1 recomputed: the chain holds,
    but the card no longer hashes to its committed leaf (and the round's settlement no longer
    follows from its cards)."""
    # a card after the supervisor's void (whose evidence hash a rewrite before it would break)
    seq, payload, _ = _event_at(store, "c1", "caribbean.CardDealt", -3)
    card = re.search(r'"card":"(..)"', payload)
    assert card is not None
    rows = sql(
        store,
        "SELECT seq, payload, prev_hash, hash FROM events WHERE table_id = 'c1' AND seq >= :s "
        "ORDER BY seq",
        s=seq,
    )
    # a card of the same round not dealt to anyone: take the round's cards from the log
    round_cards = {
        m
        for (p,) in sql(
            store,
            "SELECT payload FROM events WHERE table_id = 'c1' AND round_id = "
            "(SELECT round_id FROM events WHERE table_id = 'c1' AND seq = :s)",
            s=seq,
        )
        for m in re.findall(r'"card":"(..)"', p)
    }
    new_card = next(
        f"{r}{s}" for r in "AKQJT98765432" for s in "shdc" if f"{r}{s}" not in round_cards
    )
    changed = payload.replace(card.group(0), f'"card":"{new_card}"')
    prev = rows[0].prev_hash
    new_rows = []
    for row in rows:
        body = changed if row.seq == seq else row.payload
        digest = chain_hash(prev, body.encode("utf-8"))
        new_rows.append((row.seq, body, prev, digest))
        prev = digest

    def write(s: Store, values: list[tuple[int, str, str, str]]) -> None:
        for n, body, before, digest in values:
            sql(
                s,
                "UPDATE events SET payload = :p, prev_hash = :ph, hash = :h "
                "WHERE table_id = 'c1' AND seq = :s",
                p=body,
                ph=before,
                h=digest,
                s=n,
            )

    write(store, new_rows)
    TAMPERS_AT["rewritten"] = f"c1#{seq}"
    original = [(r.seq, r.payload, r.prev_hash, r.hash) for r in rows]
    return lambda s: write(s, original)


TAMPERS_AT: dict[str, str] = {}  # the record each change touched (filled as they run)

TAMPERS = (
    Tamper("event", raise_an_ante, "event", "c1"),
    Tamper("settled", a_baccarat_win, "settled", "b1", split=False),
    Tamper("transaction", a_transaction_actor, "transaction", None),
    Tamper("posting", money_moved_between_postings, "posting", None, split=False),
    Tamper("meter row", the_meter_row, "meter", None),
    Tamper("meter amount", the_meter_amount, "meter", None, split=False),
    Tamper("rewritten", a_card_rewritten_with_its_chain, "rewritten", "c1"),
)


def play_a_session(store: Store) -> None:
    """Both tables play through the service: rounds with jackpot wagers, one round interrupted
    by a restart (resumed, CSP-11.4) then voided by a supervisor (CSP-11.1) so that a carried
    wager is settled later."""
    casino(store, TABLES)
    for table_id in TABLES:
        with restart(store, table_id) as svc:
            Bots(svc, PLAYERS[:5], seed=7).play(4)
    with restart(store, "c1") as svc:
        svc.cycle_step()  # the round cycle opens the round (its result pause not waited for)
        for n, (command, actor) in enumerate(
            ((PlaceAnte(1, "p1", 500), "p1"), (PlaceJackpotWager(1, "p1"), "p1"))
        ):
            svc.submit(command, idempotency_key=f"cut-short:{n}", actor=actor)
        svc.cycle_step()  # and closes its betting: the cards are dealt
    with restart(store, "c1") as svc:  # the round left open resumes; a supervisor voids it
        # on a ground (CSP-11.1) the dealer's report shows, then puts the table back in service
        svc.submit(ReportFault("two cards exposed"), idempotency_key="cut-short:f", actor="d")
        void = Void("two cards exposed in error", Ground.EXPOSURES, "sup-1")
        svc.submit(void, idempotency_key="cut-short:void", actor="sup-1")
        svc.submit(ClearFault("sup-1", "cards checked"), idempotency_key="cut-short:c", actor="s")
        Bots(svc, PLAYERS[:5], seed=9).play(2)


def test_a_record_changed_behind_the_services_back_fails_verify_at_that_record(
    store: Store, tmp_path: Path
) -> None:
    url = store.raw_url.render_as_string(hide_password=False)
    # played on a store of its own, closed before the checks: its linked meter's PostgreSQL
    # listener (a thread) stops with it, so verify's pool can fork its workers here as the
    # command does in a process of its own (it spawns them in a process running threads: a
    # spawned worker imports the package again, ~1 s each, twice per check, fifteen checks)
    with Store.open(url) as session:
        play_a_session(session)
    code, clean = cli_verify(url)
    assert code == 0 and clean["ok"], clean
    for tamper in TAMPERS:
        undo = tamper.change(store)
        code, found = cli_verify(url, split=tamper.split)
        failure = found["failure"]
        where = TAMPERS_AT.get(tamper.record, tamper.record)
        assert code == 1 and failure is not None, f"{tamper.name}: not found"
        record = failure["record"]
        if tamper.name.startswith("meter"):
            assert "m-car" in record, (tamper.name, failure)
        elif tamper.name == "rewritten":
            # the chain holds, but the card no longer hashes to the leaf committed before the
            # shoe's first card: found at that very record (Common rules "Randomness")
            assert failure["check"] == "shoe" and failure["table_id"] == "c1", failure
            assert record == where, failure
        else:
            assert record == where, (tamper.name, failure)
        if tamper.table is not None:
            assert failure["table_id"] == tamper.table, (tamper.name, failure)
        undo(store)
        code, again = cli_verify(url, split=False)
        assert code == 0 and again["ok"], (tamper.name, again)
    # the real command line, in its own process: exit 1 naming the table and the record
    raise_an_ante(store)
    done = subprocess.run(
        [str(Path(sys.executable).with_name("macau-tables")), "verify", "--database", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done
    assert f"record {TAMPERS_AT['event']}" in done.stdout and "table c1" in done.stdout
