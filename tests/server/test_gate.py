"""The gate (:mod:`macau_tables.visibility`): no surface shows a role a card before that role's
live view shows it (CSP-12, BAC-16), and no public payload names a player (BAC-15, CSP-12).

Reproductions of a security review: during a Caribbean Stud decision phase a supervisor's
recall listed all fifteen cards (the dealer's four hole cards included) while the supervisor's
own table view masked them; with card holding on, baccarat recall listed the held cards face
up; the audit archive of today carried them in ``events.jsonl``; the CLI's recall too. And an
anonymous ``GET /api/tables/csp-1`` named the players due in ``expected.due``. Each runs on
SQLite and PostgreSQL.
"""

from __future__ import annotations

import io
import itertools
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.cli.tables_support import run
from tests.server.support import add_held_table, login
from tests.support import VISIBLE, cards_in
from tests.tables.support import by_cycle

from macau_tables import codec
from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.commands import CloseBetting as BacClose
from macau_tables.baccarat.commands import PlaceWager, Reveal
from macau_tables.baccarat.rules import WagerKind
from macau_tables.caribbean.commands import CloseBetting as CspClose
from macau_tables.caribbean.commands import Fold, PlaceAnte, Raise
from macau_tables.rounds import DEALER, Audience
from macau_tables.server.runtime import Runtime
from macau_tables.tables.archive_check import verify_archive
from macau_tables.tables.casino import UNIT
from macau_tables.tables.clock import opening_date
from macau_tables.tables.model import OpenRound

_keys = itertools.count()


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start): ``bac-hold`` once
    a test adds it."""
    return ("csp-1", "bac-hold")


def _do(runtime: Runtime, table: str, command: object, actor: str = "test") -> None:
    service = runtime.service(table)
    if not by_cycle(service, command):  # (a virtual table's open and close: its cycle's)
        service.submit(command, idempotency_key=f"gate-{next(_keys)}", actor=actor)


def _deciding(runtime: Runtime) -> Any:
    """``csp-1`` in its decision phase (alice in box 1, bruno in box 2): the round."""
    _do(runtime, "csp-1", OpenRound())
    _do(runtime, "csp-1", PlaceAnte(1, "alice", 2 * UNIT))
    _do(runtime, "csp-1", PlaceAnte(2, "bruno", 2 * UNIT))
    _do(runtime, "csp-1", CspClose())
    r = runtime.service("csp-1").round
    assert r.expected_next().phase == "deciding"
    return r


def _finish_caribbean(runtime: Runtime) -> None:
    _do(runtime, "csp-1", Raise(1, "alice", 4 * UNIT))
    _do(runtime, "csp-1", Fold(2, "bruno"))
    assert runtime.service("csp-1").round.is_over


def _recall(client: TestClient, table: str, who: str) -> Any:
    response = client.get(f"/api/tables/{table}/recall?last=1", headers=login(client, who))
    assert response.status_code == 200, response.text
    return response.json()


def test_recall_in_a_caribbean_decision_phase_shows_only_the_live_view_CSP_12(
    client: TestClient, runtime: Runtime
) -> None:
    r = _deciding(runtime)
    allowed = VISIBLE["caribbean"](r, Audience.supervisor())
    for who in ("supervisor", "admin"):
        (recalled,) = _recall(client, "csp-1", who)
        assert recalled["state"] == "open" and recalled["cards"] == []
        live = client.get("/api/tables/csp-1", headers=login(client, who)).json()["view"]
        assert recalled["view"] == live  # the role's live view, not a card more
        assert set(cards_in(recalled)) <= allowed, who  # the dealer's hole cards stay hidden
    dealer = client.get("/api/tables/csp-1/recall?last=1", headers=login(client, "dealer"))
    assert dealer.status_code == 403  # the dealer has no recall
    _finish_caribbean(runtime)
    (recalled,) = _recall(client, "csp-1", "supervisor")
    assert recalled["state"] == "settled" and recalled["view"] is None
    assert len(recalled["cards"]) == 15  # closed: recalled whole (two boxes and the dealer)


def _held_round(runtime: Runtime) -> Any:
    """``bac-hold`` (card holding, BAC-16) with its cards dealt and the first reveal due."""
    add_held_table(runtime.store, reason="gate test")
    runtime.tick()
    _do(runtime, "bac-hold", OpenRound(((1, "alice"), (2, "bruno"))))
    _do(runtime, "bac-hold", PlaceWager("alice", seat(1), WagerKind.PLAYER, 5 * UNIT))
    _do(runtime, "bac-hold", PlaceWager("bruno", seat(2), WagerKind.BANKER, 5 * UNIT))
    _do(runtime, "bac-hold", BacClose())
    r = runtime.service("bac-hold").round
    assert r.expected_next().phase == "revealing" or r.pending_reveal() is not None
    return r


def test_recall_with_card_holding_shows_no_held_card_before_its_reveal_BAC_16(
    client: TestClient, runtime: Runtime
) -> None:
    r = _held_round(runtime)
    assert r.cards  # dealt, held face down
    allowed = VISIBLE["baccarat"](r, Audience.supervisor())
    (recalled,) = _recall(client, "bac-hold", "supervisor")
    assert recalled["state"] == "open" and recalled["cards"] == []
    assert set(cards_in(recalled)) <= allowed
    assert not allowed & {c for _, c in r.cards}  # nothing turned yet: no card at all
    svc = runtime.service("bac-hold")
    while not svc.round.is_over:
        due = svc.round.expected_next().due[0]
        step = svc.round.pending_reveal()
        _do(runtime, "bac-hold", Reveal(step.side, step.part, due.player or DEALER))
    (recalled,) = _recall(client, "bac-hold", "supervisor")
    assert recalled["state"] == "settled"
    assert len(recalled["cards"]) == len(svc.round.cards)


def _archive_rows(client: TestClient, runtime: Runtime, tmp_path: Path) -> tuple[Path, list[Any]]:
    day = runtime.store.read(lambda tx: opening_date(tx.now())).isoformat()
    response = client.get(f"/api/audit/archive?day={day}", headers=login(client, "admin"))
    assert response.status_code == 200, response.text
    path = tmp_path / f"{day}-{next(_keys)}.zip"
    path.write_bytes(response.content)
    with zipfile.ZipFile(io.BytesIO(response.content)) as zf:
        rows = [json.loads(line) for line in zf.read("events.jsonl").splitlines()]
    return path, rows


def test_the_archive_of_today_holds_no_card_of_a_round_in_play_then_the_whole_round_CSP_12(
    client: TestClient, runtime: Runtime, tmp_path: Path
) -> None:
    _deciding(runtime)
    _finish_caribbean(runtime)  # one round closed today: in the archive
    r = _deciding(runtime)
    path, rows = _archive_rows(client, runtime, tmp_path)
    ids = {row["round_id"] for row in rows if row["table_id"] == "csp-1"}
    assert ids - {None} == {  # (None: the table's own records, the cycle's deadlines)
        runtime.store.read(lambda tx: tx.round_ids("csp-1"))[0]
    }
    hidden = {c for b in r.boxes for c in b.cards} | set(r.dealer_cards)
    open_rows = [row for row in rows if row["round_id"] == r.round_id]
    assert open_rows == [] and hidden  # not a record of it, so none of its cards
    assert verify_archive(path).ok
    _finish_caribbean(runtime)
    path, rows = _archive_rows(client, runtime, tmp_path)
    whole = runtime.store.read(lambda tx: tx.read_events("csp-1", round_id=r.round_id))
    assert [row["seq"] for row in rows if row["round_id"] == r.round_id] == [e.seq for e in whole]
    found = verify_archive(path)
    assert found.ok, found.finding


def test_the_cli_recall_of_a_round_in_play_shows_a_supervisors_live_view_CSP_12(
    runtime: Runtime,
) -> None:
    r = _deciding(runtime)
    url = runtime.store.raw_url
    recall = ("recall", "--table", "csp-1", "--last", "1", "--database", url)
    as_json = run(*recall, "--format", "json")
    assert as_json.exit_code == 0, as_json.output
    (recalled,) = json.loads(as_json.stdout)
    assert recalled["cards"] == [] and recalled["view"] is not None
    assert set(cards_in(recalled)) <= VISIBLE["caribbean"](r, Audience.supervisor())
    as_text = run(*recall)
    assert as_text.exit_code == 0, as_text.output
    hidden = {c for b in r.boxes for c in b.cards} | {
        c for c, up in zip(r.dealer_cards, r.dealer_face_up, strict=True) if not up
    }
    assert not {str(c) for c in hidden} & set(as_text.stdout.replace(",", " ").split())
    assert not {c.pretty for c in hidden} & set(as_text.stdout.replace(",", " ").split())


def _strings(payload: object) -> set[str]:
    """Every text in a JSON payload, keys included."""
    if isinstance(payload, dict):
        return set(payload) | {s for v in payload.values() for s in _strings(v)}
    if isinstance(payload, list):
        return {s for v in payload for s in _strings(v)}
    return {payload} if isinstance(payload, str) else set()


def test_the_public_table_names_no_player_while_they_are_due_BAC_15_CSP_12(
    client: TestClient, runtime: Runtime
) -> None:
    _deciding(runtime)
    shown = client.get("/api/tables/csp-1").json()
    assert [d["kind"] for d in shown["expected"]["due"]] == ["decision", "decision"]
    assert not {"alice", "bruno"} & _strings(shown)
    with client.websocket_connect("/ws/tables/csp-1") as ws:
        message = ws.receive_json()
    assert message["type"] == "table" and not {"alice", "bruno"} & _strings(message)
    staff = client.get("/api/tables/csp-1", headers=login(client, "dealer")).json()
    assert [d["player"] for d in staff["expected"]["due"]] == ["alice", "bruno"]
    mine = client.get("/api/tables/csp-1", headers=login(client, "alice")).json()
    assert [d["player"] for d in mine["expected"]["due"]] == ["alice", None]
    assert codec.decode(mine["audience"]) == Audience.of_player("alice")
