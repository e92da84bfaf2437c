"""CSP-3(1) at the dealer console of a live Caribbean Stud table whose deck is shuffled by hand:
the console offers the hand shuffle and cut, the board says when the round's deck waits for it
(``procedure_waits``), a card sent before it is refused with CSP-3 and what to do, and the
shuffle and cut is recorded through the API. SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.support import add_demo_table, demo_casino, login, server_settings

from macau_tables.caribbean.demo import demo_rules as demo_caribbean_rules
from macau_tables.caribbean.rules import DealingProcedure
from macau_tables.rounds import TableMode
from macau_tables.server.runtime import Runtime
from macau_tables.store import Store
from macau_tables.tables.clock import FakeClock

HTML = {"Accept": "text/html"}


@pytest.fixture
def runtime(store: Store) -> Iterator[Runtime]:
    """The demonstration casino and ``csp-hand``, a live table dealt from a hand-shuffled deck
    (the dealing procedure the shoe, CSP-3(1)), served from the start."""
    demo_casino(store)
    _add_hand_table(store)
    rt = Runtime(server_settings(), store, clock=FakeClock())
    rt.start()
    try:
        yield rt
    finally:
        rt.stop()


def _add_hand_table(store: Store) -> None:
    add_demo_table(
        store,
        "csp-hand",
        name="Caribbean Stud (hand shuffle)",
        game="caribbean",
        mode=TableMode.LIVE,
        config_id="csp-hand",
        rules=replace(demo_caribbean_rules(), dealing_procedure=DealingProcedure.SHOE),
        meter_id="m-caribbean",
        reason="CSP-3",
    )


def _post(client: TestClient, who: dict[str, str], command: dict[str, Any], key: str) -> Any:
    return client.post(
        "/api/tables/csp-hand/commands",
        json={"idempotency_key": key, "command": command},
        headers=who,
    )


def test_the_console_records_the_hand_shuffle_and_cut_before_the_first_card_CSP_3(
    client: TestClient,
) -> None:
    dealer = login(client, "dealer")
    page = client.get("/dealer/csp-hand", headers={**HTML, **dealer}).text
    assert 'id="shuffle-cut"' in page and "/static/js/shuffle_cut.js" in page
    other = client.get("/dealer/csp-1", headers={**HTML, **dealer}).text
    assert 'id="shuffle-cut"' not in other  # a virtual deck has no physical cut
    board = "/api/tables/csp-hand/board"
    first = client.get(board)
    assert first.status_code == 200, first.text
    assert first.json()["procedure_waits"] is None  # no round open
    assert _post(client, dealer, {"type": "tables.OpenRound"}, "o").status_code == 200
    assert client.get(board).json()["procedure_waits"] == "caribbean.ShuffleAndCut"
    alice = login(client, "alice")
    ante = {"type": "caribbean.PlaceAnte", "box": 1, "player": "alice", "amount": 1_000}
    assert _post(client, alice, ante, "a").status_code == 200
    assert _post(client, dealer, {"type": "caribbean.CloseBetting"}, "c").status_code == 200
    card = _post(client, dealer, {"type": "caribbean.DealCard", "card": "As"}, "d1")
    assert card.status_code >= 400
    error = card.json()["error"]
    assert (error["key"], error["rule"]) == ("caribbean.shuffle_and_cut_first", "CSP-3")
    assert "record the shuffle and the cut" in error["text"]
    done = _post(client, dealer, {"type": "caribbean.ShuffleAndCut"}, "s")
    assert done.status_code == 200, done.text
    assert "caribbean.DeckShuffledAndCut" in done.json()["events"]
    assert client.get(board).json()["procedure_waits"] is None
    card = _post(client, dealer, {"type": "caribbean.DealCard", "card": "As"}, "d2")
    assert card.status_code == 200, card.text
    # a player may not send it: it is the dealer's act (CSP-3(1))
    assert _post(client, alice, {"type": "caribbean.ShuffleAndCut"}, "s2").status_code == 403
