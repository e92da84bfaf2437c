"""Seats at a virtual baccarat table through the server (BAC-15, BAC-16), on both databases:
a player takes and leaves a seat with ``tables.TakeSeat`` / ``tables.LeaveSeat`` on
``/api/tables/{id}/commands`` (for themselves only); the round cycle opens the next round with
the table's seating; the board shows the seating as BAC-15 lets the caller see it (staff all,
a player their own seat, the public none); each refusal names BAC-15."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.support import login

from macau_tables.server.runtime import Runtime

_keys = itertools.count(1)


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-1", "csp-1")


def _send(client: TestClient, table: str, command: dict[str, Any], headers: Any) -> Any:
    body = {"idempotency_key": f"seat-{next(_keys)}", "command": command}
    return client.post(f"/api/tables/{table}/commands", json=body, headers=headers)


def _take(player: str, seat: int) -> dict[str, Any]:
    return {"type": "tables.TakeSeat", "player": player, "seat": seat}


def _refused(response: Any, key: str, status: int = 409) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["key"] == key
    return error


def test_players_take_seats_over_the_api_and_the_cycle_seats_them_BAC_15(
    client: TestClient, runtime: Runtime
) -> None:
    alice, bruno = login(client, "alice"), login(client, "bruno")
    dealer = login(client, "dealer")
    assert _send(client, "bac-1", _take("alice", 2), alice).status_code == 200
    assert _send(client, "bac-1", _take("bruno", 5), bruno).status_code == 200
    # For themselves only (the command's actor field).
    _refused(_send(client, "bac-1", _take("alice", 3), bruno), "api.acts_for_another", 403)
    error = _refused(_send(client, "bac-1", _take("bruno", 2), bruno), "tables.already_seated")
    assert error["rule"] == "BAC-15" and error["text"]
    leave = {"type": "tables.LeaveSeat", "player": "bruno"}
    assert _send(client, "bac-1", leave, bruno).status_code == 200
    _refused(_send(client, "bac-1", _take("bruno", 2), bruno), "tables.seat_taken")
    _refused(_send(client, "bac-1", _take("bruno", 0), bruno), "tables.seat_out_of_range")
    assert _send(client, "bac-1", _take("bruno", 5), bruno).status_code == 200
    _refused(_send(client, "bac-1", _take("alice", 99), alice), "tables.seat_out_of_range")
    # The board: staff all, a player their own seat, the public nothing (BAC-15).
    board = client.get("/api/tables/bac-1/board", headers=dealer).json()
    assert board["seating"] == [[2, "alice"], [5, "bruno"]] and board["seats"] >= 7
    assert client.get("/api/tables/bac-1/board", headers=alice).json()["seating"] == [[2, "alice"]]
    public = client.get("/api/tables/bac-1/board")
    assert public.json()["seating"] == [] and "alice" not in public.text
    # The cycle opens the next round with the table's seating; alice bets in her seat.
    runtime.tick()
    svc = runtime.service("bac-1")
    assert svc.round.seated == ((2, "alice"), (5, "bruno"))
    wager = {
        "type": "baccarat.PlaceWager",
        "player": "alice",
        "area": {"type": "baccarat.Area", "seated": True, "number": 2},
        "kind": "banker",
        "amount": 1_000,
    }
    assert _send(client, "bac-1", wager, alice).status_code == 200
    left = _send(client, "bac-1", {"type": "tables.LeaveSeat", "player": "alice"}, alice)
    assert left.status_code == 200, left.text
    assert svc.round.seated == ((2, "alice"), (5, "bruno"))  # fixed until the next opens
    again = _send(client, "bac-1", {"type": "tables.LeaveSeat", "player": "alice"}, alice)
    _refused(again, "tables.not_seated")
    assert client.get("/api/tables/bac-1/board", headers=alice).json()["seating"] == []
    assert client.get("/api/tables/bac-1/board", headers=alice).json()["seated"] == [[2, "alice"]]
    # Caribbean Stud's boxes are taken by the antes: no seat to take.
    _refused(_send(client, "csp-1", _take("alice", 1), alice), "tables.no_seats")
    assert client.get("/api/tables/csp-1/board", headers=alice).json()["seats"] is None
